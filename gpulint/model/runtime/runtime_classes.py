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

import re
from collections.abc import Iterator
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model import source_text
from gpulint.model.nvidia import operator, recognise
from gpulint.model.resource import PodSpec, Resource
from gpulint.model.values.paths import at_path
from gpulint.yaml.parse import Document

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
# (the operator passes it through toolkit.env). NVIDIA/nvidia-container-toolkit
# cmd/nvidia-ctk-installer/container/runtime/runtime.go: flag set-as-default, default true,
# EnvVars NVIDIA_RUNTIME_SET_AS_DEFAULT, CONTAINERD_SET_AS_DEFAULT, DOCKER_SET_AS_DEFAULT.
SET_AS_DEFAULT = (
    "CONTAINERD_SET_AS_DEFAULT",
    "RUNTIME_SET_AS_DEFAULT",
    "NVIDIA_RUNTIME_SET_AS_DEFAULT",
    "DOCKER_SET_AS_DEFAULT",
)
# The toolkit installer's accept-nvidia-visible-devices-envvar-when-unprivileged (default true):
# false makes the runtime ignore NVIDIA_VISIBLE_DEVICES in unprivileged containers
# (NVIDIA/cloud-native-docs gpu-operator/security-considerations.rst).
ACCEPT_ENVVAR_UNPRIVILEGED = "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED"
_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def go_bool(value: Any) -> bool | None:
    """A value as Go's strconv.ParseBool (urfave/cli's BoolFlag) reads it; None if it fails."""
    if isinstance(value, bool):
        return value
    text = str(value).strip()
    return True if text in _GO_TRUE else False if text in _GO_FALSE else None


@record(frozen=True)
class OperatorToolkit:
    """What GPU Operator settings (ClusterPolicy spec or chart values) say of the toolkit."""

    prefix: tuple  # where the settings are (spec, or the values' place in the document)
    enabled: bool
    not_default: tuple | None  # path of a SET_AS_DEFAULT=false env value, if any
    cdi_disabled: bool  # cdi.enabled: false, written out
    explicit_default: bool | None = None  # a SET_AS_DEFAULT env value, parsed
    cdi_enabled: bool = False  # cdi.enabled: true, written out
    refuses_envvar: bool = False  # ACCEPT_..._WHEN_UNPRIVILEGED=false in toolkit.env

    @property
    def manages_default(self) -> bool:
        """The toolkit runs and makes the NVIDIA runtime containerd's default."""
        return self.enabled and self.not_default is None

    @property
    def sets_nvidia_default(self) -> bool:
        """Certainly makes the NVIDIA runtime the default: with CDI enabled the operator sets
        NVIDIA_RUNTIME_SET_AS_DEFAULT=false (gpu-operator controllers/object_controls.go
        transformToolkitCtrForCDI), and the chart's cdi.enabled default changed across
        releases (false in v24.6, true in v26.7), so only cdi.enabled: false written out, or
        a SET_AS_DEFAULT=true in toolkit.env (applied after it), settles it."""
        return self.default_state is True

    @property
    def default_state(self) -> bool | None:
        """True: the toolkit makes NVIDIA's runtime the default; False: it does not (or
        does not run); None: the chart version decides (cdi.enabled not written)."""
        if not self.enabled:
            return False
        if self.explicit_default is not None:
            return self.explicit_default
        return True if self.cdi_disabled else False if self.cdi_enabled else None


def _toolkit(settings: Any, prefix: tuple) -> OperatorToolkit | None:
    if not isinstance(settings, dict):
        return None
    toolkit = settings.get("toolkit")
    toolkit = toolkit if isinstance(toolkit, dict) else {}
    enabled = toolkit.get("enabled") is not False
    not_default = None
    explicit: bool | None = None
    refuses = False
    env = toolkit.get("env")
    for index, item in enumerate(env if isinstance(env, list) else ()):
        if not isinstance(item, dict):
            continue
        value = go_bool(item.get("value"))
        if item.get("name") in SET_AS_DEFAULT and value is not None:
            explicit = value  # the toolkit container's env: the last entry wins
            not_default = prefix + ("toolkit", "env", index, "value") if not value else None
        elif item.get("name") == ACCEPT_ENVVAR_UNPRIVILEGED and value is not None:
            refuses = value is False
    cdi = settings.get("cdi")
    cdi_disabled = isinstance(cdi, dict) and cdi.get("enabled") is False
    cdi_enabled = isinstance(cdi, dict) and cdi.get("enabled") is True
    return OperatorToolkit(
        prefix, enabled, not_default, cdi_disabled, explicit, cdi_enabled, refuses
    )


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
        toolkit = _toolkit(at_path(data, where.prefix), where.prefix)
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


# The toolkit's own config file (/etc/nvidia-container-runtime/config.toml), a top-level key.
_REFUSES = lazy(
    r"^[ \t]*accept-nvidia-visible-devices-envvar-when-unprivileged[ \t]*=[ \t]*false\b", re.M
)


def refuses_envvar_text(text: str) -> bool:
    """A toolkit config.toml (alone or inside a YAML string) that ignores the variable in
    unprivileged containers."""
    return "envvar-when-unprivileged" in text and _REFUSES.search(text) is not None


def refuses_envvar_source(doc: Document) -> bool:
    """:func:`refuses_envvar_text` of the document's whole source, searched once per source
    (each of a file's documents asks)."""
    return source_text.once(doc.source, refuses_envvar_text)
