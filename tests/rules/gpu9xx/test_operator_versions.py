"""GPU902: ML operator objects in API versions their operators no longer serve."""

from __future__ import annotations

from tests.helpers import lint, where

MPIJOB = """\
apiVersion: {version}
kind: MPIJob
metadata:
  name: horovod
spec:
  mpiReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: horovod/horovod:0.28.1
              resources:
                limits:
                  nvidia.com/gpu: 1
"""


def test_gpu902_mpijob_v1alpha2(tmp_path):
    found = lint(tmp_path, MPIJOB.format(version="kubeflow.org/v1alpha2"), "--select", "GPU902")
    assert where(found) == [("GPU902", 1, 13)]
    assert "mpi-operator removed it in November 2021" in found[0]["message"]
    assert "kubeflow.org/v2beta1" in found[0]["message"]
    assert found[0]["severity"] == "error"


def test_gpu902_served_versions_pass(tmp_path):
    for version in ("kubeflow.org/v2beta1", "kubeflow.org/v1"):
        assert lint(tmp_path, MPIJOB.format(version=version), "--select", "GPU902") == [], version
    ray = "apiVersion: ray.io/v1alpha1\nkind: RayCluster\nmetadata:\n  name: r\nspec: {}\n"
    assert lint(tmp_path, ray, "--select", "GPU902") == []  # still served by KubeRay


def test_gpu902_old_pytorchjob_and_tfjob(tmp_path):
    for kind in ("PyTorchJob", "TFJob"):
        text = f"apiVersion: kubeflow.org/v1beta2\nkind: {kind}\nmetadata:\n  name: j\nspec: {{}}\n"
        found = lint(tmp_path, text, "--select", "GPU902")
        assert where(found) == [("GPU902", 1, 13)], kind
        assert "use kubeflow.org/v1" in found[0]["message"]


def test_gpu902_kfserving_objects_are_reported_and_still_read(tmp_path):
    text = """\
apiVersion: serving.kubeflow.org/v1beta1
kind: InferenceService
metadata:
  name: bert
spec:
  predictor:
    containers:
      - name: kfserving-container
        image: example/bert:1.0
        resources:
          requests:
            nvidia.com/gpu: 1
"""
    found = lint(tmp_path, text, "--select", "GPU902,GPU101")
    assert where(found) == [("GPU902", 1, 13), ("GPU101", 12, 13)]
    assert "KFServing became KServe in 0.7" in found[0]["message"]


def test_its_trigger_holds_every_group_it_reports():
    """GPU902's module is imported only for inputs that mention kubeflow.org."""
    from gpulint.rules.builtin import gpu902_ml_operator_api_unserved as gpu902

    groups = {group for group, _kind in gpu902.UNSERVED} | {gpu902.KFSERVING_GROUP}
    trigger = gpu902.rule.reads
    assert trigger is not None
    assert all(trigger.matches(f"apiVersion: {group}/v1alpha1".encode()) for group in groups)
    assert not trigger.matches(b"apiVersion: apps/v1\nkind: Deployment\n")
