"""The pack index (gpulint/rules/pack_index.py): the registry's rules without their modules.

The index must say what the modules say; a rule with an ``inputs`` pattern must match its
own failing example (else the engine would leave it unloaded where it should report);
a run on a Pod manifest must not import the modules of rules that cannot report on it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpulint.rules import builtin, pack_index
from gpulint.rules.registry import builtin_rules, default_registry, pack_rules, resolved
from gpulint.rules.triggers import mentions
from tests.helpers import lint

ROOT = Path(__file__).resolve().parents[2]


def test_the_index_says_what_the_modules_say():
    path = pack_index.index_path(builtin)
    assert path is not None, "rules/index.json is missing: run python scripts/generate.py"
    shipped = Path(path).read_text(encoding="utf-8")
    assert shipped == pack_index.index_text(builtin), (
        "rules/index.json differs from the rule modules: run python scripts/generate.py"
    )


def test_the_registry_rules_come_from_the_index_and_resolve_to_the_modules_rules():
    from_modules = {rule.code: rule for rule in pack_rules(builtin)}
    listed = builtin_rules()
    assert [r.code for r in listed] == sorted(from_modules)
    for stub in listed:
        real = from_modules[stub.code]
        assert stub.module is not None and resolved(stub) is real
        assert (stub.name, stub.severity, stub.summary, stub.doc, stub.fix, stub.options) == (
            real.name,
            real.severity,
            real.summary,
            real.doc,
            real.fix,
            real.options,
        )
        assert stub.check_resource is stub.finalize is None  # hooks come with the module
        assert resolved(real) is real


def test_every_rule_with_a_trigger_matches_its_own_failing_example():
    for rule in builtin_rules():
        trigger = rule.reads_trigger()
        if trigger is None:
            continue
        failing = rule.sections()["Failing example"]
        assert trigger.matches(failing.encode()), (
            f"{rule.code}: its trigger {trigger!r} does not match its failing "
            "example, so a run on that example would never load the rule"
        )


def test_a_collector_only_rule_reports_only_where_its_partner_is_written():
    gpu210 = resolved(default_registry().get("GPU210"))
    assert gpu210.reads is None and gpu210.reads_trigger() is gpu210.partner
    gpu101 = resolved(default_registry().get("GPU101"))
    assert gpu101.reads_trigger() is None  # it checks every resource


POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    image: vllm/vllm-openai:v0.6.3\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n"  # noqa: E501
CONTAINERD = """\
version = 3
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "nvidia"
"""
_IMPORTED = (
    "import sys; sys.argv = ['gpulint', 'check', PATH]; from gpulint.cli.main import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print(sorted(m.rsplit('.', 1)[-1][:6] for m in sys.modules if '.builtin.gpu' in m))"
)


def _modules_imported(path: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED.replace("PATH", repr(str(path)))],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_a_pod_run_imports_no_module_of_a_rule_that_cannot_report_on_it(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    imported = _modules_imported(tmp_path / "pod.yaml")
    assert "gpu106" in imported and "gpu101" in imported
    for absent in ("gpu311", "gpu313", "gpu318", "gpu505", "gpu805", "gpu901", "gpu001"):
        assert absent not in imported
    (tmp_path / "config.toml").write_text(CONTAINERD)
    assert "gpu311" in _modules_imported(tmp_path / "config.toml")


def test_an_unloaded_rule_still_counts_as_run_and_the_loaded_ones_report(tmp_path):
    # GPU311 has nothing to read in a Pod: unloaded, it is still one of the run's rules
    # (GPU001 says "reports nothing here", not "did not run").
    found = lint(tmp_path, POD.replace("name: a\n", "name: a  # gpulint: disable=GPU311 why\n"))
    assert [(f["code"], f["line"]) for f in found] == [("GPU001", 4), ("GPU106", 10)]
    assert "GPU311 reports nothing here" in found[0]["message"]
    [finding] = [f for f in lint(tmp_path, CONTAINERD, name="c.toml") if f["code"] == "GPU311"]
    assert (finding["line"], finding["column"]) == (3, 26)


@pytest.fixture
def indexed_pack(tmp_path, monkeypatch):
    """A pack ``idxpack`` with one rule module and its index."""
    root = tmp_path / "idxpack"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "team201_claims.py").write_text(
        textwrap.dedent(
            """\
            from gpulint.rules.api import Rule, Severity, mentions

            rule = Rule("TEAM201", "claims", Severity.NOTE, "Claims.", "", reads=mentions("claim"))
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    package = __import__("idxpack")
    (root / "index.json").write_text(pack_index.index_text(package))
    yield package
    for name in [n for n in sys.modules if n == "idxpack" or n.startswith("idxpack.")]:
        del sys.modules[name]


def test_an_index_reads_back_and_a_stale_one_is_not_used(indexed_pack):
    [stub] = pack_index.read(indexed_pack) or ()
    assert (stub.code, stub.module, stub.reads) == (
        "TEAM201",
        "idxpack.team201_claims",
        mentions("claim"),
    )
    assert resolved(stub).check_resource is None and resolved(stub) is not stub
    folder = Path(indexed_pack.__path__[0])
    (folder / "team202_new.py").write_text("")  # a module the index does not list
    assert pack_index.read(indexed_pack) is None  # then the registry imports the pack


def test_a_stub_whose_module_lost_its_rule_names_the_fix(indexed_pack):
    [stub] = pack_index.read(indexed_pack) or ()
    (Path(indexed_pack.__path__[0]) / "team201_claims.py").write_text("# no rule now\n")
    del sys.modules["idxpack.team201_claims"]  # imported to write the index
    with pytest.raises(LookupError, match="pack index is stale .*scripts/generate.py"):
        resolved(stub)


def test_with_values_for_every_rule_loads_whatever_the_text(tmp_path):
    # `image.tag: latest` names no device plugin: only --values-for makes it the chart's values.
    values = "image:\n  tag: latest\n"
    assert not default_registry().get("GPU401").reads_trigger().matches(values.encode())
    assert lint(tmp_path, values, name="values.yaml") == []
    found = lint(tmp_path, values, "--values-for", "nvidia-device-plugin", name="values.yaml")
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("GPU401", 2, 8)]


def test_a_pack_rules_documentation_is_its_modules_docstring_read_without_importing_it():
    """One source: the docstring. The index holds none; Rule.doc reads it from the source."""
    from gpulint.rules.rule import cleandoc

    for stub in builtin_rules():
        assert stub.module is not None
        module = importlib.import_module(stub.module)
        assert stub.doc == cleandoc(module.__doc__ or ""), stub.code
