"""The run's context: the rules it selects, and of those the ones it loads.

``build_context`` picks the selected rules (the pack's as its index describes them,
gpulint/rules/pack_index.py); ``load_rule_hooks`` gives them their hooks by importing their modules,
except the rules that cannot report on the run's inputs (``Rule.inputs``, decided from the
raw bytes by gpulint/inputs/prescan.py), whose modules a run never imports (start-up).
"""

from __future__ import annotations

from gpulint.core.settings import Settings
from gpulint.rules.registry import Registry, default_registry, resolved
from gpulint.rules.rule import Context


def build_context(settings: Settings, registry: Registry | None = None) -> Context:
    registry = registry or default_registry()
    return Context(
        settings,
        registry.select(settings.select, settings.ignore, settings.extend_select),
        known_codes=frozenset(r.code for r in registry),
        known_names=frozenset(r.name for r in registry),
    )


def load_rule_hooks(ctx: Context, inapplicable: frozenset[str] | None = None) -> None:
    """Give ``ctx`` its rules with their hooks: the pack index's rules are resolved (their
    modules imported), except the ``inapplicable`` ones (kept in ``ctx.inapplicable``),
    which cannot report on the run's inputs: they stay as the index describes them,
    without hooks (start-up: their modules are never imported)."""
    if inapplicable is not None:
        ctx.inapplicable = inapplicable
    skip = ctx.inapplicable
    if _LOADED and _LOADED[0] is ctx.rules and _LOADED[1] == skip:
        return  # asked again for every source of the run: answered once
    if any(rule.module is not None and rule.code not in skip for rule in ctx.rules):
        ctx.rules = [rule if rule.code in skip else resolved(rule) for rule in ctx.rules]
    _LOADED[:] = [ctx.rules, skip]


# The rule list last given its hooks, and the codes it leaves without them.
_LOADED: list = []
