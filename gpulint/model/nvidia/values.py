"""Values of the ``nvidia-device-plugin`` Helm chart: schema problems and the facts in them.

The chart ships no ``values.schema.json``, so Helm accepts any key and renders
only what its templates read; every plugin flag is injected only when its YAML
type matches (``typeIs "bool"``, ``typeIs "string"``), so ``failOnInitError:
"false"`` disappears. Keys and types: NVIDIA/k8s-device-plugin v0.20.0
``deployments/helm/nvidia-device-plugin`` (see gpulint's catalog).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.nvidia import recognise
from gpulint.model.values import placeholders
from gpulint.model.values.paths import at_path
from gpulint.validate import schema as schema_check

SCHEMA = "device-plugin-values.schema.json"
VALID_DEVICE_LIST_STRATEGIES = ("envvar", "volume-mounts", "cdi-annotations", "cdi-cri")
# Flags the template passes only when the value has this YAML type (and the plugin default).
TYPE_GATED = {
    "failOnInitError": ("bool", "FAIL_ON_INIT_ERROR", "true"),
    "compatWithCPUManager": ("bool", "PASS_DEVICE_SPECS", "false"),
    "gdrcopyEnabled": ("bool", "GDRCOPY_ENABLED", "false"),
    "gdsEnabled": ("bool", "GDS_ENABLED", "false"),
    "mofedEnabled": ("bool", "MOFED_ENABLED", "false"),
    "migStrategy": ("string", "MIG_STRATEGY", "none"),
    "deviceListStrategy": ("string", "DEVICE_LIST_STRATEGY", "envvar"),
    "deviceIDStrategy": ("string", "DEVICE_ID_STRATEGY", "uuid"),
    "nvidiaDriverRoot": ("string", "NVIDIA_DRIVER_ROOT", "/"),
    "deviceDiscoveryStrategy": ("string", "DEVICE_DISCOVERY_STRATEGY", "auto"),
}


@record(frozen=True)
class Problem:
    """A problem of chart values, at a path inside them."""

    path: tuple  # relative to the values mapping
    message: str
    at: str = "key"


def problems(values: dict) -> list[Problem]:
    found: list[Problem | None] = []
    inline = _config_file_inline(values)
    if inline is not None:
        found.append(inline)
    for problem in schema_check.check(values, SCHEMA, unfilled=placeholders.is_placeholder):
        if inline is not None and problem.path[:1] == ("config",) and len(problem.path) == 2:
            continue  # one root cause, one finding: the config file written under config
        found.append(_explain(values, problem))
    found.extend(_device_list_problems(values))
    found.extend(_ignored_gfd_keys(values))
    found.extend(_template_failures(values))
    return [p for p in found if p is not None]


def _config_file_inline(values: dict) -> Problem | None:
    """The plugin's config file itself (``version``, ``flags``, ``sharing``) written under the
    chart's ``config``, which reads only ``map``, ``name``, ``default`` and
    ``fallbackStrategies`` (the chart's values.yaml): none of it reaches the plugin."""
    config = values.get("config")
    if not isinstance(config, dict) or not recognise.is_plugin_config(config):
        return None
    keys = ", ".join(str(k) for k in config if str(k) not in _CHART_CONFIG_KEYS)
    return Problem(
        ("config",),
        f"config holds a device plugin config file itself ({keys}): the chart reads only "
        "config.map (each config as text, by name), config.name, config.default and "
        "config.fallbackStrategies, so the plugin never sees it; move it under "
        "config.map.<name> as a text block (and set config.default)",
    )


_CHART_CONFIG_KEYS = frozenset({"map", "name", "default", "fallbackStrategies"})


def _explain(values: dict, problem: schema_check.SchemaProblem) -> Problem | None:
    path = problem.path
    if path == ("version",):
        version = values.get("version")
        return Problem(
            path,
            f"the chart has no top-level 'version' key: 'version: {version}' is silently ignored "
            "by Helm and pins nothing (the image stays at the chart's appVersion); set "
            f"image.tag: {_tag_hint(version)} or install the chart with --version "
            f"{_chart_hint(version)}",
        )
    if path == ("namespace",):
        return Problem(
            path,
            "the chart fails on a 'namespace' value: \"Setting an explicit 'namespace' in "
            'values.yaml or via --set on the command line is no longer supported." '
            "(use helm --namespace)",
        )
    if len(path) == 1 and path[0] in TYPE_GATED and _wrong_type(path[0], values.get(path[0])):
        kind, env, default = TYPE_GATED[path[0]]
        value = values.get(path[0])
        return Problem(
            path,
            f"{path[0]}: {value!r} is not a {kind}; the chart passes it only when it is one "
            f'(typeIs "{kind}"), so {env} is silently dropped and the plugin uses its default '
            f"({default})",
            "value",
        )
    if problem.message.startswith("unknown key"):
        why = "the chart never reads it (Helm ignores it)"
        return Problem(path, recognise.explain(problem.message, why))
    return Problem(path, f"{_dotted(path)}: {problem.message}", problem.at)


def _wrong_type(key: str, value: Any) -> bool:
    kind = TYPE_GATED[key][0]
    return value is not None and not isinstance(value, bool if kind == "bool" else str)


def _tag_hint(version: Any) -> str:
    text = str(version)
    return text if text.startswith("v") else f"v{text}"


def _chart_hint(version: Any) -> str:
    return str(version).removeprefix("v")


def _dotted(path: tuple) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _device_list_problems(values: dict) -> Iterator[Problem]:
    value = values.get("deviceListStrategy")
    if not isinstance(value, str):
        return
    for part in (p.strip() for p in value.split(",")):
        if part not in VALID_DEVICE_LIST_STRATEGIES:
            hint = schema_check.did_you_mean(part, VALID_DEVICE_LIST_STRATEGIES)
            yield Problem(
                ("deviceListStrategy",),
                f"deviceListStrategy {part!r} is not one of "
                f"{', '.join(VALID_DEVICE_LIST_STRATEGIES)}{hint}; the plugin exits with "
                f'"invalid --device-list-strategy option: invalid strategy: {part}"',
                "value",
            )


def _ignored_gfd_keys(values: dict) -> Iterator[Problem]:
    gfd = values.get("gfd")
    if not isinstance(gfd, dict):
        return
    for key in ("noTimestamp", "sleepInterval"):
        if gfd.get(key) is not None:
            yield Problem(
                ("gfd", key),
                f"gfd.{key} is declared in the chart's values but its GFD template reads the "
                f"top-level '{key}'; this setting has no effect",
            )


def _template_failures(values: dict) -> Iterator[Problem]:
    config = values.get("config")
    if not isinstance(config, dict):
        return
    if config.get("name") and config.get("map"):
        yield Problem(
            ("config", "map"),
            'config.name and config.map are both set; the chart fails: "Only one of '
            "'config.name' or 'config.map' should ever be set for a given deployment.\"",
        )
    entries = config.get("map")
    if isinstance(entries, dict) and len(entries) > 1 and not _default_resolves(config):
        yield Problem(
            ("config", "map"),
            f"config.map holds {len(entries)} configs and no default resolves; the chart "
            'fails: "A default config must be provided when more than one configuration is '
            "set in 'config.map'.\" (set config.default)",
        )


def _default_resolves(config: dict) -> bool:
    if config.get("default"):
        return True
    strategies = config.get("fallbackStrategies", ["named", "single"])
    if not isinstance(strategies, list):
        return True
    return "empty" in strategies or ("named" in strategies and "default" in config["map"])


# Facts ------------------------------------------------------------------------------------


def mig_strategy(values: dict) -> tuple[tuple, Any] | None:
    if values.get("migStrategy") is None:
        return None
    return ("migStrategy",), values["migStrategy"]


def image_tag(values: dict) -> tuple[tuple, Any] | None:
    image = values.get("image")
    if not isinstance(image, dict) or "tag" not in image:
        return None
    return ("image", "tag"), image["tag"]


def config_entries(values: dict) -> list[tuple[tuple, str, str]]:
    """(path, name, text) of each ``config.map`` entry (the chart's integrated ConfigMap)."""
    entries = at_path(values, ("config", "map"))
    if not isinstance(entries, dict):
        return []
    return [(("config", "map", k), str(k), v) for k, v in entries.items() if isinstance(v, str)]


def external_config(values: dict) -> bool:
    """Configs come from a ConfigMap the values name but do not hold."""
    return bool(at_path(values, ("config", "name")))
