"""
## What it checks
A pod whose effective GPU request (`nvidia.com/gpu` or `amd.com/gpu`, init
containers and sidecars counted as the scheduler counts them) is more than any
node it may land on can hold:

- more than every `nvidia.com/gpu.count` the pod pins with a node selector or
  required node affinity (times the `nvidia.com/gpu.replicas` it pins, if any);
- otherwise more than the largest node of the cluster, the setting
  `max-gpus-per-node` setting (default 8, as in an 8-GPU HGX/DGX server).

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
from typing import TYPE_CHECKING

from gpulint.findings import Severity
from gpulint.model.gpu import AMD_GPU, NVIDIA_GPU
from gpulint.model.infra import is_infra_pod
from gpulint.model.resource import Container, PodSpec, Resource
from gpulint.model.scheduling import LabelRequirement, required_values
from gpulint.rules.registry import Report, Rule

if TYPE_CHECKING:
    from gpulint.engine.run import Context

rule = Rule(
    "GPU104",
    "gpu-count-exceeds-node",
    Severity.ERROR,
    "A pod requests more GPUs than any node it can land on holds; it stays Pending.",
    __doc__,
)

COUNT_LABEL = "nvidia.com/gpu.count"
REPLICAS_LABEL = "nvidia.com/gpu.replicas"
# Whole-GPU resources a node offers at most max_gpus_per_node of.
WHOLE_GPU_RESOURCES = (NVIDIA_GPU, AMD_GPU)


def _ints(requirements: list[LabelRequirement]) -> list[int]:
    return [int(v) for r in requirements for v in r.values if v.strip().isdigit()]


def _node_limit(pod: PodSpec, ctx: Context) -> tuple[int, str] | None:
    """The most nvidia.com/gpu a selected node can offer, and why."""
    counts = required_values(pod.spec, COUNT_LABEL)
    values = _ints(counts)
    if values:
        most = max(values)
        replicas = _ints(required_values(pod.spec, REPLICAS_LABEL))
        if replicas and max(replicas) > 1:
            return most * max(replicas), (
                f"the nodes it selects ({COUNT_LABEL}={most}, "
                f"{REPLICAS_LABEL}={max(replicas)}) offer at most {most * max(replicas)}"
            )
        shown = ", ".join(str(v) for v in sorted(set(values)))
        return most, f"the nodes it selects have {COUNT_LABEL} {shown}"
    if required_values(pod.spec, REPLICAS_LABEL) or required_values(
        pod.spec, "nvidia.com/gpu.sharing-strategy"
    ):
        return None  # shared GPUs multiply what a node offers; no bound known
    limit = ctx.settings.max_gpus_per_node
    return limit, f"no node holds more than {limit} (max-gpus-per-node)"


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
                _node_limit(pod, ctx)
                if name == NVIDIA_GPU
                else (
                    ctx.settings.max_gpus_per_node,
                    f"no node holds more than {ctx.settings.max_gpus_per_node} (max-gpus-per-node)",
                )
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
            )
