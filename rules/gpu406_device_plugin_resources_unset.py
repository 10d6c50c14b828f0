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

A pod at a critical priority (`priorityClassName: system-node-critical` or
`system-cluster-critical`) is never evicted by the kubelet, whatever its
requests: only a missing memory limit is reported there, as where the class is
still a placeholder (`${PRIORITY_CLASS}`). The chart and the
operator run the plugin at `system-node-critical` unless their values say
otherwise (the chart's `priorityClassName`, the operator's
`daemonsets.priorityClassName`, whose device plugin asset sets it when the
ClusterPolicy does not).

## Why it matters
Without requests the plugin pod is BestEffort: under memory pressure the
kubelet evicts it before Guaranteed pods of the same priority, and with it the
node stops advertising GPUs and reporting their health until it comes back.
Advice (a note): whether the node ever runs short of memory is not in the
manifests. A critical pod is exempt: the kubelet's eviction manager refuses
to evict it ("cannot evict a critical pod", `pkg/kubelet/eviction/
eviction_manager.go`; critical means a priority of at least 2000000000,
which both system priority classes have). Without a memory limit a leak in
the plugin can take memory from the GPU workloads beside it, and a
node-critical pod is the last the kernel's OOM killer picks.

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
from gpulint.model.values import placeholders
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
# Priority classes the kubelet never evicts (priority >= 2000000000, kubernetes.io "Pod
# Priority and Preemption"; kubelettypes.IsCriticalPod), and the priority they stand for.
CRITICAL_CLASSES = ("system-node-critical", "system-cluster-critical")
CRITICAL_PRIORITY = 2_000_000_000
# The class the device plugin chart's values.yaml and the operator's device plugin asset set.
DEFAULT_CLASS = "system-node-critical"


def missing(resources: Any, exempt: bool = False) -> list[str]:
    """The settings of NEEDED that ``resources`` lacks (``exempt``: requests do not count)."""
    resources = resources if isinstance(resources, dict) else {}
    found = []
    for section, name in NEEDED:
        if exempt and section == "requests":
            continue  # never evicted: requests do not decide its fate
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


def _message(what: str, gaps: list[str], gfd: bool = False, exempt: str | None = None) -> str:
    if exempt is not None:
        return (
            f"{what} sets no {', '.join(gaps)}; {exempt}, so a leak in it takes memory from "
            "the GPU workloads beside it"
        )
    effect = "its GPU labels go stale" if gfd else "the node stops advertising its GPUs"
    return (
        f"{what} sets no {', '.join(gaps)}; under memory pressure the kubelet evicts "
        f"BestEffort and Burstable pods before Guaranteed ones of the same priority, and "
        f"{effect}"
    )


def _exempt(priority_class: Any, priority: Any = None) -> str | None:
    """Why requests do not decide whether the pod is evicted: a critical priority, or a
    class not known yet (a placeholder); None when they do."""
    if priority_class in CRITICAL_CLASSES:
        return f"at {priority_class} priority the kubelet never evicts it"
    if placeholders.is_placeholder(priority_class):
        return "its priority class is filled in later (a critical one is never evicted)"
    numeric = isinstance(priority, int) and not isinstance(priority, bool)
    if numeric and priority >= CRITICAL_PRIORITY:
        return f"at priority {priority} the kubelet never evicts it"
    return None


def _exempt_in_values(block: Any) -> str | None:
    """:func:`_exempt` for values whose ``priorityClassName`` is in ``block``; the chart and
    the operator's device plugin asset use DEFAULT_CLASS where it is not set."""
    if not isinstance(block, dict) or "priorityClassName" not in block:
        return _exempt(DEFAULT_CLASS)
    return _exempt(block["priorityClassName"])


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    view = operator.cluster_policy(resource)
    if view is not None:
        exempt = _exempt_in_values(view.root.get("daemonsets"))
        yield from _set_but_incomplete(
            view.field("devicePlugin", "resources"), "devicePlugin", exempt
        )
        return
    for container in containers.plugin_containers(resource):
        ref = parse_image(container.image)
        if ref is not None and ctx.project.owns(ref):
            continue  # the plugin's own repository: sizing is left to whoever installs it
        spec = container.pod.spec
        exempt = _exempt(spec.get("priorityClassName"), spec.get("priority"))
        gaps = missing(container.data.get("resources"), exempt is not None)
        gfd = not containers.runs_plugin(container)
        if gaps:
            what = f"{_role(container)} container ({container.image})"
            yield Report(
                container.path + ("resources",),
                _message(what, gaps, gfd, exempt),
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
            yield from _set_but_incomplete(found, "the chart's", _exempt_in_values(data))
        elif where.kind == recognise.OPERATOR_CHART:
            view = operator.values_view(data, where.prefix)
            exempt = _exempt_in_values(data.get("daemonsets"))
            yield from _set_but_incomplete(
                view.field("devicePlugin", "resources"), "devicePlugin", exempt
            )


def _role(container: Container) -> str:
    return "the " + containers.role(container)


def _set_but_incomplete(found: tuple | None, what: str, exempt: str | None) -> Iterator[Report]:
    # An empty block is the chart's own default; a block someone filled in should be whole.
    if found is None or not isinstance(found[1], dict) or not found[1]:
        return
    gaps = missing(found[1], exempt is not None)
    if gaps:
        yield Report(found[0], _message(f"{what} resources value", gaps, exempt=exempt))
