"""Node objects as the scheduler sees them: labels, taints, allocatable GPUs, cordon.

A :class:`NodeView` is small, plain and picklable, so cross-file rules can
collect one per Node in worker processes and decide in the parent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulint.core.record import field, record
from gpulint.model.resource import Resource
from gpulint.model.values.gpu_resources import is_gpu_resource
from gpulint.model.values.quantity import QuantityError, parse_quantity

# The taint the node lifecycle controller mirrors from ``spec.unschedulable``
# (TaintNodesByCondition); NodeUnschedulable lets pods that tolerate it through.
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


@record(frozen=True, slots=True)
class Taint:
    """A Node taint."""

    key: str
    value: str  # "" when the taint has no value
    effect: str  # NoSchedule, PreferNoSchedule or NoExecute

    def __str__(self) -> str:
        value = f"={self.value}" if self.value else ""
        return f"{self.key}{value}:{self.effect}"


@record(frozen=True, slots=True)
class NodeView:
    """What scheduling needs of a Node: labels, taints, allocatable GPUs."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    allocatable: dict[str, int] = field(default_factory=dict)  # GPU resources only
    unschedulable: bool = False

    def gpu_total(self, resource: str) -> int:
        return self.allocatable.get(resource, 0)


def is_node(resource: Resource) -> bool:
    return resource.kind == "Node" and resource.api_version == "v1"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _count(value: Any) -> int | None:
    """Whole units of an extended resource; the scheduler compares integers."""
    try:
        quantity = parse_quantity(value)
    except QuantityError:
        return None
    return max(int(quantity), 0)


def _gpu_resources(section: Any) -> dict[str, int]:
    if not isinstance(section, Mapping):
        return {}
    found = {}
    for name, value in section.items():
        count = _count(value)
        if is_gpu_resource(str(name)) and count is not None:
            found[str(name)] = count
    return found


def _taints(spec: Mapping[str, Any]) -> tuple[Taint, ...]:
    items = spec.get("taints")
    if not isinstance(items, list):
        return ()
    found = []
    for item in items:
        if isinstance(item, Mapping) and item.get("key") not in (None, ""):
            found.append(
                Taint(_text(item["key"]), _text(item.get("value")), _text(item.get("effect")))
            )
    return tuple(found)


def node_view(resource: Resource) -> NodeView:
    obj = resource.obj
    spec = obj.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    status = obj.get("status")
    status = status if isinstance(status, Mapping) else {}
    labels = {str(k): _text(v) for k, v in resource.labels.items()}
    # Allocatable is what the scheduler counts; a hand-written Node without it
    # falls back to capacity (the two are equal for device-plugin resources).
    section = status.get("allocatable")
    if not isinstance(section, Mapping):
        section = status.get("capacity")
    return NodeView(
        name=resource.name,
        labels=labels,
        taints=_taints(spec),
        allocatable=_gpu_resources(section),
        unschedulable=spec.get("unschedulable") is True,
    )
