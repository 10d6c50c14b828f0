"""A config file with its custom rules added to the registry: what every command that
lints (``gpulint check``, ``gpulint lsp``) needs from ``.gpulint.yaml``."""

from __future__ import annotations

from gpulint.config.file import Config, load_config
from gpulint.rules.registry import Registry


def load_with_rules(path: str, registry: Registry) -> tuple[Config, Registry]:
    """(config, registry with its custom rules); raises ``ConfigError`` with positions."""
    config = load_config(path, registry)
    if config.custom_rules:
        registry = Registry(list(registry) + config.custom_rules)
    return config, registry
