"""Where every part of a mapping is, worked out while its document is at hand.

Values a release reads from another document (a ConfigMap that a Flux HelmRelease's
``valuesFrom`` names, a values file a Helmfile release lists) are judged while the
release's own document is linted; by then the other document's node tree is gone, and
it may be in another worker. So the places of the layer's values are resolved once,
when that document is read: one walk over its nodes gives each path the spans
``positions.resolve`` would give it (an entry from its key, a value alone, a list item),
inside literal blocks that hold YAML too (``embedded.py``). The walk is linear in the
nodes; a block's indentation is read from lines split once per text.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.findings import Location
from gpulint.yaml import embedded, positions
from gpulint.yaml.layered import Spot
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document

Span = tuple[int, int, int, int]
Offset = tuple[int, int]  # lines and columns added to a span of an embedded text


def node_at(root: Node, path: tuple) -> tuple[Node | None, Node] | None:
    """(key node or None, value node) of ``path`` in ``root``; None when it is not there."""
    key: Node | None = None
    node = root
    for step in path:
        if type(node) is MappingNode and type(step) is str:
            entry = positions.mapping_entry(node, step)
            if entry is None:
                return None
            key, node = entry
        elif type(node) is SequenceNode and type(step) is int and 0 <= step < len(node.value):
            key, node = None, node.value[step]
        else:
            return None
    return key, node


def spots(doc: Document, base: tuple, file: str | None = None) -> dict[tuple, Spot] | None:
    """Each path under ``base`` in ``doc`` (``()`` is ``base`` itself; a literal block
    that holds YAML is read inside, its paths without the ``INSIDE`` step) -> its
    :class:`Spot`, in ``file`` (default: the document's source); None when ``base`` is
    not in the document."""
    found = node_at(doc.node, base)
    if found is None:
        return None
    key, node = found
    name = file or doc.source.path
    pointer = positions.json_pointer(base)
    whole = positions.entry_span(key, node) if key is not None else positions.span(node)
    result = {(): Spot(Location(name, *whole), Location(name, *positions.span(node)), pointer)}
    _walk(result, node, doc.source.text, (0, 0), name, base, ())
    return result


def _walk(
    result: dict, root: Node, text: str, offset: Offset, file: str, base: tuple, prefix: tuple
) -> None:
    """Spots of every node under ``root`` (a node of ``text``, which starts ``offset``
    into the file), keyed by their path after ``prefix``."""
    lines: list[str] | None = None
    stack: list[tuple[Node, tuple]] = [(root, prefix)]
    while stack:
        node, path = stack.pop()
        if type(node) is MappingNode:
            for key, value in _entries(node):
                here = path + (key.value,)
                entry = _at(file, offset, positions.entry_span(key, value))
                alone = _at(file, offset, positions.span(value))
                result[here] = Spot(entry, alone, positions.json_pointer(base + here))
                stack.append((value, here))
        elif type(node) is SequenceNode:
            for index, item in enumerate(node.value):
                here = path + (index,)
                location = _at(file, offset, positions.span(item))
                result[here] = Spot(location, location, positions.json_pointer(base + here))
                stack.append((item, here))
        elif type(node) is ScalarNode and node.style == "|" and isinstance(node.value, str):
            if lines is None:
                lines = text.split("\n")
            inner = _inside(node, lines)
            if inner is not None:
                first = node.start_mark.line + 1
                moved = (offset[0] + first, offset[1] + inner[1])
                _walk(result, inner[0], node.value, moved, file, base, path)


def _entries(node: MappingNode) -> list[tuple[Node, Node]]:
    """The mapping's entries as ``positions.mapping_entry`` finds them: keys merged in
    (``<<``) first, the mapping's own after (a repeated key: the last one)."""
    merged: list[tuple[Node, Node]] = []
    own: list[tuple[Node, Node]] = []
    for key, value in node.value:
        if type(key) is not ScalarNode:
            continue
        if key.value == "<<":
            sources = value.value if isinstance(value, SequenceNode) else [value]
            for source in sources:
                if isinstance(source, MappingNode):
                    merged.extend(_entries(source))
        else:
            own.append((key, value))
    return merged + own


def _inside(node: ScalarNode, lines: list[str]) -> tuple[Node, int] | None:
    """The node tree of the YAML (or TOML) a literal block holds, and its indentation."""
    root = embedded.node_in(node.value)
    if root is None:
        return None
    indent = embedded.indentation(node, lines)
    return None if indent is None else (root, indent)


def _at(file: str, offset: Offset, span: Span) -> Location:
    line, column, end_line, end_column = span
    down, right = offset
    return Location(file, line + down, column + right, end_line + down, end_column + right)


def value_at(root: Node, path: tuple) -> Any:
    """The scalar text at ``path`` (to compare a rendered value with its origin's)."""
    found = node_at(root, path)
    return found[1].value if found is not None and type(found[1]) is ScalarNode else None
