"""A rule's :class:`~gpulint.rules.fixes.spec.Fix` (paths) -> text edits, from node positions.

Every change is checked against what it would touch and refused (:class:`Unfixable`,
with the reason) rather than guessed: a node shared through an anchor and its aliases,
a mapping with merge keys, flow collections for insertions, scalars whose source text is
escaped, tagged or anchored, entries that do not start their own line.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator

from gpulint.core.findings import Edit
from gpulint.model import source_text
from gpulint.rules.fixes import yaml_text
from gpulint.rules.fixes.spec import (
    AddEntry,
    AppendItem,
    Change,
    Copy,
    DeleteRepeats,
    Fix,
    ReplaceText,
    SetScalar,
    Value,
)
from gpulint.rules.fixes.yaml_text import Layout
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document
from gpulint.yaml.scalars import resolve_plain

_QUOTES = ("'", '"')
# Text that can go inside a plain scalar without ending it or starting a comment.
_PLAIN_PART = re.compile(r"[\w./$()=@+-]*")


class Unfixable(Exception):
    """This change cannot be made here with certainty; the message says why."""


def edits_for(doc: Document, fix: Fix) -> tuple[Edit, ...]:
    """The edits of a document-relative fix; raises :class:`Unfixable`."""
    resolver = _Resolver(doc)
    raw = _merge_insertions(sorted(e for change in fix.changes for e in resolver.change(change)))
    end = len(resolver.text)
    if not resolver.text.endswith("\n"):  # the file ends without a line break: keep it so
        raw = [(o, e, "\n" + t[:-1]) if o == e == end and t else (o, e, t) for o, e, t in raw]
    for (_o1, end1, _t1), (offset2, _e2, _t2) in zip(raw, raw[1:], strict=False):
        if offset2 < end1 or (offset2 == end1 == _o1):
            raise Unfixable("its changes overlap each other")
    return tuple(resolver.edit(*edit) for edit in raw)


def _merge_insertions(raw: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Line insertions at one place become one: the deeper-indented lines first (they
    belong to the inner block, which ends where the outer one does)."""
    merged: list[tuple[int, int, str]] = []
    for edit in raw:
        last = merged[-1] if merged else None
        if last and last[0] == last[1] == edit[0] == edit[1] and last[2].endswith("\n"):
            first, second = sorted((last[2], edit[2]), key=_indent, reverse=True)
            merged[-1] = (edit[0], edit[1], first + second)
        else:
            merged.append(edit)
    return merged


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


