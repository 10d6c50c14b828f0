"""GPU001-003 over the suppression directives: unused, without a reason, expired."""

from __future__ import annotations

import pytest

from tests.helpers import (
    REQUEST_POD,
    annotated,
    findings_json,
    run_cli,
    suppression_state,
)


def test_expired_suppression_returns_the_finding_with_a_note(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1",
        "nvidia.com/gpu: 1  # gpulint: disable=GPU101 until=2020-01-31 migration",
    )
    code, report = check(text, "--select", "GPU001,GPU003,GPU101")
    assert code == 1
    assert suppression_state(report) == [("GPU101", 12, 11, False), ("GPU003", 12, 30, False)]
    note = report["findings"][1]
    assert note["severity"] == "note"
    assert "expired on 2020-01-31" in note["message"]


def test_missing_reason_is_a_note_and_still_suppresses(check):
    text = REQUEST_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101")
    code, report = check(text, "--select", "GPU002,GPU101")
    assert code == 0
    assert suppression_state(report) == [("GPU101", 12, 11, True), ("GPU002", 12, 30, False)]
    assert report["findings"][1]["severity"] == "note"


def test_annotation_without_reason_is_reported_at_the_annotation(check):
    text = annotated('    ignore-check.gpulint.io/GPU101: ""\n')
    code, report = check(text, "--select", "GPU002,GPU101")
    assert code == 0
    assert suppression_state(report) == [("GPU002", 6, 5, False), ("GPU101", 13, 11, True)]


@pytest.mark.parametrize("how", [("--require-reason",), ()])
def test_require_reason_makes_it_an_error_and_the_finding_returns(check, tmp_path, how):
    if not how:
        (tmp_path / ".gpulint.yaml").write_text("require-reason: true\n")
    text = REQUEST_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101")
    code, report = check(text, "--select", "GPU002,GPU101", *how)
    assert code == 1
    assert suppression_state(report) == [("GPU101", 12, 11, False), ("GPU002", 12, 30, False)]
    assert report["findings"][1]["severity"] == "error"


def test_unused_suppressions_are_notes(check):
    text = annotated('    ignore-check.gpulint.io/GPU301: "we pin by digest elsewhere"\n').replace(
        "name: trainer", "name: trainer  # gpulint: disable=GPU101,GPU999 wrong line"
    )
    code, report = check(text, "--select", "GPU001,GPU101,GPU301")
    assert code == 1  # GPU101 itself is still reported: the comment is on the wrong line
    unused = [
        (f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == "GPU001"
    ]
    assert [u[:2] for u in unused] == [(6, 5), (9, 22), (9, 22)]
    assert "GPU301 reports nothing here" in unused[0][2]
    assert "GPU101 reports nothing here" in unused[1][2]
    assert "there is no rule 'GPU999'" in unused[2][2]


def test_unused_note_says_when_the_rule_did_not_run(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 known"
    )
    _, report = check(text, "--select", "GPU001")
    assert [f["message"] for f in report["findings"]] == [
        "suppression comment 'disable=GPU101': GPU101 did not run (not selected), "
        "so it silences nothing"
    ]


TEAM_CONFIG = """\
custom-rules:
  - code: TEAM002
    name: gpu-pod-team-label
    message: GPU pods carry a team label
    target: Pod
    match: {gpu: true}
    schema:
      type: object
      required: [metadata]
      properties:
        metadata:
          type: object
          required: [labels]
"""


def test_unselected_custom_rule_is_known_to_gpu001(tmp_path, monkeypatch):
    # A suppression names a rule of the config file that --select leaves out: GPU001 asks
    # the run's registry (built-ins plus custom rules), not the built-in one.
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gpulint.yaml").write_text(TEAM_CONFIG)
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  name: p\n"
        "spec:\n"
        "  containers:\n"
        "  - name: c  # gpulint: disable=TEAM002 labels come from the namespace\n"
        "    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    found = findings_json("pod.yaml", "--select", "GPU001,GPU101")["findings"]
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("GPU001", 7, 14)]
    assert found[0]["message"] == (
        "suppression comment 'disable=TEAM002': TEAM002 did not run (not selected), "
        "so it silences nothing"
    )
    listed = run_cli("rules")
    assert "TEAM002" in listed.output
