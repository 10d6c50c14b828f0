"""
## What it checks
With a cluster inventory (`gpulint check --cluster nodes.yaml`, or Node objects
among the linted files), every pod template that asks for GPUs, of every
workload kind, is run through the scheduler's filters against every Node:
cordoned nodes (`spec.unschedulable`), `nodeName`, `NoSchedule`/`NoExecute`
taints against the pod's tolerations, `nodeSelector` and required node affinity
(`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, terms ORed), and the
node's allocatable GPU resources (`nvidia.com/gpu`, `nvidia.com/mig-*`, shared
GPUs) against the pod's effective request. It reports a template no node can
take, with the scheduler's own event text: how many nodes each reason rules out.
`--verbose` adds, per node, the first filter it fails. When a single label value
is all that keeps the pod off an otherwise suitable node (the selector pins a
value, the node carries the same key with another value, as after swapping the
GPUs under a node pool), the message names that node and that label.

## Why it matters
Such a pod stays `Pending` forever. The only trace is a `FailedScheduling` event
("0/12 nodes are available: ...") that someone has to find after the deploy and
decode node by node with `kubectl describe`.

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-1
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
    nvidia.com/gpu.memory: "40536"
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
status:
  allocatable:
    nvidia.com/gpu: "8"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  replicas: 2
  selector:
    matchLabels: {app: infer}
  template:
    metadata:
      labels: {app: infer}
    spec:
      nodeSelector:
        nvidia.com/gpu.memory: "15360"  # <- GPU210
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: server
          image: nvcr.io/nvidia/tritonserver:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-1
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
    nvidia.com/gpu.memory: "40536"
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
status:
  allocatable:
    nvidia.com/gpu: "8"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  replicas: 2
  selector:
    matchLabels: {app: infer}
  template:
    metadata:
      labels: {app: infer}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: server
          image: nvcr.io/nvidia/tritonserver:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## How to fix
Read the reasons in the message: select labels the nodes carry today (prefer
`nvidia.com/gpu.product` or `nvidia.com/gpu.family` over memory sizes), tolerate
the GPU nodes' taint, ask for a GPU resource the nodes advertise (a MIG profile
only exists on MIG-partitioned nodes), and ask for no more GPUs per pod than one
node has. If the inventory is old, dump it again with `kubectl get nodes -o yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpulint.model.node_requirements import LabelRequirement
from gpulint.model.scheduling import filters as scheduler
from gpulint.model.scheduling import placement
from gpulint.model.scheduling.inventory import Inventory
from gpulint.model.scheduling.nodes import NodeView
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, kind_is

rule = Rule(
    "GPU210",
    "gpu-unschedulable",
    Severity.ERROR,
    "No node of the cluster inventory can take this GPU pod; it would stay Pending.",
    __doc__,
    partner=kind_is("Node"),
)

_SHOWN_NODES = 3  # stale-label nodes named in the message before "and N more"
_SHOWN_LABELS = 2


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    return placement.collect(resource, ctx)


def _asks(fact: placement.PodFact) -> str:
    role = f" (role {fact.role})" if fact.role else ""
    if not fact.req.gpus:
        return f"the pod{role} gets its GPUs through DRA"
    gpus = ", ".join(f"{count} {name}" for name, count in fact.req.gpus)
    return f"the pod{role} needs {gpus}"


def _kubelet_text(fact: placement.PodFact, node: NodeView, used: Mapping) -> str:
    """What the kubelet says when it rejects a bound pod for lack of GPUs."""
    texts = []
    for name, count in fact.req.gpus:
        held = used.get(name, 0)
        if count > node.gpu_total(name) - held:
            texts.append(
                f"\"Node didn't have enough resource: {name}, requested: {count}, "
                f'used: {held}, capacity: {node.gpu_total(name)}" (OutOf{name})'
            )
    return "; ".join(texts)


def _bound(fact: placement.PodFact, cluster: Inventory) -> str | None:
    """Verdict for a pod with spec.nodeName, which the kubelet admits without the scheduler."""
    name = fact.req.node_name
    node = next((n for n in cluster.nodes if n.name == name), None)
    if node is None:
        return (
            f'spec.nodeName binds the pod to node "{name}", which is not among the '
            f"{len(cluster.nodes)} node(s) of the inventory; the pod never starts"
        )
    used = cluster.used(node) or {}
    failure = scheduler.kubelet_failure(fact.req, node, used)
    if failure is None:
        return None
    if failure.filter == scheduler.RESOURCES:
        why = _kubelet_text(fact, node, used)
    else:
        why = f"{failure.reasons[0]} ({failure.detail})"
    return (
        f'spec.nodeName binds the pod to node "{name}", bypassing the scheduler; '
        f"{_asks(fact)} and the kubelet there rejects it: {why}"
    )


def _stale(fact: placement.PodFact, cluster: Inventory) -> tuple[str, tuple]:
    """Text and requirement path when one label value alone keeps the pod off some nodes."""
    groups: dict[tuple, tuple[LabelRequirement, list[NodeView]]] = {}
    stale = cluster.judge(fact.req, scheduler.stale_label)
    for node in cluster.nodes:
        req = stale[node.name]
        if req is not None:
            groups.setdefault(req.path, (req, []))[1].append(node)
    if not groups:
        return "", ()
    texts = []
    for req, hits in list(groups.values())[:_SHOWN_LABELS]:
        shown = ", ".join(f'{n.name} has "{n.labels.get(req.key)}"' for n in hits[:_SHOWN_NODES])
        more = f" and {len(hits) - _SHOWN_NODES} more" if len(hits) > _SHOWN_NODES else ""
        wanted = req.values[0] if req.values else ""
        texts.append(
            f"only the label {req.key} stands in the way on {len(hits)} node(s) that pass every "
            f'other filter: the pod asks for {req.key}="{wanted}", {shown}{more}'
        )
    text = "; ".join(texts)
    return (
        f" {text[0].upper()}{text[1:]}; if the label went stale when the hardware changed, "
        "update the selector or relabel the node(s).",
        next(iter(groups)),
    )


def _verbose(cluster: Inventory, firsts: dict) -> str:
    lines = [
        f"\n  {node.name}: {firsts[node.name].filter}: {firsts[node.name].detail}"
        for node in cluster.nodes
        if firsts.get(node.name) is not None
    ]
    return "".join(lines)


def verdict(
    fact: placement.PodFact, cluster: Inventory, verbose: bool = False
) -> tuple[str, tuple] | None:
    """(message, requirement path to report at, or ()) when no node takes the pod."""
    if fact.req.node_name is not None:
        message = _bound(fact, cluster)
        return (message, ()) if message else None
    firsts = cluster.evaluate(fact.req)
    if any(f is None for f in firsts.values()):
        return None
    event = scheduler.event_message(len(cluster.nodes), firsts.values())
    stale_text, stale_path = _stale(fact, cluster)
    message = f'no node can take this pod: {_asks(fact)}; the scheduler would report "{event}"'
    message += stale_text
    if verbose:
        message += _verbose(cluster, firsts)
    return message, stale_path


@rule.finalizer
def finalize(facts: list, ctx: Context) -> Iterator[Report]:
    nodes, pods = placement.split(facts)
    if not nodes:
        return
    cluster = Inventory(nodes, ctx.settings.cluster.usage)
    for fact in pods:
        found = verdict(fact, cluster, ctx.settings.verbose)
        if found is None:
            continue
        message, path = found
        anchors = dict(fact.selector_anchors)
        yield Report.placed(anchors.get(path, fact.gpu_anchor), message)
