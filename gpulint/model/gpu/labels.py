"""GPU node labels: which keys name a GPU model and which only GPU nodes carry.

Whether a set of label requirements can hold together on one node is
``gpu_label_conflicts``; did-you-mean for label values is ``gpu_label_suggestions``.

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
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.model.gpu import label_families
from gpulint.model.node_requirements import LabelRequirement, requirement_sets
from gpulint.model.values import placeholders
from gpulint.model.values.gpu_resources import is_gpu_resource
from gpulint.model.values.quantity import QuantityError, parse_quantity

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
MIG_PROFILE_KEY = lazy(r"^nvidia\.com/mig-(?P<profile>[0-9]+g\.[0-9]+gb[a-z.+-]*?)\.[a-z.-]+$")


def is_gpu_label(key: str) -> bool:
    """Whether only GPU nodes carry this label."""
    return (
        key in _GPU_NODE_KEYS
        or key.startswith(_GPU_NODE_PREFIXES)
        or label_families.is_family_key(key)
    )


def is_model_key(key: str) -> bool:
    """GFD's and the clouds' model keys, and every key of a provider's GPU label family."""
    return key in MODEL_KEYS or label_families.is_family_key(key)


def holds_placeholder(req: LabelRequirement) -> bool:
    """A requirement whose key or values are still to be filled in (``${GPU_TYPE}``)."""
    return placeholders.is_placeholder(req.key) or any(
        placeholders.is_placeholder(v) for v in req.values
    )


SEPARATORS = re.compile(r"[\s_]+")  # between the words of a label value
_NOISE_TOKENS = frozenset({"nvidia", "tesla"})


def value_tokens(value: str) -> frozenset[str]:
    """The words of a label value, lower-case, without vendor noise (``nvidia``, ``tesla``)."""
    text = SEPARATORS.sub("-", value.strip().lower())
    return frozenset(t for t in text.split("-") if t and t not in _NOISE_TOKENS)


_MODEL_TOKEN = re.compile(r"^[a-z]{1,2}[0-9]{1,3}[a-z]?$")  # t4, a100, l40s, a10g, gh200


@cache
def model_tokens() -> frozenset[str]:
    """GPU model names as words (``a100``, ``t4``...), from the catalog's product labels."""
    words = {w for label in catalog.product_labels() for w in value_tokens(label)}
    words |= {w for value in catalog.gke_accelerators() for w in value_tokens(value)}
    return frozenset(w for w in words if _MODEL_TOKEN.match(w))


def names_model(value: str) -> bool:
    """A label value that names a GPU model, whatever the key (``gpu-type: a100``)."""
    return bool(value_tokens(value.replace(".", "-")) & model_tokens())


def pins_model(req: LabelRequirement) -> bool:
    """A requirement that narrows nodes to GPU models: In (or a numeric bound) on a
    model key, or In on any key whose values all name a known GPU model. A placeholder
    value (``{{workflow.parameters.gpu}}``) may name one, unless the key is one whose
    values never do (``topology.kubernetes.io/zone``)."""
    if req.operator == "In" and holds_placeholder(req):
        return req.key not in label_families.NOT_GPU_KEYS
    if req.operator == "In" and req.values and all(names_model(v) for v in req.values):
        return True
    if not is_model_key(req.key):
        return False
    return (req.operator == "In" and bool(req.values)) or req.operator in ("Gt", "Lt")


def selects_gpu_nodes(req: LabelRequirement) -> bool:
    """A requirement that only GPU nodes can satisfy (a placeholder value may say none)."""
    if holds_placeholder(req):
        return False
    if req.operator == "In" and label_families.names_gpu_instances(req.key, req.values):
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


def gpu_node_pin(spec: dict) -> LabelRequirement | None:
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
