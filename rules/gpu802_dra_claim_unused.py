"""
## What it checks
A pod `spec.resourceClaims` entry that no container, init container or
ephemeral container lists under `resources.claims`. A claim that a container
meant but misspelt (`gpu` for `gpus`) is left to GPU801, whose did-you-mean
names it: one root cause, one finding.

## Why it matters
The claim is still created, allocated and reserved for the pod: the scheduler
only places the pod where the devices are free and keeps them from every other
pod. But the kubelet hands a claim's devices only to the containers that list
it, so the GPU sits idle while the workload runs without it, often on the CPU.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  resourceClaims:
    - name: gpu  # <- GPU802
      resourceClaimTemplateName: single-gpu
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
```

## Passing example
```yaml
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
```

## How to fix
List the claim under `resources.claims` of each container that needs the
devices (`- name: gpu`), or remove the entry from `spec.resourceClaims`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.dra import container_claims, pod_claims
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions
from gpulint.validate.schema import closest

rule = Rule(
    "GPU802",
    "dra-claim-unused",
    Severity.WARNING,
    "A pod declares a DRA claim that no container uses.",
    __doc__,
    reads=mentions("resourceClaims"),  # a pod's spec.resourceClaims
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        declared = pod_claims(pod)
        if not declared:
            continue
        used = {u.name for c in pod.containers for u in container_claims(c)}
        names = [entry.name for entry in declared]
        # A container's misspelt reference is GPU801's finding, which names this claim in
        # its did-you-mean: one root cause (the typo), one finding.
        meant = {closest(name, names) for name in used if name not in names}
        for entry in declared:
            if entry.name in used or entry.name in meant:
                continue
            source = f" ({entry.reference[0]} {entry.reference[1]!r})" if entry.reference else ""
            yield Report(
                entry.path + ("name",),
                f"claim {entry.name!r}{source} is declared in spec.resourceClaims but no "
                "container lists it under resources.claims: its devices are allocated and "
                "reserved for the pod, yet no container can see them",
            )
