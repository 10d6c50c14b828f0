"""
## What it checks
With a cluster inventory (`--cluster`, or Node objects among the linted files), a
workload whose pods each fit on some node, but whose pods all together need more
GPUs than the nodes that can take them have: replicas times pods per template
(Deployment, StatefulSet and ReplicaSet `replicas`, Job `parallelism`, the
replicas of each role of a training CRD). Pods are packed whole, so a node with
8 GPUs holds two pods of 3 GPUs, not 2.67. Roles of one workload that compete for
the same nodes are added up per GPU resource.

This is capacity, not free space: Node objects do not say what running pods
already hold. Pass `--pods` with `kubectl get pods -A -o yaml` to subtract the
GPUs held by pods bound to each node.

## Why it matters
The first pods start, the rest stay `Pending` with `Insufficient nvidia.com/gpu`.
For a distributed training job whose workers must all be up, that is a job that
holds GPUs and never makes progress.

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-h100-1
  labels:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
status:
  allocatable:
    nvidia.com/gpu: "8"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: llm
spec:
  serviceName: llm
  replicas: 3  # <- GPU211
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.0
          resources:
            limits:
              nvidia.com/gpu: 4
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-h100-1
  labels:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
status:
  allocatable:
    nvidia.com/gpu: "8"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: llm
spec:
  serviceName: llm
  replicas: 2
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.0
          resources:
            limits:
              nvidia.com/gpu: 4
```

## How to fix
Lower the replica count or the GPUs per pod, widen the selector to more GPU
nodes, or add nodes. If the inventory is old, dump it again with
`kubectl get nodes -o yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpulint.model.scheduling import filters, placement
from gpulint.model.scheduling.inventory import Inventory
from gpulint.model.scheduling.nodes import NodeView
from gpulint.model.scheduling.placement import PodFact
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, kind_is

rule = Rule(
    "GPU211",
    "gpu-capacity-short",
    Severity.WARNING,
    "The workload's pods together need more GPUs than the nodes that can take them have.",
    __doc__,
    partner=kind_is("Node"),
)

_SHOWN_NODES = 3


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    return placement.collect(resource, ctx)


def eligible(fact: PodFact, cluster: Inventory) -> list[NodeView]:
    """Nodes that take one of these pods (the kubelet alone decides for a bound pod)."""
    nodes, usage = cluster.nodes, cluster.usage
    if fact.req.node_name is not None:
        return [
            n
            for n in nodes
            if n.name == fact.req.node_name
            and filters.kubelet_failure(fact.req, n, usage.get(n.name)) is None
        ]
    firsts = cluster.evaluate(fact.req)
    return [n for n in nodes if firsts[n.name] is None]


def _names(nodes: list[NodeView]) -> str:
    names = ", ".join(n.name for n in nodes[:_SHOWN_NODES])
    more = len(nodes) - _SHOWN_NODES
    return names + (f" and {more} more" if more > 0 else "")


def _capacity(nodes: list[NodeView], usage: Mapping, resource: str) -> tuple[int, int]:
    """(allocatable, held by running pods) of one resource over these nodes."""
    total = sum(n.gpu_total(resource) for n in nodes)
    held = sum(min(usage.get(n.name, {}).get(resource, 0), n.gpu_total(resource)) for n in nodes)
    return total, held


def _space_note(usage: Mapping) -> str:
    if usage:
        return "GPUs held by the running pods of --pods are subtracted"
    return (
        "this is capacity, not free space: GPUs already held by running pods are not "
        "counted (pass --pods to subtract them)"
    )


def _have(nodes: list[NodeView], usage: Mapping, resource: str) -> str:
    total, held = _capacity(nodes, usage, resource)
    text = f"{total} {resource} allocatable"
    return text + (f", {held} held by running pods" if held else "")


def _role_short(fact: PodFact, cluster: Inventory) -> str | None:
    usage = cluster.usage
    if not fact.pods or not fact.req.gpus:  # one pod per node, a template, or GPUs via DRA
        return None
    fits = eligible(fact, cluster)
    if not fits:
        return None
    room = sum(filters.pods_fitting(fact.req, n, usage.get(n.name)) for n in fits)
    if room >= fact.pods:
        return None
    role = f" (role {fact.role})" if fact.role else ""
    per_pod = " + ".join(f"{c} {r}" for r, c in fact.req.gpus)
    totals = " + ".join(f"{c * fact.pods} {r}" for r, c in fact.req.gpus)
    have = "; ".join(_have(fits, usage, r) for r, _ in fact.req.gpus)
    short = ", ".join(f'"Insufficient {r}"' for r, _ in fact.req.gpus)
    return (
        f"{fact.workload}{role} runs {fact.pods} pods of {per_pod} = {totals}, but the "
        f"{len(fits)} node(s) that can take them ({_names(fits)}) have {have}: room for "
        f"{room} pod(s) at once, {fact.pods - room} would stay Pending with {short}; "
        f"{_space_note(usage)}"
    )


def _workload_short(facts: list[PodFact], cluster: Inventory) -> str | None:
    """Roles of one workload compete for the same nodes: compare totals per resource."""
    usage = cluster.usage
    if len(facts) < 2:
        return None
    # Roles no node takes are GPU210's; they would only inflate the demand here.
    counted = [f for f in facts if f.pods and f.req.gpus and eligible(f, cluster)]
    if len(counted) < 2:
        return None
    for resource in sorted({r for f in counted for r, _ in f.req.gpus}):
        askers = [f for f in counted if resource in f.req.gpu_request]
        demand = sum((f.pods or 0) * f.req.gpu_request[resource] for f in askers)
        union: dict[str, NodeView] = {}
        for fact in askers:
            union.update((n.name, n) for n in eligible(fact, cluster))
        pool = [union[name] for name in sorted(union)]
        if not pool:
            continue
        total, held = _capacity(pool, usage, resource)
        if demand <= total - held:
            continue
        parts = ", ".join(
            f"{f.role or 'pods'} {f.pods} x {f.req.gpu_request[resource]}" for f in askers
        )
        return (
            f"{facts[0].workload} needs {demand} {resource} across its roles ({parts}), but "
            f"the {len(pool)} node(s) that can take them ({_names(pool)}) have "
            f"{_have(pool, usage, resource)}; {_space_note(usage)}"
        )
    return None


@rule.finalizer
def finalize(facts: list, ctx: Context) -> Iterator[Report]:
    nodes, pods = placement.split(facts)
    if not nodes:
        return
    cluster = Inventory(nodes, ctx.settings.cluster.usage)
    workloads: dict[tuple, list[PodFact]] = {}
    for fact in pods:
        workloads.setdefault(fact.key, []).append(fact)
    for group in workloads.values():
        reported = False
        for fact in group:
            message = _role_short(fact, cluster)
            if message:
                yield Report.placed(fact.replicas_anchor or fact.gpu_anchor, message)
                reported = True
                break
        if not reported:
            message = _workload_short(group, cluster)
            if message:
                first = group[0]
                yield Report.placed(first.replicas_anchor or first.gpu_anchor, message)
