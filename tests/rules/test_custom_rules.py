"""Custom rules in JSON Schema: the two documented examples, targets, matches, mistakes."""

from __future__ import annotations

import json
import pickle
import textwrap

import pytest

from tests.helpers import ROOT, run_cli

DOC = (ROOT / "docs" / "configuration.md").read_text()


def _documented(marker: str) -> str:
    """A YAML block of docs/configuration.md, by the marker comment before it."""
    return DOC.split(f"<!-- {marker} -->")[1].split("```yaml\n")[1].split("```")[0]


MEMORY_RULE = _documented("example-custom-memory")
LABEL_RULE = _documented("example-custom-label")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  namespace: ml
spec:
  template:
    spec:
      initContainers:
        - name: fetch
          image: busybox:1.36
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
              memory: 8Gi
"""


@pytest.fixture
def check(tmp_path, monkeypatch):
    """check(config, manifest, *args) -> (exit code, findings of the custom rules)."""
    monkeypatch.chdir(tmp_path)

    def _check(config: str, manifest: str, *args: str):
        (tmp_path / ".gpulint.yaml").write_text(textwrap.dedent(config))
        (tmp_path / "m.yaml").write_text(textwrap.dedent(manifest))
        args = args or ("--select", "TEAM")
        result = run_cli("check", "--format", "json", *args, "m.yaml")
        if result.exit_code == 2:
            return 2, result.stderr
        findings = json.loads(result.stdout)["findings"]
        return result.exit_code, [
            (f["code"], f["line"], f["column"], f["severity"], f["message"], f["container"])
            for f in findings
        ]

    return _check


MEMORY_MESSAGE = "GPU containers must set a memory limit of at least 16Gi: "


def test_memory_example_reports_the_value(check):
    code, found = check(MEMORY_RULE, JOB)
    assert code == 1
    assert found == [
        (
            "TEAM001",
            18,
            23,
            "error",
            MEMORY_MESSAGE + "8Gi is less than the minimum 16Gi",
            "trainer",
        )
    ]


def test_memory_example_reports_a_missing_key_at_its_parent(check):
    code, found = check(MEMORY_RULE, JOB.replace("              memory: 8Gi\n", ""))
    assert found == [
        ("TEAM001", 16, 13, "error", MEMORY_MESSAGE + "'memory' is a required property", "trainer")
    ]


@pytest.mark.parametrize("memory", ["16Gi", "17179869184", "20G", "64Gi"])
def test_memory_example_passes_enough_memory(check, memory):
    code, found = check(MEMORY_RULE, JOB.replace("memory: 8Gi", f"memory: {memory}"))
    assert (code, found) == (0, [])


def test_memory_example_leaves_containers_without_gpus_alone(check):
    # The init container `fetch` has no resources at all and is not reported.
    code, found = check(MEMORY_RULE, JOB.replace("memory: 8Gi", "memory: 32Gi"))
    assert found == []


def test_memory_example_rejects_a_non_quantity(check):
    code, found = check(MEMORY_RULE, JOB.replace("memory: 8Gi", "memory: lots"))
    assert [(f[1], f[2]) for f in found] == [(18, 23)]
    assert "'lots' is not a Kubernetes quantity" in found[0][4]


SERVE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
  labels:
    team: nlp
spec:
  template:
    metadata:
      labels:
        app: serve
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.0
          resources:
            limits:
              nvidia.com/gpu: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27
"""

LABEL_MESSAGE = "GPU pods must carry a team label: "


def test_label_example_checks_the_pod_template_of_gpu_pods(check):
    code, found = check(LABEL_RULE, SERVE)
    assert code == 1
    assert found == [
        ("TEAM002", 10, 7, "warning", LABEL_MESSAGE + "'team' is a required property", None)
    ]


def test_label_example_template_without_metadata(check):
    text = SERVE.replace("    metadata:\n      labels:\n        app: serve\n", "")
    code, found = check(LABEL_RULE, text)
    assert found == [
        ("TEAM002", 8, 3, "warning", LABEL_MESSAGE + "'metadata' is a required property", None)
    ]


def test_label_example_on_a_pod_and_a_bad_value(check):
    pod = """\
    apiVersion: v1
    kind: Pod
    metadata:
      name: p
      labels:
        team: Vision Team
    spec:
      containers:
        - name: c
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits:
              nvidia.com/gpu: 1
    """
    code, found = check(LABEL_RULE, pod)
    assert [(f[1], f[2]) for f in found] == [(6, 11)]
    assert "'Vision Team' does not match" in found[0][4]
    code, found = check(LABEL_RULE, pod.replace("Vision Team", "vision"))
    assert found == []


