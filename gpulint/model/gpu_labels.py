"""GPU node labels: which keys name a GPU model, which only GPU nodes carry, and
whether a set of label requirements can hold together on one node.

Used on a pod's requirements (node selector plus one required affinity term)
and on a Node's own labels (each label is then a one-value ``In``), so the same
reasoning serves the workload rules and checks against a cluster inventory.

Label keys and their sources:
- ``nvidia.com/gpu.*``, ``nvidia.com/mig*``: GPU feature discovery and the GPU
  Operator (project catalog, ``labels:``).
- ``cloud.google.com/gke-accelerator`` and ``gke-gpu-*``: GKE GPU node pools
  (cloud.google.com/kubernetes-engine/docs/how-to/gpus).
- ``karpenter.k8s.aws/instance-*``: Karpenter for AWS well-known labels
  (aws/karpenter-provider-aws website/content/en/*/reference/instance-types.md).
- ``eks.amazonaws.com/instance-*``: EKS Auto Mode labels
  (docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html).
- ``karpenter.azure.com/sku-gpu-*``, ``kubernetes.azure.com/accelerator``: AKS.
- ``gpu.intel.com/product|family``: Intel GPU plugin NFD rules
  (intel.github.io/intel-device-plugins-for-kubernetes, cmd/gpu_plugin/labels).
- ``amd.com/gpu.*`` (and ``beta.amd.com/gpu.*``): the AMD GPU node labeller.
- ``accelerator``: the label the Kubernetes "Schedule GPUs" page uses for
  clusters with several GPU types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from gpulint import catalog
from gpulint.model import gpu_label_families, placeholders
from gpulint.model.gpu import is_gpu_resource
from gpulint.model.quantity import QuantityError, parse_quantity
from gpulint.model.scheduling import LabelRequirement, requirement_sets

PRODUCT = "nvidia.com/gpu.product"
MEMORY = "nvidia.com/gpu.memory"
COUNT = "nvidia.com/gpu.count"
FAMILY = "nvidia.com/gpu.family"
MIG_CAPABLE = "nvidia.com/mig.capable"
MIG_STRATEGY = "nvidia.com/mig.strategy"
GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
GKE_PARTITION = "cloud.google.com/gke-gpu-partition-size"

# Keys whose value names a GPU model, or a machine type that comes with one.
MODEL_KEYS = frozenset(
    {
        PRODUCT,
        FAMILY,
        MEMORY,
        "nvidia.com/gpu.machine",
        "nvidia.com/gpu.compute.major",
        GKE_ACCELERATOR,
        "cloud.google.com/machine-family",
        "node.kubernetes.io/instance-type",
        "beta.kubernetes.io/instance-type",
        "karpenter.k8s.aws/instance-gpu-name",
        "karpenter.k8s.aws/instance-gpu-memory",
        "karpenter.k8s.aws/instance-family",
        "eks.amazonaws.com/instance-gpu-name",
        "eks.amazonaws.com/instance-gpu-memory",
        "eks.amazonaws.com/instance-family",
        "karpenter.azure.com/sku-gpu-name",
        "karpenter.azure.com/sku-name",
        "gpu.intel.com/product",
        "gpu.intel.com/family",
        "amd.com/gpu.family",
        "amd.com/gpu.device-id",
        "amd.com/gpu.product-name",
        "amd.com/gpu.vram",
        "beta.amd.com/gpu.family",
        "beta.amd.com/gpu.device-id",
        "beta.amd.com/gpu.product-name",
        "beta.amd.com/gpu.vram",
        "accelerator",
        # A GKE node pool or an AKS agent pool has one machine type, so naming
        # the pool names the GPU. (A Karpenter NodePool may mix instance types.)
        "cloud.google.com/gke-nodepool",
        "kubernetes.azure.com/agentpool",
        "agentpool",
    }
)

# Keys only GPU nodes carry (besides the model keys that are GPU-specific).
_GPU_NODE_KEYS = frozenset(
    {
        GKE_ACCELERATOR,
        "cloud.google.com/gke-accelerator-count",
        "cloud.google.com/gke-gpu",
        GKE_PARTITION,
        "cloud.google.com/gke-gpu-sharing-strategy",
        "cloud.google.com/gke-max-shared-clients-per-gpu",
        "cloud.google.com/gke-gpu-driver-version",
        "kubernetes.azure.com/accelerator",
        "feature.node.kubernetes.io/pci-10de.present",
        "feature.node.kubernetes.io/pci-0300_10de.present",
        "feature.node.kubernetes.io/pci-0302_10de.present",
        "accelerator",
    }
)
_GPU_NODE_PREFIXES = (
    "nvidia.com/gpu.",
    "nvidia.com/mig",
    "nvidia.com/cuda.",
    "nvidia.com/vgpu.",
    "nvidia.com/mps.",
    "nvidia.com/gfd.",
    "karpenter.k8s.aws/instance-gpu-",
    "eks.amazonaws.com/instance-gpu-",
    "karpenter.azure.com/sku-gpu-",
    "amd.com/gpu.",
    "beta.amd.com/gpu.",
    "gpu.intel.com/",
)
# Values that say "no GPU here" on a GPU label (nvidia.com/gpu.present=false, count 0).
_NEGATIVE = frozenset({"false", "0", ""})
_MIG_PROFILE_KEY = re.compile(
    r"^nvidia\.com/mig-(?P<profile>[0-9]+g\.[0-9]+gb[a-z.+-]*?)\.[a-z.-]+$"
)


def is_gpu_label(key: str) -> bool:
    """Whether only GPU nodes carry this label."""
    return (
        key in _GPU_NODE_KEYS
        or key.startswith(_GPU_NODE_PREFIXES)
        or gpu_label_families.is_family_key(key)
    )


def is_model_key(key: str) -> bool:
    """GFD's and the clouds' model keys, and every key of a provider's GPU label family."""
    return key in MODEL_KEYS or gpu_label_families.is_family_key(key)


