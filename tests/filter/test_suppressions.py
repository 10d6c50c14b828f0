"""Suppressions: annotations (object and pod template), comments, expiry, reasons, reports."""

from __future__ import annotations

import json
import shutil

import jsonschema
import pytest

from tests.helpers import (
    BATCH_TOO,
    REQUEST_POD,
    annotated,
    run_cli,
    sarif_schema,
    suppression_state,
)


@pytest.mark.parametrize("key", ["GPU101", "gpu-limit-missing"])
def test_annotation_by_code_or_name(check, key):
    text = annotated(f'    ignore-check.gpulint.io/{key}: "webhook adds the limit"\n')
    code, report = check(text, "--select", "GPU001,GPU002,GPU101")
    assert code == 0
    assert suppression_state(report) == [("GPU101", 13, 11, True)]
    assert report["findings"][0]["suppression"] == {
        "kind": "annotation",
        "reason": "webhook adds the limit",
    }


def test_ignore_all_annotation(check):
    text = annotated('    gpulint.io/ignore-all: "vendored test fixture"\n')
    code, report = check(text)
    assert code == 0
    assert report["findings"] and all(f["suppressed"] for f in report["findings"])
    assert report["summary"]["suppressed"] == len(report["findings"])


DEPLOYMENTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
spec:
  template:
    metadata:
      annotations:
        ignore-check.gpulint.io/GPU101: "limit injected by the platform"
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.0
          resources:
            requests:
              nvidia.com/gpu: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: other
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


def test_annotation_on_the_pod_template(check):
    code, report = check(DEPLOYMENTS, "--select", "GPU101")
    assert code == 1
    assert suppression_state(report) == [("GPU101", 16, 15, True), ("GPU101", 30, 15, False)]


def test_pod_template_annotation_covers_only_its_template(check):
    # A CronJob: the annotation sits on the Job template's pod template.
    text = """\
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      schedule: "0 1 * * *"
      jobTemplate:
        spec:
          template:
            metadata:
              annotations:
                ignore-check.gpulint.io/GPU101: "accepted"
            spec:
              containers:
                - name: train
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources:
                    requests:
                      nvidia.com/gpu: 1
    """
    code, report = check(text, "--select", "GPU101")
    assert code == 0 and suppression_state(report) == [("GPU101", 19, 19, True)]


def test_comment_on_the_offending_line(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 webhook adds it"
    )
    code, report = check(text, "--select", "GPU001,GPU002,GPU101")
    assert code == 0
    assert suppression_state(report) == [("GPU101", 12, 11, True)]
    assert report["findings"][0]["suppression"] == {"kind": "comment", "reason": "webhook adds it"}


def test_comment_on_the_line_above_with_several_rules(check):
    text = REQUEST_POD.replace(
        "        requests:\n",
        "        requests:\n"
        "          # gpulint: disable=gpu-limit-missing, GPU201 - one pool, limit injected\n",
    )
    code, report = check(text, "--select", "GPU001,GPU101,GPU201")
    assert code == 0
    # GPU201 is held back (no cluster facts), yet its suppression still counts as used:
    # no GPU001 (exit code 0).
    assert suppression_state(report) == [("GPU101", 13, 11, True)]
    assert report["findings"][0]["suppression"]["reason"] == "one pool, limit injected"


def test_comment_two_lines_above_does_not_apply(check):
    text = REQUEST_POD.replace(
        "      resources:\n", "      # gpulint: disable=GPU101 too far\n      resources:\n"
    )
    code, report = check(text, "--select", "GPU001,GPU101")
    assert code == 1
    assert suppression_state(report) == [("GPU001", 10, 7, False), ("GPU101", 13, 11, False)]


def test_hash_inside_a_string_is_not_a_directive(check):
    text = REQUEST_POD + '      args: ["--note=# gpulint: disable=GPU101 nope"]\n'
    code, report = check(text, "--select", "GPU101")
    assert code == 1 and suppression_state(report) == [("GPU101", 12, 11, False)]


def test_expiry_in_the_future_still_suppresses(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 until=2999-12-31 soon"
    )
    code, report = check(text, "--select", "GPU001,GPU002,GPU003,GPU101")
    assert code == 0 and suppression_state(report) == [("GPU101", 12, 11, True)]
    assert report["findings"][0]["suppression"]["reason"] == "soon"


def test_bad_expiry_date_is_an_input_error(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 until=31.12.2026 x"
    )
    code, report = check(text, "--select", "GPU101")
    assert code == 2
    error = report["errors"][0]
    assert (error["line"], error["column"]) == (12, 56)
    assert "until=YYYY-MM-DD" in error["message"]


def test_comment_without_rules_is_an_input_error(check):
    text = REQUEST_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable")
    code, report = check(text, "--select", "GPU101")
    assert code == 2 and (report["errors"][0]["line"], report["errors"][0]["column"]) == (12, 30)


def test_no_suppressions_shows_everything(check):
    text = annotated('    ignore-check.gpulint.io/GPU101: "x"\n').replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU106"
    )
    code, report = check(text, "--select", "GPU001,GPU002,GPU101,GPU106", "--no-suppressions")
    assert code == 1
    assert {(f["code"], f["suppressed"]) for f in report["findings"]} == {
        ("GPU101", False),
        ("GPU106", False),
    }


