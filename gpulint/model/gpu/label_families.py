"""Providers' own GPU label families, and instance types that come with GPUs.

Besides GPU feature discovery's ``nvidia.com/gpu.*`` (gpu_labels.py), clouds label GPU nodes
with their own keys. A pod that pins its GPU through one of them selects its hardware as
surely as with ``nvidia.com/gpu.product``: each key of a family below describes the GPU of
the node (model, class, memory, count, maker), so an ``In`` (or ``Gt``/``Lt``) on any of them
counts as choosing a GPU model. Whether the value is one the provider uses is a different
question (GPU206's, when it can suggest the right one).

Sources:
- CoreWeave: coreweave/kubernetes-cloud docs/coreweave-kubernetes/label-selectors.md and
  node-types.md (``gpu.nvidia.com/class`` values A40, RTX_A5000, RTX_A6000, Quadro_RTX_5000,
  A100_PCIE_80GB...; ``gpu.nvidia.com/model``, ``gpu.nvidia.com/vram`` in GB,
  ``gpu.nvidia.com/count``, ``gpu.nvidia.com/nvlink``).
- Karpenter for AWS: aws/karpenter-provider-aws website/content/en/*/reference/instance-types.md
  (``karpenter.k8s.aws/instance-gpu-name|manufacturer|count|memory`` on every GPU type).
- EKS Auto Mode: docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html
  (``eks.amazonaws.com/instance-gpu-name|manufacturer|count|memory``).
- Karpenter for Azure (AKS node auto-provisioning): Azure/karpenter-provider-azure, its
  well-known labels table and the node-label tests (``karpenter.azure.com/sku-gpu-name|
  manufacturer|count``).
- Instance types with GPUs: the catalog's ``gpu_instance_types`` (AWS, GCP, Azure, OCI).
"""

from __future__ import annotations

import re
from functools import cache

from gpulint import catalog
from gpulint.core.record import record


@record(frozen=True)
class LabelFamily:
    """A provider's node labels that name the GPU model."""

    provider: str
    keys: frozenset[str]


FAMILIES = (
    LabelFamily(
        "CoreWeave",
        frozenset(f"gpu.nvidia.com/{k}" for k in ("class", "model", "vram", "count", "nvlink")),
    ),
    LabelFamily(
        "Karpenter (AWS)",
        frozenset(
            f"karpenter.k8s.aws/instance-gpu-{k}"
            for k in ("name", "manufacturer", "count", "memory")
        ),
    ),
    LabelFamily(
        "EKS Auto Mode",
        frozenset(
            f"eks.amazonaws.com/instance-gpu-{k}"
            for k in ("name", "manufacturer", "count", "memory")
        ),
    ),
    LabelFamily(
        "Karpenter (Azure)",
        frozenset(f"karpenter.azure.com/sku-gpu-{k}" for k in ("name", "manufacturer", "count")),
    ),
)
_FAMILY_KEYS = {key: family for family in FAMILIES for key in family.keys}

# Keys whose value is an instance type, or the family part of one (``p4d``, ``a2``).
INSTANCE_TYPE_KEYS = frozenset(
    {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"}
)
INSTANCE_CATEGORY_KEYS = frozenset(
    {"karpenter.k8s.aws/instance-category", "eks.amazonaws.com/instance-category"}
)
INSTANCE_FAMILY_KEYS = frozenset(
    {
        "karpenter.k8s.aws/instance-family",
        "eks.amazonaws.com/instance-family",
        "cloud.google.com/machine-family",
    }
)


def is_family_key(key: str) -> bool:
    return key in _FAMILY_KEYS


@cache
def _instance_patterns() -> tuple[re.Pattern[str], ...]:
    table = catalog.gpu_instance_types()
    aws = "|".join(re.escape(f) for f in table.get("aws_families", ()))
    gcp = "|".join(re.escape(f) for f in table.get("gcp_families", ()))
    azure = "|".join(re.escape(f) for f in table.get("azure_families", ()))
    oci = "|".join(re.escape(p) for p in table.get("oci_prefixes", ()))
    found = []
    if aws:
        found.append(re.compile(rf"^(?:{aws})\.[a-z0-9-]+$"))  # p4d.24xlarge, g6e.xlarge
    if gcp:
        found.append(re.compile(rf"^(?:{gcp})-[a-z0-9-]+$"))  # a2-highgpu-1g, g2-standard-8
    if azure:
        found.append(re.compile(rf"^standard_(?:{azure})[0-9]", re.IGNORECASE))
    if oci:
        found.append(re.compile(rf"^(?:{oci})[0-9]*\.", re.IGNORECASE))  # VM.GPU.A10.1, BM.GPU4.8
    return tuple(found)


def is_gpu_instance_type(value: str) -> bool:
    """An instance type that comes with GPUs (``p4d.24xlarge``, ``Standard_NC24ads_A100_v4``)."""
    return any(p.match(value.strip()) for p in _instance_patterns())


def is_gpu_instance_family(value: str) -> bool:
    """An instance family that comes with GPUs (``p4d``, ``g5``, ``a2``)."""
    table = catalog.gpu_instance_types()
    families = {*table.get("aws_families", ()), *table.get("gcp_families", ())}
    return value.strip().lower() in families


def names_gpu_instances(key: str, values: tuple[str, ...]) -> bool:
    """Whether ``key In values`` keeps a pod on instance types that all come with GPUs."""
    if not values:
        return False
    if key in INSTANCE_TYPE_KEYS:
        return all(is_gpu_instance_type(v) for v in values)
    if key in INSTANCE_FAMILY_KEYS:
        return all(is_gpu_instance_family(v) for v in values)
    if key in INSTANCE_CATEGORY_KEYS:
        categories = catalog.gpu_instance_types().get("aws_categories", ())
        return all(v.strip().lower() in categories for v in values)
    return False


# Keys with a known list of values, for a did-you-mean (GPU206).
COREWEAVE_CLASS = "gpu.nvidia.com/class"
_SEPARATORS = re.compile(r"[\s_-]+")


def _normal(value: str) -> str:
    return _SEPARATORS.sub("_", value.strip()).lower()


def known_values(key: str) -> tuple[str, ...]:
    """The values a provider documents for ``key`` (empty: gpulint has no list)."""
    return catalog.coreweave_gpu_classes() if key == COREWEAVE_CLASS else ()


def suggest_value(key: str, value: str) -> list[str]:
    """Documented values that ``value`` misspells by case or separators (``rtx-a5000``)."""
    known = known_values(key)
    if value in known:
        return []
    return [k for k in known if _normal(k) == _normal(value)]


# Well-known keys whose values never name a GPU (Kubernetes well-known labels; Karpenter's,
# EKS's, GKE's and AKS's capacity-type labels): a placeholder there cannot be a GPU model.
NOT_GPU_KEYS = frozenset(
    {
        "kubernetes.io/os",
        "kubernetes.io/arch",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "karpenter.sh/capacity-type",
        "eks.amazonaws.com/capacityType",
        "cloud.google.com/gke-spot",
        "cloud.google.com/gke-preemptible",
        "kubernetes.azure.com/scalesetpriority",
    }
)
