"""Per-rule options, in the spirit of yamllint's ``CONF``/``DEFAULT``.

A rule declares its options (name, type, default, doc); users set them in
``.gpulint.yaml`` under the rule's code or name::

    rules:
      GPU108:
        kv-cache-share: 0.2

The config file's ``rules`` section is validated against a JSON Schema built from
the declarations (:func:`options_schema`), and ``gpulint explain`` lists them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import field, record

_NAME = lazy(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_JSON_TYPES: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}


@record(frozen=True)
class Option:
    """One setting of one rule."""

    name: str  # kebab-case, as written in the config file
    type: type  # bool, int, float, str, or list (a list of strings)
    default: Any
    doc: str
    # Further JSON Schema keywords for the value ({"minimum": 1}).
    constraints: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"option name {self.name!r} must be kebab-case")
        if self.type is not list and self.type not in _JSON_TYPES:
            raise ValueError(f"option {self.name}: type must be bool, int, float, str or list")

    def schema(self) -> dict[str, Any]:
        if self.type is list:
            kind: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
        else:
            kind = {"type": _JSON_TYPES[self.type]}
        default = list(self.default) if isinstance(self.default, tuple) else self.default
        return {"description": self.doc, "default": default, **kind, **self.constraints}

    def shown(self) -> str:
        """``max-gpus-per-node`` (integer, default 8): what it means."""
        kind = "list of strings" if self.type is list else _JSON_TYPES[self.type]
        default = self.default
        if isinstance(default, bool):
            default = str(default).lower()
        return f"{self.name} ({kind}, default {default}): {self.doc}"


def rule_schema(options: Iterable[Option]) -> dict[str, Any]:
    """The schema of one rule's entry under ``rules``."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {o.name: o.schema() for o in options},
    }


def options_schema(rules: Iterable[Any]) -> dict[str, Any]:
    """The schema of the config file's ``rules`` section: each rule with options,
    keyed by code or by name."""
    properties: dict[str, Any] = {}
    for rule in rules:
        if rule.options:
            entry = rule_schema(rule.options)
            properties[rule.code] = entry
            properties[rule.name] = entry
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
