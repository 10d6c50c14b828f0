"""Pod specs of kinds nobody listed, found by their shape (a mapping with containers that
have images), outside the built-in API groups."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.kinds import table as workloads

_BUILTIN_GROUPS = frozenset(
    {
        "",
        "apps",
        "batch",
        "rbac.authorization.k8s.io",
        "apiextensions.k8s.io",
        "admissionregistration.k8s.io",
        "networking.k8s.io",
        "storage.k8s.io",
        "policy",
        "scheduling.k8s.io",
        "coordination.k8s.io",
        "certificates.k8s.io",
        "discovery.k8s.io",
        "autoscaling",
        "node.k8s.io",
        "resource.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "apiregistration.k8s.io",
        "events.k8s.io",
    }
)
BUILTIN_GROUPS = _BUILTIN_GROUPS  # for model.unread
_SKIPPED_KEYS = frozenset({"metadata", "status"})


def looks_like_pod_spec(node: Any) -> bool:
    """A mapping with a ``containers`` list whose mappings name an ``image``."""
    if not isinstance(node, dict):
        return False
    containers = node.get("containers")
    if not isinstance(containers, list) or not containers:
        return False
    return all(isinstance(c, dict) for c in containers) and any("image" in c for c in containers)


def _walk(node: Any, path: tuple, depth: int) -> Iterator[tuple]:
    if depth > 40:  # deeper than any real CRD; bounds the work on odd input
        return
    if isinstance(node, dict):
        if path and looks_like_pod_spec(node):
            yield path
            return  # a pod spec does not nest another
        for key, value in node.items():
            if key not in _SKIPPED_KEYS or path:
                yield from _walk(value, path + (key,), depth + 1)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, path + (index,), depth + 1)


@record(frozen=True)
class GenericSpec:
    """A pod spec found by its shape: where it is, its metadata's path, a role to name it by."""

    path: tuple
    spec: dict
    metadata_path: tuple | None
    role: str | None


def find_generic(obj: dict, api_version: str) -> list[GenericSpec]:
    """Pod specs of a kind the table does not list (``--verbose`` names such kinds)."""
    group = workloads.api_group(api_version)
    if group in _BUILTIN_GROUPS:
        return []
    found = []
    for path in _walk(obj, (), 0):
        spec = workloads.get(obj, path)
        meta = path[:-1] + ("metadata",) if path[-1] == "spec" else None
        role = ".".join(str(p) for p in (path[:-1] if path[-1] == "spec" else path))
        found.append(GenericSpec(path, spec, meta, role or None))
    return found
