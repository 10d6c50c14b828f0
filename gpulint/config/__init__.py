"""Typed settings, the ``.gpulint.yaml`` file and its schema, flags merged over it."""