class _Resolver:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.text = doc.source.text
        self.root = doc.node
        self.starts = _line_starts(doc)
        # Once per document (a source is parsed once): many fixes walk its tree once.
        cache = doc.source.meta.setdefault("fix_trees", {})
        if doc.index not in cache:
            anchors = source_text.mentions(doc.source, "&")  # once per source, not per fix
            shared = _shared_nodes(doc.node) if anchors else set()
            cache[doc.index] = (shared, _layout(doc.node))
        self.shared, self.layout = cache[doc.index]

    # Positions.

    def edit(self, offset: int, end: int, text: str) -> Edit:
        line, column = self.position(offset)
        end_line, end_column = self.position(end)
        return Edit(offset, end, text, line, column, end_line, end_column)

    def position(self, offset: int) -> tuple[int, int]:
        row = bisect.bisect_right(self.starts, offset) - 1
        return row + 1, offset - self.starts[row] + 1

    def line_start(self, row: int) -> int:
        """Offset of 0-based line ``row``; the text's length past the last line."""
        return self.starts[row] if row < len(self.starts) else len(self.text)

    # Walking paths.

    def walk(self, path: tuple) -> tuple[list[Node], Node | None]:
        """The nodes along ``path`` that exist (root first) and the parent of the last."""
        nodes = [self.root]
        self._not_shared(self.root)
        for step in path:
            node = nodes[-1]
            if isinstance(node, MappingNode) and isinstance(step, str):
                if _merges(node):
                    raise Unfixable("the mapping takes keys through a merge (<<)")
                child = _entry(node, step)
                if child is None:
                    break
                nodes.append(child[1])
            elif isinstance(node, SequenceNode) and isinstance(step, int):
                if not 0 <= step < len(node.value):
                    break
                nodes.append(node.value[step])
            else:
                break
            self._not_shared(nodes[-1])
        return nodes, (nodes[-2] if len(nodes) > 1 else None)

    def _not_shared(self, node: Node) -> None:
        if id(node) in self.shared:
            raise Unfixable("the node is shared through an anchor and its aliases")

    def node_at(self, path: tuple) -> tuple[Node, Node | None]:
        nodes, parent = self.walk(path)
        if len(nodes) != len(path) + 1:
            raise Unfixable("the node it would change is not there")
        return nodes[-1], parent

    # Changes.

    def change(self, change: Change) -> Iterator[tuple[int, int, str]]:
        if isinstance(change, SetScalar):
            yield self.set_scalar(change)
        elif isinstance(change, ReplaceText):
            yield self.replace_text(change)
        elif isinstance(change, AddEntry):
            yield self.add(change.path, change.key, change.value)
        elif isinstance(change, AppendItem):
            yield self.append(change)
        elif isinstance(change, DeleteRepeats):
            yield from self.delete_repeats(change)
        else:  # pragma: no cover - the spec's union is closed
            raise Unfixable(f"unknown change {change!r}")

    def scalar(self, path: tuple) -> tuple[ScalarNode, str, bool]:
        """(node, its source text, whether it sits in a flow collection)."""
        node, parent = self.node_at(path)
        if not isinstance(node, ScalarNode):
            raise Unfixable("the value is not a scalar")
        start, end = node.start_mark, node.end_mark
        if start.line != end.line or node.style not in (None, "", *_QUOTES):
            raise Unfixable("the scalar spans several lines")
        source = self.text[start.index : end.index]
        if source[:1] in ("&", "!"):
            raise Unfixable("the scalar carries an anchor or a tag")
        return node, source, bool(getattr(parent, "flow_style", False))

    def copy(self, copy: Copy) -> str:
        return self.scalar(copy.path)[1]

    def set_scalar(self, change: SetScalar) -> tuple[int, int, str]:
        node, _source, flow = self.scalar(change.path)
        if isinstance(change.value, Copy):
            text = self.copy(change.value)
        else:
            text = _styled(change.value, node.style, flow)
        return node.start_mark.index, node.end_mark.index, text

    def replace_text(self, change: ReplaceText) -> tuple[int, int, str]:
        node, source, flow = self.scalar(change.path)
        value = node.value
        inner = source[1:-1] if node.style in _QUOTES else source
        if inner != value or (node.style == '"' and "\\" in inner):
            raise Unfixable("the scalar's source text is escaped")
        if value.count(change.old) != 1:
            raise Unfixable(f"{change.old!r} does not occur exactly once in the value")
        new_value = value.replace(change.old, change.new)
        if not _fits(change.new, new_value, node.style):
            raise Unfixable("the new value would need other quoting")
        offset = (
            node.start_mark.index + (1 if node.style in _QUOTES else 0) + value.index(change.old)
        )
        return offset, offset + len(change.old), change.new

    def add(self, path: tuple, key: str, value: Value) -> tuple[int, int, str]:
        nodes, _parent = self.walk(path)
        depth = len(nodes) - 1
        if depth < len(path):
            missing = path[depth:]
            if not all(isinstance(step, str) for step in missing):
                raise Unfixable("the place to add to is not there")
            for step in reversed(missing[1:]):
                key, value = step, {key: value}
            key, value = missing[0], {key: value}
        mapping = nodes[-1]
        if not isinstance(mapping, MappingNode):
            raise Unfixable("the place to add to is not a mapping")
        if _entry(mapping, key) is not None:
            raise Unfixable(f"the mapping already has {key!r}")
        self._block(mapping)
        if _merges(mapping):
            raise Unfixable("the mapping takes keys through a merge (<<)")
        indent = mapping.value[0][0].start_mark.column
        lines = yaml_text.entry_lines(key, value, indent, self.layout, self.copy)
        return self.insert_after(mapping, lines)

    def append(self, change: AppendItem) -> tuple[int, int, str]:
        nodes, _parent = self.walk(change.path)
        if len(nodes) != len(change.path) + 1:
            return self.add(change.path[:-1], change.path[-1], [change.item])
        sequence = nodes[-1]
        if not isinstance(sequence, SequenceNode):
            raise Unfixable("the place to append to is not a sequence")
        self._block(sequence)
        dash = sequence.start_mark.column
        lines = yaml_text.item_lines(change.item, dash, self.layout, self.copy)
        return self.insert_after(sequence, lines)

    def _block(self, node: MappingNode | SequenceNode) -> None:
        if node.flow_style or not node.value:
            raise Unfixable("the collection is written in flow style ({...} or [...])")

    def insert_after(self, node: Node, lines: list[str]) -> tuple[int, int, str]:
        """Insert whole lines after the last line of ``node``."""
        offset = self.line_start(self.last_line(node) + 1)
        return offset, offset, "\n".join(lines) + "\n"

    def last_line(self, node: Node) -> int:
        """0-based line of the last character of ``node``."""
        while True:
            self._not_shared(node)
            if isinstance(node, MappingNode) and not node.flow_style and node.value:
                node = node.value[-1][1]
            elif isinstance(node, SequenceNode) and not node.flow_style and node.value:
                node = node.value[-1]
            else:
                end = node.end_mark
                if end.column == 0 and end.line > node.start_mark.line:
                    return end.line - 1  # a block scalar ends at the start of the next line
                return end.line

    def delete_repeats(self, change: DeleteRepeats) -> Iterator[tuple[int, int, str]]:
        mapping, _parent = self.node_at(change.path)
        if not isinstance(mapping, MappingNode):
            raise Unfixable("the place is not a mapping")
        self._block(mapping)
        entries = [
            (k, v) for k, v in mapping.value if type(k) is ScalarNode and k.value == change.key
        ]
        if len(entries) < 2:
            raise Unfixable(f"{change.key!r} is not repeated")
        for key_node, value_node in entries[1:]:
            start = self.line_start(key_node.start_mark.line)
            if self.text[start : key_node.start_mark.index].strip():
                raise Unfixable("the repeated key does not start its line")
            row = self.last_line(value_node)
            end = self.line_start(row + 1)
            rest = self.text[value_node.end_mark.index : end].strip()
            if rest and not rest.startswith("#"):
                raise Unfixable("the repeated entry shares its last line")
            yield start, end, ""


