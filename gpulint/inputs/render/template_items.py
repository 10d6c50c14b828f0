"""A rendered list item the template gives no position -> the template's writer of it, by content.

::

    env:
      {{- with .Values.extraEnvVars }}
      {{- toYaml . | nindent 12 }}
      {{- end }}
      - name: NVIDIA_VISIBLE_DEVICES
        value: {{ .Values.cuda.visibleDevices | quote }}

The expression renders as many items as ``extraEnvVars`` holds, so the literal
item is ``env[N]`` for an N the template does not say. The list's *writers* are
its literal ``- `` items, the expressions that render items at the list's
column, and the ``range`` blocks in it. The rendered item is given to one of them
by what it holds: its ``name:`` (else its first key's scalar), which must occur
once in the rendered list.

- A literal item writes ``name: NVIDIA_VISIBLE_DEVICES`` (and every other literal
  ``key: value`` it writes agrees with the rendered item): it is the writer when it
  is the only such literal item, no expression's values hold that name, and either
  it renders whenever its list does (no ``if``/``with``/``range`` opened in the
  list around it: had anything else rendered the name too, it would not be unique),
  or nothing else in the list can render that name (every expression is known not
  to, every other item writes another name).
- No literal item has it: the writer is the one ``toYaml`` expression whose values
  (``.Values.x``, or ``.`` in ``with .Values.x``, read with helm's precedence) hold
  an item of that name, when nothing else in the list can render it.

An expression is known only as ``toYaml`` of a values key (an ``include``,
``tpl`` or ``range`` may render anything). Anything else is undecided, and the
caller keeps its documented fallback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from gpulint.core.record import record
from gpulint.inputs.render.template_actions import ACTION, values_ref
from gpulint.inputs.render.template_map import Line, Unknown, scan
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.positions import mapping_entry

_INDENT = re.compile(r"\bn?indent\s+(\d+)")
_TO_YAML = re.compile(r"\btoYaml\b")
_OPAQUE = re.compile(r"\b(?:include|tpl|template)\b")
_OPENS = frozenset({"if", "with", "range", "define", "block"})
_SILENT = re.compile(r"^(?:/\*|\$[A-Za-z0-9_]*\s*:?=|break\b|continue\b)")  # no output
_GUARD = re.compile(r"^(?:with|if)\s+\.Values((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)$")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})

# A values key -> ("found", its node), ("absent", None) or ("unknown", None), as helm's
# precedence decides (values_origin.ValuesIndex.effective for the template at hand).
ValuesLookup = Callable[[tuple], tuple[str, Any]]


@record(frozen=True)
class Writer:
    """Something in a template list that renders items of it."""

    kind: str  # "item" (a literal ``- ``), "expression" (renders items), "range"
    line: int  # 0-based
    column: int  # 0-based: the item's first key, or ``{{``
    end_column: int  # 0-based, exclusive
    conditional: bool  # inside an if/with/range/else opened within the list
    # An item's literal scalars at its top level: (key, value).
    scalars: tuple[tuple[str, str], ...] = ()
    # An item's keys whose value is not literal, or None when it is no map of keys the
    # template spells out (a scalar item, an expression inside it that may write keys).
    computed: tuple[str, ...] | None = ()
    values_path: tuple | None = None  # an expression's values key, when it is toYaml of one


@record(frozen=True)
class Written:
    """A rendered list item's writer, and the index of the values item an expression
    rendered it from."""

    writer: Writer
    index: int | None = None


class Items:
    """Decides the writer of a rendered list item (a ``template_map.ItemCheck`` too)."""

    def __init__(self, text: str, root: Node, values: ValuesLookup | None = None) -> None:
        self.text = text
        self.root = root
        self.values = values
        self._scanned: tuple[list[str], list[Line | None], frozenset[int]] | None = None
        self._writers: dict[int, tuple[int | None, list[Writer]] | None] = {}

    def __call__(self, rendered: tuple, item: Unknown) -> bool:
        key_line = self._key_line(item)
        if key_line is None:
            return False
        listed = self._list(key_line)
        if listed is None or listed[0] != item.column:
            return False
        found = self.writer(rendered, key_line)
        return found is not None and found.writer.kind == "item" and found.writer.line == item.line

    def sole(self, key_line: int) -> bool:
        """What follows the key at ``key_line`` (0-based) is no list of literal items and
        at most one expression writes it: what is below the key is that expression's."""
        listed = self._list(key_line)
        if listed is None:
            return True
        writers = listed[1]
        return not any(w.kind == "item" for w in writers) and len(writers) <= 1

    def writer(self, rendered: tuple, key_line: int) -> Written | None:
        """The writer of the rendered item at ``rendered`` (a path ending in its index) in
        the list under the template's ``key_line`` (0-based); None when undecided."""
        if self.sole(key_line):
            return None
        listed = self._list(key_line)
        assert listed is not None  # not sole
        writers = listed[1]
        sequence, item = _node_at(self.root, rendered[:-1]), _node_at(self.root, rendered)
        if type(sequence) is not SequenceNode or item is None:
            return None
        identity = _identity(item)
        if identity is None or sum(_holds(other, identity) for other in sequence.value) != 1:
            return None
        literal = [w for w in writers if w.kind == "item" and _agrees(w, identity, item)]
        others = [w for w in writers if w.kind == "item" and _may_name(w, identity)]
        verdicts = [(w, self._renders(w, identity)) for w in writers if w.kind != "item"]
        holding = [(w, index) for w, index in verdicts if type(index) is int]
        if len(holding) > 1 or len(literal) > 1:
            return None
        if holding:
            writer, index = holding[0]
            if any(not w.conditional for w in literal):
                return None  # both render the name, which the rendered list holds once
            # It renders whenever the list does, or nothing else can have rendered the name.
            if not writer.conditional or (
                not literal and not others and all(i is not None for _w, i in verdicts)
            ):
                return Written(writer, index)
            return None
        if literal:
            first = literal[0]
            if not first.conditional or (not others and all(i is False for _w, i in verdicts)):
                return Written(first)
        return None

    def _renders(self, writer: Writer, identity: tuple[str, str]) -> int | bool | None:
        """The index of the values item an expression renders with ``identity``; False when
        it renders none; None when that cannot be known."""
        if writer.kind != "expression" or writer.values_path is None or self.values is None:
            return None
        state, node = self.values(writer.values_path)
        if state == "absent" or (state == "found" and _empty(node)):
            return False
        if state != "found" or type(node) is not SequenceNode:
            return None
        indexes = [i for i, item in enumerate(node.value) if _holds(item, identity)]
        if not indexes:
            return False
        return indexes[0] if len(indexes) == 1 else None

    def _scan(self) -> tuple[list[str], list[Line | None], frozenset[int]]:
        if self._scanned is None:
            lines, directives = scan(self.text)
            self._scanned = (self.text.splitlines(), lines, directives)
        return self._scanned

    def _key_line(self, item: Unknown) -> int | None:
        """The line of the key whose list holds the item at ``item``."""
        _raw, lines, _directives = self._scan()
        for number in range(item.line - 1, -1, -1):
            line = lines[number]
            if line is None or line.indent > item.column:
                continue
            if line.indent == item.column and line.dash_cols:
                continue  # an earlier item of the same list
            parent = line.key_col < item.column or (
                line.key_col == item.column and not line.dash_cols
            )
            return number if line.key and line.value_col is None and parent else None
        return None

    def _list(self, key_line: int) -> tuple[int | None, list[Writer]] | None:
        """(the items' dash column, the writers) of the list under ``key_line``; None when
        what follows the key is no list (a mapping)."""
        if key_line not in self._writers:
            self._writers[key_line] = self._read_list(key_line)
        return self._writers[key_line]

    def _read_list(self, key_line: int) -> tuple[int | None, list[Writer]] | None:
        raw, lines, directives = self._scan()
        key = lines[key_line]
        if key is None:
            return None
        dash_col: int | None = None
        writers: list[Writer] = []
        stack: list[str] = []  # the if/with/range blocks opened within the list, as written
        broken = False  # an `else`/`end` of a block opened above the list: all after is so
        for number in range(key_line + 1, len(raw)):
            line = lines[number]
            if number in directives:
                for action in ACTION.finditer(raw[number]):
                    body = action.group("body")
                    word = body.split(" ", 1)[0].split("(", 1)[0]
                    if _SILENT.match(body):
                        continue
                    if word in _OPENS:
                        stack.append(body)
                    elif word == "end":
                        if stack:
                            stack.pop()
                        else:
                            broken = True
                    elif word == "else":
                        broken = broken or not stack
                    else:
                        column = _column(action.group(0), raw[number])
                        if column is not None and _ends(column, key.key_col, dash_col):
                            return dash_col, writers  # it writes what follows the list
                        if dash_col is not None and (column or 0) > dash_col:
                            continue  # content of an item
                        ranged = any(b.startswith("range") for b in stack)
                        kind = "range" if ranged else "expression"
                        path = None
                        if _TO_YAML.search(body) and not _OPAQUE.search(body):
                            path = values_ref(body, raw, number)
                        conditional = broken or any(not _guards(b, path) for b in stack)
                        writers.append(
                            Writer(
                                kind,
                                number,
                                action.start(),
                                action.end(),
                                conditional,
                                values_path=path,
                            )
                        )
                continue
            if line is None:
                continue
            if line.indent < key.key_col or (line.indent == key.key_col and not line.dash_cols):
                break  # past the list
            if not line.dash_cols:
                if dash_col is None:
                    return None  # the key holds a mapping
                continue
            if dash_col is None:
                dash_col = line.dash_cols[0]
            if line.dash_cols[0] != dash_col:
                continue  # inside an item
            content = raw[number].rstrip()
            start = line.key_col if line.key else line.dash_cols[-1] + 2
            if any(b.startswith("range") for b in stack):
                writers.append(Writer("range", number, start, len(content), True))
                continue
            scalars, computed = _scalars(raw, lines, directives, line)
            writers.append(
                Writer(
                    "item", number, start, len(content), bool(stack) or broken, scalars, computed
                )
            )
        return dash_col, writers


