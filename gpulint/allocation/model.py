"""The allocation report as plain typed data: GPU nodes, products, namespaces, owners and
pending pods. Built from a cluster's Node views and what its pods hold; the writers
(``text.py``, ``json_out.py``, ``html.py``) read these records and nothing else.

Counts are the scheduler's: ``allocatable`` is ``status.allocatable``, ``allocated`` the
effective requests of the pods bound to the node and not finished.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpulint.core.record import field, record
from gpulint.model.scheduling.nodes import UNSCHEDULABLE_TAINT, NodeView
from gpulint.model.scheduling.profile_facts import gpu_model
from gpulint.model.values.gpu_resources import is_mig_resource, is_shared_resource

UNKNOWN_PRODUCT = "unknown"
# GPU feature discovery's labels for time-slicing and MPS: each GPU is advertised this many times.
REPLICAS_LABEL = "nvidia.com/gpu.replicas"
SHARING_LABEL = "nvidia.com/gpu.sharing-strategy"
# Taints the node lifecycle controller sets on a node that takes no new pod.
_NOT_TAKING = {
    UNSCHEDULABLE_TAINT: "cordoned",
    "node.kubernetes.io/not-ready": "not ready",
    "node.kubernetes.io/unreachable": "unreachable",
}


def is_whole_gpu(resource: str) -> bool:
    """A resource a pod gets whole devices of (not a MIG slice, not a shared replica)."""
    return not is_mig_resource(resource) and not is_shared_resource(resource)


def whole_gpus(counts: Mapping[str, int]) -> int:
    return sum(c for r, c in counts.items() if is_whole_gpu(r))


@record(frozen=True, slots=True)
class Usage:
    """One GPU resource on one node."""

    resource: str
    allocatable: int
    allocated: int

    @property
    def free(self) -> int:
        return max(self.allocatable - self.allocated, 0)


@record(frozen=True, slots=True)
class NodeRow:
    """A node that advertises GPUs; the counts are whole GPUs (MIG and shared apart)."""

    name: str
    product: str
    allocatable: int
    allocated: int
    free: int
    schedulable: bool
    unschedulable_reason: str  # "" when schedulable
    resources: tuple[Usage, ...]  # every GPU resource the node advertises
    sharing: str | None = None  # time-slicing or mps, where GPU feature discovery says
    replicas: int | None = None  # times each GPU is advertised under sharing

    @property
    def mig(self) -> tuple[Usage, ...]:
        return tuple(u for u in self.resources if is_mig_resource(u.resource))

    @property
    def shared(self) -> tuple[Usage, ...]:
        return tuple(u for u in self.resources if is_shared_resource(u.resource))


@record(frozen=True, slots=True)
class ProductRow:
    """The nodes of one GPU product, summed; ``largest_free`` is the most whole GPUs one new
    pod can get on a single schedulable node (the rest of the free GPUs are fragments)."""

    product: str
    nodes: int
    allocatable: int
    allocated: int
    free: int
    free_schedulable: int
    largest_free: int


@record(frozen=True, slots=True)
class NamespaceRow:
    """GPUs held by the pods of one namespace."""

    namespace: str
    allocated: int  # whole GPUs
    pods: int
    resources: tuple[tuple[str, int], ...]  # every GPU resource held, by name


@record(frozen=True, slots=True)
class OwnerRow:
    """A workload that owns GPU pods, as the pods' controller ownerReference names it."""

    namespace: str
    kind: str
    name: str
    allocated: int
    pods: int


@record(frozen=True, slots=True)
class PendingRow:
    """A GPU pod without a node: from the pod dump, or a manifest's pod template."""

    namespace: str
    name: str
    gpus: int  # per pod, every GPU resource counted
    fits: bool  # all the pods it stands for can be placed now
    reason: str  # "" when it fits; fragmentation, capacity, cordon, taint, selector, node-name
    detail: str
    resources: tuple[tuple[str, int], ...]
    pods: int = 1
    source: str = "pods"  # "pods" (the dump) or the manifest's file


@record(frozen=True, slots=True)
class Report:
    """The whole report, in the order the writers show it."""

    nodes: tuple[NodeRow, ...]
    products: tuple[ProductRow, ...]
    namespaces: tuple[NamespaceRow, ...]
    owners: tuple[OwnerRow, ...]
    pending: tuple[PendingRow, ...]
    notes: tuple[str, ...] = field(default=())


def _label_int(labels: Mapping[str, str], key: str) -> int | None:
    value = labels.get(key, "")
    return int(value) if value.isdigit() else None


def node_row(node: NodeView, used: Mapping[str, int] | None) -> NodeRow | None:
    """The node's GPU row; None for a node without GPUs (it is no GPU node)."""
    if not any(node.allocatable.values()):
        return None
    used = used or {}
    resources = tuple(
        Usage(r, node.allocatable.get(r, 0), used.get(r, 0))
        for r in sorted(set(node.allocatable) | set(used))
    )
    whole = [u for u in resources if is_whole_gpu(u.resource)]
    reason = "cordoned" if node.unschedulable else ""
    for taint in node.taints:
        if not reason and taint.effect in ("NoSchedule", "NoExecute"):
            reason = _NOT_TAKING.get(taint.key, "")
    return NodeRow(
        name=node.name,
        product=gpu_model(node.labels) or UNKNOWN_PRODUCT,
        allocatable=sum(u.allocatable for u in whole),
        allocated=sum(u.allocated for u in whole),
        free=sum(u.free for u in whole),
        schedulable=not reason,
        unschedulable_reason=reason,
        resources=resources,
        sharing=node.labels.get(SHARING_LABEL) or None,
        replicas=_label_int(node.labels, REPLICAS_LABEL),
    )


def product_rows(nodes: Iterable[NodeRow]) -> tuple[ProductRow, ...]:
    by_product: dict[str, list[NodeRow]] = {}
    for node in nodes:
        by_product.setdefault(node.product, []).append(node)
    rows = []
    for product in sorted(by_product):
        group = by_product[product]
        open_free = [n.free for n in group if n.schedulable]
        rows.append(
            ProductRow(
                product=product,
                nodes=len(group),
                allocatable=sum(n.allocatable for n in group),
                allocated=sum(n.allocated for n in group),
                free=sum(n.free for n in group),
                free_schedulable=sum(open_free),
                largest_free=max(open_free, default=0),
            )
        )
    return tuple(rows)


def extras(node: NodeRow) -> str:
    """MIG slices and shared replicas in a few words: ``nvidia.com/mig-1g.5gb 2/4 held``."""
    parts = [f"{u.resource} {u.allocated}/{u.allocatable} held" for u in node.mig + node.shared]
    if node.sharing and node.sharing != "none":
        replicas = f", {node.replicas} per GPU" if node.replicas else ""
        parts.append(f"{node.sharing}{replicas}")
    return "; ".join(parts)


def held_text(resources: Iterable[tuple[str, int]]) -> str:
    """GPU resources other than whole GPUs, for namespaces and pending pods."""
    return ", ".join(f"{c} {r}" for r, c in resources if not is_whole_gpu(r))
