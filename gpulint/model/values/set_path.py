"""Helm's ``--set`` paths and values, as Argo CD's ``helm.parameters`` and Flux's
``valuesFrom[].targetPath`` write them.

Helm's ``strvals`` (helm.sh/docs/intro/using_helm/#the-format-and-limitations-of---set):
a name is keys joined by ``.``, a ``\\.`` is a dot inside a key, ``name[2]`` is the third
item of a list (``a[0].b``, ``a[0][1]``); a value is typed unless forced to a string
(``--set-string``, Argo CD's ``forceString``): ``true`` and ``false`` (any case) are
booleans, ``null`` is null, an integer without a leading zero is an integer, anything
else a string; ``{a,b}`` is a list. Argo CD passes each parameter as one ``--set``
(``--set-string`` when ``forceString``) and escapes the commas of a value that is not a
list (argo-cd ``util/helm/cmd.go``, ``cleanSetParameters``).
"""

from __future__ import annotations

from typing import Any

from gpulint.core.lazy_re import lazy

MAX_INDEX = 65536  # strvals refuses larger list indexes
_INT = lazy(r"^[+-]?[1-9][0-9]*$")
_INDEX = lazy(r"\[([0-9]+)\]")


def parse_name(name: str) -> tuple | None:
    """The path a ``--set`` name writes (keys and list indexes), or None when it is not
    one strvals accepts."""
    path: list = []
    key = ""
    escaped = False
    i = 0
    text = name.strip()
    if not text:
        return None
    while i < len(text):
        char = text[i]
        if escaped:
            key += char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ".":
            if not key:
                return None
            path.append(key)
            key = ""
        elif char == "[":
            match = _INDEX.match(text, i)
            if match is None or int(match[1]) > MAX_INDEX:
                return None
            if key:
                path.append(key)
                key = ""
            elif not path or not isinstance(path[-1], int):
                return None
            path.append(int(match[1]))
            i = match.end()
            if i < len(text) and text[i] not in ".[":
                return None
            if i < len(text) and text[i] == ".":
                i += 1
                if i == len(text):
                    return None
            continue
        else:
            key += char
        i += 1
    if escaped:
        return None
    if key:
        path.append(key)
    elif not path or not isinstance(path[-1], int):
        return None
    return tuple(path)


def typed(value: str, force_string: bool = False) -> Any:
    """The value ``--set`` gives (``--set-string`` with ``force_string``)."""
    if force_string:
        return value
    if value.startswith("{") and value.endswith("}"):
        inner = value[1:-1]
        return [typed(item) for item in inner.split(",")] if inner else []
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "null":
        return None
    if value == "0":
        return 0
    if _INT.match(value):
        number = int(value)
        if -(2**63) <= number < 2**63:
            return number
    return value
