"""GPU901 ray-gpus-mismatch: the GPUs a Ray node declares against the GPUs its container holds."""

from __future__ import annotations

from tests.helpers import lint, where

RAY_GPUS = """
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: serve
spec:
  rayClusterConfig:
    headGroupSpec:
      rayStartParams:
        num-gpus: "1"
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.41.0-py311-cu121
    workerGroupSpecs:
      - groupName: a100
        replicas: 1
        rayStartParams:
          num-gpus: "2"
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.41.0-gpu
                resources:
                  limits:
                    nvidia.com/gpu: 4
      - groupName: matched
        rayStartParams:
          num-gpus: "4"
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.41.0-gpu
                resources:
                  limits:
                    nvidia.com/gpu: 4
      - groupName: auto
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.41.0-gpu
                resources:
                  limits:
                    nvidia.com/gpu: 1
"""


def test_gpu901_head_and_worker_mismatch(tmp_path):
    found = lint(tmp_path, RAY_GPUS, "--select", "GPU901")
    assert [(f["code"], f["line"], f["column"]) for f in found] == [
        ("GPU901", 9, 19),
        ("GPU901", 19, 21),
    ]
    head, worker = found
    assert "Ray head: rayStartParams num-gpus is 1" in head["message"]
    assert "holds 0 GPU(s) (no GPU)" in head["message"]
    assert "onto 1 GPU(s) the pod does not have" in head["message"]
    assert "worker group a100" in worker["message"]
    assert "holds 4 GPU(s) (nvidia.com/gpu: 4)" in worker["message"]
    assert "2 GPU(s) the pod holds are never used by Ray" in worker["message"]
    assert worker["container"] == "ray-worker"
    assert worker["severity"] == "warning"


def test_gpu901_reads_the_first_container_only(tmp_path):
    ray_head = "              image: rayproject/ray:2.41.0-py311-cu121\n"
    assert RAY_GPUS.count(ray_head) == 1
    text = RAY_GPUS.replace(
        ray_head,
        ray_head
        + "              resources:\n"
        + "                limits:\n"
        + "                  nvidia.com/gpu: 1\n"
        + "            - name: sidecar\n"
        + "              image: busybox:1.36\n"
        + "              resources:\n"
        + "                limits:\n"
        + "                  nvidia.com/gpu: 1\n",
    )
    found = lint(tmp_path, text, "--select", "GPU901")
    # The head's Ray container holds 1 as declared; the sidecar's GPU is not Ray's.
    assert [(f["line"], f["column"]) for f in found] == [(27, 21)]


def test_gpu901_v1alpha1_raycluster(tmp_path):
    text = """
    apiVersion: ray.io/v1alpha1
    kind: RayCluster
    metadata:
      name: old
    spec:
      headGroupSpec:
        rayStartParams:
          num-gpus: "0"
        template:
          spec:
            containers:
              - name: ray-head
                image: rayproject/ray:2.9.0
                resources:
                  limits:
                    nvidia.com/gpu: 1
    """
    found = lint(tmp_path, text, "--select", "GPU901")
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("GPU901", 8, 17)]


def test_gpu901_logical_gpus_on_a_cpu_ray_node_are_deliberate(tmp_path):
    # KubeRay's own samples declare GPUs on CPU-only nodes to exercise Ray scheduling.
    cpu_image = RAY_GPUS.replace("rayproject/ray:2.41.0-py311-cu121", "rayproject/ray:2.41.0")
    found = lint(tmp_path, cpu_image, "--select", "GPU901")
    assert [(f["line"], f["column"]) for f in found] == [(19, 21)]  # the worker only


def test_gpu901_placeholder_gpu_count_is_not_a_mismatch(tmp_path):
    text = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: r}
spec:
  headGroupSpec:
    rayStartParams: {num-gpus: "2"}
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.9.0-gpu
            resources: {limits: {nvidia.com/gpu: "$(GPUS)"}}
"""
    assert lint(tmp_path, text, "--select", "GPU901") == []
    held = text.replace('"$(GPUS)"', "1")
    assert where(lint(tmp_path, held, "--select", "GPU901")) == [("GPU901", 6, 32)]