def _guards(block: str, path: tuple | None) -> bool:
    """``with .Values.x`` or ``if .Values.x`` around ``toYaml`` of ``x``: it renders exactly
    when there is something to render."""
    if path is None:
        return False
    found = _GUARD.match(block)
    return found is not None and tuple(found.group(1).lstrip(".").split(".")) == path


def _column(action: str, raw: str) -> int | None:
    """The column an expression renders at: its ``nindent N``/``indent N``, else where it
    is written (None: a line that only chomps, whose own indentation says little)."""
    found = _INDENT.search(action)
    if found:
        return int(found.group(1))
    if raw.lstrip(" ").startswith("{{-"):
        return None
    return len(raw) - len(raw.lstrip(" "))


def _ends(column: int, key_col: int, dash_col: int | None) -> bool:
    """An expression at ``column`` writes siblings of the list's key: the list is over."""
    return column < key_col or (column == key_col and dash_col is not None and dash_col > key_col)


def _scalars(
    raw: list[str], lines: list[Line | None], directives: frozenset[int], first: Line
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...] | None]:
    """The literal ``key: value`` pairs at the top level of the item ``first`` opens, and
    its keys of other values (None when an expression inside it may write keys)."""
    if len(first.dash_cols) != 1 or not first.key:
        return (), None
    found: dict[str, str | None] = {}

    def keep(line: Line) -> None:
        text = raw[line.number][line.value_col :] if line.value_col is not None else ""
        value = _literal(text) if text.strip() else None
        before = found.get(line.key, value)
        found[line.key] = value if before == value else None  # two values: neither is known

    keep(first)
    inner = False
    for number in range(first.number + 1, len(raw)):
        line = lines[number]
        if number in directives:
            for action in ACTION.finditer(raw[number]):
                body = action.group("body")
                word = body.split(" ", 1)[0]
                if word not in _OPENS and word not in ("end", "else") and not _SILENT.match(body):
                    column = _column(action.group(0), raw[number])
                    inner = inner or column is None or column > first.dash_cols[0]
            continue
        if line is None:
            continue
        if line.indent <= first.dash_cols[0]:
            break
        if line.key and not line.dash_cols and line.key_col == first.key_col:
            keep(line)
    literal = tuple((k, v) for k, v in found.items() if v is not None)
    computed = tuple(k for k, v in found.items() if v is None)
    return literal, (None if inner else computed)


