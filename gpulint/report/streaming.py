"""JSON documents whose one long list is written item by item.

A report of ten thousand findings built as one object tree, then encoded as one
string, costs several times the memory of the findings themselves; here only one
item is encoded at a time, and the output is the same text ``json.dumps(document,
indent=2)`` would give. Items go through :func:`encode`, which gives that text too
but several times faster: with ``indent`` the standard library falls back to its
pure-Python encoder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring_ascii as _string  # the C one
from typing import Any

_INDENT = 2
# Stands in for the streamed list while the rest of the document is encoded.
_MARK = "\x00gpulint-items\x00"


def dump(document: dict, items: Iterable[Any], *path: str) -> Iterator[str]:
    """Chunks of ``document`` as indented JSON, with ``items`` as the list found at ``path``.

    ``path`` must name an existing entry; its value is ignored (and left as it was).
    """
    holder = document
    for key in path[:-1]:
        holder = holder[key] if isinstance(holder, dict) else holder[int(key)]
    saved = holder[path[-1]]
    holder[path[-1]] = _MARK
    try:
        text = json.dumps(document, indent=_INDENT)
    finally:
        holder[path[-1]] = saved
    mark = json.dumps(_MARK)
    at = text.index(mark)
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:at]  # '    "findings": '
    pad = line[: len(line) - len(line.lstrip(" "))]
    inner = pad + " " * _INDENT
    yield text[:at]
    first = True
    for item in items:
        yield ("[\n" if first else ",\n") + inner + encode(item, inner)
        first = False
    yield "[]" if first else "\n" + pad + "]"
    yield text[at + len(mark) :]


def encode(value: Any, margin: str = "") -> str:
    """``json.dumps(value, indent=2)``, every line after the first starting with ``margin``."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = margin + "  "
        entries = [f"{inner}{_key(k)}: {encode(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(entries) + "\n" + margin + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = margin + "  "
        entries = [inner + encode(v, inner) for v in value]
        return "[\n" + ",\n".join(entries) + "\n" + margin + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    return json.dumps(value, indent=_INDENT).replace("\n", "\n" + margin)  # floats, subclasses


def _key(key: Any) -> str:
    """A mapping key as json writes it: strings as they are, scalars as their JSON text."""
    if type(key) is str:
        return _string(key)
    if isinstance(key, bool | int | float) or key is None:
        return _string(json.dumps(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
