"""Memory stays bounded by construction: linting leaves no reference cycles behind.

The engine pauses the cyclic garbage collector while it lints a file and relies on
reference counting to free each document's node tree as soon as the rules are done
with it (docs/development.md, "Memory and speed"). A cycle anywhere on that path
(a view pointing back at its resource, a recursive closure) would keep node trees
alive until a collection. Every rule's documented examples run here, so every rule
and the model it uses are exercised.
"""

from __future__ import annotations

import gc
import types
from collections import Counter

from gpulint.core.settings import Settings
from gpulint.engine.context import build_context
from gpulint.engine.run import lint_target
from gpulint.inputs.discover import Target
from gpulint.rules.registry import default_registry
from tests.helpers import RULES, example_name


def _targets(tmp_path) -> list[Target]:
    targets = []
    for rule in RULES:
        for kind, text in zip(("failing", "passing"), rule.examples(), strict=True):
            folder = tmp_path / rule.code / kind
            folder.mkdir(parents=True)
            path = folder / example_name(rule)
            path.write_text(text)
            targets.append(Target(str(path)))
    return targets


def _garbage_after(targets: list[Target], ctx) -> list:
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # keep what a collection finds, to say what it was
    try:
        for target in targets:
            lint_target(target, ctx)  # ends with a young collection: SAVEALL keeps its finds
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
    return found


def test_linting_every_rule_example_leaves_no_reference_cycles(tmp_path):
    targets = _targets(tmp_path)
    ctx = build_context(Settings(jobs=1), default_registry())
    for target in targets:  # first use imports and caches; those live for the process
        lint_target(target, ctx)
    garbage = _garbage_after(targets, ctx)
    kinds = Counter(type(o).__name__ for o in garbage)
    closures = Counter(o.__qualname__ for o in garbage if isinstance(o, types.FunctionType))
    assert not garbage, f"reference cycles left behind: {kinds.most_common(8)} {closures}"
