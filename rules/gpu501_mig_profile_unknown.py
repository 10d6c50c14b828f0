"""
## What it checks
A container that requests `nvidia.com/mig-<profile>` with a profile that no
MIG-capable GPU offers: a typo such as `mig-4g.5gb` (the 4-slice profile of an
A100 40GB is `4g.20gb`), a wrong unit (`mig-1g.5GB`), or a compute-instance
profile (`1c.3g.20gb`) that the device plugin never exposes. The profiles come
from gpulint's catalog (mig-parted's default configs, the MIG User Guide and
NVIDIA's NVML test data).

## Why it matters
The device plugin's `mixed` strategy advertises one resource per MIG profile
that exists on the node. A resource no GPU can have is never advertised, so the
scheduler keeps the pod Pending with `Insufficient nvidia.com/mig-4g.5gb` on
every node, and nothing points at the typo.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/mig-4g.5gb: 1  # <- GPU501
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
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/mig-4g.20gb: 1
```

## How to fix
Use a profile your GPUs offer: `<slices>g.<memory>gb`, lower case, with `+me`
written as `.me` (`nvidia.com/mig-1g.10gb.me`). `kubectl describe node` lists
the `nvidia.com/mig-*` resources a MIG node really advertises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gpulint import catalog
from gpulint.findings import Severity
from gpulint.model.gpu import MIG_PREFIX
from gpulint.model.mig import gpu_name, mig_entries, suggest_profiles
from gpulint.model.resource import Resource
from gpulint.registry import Report, Rule

if TYPE_CHECKING:
    from gpulint.engine import Context

rule = Rule(
    "GPU501",
    "mig-profile-unknown",
    Severity.ERROR,
    "A MIG resource names a profile that no MIG-capable GPU offers.",
    __doc__,
)


_COMPUTE_INSTANCE = re.compile(r"^\d+c\.")


def _hint(profile: str) -> str:
    choices = []
    for suggested in suggest_profiles(profile, catalog.mig_resource_profiles()):
        owners = ", ".join(gpu_name(g) for g in catalog.gpus_with_mig_profile(suggested)[:2])
        choices.append(f"'{MIG_PREFIX}{suggested}' ({owners})")
    hint = f"; did you mean {' or '.join(choices)}?" if choices else ""
    if _COMPUTE_INSTANCE.match(profile):
        hint += " (compute-instance profiles are never exposed as resources)"
    return hint


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    known = catalog.mig_resource_profiles()
    for container in resource.containers():
        for entry in mig_entries(container):
            if entry.profile in known:
                continue
            yield Report(
                entry.path,
                f"{entry.resource}: no MIG-capable GPU has a '{entry.profile}' profile, so no "
                "node ever advertises this resource and the pod stays Pending "
                f"(Insufficient {entry.resource}){_hint(entry.profile)}",
                container=container.name,
            )
