"""Paths into a document -> line and column, by walking the kept node tree.

Only reported nodes are resolved, so building documents stays cheap. A path
that goes past what exists resolves to the deepest node that does exist (a
missing ``limits`` points at its ``resources``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpulint.core.findings import Location
from gpulint.yaml import embedded, layered
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document

Span = tuple[int, int, int, int]  # 1-based line, column, end line, end column


def _mapping_entry(node: MappingNode, key: str) -> tuple[Node, Node] | None:
    # From the end: the last occurrence of a repeated key wins, as in the API server.
    for key_node, value_node in reversed(node.value):
        if key_node.value == key and type(key_node) is ScalarNode:
            return key_node, value_node
    for key_node, value_node in node.value:  # keys that arrived through a merge (<<)
        if key_node.value == "<<" and type(key_node) is ScalarNode:
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for src in sources:
                if isinstance(src, MappingNode):
                    entry = _mapping_entry(src, key)
                    if entry is not None:
                        return entry
    return None


def _span(node: Node) -> Span:
    start = node.start_mark
    if isinstance(node, ScalarNode):
        end = node.end_mark
        if end.line == start.line:
            return start.line + 1, start.column + 1, end.line + 1, end.column + 1
        return start.line + 1, start.column + 1, start.line + 1, start.column + 2
    # A collection: its first line only; its end mark often lies on the next line.
    if isinstance(node, MappingNode) and node.value:
        key, value = node.value[0]
        return _entry_span(key, value)
    if (
        isinstance(node, SequenceNode)
        and node.value
        and node.start_mark.line == (node.value[0].start_mark.line)
    ):
        return start.line + 1, start.column + 1, start.line + 1, start.column + 2
    return start.line + 1, start.column + 1, start.line + 1, start.column + 2


def _entry_span(key: Node, value: Node) -> Span:
    """From the key to the end of a scalar value on the same line, else the key alone."""
    ks, ke = key.start_mark, key.end_mark
    if isinstance(value, ScalarNode) and value.end_mark.line == ks.line:
        return ks.line + 1, ks.column + 1, ks.line + 1, value.end_mark.column + 1
    return ks.line + 1, ks.column + 1, ke.line + 1, ke.column + 1


def resolve(root: Node, path: tuple, at: str = "key", text: str | None = None) -> tuple[Span, int]:
    """The span of the node at ``path`` and how many path elements were found.

    ``at="key"`` points at a mapping entry (key and scalar value); ``at="value"``
    at the value alone. Sequence items always point at the item. Given the
    source ``text``, a path that goes on past a literal block scalar (``|``)
    holding YAML (a config embedded in a ConfigMap or values file) resolves
    inside it (``embedded.py``).
    """
    node = root
    key_node: Node | None = None
    depth = 0
    for element in path:
        if type(node) is MappingNode and type(element) is str:
            entry = _mapping_entry(node, element)
            if entry is None:
                break
            key_node, node = entry
        elif type(node) is SequenceNode and type(element) is int:
            if not 0 <= element < len(node.value):
                break
            key_node, node = None, node.value[element]
        else:
            if text is not None and type(node) is ScalarNode:
                inner = embedded.resolve_inside(node, path[depth:], at, text, resolve)
                if inner is not None:
                    return inner[0], depth + inner[1]
            break
        depth += 1
    if key_node is not None and (at == "key" or depth < len(path)):
        return _entry_span(key_node, node), depth
    return _span(node), depth


# Public names of the span rules, for yaml/spots.py's walk (the same rules as resolve's).
mapping_entry = _mapping_entry
span = _span
entry_span = _entry_span


def json_pointer(path: Iterable[Any]) -> str:
    parts = [p if type(p) is str else str(p) for p in path]
    if not parts:
        return ""
    joined = "/".join(parts)
    if "~" in joined or joined.count("/") != len(parts) - 1:  # escape only when needed
        joined = "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)
    return "/" + joined


def locate(doc: Document, path: tuple, at: str = "key") -> tuple[Location, str]:
    """(location, JSON pointer) of ``path`` in ``doc``."""
    (line, column, end_line, end_column), _found = resolve(doc.node, path, at, doc.source.text)
    return Location(doc.source.path, line, column, end_line, end_column), json_pointer(path)


Place = tuple[Location, str, str | None, Location | None]


def place_with_value(doc: Document, path: tuple, at: str = "key") -> tuple:
    """(location, pointer, template, template location, value source): a renderer's mapper
    may move the location to the template or origin file the document came from, and name
    the Helm values key a rendered value came from (a ``findings.ValueSource``). A path
    through a release's merged values (``layered.Layered``) resolves in the layer that
    wrote the value, in this document or another one."""
    step = layered.steps_in(path)
    if step is not None:
        merged: Any = path[step]

        def here(real: tuple, how: str) -> tuple:
            return place_with_value(doc, real, how)

        return merged.place(path[:step], path[step + 1 :], at, here)
    location, pointer = locate(doc, path, at)
    mapper = doc.source.meta.get("mapper")
    if mapper is None:
        return location, pointer, doc.template, None, None
    location, template, at_template, *value = mapper(doc, path, at, location)
    return location, pointer, template, at_template, (value[0] if value else None)


def place(doc: Document, path: tuple, at: str = "key") -> Place:
    """(location, pointer, template, template location), as :func:`place_with_value`."""
    location, pointer, template, at_template, _value = place_with_value(doc, path, at)
    return location, pointer, template, at_template
