"""The kube-scheduler's filters that decide where a GPU pod can go, as pure functions.

Filters run in the default profile's order (``pkg/scheduler/apis/config/v1/default_plugins.go``):
NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, then NodeResourcesFit; the
scheduler stops at the first filter that rejects a node, so each node adds the reasons of that
filter to the ``FailedScheduling`` event. Reason strings are the plugins' own:

- NodeUnschedulable ``ErrReasonUnschedulable``: "node(s) were unschedulable"
- NodeName ``ErrReason``: "node(s) didn't match the requested node name"
- TaintToleration: "node(s) had untolerated taint {<key>: <value>}" (NoSchedule, NoExecute)
- NodeAffinity ``ErrReasonPod``: "node(s) didn't match Pod's node affinity/selector"
- NodeResourcesFit: "Insufficient <resource>" (one per short resource)

The event is ``FitError.Error()``: "0/<n> nodes are available: " then "<count> <reason>" entries
sorted as strings and joined by ", ", then ".". A pod with ``spec.nodeName`` never reaches the
scheduler: the kubelet admits it, checking only NoExecute taints, node affinity and resources
(``pkg/kubelet/lifecycle/predicate.go``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from gpulint.core.record import field, record
from gpulint.model import node_requirements as scheduling
from gpulint.model.node_requirements import LabelRequirement, Toleration
from gpulint.model.scheduling.nodes import BLOCKING_EFFECTS, UNSCHEDULABLE_TAINT, NodeView, Taint

UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINTS = "TaintToleration"
AFFINITY = "NodeAffinity"
RESOURCES = "NodeResourcesFit"

REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"

# Labels that name a node or its place rather than its hardware: a pod pinned to another
# value of these was pinned on purpose, so such a mismatch is never called stale.
PLACEMENT_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "kubernetes.io/os",
        "kubernetes.io/arch",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "cloud.google.com/gke-nodepool",
        "eks.amazonaws.com/nodegroup",
        "kubernetes.azure.com/agentpool",
        "agentpool",
        "karpenter.sh/nodepool",
    }
)


@record(frozen=True, slots=True)
class Term:
    """One required node-affinity term: every requirement must hold (terms are ORed)."""

    labels: tuple[LabelRequirement, ...]
    names: tuple[LabelRequirement, ...] = ()  # matchFields on metadata.name, key "metadata.name"


@record(frozen=True, slots=True)
class PodRequirements:
    """What a pod asks of a node: labels, affinity terms, tolerations, GPUs."""

    node_selector: tuple[LabelRequirement, ...] = ()
    terms: tuple[Term, ...] | None = None  # None: no required node affinity
    tolerations: tuple[Toleration, ...] = ()
    node_name: str | None = None
    gpus: tuple[tuple[str, int], ...] = ()  # effective request per GPU resource

    @property
    def gpu_request(self) -> dict[str, int]:
        return dict(self.gpus)


@record(frozen=True, slots=True)
class Failure:
    """Why a node cannot take a pod, in the scheduler's words."""

    filter: str
    reasons: tuple[str, ...]  # as the scheduler words them in its event
    # What exactly differs on this node, worded only when asked (most failures are only counted).
    explain: Callable[[], str] = field(default=lambda: "", compare=False, repr=False)

    @property
    def detail(self) -> str:
        return self.explain()


def _match_fields(term: Any, index: int) -> tuple[LabelRequirement, ...]:
    fields = term.get("matchFields") if isinstance(term, dict) else None
    if not isinstance(fields, list):
        return ()
    found = []
    for f, expr in enumerate(fields):
        # metadata.name is the only field the API accepts in matchFields.
        if isinstance(expr, dict) and expr.get("key") == "metadata.name":
            values = expr.get("values")
            found.append(
                LabelRequirement(
                    "metadata.name",
                    str(expr.get("operator", "")),
                    tuple(str(v) for v in values) if isinstance(values, list) else (),
                    scheduling.REQUIRED_AFFINITY + (index, "matchFields", f),
                    index,
                )
            )
    return tuple(found)


