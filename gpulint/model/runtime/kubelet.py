"""The kubelet's ``featureGates``: where a run sets them, and which settings the kubelet refuses.

A ``KubeletConfiguration`` (``kubelet.config.k8s.io``) is a document of its own, the
YAML text of a string (kubeadm's ``kubelet-config`` ConfigMap, cloud-init ``write_files``),
or, on EKS, ``spec.kubelet.config`` of a ``node.eks.aws`` ``NodeConfig``. The kubelet sets
the gates through component-base's ``SetFromMap``, which refuses a gate the binary does not
know ("unrecognized feature gate") and a locked gate set to another value ("cannot set
feature gate X to v, feature is locked to d"); the kubelet exits on either. The lifecycle
of each gate is the catalog's ``kubernetes.feature_gates`` (sources cited there).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.core.sources import Source
from gpulint.model import source_text
from gpulint.model.resource import Resource
from gpulint.model.values.shapes import dotted
from gpulint.yaml.embedded import strings_holding
from gpulint.yaml.parse import Document, parse

GROUP = "kubelet.config.k8s.io/"
KIND = "KubeletConfiguration"
FIELD = "featureGates"
_EKS_GROUP = "node.eks.aws/"
_MAX_DEPTH = 12
_VERSION = lazy(r"^v?(\d+)\.(\d+)(?:\D|$)")

Minor = tuple[int, int]


@record(frozen=True)
class Gates:
    """The featureGates of one kubelet configuration, and where they are written."""

    path: tuple  # to the featureGates mapping (through a string that holds it)
    gates: dict
    label: str  # where, for configurations inside a string ("" otherwise)


@record(frozen=True)
class Refusal:
    """A gate the kubelet refuses to start with, and why."""

    gate: str
    why: str  # why the kubelet refuses it, in words


def minor(text: Any) -> Minor | None:
    """``v1.30.2``, ``1.30``, ``1.30.1-eks`` -> (1, 30)."""
    found = _VERSION.match(text) if isinstance(text, str) else None
    return (int(found.group(1)), int(found.group(2))) if found else None


def _is_config(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == KIND
        and str(data.get("apiVersion", "")).startswith(GROUP)
    )


def _gates_of(data: Any) -> dict | None:
    gates = data.get(FIELD) if isinstance(data, dict) else None
    return gates if isinstance(gates, dict) and gates else None


def resource_gates(resource: Resource) -> Iterator[Gates]:
    obj = resource.obj
    if _is_config(obj):
        gates = _gates_of(obj)
        if gates:
            yield Gates((FIELD,), gates, "")  # the finding names the resource
        return
    if resource.kind == "NodeConfig" and resource.api_version.startswith(_EKS_GROUP):
        spec = obj.get("spec")
        kubelet = spec.get("kubelet") if isinstance(spec, dict) else None
        config = kubelet.get("config") if isinstance(kubelet, dict) else None
        gates = _gates_of(config)
        if gates:
            path = ("spec", "kubelet", "config", FIELD)
            yield Gates(path, gates, "")
        return
    if source_text.mentions(resource.doc.source, KIND):
        yield from _embedded(obj, f"{resource.kind} {resource.name}")


def document_gates(doc: Document) -> Iterator[Gates]:
    """Configurations in the strings of a document that is not a resource (cloud-init)."""
    data = doc.data
    if isinstance(data, dict) and "apiVersion" in data and "kind" in data:
        return iter(())  # resources: resource_gates
    if not source_text.mentions(doc.source, KIND):
        return iter(())
    return _embedded(data, "")


def _embedded(data: Any, label: str) -> Iterator[Gates]:
    for path, text in strings_holding(
        data, lambda text: KIND in text and FIELD in text, _MAX_DEPTH
    ):
        inner = _parsed(text)
        gates = _gates_of(inner) if _is_config(inner) else None
        if gates:
            inside = f"{label} {dotted(path)}" if label else dotted(path)
            yield Gates(path + (FIELD,), gates, f"{KIND} in {inside}")


@lru_cache(maxsize=64)
def _parsed(text: str) -> Any:
    # One document only: positions map into a literal block of one document.
    documents, errors = parse(Source("<kubelet-config>", text))
    return documents[0].data if not errors and len(documents) == 1 else None


def _table() -> dict[str, dict]:
    return catalog.kubernetes()["feature_gates"]


def oldest_supported() -> Minor:
    found = minor(str(catalog.kubernetes()["oldest_supported_minor"]))
    assert found is not None, "catalog: kubernetes.oldest_supported_minor"
    return found


def _text(version: Minor) -> str:
    return f"{version[0]}.{version[1]}"


def refusal(gate: Any, value: Any, target: Minor | None) -> Refusal | None:
    """Why a kubelet of ``target`` (every supported one when None) refuses ``gate: value``."""
    spec = _table().get(gate) if isinstance(gate, str) else None
    if spec is None or not isinstance(value, bool):
        return None  # a gate the catalog does not cover, or a value no kubelet decodes
    if target is not None:
        at = f"the kubelet of Kubernetes {_text(target)} refuses to start"
        return _phrase(gate, value, spec, _state(spec, value, target), at)
    oldest = oldest_supported()
    state = _state(spec, value, oldest)
    if state == "unborn":
        return None  # newer releases know it
    # Removed stays removed; locked stays locked until it is removed: every later release refuses.
    every = f"every supported kubelet ({_text(oldest)} and later) refuses to start"
    return _phrase(gate, value, spec, state, every)


def _state(spec: dict, value: bool, version: Minor) -> str | None:
    added, removed, locked = (minor(spec.get(k)) for k in ("alpha", "removed", "locked"))
    if added and version < added:
        return "unborn"
    if removed and version >= removed:
        return "removed"
    if locked and version >= locked and value != spec.get("locked_to"):
        return "locked"
    return None


def _phrase(gate: str, value: bool, spec: dict, state: str | None, who: str) -> Refusal | None:
    unknown = f'"unrecognized feature gate: {gate}"'
    if state == "unborn":
        return Refusal(
            gate, f"the gate exists only from Kubernetes {spec['alpha']}: {who} ({unknown})"
        )
    if state == "removed":
        why = f"the gate was removed in Kubernetes {spec['removed']}{_since(spec)}"
        return Refusal(gate, f"{why}: {who} ({unknown})")
    if state == "locked":
        to = _bool(spec.get("locked_to"))
        refused = f'"cannot set feature gate {gate} to {_bool(value)}, feature is locked to {to}"'
        later = f"; from {spec['removed']}: {unknown}" if spec.get("removed") else ""
        why = f"the gate is locked to {to} since Kubernetes {spec['locked']}"
        return Refusal(gate, f"{why}: {who} ({refused}{later})")
    return None


def _since(spec: dict) -> str:
    ga = spec.get("ga")
    return f" (GA since {ga}, always on)" if ga and spec.get("locked_to") is True else ""


def _bool(value: Any) -> str:
    return "true" if value is True else "false"
