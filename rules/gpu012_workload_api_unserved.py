"""
## What it checks
A built-in workload that requests GPUs (a `Pod`, `Deployment`, `StatefulSet`,
`DaemonSet`, `ReplicaSet`, `ReplicationController`, `Job` or `CronJob`) written
in an `apiVersion` of Kubernetes' own groups (core, `apps`, `extensions`,
`batch`) that no supported Kubernetes serves the kind in:

- a beta version the API removed: `extensions/v1beta1`, `apps/v1beta1` and
  `apps/v1beta2` for Deployments, StatefulSets, DaemonSets and ReplicaSets (gone
  in Kubernetes 1.16, 2019), `batch/v1beta1` and `batch/v2alpha1` for CronJobs
  (gone in 1.25, 2022, and 1.21);
- a group that never served the kind (`batch/v1` with `kind: Deployment`,
  `apps/v1` with `kind: Job`).

A kind of the same name in another group (a custom resource) is left alone.

## Why it matters
`kubectl apply` fails with `no matches for kind "Deployment" in version
"extensions/v1beta1"` (Kubernetes API deprecation guide): the GPU workload never
reaches the cluster. GPU samples and tutorials written before 2019 still use
these versions, and the rest of their pod spec looks fine. gpulint still reads
the pod template, so every other rule judges it too.

## Failing example
```yaml
apiVersion: extensions/v1beta1  # <- GPU012
kind: Deployment
metadata:
  name: notebook
spec:
  template:
    metadata:
      labels:
        app: notebook
    spec:
      containers:
        - name: jupyter
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              cpu: "4"
              memory: 16Gi
            limits:
              memory: 16Gi
              nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: notebook
spec:
  selector:
    matchLabels:
      app: notebook
  template:
    metadata:
      labels:
        app: notebook
    spec:
      containers:
        - name: jupyter
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              cpu: "4"
              memory: 16Gi
            limits:
              memory: 16Gi
              nvidia.com/gpu: 1
```

## How to fix
Use the version that serves the kind: `apps/v1` for Deployments, StatefulSets,
DaemonSets and ReplicaSets, `batch/v1` for Jobs and CronJobs, `v1` for Pods
and ReplicationControllers. `apps/v1` requires a `spec.selector` matching the
template's labels (the beta versions defaulted it), so there is no automatic
fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.values.gpu_resources import gpu_entries
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU012",
    "workload-api-unserved",
    Severity.ERROR,
    "A GPU workload of a built-in kind uses an API version no supported Kubernetes serves.",
    __doc__,
)

# The version that serves each built-in workload kind (Kubernetes API reference).
SERVED = {
    "Pod": "v1",
    "ReplicationController": "v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicaSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
}
# Kubernetes' own groups: a kind of these names in any other group is a custom resource.
BUILT_IN_GROUPS = frozenset({"", "apps", "extensions", "batch"})
# (kind, apiVersion) the API once served, and the release that removed it (deprecation guide).
REMOVED = {
    **{(kind, "extensions/v1beta1"): "1.16" for kind in ("Deployment", "DaemonSet", "ReplicaSet")},
    **{(kind, "apps/v1beta1"): "1.16" for kind in ("Deployment", "StatefulSet")},
    **{
        (kind, "apps/v1beta2"): "1.16"
        for kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")
    },
    ("CronJob", "batch/v1beta1"): "1.25",
    ("CronJob", "batch/v2alpha1"): "1.21",
}
_POD_SPEC = {
    "Pod": ("spec",),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
_TEMPLATE_SPEC = ("spec", "template", "spec")


def _requests_gpus(obj: dict, kind: str) -> bool:
    spec: Any = obj
    for key in _POD_SPEC.get(kind, _TEMPLATE_SPEC):
        spec = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(spec, dict):
        return False
    containers = [
        c
        for field in ("containers", "initContainers")
        if isinstance(spec.get(field), list)
        for c in spec[field]
        if isinstance(c, dict)
    ]
    return any(gpu_entries(c, "limits") or gpu_entries(c, "requests") for c in containers)


def problem(kind: str, api_version: str) -> str | None:
    """Why no supported Kubernetes serves ``kind`` in ``api_version``, or None."""
    served = SERVED.get(kind)
    if served is None or is_placeholder(api_version):
        return None  # a kind of its own, or a version filled in later
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    if api_version == served or group not in BUILT_IN_GROUPS:
        return None
    removed = REMOVED.get((kind, api_version))
    why = (
        f"removed in Kubernetes {removed}"
        if removed
        else f"{group or 'the core group'} never served {kind}"
    )
    return (
        f"{kind} in {api_version} ({why}); kubectl apply fails with: no matches for kind "
        f'"{kind}" in version "{api_version}"; use {served}'
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    found = problem(resource.kind, resource.api_version)
    if found is not None and _requests_gpus(resource.obj, resource.kind):
        yield Report(("apiVersion",), found, at="value")
