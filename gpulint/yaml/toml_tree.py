"""TOML text -> plain data and a node tree with the keys' positions.

Values come from ``tomllib`` (the standard library from Python 3.11; ``tomli``, the
same parser published for 3.10): the reference reader, no dependency of weight, and
its errors carry a line and column. It keeps no positions, so ``toml_keys`` maps each
key back to the text, and a YAML node tree with those marks stands in for the one
the YAML parser keeps: paths then resolve to lines and columns as in YAML documents.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from ruamel.yaml.error import StreamMark

from gpulint.core.findings import InputError
from gpulint.core.lazy_re import lazy
from gpulint.core.sources import Source
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document
from gpulint.yaml.toml_keys import Place, scan

SUFFIX = ".toml"

_AT = lazy(r"\(at line (\d+), column (\d+)\)")
_MAP, _SEQ, _STR = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"


def is_toml(source: Source) -> bool:
    """TOML sources are named so: the plain reader reads them like any file."""
    return source.path.endswith(SUFFIX)


def documents(source: Source, errors: list[InputError]) -> Iterator[Document]:
    """The one document of a TOML source (none, and a located error, when it is invalid)."""
    loaded = load(source.text)
    if isinstance(loaded, tuple):
        message, line, column = loaded
        errors.append(InputError(source.path, f"invalid TOML: {message}", line, column))
        return
    yield Document(source, 0, loaded, node_tree(source.text, loaded))


def load(text: str) -> dict | tuple[str, int, int]:
    """The data, or (message, line, column) of the first error."""
    # Only when a TOML source is read.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        found = _AT.search(message)
        if found is not None:
            line, column = line or int(found.group(1)), column or int(found.group(2))
            message = message[: found.start()].rstrip()
        return message, line or 1, column or 1


def node_tree(text: str, data: Any) -> Node:
    return tree(data, scan(text))


def tree(data: Any, places: dict[tuple, Place]) -> Node:
    """A YAML node tree of ``data`` whose marks are where ``places`` says each key is."""
    return _node(data, (), places, _mark(0, 0), _mark(0, 0))


def _node(data: Any, path: tuple, places: dict, start: StreamMark, end: StreamMark) -> Node:
    if isinstance(data, dict):
        pairs = []
        for key, value in data.items():
            place = places.get(path + (key,))
            if place is None:  # not written as such (cannot happen in valid TOML): the parent
                key_start, key_end, value_start, value_end = start, end, start, end
            else:
                key_start = _mark(place.line, place.column)
                key_end = _mark(place.line, place.column + len(str(key)))
                value_start = _mark(place.value_line, place.value_column)
                value_end = _mark(place.value_line, place.value_end)
            key_node = ScalarNode(_STR, str(key), key_start, key_end)
            pairs.append((key_node, _node(value, path + (key,), places, value_start, value_end)))
        return MappingNode(_MAP, pairs, start, end)
    if isinstance(data, list):
        items = [
            _node(item, path + (i,), places, *_item_marks(path + (i,), places, start, end))
            for i, item in enumerate(data)
        ]
        return SequenceNode(_SEQ, items, start, end)
    return ScalarNode(_STR, str(data), start, end)


def _item_marks(path: tuple, places: dict, start: StreamMark, end: StreamMark) -> tuple:
    place = places.get(path)  # an array-of-tables element has its header's place
    if place is None:
        return start, end
    return _mark(place.line, place.column), _mark(place.line, place.value_end)


def _mark(line: int, column: int) -> StreamMark:
    return StreamMark("<toml>", 0, line, column)
