"""What a GPU pod is for, read from what it runs: a service, a batch run, a benchmark or
test of the cluster, or a probe.

Best-practice rules weigh a finding by it (GPU106, GPU302: what eviction or an image that
drifts costs depends on what the pod is for), and the pod's own text decides, never its
repository:

- **probe**: every GPU container only looks at the GPU or waits (``nvidia-smi``, a CUDA
  sample, ``sleep``, the ``pause`` image, a GPU check script: ``probe.py``);
- **benchmark**: a GPU container runs a program that exercises the GPUs or the cluster to
  measure them (``gpu_burn``, the nccl-tests binaries such as ``all_reduce_perf``,
  ``dcgmproftester``, ``nvbandwidth`` with load): results, not a service, come out;
- **service**: the kind keeps pods running to serve (a Deployment, a StatefulSet, a
  LeaderWorkerSet, an InferenceService... ``servers.SERVING_KINDS``), or, for a kind of
  neither list (a bare Pod, an unknown CRD), a container runs a model server (vLLM, SGLang,
  TGI, Triton, Ollama, TensorRT-LLM's ``trtllm-serve``, llama.cpp's ``llama-server``,
  TorchServe, TF Serving, LMDeploy, a NIM image) or exposes ports or a readiness probe;
- **batch**: the rest: pods that run to completion (Jobs, training CRDs,
  ``servers.BATCH_KINDS``, whatever they run; bare Pods that serve nothing).

Besides, a pod whose GPU containers all set ``imagePullPolicy: Never`` runs images loaded
by hand into a development cluster (kind, minikube): :func:`local_images_only`.
"""

from __future__ import annotations

import enum

from gpulint.model.resource import Container, PodSpec, Resource
from gpulint.model.serving.parallelism import arguments
from gpulint.model.serving.servers import (
    BATCH_KINDS,
    GENERIC_CONTROLLERS,
    SERVING_KINDS,
    is_serving,
)
from gpulint.model.workloads.probe import is_probe_pod


class Purpose(enum.Enum):
    SERVICE = "service"
    BATCH = "batch"
    BENCHMARK = "benchmark"
    PROBE = "probe"


# Programs that load the GPUs (or the network between them) to measure them: gpu-burn
# (github.com/wilicc/gpu-burn), NVIDIA's nccl-tests (github.com/NVIDIA/nccl-tests: one
# binary per collective, `<collective>_perf`), DCGM's load generator and diagnostics.
_BENCHMARKS = frozenset(
    {"gpu_burn", "gpu-burn", "gpuburn", "dcgmproftester", "dcgmproftester10",
     "dcgmproftester11", "dcgmproftester12", "dcgmi"}
)  # fmt: skip
_NCCL_TEST = "_perf"
_NCCL_COLLECTIVES = frozenset(
    {"all_reduce", "all_gather", "alltoall", "broadcast", "reduce", "reduce_scatter",
     "sendrecv", "scatter", "gather", "hypercube"}
)  # fmt: skip
# Model servers, by a word of the command or the image (lower case).
_SERVERS = (
    "vllm", "sglang", "text-generation-launcher", "text-generation-inference",
    "tritonserver", "ollama", "trtllm-serve", "llama-server", "torchserve",
    "tensorflow_model_server", "tensorflow/serving", "lmdeploy", "nvcr.io/nim/",
)  # fmt: skip


def _program_names(container: Container) -> list[str]:
    return [arg.text.rsplit("/", 1)[-1].lower() for arg in arguments(container)]


def is_benchmark(container: Container) -> bool:
    for name in _program_names(container):
        if name in _BENCHMARKS:
            return True
        if name.endswith(_NCCL_TEST) and name[: -len(_NCCL_TEST)] in _NCCL_COLLECTIVES:
            return True
    image = container.image.lower()
    return "gpu-burn" in image or "gpuburn" in image or "nccl-tests" in image


def runs_model_server(container: Container) -> bool:
    text = " ".join(arg.text for arg in arguments(container)).lower()
    image = container.image.lower()
    return any(word in text or word in image for word in _SERVERS)


def pod_purpose(resource: Resource, pod: PodSpec) -> Purpose:
    """What the pod is for, judged once a pod and kept in its resource's memo (three rules
    ask of every pod)."""
    key = (pod_purpose, pod.path)
    purpose = resource.memo.get(key)
    if purpose is None:
        purpose = resource.memo[key] = _purpose(resource, pod)
    return purpose


def _purpose(resource: Resource, pod: PodSpec) -> Purpose:
    holders = [c for c in pod.containers if c.gpus]
    if is_probe_pod(pod, resource):
        return Purpose.PROBE
    if holders and any(is_benchmark(c) for c in holders):
        return Purpose.BENCHMARK
    kind = pod.workload_kind or resource.kind
    if kind in BATCH_KINDS or kind in SERVING_KINDS:
        # the kind says whether its pods run to completion (a server a Job starts to
        # benchmark or to answer a batch of prompts stops with it)
        return Purpose.SERVICE if kind in SERVING_KINDS else Purpose.BATCH
    if any(runs_model_server(c) for c in pod.regular_containers()):
        return Purpose.SERVICE
    return Purpose.SERVICE if is_serving(resource, pod) else Purpose.BATCH


def serves_requests(resource: Resource, pod: PodSpec) -> bool | None:
    """Whether the pod answers requests, as far as its own manifest says: a service pod of
    a serving kind (KServe, LeaderWorkerSet, Knative...), or of a generic controller
    (Deployment, StatefulSet) whose app containers open ports, have a readiness probe or
    run a model server. None for another long-running pod of a generic controller: it
    serves if a Service selects it (a cross-object question, for the caller). A
    Deployment that only runs ``python train.py`` keeps its GPU busy but answers nobody."""
    if pod_purpose(resource, pod) is not Purpose.SERVICE:
        return False
    if (pod.workload_kind or resource.kind) not in GENERIC_CONTROLLERS:
        return True
    if any(
        c.data.get("ports") or c.data.get("readinessProbe") or runs_model_server(c)
        for c in pod.regular_containers()
    ):
        return True
    return None


def local_images_only(pod: PodSpec) -> bool:
    """Every GPU container runs an image loaded by hand (``imagePullPolicy: Never``)."""
    holders = [c for c in pod.containers if c.gpus]
    return bool(holders) and all(c.data.get("imagePullPolicy") == "Never" for c in holders)
