"""Did you mean: the GPU product (or GKE accelerator) label value a mistyped one meant."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpulint import catalog
from gpulint.model.gpu_labels import SEPARATORS, value_tokens


def _match(value: str, known: Iterable[str]) -> list[str]:
    """Known values that ``value`` most likely meant, best kind of match first."""
    known = sorted(set(known))
    norm = SEPARATORS.sub("-", value.strip()).lower()
    forms = {norm, "nvidia-" + norm, norm.removeprefix("nvidia-")}
    exact = [k for k in known if k.lower() in forms]
    if exact:
        return exact
    tokens = value_tokens(value)
    if not tokens:
        return []
    same = [k for k in known if value_tokens(k) == tokens]
    if same:
        return same
    # "A100" -> every A100; "NVIDIA-H100-80GB" -> "NVIDIA-H100-80GB-HBM3".
    wider = [k for k in known if tokens < value_tokens(k)]
    if wider:
        return wider
    # "NVIDIA-H200-SXM5-141GB" -> "NVIDIA-H200": a known value plus words GFD never adds.
    return [k for k in known if value_tokens(k) and value_tokens(k) < tokens]


def _prefer_prefixed(labels: list[str]) -> list[str]:
    """Of ``A100-SXM4-40GB`` and ``NVIDIA-A100-SXM4-40GB`` show the current driver's form."""
    present = set(labels)
    return [
        label
        for label in labels
        if label.startswith(catalog.NVIDIA_PREFIX) or catalog.NVIDIA_PREFIX + label not in present
    ]


def suggest_products(value: str) -> list[str]:
    """``nvidia.com/gpu.product`` values that ``value`` probably meant (GFD suffixes kept)."""
    base, profile, shared = catalog.split_product(value)
    found = _prefer_prefixed(_match(base, catalog.product_labels()))
    if profile:
        # Only GPUs that offer the MIG profile the value names.
        found = [
            f for f in found if profile in getattr(catalog.gpu_for_product(f), "mig_profiles", {})
        ]
    suffix = (f"-MIG-{profile}" if profile else "") + ("-SHARED" if shared else "")
    return [label + suffix for label in found]


def suggest_gke_accelerators(value: str) -> list[str]:
    return _match(value, catalog.gke_accelerators())


def sanitised(value: str) -> str:
    """The label GFD makes of a device name: other characters dropped, spaces to dashes."""
    kept = re.sub(r"[^A-Za-z0-9._ -]", "", value)
    return re.sub(r"\s+", "-", kept.strip())
