"""
## What it checks
A container that requests MIG devices together with full GPUs
(`nvidia.com/gpu` beside `nvidia.com/mig-*`), or more than one MIG device
(`nvidia.com/mig-1g.10gb: 2`, or two MIG resources). Time-sliced MIG replicas
(`nvidia.com/mig-*.shared`) requested alone are left to GPU602.

## Why it matters
CUDA enumerates at most one MIG device per process; further MIG devices and
full GPUs visible in the same container are not usable together by one
program. The pod reserves devices that the workload cannot use, while other
pods wait for them.

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
from typing import TYPE_CHECKING

from gpulint.findings import Severity
from gpulint.model.gpu import NVIDIA_GPU
from gpulint.model.mig import mig_entries
from gpulint.model.resource import Resource
from gpulint.registry import Report, Rule

if TYPE_CHECKING:
    from gpulint.engine import Context

rule = Rule(
    "GPU503",
    "mig-request-mixed",
    Severity.WARNING,
    "A container requests MIG devices with full GPUs, or several MIG devices.",
    __doc__,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers():
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
