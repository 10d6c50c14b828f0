"""The nodes of a ``--cluster`` inventory, grouped into pools of identical nodes, so the
scheduler's filters (gpulint/model/scheduling/filters.py) run once per pool, not once per node."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpulint.model.scheduling.filters import Failure, PodRequirements, first_failure
from gpulint.model.scheduling.nodes import NodeView

HOSTNAME_LABEL = "kubernetes.io/hostname"


class Inventory:
    """The nodes and what running pods hold on them, grouped into pools of identical nodes
    (same labels but the hostname, taints, cordon, GPUs): a pod is judged once per pool
    unless it names nodes (``nodeName``, ``matchFields``, the hostname label)."""

    def __init__(self, nodes: Iterable[NodeView], usage: Mapping[str, Mapping[str, int]]):
        self.nodes = list(nodes)
        self.usage = usage
        pools: dict[tuple, list[NodeView]] = {}
        for node in self.nodes:
            labels = tuple(sorted((k, v) for k, v in node.labels.items() if k != HOSTNAME_LABEL))
            used = tuple(sorted((usage.get(node.name) or {}).items()))
            allocatable = tuple(sorted(node.allocatable.items()))
            key = (labels, node.taints, node.unschedulable, allocatable, used)
            pools.setdefault(key, []).append(node)
        self.pools = list(pools.values())
        self._names = [[n.name for n in pool] for pool in self.pools]

    def used(self, node: NodeView) -> Mapping[str, int] | None:
        return self.usage.get(node.name)

    def _per_node(self, req: PodRequirements) -> bool:
        terms = req.terms or ()
        return (
            req.node_name is not None
            or any(t.names for t in terms)
            or any(r.key == HOSTNAME_LABEL for r in req.node_selector)
            or any(r.key == HOSTNAME_LABEL for t in terms for r in t.labels)
        )

    def judge(self, req: PodRequirements, decide: Callable) -> dict[str, Any]:
        """``decide(req, node, used)`` for every node, computed once per pool when it can be."""
        if self._per_node(req):
            return {n.name: decide(req, n, self.used(n)) for n in self.nodes}
        found: dict[str, Any] = {}
        for pool, names in zip(self.pools, self._names, strict=True):
            found.update(dict.fromkeys(names, decide(req, pool[0], self.used(pool[0]))))
        return found

    def evaluate(self, req: PodRequirements) -> dict[str, Failure | None]:
        """The first failing filter of every node (None: the node takes the pod), by name."""
        return self.judge(req, first_failure)
