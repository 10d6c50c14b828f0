"""Positions inside YAML (or TOML) that a document holds as a string (a mig-parted or
device plugin config in a ConfigMap's ``data``, a chart's ``config.data``, a containerd
``config.toml`` in cloud-init's ``write_files``).

Only a literal block scalar (``|``) maps back line for line: its content is the
source's lines less one common indentation, which is read from the source text
(the C parser keeps no buffer in its marks) and checked against the value. Any
other string style (quoted, folded, plain) resolves to the string itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from gpulint.core.sources import Source
from gpulint.yaml.nodes import Node, ScalarNode
from gpulint.yaml.parse import parse
from gpulint.yaml.toml_tree import load, node_tree

Span = tuple[int, int, int, int]

# A path step into a string that holds YAML: ``(..., "helm", "values", INSIDE, "migStrategy")``
# is ``migStrategy`` of the mapping an Argo CD ``helm.values`` string holds. The data side
# reads it with model/values/paths.at_path, positions resolve it inside a literal block.
INSIDE = "|"


@lru_cache(maxsize=64)
def mapping_in(text: str) -> dict | None:
    """The YAML mapping a string holds, else None."""
    documents, errors = parse(Source("<embedded>", text))
    if errors or len(documents) != 1 or not isinstance(documents[0].data, dict):
        return None
    return documents[0].data


# positions.resolve, passed in: positions calls this module, so it cannot import positions
Resolve = Callable[[Node, tuple, str, str | None], tuple[Span, int]]


def resolve_inside(
    node: ScalarNode, path: tuple, at: str, text: str, resolve: Resolve
) -> tuple[Span, int] | None:
    """The outer span of ``path`` inside the YAML of a literal block, and how many
    path elements were found there; None when the string is not such a block."""
    if node.style != "|" or not path or not isinstance(node.value, str):
        return None
    skipped = 1 if path[0] == INSIDE else 0
    path = path[skipped:]
    if not path:
        return None
    indent = indentation(node, text)
    if indent is None:
        return None
    inner = _root(node.value, lists=True)
    if inner is None:
        return None
    (line, column, end_line, end_column), depth = resolve(inner, path, at, node.value)
    if depth == 0:
        return None
    first = node.start_mark.line + 1  # 0-based line of the block's first content line
    span = (first + line, column + indent, first + end_line, end_column + indent)
    return span, depth + skipped


def indentation(node: ScalarNode, text: str | list[str]) -> int | None:
    """The columns a literal block's content is indented by in its source (``text``, or
    its lines split already); None when the source does not hold the content as read."""
    first = node.start_mark.line + 1
    for offset, content in enumerate(node.value.split("\n")):
        if not content.strip():
            continue
        lines = text if isinstance(text, list) else text.split("\n", first + offset + 1)
        if first + offset >= len(lines):
            return None
        source = lines[first + offset].rstrip("\r")
        indent = len(source) - len(content)
        if indent < 0 or source[indent:] != content or source[:indent].strip():
            return None
        return indent
    return None


@lru_cache(maxsize=64)
def _root(value: str, lists: bool = False) -> Node | None:
    """The node tree of the YAML mapping (with ``lists``, or list: a kustomization's inline
    JSON6902 patch) or TOML a string holds, else None."""
    documents, errors = parse(Source("<embedded>", value))
    kinds = (dict, list) if lists else dict
    if not errors and len(documents) == 1 and isinstance(documents[0].data, kinds):
        return documents[0].node
    if "[" in value:  # TOML (a containerd config.toml in a ConfigMap or cloud-init)
        loaded = load(value)
        if isinstance(loaded, dict):
            return node_tree(value, loaded)
    return None


def node_in(value: str) -> Node | None:
    """The node tree of the YAML mapping (or TOML) a string holds, else None."""
    return _root(value)


def strings_holding(
    data: Any, holds: Callable[[str], bool], max_depth: int = 12
) -> Iterator[tuple[tuple, str]]:
    """(path, text) of every string in ``data`` (mappings and lists, at most ``max_depth``
    deep) for which ``holds`` is true: where a document may embed another (a containerd
    config in cloud-init, a KubeletConfiguration in a ConfigMap)."""
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if holds(value):
                yield path, value
        elif len(path) < max_depth and isinstance(value, dict):
            stack.extend((v, path + (k,)) for k, v in reversed(list(value.items())))
        elif len(path) < max_depth and isinstance(value, list):
            stack.extend((v, path + (i,)) for i, v in reversed(list(enumerate(value))))