def holds_placeholder(req: LabelRequirement) -> bool:
    """A requirement whose key or values are still to be filled in (``${GPU_TYPE}``)."""
    return placeholders.is_placeholder(req.key) or any(
        placeholders.is_placeholder(v) for v in req.values
    )


_MODEL_TOKEN = re.compile(r"^[a-z]{1,2}[0-9]{1,3}[a-z]?$")  # t4, a100, l40s, a10g, gh200


@cache
def model_tokens() -> frozenset[str]:
    """GPU model names as words (``a100``, ``t4``...), from the catalog's product labels."""
    words = {w for label in catalog.product_labels() for w in _tokens(label)}
    words |= {w for value in catalog.gke_accelerators() for w in _tokens(value)}
    return frozenset(w for w in words if _MODEL_TOKEN.match(w))


def names_model(value: str) -> bool:
    """A label value that names a GPU model, whatever the key (``gpu-type: a100``)."""
    return bool(_tokens(value.replace(".", "-")) & model_tokens())


def pins_model(req: LabelRequirement) -> bool:
    """A requirement that narrows nodes to GPU models: In (or a numeric bound) on a
    model key, or In on any key whose values all name a known GPU model. A placeholder
    value (``{{workflow.parameters.gpu}}``) may name one, unless the key is one whose
    values never do (``topology.kubernetes.io/zone``)."""
    if req.operator == "In" and holds_placeholder(req):
        return req.key not in gpu_label_families.NOT_GPU_KEYS
    if req.operator == "In" and req.values and all(names_model(v) for v in req.values):
        return True
    if not is_model_key(req.key):
        return False
    return (req.operator == "In" and bool(req.values)) or req.operator in ("Gt", "Lt")


def selects_gpu_nodes(req: LabelRequirement) -> bool:
    """A requirement that only GPU nodes can satisfy (a placeholder value may say none)."""
    if holds_placeholder(req):
        return False
    if req.operator == "In" and gpu_label_families.names_gpu_instances(req.key, req.values):
        return True  # node.kubernetes.io/instance-type: p4d.24xlarge
    if not is_gpu_label(req.key):
        return False
    if req.operator == "In":
        return bool(req.values) and not all(v.lower() in _NEGATIVE for v in req.values)
    if req.operator == "Exists":
        return True
    if req.operator == "Gt" and req.values:
        try:
            return int(req.values[0]) >= 0
        except ValueError:
            return False
    return False


