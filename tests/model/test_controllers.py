"""What ML operators add to the pods they create (gpulint/model/controllers.py), and the
rules that consult it: GPU705 (/dev/shm), GPU202 (tolerations)."""

from __future__ import annotations

from tests.helpers import lint, lint_known, where

_DYNAMO = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: llm
    spec:
      services:
        VllmWorker:
          extraPodSpec:
            containers:
              - name: main
                image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0
                resources:
                  limits:
                    nvidia.com/gpu: 2
    """


def test_gpu705_dynamo_operator_mounts_shm_itself(tmp_path):
    assert lint(tmp_path, _DYNAMO, "--select", "GPU705") == []
    # ClusterPolicy and other nvidia.com kinds get no such volume from the Dynamo operator
    other = _DYNAMO.replace("kind: DynamoGraphDeployment", "kind: SomethingElse")
    assert where(lint(tmp_path, other, "--select", "GPU705")) == [("GPU705", 10, 13)]


def test_gpu705_dynamo_component_that_disables_shared_memory_is_checked(tmp_path):
    disabled = _DYNAMO.replace(
        "        VllmWorker:\n", "        VllmWorker:\n          sharedMemory: {disabled: true}\n"
    )
    assert where(lint(tmp_path, disabled, "--select", "GPU705")) == [("GPU705", 11, 13)]


def test_controller_table_names_who_adds_what():
    from types import SimpleNamespace

    from gpulint.model.controllers import Adds, adding

    def resource(api_version: str, kind: str, labels: dict | None = None):
        # the table reads only these three of a Resource
        return SimpleNamespace(api_version=api_version, kind=kind, labels=labels or {})

    assert adding(resource("apps.nvidia.com/v1alpha1", "NIMService"), Adds.SHM).name == (
        "the NIM operator"
    )
    assert adding(resource("ray.io/v1", "RayJob"), Adds.SHM).name == "KubeRay"
    assert adding(resource("nvidia.com/v1", "ClusterPolicy"), Adds.SHM) is None
    queued = resource("batch/v1", "Job", {"kueue.x-k8s.io/queue-name": "gpu"})
    assert adding(queued, Adds.TOLERATIONS).name == "Kueue"
    assert adding(queued, Adds.SHM) is None
    assert adding(resource("batch/v1", "Job"), Adds.TOLERATIONS) is None


def test_gpu202_kueue_adds_the_flavor_tolerations(tmp_path):
    job = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
{labels}spec:
  template:
    {template}spec:
      restartPolicy: Never
      containers:
        - name: t
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
    queued = job.format(labels="  labels: {kueue.x-k8s.io/queue-name: gpu}\n", template="")
    assert lint_known(tmp_path, queued, "--select", "GPU202") == []
    on_template = job.format(
        labels="", template="metadata: {labels: {kueue.x-k8s.io/queue-name: gpu}}\n    "
    )
    assert lint_known(tmp_path, on_template, "--select", "GPU202") == []
    plain = job.format(labels="", template="")
    assert [f["code"] for f in lint_known(tmp_path, plain, "--select", "GPU202")] == ["GPU202"]
