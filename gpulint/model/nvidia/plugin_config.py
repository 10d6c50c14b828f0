"""The device plugin's config file (``version: v1``): problems and sharing facts.

The plugin reads it with ``sigs.k8s.io/yaml``: unknown keys are ignored without
a word and field names match case-insensitively, while a value of the wrong type
fails the whole parse. Messages quote the plugin (NVIDIA/k8s-device-plugin
v0.20.0, ``api/config/v1``); the catalog cites the source.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gpulint import catalog
from gpulint.core.record import record, replace
from gpulint.core.sources import Source
from gpulint.model.nvidia import recognise
from gpulint.model.values import placeholders
from gpulint.validate import schema as schema_check
from gpulint.yaml.parse import parse

SCHEMA = "device-plugin-config.schema.json"


def valid_mig_strategies() -> tuple[str, ...]:
    """``none``, ``single``, ``mixed`` (catalog: device_plugin.valid_mig_strategies)."""
    return tuple(catalog.device_plugin()["valid_mig_strategies"])


SHARING = {"timeSlicing": "time-slicing", "mps": "mps"}
SHARED_SUFFIX = ".shared"
# Defaults when unset: MPS forces failRequestsGreaterThanOne to true (config.go NewConfig).
FAIL_GT_ONE_DEFAULT = {"timeSlicing": False, "mps": True}


@record(frozen=True)
class Problem:
    """A problem of a device plugin config, at a path inside it."""

    path: tuple  # relative to the config mapping
    message: str
    at: str = "key"
    # The plugin starts and goes without the setting (an unknown key, a field it ignores):
    # it misbehaves, but runs.
    ignored: bool = False


@record(frozen=True)
class Replicated:
    """One resource a sharing config replicates."""

    path: tuple  # the resources entry, relative to the config mapping
    strategy: str  # "time-slicing" or "mps"
    name: str  # the resource replicated (nvidia.com/gpu)
    advertised: str  # what pods request (nvidia.com/gpu, or nvidia.com/gpu.shared when renamed)
    replicas: int | None
    fail_requests_greater_than_one: bool


def _get(data: Any, key: str) -> tuple[str | None, Any]:
    """A field by name, matching case-insensitively as encoding/json does (exact first)."""
    if not isinstance(data, dict):
        return None, None
    if key in data:
        return key, data[key]
    for k, v in data.items():
        if isinstance(k, str) and k.lower() == key.lower():
            return k, v
    return None, None


def field(data: Any, key: str) -> tuple[str | None, Any]:
    """(key as written, value) of one field, matched as the plugin matches it."""
    return _get(data, key)


def mig_strategy(config: Any) -> tuple[tuple, Any] | None:
    """(path, value) of ``flags.migStrategy``, when set."""
    fkey, flags = _get(config, "flags")
    mkey, value = _get(flags, "migStrategy")
    if mkey is None or value is None:
        return None
    return (fkey, mkey), value


def _resource_name(name: str) -> str:
    # The plugin adds the "nvidia.com/" prefix when a name has none (replicas.go).
    return name if "/" in name else f"nvidia.com/{name}"


def uses_mps(config: Any) -> bool:
    _skey, sharing = _get(config, "sharing")
    _mkey, mps = _get(sharing, "mps")
    return isinstance(mps, dict)


def replicated(config: Any) -> list[Replicated]:
    """Resources the config's sharing section replicates, as pods would request them."""
    skey, sharing = _get(config, "sharing")
    found: list[Replicated] = []
    for field, strategy in SHARING.items():
        key, section = _get(sharing, field)
        if not isinstance(section, dict):
            continue
        _rk, rename_default = _get(section, "renameByDefault")
        _fk, fail = _get(section, "failRequestsGreaterThanOne")
        fail_gt1 = fail if isinstance(fail, bool) else FAIL_GT_ONE_DEFAULT[field]
        rkey, resources = _get(section, "resources")
        if not isinstance(resources, list):
            continue
        for i, entry in enumerate(resources):
            _nk, name = _get(entry, "name")
            if not isinstance(name, str) or not name:
                continue
            _pk, replicas = _get(entry, "replicas")
            full = _resource_name(name)
            advertised = full + SHARED_SUFFIX if rename_default is True else full
            count = (
                replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else None
            )
            found.append(
                Replicated((skey, key, rkey, i), strategy, full, advertised, count, fail_gt1)
            )
    return found


