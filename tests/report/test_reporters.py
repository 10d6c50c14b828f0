"""Golden outputs for every format, SARIF against the official schema, GitHub escaping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulint import report
from gpulint.core.findings import Finding, Location, Related, ResourceRef, RunResult, Severity
from gpulint.report import github
from tests.helpers import DATA, ROOT, run_cli, sarif_schema

GOLDEN = DATA / "golden"
INPUT = "tests/data/golden/input.yaml"


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch):
    # Paths in findings are relative to the working directory.
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_golden_output(fmt, monkeypatch):
    # The checkout's commit changes with every commit: no provenance in the golden file.
    monkeypatch.setattr("gpulint.report.provenance.find", lambda start=".": None)
    result = run_cli("check", INPUT, "--select", "GPU101,GPU102,GPU103", "--format", fmt)
    assert result.exit_code == 1
    assert result.output == (GOLDEN / f"expected.{fmt}").read_text()


def test_sarif_is_valid_against_the_official_schema():
    import jsonschema

    result = run_cli("check", INPUT, "--format", "sarif")
    log = json.loads(result.output)
    jsonschema.validate(log, sarif_schema())
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert {"startLine", "startColumn", "endLine", "endColumn"} <= set(region)
        assert res["partialFingerprints"]["gpulint/v1"]


def test_sarif_clean_run_has_an_empty_results_array(tmp_path):
    import jsonschema

    clean = tmp_path / "clean.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = run_cli("check", str(clean), "--format", "sarif")
    assert result.exit_code == 0
    log = json.loads(result.output)
    jsonschema.validate(log, sarif_schema())
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_reports_input_errors_as_notifications(tmp_path):
    import jsonschema

    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1\n")
    result = run_cli("check", str(bad), INPUT, "--format", "sarif")
    assert result.exit_code == 2
    log = json.loads(result.output)
    jsonschema.validate(log, sarif_schema())
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    (note,) = [n for n in notes if n["level"] == "error"]  # the others: held-back rules
    assert note["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 1}
    assert log["runs"][0]["results"], "findings of the good file are still reported"


def test_sarif_fingerprints_survive_line_shifts(tmp_path):
    text = (ROOT / INPUT).read_text()
    shifted = tmp_path / "input.yaml"
    shifted.write_text("# a new comment\n# and another\n" + text)
    original = tmp_path / "orig" / "input.yaml"
    original.parent.mkdir()
    original.write_text(text)

    def prints(path: Path) -> list[str]:
        log = json.loads(run_cli("check", path.name, "--format", "sarif").output)
        return [r["partialFingerprints"]["gpulint/v1"] for r in log["runs"][0]["results"]]

    import os

    os.chdir(tmp_path)
    first = prints(shifted)
    os.chdir(original.parent)
    assert prints(original) == first


def test_github_escaping():
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a,b:c%") == "a%2Cb%3Ac%25"


def test_github_command_shape():
    finding = Finding(
        "GPU101",
        "gpu-limit-missing",
        Severity.WARNING,
        "line one\nline two, 100%",
        Location("dir,x/a:b.yaml", 3, 5, 3, 9),
        resource=ResourceRef("Pod", "p", "ns"),
        container="c",
    )
    out = report.render("github", RunResult([finding], [], []))
    assert out == (
        "::warning file=dir%2Cx/a%3Ab.yaml,line=3,col=5,endLine=3,endColumn=9,"
        "title=GPU101 gpu-limit-missing::line one%0Aline two, 100%25 (Pod ns/p, container c)\n"
    )


def test_json_is_the_documented_structure():
    data = json.loads(run_cli("check", INPUT, "--format", "json").output)
    # heldBack: findings held back for want of cluster facts (the input has some).
    assert set(data) == {"version", "tool", "findings", "errors", "summary", "heldBack"}
    first = data["findings"][0]
    assert set(first) == {
        "code", "name", "severity", "message", "path", "line", "column", "endLine",
        "endColumn", "pointer", "resource", "container", "template", "templateLocation",
        "related", "suppressed", "suppression", "fingerprint", "fix",
    }  # fmt: skip


def _with_related() -> RunResult:
    finding = Finding(
        "GPU407",
        "device-plugin-version-drift",
        Severity.WARNING,
        "DaemonSet a deploys device plugin v0.14.5, while other linted files deploy v0.17.0",
        Location("a/ds.yaml", 12, 16, 12, 61),
        related=(Related(Location("b/values.yaml", 3, 8, 3, 15), "values deploy v0.17.0"),),
    )
    return RunResult([finding], [], [])


def test_related_locations_in_every_format():
    import jsonschema

    result = _with_related()
    text = report.render("text", result).splitlines()
    assert text[1] == "    related: b/values.yaml:3:8: values deploy v0.17.0"
    (found,) = json.loads(report.render("json", result))["findings"]
    assert found["related"] == [
        {
            "path": "b/values.yaml",
            "line": 3,
            "column": 8,
            "endLine": 3,
            "endColumn": 15,
            "message": "values deploy v0.17.0",
        }
    ]
    log = json.loads(report.render("sarif", result))
    jsonschema.validate(log, sarif_schema())
    (related,) = log["runs"][0]["results"][0]["relatedLocations"]
    assert related["message"]["text"] == "values deploy v0.17.0"
    physical = related["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "b/values.yaml"
    assert physical["region"]["startLine"] == 3 and physical["region"]["startColumn"] == 8
    github_line = report.render("github", result)
    assert github_line.rstrip("\n").endswith("%0Arelated: b/values.yaml:3: values deploy v0.17.0")