def requirements_from_labels(
    labels: Mapping[str, object], path: tuple = ("metadata", "labels")
) -> list[LabelRequirement]:
    """A Node's labels as requirements, so the same checks run on nodes."""
    found = []
    for key, value in labels.items():
        text = "" if value is None else str(value)
        if isinstance(value, bool):
            text = "true" if value else "false"
        found.append(LabelRequirement(str(key), "In", (text,), path + (key,), None))
    return found


# --- GPU nodes --------------------------------------------------------------------------------

# Taint effects that keep pods without a toleration off a node.
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def _positive(value: object) -> bool:
    try:
        return parse_quantity(value) > 0
    except QuantityError:
        return False


def node_gpu_evidence(
    obj: Mapping[str, Any], labels: Mapping[str, Any]
) -> tuple[tuple, str] | None:
    """(path, description) of the first thing that says a Node has GPUs: a GPU
    resource in status.capacity or status.allocatable, else a GPU label."""
    status = obj.get("status")
    if isinstance(status, Mapping):
        for section in ("capacity", "allocatable"):
            values = status.get(section)
            if isinstance(values, Mapping):
                for name, value in values.items():
                    if is_gpu_resource(str(name)) and _positive(value):
                        return ("status", section, name), f"{section} {name}: {value}"
    for req in requirements_from_labels(labels):
        if selects_gpu_nodes(req):
            return req.path, f"label {req.key}={req.values[0]}"
    return None


def gpu_node_pin(spec: Mapping[str, Any]) -> LabelRequirement | None:
    """The requirement that keeps a pod on GPU nodes in every affinity term (the first
    term's), or None when some term lets it land elsewhere."""
    pinning = []
    for reqs in requirement_sets(spec):
        found = next((r for r in reqs if selects_gpu_nodes(r)), None)
        if found is None:
            return None
        pinning.append(found)
    return pinning[0] if pinning else None


def has_gpu_taint(taints: Any, keys: Sequence[str]) -> bool:
    """Whether a Node's ``spec.taints`` keep pods off it with one of the GPU taint keys."""
    if not isinstance(taints, list):
        return False
    return any(
        isinstance(t, Mapping) and t.get("key") in keys and t.get("effect") in BLOCKING_EFFECTS
        for t in taints
    )


# --- Did you mean ---------------------------------------------------------------------------

_SEPARATORS = re.compile(r"[\s_]+")
_NOISE_TOKENS = frozenset({"nvidia", "tesla"})


def _tokens(value: str) -> frozenset[str]:
    text = _SEPARATORS.sub("-", value.strip().lower())
    return frozenset(t for t in text.split("-") if t and t not in _NOISE_TOKENS)


def _match(value: str, known: Iterable[str]) -> list[str]:
    """Known values that ``value`` most likely meant, best kind of match first."""
    known = sorted(set(known))
    norm = _SEPARATORS.sub("-", value.strip()).lower()
    forms = {norm, "nvidia-" + norm, norm.removeprefix("nvidia-")}
    exact = [k for k in known if k.lower() in forms]
    if exact:
        return exact
    tokens = _tokens(value)
    if not tokens:
        return []
    same = [k for k in known if _tokens(k) == tokens]
    if same:
        return same
    # "A100" -> every A100; "NVIDIA-H100-80GB" -> "NVIDIA-H100-80GB-HBM3".
    wider = [k for k in known if tokens < _tokens(k)]
    if wider:
        return wider
    # "NVIDIA-H200-SXM5-141GB" -> "NVIDIA-H200": a known value plus words GFD never adds.
    return [k for k in known if _tokens(k) and _tokens(k) < tokens]


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


# --- Can these labels hold together? ---------------------------------------------------------


@dataclass(frozen=True)
class Contradiction:
    at: LabelRequirement  # where to point: the requirement that cannot hold with the others
    message: str


