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
from typing import Any

from gpulint.model.nvidia import operator, recognise
from gpulint.model.resource import PodSpec, Resource
from gpulint.record import record

NVIDIA_PREFIX = "nvidia.com/"


@record(frozen=True)
class RuntimeClassView:
    """A RuntimeClass: its name and handler."""

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


# The toolkit installer's switch for making the NVIDIA runtime containerd's default
# (the operator passes it through toolkit.env; RUNTIME_SET_AS_DEFAULT is its newer name).
SET_AS_DEFAULT = ("CONTAINERD_SET_AS_DEFAULT", "RUNTIME_SET_AS_DEFAULT")


@record(frozen=True)
class OperatorToolkit:
    """What GPU Operator settings (ClusterPolicy spec or chart values) say of the toolkit."""

    prefix: tuple  # where the settings are (spec, or the values' place in the document)
    enabled: bool
    not_default: tuple | None  # path of a SET_AS_DEFAULT=false env value, if any
    cdi_disabled: bool  # cdi.enabled: false, written out

    @property
    def manages_default(self) -> bool:
        """The toolkit runs and makes the NVIDIA runtime containerd's default."""
        return self.enabled and self.not_default is None


def _toolkit(settings: Any, prefix: tuple) -> OperatorToolkit | None:
    if not isinstance(settings, dict):
        return None
    toolkit = settings.get("toolkit")
    toolkit = toolkit if isinstance(toolkit, dict) else {}
    enabled = toolkit.get("enabled") is not False
    not_default = None
    env = toolkit.get("env")
    for index, item in enumerate(env if isinstance(env, list) else ()):
        named = isinstance(item, dict) and item.get("name") in SET_AS_DEFAULT
        if named and str(item.get("value")).lower() == "false":
            not_default = prefix + ("toolkit", "env", index, "value")
    cdi = settings.get("cdi")
    cdi_disabled = isinstance(cdi, dict) and cdi.get("enabled") is False
    return OperatorToolkit(prefix, enabled, not_default, cdi_disabled)


def operator_toolkit_resource(resource: Resource) -> OperatorToolkit | None:
    if not operator.is_cluster_policy(resource):
        return None
    return _toolkit(resource.obj.get("spec"), ("spec",))


def operator_toolkits_document(data: Any, values_for: str | None) -> list[OperatorToolkit]:
    """GPU Operator chart values (also under ``gpu-operator:`` in an umbrella chart's)."""
    found = []
    for where in recognise.place(data, values_for):
        if where.kind != recognise.OPERATOR_CHART:
            continue
        values = data
        for part in where.prefix:
            values = values.get(part) if isinstance(values, dict) else None
        toolkit = _toolkit(values, where.prefix)
        if toolkit is not None:
            found.append(toolkit)
    return found


def toolkit_managed_resource(resource: Resource) -> bool:
    """A ClusterPolicy whose container toolkit is not disabled."""
    toolkit = operator_toolkit_resource(resource)
    return toolkit is not None and toolkit.enabled


def toolkit_managed_document(data: Any, values_for: str | None) -> bool:
    """GPU Operator chart values whose ``toolkit.enabled`` is not false."""
    return any(t.enabled for t in operator_toolkits_document(data, values_for))
