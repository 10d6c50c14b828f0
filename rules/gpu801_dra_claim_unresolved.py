"""
## What it checks
Names that do not resolve in Dynamic Resource Allocation:
- a container's `resources.claims[].name` that is not one of the pod's
  `spec.resourceClaims` entries;
- a pod's `resourceClaimTemplateName` or `resourceClaimName` that names no
  ResourceClaimTemplate or ResourceClaim of the lint run, when the run defines
  claims or templates for that namespace (a ComputeDomain counts as defining
  the template it names in `spec.channel.resourceClaimTemplate.name`);
- a container's `resources.claims[].request` that names no request of the
  claim or template it points to.

## Why it matters
The API server rejects a pod whose container names an undeclared claim
(`Not found: "gpu": must be one of the names in pod.spec.resourceClaims`). A
missing template leaves the pod Pending while the resource claim controller
reports `resourceclaimtemplate.resource.k8s.io "single-gpu" not found`; a
request name that matches nothing gives the container none of the claim's
devices.

## Failing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  namespace: ml
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
  namespace: ml
  name: train
spec:
  resourceClaims:
    - name: gpu
      resourceClaimTemplateName: one-gpu  # <- GPU801
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        claims:
          - name: gpus  # <- GPU801
```

## Passing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  namespace: ml
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
  namespace: ml
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
Make every `resources.claims[].name` match a `spec.resourceClaims[].name` of
the pod, point `resourceClaimTemplateName` (or `resourceClaimName`) at an
object that exists in the pod's namespace, and use a `request` name from that
object's `spec.devices.requests`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.dra import (
    TEMPLATE,
    ClaimIndex,
    ClaimObject,
    claim_objects,
    container_claims,
    pod_claims,
)
from gpulint.rules.api import Anchor, Context, Report, Resource, Rule, Severity, mentions, record
from gpulint.validate.schema import did_you_mean

rule = Rule(
    "GPU801",
    "dra-claim-unresolved",
    Severity.ERROR,
    "A DRA claim, claim template or request name resolves to nothing.",
    __doc__,
    reads=mentions("claims", "resourceClaim"),  # resources.claims, resourceClaims, ...
    pods_only=True,
)

_RESOURCE = {TEMPLATE: "resourceclaimtemplate", "ResourceClaim": "resourceclaim"}


@record(frozen=True, slots=True)
class _PodRef:
    """A pod's resourceClaims entry and the claim or template it names."""

    namespace: str | None
    kind: str
    target: str
    entry: str
    anchor: Anchor


@record(frozen=True, slots=True)
class _RequestRef:
    """A container's claim request and the pod claim entry it names."""

    namespace: str | None
    kind: str
    target: str
    entry: str
    request: str
    container: str
    anchor: Anchor


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        declared = [c.name for c in pod_claims(pod)]
        for container in pod.containers:
            for used in container_claims(container):
                if used.name in declared:
                    continue
                listed = (
                    f"pod.spec.resourceClaims: {', '.join(sorted(declared))}"
                    if declared
                    else "pod.spec.resourceClaims which is empty"
                )
                yield Report(
                    used.path + ("name",),
                    f"container {container.name!r} uses claim {used.name!r}, which the pod does "
                    f'not declare; the API server rejects the pod: Not found: "{used.name}": '
                    f"must be one of the names in {listed}{did_you_mean(used.name, declared)}",
                    container=container.name,
                    at="value",
                )


@rule.collector
def collect(resource: Resource, ctx: Context) -> list[Any]:
    facts: list[Any] = list(claim_objects(resource))
    for pod in resource.pod_specs:
        entries = {c.name: c for c in pod_claims(pod)}
        for entry in entries.values():
            if entry.reference is None or entry.ref_path is None:
                continue
            kind, target = entry.reference
            anchor = ctx.anchor(resource, entry.ref_path, at="value")
            facts.append(_PodRef(resource.namespace, kind, target, entry.name, anchor))
        for container in pod.containers:
            for used in container_claims(container):
                claim = entries.get(used.name)
                if not used.request or claim is None or claim.reference is None:
                    continue
                kind, target = claim.reference
                anchor = ctx.anchor(resource, used.path + ("request",), container.name, "value")
                facts.append(
                    _RequestRef(
                        resource.namespace,
                        kind,
                        target,
                        claim.name,
                        used.request,
                        container.name,
                        anchor,
                    )
                )
    return facts


# A suggestion compares the name with each of the namespace's names: bounded, so that a
# file of many unresolved references stays linear.
MAX_SUGGESTED = 100
TEMPLATE_FIELD = "resourceClaimTemplateName"


def _matches(objects: ClaimIndex, ref: _PodRef | _RequestRef) -> list[ClaimObject]:
    return objects.matching(ref.kind, ref.target, ref.namespace)


def _unresolved(objects: ClaimIndex, ref: _PodRef) -> str | None:
    if "$" in ref.target or "{{" in ref.target:
        return None  # an unrendered placeholder (envsubst, templates) names nothing yet
    if ref.namespace not in objects.namespaces:
        return None  # the run defines nothing for this namespace: the object may live elsewhere
    if _matches(objects, ref):
        return None
    where = f"namespace {ref.namespace!r}" if ref.namespace else "objects without a namespace"
    names = objects.names(ref.kind, ref.namespace)
    other = objects.other_kind(ref.kind, ref.target, ref.namespace)
    hint = did_you_mean(ref.target, names) if len(names) <= MAX_SUGGESTED else ""
    if other:
        field = (
            "resourceClaimName" if other.kind == "ResourceClaim" else "resourceClaimTemplateName"
        )
        hint += f"; a {other.kind} of that name exists: reference it with {field}"
    return (
        f"claim {ref.entry!r} names {ref.kind} {ref.target!r}, which the lint run does not define "
        f"in {where}; the pod stays Pending: {_RESOURCE[ref.kind]}.resource.k8s.io "
        f'"{ref.target}" not found{hint}'
    )


def _unknown_request(objects: ClaimIndex, ref: _RequestRef) -> str | None:
    found = _matches(objects, ref)
    if len(found) != 1 or found[0].generated or not found[0].requests:
        return None
    requests = found[0].requests
    if ref.request.split("/", 1)[0] in requests:
        return None
    return (
        f"container {ref.container!r} asks for request {ref.request!r} of claim {ref.entry!r}, "
        f"but {ref.kind} {ref.target!r} has only {', '.join(requests)}; no allocated device "
        "carries that request name, so the container gets none of the claim's devices"
        f"{did_you_mean(ref.request, requests)}"
    )


@rule.finalizer
def finalize(facts: list[Any], ctx: Context) -> Iterator[Report]:
    objects = ClaimIndex([f for f in facts if isinstance(f, ClaimObject)])
    for fact in facts:
        if isinstance(fact, _PodRef):
            message = _unresolved(objects, fact)
        elif isinstance(fact, _RequestRef):
            message = _unknown_request(objects, fact)
        else:
            continue
        if message:
            yield Report.placed(fact.anchor, message)
