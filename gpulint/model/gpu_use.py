"""Whether a pod gets a GPU by some means other than a device-plugin GPU resource.

Fractional-GPU schedulers and DRA give pods GPUs that ``resources.limits`` does
not show: such pods rightly tolerate GPU taints and select GPU nodes.
"""

from __future__ import annotations

from gpulint.model.resource import PodSpec

# Pod annotations of GPU-sharing schedulers (KAI Scheduler / Run:ai: gpu-fraction,
# gpu-memory; see the KAI Scheduler docs/gpu-sharing examples).
_FRACTION_ANNOTATIONS = ("gpu-fraction", "gpu-memory", "gpu-fraction-num-devices")


def _gpu_like_resource(name: str) -> bool:
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
    for container in pod.containers:
        resources = container.data.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in ("limits", "requests"):
            values = resources.get(section)
            if isinstance(values, dict):
                for name in values:
                    if _gpu_like_resource(str(name)):
                        return f"it requests {name}"
    return None


def first_gpu_limit(pod: PodSpec) -> tuple[tuple, str, str, int] | None:
    """(path, container, resource, count) of the pod's first GPU limit (or request)."""
    for container in pod.containers:
        for name, count in sorted(container.gpus.items()):
            resources = container.data.get("resources") or {}
            section = "limits" if name in (resources.get("limits") or {}) else "requests"
            return container.path + ("resources", section, name), container.name, name, count
    return None
