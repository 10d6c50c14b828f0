"""
## What it checks
A MIG profile that no MIG-capable GPU offers: a typo such as `4g.5gb` (the
4-slice profile of an A100 40GB is `4g.20gb`), a wrong unit (`1g.5GB`), or a
compute-instance profile (`1c.3g.20gb`) that is never exposed as a device. It
looks at container requests for `nvidia.com/mig-<profile>`, at a DeviceClass's
`extendedResourceName`, and at DRA CEL selectors on the NVIDIA driver's
`profile` attribute (`device.attributes['gpu.nvidia.com'].profile == '...'`).
The profiles come from gpulint's catalog (mig-parted's default configs, the
MIG User Guide and NVIDIA's NVML test data).

## Why it matters
The device plugin's `mixed` strategy advertises one resource per MIG profile
that exists on the node. A resource no GPU can have is never advertised, so the
scheduler keeps the pod Pending with `Insufficient nvidia.com/mig-4g.5gb` on
every node, and nothing points at the typo. A DRA selector on a profile no GPU
has matches no device, so the claim is never allocated.

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
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig-small.example.com
spec:
  selectors:
    - cel:
        expression: "device.attributes['gpu.nvidia.com'].profile == '1g.6gbb'"  # <- GPU501
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
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig-small.example.com
spec:
  selectors:
    - cel:
        expression: "device.attributes['gpu.nvidia.com'].profile == '1g.6gb'"
```

## How to fix
Use a profile your GPUs offer: `<slices>g.<memory>gb`, lower case, with `+me`
written as `.me` in resource names (`nvidia.com/mig-1g.10gb.me`) and as `+me`
in DRA selectors. `kubectl describe node` lists
the `nvidia.com/mig-*` resources a MIG node really advertises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.dra import GPU_DRIVER, cel_expressions, extended_resource_name, is_dra_object
from gpulint.model.gpu.mig import gpu_name, mig_entries, suggest_profiles
from gpulint.model.values.gpu_resources import MIG_PREFIX, mig_profile
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU501",
    "mig-profile-unknown",
    Severity.ERROR,
    "A MIG profile is named that no MIG-capable GPU offers.",
    __doc__,
    reads=mentions("mig", ignore_case=True),  # a MIG profile, resource or setting
)


_COMPUTE_INSTANCE = re.compile(r"^\d+c\.")
# device.attributes['gpu.nvidia.com'].profile == '1g.10gb' (the DRA driver's MIG attribute)
_CEL_PROFILE = re.compile(r"\.profile\s*==\s*(['\"])([^'\"]+)\1")


def _hint(profile: str, as_resource: bool = True) -> str:
    choices = []
    for suggested in suggest_profiles(profile, catalog.mig_resource_profiles()):
        owners = ", ".join(gpu_name(g) for g in catalog.gpus_with_mig_profile(suggested)[:2])
        shown = f"{MIG_PREFIX}{suggested}" if as_resource else _attribute(suggested)
        choices.append(f"'{shown}' ({owners})")
    hint = f"; did you mean {' or '.join(choices)}?" if choices else ""
    if _COMPUTE_INSTANCE.match(profile):
        hint += " (compute-instance profiles are never exposed as devices)"
    return hint


def _attribute(resource_profile: str) -> str:
    """A profile as the DRA driver's ``profile`` attribute spells it (``1g.10gb+me``)."""
    for profile in catalog.mig_profiles():
        if catalog.mig_resource_profile(profile) == resource_profile:
            return profile
    return resource_profile


def _profile_unknown(profile: str) -> bool:
    if is_placeholder(profile):
        return False  # `nvidia.com/mig-${PROFILE}`: filled in later
    return profile not in catalog.mig_profiles() and profile not in catalog.mig_resource_profiles()


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        for entry in mig_entries(container):
            if not _profile_unknown(entry.profile):
                continue
            yield Report(
                entry.path,
                f"{entry.resource}: no MIG-capable GPU has a '{entry.profile}' profile, so no "
                "node ever advertises this resource and the pod stays Pending "
                f"(Insufficient {entry.resource}){_hint(entry.profile)}",
                container=container.name,
            )
    if not is_dra_object(resource):
        return
    served = extended_resource_name(resource)
    profile = mig_profile(served) if served else None
    if profile and _profile_unknown(profile):
        yield Report(
            ("spec", "extendedResourceName"),
            f"extendedResourceName {served}: no MIG-capable GPU has a '{profile}' profile, so "
            f"pods requesting {served} from this class stay Pending{_hint(profile)}",
            at="value",
        )
    for path, expression in cel_expressions(resource):
        if GPU_DRIVER not in expression:
            continue
        for match in _CEL_PROFILE.finditer(expression):
            profile = match.group(2)
            if not _profile_unknown(profile):
                continue
            yield Report(
                path,
                f"CEL selector asks for MIG profile '{profile}', which no MIG-capable GPU has: "
                "no device ever matches, so the claim is never allocated and its pods stay "
                f"Pending{_hint(profile, as_resource=False)}",
                at="value",
            )
