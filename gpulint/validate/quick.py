"""Is an instance certainly valid? A subset of JSON Schema, without importing jsonschema.

gpulint reads its config file on every run, pre-commit runs included, and
importing jsonschema costs more than the rest of a one-file run. This checker
knows the keywords the config schema uses; it answers True only when the
instance is valid, and False both for "invalid" and for "a keyword I do not
know", after which the caller validates with jsonschema for the real messages.
"""

from __future__ import annotations

import re
from typing import Any

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}
_ANNOTATIONS = {"$schema", "title", "description", "$defs", "default", "examples"}


def certainly_valid(instance: Any, schema: dict, root: dict | None = None) -> bool:
    root = root if root is not None else schema
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS or keyword.startswith("x-"):
            continue  # an x- keyword is gpulint's annotation (x-nested-keys): no assertion
        check = _KEYWORDS.get(keyword)
        if check is None or not check(instance, value, schema, root):
            return False
    return True


def _ref(instance: Any, ref: str, schema: dict, root: dict) -> bool:
    if not ref.startswith("#/"):
        return False
    target: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(target, dict) or part not in target:
            return False
        target = target[part]
    return certainly_valid(instance, target, root)


def _properties(instance: Any, props: dict, schema: dict, root: dict) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(certainly_valid(instance[k], s, root) for k, s in props.items() if k in instance)


def _additional(instance: Any, extra: Any, schema: dict, root: dict) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        return False  # not handled here: jsonschema decides
    known = schema.get("properties", {})
    rest = [v for k, v in instance.items() if k not in known]
    if extra is False:
        return not rest
    return all(certainly_valid(v, extra, root) for v in rest)


def _items(instance: Any, items: Any, schema: dict, root: dict) -> bool:
    return not isinstance(instance, list) or all(certainly_valid(v, items, root) for v in instance)


def _property_names(instance: Any, names: dict, schema: dict, root: dict) -> bool:
    return not isinstance(instance, dict) or all(certainly_valid(k, names, root) for k in instance)


_KEYWORDS = {
    "$ref": _ref,
    "type": lambda i, t, s, r: _TYPES[t](i) if isinstance(t, str) and t in _TYPES else False,
    "enum": lambda i, e, s, r: any(i == v and type(i) is type(v) for v in e),
    "properties": _properties,
    "additionalProperties": _additional,
    "items": _items,
    "propertyNames": _property_names,
    "required": lambda i, req, s, r: not isinstance(i, dict) or all(k in i for k in req),
    "minItems": lambda i, n, s, r: not isinstance(i, list) or len(i) >= n,
    "minLength": lambda i, n, s, r: not isinstance(i, str) or len(i) >= n,
    "minimum": lambda i, n, s, r: not _TYPES["number"](i) or i >= n,
    "pattern": lambda i, p, s, r: not isinstance(i, str) or re.search(p, i) is not None,
    "anyOf": lambda i, subs, s, r: any(certainly_valid(i, sub, r) for sub in subs),
}
