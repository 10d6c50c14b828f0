"""GPU resource semantics, in one place.

Which resource names are GPUs, how many a container holds, and a pod's
effective request with init containers and sidecars (KEP-753):
``max(sum(containers) + sum(sidecars), max_i(init_i + sidecars declared before i))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpulint.model.values import placeholders
from gpulint.model.values.quantity import Amount, QuantityError, parse_quantity

NVIDIA_GPU = "nvidia.com/gpu"
NVIDIA_SHARED = "nvidia.com/gpu.shared"
MIG_PREFIX = "nvidia.com/mig-"
AMD_GPU = "amd.com/gpu"
INTEL_PREFIX = "gpu.intel.com/"


def is_gpu_resource(name: str) -> bool:
    return name in (NVIDIA_GPU, NVIDIA_SHARED, AMD_GPU) or name.startswith(
        (MIG_PREFIX, INTEL_PREFIX)
    )


def is_mig_resource(name: str) -> bool:
    return name.startswith(MIG_PREFIX)


def mig_profile(name: str) -> str | None:
    """``nvidia.com/mig-1g.10gb`` -> ``1g.10gb`` (a ``.shared`` suffix is dropped)."""
    if not name.startswith(MIG_PREFIX):
        return None
    profile = name[len(MIG_PREFIX) :]
    return profile.removesuffix(".shared")


def is_shared_resource(name: str) -> bool:
    return name.endswith(".shared") and name.startswith("nvidia.com/")


def _section(resources: Any, section: str) -> Mapping[str, Any]:
    if not isinstance(resources, Mapping):
        return {}
    value = resources.get(section)
    return value if isinstance(value, Mapping) else {}


def gpu_entries(container: Mapping[str, Any], section: str) -> dict[str, Any]:
    """Raw GPU entries of ``resources.<section>`` (``requests`` or ``limits``)."""
    found = _section(container.get("resources"), section)
    if not found:
        return {}
    return {str(k): v for k, v in found.items() if is_gpu_resource(str(k))}


def count_unknown(container: Mapping[str, Any]) -> bool:
    """Whether a GPU request or limit is still a placeholder (``${GPUS}``): the container
    holds GPUs, but how many is known only once the template is filled in."""
    return any(
        placeholders.is_placeholder(value)
        for section in ("requests", "limits")
        for value in gpu_entries(container, section).values()
    )


def _whole(value: Any) -> int | None:
    try:
        quantity = parse_quantity(value)
    except QuantityError:
        return None
    if quantity < 0 or quantity.denominator != 1:
        return None
    return int(quantity)


def container_gpus(container: Mapping[str, Any]) -> dict[str, int]:
    """GPUs a container holds, by resource name.

    The kubelet reads limits for device-plugin resources; a request without a
    limit is rejected by the API server, but we still count it so later rules
    see the intent. Invalid quantities count as nothing (GPU103 reports them).
    """
    held: dict[str, int] = {}
    limits = gpu_entries(container, "limits")
    requests = gpu_entries(container, "requests")
    for name in {**requests, **limits}:
        value = _whole(limits[name]) if name in limits else _whole(requests[name])
        if value:
            held[name] = value
    return held


def total_gpus(held: Mapping[str, int]) -> int:
    return sum(held.values())


def add_counts(into: dict[str, int], more: Mapping[str, int]) -> None:
    """Add ``more`` into ``into``, resource by resource."""
    for name, count in more.items():
        into[name] = into.get(name, 0) + count


def effective_request(
    containers: Iterable[Mapping[str, Any]],
    init_containers: Iterable[Mapping[str, Any]] = (),
) -> dict[str, int]:
    """The pod's GPU request per resource, as the scheduler computes it."""
    return effective_counts(
        (container_gpus(c) for c in containers),
        ((container_gpus(c), is_sidecar(c)) for c in init_containers),
    )


def effective_counts(
    regular_held: Iterable[Mapping[str, int]],
    init_held: Iterable[tuple[Mapping[str, int], bool]] = (),
) -> dict[str, int]:
    """:func:`effective_request` from what each container holds (:func:`container_gpus`):
    the app containers', and each init container's with whether it is a sidecar."""
    regular: dict[str, int] = {}
    for held in regular_held:
        add_counts(regular, held)
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for held, sidecar in init_held:
        if sidecar:
            add_counts(sidecars, held)
            continue
        use = dict(sidecars)
        add_counts(use, held)
        for name, count in use.items():
            init_peak[name] = max(init_peak.get(name, 0), count)
    steady = dict(regular)
    add_counts(steady, sidecars)
    result: dict[str, int] = {}
    for name in set(steady) | set(init_peak):
        value = max(steady.get(name, 0), init_peak.get(name, 0))
        if value:
            result[name] = value
    return result


def is_sidecar(init_container: Mapping[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``) runs for the pod's life."""
    return init_container.get("restartPolicy") == "Always"


def as_fraction(value: Any) -> Amount | None:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None