def _literal(text: str) -> str | None:
    """A plain or quoted scalar as YAML reads it; None for an expression or anything else."""
    text = text.strip()
    if " #" in text and not text.startswith(("'", '"')):
        text = text.split(" #", 1)[0].rstrip()
    if not text or "{{" in text or text[0] in "[{|>&*!%@`#":
        return None
    if text[0] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    if text[0] == "'":
        if len(text) < 2 or not text.endswith("'"):
            return None
        return text[1:-1].replace("''", "'")
    return text


def _node_at(root: Node, path: tuple) -> Node | None:
    node = root
    for step in path:
        if type(node) is MappingNode and type(step) is str:
            entry = mapping_entry(node, step)
            if entry is None:
                return None
            node = entry[1]
        elif type(node) is SequenceNode and type(step) is int and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return None
    return node


def _identity(item: Node) -> tuple[str, str] | None:
    """What names a rendered item: its ``name``, else its first key's scalar."""
    if type(item) is not MappingNode or not item.value:
        return None
    named = mapping_entry(item, "name")
    key, value = named if named is not None else item.value[0]
    if type(key) is not ScalarNode or type(value) is not ScalarNode:
        return None
    return str(key.value), str(value.value)


def _holds(item: Node, identity: tuple[str, str]) -> bool:
    key, value = identity
    if type(item) is not MappingNode:
        return False
    entry = mapping_entry(item, key)
    return entry is not None and type(entry[1]) is ScalarNode and str(entry[1].value) == value


def _agrees(writer: Writer, identity: tuple[str, str], item: Node) -> bool:
    """The literal item names ``identity`` and every literal scalar it writes is the
    rendered item's."""
    if identity not in writer.scalars:
        return False
    return all(_holds(item, pair) for pair in writer.scalars)


def _may_name(writer: Writer, identity: tuple[str, str]) -> bool:
    """A literal item that does not say which name it renders (``name: {{ .Values.x }}``),
    or that an expression inside may give one."""
    key, _value = identity
    if any(k == key for k, _v in writer.scalars):
        return False
    return writer.computed is None or key in writer.computed


def _empty(node: Any) -> bool:
    """A values node that ``with`` skips and ``toYaml`` renders no item from: null, an
    empty string, an empty list or map."""
    if type(node) is ScalarNode:
        return not node.style and node.value in _NULLS or node.value == ""
    return type(node) in (SequenceNode, MappingNode) and not node.value