def problems(config: dict) -> list[Problem]:
    """Everything wrong with a config: schema (unknown keys, types) and the plugin's own rules."""
    found = [p for p in _schema_problems(config)]
    found.extend(_version_problems(config))
    found = _fold_ignored(found, _sharing_problems(config))
    rkey, resources = _get(config, "resources")
    if rkey is not None and resources:
        found.append(
            Problem(
                (rkey,),
                "the 'resources' section is ignored: the plugin logs \"Customizing the "
                "'resources' field is not yet supported in the config. Ignoring...\"",
                ignored=True,
            )
        )
    return found


def _fold_ignored(found: list[Problem], sharing: list[Problem]) -> list[Problem]:
    """One finding per mistake: an unknown key inside a section the plugin rejects is most
    likely why it is rejected (``replicas`` one level too high leaves ``resources`` unset),
    so it is named in the rejection instead of reported again as ignored."""
    kept = list(found)
    folded = []
    for problem in sharing:
        size = len(problem.path)
        inside = [
            p
            for p in kept
            if not problem.ignored
            and p.ignored
            and len(p.path) > size
            and p.path[:size] == problem.path
        ]
        if inside:
            keys = ", ".join(repr(p.path[-1]) + _did_you_mean(p.message) for p in inside)
            noun = "key" if len(inside) == 1 else "keys"
            problem = replace(
                problem, message=f"{problem.message} (it holds unknown {noun} {keys})"
            )
            kept = [p for p in kept if p not in inside]
        folded.append(problem)
    return kept + folded


def _did_you_mean(message: str) -> str:
    # The schema's own form, as recognise.explain reads it: "unknown key 'x'; did you mean 'y'?"
    _head, sep, hint = message.partition("; did you mean")
    return f" (did you mean{hint})" if sep else ""


def _version_problems(config: dict) -> list[Problem]:
    vkey, version = _get(config, "version")
    if vkey is None or version in (None, "", "v1"):
        return []
    return [
        Problem(
            (vkey,),
            f"config version {version!r} is not 'v1', the only version the plugin knows; it fails "
            f'with "unable to parse config file: ... unknown version: {version}"',
            "value",
        )
    ]


def _sharing_problems(config: dict) -> list[Problem]:
    found: list[Problem] = []
    skey, sharing = _get(config, "sharing")
    if not isinstance(sharing, dict):
        return found
    present = {}
    for field in SHARING:
        key, section = _get(sharing, field)
        if key is None or section is None:
            continue
        present[field] = key
        found.extend(_section_problems((skey, key), field, section))
    if len(present) == 2:
        found.append(
            Problem(
                (skey, present["mps"]),
                "time-slicing and MPS are both configured; the plugin supports one sharing "
                "strategy at a time (they are mutually exclusive)",
            )
        )
    path_strategy = mig_strategy(config)
    if "mps" in present and path_strategy and path_strategy[1] == "mixed":
        found.append(
            Problem(
                path_strategy[0],
                "migStrategy 'mixed' together with MPS sharing: the plugin refuses to start "
                '("using --mig-strategy=mixed is not supported with MPS")',
                "value",
            )
        )
    return found


def _section_problems(path: tuple, field: str, section: Any) -> list[Problem]:
    if not isinstance(section, dict):
        return []  # a type problem, reported by the schema
    rkey, resources = _get(section, "resources")
    where = f"sharing.{field}"
    if not resources:
        return [
            Problem(
                path + ((rkey,) if rkey else ()),
                f'{where} lists no resources; the plugin fails: "no resources specified"',
            )
        ]
    if not isinstance(resources, list):
        return []
    found = []
    minimum = int(catalog.device_plugin()["config_file"]["replicas_min"])
    for i, entry in enumerate(resources):
        if not isinstance(entry, dict):
            continue
        here = path + (rkey, i)
        _, name = _get(entry, "name")
        if not name:
            found.append(
                Problem(
                    here,
                    f"{where}.resources[{i}] has no name; the plugin fails: "
                    '"no resource name specified"',
                )
            )
        pkey, replicas = _get(entry, "replicas")
        label = name if isinstance(name, str) and name else f"resources[{i}]"
        if pkey is None or replicas is None:
            found.append(
                Problem(
                    here,
                    f"{where} resource {label} has no replicas; the plugin fails: "
                    '"no replicas specified"',
                )
            )
        elif isinstance(replicas, int) and not isinstance(replicas, bool) and replicas < minimum:
            found.append(
                Problem(
                    here + (pkey,),
                    f"{where} resource {label} has replicas: {replicas}; the plugin fails: "
                    '"number of replicas must be >= 2"',
                    "value",
                )
            )
        found.extend(_ignored_fields(here, where, label, entry))
    return found