def _quote(req: LabelRequirement) -> str:
    if req.operator == "In" and len(req.values) == 1:
        return f"{req.key}={req.values[0]}"
    if req.operator in ("In", "NotIn"):
        return f"{req.key} {req.operator} [{', '.join(req.values)}]"
    if req.operator in ("Gt", "Lt"):
        return f"{req.key} {req.operator} {req.values[0] if req.values else '?'}"
    return f"{req.key} {req.operator}"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _same_key_conflicts(reqs: Sequence[LabelRequirement]) -> list[Contradiction]:
    """Two requirements on one GPU label that no single value satisfies."""
    found = []
    by_key: dict[str, list[LabelRequirement]] = {}
    for req in reqs:
        if is_gpu_label(req.key) or is_model_key(req.key):
            by_key.setdefault(req.key, []).append(req)
    for key, group in by_key.items():
        if len(group) < 2:
            continue
        pinned = [r for r in group if r.operator == "In"]
        if pinned:
            # Narrow the first pinned set requirement by requirement; the one that
            # empties it is where the contradiction shows.
            first = pinned[0]
            values = set(first.values)
            for req in group:
                if req is first:
                    continue
                values = {v for v in values if req.allows(v)}
                if not values:
                    message = f"{_quote(req)} contradicts {_quote(first)}: no node has both"
                    found.append(Contradiction(req, message))
                    break
            continue
        ops = {r.operator for r in group}
        if "Exists" in ops and "DoesNotExist" in ops:
            found.append(
                Contradiction(group[-1], f"{key} is required both to exist and not to exist")
            )
    return found


def _candidates(reqs: Sequence[LabelRequirement]) -> tuple[LabelRequirement, list[str]] | None:
    """The requirement that pins the GPU model and its values, when every value is known."""
    for key in (PRODUCT, GKE_ACCELERATOR):
        pinned = [r for r in reqs if r.key == key and r.operator == "In" and r.values]
        if not pinned:
            continue
        values = set(pinned[0].values)
        for r in pinned[1:]:
            values &= set(r.values)
        values_sorted = sorted(values)
        if not values_sorted:
            return None  # reported as a same-key contradiction
        if key == PRODUCT and all(catalog.gpu_for_product(v) for v in values_sorted):
            return pinned[0], values_sorted
        gke = catalog.gke_accelerators()
        if key == GKE_ACCELERATOR and all(gke.get(v) for v in values_sorted):
            return pinned[0], values_sorted
    return None


def _gpu_of(source: LabelRequirement, value: str) -> tuple[catalog.Gpu, str | None, bool]:
    """(GPU, MIG profile of a MIG-single product label, label says MIG-INVALID)."""
    if source.key == GKE_ACCELERATOR:
        gpu = catalog.gke_accelerators()[value]
        assert gpu is not None
        return gpu, None, False
    _base, profile, _shared = catalog.split_product(value)
    gpu = catalog.gpu_for_product(value)
    assert gpu is not None
    return gpu, (None if profile == "INVALID" else profile), profile == "INVALID"


def _mib(gpu: catalog.Gpu) -> str:
    known = sorted({m for m in (gpu.memory_mib, *gpu.memory_mib_observed) if m})
    return " or ".join(str(m) for m in known) + " MiB" if known else "unknown memory"


def _memory_conflict(gpu: catalog.Gpu, req: LabelRequirement) -> bool:
    known = [m for m in (gpu.memory_mib, *gpu.memory_mib_observed) if m]
    if not known:
        return False
    tol = catalog.MEMORY_TOLERANCE
    if req.operator == "In":
        numbers = [n for n in (_number(v) for v in req.values) if n is not None]
        if len(numbers) != len(req.values):
            return False  # not a number: nothing to compare
        return not any(gpu.memory_matches(n) for n in numbers)
    bound = _number(req.values[0]) if req.values else None
    if bound is None:
        return False
    if req.operator == "Gt":
        return max(known) * (1 + tol) <= bound
    if req.operator == "Lt":
        return min(known) * (1 - tol) >= bound
    return False