def _terms(spec: dict) -> tuple[Term, ...] | None:
    raw: Any = spec
    for step in scheduling.REQUIRED_AFFINITY:
        raw = raw.get(step) if isinstance(raw, dict) else None
    if not isinstance(raw, list) or not raw:
        return None  # absent, or empty (which the API server rejects anyway)
    by_term: dict[int | None, list[LabelRequirement]] = {}
    for term in scheduling.affinity_terms(spec):
        for req in term:
            by_term.setdefault(req.term, []).append(req)
    terms = []
    for index, term in enumerate(raw):
        if isinstance(term, dict):
            terms.append(Term(tuple(by_term.get(index, ())), _match_fields(term, index)))
    return tuple(terms)


def pod_requirements(
    spec: dict, gpus: Mapping[str, int], auto_tolerate: bool = False
) -> PodRequirements:
    """What a pod spec asks of a node. ``auto_tolerate``: the ExtendedResourceToleration
    admission plugin adds ``{key: <resource>, operator: Exists, effect: NoSchedule}`` for
    every extended resource the pod requests."""
    tolerations = list(scheduling.tolerations(spec))
    if auto_tolerate:
        tolerations += [Toleration(name, "Exists", None, "NoSchedule", ()) for name in gpus]
    node_name = spec.get("nodeName")
    return PodRequirements(
        node_selector=tuple(scheduling.node_selector(spec)),
        terms=_terms(spec),
        tolerations=tuple(tolerations),
        node_name=str(node_name) if node_name not in (None, "") else None,
        gpus=tuple(sorted((k, v) for k, v in gpus.items() if v > 0)),
    )


# --- the filters --------------------------------------------------------------------------------


def _tolerated(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)


