"""The GPU catalog (``catalog.yaml`` beside this file, sources cited there).

Loaded once, on first use, from ``catalog.json``: the YAML's data, written by
``python scripts/generate.py`` (tests/project/test_generated_files.py fails while it is
stale), which is read far faster than the YAML is parsed. No network, ever.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from gpulint.core.record import record
from gpulint.core.sources import Source
from gpulint.yaml.parse import parse

# Node labels differ from marketing sizes and vary with driver and ECC.
MEMORY_TOLERANCE = 0.03
NVIDIA_PREFIX = "NVIDIA-"


@record(frozen=True)
class Gpu:
    """One GPU of the catalog: its node labels, memory and MIG profiles."""

    id: str
    product_labels: tuple[str, ...]
    memory_mib: int | None
    memory_mib_observed: tuple[int, ...]
    family: str | None
    mig_capable: bool
    mig_profiles: dict[str, int]  # profile -> most instances on one GPU
    mig_max_instances: int | None
    pci_device_ids: tuple[int, ...] = ()
    # profile -> (valid start slices, memory slices taken): nvidia-smi's -lgipp
    mig_placements: tuple[tuple[str, tuple[int, ...], int], ...] = ()

    def placement(self, profile: str) -> tuple[tuple[int, ...], int] | None:
        for name, starts, size in self.mig_placements:
            if name == profile:
                return starts, size
        return None

    def memory_matches(self, mib: float) -> bool:
        """Whether a ``nvidia.com/gpu.memory`` value can belong to this GPU."""
        known = [m for m in (self.memory_mib, *self.memory_mib_observed) if m]
        if not known:
            return True  # nothing verified to compare with
        return any(abs(mib - m) <= m * MEMORY_TOLERANCE for m in known)


# Beside this module, not through importlib.resources (whose import is start-up).
_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "catalog.yaml")  # the catalog as written, with its sources
SNAPSHOT = os.path.join(_HERE, "catalog.json")  # its data (scripts/generate.py)


@cache
def raw() -> dict[str, Any]:
    """The whole catalog as plain data (catalog.yaml's, from its JSON snapshot)."""
    with open(SNAPSHOT, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def from_source() -> dict[str, Any]:
    """catalog.yaml read through gpulint's own parser: what the snapshot holds."""
    with open(SOURCE, encoding="utf-8") as handle:
        text = handle.read()
    documents, errors = parse(Source("gpulint/catalog/catalog.yaml", text))
    if errors or not documents:
        raise RuntimeError(f"gpulint's catalog is broken: {errors}")
    data: dict[str, Any] = documents[0].data
    return data


@cache
def gpus() -> tuple[Gpu, ...]:
    found = []
    for entry in [*raw()["gpus"], *(raw().get("geforce_gpus") or ())]:
        found.append(
            Gpu(
                id=entry["id"],
                product_labels=tuple(entry.get("product_labels") or ()),
                memory_mib=entry.get("memory_mib"),
                memory_mib_observed=tuple(entry.get("memory_mib_observed") or ()),
                family=entry.get("family"),
                mig_capable=bool(entry.get("mig_capable")),
                mig_profiles={str(k): int(v) for k, v in (entry.get("mig_profiles") or {}).items()},
                mig_max_instances=entry.get("mig_max_instances"),
                pci_device_ids=tuple(int(str(v), 16) for v in entry.get("pci_device_ids") or ()),
                mig_placements=tuple(
                    (str(k), *_placement(str(v)))
                    for k, v in (entry.get("mig_placements") or {}).items()
                ),
            )
        )
    return tuple(found)


def _placement(text: str) -> tuple[tuple[int, ...], int]:
    """``{0,2,4}:2`` (nvidia-smi mig -lgipp) -> ((0, 2, 4), 2)."""
    starts, _, size = text.partition(":")
    return tuple(int(s) for s in starts.strip("{}").split(",")), int(size)


def gpus_with_device_id(device_id: int) -> list[Gpu]:
    """The GPUs a mig-parted ``device-filter`` entry (PCI device and vendor ID) selects."""
    return [gpu for gpu in gpus() if device_id in gpu.pci_device_ids]


@cache
def _by_label() -> dict[str, Gpu]:
    return {label: gpu for gpu in gpus() for label in gpu.product_labels}


def product_labels() -> list[str]:
    """Every known ``nvidia.com/gpu.product`` value of a full, unshared GPU."""
    return sorted(_by_label())


def split_product(label: str) -> tuple[str, str | None, bool]:
    """``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED`` -> (base, MIG profile, shared).

    GFD appends ``-MIG-<profile>`` under the single MIG strategy and ``-SHARED``
    when time-slicing or MPS replicates a GPU without renaming it.
    """
    shared = label.endswith("-SHARED")
    if shared:
        label = label[: -len("-SHARED")]
    profile = None
    if "-MIG-" in label:
        label, profile = label.split("-MIG-", 1)
    return label, profile, shared


def gpu_for_product(label: str) -> Gpu | None:
    """The GPU a product label names, with or without the driver's ``NVIDIA-`` prefix."""
    base, _profile, _shared = split_product(label)
    table = _by_label()
    if base in table:
        return table[base]
    if base.startswith(NVIDIA_PREFIX):
        return table.get(base[len(NVIDIA_PREFIX) :])
    return table.get(NVIDIA_PREFIX + base)


def is_known_product(label: str) -> bool:
    """Exact match (labels are case-sensitive), allowing the GFD suffixes."""
    base, profile, _shared = split_product(label)
    if base.endswith("-MIG-INVALID") or profile == "INVALID":
        return False
    table = _by_label()
    return (
        base in table
        or (base.startswith(NVIDIA_PREFIX) and base[len(NVIDIA_PREFIX) :] in table)
        or (NVIDIA_PREFIX + base) in table
    )


@cache
def mig_profiles() -> frozenset[str]:
    """Every MIG profile any known GPU offers (``1g.10gb``, ``1g.10gb+me``...)."""
    return frozenset(p for gpu in gpus() for p in gpu.mig_profiles)


def mig_resource_profile(profile: str) -> str:
    """A profile as it appears in a resource name (``+`` becomes ``.``)."""
    return profile.replace("+", ".")


@cache
def mig_resource_profiles() -> frozenset[str]:
    """Profiles as they appear in ``nvidia.com/mig-<profile>`` resource names."""
    return frozenset(mig_resource_profile(p) for p in mig_profiles())


def gpus_with_mig_profile(resource_profile: str) -> list[Gpu]:
    return [
        gpu
        for gpu in gpus()
        if resource_profile in {mig_resource_profile(p) for p in gpu.mig_profiles}
    ]


@cache
def gke_accelerators() -> dict[str, Gpu | None]:
    """``cloud.google.com/gke-accelerator`` values -> the GPU (None: not in this catalog)."""
    by_id = {gpu.id: gpu for gpu in gpus()}
    table = raw().get("gke_accelerators") or {}
    return {str(k): by_id.get(v) if v else None for k, v in table.items()}


def device_plugin() -> dict[str, Any]:
    return raw()["device_plugin"]


def gpu_operator() -> dict[str, Any]:
    return raw()["gpu_operator"]


def kubernetes() -> dict[str, Any]:
    return raw()["kubernetes"]


def gpu_instance_types() -> dict[str, Any]:
    """Instance-type name forms that come with GPUs, per cloud (``gpu_instance_types``)."""
    return raw().get("gpu_instance_types") or {}


def coreweave_gpu_classes() -> tuple[str, ...]:
    return tuple(str(v) for v in raw().get("coreweave_gpu_classes") or ())
