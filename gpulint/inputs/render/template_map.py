"""A rendered path -> the line of a Helm template that writes its key, when unambiguous.

Templates are Go text, not YAML, so this reads lines, not a tree: a line that
starts a key (``key:`` after indentation and any ``- ``) is a candidate for the
last key of the path; its ancestors are the nearest lines above it with less
indentation. A candidate is kept when its ancestors are exactly the path: the
same keys, and the same list positions (the n-th ``- `` item under a key for
index n). An item below an ``if``/``range``/``with`` or an expression in its list
has no position the template says (``Unknown``); the caller may match it by what
it holds (``template_items``). Anything else (a key written by
``toYaml``/``include``, a key spelled twice in one template, a computed key) is
ambiguous and the caller falls back to the rendered line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gpulint.core.record import record

_DASHES = re.compile(r"[ ]*((?:-[ ]+)*)")  # the `- ` markers that open a line
_KEY_LINE = re.compile(
    r"^(?P<indent>[ ]*)(?P<dashes>(?:-[ ]+)*)"
    r"""(?P<q>["']?)(?P<key>[^\s"'#{}:][^"'#{}]*?)(?P=q)[ ]*:(?:[ ]|$)"""
)
_DIRECTIVE = re.compile(r"^\s*\{\{.*\}\}\s*$")


@record(frozen=True)
class Hit:
    """Where a rendered key was found in its template file."""

    line: int  # 1-based
    column: int  # 1-based, where the key starts
    end_column: int
    value_column: int | None  # where a value on the same line starts


@record(frozen=True)
class Unknown:
    """A list item whose position a ``{{ }}`` line above it in its list makes unknowable."""

    line: int  # 0-based line of the item's ``- ``
    column: int  # 0-based column of that dash


# (the rendered path of a list item, a template item at an unknown position) -> whether
# that template item wrote it.
ItemCheck = Callable[[tuple, Unknown], bool]


@record(frozen=True)
class Line:
    """One template line as the matcher sees it."""

    number: int  # 0-based
    indent: int  # column of the first character (a dash, or the key)
    dash_cols: tuple[int, ...]  # columns of the leading ``- `` markers
    key: str  # "" when the line starts no key (a scalar item, a flow value)
    key_col: int
    end: int
    value_col: int | None


def scan(text: str) -> tuple[list[Line | None], frozenset[int]]:
    """One entry a line (None for blank, comment and ``{{ }}``), and the ``{{ }}`` lines."""
    out: list[Line | None] = []
    directives = set()
    for number, raw in enumerate(text.splitlines()):
        stripped = raw.strip()
        if _DIRECTIVE.match(raw):
            directives.add(number)
        if not stripped or stripped.startswith("#") or number in directives:
            out.append(None)
            continue
        match = _KEY_LINE.match(raw)
        indent = len(raw) - len(raw.lstrip(" "))
        if match is None:
            leading = _DASHES.match(raw)  # always matches (every part is optional)
            dashes = leading.group(1) if leading else ""
            cols = tuple(indent + i for i, ch in enumerate(dashes) if ch == "-")
            out.append(Line(number, indent, cols, "", indent + len(dashes), 0, None))
            continue
        dashes = match.group("dashes")
        cols = tuple(indent + i for i, ch in enumerate(dashes) if ch == "-")
        quoted = 1 if match.group("q") else 0
        key_col = match.start("key") - quoted
        end = match.end("key") + quoted
        rest = raw[match.end() :]
        value_col = None
        if rest.strip() and not rest.strip().startswith("#"):
            value_col = match.end() + (len(rest) - len(rest.lstrip(" ")))
        out.append(Line(number, indent, cols, match.group("key"), key_col, end, value_col))
    return out, frozenset(directives)


def _document_start(raw_lines: list[str], number: int) -> int:
    for i in range(number, -1, -1):
        if raw_lines[i].startswith("---"):
            return i + 1
    return 0


def _chain(
    lines: list[Line | None], directives: frozenset[int], target: Line, start: int
) -> list | None:
    """Ancestor steps of ``target``, root first: keys, and list positions as ints."""
    steps: list = []  # innermost first
    for col in reversed(target.dash_cols):
        steps.append(_position(lines, directives, target.number, col, start))
    col = target.indent if target.dash_cols else target.key_col
    after_item = bool(target.dash_cols)
    for number in range(target.number - 1, start - 1, -1):
        line = lines[number]
        if line is None:
            continue
        if after_item and line.dash_cols and line.indent == col:
            continue  # an earlier item of the same list
        # An indentless list (`key:` then `- item` at the same column) hangs off its key.
        parent = line.key_col < col or (after_item and not line.dash_cols and line.key_col == col)
        if line.key and parent:
            steps.append(line.key)
            for dash in reversed(line.dash_cols):
                steps.append(_position(lines, directives, line.number, dash, start))
            col = line.indent if line.dash_cols else line.key_col
            after_item = bool(line.dash_cols)
        elif line.dash_cols and line.indent < col:
            # The target sits in an item this line opens; the line's own key is a sibling.
            for dash in reversed(line.dash_cols):
                if dash < col:
                    steps.append(_position(lines, directives, line.number, dash, start))
            col, after_item = line.indent, True
        elif line.indent < col:
            return None  # a line we cannot read structurally holds the target
        if col == 0 and not after_item:
            break
    steps.reverse()
    return steps


def _position(
    lines: list[Line | None], directives: frozenset[int], item_line: int, dash_col: int, start: int
) -> int | Unknown:
    """How many items of the same list come before the one at ``item_line``; ``Unknown``
    when an ``if``/``range``/``with`` or an expression above it in the list makes that
    unknowable."""
    position = 0
    for number in range(item_line - 1, start - 1, -1):
        if number in directives:
            return Unknown(item_line, dash_col)
        line = lines[number]
        if line is None:
            continue
        if line.indent < dash_col:
            break
        if line.indent == dash_col:
            if not line.dash_cols:
                break  # the key of an indentless list
            position += 1
    return position


def find(text: str, path: tuple, items: ItemCheck | None = None) -> Hit | None:
    """The one template line writing the last key of ``path``, or None. ``items`` decides
    the items of unknown position (without it, they never match)."""
    keys = [p for p in path if isinstance(p, str)]
    if not keys:
        return None
    leaf = keys[-1]
    cut = max(i for i, p in enumerate(path) if isinstance(p, str))
    wanted = list(path[: cut + 1])  # the path to the leaf key, list indices included
    lines, directives = scan(text)
    raw_lines = text.splitlines()
    matches: list[tuple[Line, list]] = []
    for line in lines:
        if line is None or line.key != leaf:
            continue
        chain = _chain(lines, directives, line, _document_start(raw_lines, line.number))
        if chain is None:
            continue
        chain.append(leaf)
        # List positions must agree too: items an expression adds before this one shift it.
        if _agrees(chain, wanted, items):
            matches.append((line, chain))
    if len(matches) != 1:
        return None
    line = matches[0][0]
    value = None if line.value_col is None else line.value_col + 1
    return Hit(line.number + 1, line.key_col + 1, line.end + 1, value)


def _agrees(chain: list, wanted: list, items: ItemCheck | None) -> bool:
    if len(chain) != len(wanted):
        return False
    for i, (have, want) in enumerate(zip(chain, wanted, strict=True)):
        if have == want:
            continue
        unknown = type(have) is Unknown and type(want) is int and items is not None
        if not (unknown and items is not None and items(tuple(wanted[: i + 1]), have)):
            return False
    return True
