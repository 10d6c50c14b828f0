"""JSON documents whose one long list is written item by item.

A report of ten thousand findings built as one object tree, then encoded as one
string, costs several times the memory of the findings themselves; here only one
item is encoded at a time, and the output is the same text ``json.dumps(document,
indent=2)`` would give.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

_INDENT = 2
# Stands in for the streamed list while the rest of the document is encoded.
_MARK = "\x00gpulint-items\x00"


def dump(document: dict, items: Iterable[Any], *path: str) -> Iterator[str]:
    """Chunks of ``document`` as indented JSON, with ``items`` as the list found at ``path``.

    The list at ``path`` must exist and is replaced, not read.
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
        encoded = json.dumps(item, indent=_INDENT).replace("\n", "\n" + inner)
        yield ("[\n" if first else ",\n") + inner + encoded
        first = False
    yield "[]" if first else "\n" + pad + "]"
    yield text[at + len(mark) :]
