"""Which mig-parted config the GPU Operator's MIG manager reads, where a run says so.

A ``ClusterPolicy`` (``spec.migManager.config``) or the operator chart's values
(``migManager.config``) name the ConfigMap: ``name`` (none: the operator's default,
``default-mig-parted-config``, or the config MIG manager generates from the node's GPUs),
and ``default``, the config for nodes that carry no ``nvidia.com/mig.config`` label. The
chart creates ConfigMap ``name`` from ``data`` (in the release namespace) only with
``create: true`` and data. MIG manager runs in the operator's namespace and mounts the
ConfigMap there, reading its ``config.yaml`` key. Sources: NVIDIA/gpu-operator (the
catalog's ``gpu_operator.mig_manager``).
"""

from __future__ import annotations

from typing import Any

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.nvidia import mig_parted, operator, recognise
from gpulint.model.resource import Resource
from gpulint.model.values.paths import at_path
from gpulint.model.values.placeholders import is_placeholder

# all-<GI profile>, '+' written '.' (mig-parted pkg/mig/builder/builder.go normalizeProfileName)
_DEFAULT_PROFILE_NAME = lazy(r"^all-[0-9]+g\.[0-9]+gb(\.me|\.gfx|-me|\.me\.all)?$")


def default_configmap() -> str:
    return str(catalog.gpu_operator()["mig_manager"]["default_configmap"])


def config_key() -> str:
    return str(catalog.gpu_operator()["mig_manager"]["config_key"])


def default_names() -> tuple[str, ...]:
    """The default config's fixed names (all-disabled, all-enabled, all-balanced)."""
    return tuple(str(n) for n in catalog.raw()["mig"]["default_config_names"])


def is_default_name(name: str) -> bool:
    """A name of the operator's default config: the fixed ones, or ``all-<profile>`` (which
    profiles depends on the node's GPUs, so any GI profile's name is one)."""
    return name in default_names() or bool(_DEFAULT_PROFILE_NAME.match(name))


def describe_default_names() -> str:
    return ", ".join((*default_names(), "all-<profile>"))


@record(frozen=True)
class Declared:
    """What one input says of the config MIG manager reads."""

    path: tuple  # where it says so: config.name, else the migManager block or the spec
    how: str  # "ClusterPolicy cluster-policy spec.migManager.config.name"
    configmap: str | None  # the ConfigMap; None: the operator's default config
    namespace: str | None  # the operator's namespace, where this input establishes it
    created: bool = False  # the chart creates the ConfigMap from migManager.config.data
    created_names: tuple[str, ...] | None = None  # the config names of that data (None: unread)
    default: tuple[tuple, str] | None = None  # (path, value) of config.default


def from_cluster_policy(resource: Resource) -> Declared | None:
    """A ClusterPolicy always says it (the operator reads nothing else); None when the MIG
    manager is off or the name is not known yet (a placeholder)."""
    if not operator.is_cluster_policy(resource):
        return None
    spec = resource.obj.get("spec")
    manager = spec.get("migManager") if isinstance(spec, dict) else None
    manager = manager if isinstance(manager, dict) else {}
    if manager.get("enabled") is False:
        return None
    config = manager.get("config")
    config = config if isinstance(config, dict) else {}
    base = ("spec", "migManager", "config")
    who = f"ClusterPolicy {resource.name}"
    name = config.get("name")
    if not (name is None or isinstance(name, str)) or is_placeholder(name):
        return None
    default = _default(config, base)
    if name:
        how = f"{who} spec.migManager.config.name"
        configmap = None if name == default_configmap() else name
        return Declared(base + ("name",), how, configmap, None, False, None, default)
    if "config" in manager:
        where: tuple = base
    else:
        where = ("spec", "migManager") if manager else ("spec",) if isinstance(spec, dict) else ()
    how = f"{who} sets no spec.migManager.config.name"
    return Declared(where, how, None, None, False, None, default)


def from_values(data: Any, where: recognise.Placed, who: str) -> Declared | None:
    """What operator chart values say: only an explicit ``migManager.config.name`` does (other
    values files of the release may set it), or ``create: true`` with data."""
    values = at_path(data, where.prefix)
    manager = values.get("migManager") if isinstance(values, dict) else None
    if not isinstance(manager, dict) or manager.get("enabled") is False:
        return None
    config = manager.get("config")
    if not isinstance(config, dict) or "name" not in config:
        return None
    base = where.prefix + ("migManager", "config")
    name = config.get("name")
    if name is None:
        name = ""
    if not isinstance(name, str) or is_placeholder(name):
        return None
    namespace = release_namespace(data, where.prefix)
    default = _default(config, base)
    body = config.get("data")
    if config.get("create") is True and isinstance(body, dict) and body:
        if not name:
            return None  # the chart would render a ConfigMap without a name
        how = f"{who} migManager.config.name, created from migManager.config.data"
        names = _created_names(body)
        return Declared(base + ("name",), how, name, namespace, True, names, default)
    how = f"{who} migManager.config.name"
    if not name or name == default_configmap():
        return Declared(base + ("name",), how, None, namespace, False, None, default)
    return Declared(base + ("name",), how, name, namespace, False, None, default)


def _default(config: dict, base: tuple) -> tuple[tuple, str] | None:
    value = config.get("default")
    return (base + ("default",), value) if isinstance(value, str) else None


def _created_names(body: dict) -> tuple[str, ...] | None:
    text = body.get(config_key())
    found = mig_parted.config_in_text(text) if isinstance(text, str) else None
    return tuple(mig_parted.config_names(found)) if found is not None else None


def release_namespace(data: Any, prefix: tuple) -> str | None:
    """The namespace a GitOps release installs the chart whose inline values sit at ``prefix``
    into: Flux ``spec.targetNamespace`` (else the HelmRelease's own namespace), Argo CD
    ``destination.namespace``, kustomize's ``namespace`` (else ``helmCharts[].namespace``),
    Helmfile ``releases[].namespace``; None when the document does not say."""
    if not isinstance(data, dict) or not prefix:
        return None
    api, kind = data.get("apiVersion"), data.get("kind")
    group = api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""
    found: Any = None
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        found = at_path(data, ("spec", "targetNamespace")) or at_path(
            data, ("metadata", "namespace")
        )
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        found = at_path(data, spec + ("destination", "namespace"))
    elif group == "kustomize.config.k8s.io" and prefix[0] == "helmCharts" and len(prefix) > 1:
        found = data.get("namespace") or at_path(data, ("helmCharts", prefix[1], "namespace"))
    elif "apiVersion" not in data and prefix[0] == "releases" and len(prefix) > 1:
        found = at_path(data, ("releases", prefix[1], "namespace"))
    if not isinstance(found, str) or not found.strip() or is_placeholder(found):
        return None
    return found.strip()
