"""
## What it checks
A device plugin or GPU feature discovery container (NVIDIA's
`k8s-device-plugin` image) without a CPU request, a memory request and a
memory limit (a limit without a request is the request too: Kubernetes
copies it). In the device plugin chart's values and the GPU Operator's
`devicePlugin.resources`, a `resources` block that is set but misses one of
them. The plugin's own repository (the linted project publishes the image:
`gpulint/model/project.py`) is left alone: its reference manifests leave
sizing to whoever installs them, as its chart does.

## Why it matters
Without requests the plugin pod is BestEffort: under memory pressure the
kubelet evicts it before Guaranteed pods of the same priority, and with it the
node stops advertising GPUs and reporting their health until it comes back.
Advice (a note): whether the node ever runs short of memory is not in the
manifests, and a `system-node-critical` priority class already ranks the
plugin last among evictions. Without a memory limit a leak in
the plugin can take memory from the GPU workloads beside it.

## Failing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
  labels: {app.kubernetes.io/managed-by: Helm}
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
          resources:  # <- GPU406
            limits:
              memory: 64Mi
```

## Passing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
  labels: {app.kubernetes.io/managed-by: Helm}
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            limits:
              memory: 128Mi
```

## How to fix
Set `resources.requests.cpu`, `resources.requests.memory` and
`resources.limits.memory` (chart: the `resources` value; GPU Operator:
`devicePlugin.resources`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.nvidia import containers, operator, recognise
from gpulint.model.values.images import parse_image
from gpulint.model.values.paths import at_path
from gpulint.rules.api import (
    Container,
    Context,
    Document,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
)

rule = Rule(
    "GPU406",
    "device-plugin-resources-unset",
    Severity.NOTE,
    "A device plugin container without CPU and memory requests and a memory limit.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)

NEEDED = (("requests", "cpu"), ("requests", "memory"), ("limits", "memory"))


def missing(resources: Any) -> list[str]:
    resources = resources if isinstance(resources, dict) else {}
    found = []
    for section, name in NEEDED:
        if _set(resources, section, name):
            continue
        # A limit without a request is the request too: "Kubernetes copies the limit you
        # specified and uses it as the requested value" (kubernetes.io, Resource Management
        # for Pods and Containers).
        if section == "requests" and _set(resources, "limits", name):
            continue
        found.append(f"{section}.{name}")
    return found


def _set(resources: dict, section: str, name: str) -> bool:
    block = resources.get(section)
    return isinstance(block, dict) and block.get(name) not in (None, "")


def _message(what: str, gaps: list[str], gfd: bool = False) -> str:
    effect = "its GPU labels go stale" if gfd else "the node stops advertising its GPUs"
    return (
        f"{what} sets no {', '.join(gaps)}; under memory pressure the kubelet evicts "
        f"BestEffort and Burstable pods before Guaranteed ones of the same priority, and "
        f"{effect}"
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    view = operator.cluster_policy(resource)
    if view is not None:
        yield from _set_but_incomplete(view.field("devicePlugin", "resources"), "devicePlugin")
        return
    for container in containers.plugin_containers(resource):
        ref = parse_image(container.image)
        if ref is not None and ctx.project.publisher(ref) is not None:
            continue  # the plugin's own repository: sizing is left to whoever installs it
        gaps = missing(container.data.get("resources"))
        gfd = not containers.runs_plugin(container)
        if gaps:
            yield Report(
                container.path + ("resources",),
                _message(f"{_role(container)} container ({container.image})", gaps, gfd),
                container=container.name,
            )


@rule.document_check
def check_values(doc: Document, ctx: Context) -> Iterator[Report]:
    for where in recognise.place(doc.data, recognise.values_for(ctx.settings)):
        data = at_path(doc.data, where.prefix)
        if not isinstance(data, dict):
            continue
        if where.kind == recognise.DEVICE_PLUGIN_CHART and "resources" in data:
            found = (where.prefix + ("resources",), data["resources"])
            yield from _set_but_incomplete(found, "the chart's")
        elif where.kind == recognise.OPERATOR_CHART:
            view = operator.values_view(data, where.prefix)
            yield from _set_but_incomplete(view.field("devicePlugin", "resources"), "devicePlugin")


def _role(container: Container) -> str:
    return "the " + containers.role(container)


def _set_but_incomplete(found: tuple | None, what: str) -> Iterator[Report]:
    # An empty block is the chart's own default; a block someone filled in should be whole.
    if found is None or not isinstance(found[1], dict) or not found[1]:
        return
    gaps = missing(found[1])
    if gaps:
        yield Report(found[0], _message(f"{what} resources value", gaps))
