"""A rendered path the template does not spell out -> the expression that wrote it.

``resources:`` followed by ``{{- toYaml . | nindent 12 }}`` is how most charts
pass resources, node selectors and tolerations: the keys below ``resources``
exist only in the values. Such a finding belongs on the expression's line, and
the values key it read (``.Values.resources`` directly, or ``.`` inside a
``with .Values.resources``) is named with the keys the expression added.
"""

from __future__ import annotations

import re

from gpulint.core.record import record
from gpulint.inputs.render.template_map import Hit, find

_ACTION = re.compile(r"\{\{-?\s*(?P<body>.*?)\s*-?\}\}")
_CONTROL = re.compile(r"^(?:if|else|end|with|range|define|block|template\b|/\*|break|continue)\b")
_VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)")
_WITH = re.compile(r"^\{\{-?\s*with\s+\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)\s*-?\}\}\s*$")


@record(frozen=True)
class Block:
    """A template expression that writes a key, and the values key it came from."""

    key: Hit  # the deepest key the template itself writes
    line: int  # 1-based line of the expression
    column: int  # where ``{{`` starts
    end_column: int  # after ``}}``
    values_path: tuple | None  # the values key the rendered path came from, when known


def find_block(text: str, path: tuple) -> Block | None:
    """The expression under the deepest key of ``path`` the template writes, or None."""
    cuts = [i for i, step in enumerate(path) if isinstance(step, str)]
    lines = text.splitlines()
    for cut in reversed(cuts[:-1] if cuts else []):
        hit = find(text, path[: cut + 1])
        if hit is None:
            continue
        found = _expression_below(lines, hit)
        if found is None:
            return None  # the template writes the key and something we cannot read below it
        number, column, end, body = found
        base = _values_ref(body, lines, number)
        rest = path[cut + 1 :]
        values = base + tuple(rest) if base is not None else None
        return Block(hit, number + 1, column + 1, end + 1, values)
    return None


def value_reference(text: str, hit: Hit) -> tuple | None:
    """The values key a ``key: {{ .Values.x }}`` line reads, when it reads exactly one, or
    the one the expression below a ``key:`` line writes (``tolerations:`` + ``toYaml .``)."""
    lines = text.splitlines()
    if hit.value_column is None:
        found = _expression_below(lines, hit)
        return _values_ref(found[3], lines, found[0]) if found is not None else None
    rest = lines[hit.line - 1][hit.value_column - 1 :]
    refs = {m.group(1) for m in _VALUES_REF.finditer(rest)}
    if len(refs) != 1:
        return None
    return tuple(refs.pop().lstrip(".").split("."))


def _expression_below(lines: list[str], hit: Hit) -> tuple[int, int, int, str] | None:
    """(0-based line, column, end column, action body) of the first output action after
    the key: on the key's own line, else on the more indented lines below it."""
    first = hit.line - 1
    key_indent = hit.column - 1
    for number in range(first, len(lines)):
        raw = lines[number]
        if number > first:
            stripped = raw.strip()
            if not stripped or stripped.startswith("#"):
                continue
            indent = len(raw) - len(raw.lstrip(" "))
            if indent <= key_indent and not stripped.startswith("{{"):
                return None
        start = hit.end_column if number == first else 0
        for action in _ACTION.finditer(raw, start):
            if not _CONTROL.match(action.group("body")):
                return number, action.start(), action.end(), action.group("body")
    return None


def _values_ref(body: str, lines: list[str], number: int) -> tuple | None:
    refs = {m.group(1) for m in _VALUES_REF.finditer(body)}
    if len(refs) == 1:
        return tuple(refs.pop().lstrip(".").split("."))
    if refs or not re.search(r"(?:^|\s|\()\.(?:\s|\||\)|$)", body):
        return None
    # `.`: the innermost open `with .Values.x` above (a `range` makes `.` an item: unknown).
    depth = 0
    for above in range(number - 1, -1, -1):
        action = _ACTION.search(lines[above])
        if action is None:
            continue
        word = action.group("body").split(" ", 1)[0]
        if word == "end":
            depth += 1
        elif word in ("with", "range", "if", "define", "block"):
            if depth:
                depth -= 1
                continue
            if word == "with":
                found = _WITH.match(lines[above].strip())
                return tuple(found.group(1).lstrip(".").split(".")) if found else None
            if word in ("range", "define", "block"):
                return None
    return None
