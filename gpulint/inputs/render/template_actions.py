"""The ``{{ }}`` actions of a Helm template line, and the values key an expression reads."""

from __future__ import annotations

import re

ACTION = re.compile(r"\{\{-?\s*(?P<body>.*?)\s*-?\}\}")
CONTROL = re.compile(r"^(?:if|else|end|with|range|define|block|template\b|/\*|break|continue)\b")
VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)")
_WITH = re.compile(r"^\{\{-?\s*with\s+\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)\s*-?\}\}\s*$")


def values_ref(body: str, lines: list[str], number: int) -> tuple | None:
    """The values key the action ``body`` on line ``number`` reads: its one ``.Values.x``,
    or for ``.`` the innermost open ``with .Values.x`` above it."""
    refs = {m.group(1) for m in VALUES_REF.finditer(body)}
    if len(refs) == 1:
        return tuple(refs.pop().lstrip(".").split("."))
    if refs or not re.search(r"(?:^|\s|\()\.(?:\s|\||\)|$)", body):
        return None
    # `.`: the innermost open `with .Values.x` above (a `range` makes `.` an item: unknown).
    depth = 0
    for above in range(number - 1, -1, -1):
        action = ACTION.search(lines[above])
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