def _why_not(
    gpu: catalog.Gpu,
    name: str,
    profile: str | None,
    invalid: bool,
    others: Sequence[LabelRequirement],
) -> tuple[LabelRequirement | None, str] | None:
    """The first requirement that the GPU ``name`` cannot satisfy, with the reason."""
    gke = catalog.gke_accelerators()
    for req in others:
        key, op = req.key, req.operator
        if key == MEMORY and profile is None and not invalid and _memory_conflict(gpu, req):
            return req, (
                f"{_quote(req)} does not fit {name}, whose nodes report {_mib(gpu)} "
                f"(within {catalog.MEMORY_TOLERANCE:.0%}): a label left over from other hardware"
            )
        family_req = key == FAMILY and op in ("In", "NotIn") and req.values
        if family_req and gpu.family and (gpu.family in req.values) != (op == "In"):
            return req, f"{_quote(req)} contradicts {name}, a {gpu.family} GPU"
        if key == COUNT and op == "In" and not invalid and profile is None:
            counts = [_number(v) for v in req.values]
            if all(c is not None and c < 1 for c in counts):
                return req, (
                    f"{_quote(req)} contradicts {name}: GPU feature discovery writes "
                    "a count of 0 only with a -MIG-INVALID product"
                )
        if key == GKE_ACCELERATOR and op == "In" and req.values:
            mapped = [gke.get(v) for v in req.values]
            if all(mapped) and gpu not in mapped:
                return req, f"{_quote(req)} is a different GPU from {name}"
        if key == PRODUCT and op == "In" and req.values:
            mapped = [catalog.gpu_for_product(v) for v in req.values]
            if all(mapped) and gpu not in mapped:
                return req, f"{_quote(req)} is a different GPU from {name}"
        if key == MIG_STRATEGY and op == "In" and profile and set(req.values) == {"mixed"}:
            return req, (
                f"{_quote(req)} contradicts {name}: GPU feature discovery adds -MIG-<profile> "
                "to the product only under the single strategy"
            )
        mig = _mig_conflict(gpu, name, req)
        if mig:
            return req, mig
    if profile is not None:
        if not gpu.mig_capable:
            return None, f"{name} names a MIG device, but {gpu.id} does not support MIG"
        if profile not in gpu.mig_profiles:
            return None, (
                f"{name} names MIG profile {profile}, which {gpu.id} does not offer "
                f"(it offers {', '.join(sorted(gpu.mig_profiles))})"
            )
    return None


def _mig_conflict(gpu: catalog.Gpu, name: str, req: LabelRequirement) -> str | None:
    key, op, values = req.key, req.operator, req.values
    positive = op == "In" and bool(values) or op in ("Exists", "Gt")
    profiles = {catalog.mig_resource_profile(p) for p in gpu.mig_profiles} | set(gpu.mig_profiles)
    if key == MIG_CAPABLE and op == "In" and values:
        wanted = {v.lower() for v in values}
        if gpu.mig_capable and wanted == {"false"}:
            return f"{_quote(req)} contradicts {name}, which supports MIG"
        if not gpu.mig_capable and wanted == {"true"}:
            return f"{_quote(req)} contradicts {name}, which does not support MIG"
        return None
    if gpu.mig_capable:
        match = _MIG_PROFILE_KEY.match(key)
        if match and positive and match.group("profile") not in profiles:
            return (
                f"{_quote(req)} names MIG profile {match.group('profile')}, which {name} "
                f"does not offer (it offers {', '.join(sorted(gpu.mig_profiles))})"
            )
        if key == GKE_PARTITION and op == "In" and values and not set(values) & profiles:
            return f"{_quote(req)} is not a MIG profile of {name}"
        return None
    # Not MIG-capable: labels written only for MIG devices contradict it. (Not
    # nvidia.com/mig.strategy, which GFD writes on every node when the plugin's
    # strategy is single or mixed, nor nvidia.com/mig.config, which users set.)
    if (_MIG_PROFILE_KEY.match(key) or key == GKE_PARTITION) and positive:
        return f"{_quote(req)} asks for MIG devices, but {name} does not support MIG"
    return None


def contradictions(reqs: Sequence[LabelRequirement]) -> list[Contradiction]:
    """Why no node can carry all of ``reqs`` (one conjunction of requirements).

    Only knowledge from the catalog is used; an unknown product or a value
    gpulint cannot compare is never called a contradiction.
    """
    reqs = [r for r in reqs if not holds_placeholder(r)]  # nothing to compare yet
    found = _same_key_conflicts(reqs)
    if found:
        return found
    pinned = _candidates(reqs)
    if pinned is None:
        return []
    source, values = pinned
    others = [r for r in reqs if r is not source]
    reasons = []
    for value in values:
        gpu, profile, invalid = _gpu_of(source, value)
        why = _why_not(gpu, value, profile, invalid, others)
        if why is None:
            return []  # this value can hold together with the rest
        reasons.append(why)
    if len(reasons) == 1:
        at, message = reasons[0]
        return [Contradiction(at or source, message)]
    joined = "; ".join(message for _at, message in reasons)
    return [Contradiction(source, f"none of {_quote(source)} can hold: {joined}")]
