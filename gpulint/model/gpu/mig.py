"""MIG devices a container asks for, and the GPU products a pod can land on.

Resource names follow the device plugin's ``mixed`` strategy:
``nvidia.com/mig-<profile>`` with ``+`` in the profile written as ``.``
(``1g.10gb+me`` -> ``nvidia.com/mig-1g.10gb.me``); a ``.shared`` suffix marks a
time-sliced or MPS replica of that MIG device.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.node_requirements import affinity_terms, node_selector
from gpulint.model.resource import Container
from gpulint.model.values import gpu_resources as gpu

PRODUCT_LABEL = "nvidia.com/gpu.product"


@record(frozen=True)
class MigEntry:
    """A MIG resource a container requests, with its profile and count."""

    resource: str  # nvidia.com/mig-1g.10gb
    profile: str  # 1g.10gb (resource spelling, ``.shared`` dropped)
    shared: bool
    count: int | None  # None: not a whole number (GPU103 reports it)
    path: tuple  # relative to the resource object: the limits (else requests) entry


def mig_entries(container: Container) -> list[MigEntry]:
    """MIG resources of a container, once each, placed at the limit when there is one."""
    limits = gpu.gpu_entries(container.data, "limits")
    requests = gpu.gpu_entries(container.data, "requests")
    found = []
    for name in {**requests, **limits}:
        profile = gpu.mig_profile(name)
        if profile is None:
            continue
        section = "limits" if name in limits else "requests"
        found.append(
            MigEntry(
                name,
                profile,
                gpu.is_shared_resource(name),
                container.gpus.get(name),
                container.path + ("resources", section, name),
            )
        )
    return found


def gpu_name(device: catalog.Gpu) -> str:
    """A GPU as people write it: its first product label, else its catalog id."""
    return device.product_labels[0] if device.product_labels else device.id


def resource_profiles(device: catalog.Gpu) -> list[str]:
    """A GPU's MIG profiles as they appear in resource names."""
    return sorted(catalog.mig_resource_profile(p) for p in device.mig_profiles)


@record(frozen=True)
class ProductChoice:
    """The ``nvidia.com/gpu.product`` values a pod can run on, and where they are set."""

    values: tuple[str, ...]
    path: tuple  # relative to the pod spec: the first requirement naming a product


def _values(requirements: list[Any]) -> tuple[set[str] | None, tuple | None]:
    """Intersection of the ``In`` values on the product label (None: unconstrained)."""
    allowed: set[str] | None = None
    path = None
    for req in requirements:
        if req.key != PRODUCT_LABEL:
            continue
        if req.operator != "In":
            return None, None  # NotIn/Exists: any product may remain; nothing to conclude
        allowed = set(req.values) if allowed is None else allowed & set(req.values)
        path = path or req.path
    return allowed, path


def selected_products(spec: dict) -> ProductChoice | None:
    """Products the pod is pinned to by nodeSelector and required node affinity.

    ``nodeSelector`` and each affinity term are ANDed, the terms ORed; the pod
    is pinned only when every way to schedule it names products.
    """
    base, base_path = _values(node_selector(spec))
    terms = affinity_terms(spec)
    if not terms:
        if base is None:
            return None
        return ProductChoice(tuple(sorted(base)), base_path or ())
    union: set[str] = set()
    first_path = base_path
    for term in terms:
        values, path = _values(term)
        if values is None and base is None:
            return None
        combined = values if base is None else (base if values is None else base & values)
        union |= combined or set()
        first_path = first_path or path
    return ProductChoice(tuple(sorted(union)), first_path or ())


_PROFILE = lazy(r"^(?:\d+c\.)?(\d+)g\.(\d+)gb(.*)$")


def _parts(profile: str) -> tuple[int, int, str] | None:
    match = _PROFILE.match(profile)
    return (int(match[1]), int(match[2]), match[3]) if match else None


def suggest_profiles(profile: str, known: Iterable[str]) -> list[str]:
    """Known profiles ``profile`` was probably meant to be (resource spelling).

    A case slip wins; else the same slice count with the nearest memory size and,
    unless that is exact, the same memory size; else the closest spelling.
    """
    known = sorted(known)
    lowered = {p.lower(): p for p in known}
    if profile.lower() in lowered:
        return [lowered[profile.lower()]]
    parts = _parts(profile)
    found: list[str] = []
    if parts is not None:
        slices, memory, suffix = parts
        parsed = [(p, _parts(p)) for p in known]
        same_slices = [
            (abs(q[1] - memory), p) for p, q in parsed if q and q[0] == slices and q[2] == suffix
        ]
        same_memory = [p for p, q in parsed if q and q[1] == memory and q[2] == suffix]
        if same_slices:
            found.append(min(same_slices)[1])
        if not same_slices or min(same_slices)[0] != 0:
            found += [p for p in same_memory[:1] if p not in found]
    if not found:
        # Only to suggest a name (LAZY in tests/project/test_import_contract.py).
        from gpulint.validate.schema import closest

        match = closest(profile, known)
        found = [match] if match else []
    return found
