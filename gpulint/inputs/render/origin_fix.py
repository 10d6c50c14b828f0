"""A fix of Kustomize output -> the same fix in the origin file, when the node came from
there unchanged.

Each path of the fix is followed in the origin document (list items by name, as the
origin mapper does, gpulint/inputs/render/origin.py); the deepest node the change reads
or writes must be equal in the rendered and the origin document. A node a patch or a
transformer produced or changed has no place in the origin file to fix.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import replace
from gpulint.inputs.render.origin import _translate
from gpulint.model.kinds.table import get
from gpulint.rules.fixes.spec import AddEntry, AppendItem, Copy, Fix, SetScalar, Value


class Changed(Exception):
    """The fix touches what Kustomize produced or changed."""


def translate(rendered: Any, origin: Any, fix: Fix) -> Fix | None:
    """``fix`` (paths in the rendered document) in the origin document, or None."""
    try:
        changes = tuple(_change(rendered, origin, c) for c in fix.changes)
    except Changed:
        return None
    return Fix(fix.title, changes, fix.safety)


def _change(rendered: Any, origin: Any, change: Any) -> Any:
    fields: dict = {"path": _path(rendered, origin, change.path)}
    if isinstance(change, SetScalar | AddEntry):
        fields["value"] = _value(rendered, origin, change.value)
    elif isinstance(change, AppendItem):
        fields["item"] = _value(rendered, origin, change.item)
    return replace(change, **fields)


def _value(rendered: Any, origin: Any, value: Value) -> Value:
    if isinstance(value, Copy):
        return Copy(_path(rendered, origin, value.path))
    if isinstance(value, dict):
        return {k: _value(rendered, origin, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_value(rendered, origin, v) for v in value]
    return value


def _path(rendered: Any, origin: Any, path: tuple) -> tuple:
    found = _translate(rendered, origin, path)
    if found is None:
        raise Changed
    steps, _complete = found
    depth = len(steps)
    if get(rendered, path[:depth]) != get(origin, steps):
        raise Changed  # a patch or transformer produced or changed it
    return tuple(steps) + tuple(path[depth:])
