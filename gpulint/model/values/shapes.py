"""The shapes the API server decodes pod spec fields into, and values that do not fit.

Only the fields gpulint reads are listed. The API server turns YAML into JSON and
decodes it into the Go types of k8s.io/api/core/v1 (types.go); a value of another
JSON type fails with encoding/json's UnmarshalTypeError, whose text is
``json: cannot unmarshal <JSON type> into Go struct field <Struct>.<field> of type
<Go type>`` (encoding/json/decode.go, UnmarshalTypeError.Error), and the object is
rejected. JSON null decodes to the empty value, so null is never a problem here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import field, record
from gpulint.model.values.placeholders import is_placeholder


@record(frozen=True)
class Shape:
    """The Go type a pod spec field decodes into, and the shapes of what it holds."""

    kind: str  # "object", "array" or "string"
    go_type: str
    fields: dict[str, tuple[str, Shape]] = field(default_factory=dict)  # key -> (struct, shape)
    items: Shape | None = None  # an array's items; a map's values
    values: Shape | None = None


STRING = Shape("string", "string")
STRINGS = Shape("array", "[]string", items=STRING)
STRING_MAP = Shape("object", "map[string]string", values=STRING)
RESOURCE_LIST = Shape("object", "v1.ResourceList")
OBJECT_LIST = {  # lists whose items are objects gpulint reads only loosely
    "tolerations": "v1.Toleration",
    "volumes": "v1.Volume",
    "resourceClaims": "v1.PodResourceClaim",
}

ENV_VAR = Shape("object", "v1.EnvVar", {"name": ("EnvVar", STRING), "value": ("EnvVar", STRING)})
RESOURCES = Shape(
    "object",
    "v1.ResourceRequirements",
    {
        "limits": ("ResourceRequirements", RESOURCE_LIST),
        "requests": ("ResourceRequirements", RESOURCE_LIST),
        "claims": ("ResourceRequirements", Shape("array", "[]v1.ResourceClaim")),
    },
)
CONTAINER = Shape(
    "object",
    "v1.Container",
    {
        "name": ("Container", STRING),
        "image": ("Container", STRING),
        "command": ("Container", STRINGS),
        "args": ("Container", STRINGS),
        "env": ("Container", Shape("array", "[]v1.EnvVar", items=ENV_VAR)),
        "resources": ("Container", RESOURCES),
        "securityContext": ("Container", Shape("object", "v1.SecurityContext")),
        "volumeMounts": ("Container", Shape("array", "[]v1.VolumeMount")),
    },
)
POD_SPEC = Shape(
    "object",
    "v1.PodSpec",
    {
        "containers": ("PodSpec", Shape("array", "[]v1.Container", items=CONTAINER)),
        "initContainers": ("PodSpec", Shape("array", "[]v1.Container", items=CONTAINER)),
        "ephemeralContainers": (
            "PodSpec",
            Shape("array", "[]v1.EphemeralContainer", items=CONTAINER),
        ),
        "nodeSelector": ("PodSpec", STRING_MAP),
        "affinity": ("PodSpec", Shape("object", "v1.Affinity")),
        **{
            key: ("PodSpec", Shape("array", f"[]{item}", items=Shape("object", item)))
            for key, item in OBJECT_LIST.items()
        },
    },
)
METADATA = Shape(
    "object",
    "v1.ObjectMeta",
    {"labels": ("ObjectMeta", STRING_MAP), "annotations": ("ObjectMeta", STRING_MAP)},
)

_JSON_TYPE = {bool: "bool", int: "number", float: "number", str: "string", list: "array"}
_SAID = {"bool": "true or false", "number": "a number", "string": "a string", "array": "a list"}
_WANTED = {"object": "a mapping", "array": "a list", "string": "a string"}


@record(frozen=True)
class Problem:
    """A value that does not fit its field's shape: where, and the API server's error."""

    path: tuple  # relative to the object checked
    message: str


def described(value: Any) -> str:
    """``{...}`` -> "a mapping", ``[...]`` -> "a list", ``3`` -> "a number"..."""
    return _SAID.get(json_type(value), "a mapping")


def json_type(value: Any) -> str:
    return "object" if isinstance(value, dict) else _JSON_TYPE.get(type(value), "string")


_PYTHON_TYPE = {"object": dict, "array": list, "string": str}


def fits(value: Any, shape: Shape) -> bool:
    # The type first: most values fit, and a placeholder test reads the whole string.
    return value is None or isinstance(value, _PYTHON_TYPE[shape.kind]) or is_placeholder(value)


def malformed(container: Any, *path: str) -> bool:
    """Whether the container field at ``path`` is present with a shape it cannot decode as."""
    shape, value = CONTAINER, container
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False
        shape, value = shape.fields[key][1], value[key]
    return not fits(value, shape)


def problems(obj: dict, shape: Shape, path: tuple = (), owner: str = "") -> Iterator[Problem]:
    """Fields of ``obj`` (already known to be a mapping) that do not fit ``shape``."""
    if path == () and conforms(obj, shape):
        return  # almost every pod: a plain walk, no generator a level
    for key, (struct, inner) in shape.fields.items():
        if key in obj:
            yield from _check(obj[key], inner, path + (key,), f"{struct}.{key}")
    if shape.values is not None:
        for key, value in obj.items():
            yield from _check(value, shape.values, path + (key,), owner)


def conforms(obj: dict, shape: Shape) -> bool:
    """Whether ``problems`` finds nothing in ``obj``: the same walk, without building them."""
    for key, (_, inner) in shape.fields.items():
        if key in obj and not _conforms(obj[key], inner):
            return False
    if shape.values is not None:
        for value in obj.values():
            if not _conforms(value, shape.values):
                return False
    return True


def _conforms(value: Any, shape: Shape) -> bool:
    if not fits(value, shape):
        return False
    if isinstance(value, dict):
        return conforms(value, shape)
    if isinstance(value, list) and shape.items is not None:
        for item in value:
            if not _conforms(item, shape.items):
                return False
    return True


def dotted(path: tuple) -> str:
    """("containers", 0, "env") -> containers[0].env"""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _check(value: Any, shape: Shape, path: tuple, field_name: str) -> Iterator[Problem]:
    if not fits(value, shape):
        got = json_type(value)
        yield Problem(
            path,
            f"{dotted(path)} is {_SAID.get(got, 'a mapping')}, not "
            f'{_WANTED[shape.kind]}; the API server rejects the object: "json: cannot '
            f'unmarshal {got} into Go struct field {field_name} of type {shape.go_type}"',
        )
        return
    if isinstance(value, dict):
        yield from problems(value, shape, path, field_name)
    elif isinstance(value, list) and shape.items is not None:
        for index, item in enumerate(value):
            yield from _check(item, shape.items, path + (index,), field_name)
