"""The baseline: record today's findings, then report only new ones, whatever moved."""

from __future__ import annotations

import json
import textwrap

import jsonschema
import pytest

from tests.helpers import run_cli, sarif_schema

TRAIN = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 2
"""

SERVE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.0
          resources:
            requests:
              nvidia.com/gpu: 1
"""

RULES = ("--select", "GPU101")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "train.yaml").write_text(TRAIN)
    (tmp_path / "deploy" / "serve.yaml").write_text(SERVE)
    return tmp_path


def _check(*args: str):
    result = run_cli("check", "--format", "json", *RULES, *args)
    return result.exit_code, json.loads(result.stdout)


def _active(report: dict) -> list[tuple]:
    return [
        (f["code"], f["path"], f["line"], f["column"])
        for f in report["findings"]
        if not f["suppressed"]
    ]


def test_write_baseline_records_findings_without_lines(repo):
    result = run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "wrote 2 finding(s) to baseline baseline.json" in result.stderr
    recorded = json.loads((repo / "baseline.json").read_text())
    assert [(e["code"], e["file"], e["resource"], e["pointer"]) for e in recorded["findings"]] == [
        (
            "GPU101",
            "deploy/serve.yaml",
            "Deployment ml/serve",
            "/spec/template/spec/containers/0/resources/requests/nvidia.com~1gpu",
        ),
        (
            "GPU101",
            "deploy/train.yaml",
            "Job ml/finetune",
            "/spec/template/spec/containers/0/resources/requests/nvidia.com~1gpu",
        ),
    ]
    assert not any("line" in entry for entry in recorded["findings"])


def test_baseline_reports_only_new_findings_after_edits(repo):
    assert run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy").exit_code == 0
    code, report = _check("--baseline", "baseline.json", "deploy")
    assert code == 0 and _active(report) == []
    assert report["summary"]["suppressed"] == 2

    # Lines added above, an unrelated key changed, another document put first,
    # and a new problem in a second container.
    edited = (
        "# moved under a new header\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n---\n"
        + TRAIN.replace("pytorch:24.05-py3", "pytorch:24.08-py3").replace(
            "namespace: ml\n", "namespace: ml\n  labels:\n    team: vision\n"
        )
        + "        - name: evaluator\n"
        "          image: nvcr.io/nvidia/pytorch:24.08-py3\n"
        "          resources:\n"
        "            requests:\n"
        "              nvidia.com/gpu: 1\n"
    )
    (repo / "deploy" / "train.yaml").write_text(edited)
    code, report = _check("--baseline", "baseline.json", "deploy")
    assert code == 1
    assert _active(report) == [("GPU101", "deploy/train.yaml", 29, 15)]
    suppressed = [f for f in report["findings"] if f["suppressed"]]
    assert [(f["line"], f["suppression"]["kind"]) for f in suppressed if "train" in f["path"]] == [
        (24, "baseline")
    ]


def test_fixing_the_key_itself_counts_as_changed(repo):
    run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy")
    renamed = SERVE.replace("name: server", "name: api-server")
    (repo / "deploy" / "serve.yaml").write_text(renamed)
    code, report = _check("--baseline", "baseline.json", "deploy")
    assert code == 1 and _active(report) == [("GPU101", "deploy/serve.yaml", 14, 15)]


def test_identical_findings_are_counted(repo):
    run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy/serve.yaml")
    (repo / "deploy" / "serve.yaml").write_text(SERVE + "---\n" + SERVE)
    code, report = _check("--baseline", "baseline.json", "deploy/serve.yaml")
    # The same object twice: the baseline accepted one finding, not both.
    assert code == 1 and _active(report) == [("GPU101", "deploy/serve.yaml", 29, 15)]


def test_baselined_findings_are_external_suppressions_in_sarif(repo):
    run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy")
    result = run_cli("check", *RULES, "--baseline", "baseline.json", "--format", "sarif", "deploy")
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    jsonschema.validate(log, sarif_schema())
    suppressions = [r["suppressions"] for r in log["runs"][0]["results"]]
    assert (
        suppressions == [[{"kind": "external", "justification": "in baseline baseline.json"}]] * 2
    )


def test_in_source_suppressions_are_not_recorded(repo):
    annotated = SERVE.replace(
        "  namespace: ml\n",
        '  namespace: ml\n  annotations:\n    ignore-check.gpulint.io/GPU101: "injected"\n',
    )
    (repo / "deploy" / "serve.yaml").write_text(annotated)
    result = run_cli("check", *RULES, "--write-baseline", "baseline.json", "deploy")
    assert "wrote 1 finding(s)" in result.stderr
    recorded = json.loads((repo / "baseline.json").read_text())
    assert [e["file"] for e in recorded["findings"]] == ["deploy/train.yaml"]


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read baseline missing.json"),
        ("{not json", "bad.json:1:2: baseline is not JSON"),
        ('{"findings": 3}', "is not a gpulint baseline"),
    ],
)
def test_bad_baseline_is_exit_2(repo, content, message):
    name = "missing.json"
    if content is not None:
        name = "bad.json"
        (repo / name).write_text(textwrap.dedent(content))
    result = run_cli("check", *RULES, "--baseline", name, "deploy")
    assert result.exit_code == 2
    assert message in result.stderr
