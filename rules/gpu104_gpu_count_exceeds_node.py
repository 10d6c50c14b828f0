"""
## What it checks
A pod whose effective GPU request (`nvidia.com/gpu` or `amd.com/gpu`, init
containers and sidecars counted as the scheduler counts them) is more than any
node it may land on can hold:

- more than every `nvidia.com/gpu.count` the pod pins with a node selector or
  required node affinity (times the `nvidia.com/gpu.replicas` it pins, if any);
- otherwise more than the largest GPU node of the cluster, as the cluster
  profile knows it (`--cluster` Nodes, or `max-gpus-per-node` in the
  `cluster:` section of `.gpulint.yaml`);
- without that fact, more than 16, the most GPUs any server holds (Google
  Cloud's `a2-megagpu-16g`, NVIDIA DGX-2).

Needs: `max-gpus-per-node` for requests of 9 to 16 GPUs that no selected
`nvidia.com/gpu.count` bounds (8 is the common HGX/DGX size, but not the
largest); those findings are held back without it.

MIG and shared (`.shared`) resources are left out of the per-node maximum:
one GPU offers several of them.

## Why it matters
A pod is never split across nodes. If no node has that many GPUs the pod
stays Pending forever and the scheduler only says
`0/N nodes are available: N Insufficient nvidia.com/gpu`; a Job or a
Deployment looks healthy while nothing runs.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.count: "4"
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 8  # <- GPU104
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.count: "8"
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 8
```

## How to fix
Request at most the GPUs one node has, and spread larger jobs over several
pods (a Kubeflow `PyTorchJob`, a `JobSet`, a `LeaderWorkerSet`, an indexed
`Job` with `torchrun --nnodes`). If your nodes really hold more GPUs, raise
`max-gpus-per-node` in `.gpulint.yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.cluster_profile import MAX_GPUS
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.node_requirements import LabelRequirement, required_values
from gpulint.model.values.gpu_resources import AMD_GPU, NVIDIA_GPU
from gpulint.rules.api import Container, Context, PodSpec, Report, Resource, Rule, Severity

rule = Rule(
    "GPU104",
    "gpu-count-exceeds-node",
    Severity.ERROR,
    "A pod requests more GPUs than any node it can land on holds; it stays Pending.",
    __doc__,
    pods_only=True,
)

COUNT_LABEL = "nvidia.com/gpu.count"
REPLICAS_LABEL = "nvidia.com/gpu.replicas"
# Whole-GPU resources a node offers at most max_gpus_per_node of.
WHOLE_GPU_RESOURCES = (NVIDIA_GPU, AMD_GPU)
# The most GPUs one server holds: 16 (cloud.google.com/compute/docs/gpus: a2-megagpu-16g,
# 16 A100; NVIDIA DGX-2, 16 V100). 8 is the usual HGX/DGX size, not a ceiling.
HARDWARE_MAX = 16
USUAL_MAX = 8


def _ints(requirements: list[LabelRequirement]) -> list[int]:
    return [int(v) for r in requirements for v in r.values if v.strip().isdigit()]


def _cluster_limit(ctx: Context, wanted: int) -> tuple[int, str, tuple]:
    """(bound, why, facts the finding needs) from the cluster profile."""
    most = ctx.profile.max_gpus_per_node
    if most is not None:
        return most, f"no node of the cluster holds more than {most} (max-gpus-per-node)", ()
    if wanted > HARDWARE_MAX:
        return HARDWARE_MAX, f"no GPU server holds more than {HARDWARE_MAX}", ()
    return USUAL_MAX, f"GPU nodes usually hold at most {USUAL_MAX}", (MAX_GPUS,)


def _node_limit(pod: PodSpec, ctx: Context, wanted: int) -> tuple[int, str, tuple] | None:
    """The most nvidia.com/gpu a selected node can offer, and why."""
    counts = required_values(pod.spec, COUNT_LABEL)
    values = _ints(counts)
    if values:
        most = max(values)
        replicas = _ints(required_values(pod.spec, REPLICAS_LABEL))
        if replicas and max(replicas) > 1:
            return (
                most * max(replicas),
                f"the nodes it selects ({COUNT_LABEL}={most}, "
                f"{REPLICAS_LABEL}={max(replicas)}) offer at most {most * max(replicas)}",
                (),
            )
        shown = ", ".join(str(v) for v in sorted(set(values)))
        return most, f"the nodes it selects have {COUNT_LABEL} {shown}", ()
    if required_values(pod.spec, REPLICAS_LABEL) or required_values(
        pod.spec, "nvidia.com/gpu.sharing-strategy"
    ):
        return None  # shared GPUs multiply what a node offers; no bound known
    return _cluster_limit(ctx, wanted)


def _largest_holder(pod: PodSpec, name: str) -> Container | None:
    holders = [c for c in pod.containers if c.gpus.get(name)]
    return max(holders, key=lambda c: c.gpus[name]) if holders else None


def _entry_path(container: Container, name: str) -> tuple:
    resources = container.data.get("resources") or {}
    limits = resources.get("limits") if isinstance(resources, dict) else None
    section = "limits" if isinstance(limits, dict) and name in limits else "requests"
    return container.path + ("resources", section, name)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        if is_infra_pod(pod):
            continue
        for name in WHOLE_GPU_RESOURCES:
            wanted = pod.effective_gpus.get(name, 0)
            if not wanted:
                continue
            bound = (
                _node_limit(pod, ctx, wanted) if name == NVIDIA_GPU else _cluster_limit(ctx, wanted)
            )
            if bound is None or wanted <= bound[0]:
                continue
            holder = _largest_holder(pod, name)
            if holder is None:
                continue
            held = holder.gpus[name]
            detail = "" if held == wanted else f" (this container holds {held})"
            yield Report(
                _entry_path(holder, name),
                f"the pod requests {wanted} {name}{detail} but {bound[1]}; a pod is never "
                f"split across nodes, so it stays Pending: "
                f'"0/N nodes are available: N Insufficient {name}"',
                container=holder.name,
                needs=bound[2],
            )
