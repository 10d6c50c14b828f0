"""The device plugin's device-list strategy (how it hands allocated GPUs to the runtime),
wherever a run sets it: the plugin chart's ``deviceListStrategy`` value, a config file's
``flags.plugin.deviceListStrategy``, or a plugin container's ``DEVICE_LIST_STRATEGY`` env /
``--device-list-strategy`` flag.

NVIDIA/k8s-device-plugin (README "DEVICE_LIST_STRATEGY"; internal/plugin/server.go
``getAllocateResponse``): ``envvar`` sets ``NVIDIA_VISIBLE_DEVICES`` for the NVIDIA
Container Runtime; ``cdi-annotations`` returns CDI annotations and ``cdi-cri`` the CRI
``CDIDevices`` field, both for "a CDI-enabled container engine"; several strategies may be
given (a comma-separated string, or a list in the config file). When every strategy is a
CDI one (``AllCDIEnabled``) the response carries nothing else: no environment variable,
no mounts. The chart passes the value only when it is a string (``typeIs "string"``).
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import record
from gpulint.model.nvidia import configs, containers, plugin_config, recognise
from gpulint.model.nvidia.configs import FoundConfig
from gpulint.model.resource import Resource
from gpulint.model.values import placeholders

CDI_ANNOTATIONS = "cdi-annotations"
CDI_CRI = "cdi-cri"
CDI = frozenset({CDI_ANNOTATIONS, CDI_CRI})
ENV_NAME = "DEVICE_LIST_STRATEGY"
FLAG = "--device-list-strategy"
VALUES_KEY = "deviceListStrategy"


@record(frozen=True)
class Site:
    """One place that sets the strategy, relative to its resource or document."""

    path: tuple
    strategies: tuple[str, ...]
    how: str  # what sets it, in words


def strategies(value: Any, lists: bool) -> tuple[str, ...] | None:
    """``"cdi-annotations,cdi-cri"`` (or a list, where the reader takes one) -> names."""
    if isinstance(value, str) and not placeholders.is_placeholder(value):
        parts = tuple(p.strip() for p in value.split(",") if p.strip())
        return parts or None
    if lists and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value)
    return None


def only_cdi(found: tuple[str, ...]) -> bool:
    """Every strategy is a CDI one: the plugin returns devices through CDI alone."""
    return bool(found) and all(s in CDI for s in found)


def container_sites(resource: Resource) -> list[Site]:
    found = []
    for container in containers.plugin_containers(resource):
        if not containers.runs_plugin(container):
            continue
        for site in containers.setting_sites(container, ENV_NAME, FLAG):
            names = strategies(site.value, lists=False)
            if names:
                found.append(Site(site.path, names, f"{site.how} of container {container.name}"))
    return found


def values_site(values: dict, prefix: tuple = ()) -> Site | None:
    """The device plugin chart's top-level ``deviceListStrategy`` (a string, or dropped)."""
    names = strategies(values.get(VALUES_KEY), lists=False)
    if not names:
        return None
    return Site(prefix + (VALUES_KEY,), names, f"{VALUES_KEY} of the device plugin chart values")


def config_site(found: FoundConfig) -> Site | None:
    """``flags.plugin.deviceListStrategy`` of a plugin config (keys in any case)."""
    fkey, flags = plugin_config.field(found.data, "flags")
    pkey, plugin = plugin_config.field(flags, "plugin")
    dkey, value = plugin_config.field(plugin, VALUES_KEY)
    names = strategies(value, lists=True)
    if not names or fkey is None or pkey is None or dkey is None:
        return None
    return Site(found.path + (fkey, pkey, dkey), names, f"flags.plugin.{dkey} of {found.label}")


def resource_sites(resource: Resource) -> list[Site]:
    """The plugin containers' settings and the configs of a ConfigMap."""
    found = container_sites(resource)
    found += [s for c in configs.resource_configs(resource) if (s := config_site(c)) is not None]
    return found


def document_sites(data: Any, placed: list[recognise.Placed]) -> list[Site]:
    """Device plugin chart values and the plugin configs of a non-resource document."""
    found = []
    for where in placed:
        values = configs.at_path(data, where.prefix)
        if where.kind == recognise.DEVICE_PLUGIN_CHART and isinstance(values, dict):
            site = values_site(values, where.prefix)
            found += [site] if site is not None else []
    found += [
        s for c in configs.document_configs(data, placed) if (s := config_site(c)) is not None
    ]
    return found
