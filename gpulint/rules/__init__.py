"""The rule layer: the public rule API, the registry, custom rules, shared facts.

The built-in rule pack itself is the top-level ``rules/`` folder, importable as
:mod:`gpulint.rules.builtin`.
"""
