"""
## What it checks
A container that uses a DRA claim for NVIDIA GPUs and also requests an NVIDIA
device plugin resource (`nvidia.com/gpu`, `nvidia.com/gpu.shared`,
`nvidia.com/mig-*`). A claim counts as a GPU claim when the lint run defines
its ResourceClaim or ResourceClaimTemplate and a request uses the DRA driver's
GPU classes (`gpu.nvidia.com`, `mig.nvidia.com`, `vfio.gpu.nvidia.com`) or a
DeviceClass of the run that selects `gpu.nvidia.com` devices. Claims for IMEX
channels and compute domains are not GPU claims. A resource that a DeviceClass
of the run serves through `extendedResourceName` (DRA extended resources,
KEP-5004) is DRA's own and is left alone.

## Why it matters
Two allocators then hand out the same GPUs without knowing of each other: the
device plugin counts the node's GPUs as free while DRA has them allocated, and
the reverse. NVIDIA's DRA driver chart refuses to be installed beside the
device plugin for that reason ("this DRA driver cannot be deployed alongside
the standard GPU device plugin on the same node"), so on a working cluster one
of the two requests can never be met.

## Failing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
---
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  resourceClaims:
    - name: gpu
      resourceClaimTemplateName: single-gpu
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        claims:
          - name: gpu
        limits:
          nvidia.com/gpu: 1  # <- GPU803
```

## Passing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: two-gpus
spec:
  spec:
    devices:
      requests:
        - name: gpus
          exactly:
            deviceClassName: gpu.nvidia.com
            count: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  resourceClaims:
    - name: gpus
      resourceClaimTemplateName: two-gpus
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        claims:
          - name: gpus
```

## How to fix
Get every GPU of the container from one mechanism: ask the claim for more
devices (`count: 2`) and drop the `nvidia.com/gpu` limit, or drop the claim.
To keep writing `nvidia.com/gpu` limits on a DRA cluster, let a DeviceClass
serve them with `extendedResourceName: nvidia.com/gpu` instead of running the
device plugin.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.dra import (
    DEVICE_CLASS,
    GPU_DEVICE_CLASSES,
    ClaimIndex,
    ClaimObject,
    claim_objects,
    class_selects_gpus,
    container_claims,
    extended_resource_name,
    is_dra_object,
    pod_claims,
)
from gpulint.model.values.gpu_resources import (
    NVIDIA_GPU,
    NVIDIA_SHARED,
    gpu_entries,
    is_mig_resource,
)
from gpulint.rules.api import Anchor, Context, Report, Resource, Rule, Severity, mentions, record

rule = Rule(
    "GPU803",
    "dra-mixed-with-device-plugin",
    Severity.WARNING,
    "A container uses a DRA GPU claim and device plugin GPUs together.",
    __doc__,
    reads=mentions("claims"),  # a container's resources.claims
)


@record(frozen=True, slots=True)
class _Class:
    """A DeviceClass: whether it selects GPUs, its extended resource."""

    name: str
    selects_gpus: bool
    extended_resource: str | None


@record(frozen=True, slots=True)
class _Mix:
    """A device plugin GPU resource of a container that also uses one of its pod's claims."""

    namespace: str | None
    kind: str
    target: str
    entry: str
    container: str
    resource: str
    count: int
    anchor: Anchor


def _plugin_resource(name: str) -> bool:
    return name in (NVIDIA_GPU, NVIDIA_SHARED) or is_mig_resource(name)


@rule.collector
def collect(resource: Resource, ctx: Context) -> list[Any]:
    facts: list[Any] = list(claim_objects(resource))
    if is_dra_object(resource) and resource.kind == DEVICE_CLASS:
        facts.append(
            _Class(resource.name, class_selects_gpus(resource), extended_resource_name(resource))
        )
    for pod in resource.pod_specs:
        entries = {c.name: c for c in pod_claims(pod)}
        for container in pod.containers:
            plugin = {n: k for n, k in container.gpus.items() if _plugin_resource(n)}
            if not plugin:
                continue
            limits = gpu_entries(container.data, "limits")
            for used in container_claims(container):
                entry = entries.get(used.name)
                if entry is None or entry.reference is None:
                    continue
                for name, count in plugin.items():
                    section = "limits" if name in limits else "requests"
                    path = container.path + ("resources", section, name)
                    facts.append(
                        _Mix(
                            resource.namespace,
                            entry.reference[0],
                            entry.reference[1],
                            entry.name,
                            container.name,
                            name,
                            count,
                            ctx.anchor(resource, path, container.name),
                        )
                    )
    return facts


@rule.finalizer
def finalize(facts: list[Any], ctx: Context) -> Iterator[Report]:
    objects = ClaimIndex([f for f in facts if isinstance(f, ClaimObject)])
    classes = [f for f in facts if isinstance(f, _Class)]
    gpu_classes = set(GPU_DEVICE_CLASSES) | {c.name for c in classes if c.selects_gpus}
    dra_backed = {c.extended_resource for c in classes if c.extended_resource}
    reported: set[tuple] = set()
    for mix in facts:
        if not isinstance(mix, _Mix) or mix.resource in dra_backed:
            continue
        classes_used = objects.classes(mix.kind, mix.target, mix.namespace)
        used = sorted({c for c in classes_used if c in gpu_classes})
        key = (mix.anchor, mix.resource)
        if not used or key in reported:
            continue
        reported.add(key)
        yield Report.placed(
            mix.anchor,
            f"container {mix.container!r} gets GPUs from DRA claim {mix.entry!r} ({mix.kind} "
            f"{mix.target!r}, device class {', '.join(used)}) and also requests "
            f"{mix.resource}: {mix.count} from the device plugin; the two allocators do not "
            "know of each other, and NVIDIA's DRA driver chart by default refuses to be "
            "installed beside the device plugin",
        )
