"""GPU106's BestEffort tier: a warning for work a controller keeps running, a note for a
one-off bare Pod and for a blueprint whose resources each instance replaces."""

from __future__ import annotations

from tests.helpers import lint, where

_ONE_OFF = """\
    apiVersion: v1
    kind: Pod
    metadata:
      name: smoke
    spec:
      restartPolicy: {policy}
      containers:
        - name: check
          image: nvcr.io/nvidia/pytorch:24.05-py3
          command: [python3, -c, "import torch; print(torch.ones(3, device='cuda'))"]
          resources:
            limits:
              nvidia.com/gpu: 1
    """


def _severities(found: list[dict]) -> list[tuple[str, int, int, str]]:
    return [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)]


def test_one_off_bare_pod_best_effort_is_a_note(tmp_path):
    for policy in ("Never", "OnFailure"):
        found = lint(tmp_path, _ONE_OFF.format(policy=policy), "--select", "GPU106")
        assert _severities(found) == [("GPU106", 12, 9, "note")]
        assert "BestEffort" in found[0]["message"] and "one-off Pod" in found[0]["message"]


def test_long_running_bare_pod_best_effort_stays_a_warning(tmp_path):
    found = lint(tmp_path, _ONE_OFF.format(policy="Always"), "--select", "GPU106")
    assert _severities(found) == [("GPU106", 12, 9, "warning")]
    without = _ONE_OFF.format(policy="Always").replace("      restartPolicy: Always\n", "")
    found = lint(tmp_path, without, "--select", "GPU106")
    assert _severities(found) == [("GPU106", 11, 9, "warning")]


def test_job_pod_best_effort_stays_a_warning(tmp_path):
    text = """\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: train
        spec:
          template:
            spec:
              restartPolicy: Never
              containers:
                - name: trainer
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  command: [torchrun, train.py]
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        """
    assert _severities(lint(tmp_path, text, "--select", "GPU106")) == [
        ("GPU106", 14, 13, "warning")
    ]


_RUNTIME = """\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata:
      name: torch-distributed
    spec:
      mlPolicy:
        numNodes: 1
        torch:
          numProcPerNode: auto
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                spec:
                  template:
                    spec:
                      containers:
                        - name: {name}
                          image: pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime
                          command: [torchrun, /workspace/train.py]
                          resources:
                            limits:
                              nvidia.com/gpu: 1
    """


def test_trainer_runtime_node_container_is_a_blueprint(tmp_path):
    found = lint(tmp_path, _RUNTIME.format(name="node"), "--select", "GPU106")
    assert _severities(found) == [("GPU106", 23, 25, "note")]
    assert "spec.trainer.resourcesPerNode" in found[0]["message"]


def test_trainer_runtime_other_container_is_not_replaced(tmp_path):
    found = lint(tmp_path, _RUNTIME.format(name="helper"), "--select", "GPU106")
    assert _severities(found) == [("GPU106", 23, 25, "warning")]
