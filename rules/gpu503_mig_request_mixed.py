"""
## What it checks
A container that requests MIG devices together with full GPUs
(`nvidia.com/gpu` beside `nvidia.com/mig-*`), or more than one MIG device
(`nvidia.com/mig-1g.10gb: 2`, or two MIG resources). Time-sliced MIG replicas
(`nvidia.com/mig-*.shared`) requested alone are left to GPU602. MIG devices
from DRA claims count too, when the lint run defines the claim or template: a
container that uses a claim whose requests for `mig.nvidia.com` add up to more
than one device (or that also gets `gpu.nvidia.com` GPUs), unless it names a
single `request` of the claim.

## Why it matters
However many MIG devices a container is given, a single CUDA process
enumerates only one of them (NVIDIA MIG User Guide, "CUDA Device
Enumeration"); further MIG devices and full GPUs visible in the same container
are not usable together by one program. The pod reserves devices that the
workload cannot use, while other pods wait for them.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: inference
spec:
  containers:
    - name: server
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 2  # <- GPU503
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: inference
spec:
  containers:
    - name: server-a
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 1
    - name: server-b
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 1
```

## How to fix
Give each container one MIG device and split the work over containers or
pods, or request a larger profile (`nvidia.com/mig-2g.20gb`) instead of two
small ones. Use full GPUs (`nvidia.com/gpu`) in a separate container.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.dra import (
    FULL_GPU_CLASS,
    MIG_CLASS,
    ClaimIndex,
    ClaimObject,
    claim_objects,
    container_claims,
    pod_claims,
)
from gpulint.model.gpu.mig import mig_entries
from gpulint.model.values.gpu_resources import NVIDIA_GPU
from gpulint.rules.api import Anchor, Context, Report, Resource, Rule, Severity, mentions, record

rule = Rule(
    "GPU503",
    "mig-request-mixed",
    Severity.WARNING,
    "A container requests MIG devices with full GPUs, or several MIG devices.",
    __doc__,
    reads=mentions("mig", ignore_case=True),  # a nvidia.com/mig-<profile> request
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        entries = [e for e in mig_entries(container) if e.count]
        if not entries:
            continue
        full = container.gpus.get(NVIDIA_GPU, 0)
        devices = sum(e.count or 0 for e in entries)
        only_shared = all(e.shared for e in entries) and len(entries) == 1
        asked = ", ".join(f"{e.resource}: {e.count}" for e in entries)
        if full:
            problem = f"{NVIDIA_GPU}: {full} together with {asked}"
        elif devices > 1 and not only_shared:
            problem = f"{devices} MIG devices ({asked})"
        else:
            continue
        yield Report(
            entries[0].path,
            f"container {container.name!r} requests {problem}; a CUDA process enumerates "
            "only one MIG device, so the rest are held but cannot be used by the same program",
            container=container.name,
        )


@record(frozen=True, slots=True)
class _ClaimUse:
    """A container's DRA claims and its device plugin GPUs (a picklable fact)."""

    namespace: str | None
    container: str
    refs: tuple[tuple[str, str, str, str | None], ...]  # (kind, target, entry, request)
    plugin_full: int
    plugin_mig: int
    anchor: Anchor


@rule.collector
def collect(resource: Resource, ctx: Context) -> list[Any]:
    facts: list[Any] = list(claim_objects(resource))
    for pod in resource.pod_specs:
        entries = {c.name: c for c in pod_claims(pod)}
        for container in pod.containers:
            uses = container_claims(container)
            refs = tuple(
                (*reference, u.name, u.request)
                for u in uses
                if u.name in entries and (reference := entries[u.name].reference) is not None
            )
            if not refs:
                continue
            mig = sum(e.count or 0 for e in mig_entries(container))
            facts.append(
                _ClaimUse(
                    resource.namespace,
                    container.name,
                    refs,
                    container.gpus.get(NVIDIA_GPU, 0),
                    mig,
                    ctx.anchor(resource, uses[0].path, container.name),
                )
            )
    return facts


def _claim_devices(objects: ClaimIndex, use: _ClaimUse) -> tuple[int, int, list[str]]:
    """(MIG devices, full GPUs, descriptions) the container gets from its claims."""
    mig = full = 0
    shown = []
    for kind, target, entry, request in use.refs:
        found = objects.matching(kind, target, use.namespace, usable=True)
        if len(found) != 1:
            continue  # not in the run, or ambiguous: its devices are unknown
        for name, device_class, devices in found[0].exact:
            if request and name != request.split("/", 1)[0]:
                continue
            if devices is None:
                continue  # allocationMode All: how many depends on the node
            if device_class == MIG_CLASS:
                mig += devices
                shown.append(f"{devices} {MIG_CLASS} from claim {entry!r} request {name!r}")
            elif device_class == FULL_GPU_CLASS:
                full += devices
                shown.append(f"{devices} {FULL_GPU_CLASS} from claim {entry!r} request {name!r}")
    return mig, full, shown


@rule.finalizer
def finalize(facts: list[Any], ctx: Context) -> Iterator[Report]:
    objects = ClaimIndex([f for f in facts if isinstance(f, ClaimObject)])
    for use in facts:
        if not isinstance(use, _ClaimUse):
            continue
        mig, full, shown = _claim_devices(objects, use)
        if not mig:
            continue  # without DRA MIG devices the per-container check has said all
        mig += use.plugin_mig
        full += use.plugin_full
        if use.plugin_mig:
            shown.append(f"{use.plugin_mig} nvidia.com/mig-* from the device plugin")
        if use.plugin_full:
            shown.append(f"{use.plugin_full} {NVIDIA_GPU} from the device plugin")
        if not full and mig < 2:
            continue
        what = f"{mig} MIG devices" + (f" and {full} full GPUs" if full else "")
        yield Report.placed(
            use.anchor,
            f"container {use.container!r} gets {what} ({'; '.join(shown)}); a CUDA process "
            "enumerates only one MIG device, so the rest are held but cannot be used by the "
            "same program; name one request per container (resources.claims[].request)",
        )
