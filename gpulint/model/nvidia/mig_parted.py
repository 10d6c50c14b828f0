"""mig-parted configs (``version: v1``, ``mig-configs``): where an input holds one and
what each entry asks of the GPUs it selects.

The format is mig-parted's ``api/spec/v1/spec.go``: ``mig-configs`` maps a config
name (what the node label ``nvidia.com/mig.config`` names) to a list of entries,
each with ``devices`` (``all`` or GPU indexes), ``mig-enabled``, ``mig-devices``
(profile -> count) and an optional ``device-filter`` (PCI device IDs such as
``0x20B010DE``, one string or a list; ``helpers.go`` ``MatchesDeviceFilter``:
no filter selects every GPU). A config sits in a file of its own, in a
ConfigMap's ``data`` (the GPU Operator's ``default-mig-parted-config``), or in
the operator chart's ``migManager.config.data``. Paths of embedded configs go on
into the string: the engine resolves them inside a literal block.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.nvidia import plugin_config, recognise
from gpulint.model.resource import Resource
from gpulint.model.values.paths import at_path

CONFIGS = "mig-configs"
LABEL = "nvidia.com/mig.config"
# GPU instance profiles (1g.10gb, 1g.10gb+me); compute instance profiles (1c.3g.20gb)
# share a GPU instance in ways this view does not model.
GI_PROFILE = lazy(r"^[0-9]+g\.[0-9]+gb(\+me|\+gfx|-me|\+me\.all)?$")


@record(frozen=True)
class FoundMigParted:
    """A mig-parted config found in the inputs: where it is and its data."""

    path: tuple  # the config mapping, or the string entry that holds it
    label: str  # "mig-parted config file", "mig-parted config 'config.yaml' in ConfigMap x"
    data: dict


@record(frozen=True)
class MigEntry:
    """One entry of a mig-parted config: the GPUs it selects and the devices it asks for."""

    config: str  # the config's name
    path: tuple  # relative to the config: ("mig-configs", name, index)
    device_ids: tuple[int, ...] | None  # None: no device-filter (every GPU)
    devices: dict[str, tuple[int, tuple]]  # profile -> (count, path)


def is_mig_parted(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and not recognise.is_resource(data)
        and isinstance(data.get(CONFIGS), dict)
    )


def config_in_text(text: str) -> dict | None:
    """The mig-parted config a string holds (a ConfigMap's or the chart's data entry), else None."""
    if CONFIGS not in text:
        return None
    data = plugin_config.parse_text(text)
    return data if is_mig_parted(data) else None


def _embedded(path: tuple, label: str, text: str) -> FoundMigParted | None:
    data = config_in_text(text)
    return FoundMigParted(path, label, data) if data is not None else None


def document_configs(data: Any, values_for: str | None = None) -> Iterator[FoundMigParted]:
    """A standalone config, or those in the operator chart's ``migManager.config.data``."""
    if is_mig_parted(data):
        yield FoundMigParted((), "mig-parted config file", data)
        return
    for where in recognise.place(data, values_for):
        if where.kind != recognise.OPERATOR_CHART:
            continue
        config = at_path(data, where.prefix + ("migManager", "config", "data"))
        for key, text in config.items() if isinstance(config, dict) else ():
            if isinstance(text, str):
                path = where.prefix + ("migManager", "config", "data", key)
                found = _embedded(path, f"mig-parted config {key!r} in migManager.config", text)
                if found is not None:
                    yield found


def resource_configs(resource: Resource) -> Iterator[FoundMigParted]:
    if resource.kind != "ConfigMap":
        return
    data = resource.obj.get("data")
    for key, text in data.items() if isinstance(data, dict) else ():
        if isinstance(text, str):
            label = f"mig-parted config {key!r} in ConfigMap {resource.name}"
            found = _embedded(("data", key), label, text)
            if found is not None:
                yield found


def config_names(data: dict) -> list[str]:
    return [str(name) for name in data.get(CONFIGS) or {}]


def entries(data: dict) -> Iterator[MigEntry]:
    """Entries that enable MIG with devices whose counts and filter read cleanly."""
    for name, specs in (data.get(CONFIGS) or {}).items():
        if not isinstance(specs, list):
            continue
        for index, spec in enumerate(specs):
            entry = _entry(str(name), index, spec)
            if entry is not None:
                yield entry


def _entry(name: str, index: int, spec: Any) -> MigEntry | None:
    if not isinstance(spec, dict) or spec.get("mig-enabled") is not True:
        return None
    devices = spec.get("mig-devices")
    if not isinstance(devices, dict):
        return None
    path = (CONFIGS, name, index)
    counts: dict[str, tuple[int, tuple]] = {}
    for profile, count in devices.items():
        if type(count) is not int or count < 0:
            return None  # mig-parted rejects it; not this view's business
        if count:
            counts[str(profile)] = (count, path + ("mig-devices", profile))
    device_ids = _device_ids(spec.get("device-filter"))
    if device_ids == ():
        return None  # a filter that does not read as device IDs
    return MigEntry(name, path, device_ids, counts)


def _device_ids(value: Any) -> tuple[int, ...] | None:
    if value is None or value == "" or value == []:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        return ()
    ids = []
    for item in items:
        if not isinstance(item, str):
            return ()  # an unquoted 0x... is a YAML integer: mig-parted wants strings
        try:
            ids.append(int(str(item), 16))
        except ValueError:
            return ()
    return tuple(ids)
