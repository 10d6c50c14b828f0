"""Did you mean: the GPU product (or GKE accelerator) label value a mistyped one meant."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpulint import catalog
from gpulint.model.gpu.labels import SEPARATORS, model_tokens, value_tokens


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


def _suffix(profile: str | None, shared: bool) -> str:
    return (f"-MIG-{profile}" if profile else "") + ("-SHARED" if shared else "")


def current_driver_form(value: str) -> str | None:
    """The label drivers from R470 on report for one of an older driver, else None.

    NVML's device name gained the ``NVIDIA`` prefix in R470 (``A100-SXM4-40GB`` became
    ``NVIDIA A100-SXM4-40GB``, so GFD's label ``NVIDIA-A100-SXM4-40GB``): NVIDIA's MIG
    guide for Kubernetes shows the old form under 450/460 drivers, the OpenShift MIG
    guide and the GPU Operator docs the new one (catalog facts, section d.2). GPUs
    named ``Tesla-...`` (T4, V100) kept their names, and are never matched here.
    """
    base, profile, shared = catalog.split_product(value)
    if base.startswith(catalog.NVIDIA_PREFIX):
        return None
    prefixed = catalog.NVIDIA_PREFIX + base
    if prefixed not in catalog.product_labels():
        return None
    return prefixed + _suffix(profile, shared)


# The SXM4 module is the A100's (Ampere); Hopper and Blackwell GPUs come on SXM5 and SXM6 and
# their names never say SXM4: the H100 SXM reports "NVIDIA H100 80GB HBM3" (GPU Operator
# manifests/output/mig-node-labels.json; k8s-device-plugin issue 1501).
# Nor does any GPU name say SXM5 or SXM6 (the module people write for the H100 and H200
# SXM, and Blackwell's): "NVIDIA-H100-SXM5-80GB" means the H100 SXM, NVIDIA-H100-80GB-HBM3.
_AMPERE_SOCKET = "sxm4"
_SOCKETS = frozenset({"sxm4", "sxm5", "sxm6"})


def _other_socket(tokens: frozenset[str]) -> list[str]:
    """Labels of the model a value names with a module word its GPU names never have:
    the A100's ``SXM4`` on a newer GPU, or ``SXM5``/``SXM6`` on any."""
    models = tokens & model_tokens()
    sockets = tokens & _SOCKETS
    if not sockets or not models:
        return []
    scored = []
    for label in catalog.product_labels():
        device = catalog.gpu_for_product(label)
        if device is None or device.family is None:
            continue
        if sockets == {_AMPERE_SOCKET} and device.family == "ampere":
            continue  # SXM4 is the A100's own module: those labels matched already
        if models & value_tokens(label):
            scored.append((len(tokens & value_tokens(label)), label))
    best = max((n for n, _label in scored), default=0)
    return [label for n, label in scored if n == best]  # the same memory size first


def suggest_products(value: str) -> list[str]:
    """``nvidia.com/gpu.product`` values that ``value`` probably meant (GFD suffixes kept)."""
    base, profile, shared = catalog.split_product(value)
    found = _prefer_prefixed(_match(base, catalog.product_labels()))
    if not found:
        found = _other_socket(value_tokens(base))
    if profile:
        # Only GPUs that offer the MIG profile the value names.
        found = [
            f for f in found if profile in getattr(catalog.gpu_for_product(f), "mig_profiles", {})
        ]
    suffix = _suffix(profile, shared)
    return [label + suffix for label in found]


def suggest_gke_accelerators(value: str) -> list[str]:
    return _match(value, catalog.gke_accelerators())


def sanitised(value: str) -> str:
    """The label GFD makes of a device name: other characters dropped, spaces to dashes."""
    kept = re.sub(r"[^A-Za-z0-9._ -]", "", value)
    return re.sub(r"\s+", "-", kept.strip())
