"""--format gitlab (Code Quality JSON) and --format junit, validated against their schemas."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from tests.helpers import DATA, run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: "train-<&>"
spec:
  containers:
    - name: a
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("pod.yaml").write_text(POD)
    Path("broken.yaml").write_text("kind: [unclosed\n")
    return tmp_path


def _gitlab(*paths: str) -> list[dict]:
    result = run_cli("check", "--format", "gitlab", "--select", "GPU101,GPU106", *paths)
    report = json.loads(result.output)
    jsonschema.validate(report, json.loads((DATA / "gitlab-codequality.schema.json").read_text()))
    return report


def test_gitlab_report_has_the_fields_gitlab_requires(files):
    report = _gitlab("pod.yaml", "broken.yaml")
    by_check = {(issue["check_name"], issue["location"]["path"]): issue for issue in report}
    gpu101 = by_check[("GPU101", "pod.yaml")]
    assert gpu101["severity"] == "critical"  # the API server rejects the pod
    assert gpu101["location"]["lines"] == {"begin": 11, "end": 11}
    assert gpu101["description"].startswith("GPU101 gpu-limit-missing: nvidia.com/gpu is requested")
    assert by_check[("GPU106", "pod.yaml")]["severity"] == "major"
    broken = by_check[("input", "broken.yaml")]
    assert (broken["severity"], broken["location"]["lines"]["begin"]) == ("blocker", 2)


def test_gitlab_fingerprints_are_unique_and_survive_a_line_shift(files):
    before = {i["check_name"]: i["fingerprint"] for i in _gitlab("pod.yaml")}
    Path("pod.yaml").write_text("# a comment moves every line\n\n" + POD)
    after = {i["check_name"]: i["fingerprint"] for i in _gitlab("pod.yaml")}
    assert before == after
    assert len(set(before.values())) == len(before) == 2
    json_report = json.loads(run_cli("check", "--format", "json", "pod.yaml").output)
    assert before["GPU101"] in {f["fingerprint"] for f in json_report["findings"]}


def test_gitlab_repeated_fingerprints_get_a_suffix():
    from gpulint.core.findings import Finding, Location, RunResult, Severity
    from gpulint.report.gitlab import issues

    at = Location("a.yaml", 1, 1, 1, 2)
    twice = [Finding("GPU101", "n", Severity.ERROR, "m", at) for _ in range(2)]
    found = issues(RunResult(twice, [], []))
    assert len({issue["fingerprint"] for issue in found}) == 2
    assert found[0]["fingerprint"] == twice[0].fingerprint()


def _valid_junit(text: str) -> ET.Element:
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(DATA / "junit.xsd")).validate(text)
    return ET.fromstring(text)


def _junit(*paths: str, select: str = "GPU101,GPU106") -> ET.Element:
    result = run_cli("check", "--format", "junit", "--select", select, *paths)
    return _valid_junit(result.output)


def test_junit_report_is_valid_and_counts_what_it_holds(files):
    root = _junit("pod.yaml", "broken.yaml")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "2", "1")
    suites = {suite.get("name"): suite for suite in root}
    assert sorted(suites) == ["broken.yaml", "pod.yaml"]
    pod = suites["pod.yaml"]
    names = [case.get("name") for case in pod]
    assert names == [
        "GPU106 gpu-container-resources-incomplete at pod.yaml:9:7",
        "GPU101 gpu-limit-missing at pod.yaml:11:11",
    ]
    assert pod[0].find("failure").get("type") == "warning"
    failure = pod[1].find("failure")
    assert failure.get("type") == "error"
    assert failure.text.startswith("pod.yaml:11:11: nvidia.com/gpu is requested (1)")
    error = suites["broken.yaml"][0].find("error")
    assert error.text.startswith("broken.yaml:2:1: invalid YAML")


def test_junit_clean_run_is_one_passing_test(files):
    Path("pod.yaml").write_text(POD.replace("requests:", "limits:"))
    root = _junit("pod.yaml", select="GPU101")
    (suite,) = root
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
    (case,) = suite
    assert case.get("name") == "gpulint check" and list(case) == []


def test_junit_escapes_markup_and_drops_control_characters():
    from gpulint.core.findings import Finding, Location, RunResult, Severity
    from gpulint.report import render

    at = Location("a<&>.yaml", 3, 1, 3, 2)
    odd = Finding("GPU101", "n", Severity.ERROR, 'name "x<&>"\x07 \x1b[31mred', at)
    root = _valid_junit(render("junit", RunResult([odd], [], [])))
    (suite,) = root
    assert suite.get("name") == "a<&>.yaml"
    failure = suite[0].find("failure")
    assert failure.get("message") == 'name "x<&>" [31mred'
    assert failure.text == 'a<&>.yaml:3:1: name "x<&>" [31mred'
