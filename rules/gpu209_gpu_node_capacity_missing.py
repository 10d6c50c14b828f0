"""
## What it checks
`Node` objects as the cluster reports them (`kubectl get nodes -o yaml`, the
`--cluster` inventory: a `status` with `allocatable` or `capacity`) that
GPU Feature Discovery labels as GPU nodes (`nvidia.com/gpu.present: "true"` or
`nvidia.com/gpu.count`) but that advertise no `nvidia.com/` GPU resource at
all, or fewer `nvidia.com/gpu` than `nvidia.com/gpu.count`. A node whose
GPUs are partitioned (MIG resources, `nvidia.com/mig.strategy` single or
mixed, a `-MIG-` product) or shared (`nvidia.com/gpu.replicas` above 1) is not
compared by count.

## Why it matters
The labels come from GFD, the resources from the device plugin. Labels without
any resource mean the device plugin is not running on the node or failed to
initialise (the first step of debugging a GPU pod stuck in Pending with
`Insufficient nvidia.com/gpu`); fewer GPUs than the node has mean some were
marked unhealthy (XID errors) and are not offered, so jobs sized for the whole
node never schedule there.

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.count: "8"
status:
  allocatable:  # <- GPU209
    cpu: "96"
    memory: 1056Gi
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-1
  labels:
    nvidia.com/gpu.count: "8"
status:
  allocatable:
    nvidia.com/gpu: "6"  # <- GPU209
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.count: "8"
status:
  allocatable:
    cpu: "96"
    nvidia.com/gpu: "8"
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-h100-mig
  labels:
    nvidia.com/gpu.count: "8"
    nvidia.com/mig.strategy: mixed
status:
  allocatable:
    nvidia.com/gpu: "4"
    nvidia.com/mig-3g.40gb: "8"
```

## How to fix
Look at the device plugin pod on that node (`kubectl -n <ns> logs` of the
`nvidia-device-plugin` DaemonSet pod): it is missing (a node selector or taint
keeps it away), crash-looping (driver or runtime not ready), or reporting
unhealthy GPUs; fix it, then the node advertises its GPUs again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpulint.model.scheduling import nodes
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, kind_is

rule = Rule(
    "GPU209",
    "gpu-node-capacity-missing",
    Severity.WARNING,
    "A Node labelled as a GPU node advertises no GPUs, or fewer than it has.",
    __doc__,
    reads=kind_is("Node"),  # a Node object
)

PRESENT, COUNT = "nvidia.com/gpu.present", "nvidia.com/gpu.count"
GPU = "nvidia.com/gpu"


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if not nodes.is_node(resource):
        return
    status = resource.obj.get("status")
    if not isinstance(status, Mapping):
        return  # a hand-written Node: nothing the cluster reported
    key = "allocatable" if isinstance(status.get("allocatable"), Mapping) else "capacity"
    if not isinstance(status.get(key), Mapping):
        return
    labels = {str(k): str(v) for k, v in resource.labels.items()}
    count = _whole(labels.get(COUNT))
    if labels.get(PRESENT) != "true" and count is None:
        return
    offered = {
        name: n
        for name, n in nodes.node_view(resource).allocatable.items()
        if name.startswith("nvidia.com/")
    }
    if not offered:
        said = f"{COUNT}={count}" if count is not None else f"{PRESENT}=true"
        yield Report(
            ("status", key),
            f"Node {resource.name} is labelled as a GPU node ({said}) but advertises no "
            f"nvidia.com/ GPU resource in status.{key}: the device plugin is not running on it "
            "or failed to initialise, so no GPU pod can be scheduled there",
        )
        return
    if _partitioned_or_shared(labels, offered):
        return
    gpus = offered.get(GPU)
    if gpus is None:
        return
    if count is not None and gpus < count:
        said = (
            f"advertises {gpus} of the {count} GPUs GFD counts ({COUNT}={count}): "
            f"{count - gpus} are unhealthy or not offered by the device plugin"
        )
    elif count is None and gpus == 0:
        said = (
            f"advertises 0 {GPU} although labelled {PRESENT}=true: its GPUs are unhealthy or "
            "not offered by the device plugin"
        )
    else:
        return
    yield Report(
        ("status", key, GPU),
        f"Node {resource.name} {said}, so pods that ask for more than {gpus} GPU(s) never "
        "schedule on it",
        at="value",
    )


def _partitioned_or_shared(labels: dict[str, str], offered: dict[str, int]) -> bool:
    if any(name.startswith("nvidia.com/mig-") for name in offered):
        return True
    if labels.get("nvidia.com/mig.strategy") in ("single", "mixed"):
        return True
    if "-MIG-" in labels.get("nvidia.com/gpu.product", ""):
        return True
    replicas = _whole(labels.get("nvidia.com/gpu.replicas"))
    return replicas is not None and replicas > 1


def _whole(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None