def test_kind_target_and_match_by_namespace(check):
    config = """\
    custom-rules:
      - code: OPS001
        name: deployment-needs-two-replicas
        severity: note
        message: Deployments in prod run at least two replicas
        target: Deployment
        match:
          namespaces: [prod-*]
        schema:
          required: [spec]
          properties:
            spec:
              required: [replicas]
              properties:
                replicas: {minimum: 2}
    """
    manifest = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: a, namespace: prod-eu}
    spec:
      replicas: 1
      template: {spec: {containers: [{name: c, image: "x:1"}]}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: b, namespace: staging}
    spec:
      replicas: 1
      template: {spec: {containers: [{name: c, image: "x:1"}]}}
    """
    code, found = check(config, manifest, "--select", "OPS001")
    assert code == 0  # a note does not fail the run
    assert [(f[0], f[1], f[2], f[3]) for f in found] == [("OPS001", 5, 13, "note")]
    assert found[0][4].endswith("1 is less than the minimum of 2")


def test_match_kinds_and_podspec_target(check):
    config = """\
    custom-rules:
      - code: OPS002
        name: jobs-set-a-priority-class
        message: GPU Jobs set a priorityClassName
        target: PodSpec
        match: {kinds: ["*Job"], gpu: true}
        schema: {required: [priorityClassName]}
    """
    code, found = check(config, JOB, "--select", "OPS002")
    assert [(f[0], f[1], f[2]) for f in found] == [("OPS002", 8, 5)]
    deployment = JOB.replace("batch/v1", "apps/v1").replace("kind: Job", "kind: Deployment")
    code, found = check(config, deployment, "--select", "OPS002")
    assert found == []


def test_custom_rules_take_severity_suppressions_and_listing(check, tmp_path):
    config = MEMORY_RULE + "severity:\n  gpu-memory-limit-too-small: note\n"
    code, found = check(config, JOB)
    assert (code, [f[3] for f in found]) == (0, ["note"])
    suppressed = JOB.replace("memory: 8Gi", "memory: 8Gi  # gpulint: disable=TEAM001 small model")
    code, found = check(MEMORY_RULE, suppressed)
    assert code == 0
    listing = run_cli("rules").output
    assert "TEAM001  gpu-memory-limit-too-small" in listing.replace("  error", "")
    explained = run_cli("explain", "TEAM001").output
    assert explained.startswith("# TEAM001 gpu-memory-limit-too-small (error)")
    assert "resourceMinimum" in explained


@pytest.mark.parametrize(
    "rule, expected",
    [
        (
            "code: TEAM001\n    name: x\n    message: m\n    target: Pod\n"
            "    schema: {type: objekt}",
            ".gpulint.yaml:6:20: error [config] custom-rules.0.schema.type: invalid JSON Schema: "
            "'objekt' is not valid under any of the given schemas",
        ),
        (
            "code: TEAM001\n    name: x\n    message: m\n    target: Pod\n"
            "    schema: {properties: {memory: {resourceMinimum: lots}}}",
            ".gpulint.yaml:6:53: error [config] custom-rules.0.schema.properties.memory."
            "resourceMinimum: 'lots' is not a Kubernetes quantity",
        ),
        (
            "code: GPU999\n    name: x\n    message: m\n    target: Pod\n    schema: {}",
            ".gpulint.yaml:2:5: error [config] custom-rules.0.code: GPU999: GPU codes are "
            "reserved for gpulint",
        ),
        (
            "code: TEAM001\n    name: gpu-limit-missing\n    message: m\n    target: Pod\n"
            "    schema: {}",
            ".gpulint.yaml:3:5: error [config] custom-rules.0.name: rule name gpu-limit-missing "
            "is already taken",
        ),
        (
            "code: team1\n    name: x\n    message: m\n    target: Pod\n    schema: {}",
            ".gpulint.yaml:2:11: error [config] custom-rules.0.code: 'team1' does not match",
        ),
        (
            "code: TEAM001\n    name: x\n    message: m\n    target: Pod",
            ".gpulint.yaml:2:5: error [config] custom-rules.0: 'schema' is a required property",
        ),
    ],
)
def test_mistakes_in_custom_rules_are_config_errors(check, rule, expected):
    code, stderr = check(f"custom-rules:\n  - {rule}\n", JOB)
    assert code == 2
    assert stderr.splitlines()[0].startswith(expected)


def test_custom_rule_survives_pickling_for_worker_processes(tmp_path):
    """--jobs sends the rules to worker processes: the check must pickle and still work."""
    from gpulint.config.file import load_config
    from gpulint.rules.registry import default_registry

    (tmp_path / "c.yaml").write_text(MEMORY_RULE)
    (rule,) = load_config(str(tmp_path / "c.yaml"), default_registry()).custom_rules
    list(rule.check_resource._validate((), {}, None))  # builds the validator
    clone = pickle.loads(pickle.dumps(rule))
    problems = list(clone.check_resource._validate(("x",), {"resources": {}}, "c"))
    assert [(p.path, p.at) for p in problems] == [(("x", "resources"), "key")]
