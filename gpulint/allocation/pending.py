"""Whether a pending GPU pod fits now, and why not, in the scheduler model's words.

Each pending pod is judged alone against the free GPUs of the dump (pending pods do not
compete with each other here; the scheduler takes them one at a time). The reason is one
word:

- ``fragmentation``: the nodes that pass every other filter hold enough free GPUs
  together, but no single one holds what one pod asks;
- ``capacity``: they do not hold enough together, or hold room for only some of the pods;
- ``cordon``, ``taint``, ``selector``, ``node-name``: the nodes with room for the pod are
  rejected by that filter (the most common one among them).

``detail`` adds the scheduler's own ``FailedScheduling`` text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gpulint.allocation.model import PendingRow
from gpulint.core.record import record
from gpulint.model.scheduling import filters
from gpulint.model.scheduling.filters import Failure, PodRequirements
from gpulint.model.scheduling.inventory import Inventory
from gpulint.model.scheduling.nodes import NodeView
from gpulint.model.values.gpu_resources import total_gpus

WORDS = {
    filters.UNSCHEDULABLE: "cordon",
    filters.NODE_NAME: "node-name",
    filters.TAINTS: "taint",
    filters.AFFINITY: "selector",
    filters.RESOURCES: "capacity",
}
_ORDER = list(WORDS)  # the scheduler's order breaks ties between reasons


@record(frozen=True, slots=True)
class Waiting:
    """A GPU pod (or pod template) without a node."""

    namespace: str
    name: str
    req: PodRequirements
    pods: int = 1
    source: str = "pods"


@record(frozen=True, slots=True)
class Verdict:
    """A pending pod's outcome: whether it fits, and why not."""

    fits: bool
    reason: str
    detail: str


def _only_resources(found: list[Failure]) -> bool:
    return bool(found) and all(f.filter == filters.RESOURCES for f in found)


def _fragmentation(req: PodRequirements, nodes: list[NodeView], cluster: Inventory) -> str | None:
    """The detail when the free GPUs of ``nodes`` add up to the request but are split."""
    parts = []
    for resource, count in req.gpus:
        free = [filters.free_gpus(n, cluster.used(n), resource) for n in nodes]
        total = sum(f for f in free if f > 0)
        if total < count:
            return None
        parts.append(
            f"{total} {resource} free on {sum(f > 0 for f in free)} node(s) that take the pod, "
            f"at most {max(free)} on one; it needs {count}"
        )
    return "; ".join(parts)


def _blocker(names: Iterable[str], firsts: dict[str, Failure | None]) -> str:
    """The filter that rejects most of these nodes (scheduler order breaks ties)."""
    counts: dict[str, int] = {}
    for name in names:
        failure = firsts[name]
        if failure is not None:
            counts[failure.filter] = counts.get(failure.filter, 0) + 1
    return min(counts, key=lambda f: (-counts[f], _ORDER.index(f)))


def judge(req: PodRequirements, pods: int, cluster: Inventory) -> Verdict:
    """Whether ``pods`` pods of ``req`` can all be placed now, and if not, why."""
    firsts = cluster.evaluate(req)
    taking = [n for n in cluster.nodes if firsts[n.name] is None]
    room = sum(filters.pods_fitting(req, n, cluster.used(n)) for n in taking)
    if room >= pods:
        return Verdict(True, "", "")
    event = filters.event_message(len(cluster.nodes), firsts.values())
    if room:
        return Verdict(False, "capacity", f"room for {room} of {pods} pods now; {event}")
    every = cluster.judge(req, filters.failures)
    candidates = [n for n in cluster.nodes if _only_resources(every[n.name])]
    split = _fragmentation(req, candidates, cluster) if candidates else None
    if split:
        return Verdict(False, "fragmentation", f"{split}; {event}")
    roomy = [
        n.name
        for n in cluster.nodes
        if every[n.name] and not any(f.filter == filters.RESOURCES for f in every[n.name])
    ]
    if not roomy:
        return Verdict(False, "capacity", event)
    return Verdict(False, WORDS[_blocker(roomy, firsts)], event)


def pending_rows(waiting: Iterable[Waiting], cluster: Inventory) -> Iterator[PendingRow]:
    """One row per waiting pod; pods of one template (same requirements) are judged once."""
    verdicts: dict[tuple[PodRequirements, int], Verdict] = {}
    for pod in waiting:
        key = (pod.req, pod.pods)
        verdict = verdicts.get(key)
        if verdict is None:
            verdict = verdicts[key] = judge(pod.req, pod.pods, cluster)
        yield PendingRow(
            namespace=pod.namespace,
            name=pod.name,
            gpus=total_gpus(pod.req.gpu_request),
            fits=verdict.fits,
            reason=verdict.reason,
            detail=verdict.detail,
            resources=pod.req.gpus,
            pods=pod.pods,
            source=pod.source,
        )
