"""Sources -> documents whose every node keeps its line and column.

The fast path composes with ruamel.yaml's C parser (libyaml) and builds plain
Python values from the node tree in one pass; the node tree is kept so that the
engine can turn a rule's path into a position only for the nodes that are
reported. The pure-Python round-trip loader is never used here (21x slower).
Parse errors are returned as data, never raised.

Hostile input is bounded by construction: nesting is measured before the
(recursive) C composer sees the text, aliases are counted at the size they
stand for, tags never construct anything, and unrendered templates are named
as such instead of producing a cascade of YAML errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ruamel.yaml.cyaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent
from ruamel.yaml.tag import Tag

from gpulint.core.findings import InputError
from gpulint.core.record import field, record
from gpulint.core.sources import Source
from gpulint.yaml.errors import ParseFailure, error_message, error_position, failure
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode, our_nodes
from gpulint.yaml.scalars import resolve_plain, resolve_tagged
from gpulint.yaml.templates import (
    RENDER_FIRST,
    near_placeholder,
    placeholder_near,
    templates_by_line,
    unrendered_template,
)

# Deeper than any Kubernetes object; bounds recursion on hostile input.
MAX_DEPTH = 400
# The C composer recurses once per level and overflows the C stack near 20,000
# levels (a crash, not an exception). Text that might nest deeper than this is
# measured with the (non-recursive) event parser before it is composed.
SAFE_NESTING = 2_000
# Values an alias may expand to in one document before we refuse (billion laughs).
MAX_ALIAS_EXPANSION = 200_000
# A scalar counts as one value per this many characters (an aliased 100 KB string is
# 1,250 values), so the limit bounds expanded text as well as expanded structure.
SCALAR_CHARS_PER_VALUE = 80

# What our resolver gives an untagged scalar, so an explicit ``!!str`` stays distinguishable.
_IMPLICIT = "tag:gpulint,2026:implicit"
# Handed to the C composer as objects: ruamel's Node() then skips building a Tag
# per node, and the builder compares by identity instead of stringifying tags.
_IMPLICIT_TAG = Tag(suffix=_IMPLICIT)
_MAP_TAG = Tag(suffix="tag:yaml.org,2002:map")
_SEQ_TAG = Tag(suffix="tag:yaml.org,2002:seq")
_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|\Z)", re.MULTILINE)


class _Composer(CParser):
    """libyaml composer with a resolver that does nothing.

    Tags are resolved later, only for plain scalars, by :func:`resolve_plain`;
    ruamel's default resolver re-checks the YAML version for every scalar.
    """

    def resolve(self, kind: type, value: Any, implicit: Any) -> Tag:
        if kind is ScalarNode:
            return _IMPLICIT_TAG
        if kind is MappingNode:
            return _MAP_TAG
        return _SEQ_TAG

    # The composer calls these two once a node and we need neither: C callables that
    # do nothing cost no Python frame, where a method costs one per key and value.
    descend_resolver: Any = {}.get  # (parent, index) -> index
    ascend_resolver: Any = tuple  # () -> ()


@record(frozen=True)
class DuplicateKey:
    """A key a mapping holds twice."""

    path: tuple  # path of the mapping that holds the key twice
    key: str
    first_line: int
    line: int  # 1-based line of the repeated key (the one the API server keeps)
    column: int


@record
class Document:
    """One parsed YAML document: plain data plus the node tree for positions."""

    source: Source
    index: int  # 0-based position in the stream, counting empty documents
    data: Any
    node: Node
    template: str | None = None  # Helm `# Source:` template path, when known
    duplicates: list[DuplicateKey] = field(default_factory=list)
    # Facts derived once and shared by every rule (gpulint.model.resource.shared).
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1


class _Builder:
    """Plain values from one document's node tree, in one pass.

    ``aliases`` is False when the source holds no ``&`` at all: no node can then
    be reached twice, so the bookkeeping that bounds alias expansion is skipped.
    """

    def __init__(self, aliases: bool = True) -> None:
        self._aliases = aliases
        self._built: dict[int, tuple[Any, int]] = {}
        self._count = 0  # values built, aliases counted at their full size
        self._expanded = 0  # the part of _count that aliases stand for
        # (mapping node, key node, first key node) of keys given twice; paths come later.
        self._repeated: list[tuple[MappingNode, Node, Node]] = []

    def build(self, node: Node, depth: int) -> Any:
        if type(node) is ScalarNode:  # mypy narrows `type(x) is C`, not an alias of it
            if not self._aliases:
                self._count += 1
                if node.ctag is _IMPLICIT_TAG:
                    return node.value if node.style else resolve_plain(node.value)
                return resolve_tagged(str(node.ctag), node.value)
            return self._scalar(node)
        if depth > MAX_DEPTH:
            raise failure(f"nesting deeper than {MAX_DEPTH} levels", node)
        if self._aliases:
            seen = self._built.get(id(node))
            if seen is not None:
                # An alias: share the value already built, but bound what it stands for.
                self._alias(node, seen[1])
                return seen[0]
        before = self._count
        value: Any
        if type(node) is MappingNode:
            value = self._mapping(node, depth)
        else:
            build = self.build
            value = [build(item, depth + 1) for item in node.value]
        self._count += 1
        if self._aliases:
            self._built[id(node)] = (value, self._count - before)
        return value

    def _scalar(self, node: ScalarNode) -> Any:
        """A scalar where aliases exist: an alias of it counts at its size too, so one long
        value aliased many times cannot expand the document (and the output quoting it)."""
        seen = self._built.get(id(node))
        if seen is not None:
            self._alias(node, seen[1])
            return seen[0]
        if node.ctag is _IMPLICIT_TAG:
            value = node.value if node.style else resolve_plain(node.value)
        else:
            value = resolve_tagged(str(node.ctag), node.value)
        size = 1 + len(node.value) // SCALAR_CHARS_PER_VALUE
        self._count += size
        self._built[id(node)] = (value, size)
        return value

    def _alias(self, node: Node, size: int) -> None:
        self._count += size
        self._expanded += size
        if self._expanded > MAX_ALIAS_EXPANSION:
            # Aliases share the anchored node, so this points at the anchor.
            raise failure(
                f"aliases of the anchor here expand the document to more than "
                f"{MAX_ALIAS_EXPANSION} values (an alias bomb?); refusing to expand",
                node,
            )

    def _mapping(self, node: MappingNode, depth: int) -> dict:
        result: dict[str, Any] = {}
        merges: list[Node] = []
        build = self.build
        depth += 1
        for key_node, value_node in node.value:
            if type(key_node) is not ScalarNode:
                what = "mapping" if isinstance(key_node, MappingNode) else "sequence"
                raise failure(f"a mapping key must be a scalar, not a {what}", key_node)
            key = key_node.value
            if key == "<<" and not key_node.style:
                merges.append(value_node)
                continue
            if key in result:
                self._repeat(node, key_node)
            result[key] = build(value_node, depth)
        for merge in merges:  # YAML 1.1 merge keys: explicit keys win
            sources = merge.value if isinstance(merge, SequenceNode) else [merge]
            for src in sources:
                merged = build(src, depth)
                if isinstance(merged, dict):
                    for k, v in merged.items():
                        result.setdefault(k, v)
        return result

    def _repeat(self, node: MappingNode, key_node: Node) -> None:
        first = next(k for k, _v in node.value if k.value == key_node.value)
        self._repeated.append((node, key_node, first))

    def duplicates(self, root: Node) -> list[DuplicateKey]:
        if not self._repeated:
            return []
        paths = _paths_to({id(m) for m, _k, _f in self._repeated}, root)
        return [
            DuplicateKey(
                paths.get(id(mapping), ()),
                key.value,
                first.start_mark.line + 1,
                key.start_mark.line + 1,
                key.start_mark.column + 1,
            )
            for mapping, key, first in self._repeated
        ]


def _paths_to(wanted: set[int], root: Node) -> dict[int, tuple]:
    """Path of each wanted node (by id): one walk, only when a document repeats a key."""
    found: dict[int, tuple] = {}
    visited: set[int] = set()
    stack: list[tuple[Node, tuple]] = [(root, ())]
    while stack and len(found) < len(wanted):
        node, path = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if id(node) in wanted:
            found[id(node)] = path
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode) and not isinstance(value, ScalarNode):
                    stack.append((value, path + (key.value,)))
        elif isinstance(node, SequenceNode):
            for i, item in enumerate(node.value):
                if not isinstance(item, ScalarNode):
                    stack.append((item, path + (i,)))
    return found


def _may_nest_deeper(text: str, limit: int) -> bool:
    """A cheap upper bound on nesting; False means the text certainly stays within ``limit``.

    A flow level needs an opening bracket in its document; a block level needs
    one more column of indentation or an indicator on its line, so block depth
    is at most about twice the longest line.
    """
    if len(text) <= limit:
        return False
    budget = limit - 2 * (max(map(len, text.split("\n"))) + 2)
    if budget <= 0:
        return True
    start = 0
    for match in _DOCUMENT_MARKER.finditer(text):
        if text.count("[", start, match.start()) + text.count("{", start, match.start()) > budget:
            return True
        start = match.start()
    return text.count("[", start) + text.count("{", start) > budget


def _check_nesting(text: str) -> None:
    """Refuse text nesting deeper than MAX_DEPTH before the recursive C composer sees it."""
    if not _may_nest_deeper(text, SAFE_NESTING):
        return
    scanner = _Composer(text)
    depth = 0
    try:
        while scanner.check_event():
            event = scanner.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    raise ParseFailure(
                        f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1
                    )
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return  # composing reports the error at the same place, before nesting deeper
    finally:
        scanner.dispose()


def parse(source: Source) -> tuple[list[Document], list[InputError]]:
    """Every non-empty document of a source, and the error that stopped parsing, if any."""
    errors: list[InputError] = []
    return list(documents(source, errors)), errors


def documents(source: Source, errors: list[InputError]) -> Iterator[Document]:
    """The non-empty documents of a source, one at a time; the error that stops parsing,
    if any, is appended to ``errors`` after the documents before it.

    One at a time, so that a consumer that drops each document when done holds one
    node tree, not a whole file's.
    """
    text = source.text
    helm = unrendered_template(text)
    if helm is not None:
        errors.append(InputError(source.path, RENDER_FIRST, *helm))
        return
    read = 0
    try:
        _check_nesting(text)
        for document in _iter_documents(source):
            read += 1
            yield document
    except ParseFailure as exc:
        near = near_placeholder(text, exc.line)
        placeholder = placeholder_near(text, exc.line, read > 0) if near else None
        if placeholder is not None:  # a template cascade: say what it is, once
            line, column, message = placeholder
            errors.append(InputError(source.path, message, line, column))
        else:
            message = exc.message
            if source.path.lower().endswith(".json") and message.startswith("invalid YAML"):
                message = "invalid JSON" + message[len("invalid YAML") :]  # JSON is read as YAML
            errors.append(InputError(source.path, message, exc.line, exc.column))


def _iter_documents(source: Source) -> Iterator[Document]:
    text = source.text
    templates = templates_by_line(text)
    next_template = 0
    aliases = "&" in text
    composer = _Composer(text)
    index = 0
    previous_end = -1
    try:
        while composer.check_node():
            with our_nodes():
                node = composer.get_node()
            start = node.start_mark.line
            template = None
            while next_template < len(templates) and templates[next_template][0] <= start:
                line, name = templates[next_template]
                if line >= previous_end:
                    template = name
                next_template += 1
            previous_end = node.end_mark.line
            if type(node) is ScalarNode and not node.style and node.value == "":
                index += 1  # an empty document (only comments, or `---` alone)
                continue
            builder = _Builder(aliases)
            try:
                data = builder.build(node, 0)
            except RecursionError:
                raise failure("nesting too deep to read", node) from None
            yield Document(source, index, data, node, template, builder.duplicates(node))
            index += 1
    except YAMLError as exc:
        line, column = error_position(exc, text)
        raise ParseFailure(error_message(exc, text, line, column), line, column) from None
    except RecursionError:
        raise ParseFailure("nesting too deep to read", 1, 1) from None
    finally:
        dispose = getattr(composer, "dispose", None)
        if dispose is not None:
            dispose()
