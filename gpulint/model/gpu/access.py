"""Whether a pod gets a GPU by some means other than a device-plugin GPU resource.

Fractional-GPU schedulers and DRA give pods GPUs that ``resources.limits`` does
not show: such pods rightly tolerate GPU taints and select GPU nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from gpulint import catalog
from gpulint.model.resource import PodSpec
from gpulint.model.values.gpu_resources import gpu_entries

# Pod annotations of GPU-sharing schedulers (KAI Scheduler / Run:ai: gpu-fraction,
# gpu-memory; see the KAI Scheduler docs/gpu-sharing examples).
_FRACTION_ANNOTATIONS = ("gpu-fraction", "gpu-memory", "gpu-fraction-num-devices")


def gpu_like_resource(name: str) -> bool:
    """Extended resources of GPU-sharing plugins (HAMi nvidia.com/gpumem, volcano.sh/vgpu-*...)."""
    if "/" not in name:
        return False
    domain, _, rest = name.partition("/")
    rest = rest.lower()
    return domain == "nvidia.com" or "gpu" in rest or "vcuda" in rest


def other_gpu_use(pod: PodSpec) -> str | None:
    """Why the pod has a GPU without a GPU resource, or None."""
    claims = pod.spec.get("resourceClaims")
    if isinstance(claims, list) and claims:
        return "it declares resourceClaims (Dynamic Resource Allocation)"
    annotations = pod.metadata.get("annotations")
    if isinstance(annotations, dict):
        for key in annotations:
            if str(key).rsplit("/", 1)[-1] in _FRACTION_ANNOTATIONS:
                return f"it asks for a GPU share with the {key} annotation"
    for name in _resource_names(pod):
        if gpu_like_resource(name):
            return f"it requests {name}"
    return None


def _resource_names(pod: PodSpec) -> Iterator[str]:
    """The resource names the pod's containers limit or request."""
    for container in pod.containers:
        resources = container.data.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in ("limits", "requests"):
            values = resources.get(section)
            if isinstance(values, dict):
                yield from map(str, values)


def first_gpu_limit(pod: PodSpec) -> tuple[tuple, str, str, int] | None:
    """(path, container, resource, count) of the pod's first GPU limit (or request)."""
    for container in pod.containers:
        for name, count in sorted(container.gpus.items()):
            section = "limits" if name in gpu_entries(container.data, "limits") else "requests"
            return container.path + ("resources", section, name), container.name, name, count
    return None


# GPU vendors by the API domain of their resource names and taint keys.
_VENDOR_DOMAINS = {"nvidia.com": "nvidia", "amd.com": "amd", "gpu.intel.com": "intel"}


def vendor_of(name: str) -> str | None:
    """``nvidia.com/gpu`` -> nvidia; a key of no GPU vendor (``sku``) -> None."""
    return _VENDOR_DOMAINS.get(name.split("/", 1)[0]) if "/" in name else None


def image_vendor(image: str) -> str | None:
    """Vendor of a GPU infrastructure image (None: serves any vendor, such as NFD)."""
    text = image.lower()
    if "rocm/" in text or "amd" in text.split("/")[-1]:
        return "amd"
    if "intel" in text:
        return "intel"
    if "nvidia" in text:
        return "nvidia"
    return None


def taint_keys_for(vendors: set[str | None], keys: tuple[str, ...]) -> tuple[str, ...]:
    """The GPU taint keys that concern pods of these vendors: an NVIDIA taint keeps
    NVIDIA nodes, not AMD ones; a vendor-neutral key (``sku``) concerns them all."""
    if None in vendors:
        return keys
    return tuple(k for k in keys if vendor_of(k) in (None, *vendors))


# Annotations that pin the GPU type for the pod: HAMi's (examples/nvidia/
# specify_card_type_to_use.yaml) on the pod, KServe's (docs/samples/accelerators,
# turned into a gke-accelerator node selector) on the InferenceService.
_MODEL_ANNOTATIONS = (
    "nvidia.com/use-gputype",
    "nvidia.com/use-gpuuuid",
    "serving.kserve.io/gke-accelerator",
)


def model_annotation(pod: PodSpec) -> str | None:
    """An annotation, on the pod template or its object, that pins the GPU type."""
    for metadata in (pod.metadata, pod.resource.metadata):
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            for key in _MODEL_ANNOTATIONS:
                if annotations.get(key):
                    return key
    return None


@cache
def _other_accelerators() -> tuple[frozenset[str], tuple[str, ...]]:
    resources = catalog.raw()["resources"]
    names = frozenset(resources["other_accelerators"])
    return names, tuple(resources["other_accelerator_prefixes"])


def other_accelerator(pod: PodSpec) -> str | None:
    """The first accelerator that is not a GPU (AWS Neuron, Intel Gaudi, Cloud TPU: the
    catalog's ``other_accelerators``) a container of the pod requests, or None. Such a pod
    fits only a node whose device plugin advertises it, which no GPU node's does."""
    names, prefixes = _other_accelerators()
    return next((n for n in _resource_names(pod) if n in names or n.startswith(prefixes)), None)