def _ignored_fields(here: tuple, where: str, label: str, entry: dict) -> list[Problem]:
    found = []
    rkey, rename = _get(entry, "rename")
    if rkey is not None and rename not in (None, ""):
        found.append(
            Problem(
                here + (rkey,),
                f'rename: {rename!r} on {label} is ignored; the plugin logs "Setting the '
                f"'rename' field in {where}.resources is not yet supported in the config. "
                'Ignoring..." (use renameByDefault: true for the .shared suffix)',
                ignored=True,
            )
        )
    dkey, devices = _get(entry, "devices")
    if dkey is None or devices in (None, "all"):
        return found
    if isinstance(devices, str):
        message = (
            f'devices: {devices!r} on {label}: the plugin fails: "devices set as '
            f"'{devices}' but the only valid string input is 'all'\""
        )
    else:
        message = (
            f"devices: {devices!r} on {label} is ignored; the plugin shares all devices "
            "(only 'all' is supported)"
        )
    found.append(Problem(here + (dkey,), message, "value", not isinstance(devices, str)))
    return found


def _canonical(data: Any, schema: dict) -> Any:
    """A copy whose keys take the schema's spelling where they match in another case."""
    if isinstance(data, list):
        return [_canonical(item, schema.get("items", {})) for item in data]
    if not isinstance(data, dict):
        return data
    properties = schema.get("properties") or {}
    lowered = {name.lower(): name for name in properties}
    copy = {}
    for key, value in data.items():
        name = key if key in properties or not isinstance(key, str) else lowered.get(key.lower())
        name = name or key
        copy[name] = _canonical(value, properties.get(name, {}))
    return copy


def _actual(config: Any, path: tuple) -> tuple:
    """A path in the canonical copy -> the same place with the keys as written."""
    found, node = [], config
    for part in path:
        if isinstance(node, dict) and isinstance(part, str) and part not in node:
            part = next((k for k in node if isinstance(k, str) and k.lower() == part.lower()), part)
        found.append(part)
        node = (
            node.get(part)
            if isinstance(node, dict)
            else (
                node[part]
                if isinstance(node, list) and isinstance(part, int) and part < len(node)
                else None
            )
        )
    return tuple(found)


def _schema_problems(config: dict) -> list[Problem]:
    schema = schema_check.load_schema(SCHEMA)
    found = []
    spelled = _canonical(config, schema)
    for canonical in schema_check.check(spelled, SCHEMA, unfilled=placeholders.is_placeholder):
        problem = schema_check.SchemaProblem(
            _actual(config, canonical.path), canonical.message, canonical.at
        )
        if problem.at == "key" and problem.message.startswith("unknown key"):
            found.append(
                Problem(
                    problem.path,
                    recognise.explain(problem.message, "the plugin ignores it silently"),
                    ignored=True,
                )
            )
            continue
        found.append(
            Problem(
                problem.path,
                f"{_dotted(problem.path)}: {problem.message}; the plugin cannot parse the "
                'config ("unable to parse config file")',
                problem.at,
            )
        )
    return found


def _dotted(path: tuple) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


@lru_cache(maxsize=256)
def parse_text(text: str) -> Any:
    """An embedded config (a ConfigMap value, a chart ``config.map`` entry), or None if not YAML."""
    documents, errors = parse(Source("<config>", text))
    if errors or len(documents) != 1:
        return None
    return documents[0].data
