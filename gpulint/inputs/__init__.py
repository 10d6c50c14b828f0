"""Paths to sources: discovery, reading, prescan, rendering, the cluster inventory."""
