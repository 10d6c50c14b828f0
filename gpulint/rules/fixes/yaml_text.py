"""Small values -> YAML text lines at a given indentation (what an insertion writes).

Only what fixes insert: scalars, copies of existing scalars, block mappings and block
sequences. A string is written plain only when it reads back as the same string (YAML
1.1, as the API server reads it); otherwise double-quoted, as JSON writes it (a JSON
string is a valid YAML double-quoted scalar).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.rules.fixes.spec import Copy, Value
from gpulint.yaml.scalars import resolve_plain

_PLAIN = lazy(r"^[A-Za-z0-9_./$()][A-Za-z0-9_./$()@+=:~-]*$")
_FLOW_INDICATORS = lazy(r"[,\[\]{}]")


@record(frozen=True)
class Layout:
    """How the file indents: a nested mapping's step, a sequence's dash offset."""

    step: int = 2
    sequence_offset: int = 2


def plain_ok(text: str, flow: bool = False) -> bool:
    """Whether ``text`` can be written as a plain scalar and read back as that string."""
    if not _PLAIN.match(text) or text.endswith(":") or (flow and _FLOW_INDICATORS.search(text)):
        return False
    return resolve_plain(text) == text and isinstance(resolve_plain(text), str)


def scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return text if plain_ok(text) else json.dumps(text)


def entry_lines(
    key: str, value: Value, indent: int, layout: Layout, copy: Callable[[Copy], str]
) -> list[str]:
    """``key: value`` as lines (no line breaks), the key at column ``indent`` (0-based)."""
    head = " " * indent + scalar_text(key) + ":"
    if isinstance(value, dict):
        lines = [head]
        for k, v in value.items():
            lines.extend(entry_lines(k, v, indent + layout.step, layout, copy))
        return lines
    if isinstance(value, list):
        lines = [head]
        for item in value:
            lines.extend(item_lines(item, indent + layout.sequence_offset, layout, copy))
        return lines
    return [head + " " + _scalar(value, copy)]


def item_lines(item: Value, dash: int, layout: Layout, copy: Callable[[Copy], str]) -> list[str]:
    """``- item`` as lines, the dash at column ``dash``; a mapping starts on the dash line."""
    if isinstance(item, dict):
        lines: list[str] = []
        for k, v in item.items():
            lines.extend(entry_lines(k, v, dash + 2, layout, copy))
        if not lines:
            return [" " * dash + "- {}"]
        lines[0] = " " * dash + "- " + lines[0][dash + 2 :]
        return lines
    if isinstance(item, list):
        raise ValueError("a sequence directly inside a sequence is not written by any fix")
    return [" " * dash + "- " + _scalar(item, copy)]


def _scalar(value: Value, copy: Callable[[Copy], str]) -> str:
    return copy(value) if isinstance(value, Copy) else scalar_text(value)