def _unschedulable(req: PodRequirements, node: NodeView) -> Failure | None:
    if not node.unschedulable:
        return None
    if _tolerated(req.tolerations, Taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")):
        return None
    return Failure(
        UNSCHEDULABLE, (REASON_UNSCHEDULABLE,), lambda: "cordoned (spec.unschedulable: true)"
    )


def _node_name(req: PodRequirements, node: NodeView) -> Failure | None:
    if req.node_name is None or req.node_name == node.name:
        return None
    return Failure(NODE_NAME, (REASON_NODE_NAME,), lambda: f'the pod names node "{req.node_name}"')


def untolerated_taint(
    req: PodRequirements, node: NodeView, effects: tuple[str, ...] = BLOCKING_EFFECTS
) -> Taint | None:
    """The first taint, in the node's order, that the pod does not tolerate."""
    for taint in node.taints:
        if taint.effect in effects and not _tolerated(req.tolerations, taint):
            return taint
    return None


def _taints(req: PodRequirements, node: NodeView) -> Failure | None:
    taint = untolerated_taint(req, node)
    if taint is None:
        return None
    reason = f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"
    return Failure(TAINTS, (reason,), lambda: f"taint {taint} is not tolerated")


def _allows(req: LabelRequirement, node: NodeView) -> bool:
    if "matchFields" in req.path:
        return req.allows(node.name)
    return req.allows(node.labels.get(req.key))


def failed_requirements(req: PodRequirements, node: NodeView) -> list[LabelRequirement]:
    """Label requirements the node misses: the node selector's, then the closest term's."""
    missed = [r for r in req.node_selector if not _allows(r, node)]
    if req.terms is not None:
        best: list[LabelRequirement] | None = None
        for term in req.terms:
            misses = [r for r in term.labels + term.names if not _allows(r, node)]
            if not term.labels and not term.names:
                continue  # an empty term matches no node; it explains nothing
            if best is None or len(misses) < len(best):
                best = misses
            if not misses:
                break
        if best is None:
            return missed or []
        missed.extend(best)
    return missed


def _affinity_matches(req: PodRequirements, node: NodeView) -> bool:
    if not all(_allows(r, node) for r in req.node_selector):
        return False
    if req.terms is None:
        return True
    return any(
        (term.labels or term.names) and all(_allows(r, node) for r in term.labels + term.names)
        for term in req.terms
    )


def describe_requirement(req: LabelRequirement, node: NodeView) -> str:
    if "matchFields" in req.path:
        actual: str | None = node.name
    else:
        actual = node.labels.get(req.key)
    have = f'the node has "{actual}"' if actual is not None else "the node has no such label"
    if req.term is None:
        want = f"nodeSelector {req.key}={req.values[0] if req.values else ''}"
    else:
        values = ", ".join(req.values)
        want = f"affinity {req.key} {req.operator}" + (f" [{values}]" if values else "")
    return f"{want}: {have}"


def _affinity(req: PodRequirements, node: NodeView) -> Failure | None:
    if _affinity_matches(req, node):
        return None

    def explain() -> str:
        missed = failed_requirements(req, node)
        return describe_requirement(missed[0], node) if missed else "no affinity term matches"

    return Failure(AFFINITY, (REASON_AFFINITY,), explain)


def free_gpus(node: NodeView, used: Mapping[str, int] | None, resource: str) -> int:
    return node.gpu_total(resource) - (used or {}).get(resource, 0)


def _resources(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None
) -> Failure | None:
    short = [(r, c) for r, c in req.gpus if c > free_gpus(node, used, r)]
    if not short:
        return None

    def explain() -> str:
        details = []
        for resource, count in short:
            held = f", {used.get(resource, 0)} in use" if used and used.get(resource) else ""
            details.append(
                f"{resource}: the pod needs {count}, the node has "
                f"{node.gpu_total(resource)} allocatable{held}"
            )
        return "; ".join(details)

    return Failure(RESOURCES, tuple(f"Insufficient {r}" for r, _ in short), explain)


def _failing(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None
) -> Iterator[Failure]:
    for check in (_unschedulable, _node_name, _taints, _affinity):
        failure = check(req, node)
        if failure is not None:
            yield failure
    failure = _resources(req, node, used)
    if failure is not None:
        yield failure


def failures(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None = None
) -> list[Failure]:
    """Every filter the node fails, in the scheduler's order."""
    return list(_failing(req, node, used))


def first_failure(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None = None
) -> Failure | None:
    """The filter that rejects the node, as the scheduler stops at it; None: the node fits."""
    return next(_failing(req, node, used), None)


def kubelet_failure(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None = None
) -> Failure | None:
    """Kubelet admission for a pod bound by ``nodeName``: NoExecute taints, affinity, resources."""
    taint = untolerated_taint(req, node, ("NoExecute",))
    if taint is not None:
        reason = "node(s) had taints that the pod didn't tolerate"
        return Failure(TAINTS, (reason,), lambda: str(taint))
    return _affinity(req, node) or _resources(req, node, used)


def event_message(total: int, firsts: Iterable[Failure | None]) -> str:
    """``FitError.Error()``: the scheduler's FailedScheduling event text."""
    counts: dict[str, int] = {}
    for failure in firsts:
        for reason in failure.reasons if failure else ():
            counts[reason] = counts.get(reason, 0) + 1
    entries = sorted(f"{count} {reason}" for reason, count in counts.items())
    return f"0/{total} nodes are available: {', '.join(entries)}."


def pods_fitting(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None = None
) -> int:
    """How many of these pods the node's GPUs hold at once (capacity, not free space)."""
    if not req.gpus:
        return 0
    return max(min(free_gpus(node, used, r) // count for r, count in req.gpus), 0)


def stale_label(
    req: PodRequirements, node: NodeView, used: Mapping[str, int] | None = None
) -> LabelRequirement | None:
    """The one pinned label value that alone keeps the pod off this node, if any.

    The node must pass every other filter and carry the key with another value:
    the signature of a label left behind when the hardware under it changed.
    """
    found = failures(req, node, used)
    if len(found) != 1 or found[0].filter != AFFINITY:
        return None
    missed = failed_requirements(req, node)
    if len(missed) != 1:
        return None
    only = missed[0]
    if only.operator != "In" or "matchFields" in only.path or only.key not in node.labels:
        return None
    if only.key in PLACEMENT_LABELS:
        return None
    return only
