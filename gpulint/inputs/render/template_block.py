"""A rendered path the template does not spell out -> the expression that wrote it.

``resources:`` followed by ``{{- toYaml . | nindent 12 }}`` is how most charts
pass resources, node selectors and tolerations: the keys below ``resources``
exist only in the values. Such a finding belongs on the expression's line, and
the values key it read (``.Values.resources`` directly, or ``.`` inside a
``with .Values.resources``) is named with the keys the expression added.

A list item below such a key is the expression's only when nothing else writes
items of that list; else ``template_items`` decides which writer wrote it (an
expression, with the index of the values item it rendered, or a literal item),
and an undecided one has no block.
"""

from __future__ import annotations

from gpulint.core.record import record
from gpulint.inputs.render.template_actions import ACTION, CONTROL, VALUES_REF, values_ref
from gpulint.inputs.render.template_items import Items
from gpulint.inputs.render.template_map import Hit, find


@record(frozen=True)
class Block:
    """A template expression that writes a key, and the values key it came from."""

    key: Hit  # the deepest key the template itself writes
    line: int  # 1-based line of the expression
    column: int  # where ``{{`` starts
    end_column: int  # after ``}}``
    values_path: tuple | None  # the values key the rendered path came from, when known


def find_block(text: str, path: tuple, items: Items) -> Block | None:
    """The expression under the deepest key of ``path`` the template writes, or None;
    ``items`` decides the writer of an item of a list more than one thing writes."""
    cuts = [i for i, step in enumerate(path) if isinstance(step, str)]
    lines = text.splitlines()
    for cut in reversed(cuts[:-1] if cuts else []):
        hit = find(text, path[: cut + 1], items)
        if hit is None:
            continue
        rest = path[cut + 1 :]
        if rest and type(rest[0]) is int and not items.sole(hit.line - 1):
            return _item_block(hit, path[: cut + 2], rest[1:], items)
        found = _expression_below(lines, hit)
        if found is None:
            return None  # the template writes the key and something we cannot read below it
        number, column, end, body = found
        base = values_ref(body, lines, number)
        rest = path[cut + 1 :]
        values = base + tuple(rest) if base is not None else None
        return Block(hit, number + 1, column + 1, end + 1, values)
    return None


def _item_block(hit: Hit, item: tuple, rest: tuple, items: Items) -> Block | None:
    """The expression that wrote the list item at ``item`` below the key at ``hit``, and
    the values item it rendered, when that is decided. (A literal item the template
    writes, whose key at ``rest`` was not found, is ambiguous: written twice, computed.)"""
    written = items.writer(item, hit.line - 1)
    if written is None or written.writer.kind != "expression" or written.index is None:
        return None
    writer = written.writer
    values = None
    if writer.values_path is not None:
        values = (*writer.values_path, written.index, *rest)
    return Block(hit, writer.line + 1, writer.column + 1, writer.end_column + 1, values)


def value_reference(text: str, hit: Hit) -> tuple | None:
    """The values key a ``key: {{ .Values.x }}`` line reads, when it reads exactly one, or
    the one the expression below a ``key:`` line writes (``tolerations:`` + ``toYaml .``)."""
    lines = text.splitlines()
    if hit.value_column is None:
        found = _expression_below(lines, hit)
        return values_ref(found[3], lines, found[0]) if found is not None else None
    rest = lines[hit.line - 1][hit.value_column - 1 :]
    refs = {m.group(1) for m in VALUES_REF.finditer(rest)}
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
        for action in ACTION.finditer(raw, start):
            if not CONTROL.match(action.group("body")):
                return number, action.start(), action.end(), action.group("body")
    return None