def test_text_summary_counts_suppressed_and_hides_them(check):
    text = REQUEST_POD.replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 ok"
    )
    code, out = check(text, "--select", "GPU101", fmt="text")
    assert code == 0
    assert out == "0 error(s), 0 warning(s), 0 note(s), 1 suppressed in 1 file\n"


def test_sarif_keeps_suppressed_findings_with_justification(check):
    text = annotated('    ignore-check.gpulint.io/GPU106: "platform sizes pods"\n').replace(
        "nvidia.com/gpu: 1", "nvidia.com/gpu: 1  # gpulint: disable=GPU101 webhook adds it"
    )
    code, out = check(text, "--select", "GPU101,GPU106", fmt="sarif")
    assert code == 0
    log = json.loads(out)
    jsonschema.validate(log, sarif_schema())
    results = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    assert results["GPU101"]["suppressions"] == [
        {"kind": "inSource", "justification": "webhook adds it"}
    ]
    assert results["GPU106"]["suppressions"] == [
        {"kind": "inSource", "justification": "platform sizes pods"}
    ]


def test_config_exemption_is_external_in_sarif(check, tmp_path):
    (tmp_path / ".gpulint.yaml").write_text(
        "exemptions:\n  - names: [train]\n    reason: legacy pod\n"
    )
    code, out = check(REQUEST_POD, "--select", "GPU101", fmt="sarif")
    log = json.loads(out)
    jsonschema.validate(log, sarif_schema())
    assert code == 0
    assert log["runs"][0]["results"][0]["suppressions"] == [
        {"kind": "external", "justification": "legacy pod"}
    ]


# --- rendered inputs: the comments and annotations of the files findings point at ---

# `chart` (conftest.py): a chart folder, rendered by the real helm (`real_helm`).


def test_comment_in_a_helm_template_silences_the_mapped_finding(chart, real_helm):
    line = "              nvidia.com/gpu: {{ .Values.gpus }}"
    template = chart / "templates" / "deployment.yaml"
    template.write_text(template.read_text().replace(line, line + "  # gpulint: disable=GPU101 ok"))
    # helm keeps comments: the rendered stream carries a copy on the rendered line.
    result = run_cli("check", "--format", "json", "--select", "GPU001,GPU101", "mychart")
    report = json.loads(result.stdout)
    assert result.exit_code == 0
    assert suppression_state(report) == [("GPU101", 17, 15, True)]
    assert report["findings"][0]["path"] == "mychart/templates/deployment.yaml"


KUSTOMIZE_BASE = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations:
    ignore-check.gpulint.io/GPU106: "sized by the namespace LimitRange"
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1  # gpulint: disable=GPU101 webhook adds the limit
"""


@pytest.mark.skipif(
    not (shutil.which("kustomize") or shutil.which("kubectl")), reason="no kustomize or kubectl"
)
def test_kustomize_origin_file_comments_and_annotations(tmp_path, monkeypatch):
    """kustomize drops comments; the origin file the finding points at still has them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base").mkdir()
    (tmp_path / "overlay").mkdir()
    (tmp_path / "base" / "job.yaml").write_text(KUSTOMIZE_BASE)
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n  - job.yaml\n")
    (tmp_path / "overlay" / "kustomization.yaml").write_text(
        "resources:\n  - ../base\nnamespace: ml\n"
    )
    (tmp_path / "batch.gpulint.yaml").write_text(BATCH_TOO)  # GPU106 judges Jobs too
    args = ("check", "--format", "json", "--select", "GPU001,GPU002,GPU101,GPU106")
    result = run_cli(*args, "--config", "batch.gpulint.yaml", "base", "overlay")
    report = json.loads(result.stdout)
    assert report["errors"] == [] and result.exit_code == 0
    # Both renders point at the base file; every finding is silenced, no note is left.
    assert sorted(set(suppression_state(report))) == [
        ("GPU101", 15, 15, True),
        ("GPU106", 13, 11, True),
    ]
    assert {f["path"] for f in report["findings"]} == {"base/job.yaml"}


# --- findings of rules that decide across files (collected, then finalized) ---

PLUGIN_DS = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {name}
  namespace: kube-system
spec:
  selector:
    matchLabels: {{name: {name}}}
  template:
    metadata:
      labels: {{name: {name}}}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:{version}
"""


@pytest.mark.parametrize("how", ["comment", "annotation"])
def test_cross_file_finding_is_suppressed_in_its_own_file(tmp_path, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "current.yaml").write_text(PLUGIN_DS.format(name="plugin", version="v0.17.4"))
    legacy = PLUGIN_DS.format(name="plugin-legacy", version="v0.14.5")
    if how == "comment":
        legacy = legacy.replace("v0.14.5", "v0.14.5  # gpulint: disable=GPU407 retired in Q3")
    else:
        legacy = legacy.replace(
            "  namespace: kube-system\n",
            "  namespace: kube-system\n"
            "  annotations:\n"
            '    gpulint.io/ignore-all: "retired in Q3"\n',
        )
    (tmp_path / "legacy.yaml").write_text(legacy)
    args = ("check", "--format", "json", "--select", "GPU001,GPU407", "current.yaml", "legacy.yaml")
    report = json.loads(run_cli(*args).stdout)
    found = [(f["code"], f["path"], f["suppressed"]) for f in report["findings"]]
    assert found == [("GPU407", "legacy.yaml", True)]
    assert report["findings"][0]["suppression"] == {"kind": how, "reason": "retired in Q3"}