def _styled(value: str, style: str | None, flow: bool) -> str:
    """``value`` in the scalar style it replaces (plain only if it reads back the same)."""
    if style in (None, "") and yaml_text.plain_ok(value, flow):
        return value
    if style == "'" and "'" not in value and "\n" not in value:
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False)


def _fits(new: str, new_value: str, style: str | None) -> bool:
    """Whether ``new`` can replace part of a scalar without changing how it must be quoted."""
    if style in _QUOTES:
        return style not in new and "\\" not in new and "\n" not in new
    return bool(_PLAIN_PART.fullmatch(new)) and resolve_plain(new_value) == new_value


def _entry(node: MappingNode, key: str) -> tuple[Node, Node] | None:
    for key_node, value_node in reversed(node.value):  # the last one wins, as in the API server
        if type(key_node) is ScalarNode and key_node.value == key:
            return key_node, value_node
    return None


def _merges(node: MappingNode) -> bool:
    return any(type(k) is ScalarNode and k.value == "<<" and not k.style for k, _v in node.value)


def _line_starts(doc: Document) -> list[int]:
    meta = doc.source.meta
    starts = meta.get("line_starts")
    if starts is None:
        text = doc.source.text
        starts = [0]
        find = text.find
        at = find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = find("\n", at + 1)
        meta["line_starts"] = starts
    return starts


def _shared_nodes(root: Node) -> set[int]:
    """Nodes reached more than once (an anchor and its aliases share one node)."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return shared


def _layout(root: Node) -> Layout:
    """The document's own indentation: its first nested block mapping and block sequence."""
    step = offset = None
    queue: list[Node] = [root]
    at = 0
    while at < min(len(queue), 500) and (step is None or offset is None):
        node = queue[at]
        at += 1
        if not isinstance(node, MappingNode) or node.flow_style:
            continue
        for key, value in node.value:
            column = key.start_mark.column
            if isinstance(value, MappingNode) and not value.flow_style and value.value:
                child = value.value[0][0].start_mark.column - column
                if step is None and child > 0 and value.start_mark.line > key.start_mark.line:
                    step = child
                queue.append(value)
            elif isinstance(value, SequenceNode) and not value.flow_style and value.value:
                if offset is None:
                    offset = value.start_mark.column - column
                queue.extend(value.value)
    return Layout(step or 2, 2 if offset is None or offset < 0 else offset)
