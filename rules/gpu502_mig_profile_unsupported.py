"""
## What it checks
A container that requests `nvidia.com/mig-<profile>` in a pod pinned (by
`nodeSelector` or required node affinity on `nvidia.com/gpu.product`) to GPU
products that cannot provide it: products without MIG support (T4, V100, A10G,
L4, L40S...) or MIG-capable products whose profiles do not include the one
requested (`mig-1g.5gb` is an A100 40GB profile; an A100 80GB offers
`1g.10gb`). It stays silent when any selected product is unknown to gpulint's
catalog or offers the profile.

## Why it matters
MIG profiles are sized from the GPU's memory, so each GPU model has its own
set. On the selected nodes the resource never exists and the pod stays Pending
with `Insufficient nvidia.com/mig-1g.5gb`, although MIG is enabled and the
nodes have free capacity.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: notebook
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
  containers:
    - name: jupyter
      image: jupyter/scipy-notebook
      resources:
        limits:
          nvidia.com/mig-1g.5gb: 1  # <- GPU502
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: notebook
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
  containers:
    - name: jupyter
      image: jupyter/scipy-notebook
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 1
```

## How to fix
Request a profile of the selected GPU (`kubectl describe node` lists the
`nvidia.com/mig-*` resources it advertises), or select nodes whose GPUs offer
the profile. Without MIG, request `nvidia.com/gpu` instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.gpu.mig import (
    PRODUCT_LABEL,
    mig_entries,
    resource_profiles,
    selected_products,
    suggest_profiles,
)
from gpulint.model.values.gpu_resources import MIG_PREFIX
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU502",
    "mig-profile-unsupported",
    Severity.ERROR,
    "A MIG profile is requested on GPU products that do not offer it.",
    __doc__,
    reads=mentions("mig", ignore_case=True),  # a nvidia.com/mig-<profile> request
    pods_only=True,
)


def _why(profile: str, products: tuple[str, ...]) -> tuple[str, str] | None:
    """Why none of the products offers the profile, and a suggestion; None if one may."""
    reasons = []
    suggestion = ""
    for product in products:
        device = catalog.gpu_for_product(product)
        if device is None:
            return None  # not in the catalog: nothing verified to compare with
        if not device.mig_capable:
            reasons.append(f"{product} does not support MIG")
            continue
        offered = resource_profiles(device)
        if profile in offered:
            return None
        near = suggest_profiles(profile, offered)
        if near and not suggestion:
            suggestion = f"; did you mean {MIG_PREFIX}{near[0]}?"
        reasons.append(f"{product} offers {', '.join(offered)}")
    return ("; ".join(reasons), suggestion) if reasons else None


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        entries = [(c, e) for c in pod.containers for e in mig_entries(c)]
        if not entries:
            continue
        choice = selected_products(pod.spec)
        if choice is None or not choice.values:
            continue
        for container, entry in entries:
            if entry.profile not in catalog.mig_resource_profiles():
                continue  # GPU501 reports profiles no GPU has
            found = _why(entry.profile, choice.values)
            if found is None:
                continue
            why, suggestion = found
            yield Report(
                entry.path,
                f"{entry.resource} is requested but the pod selects {PRODUCT_LABEL}="
                f"{'|'.join(choice.values)} ({why}); no selected node advertises "
                f"{entry.resource}, so the pod stays Pending (Insufficient {entry.resource})"
                f"{suggestion}",
                container=container.name,
            )
