"""Sources -> documents whose every node keeps its line and column.

The fast path composes with ruamel.yaml's C parser (libyaml) and builds plain
Python values from the node tree in one pass; the node tree is kept so that the
engine can turn a rule's path into a position only for the nodes that are
reported. The pure-Python round-trip loader is never used here (21x slower).
Parse errors are returned as data, never raised.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.cyaml import CParser
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from gpulint.findings import InputError
from gpulint.scalars import resolve_plain, resolve_tagged
from gpulint.sources import Source

# Deeper than any Kubernetes object; bounds recursion on hostile input.
MAX_DEPTH = 400
# Values an alias may expand to in one document before we refuse (billion laughs).
MAX_ALIAS_EXPANSION = 200_000

# What our resolver gives an untagged scalar, so an explicit ``!!str`` stays distinguishable.
_IMPLICIT = "tag:gpulint,2026:implicit"
_SOURCE_COMMENT = re.compile(r"^# Source: (\S.*?)\s*$", re.MULTILINE)


class _Composer(CParser):
    """libyaml composer with a resolver that does nothing.

    Tags are resolved later, only for plain scalars, by :func:`resolve_plain`;
    ruamel's default resolver re-checks the YAML version for every scalar.
    """

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            return _IMPLICIT
        if kind is MappingNode:
            return "tag:yaml.org,2002:map"
        return "tag:yaml.org,2002:seq"

    def descend_resolver(self, *args: Any) -> None:
        pass

    def ascend_resolver(self, *args: Any) -> None:
        pass


@dataclass(frozen=True)
class DuplicateKey:
    path: tuple  # path of the mapping that holds the key twice
    key: str
    first_line: int
    line: int  # 1-based line of the repeated key (the one the API server keeps)
    column: int


@dataclass
class Document:
    source: Source
    index: int  # 0-based position in the stream, counting empty documents
    data: Any
    node: Node
    template: str | None = None  # Helm `# Source:` template path, when known
    duplicates: list[DuplicateKey] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1


class ParseFailure(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class _Builder:
    """Plain values from one document's node tree, in one pass."""

    def __init__(self) -> None:
        self.duplicates: list[DuplicateKey] = []
        self._built: dict[int, tuple[Any, int]] = {}
        self._stack: list = []  # path of the node being built, for duplicate keys
        self._count = 0  # values built, aliases counted at their full size
        self._expanded = 0  # the part of _count that aliases stand for

    def build(self, node: Node, depth: int) -> Any:
        if isinstance(node, ScalarNode):
            self._count += 1
            if node.tag == _IMPLICIT:
                return node.value if node.style else resolve_plain(node.value)
            return resolve_tagged(node.tag, node.value)
        if depth > MAX_DEPTH:
            mark = node.start_mark
            raise ParseFailure(
                f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1
            )
        seen = self._built.get(id(node))
        if seen is not None:
            # An alias: share the value already built, but bound what it stands for.
            value, size = seen
            self._count += size
            self._expanded += size
            if self._expanded > MAX_ALIAS_EXPANSION:
                mark = node.start_mark
                raise ParseFailure(
                    "aliases expand to more than "
                    f"{MAX_ALIAS_EXPANSION} values (an alias bomb?); refusing to expand",
                    mark.line + 1,
                    mark.column + 1,
                )
            return value
        before = self._count
        if isinstance(node, MappingNode):
            value = self._mapping(node, depth)
        else:
            stack = self._stack
            value = []
            for i, item in enumerate(node.value):
                stack.append(i)
                value.append(self.build(item, depth + 1))
                stack.pop()
        self._count += 1
        self._built[id(node)] = (value, self._count - before)
        return value

    def _mapping(self, node: MappingNode, depth: int) -> dict:
        result: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                mark = key_node.start_mark
                raise ParseFailure(
                    "a mapping key must be a scalar, not a "
                    f"{'mapping' if isinstance(key_node, MappingNode) else 'sequence'}",
                    mark.line + 1,
                    mark.column + 1,
                )
            key = key_node.value
            if key == "<<" and not key_node.style:
                merges.append(value_node)
                continue
            line = key_node.start_mark.line + 1
            if key in key_lines:
                self.duplicates.append(
                    DuplicateKey(
                        tuple(self._stack),
                        key,
                        key_lines[key],
                        line,
                        key_node.start_mark.column + 1,
                    )
                )
            key_lines[key] = line
            self._stack.append(key)
            result[key] = self.build(value_node, depth + 1)
            self._stack.pop()
        for merge in merges:  # YAML 1.1 merge keys: explicit keys win
            sources = merge.value if isinstance(merge, SequenceNode) else [merge]
            for src in sources:
                merged = self.build(src, depth + 1)
                if isinstance(merged, dict):
                    for k, v in merged.items():
                        result.setdefault(k, v)
        return result


def _error_position(exc: YAMLError) -> tuple[int, int]:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return 1, 1
    return mark.line + 1, mark.column + 1


def _error_message(exc: YAMLError) -> str:
    if isinstance(exc, MarkedYAMLError):
        parts = [p for p in (exc.context, exc.problem) if p]
        if parts:
            return "invalid YAML: " + ", ".join(parts)
    return "invalid YAML: " + str(exc).splitlines()[0]


def _templates_by_line(text: str) -> list[tuple[int, str]]:
    """(0-based line, template) of every Helm ``# Source:`` comment."""
    if "# Source: " not in text:
        return []
    found = []
    for match in _SOURCE_COMMENT.finditer(text):
        found.append((text.count("\n", 0, match.start()), match.group(1)))
    return found


def parse(source: Source) -> tuple[list[Document], list[InputError]]:
    """Every non-empty document of a source, and the error that stopped parsing, if any."""
    documents: list[Document] = []
    errors: list[InputError] = []
    try:
        for doc in _iter_documents(source):
            documents.append(doc)
    except ParseFailure as exc:
        errors.append(InputError(source.path, exc.message, exc.line, exc.column))
    return documents, errors


def _iter_documents(source: Source) -> Iterator[Document]:
    text = source.text
    templates = _templates_by_line(text)
    composer = _Composer(text)
    index = 0
    previous_end = -1
    try:
        while composer.check_node():
            node = composer.get_node()
            start = node.start_mark.line
            template = None
            for line, name in templates:
                if previous_end <= line <= start:
                    template = name
            previous_end = node.end_mark.line
            if isinstance(node, ScalarNode) and not node.style and node.value == "":
                index += 1  # an empty document (only comments, or `---` alone)
                continue
            builder = _Builder()
            try:
                data = builder.build(node, 0)
            except RecursionError:
                raise ParseFailure(
                    "nesting too deep to read", start + 1, node.start_mark.column + 1
                ) from None
            yield Document(source, index, data, node, template, builder.duplicates)
            index += 1
    except YAMLError as exc:
        line, column = _error_position(exc)
        raise ParseFailure(_error_message(exc), line, column) from None
    except RecursionError:
        raise ParseFailure("nesting too deep to read", 1, 1) from None
    finally:
        dispose = getattr(composer, "dispose", None)
        if dispose is not None:
            dispose()
