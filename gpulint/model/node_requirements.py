"""What a pod spec asks of nodes: label requirements and tolerations, with their paths.

Node selectors and *required* node affinity are requirements (all of
``nodeSelector`` AND any one ``nodeSelectorTerms`` entry); preferred affinity is
not. Paths are relative to the pod spec, so rules can point at the exact key.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import record

REQUIRED_AFFINITY = (
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
)


@record(frozen=True, slots=True)
class LabelRequirement:
    """One node label requirement of a pod (nodeSelector entry or affinity expression)."""

    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt (nodeSelector entries are In)
    values: tuple[str, ...]
    path: tuple  # relative to the pod spec: the nodeSelector entry or the matchExpression
    term: int | None  # index of the nodeSelectorTerm; None for nodeSelector

    def allows(self, value: str | None) -> bool:
        """Whether a node whose label ``key`` is ``value`` (None: absent) satisfies this."""
        op = self.operator
        if op == "In":
            return value is not None and value in self.values
        if op == "NotIn":
            return value is None or value not in self.values
        if op == "Exists":
            return value is not None
        if op == "DoesNotExist":
            return value is None
        if op in ("Gt", "Lt") and value is not None and self.values:
            try:
                node, bound = int(value), int(self.values[0])
            except ValueError:
                return False
            return node > bound if op == "Gt" else node < bound
        return False


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def node_selector(spec: dict) -> list[LabelRequirement]:
    selector = spec.get("nodeSelector")
    if not isinstance(selector, dict):
        return []
    return [
        LabelRequirement(str(k), "In", (_text(v),), ("nodeSelector", k), None)
        for k, v in selector.items()
    ]


def affinity_terms(spec: dict) -> list[list[LabelRequirement]]:
    """Required node affinity: a list of terms (ORed), each a list of requirements (ANDed)."""
    node: Any = spec
    for step in REQUIRED_AFFINITY:
        node = node.get(step) if isinstance(node, dict) else None
    if not isinstance(node, list):
        return []
    terms = []
    for t, term in enumerate(node):
        if not isinstance(term, dict):
            continue
        exprs = term.get("matchExpressions")
        found = []
        if isinstance(exprs, list):
            for e, expr in enumerate(exprs):
                if not isinstance(expr, dict) or not isinstance(expr.get("key"), str):
                    continue
                values = expr.get("values")
                values = tuple(_text(v) for v in values) if isinstance(values, list) else ()
                found.append(
                    LabelRequirement(
                        expr["key"],
                        str(expr.get("operator", "")),
                        values,
                        REQUIRED_AFFINITY + (t, "matchExpressions", e),
                        t,
                    )
                )
        terms.append(found)
    return terms


def label_requirements(spec: dict) -> list[LabelRequirement]:
    """Every label requirement: the node selector's and every affinity term's."""
    found = node_selector(spec)
    for term in affinity_terms(spec):
        found.extend(term)
    return found


def requirement_sets(spec: dict) -> list[list[LabelRequirement]]:
    """The ways a node can qualify: the node selector AND one affinity term, per term."""
    selector = node_selector(spec)
    terms = affinity_terms(spec)
    return [selector + term for term in terms] if terms else [selector]


def required_values(spec: dict, key: str) -> list[LabelRequirement]:
    """Requirements on one label key that pin it to values (``In`` or a nodeSelector)."""
    return [r for r in label_requirements(spec) if r.key == key and r.operator == "In"]


@record(frozen=True, slots=True)
class Toleration:
    """One toleration of a pod spec."""

    key: str | None  # None: an empty key (with Exists, tolerates every taint)
    operator: str  # Equal (default) or Exists
    value: str | None
    effect: str | None  # None: every effect
    path: tuple  # relative to the pod spec

    def tolerates(self, key: str, value: str | None = None, effect: str = "NoSchedule") -> bool:
        """The scheduler's ToleratesTaint."""
        if self.effect and self.effect != effect:
            return False
        if self.key is None:
            return self.operator == "Exists"
        if self.key != key:
            return False
        if self.operator == "Exists":
            return True
        return (self.value or "") == (value or "")


def tolerations(spec: dict) -> list[Toleration]:
    items = spec.get("tolerations")
    if not isinstance(items, list):
        return []
    found = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        key = item.get("key")
        found.append(
            Toleration(
                str(key) if key not in (None, "") else None,
                str(item.get("operator") or "Equal"),
                _text(item.get("value")) if item.get("value") is not None else None,
                str(item["effect"]) if item.get("effect") else None,
                ("tolerations", i),
            )
        )
    return found


def own_taint_tolerated(spec: dict) -> bool:
    """Whether the pod tolerates, by key, a taint of its cluster's own: a key outside
    Kubernetes' reserved ``kubernetes.io``/``k8s.io`` namespaces and its
    ``CriticalAddonsOnly`` (AKS's ``sku=gpu``, a team's ``dedicated``)."""
    for toleration in tolerations(spec):
        key = toleration.key
        if not isinstance(key, str) or not key or toleration.effect not in (None, "NoSchedule"):
            continue
        domain = key.split("/", 1)[0] if "/" in key else ""
        reserved = domain.endswith(("kubernetes.io", "k8s.io")) or key == "CriticalAddonsOnly"
        if not reserved:
            return True
    return False


def tolerates_key(spec: dict, key: str, effect: str = "NoSchedule") -> bool:
    """Whether the pod tolerates a taint on ``key`` whatever its value."""
    for toleration in tolerations(spec):
        if toleration.effect not in (None, effect):
            continue
        if toleration.key is None and toleration.operator == "Exists":
            return True
        # With the taint's value unknown, an Equal toleration on the key is taken to match it.
        if toleration.key == key:
            return True
    return False
