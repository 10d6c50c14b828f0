"""
## What it checks
A `Node` object that advertises GPUs, by a GPU resource in `status.capacity` or
`status.allocatable` (`nvidia.com/gpu`, `nvidia.com/mig-*`, `amd.com/gpu`,
`gpu.intel.com/*`) or by GPU labels (`nvidia.com/gpu.present: "true"`,
`nvidia.com/gpu.product`, `nvidia.com/gpu.count`,
`cloud.google.com/gke-accelerator`, `karpenter.k8s.aws/instance-gpu-name`...),
but has no `NoSchedule` (or `NoExecute`) taint on a GPU taint key
(`nvidia.com/gpu` by default, configurable).

## Why it matters
Without the taint, any pod can be scheduled onto the GPU node: CPU-only
workloads fill its CPU and memory, and GPU pods that arrive later find the node
full (`Insufficient cpu`) while its GPUs sit idle. Cluster autoscalers also keep
the expensive node alive for pods that never needed it.

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:  # <- GPU208
    - key: node.kubernetes.io/unschedulable
      effect: NoSchedule
status:
  capacity:
    nvidia.com/gpu: "8"
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-l4-3
  labels:
    cloud.google.com/gke-accelerator: nvidia-l4  # <- GPU208
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
status:
  capacity:
    nvidia.com/gpu: "8"
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-0
  labels:
    nvidia.com/gpu.present: "false"
status:
  capacity:
    cpu: "32"
```

## How to fix
Taint GPU nodes where they are created (node pool or NodePool settings, kubelet
`--register-with-taints`), for example `nvidia.com/gpu=present:NoSchedule`, and
give GPU pods the matching toleration (or enable the
`ExtendedResourceToleration` admission plugin).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpulint.model.gpu.labels import has_gpu_taint, node_gpu_evidence
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, kind_is

rule = Rule(
    "GPU208",
    "gpu-node-untainted",
    Severity.NOTE,
    "A Node that advertises GPUs has no NoSchedule taint for them.",
    __doc__,
    reads=kind_is("Node"),  # a Node object
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind != "Node":
        return
    evidence = node_gpu_evidence(resource.obj, resource.labels)
    if evidence is None:
        return
    spec = resource.obj.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    taints = spec.get("taints")
    taints = taints if isinstance(taints, list) else []
    keys = tuple(ctx.settings.gpu_taint_keys)
    if not keys or has_gpu_taint(taints, keys):
        return
    path, what = evidence
    wanted = " or ".join(f"{k}:NoSchedule" for k in keys)
    message = (
        f"Node {resource.name} advertises GPUs ({what}) but has no {wanted} taint: "
        "any pod can be scheduled onto it and fill it while its GPUs sit idle"
    )
    yield Report(("spec", "taints") if taints else path, message)
