"""Rules are registered once, by discovery: no module of the pack can be forgotten."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from gpulint.core.findings import Severity
from gpulint.rules import api, builtin
from gpulint.rules.registry import (
    Registry,
    default_registry,
    pack_modules,
    pack_rules,
    resolved,
    rules_of,
)
from gpulint.rules.rule import Rule
from tests.helpers import ROOT

PACK = ROOT / "rules"
# What a rule module may import from gpulint (the rule in gpulint/rules/api.py's docstring).
ALLOWED = (
    "gpulint.rules.api",
    "gpulint.rules.facts",
    "gpulint.model",
    "gpulint.validate",
    "gpulint.catalog",
    "gpulint.rules.fixes.builders",  # the fix builders a fixable rule attaches to its reports
)


def test_every_pack_module_defines_a_rule():
    empty = [m.__name__ for m in pack_modules(builtin) if not rules_of(m)]
    assert not empty, f"modules of rules/ that define no Rule: {empty}"


def test_every_rule_of_the_pack_is_registered():
    registry = default_registry()
    missing = [
        f"{rule.code} ({module.__name__})"
        for module in pack_modules(builtin)
        for rule in rules_of(module)
        if resolved(registry.get(rule.code) or rule) is not rule  # the index's entry -> the rule
    ]
    assert not missing, f"rules defined in rules/ but not in the registry: {missing}"


def test_every_file_of_the_pack_is_a_discovered_module():
    files = sorted(p.stem for p in PACK.glob("*.py") if p.stem != "__init__")
    assert [m.__name__.rsplit(".", 1)[-1] for m in pack_modules(builtin)] == files
    assert len(default_registry()) >= len(files)


@pytest.fixture
def temporary_pack(tmp_path, monkeypatch):
    """A rule pack ``tmppack`` with a rule module, a module without a rule, and a subpackage."""
    root = tmp_path / "tmppack"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "team101_pod_label.py").write_text(
        textwrap.dedent(
            """\
            from gpulint.rules.api import Rule, Severity

            rule = Rule("TEAM101", "pod-label", Severity.NOTE, "A pod has no label.", "")
            """
        )
    )
    (root / "helpers.py").write_text("LIMIT = 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("tmppack")
    for name in [n for n in sys.modules if n == "tmppack" or n.startswith("tmppack.")]:
        del sys.modules[name]


def test_discovery_of_a_temporary_pack(temporary_pack):
    assert [r.code for r in pack_rules(temporary_pack)] == ["TEAM101"]
    names = [m.__name__ for m in pack_modules(temporary_pack)]
    assert names == ["tmppack.helpers", "tmppack.team101_pod_label"]
    # the check above, applied to this pack, names the module that defines no rule
    assert [m.__name__ for m in pack_modules(temporary_pack) if not rules_of(m)] == [
        "tmppack.helpers"
    ]


def test_a_hook_registered_twice_is_an_error():
    rule = api.Rule("TEAM102", "twice", api.Severity.NOTE, "Twice.", "")

    @rule.resource_check
    def first(resource, ctx):
        return ()

    with pytest.raises(ValueError, match=r"TEAM102: check_resource is already registered"):

        @rule.resource_check
        def second(resource, ctx):
            return ()

    assert rule.check_resource is first


def test_the_api_exports_what_it_lists():
    for name in api.__all__:
        assert getattr(api, name) is not None
    assert {"Rule", "Report", "Context", "Anchor", "Severity", "Resource", "Document"} <= set(
        api.__all__
    )


def _gpulint_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gpulint"):
            # ``from gpulint.rules import facts`` imports gpulint.rules.facts
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("gpulint")]
    return found


def test_rules_import_only_the_rule_api_and_the_model():
    wrong = [
        f"{path.name}:{line}: {module}"
        for path in sorted(PACK.glob("*.py"))
        for line, module in _gpulint_imports(path)
        if not any(module == a or module.startswith(a + ".") for a in ALLOWED)
    ]
    assert not wrong, f"rule modules importing past the rule API: {wrong}"


def test_a_finalizer_yielding_the_old_tuples_gets_a_clear_error():
    from gpulint.core.findings import Location
    from gpulint.core.settings import Settings

    rule = api.Rule("TEAM103", "old-style", api.Severity.NOTE, "Old.", "")
    anchor = api.Anchor(Location("a.yaml", 1, 1, 1, 2), "", None, None, None)
    with pytest.raises(TypeError, match=r"TEAM103: hooks yield Report .* not tuple"):
        rule.placed_finding((anchor, "message"), Settings())  # type: ignore[arg-type]
    finding = rule.placed_finding(api.Report.placed(anchor, "message"), Settings())
    assert (finding.code, finding.location.file, finding.message) == (
        "TEAM103",
        "a.yaml",
        "message",
    )


# --- opt-in rules (issue 24: advice not worth reading by default is not on by default) ---


def _opt_in_registry() -> Registry:
    return Registry(
        [
            Rule("GPU301", "pull-always", Severity.NOTE, "s", "", default=False),
            Rule("GPU302", "image-unpinned", Severity.WARNING, "s", ""),
            Rule("GPU101", "limit-missing", Severity.ERROR, "s", ""),
        ]
    )


def _codes(rules):
    return [r.code for r in rules]


def test_the_default_set_leaves_out_opt_in_rules():
    assert _codes(_opt_in_registry().select()) == ["GPU101", "GPU302"]


def test_a_prefix_selects_the_default_set_s_rules_under_it_only():
    assert _codes(_opt_in_registry().select(["GPU3"])) == ["GPU302"]


def test_an_opt_in_rule_runs_when_named_by_code_name_or_all():
    registry = _opt_in_registry()
    assert _codes(registry.select(["GPU301"])) == ["GPU301"]
    assert _codes(registry.select(["pull-always"])) == ["GPU301"]
    assert _codes(registry.select(["ALL"])) == ["GPU101", "GPU301", "GPU302"]


def test_extend_select_adds_to_the_default_set_and_ignore_wins():
    registry = _opt_in_registry()
    assert _codes(registry.select(extend=["GPU301"])) == ["GPU101", "GPU301", "GPU302"]
    assert _codes(registry.select(["GPU1"], extend=["GPU301"])) == ["GPU101", "GPU301"]
    assert _codes(registry.select(ignore=["GPU301"], extend=["GPU301"])) == ["GPU101", "GPU302"]
