"""Every device plugin config an input holds: a standalone file, a ConfigMap entry, or a
chart's integrated configs (``config.map`` of the plugin chart, ``devicePlugin.config.data``
of the operator chart). Embedded configs are YAML inside a string; findings about them
point at the entry's key and name the path inside the config in the message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.nvidia import operator, plugin_config, recognise, values
from gpulint.model.resource import Resource
from gpulint.model.values.paths import at_path


@record(frozen=True)
class FoundConfig:
    """A device plugin config found in a document (standalone or embedded as text)."""

    path: tuple  # the config mapping (standalone) or the string entry holding it
    label: str  # "config 'any' in ConfigMap time-slicing-config", "config file"
    data: dict
    embedded: bool  # True: ``path`` is a string entry; inner paths go in the message


def _embedded(path: tuple, label: str, text: str) -> FoundConfig | None:
    if not recognise.is_config_text(text):
        return None
    data = plugin_config.parse_text(text)
    if not recognise.is_plugin_config(data):
        return None
    return FoundConfig(path, label, data, True)


def document_configs(data: Any, placed: list[recognise.Placed]) -> Iterator[FoundConfig]:
    """Configs in a non-resource document (paths relative to the document)."""
    for where in placed:
        sub = at_path(data, where.prefix)
        if not isinstance(sub, dict):
            continue
        if where.kind == recognise.PLUGIN_CONFIG:
            yield FoundConfig(where.prefix, "config file", sub, False)
            continue
        if where.kind == recognise.DEVICE_PLUGIN_CHART:
            entries = values.config_entries(sub)
            chart = "config.map"
        else:
            entries = operator.values_view(sub).config_entries()
            chart = "devicePlugin.config.data"
        for path, name, text in entries:
            found = _embedded(where.prefix + path, f"config {name!r} in {chart}", text)
            if found is not None:
                yield found


def resource_configs(resource: Resource) -> Iterator[FoundConfig]:
    """Configs in a ConfigMap's ``data`` (paths relative to the resource)."""
    if resource.kind != "ConfigMap":
        return
    data = resource.obj.get("data")
    if not isinstance(data, dict):
        return
    for key, text in data.items():
        if isinstance(text, str):
            label = f"config {key!r} in ConfigMap {resource.name}"
            found = _embedded(("data", key), label, text)
            if found is not None:
                yield found
