"""What a rule proposes to change, in paths (as its reports are), never in positions.

A rule builds a :class:`Fix` with the helpers below and attaches it to its Report; the
engine resolves the paths against the node tree into text edits (gpulint/rules/fixes/resolve.py),
the same way a report's path becomes a position. Paths are relative to the resource
(or the document, for document rules), exactly as ``Report.path``.
"""

from __future__ import annotations

from typing import Union

from gpulint.core.findings import FixSafety
from gpulint.core.record import record, replace


@record(frozen=True)
class Copy:
    """The source text of the scalar at ``path``, verbatim (quoting included)."""

    path: tuple


# A value to write: a scalar (rendered with safe quoting), a verbatim copy, or block YAML.
Value = Union[str, int, bool, Copy, "dict[str, Value]", "list[Value]"]


@record(frozen=True)
class SetScalar:
    """Replace the single-line scalar at ``path`` with ``value``, in its own quoting style."""

    path: tuple
    value: str | Copy


@record(frozen=True)
class ReplaceText:
    """Replace the one occurrence of ``old`` in the scalar at ``path`` with ``new``."""

    path: tuple
    old: str
    new: str


@record(frozen=True)
class AddEntry:
    """Add ``key: value`` to the block mapping at ``path``; missing mappings are created."""

    path: tuple
    key: str
    value: Value


@record(frozen=True)
class AppendItem:
    """Append ``item`` to the block sequence at ``path``; a missing one is created."""

    path: tuple
    item: Value


@record(frozen=True)
class DeleteRepeats:
    """Delete every entry of ``key`` in the mapping at ``path`` but the first."""

    path: tuple
    key: str


Change = SetScalar | ReplaceText | AddEntry | AppendItem | DeleteRepeats


@record(frozen=True)
class Fix:
    """A titled set of changes; ``safety`` None takes the rule's declared safety."""

    title: str
    changes: tuple[Change, ...]
    safety: FixSafety | None = None

    def shifted(self, prefix: tuple) -> Fix:
        """The same fix with every path made relative to the document."""
        return Fix(self.title, tuple(_shift(c, prefix) for c in self.changes), self.safety)


def _shift(change: Change, prefix: tuple) -> Change:
    fields: dict = {"path": prefix + change.path}
    if isinstance(change, SetScalar | AddEntry):
        fields["value"] = _shift_value(change.value, prefix)
    elif isinstance(change, AppendItem):
        fields["item"] = _shift_value(change.item, prefix)
    return replace(change, **fields)


def _shift_value(value: Value, prefix: tuple) -> Value:
    if isinstance(value, Copy):
        return Copy(prefix + value.path)
    if isinstance(value, dict):
        return {k: _shift_value(v, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [_shift_value(v, prefix) for v in value]
    return value


# Helpers the rules call: one line in the rule, the mechanics here.


def set_value(title: str, path: tuple, value: str | Copy, safety: FixSafety | None = None) -> Fix:
    return Fix(title, (SetScalar(tuple(path), value),), safety)


def replace_text(title: str, path: tuple, old: str, new: str) -> Fix:
    return Fix(title, (ReplaceText(tuple(path), old, new),))


def add_entry(title: str, path: tuple, key: str, value: Value) -> Fix:
    return Fix(title, (AddEntry(tuple(path), key, value),))


def delete_repeats(title: str, path: tuple, key: str) -> Fix:
    return Fix(title, (DeleteRepeats(tuple(path), key),))
