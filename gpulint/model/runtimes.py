"""The runtime layer across files: RuntimeClasses, the runtimeClassName of GPU pods, and
whether the GPU Operator's container toolkit manages the nodes' containerd config.

Kubernetes ``node.k8s.io/v1`` RuntimeClass: ``handler`` is the name of the CRI runtime
(containerd's ``runtimes.<name>``) that pods of this class run with. The GPU Operator
creates RuntimeClasses ``nvidia``, ``nvidia-cdi`` and ``nvidia-legacy`` itself
(gpu-operator ``assets/pre-requisites/02*_runtime_class*.yaml``;
``containerd.OPERATOR_RUNTIME_CLASSES``), and its toolkit
DaemonSet adds the runtimes of those names to containerd's config on every GPU node
(``nvidia-ctk runtime configure``), unless ``toolkit.enabled`` is false.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gpulint.model.nvidia import operator, recognise
from gpulint.model.resource import PodSpec, Resource

NVIDIA_PREFIX = "nvidia.com/"


@dataclass(frozen=True)
class RuntimeClassView:
    name: str
    handler: str | None


def runtime_class(resource: Resource) -> RuntimeClassView | None:
    if resource.kind != "RuntimeClass" or not resource.api_version.startswith("node.k8s.io/"):
        return None
    handler = resource.obj.get("handler")
    return RuntimeClassView(resource.name, handler if isinstance(handler, str) else None)


def requests_nvidia_gpu(pod: PodSpec) -> bool:
    return any(name.startswith(NVIDIA_PREFIX) for c in pod.containers for name in c.gpus)


def pod_runtime_classes(resource: Resource) -> Iterator[tuple[PodSpec, Any]]:
    """Each pod spec and its ``runtimeClassName`` (None when unset)."""
    for pod in resource.pod_specs:
        yield pod, pod.spec.get("runtimeClassName")


def toolkit_managed_resource(resource: Resource) -> bool:
    """A ClusterPolicy whose container toolkit is not disabled."""
    if not operator.is_cluster_policy(resource):
        return False
    spec = resource.obj.get("spec")
    toolkit = spec.get("toolkit") if isinstance(spec, dict) else None
    return not (isinstance(toolkit, dict) and toolkit.get("enabled") is False)


def toolkit_managed_document(data: Any, values_for: str | None) -> bool:
    """GPU Operator chart values whose ``toolkit.enabled`` is not false."""
    for where in recognise.place(data, values_for):
        if where.kind != recognise.OPERATOR_CHART:
            continue
        values = data
        for part in where.prefix:
            values = values.get(part) if isinstance(values, dict) else None
        toolkit = values.get("toolkit") if isinstance(values, dict) else None
        if not (isinstance(toolkit, dict) and toolkit.get("enabled") is False):
            return True
    return False
