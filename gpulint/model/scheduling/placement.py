"""Facts the cluster rules collect per file: Nodes, and GPU pod templates with what they ask.

Collected in whichever process lints the file, so everything here is small and
picklable; the cross-file decision (:mod:`gpulint.model.scheduling.filters`) happens once all
files are read.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import record, replace
from gpulint.model.kinds import table
from gpulint.model.resource import PodSpec, Resource, shared
from gpulint.model.scheduling.filters import PodRequirements, pod_requirements
from gpulint.model.scheduling.nodes import NodeView, is_node, node_view


@record(frozen=True, slots=True)
class NodeFact:
    """A Node of the run and the file it came from."""

    node: NodeView
    file: str


@record(frozen=True, slots=True)
class DraServed:
    """A DeviceClass that serves an extended resource through DRA (KEP-5004): the scheduler
    allocates it from ResourceSlices, not from the nodes' allocatable."""

    resource: str


@record(frozen=True, slots=True)
class PodFact:
    """One pod template of a workload that asks for GPUs."""

    workload: str  # "Deployment ml/train"
    key: tuple  # (file, document index, path of the object): which resource, across files
    kind: str
    role: str | None
    pods: int | None  # pods it stands for; None: one per eligible node (DaemonSet) or a template
    req: PodRequirements
    gpu_anchor: Any  # rules.anchor.Anchor: the pod's first GPU limit (or request)
    replicas_anchor: Any | None  # Anchor of the replicas/parallelism field, if written
    selector_anchors: tuple[tuple[tuple, Any], ...]  # requirement path -> Anchor


def _first_gpu_path(pod: PodSpec) -> tuple[tuple, str | None]:
    for container in pod.containers:
        for section in ("limits", "requests"):
            entries = container.data.get("resources")
            entries = entries.get(section) if isinstance(entries, dict) else None
            if not isinstance(entries, dict):
                continue
            for name in entries:
                if name in container.gpus:
                    return container.path + ("resources", section, name), container.name
    return pod.path, None


def replicas_path(pod: PodSpec) -> tuple | None:
    """The field that sets how many pods this template stands for, when it is written."""
    resource = pod.resource
    entry = table.lookup(resource.kind, resource.api_version)
    if entry is None:
        return None
    for site in entry.sites:
        for path, bound in table.match(resource.obj, site.spec):
            if path != pod.path:
                continue
            for pattern in site.replicas:
                concrete = table.bind(pattern, bound)
                if table.get(resource.obj, concrete) is not None:
                    return concrete
    return None


def pods_of(resource: Resource, pod: PodSpec) -> int | None:
    """Pods a template stands for; None: one per eligible node (DaemonSet) or a template."""
    if resource.kind == "DaemonSet" or resource.kind in table.TEMPLATE_KINDS:
        return None
    return 1 if pod.replicas is None else pod.replicas


def collect(resource: Resource, ctx: Any) -> list:
    """A NodeFact for a Node; a PodFact per GPU pod template of a workload.

    GPU210 and GPU211 both collect these: they are built once per resource and shared.
    """
    return shared(resource, _collect, ctx)


def _collect(resource: Resource, ctx: Any) -> list:
    if is_node(resource):
        return [NodeFact(node_view(resource), resource.doc.source.path)]
    if resource.kind == "DeviceClass" and resource.api_version.startswith("resource.k8s.io/"):
        spec = resource.obj.get("spec")
        name = spec.get("extendedResourceName") if isinstance(spec, dict) else None
        return [DraServed(name)] if isinstance(name, str) and name else []
    facts: list = []
    auto = bool(getattr(ctx.settings, "extended_resource_toleration", False))
    for pod in resource.pod_specs:
        gpus = pod.effective_gpus
        if not gpus:
            continue
        req = pod_requirements(pod.spec, gpus, auto_tolerate=auto)
        gpu_path, container = _first_gpu_path(pod)
        count_path = replicas_path(pod)
        anchors = tuple(
            (r.path, ctx.anchor(resource, pod.path + r.path))
            for r in req.node_selector + tuple(x for t in req.terms or () for x in t.labels)
            if r.operator == "In"
        )
        facts.append(
            PodFact(
                workload=resource.ref.label(),
                key=(resource.doc.source.path, resource.doc.index, resource.prefix),
                kind=resource.kind,
                role=pod.role,
                pods=pods_of(resource, pod),
                req=req,
                gpu_anchor=ctx.anchor(resource, gpu_path, container),
                replicas_anchor=ctx.anchor(resource, count_path) if count_path else None,
                selector_anchors=anchors,
            )
        )
    return facts


def split(facts: list) -> tuple[list[NodeView], list[PodFact]]:
    """Nodes (first definition of each name wins) and pod facts, in a stable order.

    GPU resources that a linted DeviceClass serves through DRA are taken out of the pods'
    requests: no Node object says how many of them the cluster has.
    """
    nodes: dict[str, NodeView] = {}
    pods: list[PodFact] = []
    dra = {f.resource for f in facts if isinstance(f, DraServed)}
    for fact in facts:
        if isinstance(fact, NodeFact):
            nodes.setdefault(fact.node.name, fact.node)
        elif isinstance(fact, PodFact):
            if dra & set(fact.req.gpu_request):
                gpus = tuple((r, c) for r, c in fact.req.gpus if r not in dra)
                fact = replace(fact, req=replace(fact.req, gpus=gpus))
            pods.append(fact)
    return [nodes[name] for name in sorted(nodes)], pods
