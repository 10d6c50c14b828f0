"""Where each key of a TOML text is: table path -> line and column, by scanning the text.

Python's ``tomllib`` (and ``tomli``, its backport for 3.10) reads values and reports
errors with a line and column, but keeps no positions of what it read. The text is
valid TOML by the time this runs (``tomllib`` said so), so a line scanner is enough:
table headers (``[a."b.c".d]``, ``[[x]]``), ``key = value`` lines with dotted and
quoted keys, keys of one-line inline tables, and the lines inside multi-line strings
and arrays skipped. Positions are 0-based, as YAML marks are.
"""

from __future__ import annotations

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record

_BARE = lazy(r"[A-Za-z0-9_-]+")


@record(frozen=True, slots=True)
class Place:
    """Where a TOML key and its value are (0-based lines and columns)."""

    line: int
    column: int  # the key (or the header's segment)
    value_line: int
    value_column: int
    value_end: int  # end column of a value on the value's line


def scan(text: str) -> dict[tuple, Place]:
    """Every key path the text writes (array-of-tables elements get their index)."""
    places: dict[tuple, Place] = {}
    table: tuple = ()
    arrays: dict[tuple, int] = {}
    lines = text.split("\n")
    row = 0
    while row < len(lines):
        line = lines[row].rstrip("\r")
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("["):
            table = _header(stripped, indent, row, places, arrays)
        elif stripped and not stripped.startswith("#"):
            row = _key_value(lines, row, indent, table, places)
        row += 1
    return places


def _header(text: str, indent: int, row: int, places: dict, arrays: dict) -> tuple:
    double = text.startswith("[[")
    start = indent + (2 if double else 1)
    parsed = _dotted(text[start - indent :], start)
    if parsed is None:
        return ()
    path: tuple = ()
    for name, column in parsed[:-1]:
        path += (name,)
        places.setdefault(path, Place(row, column, row, column, column + len(name)))
    if double:
        index = arrays.get(path, -1) + 1
        arrays[path] = index
        path += (index,)
        places[path] = Place(row, indent, row, indent, len(text) + indent)
    return path


def _key_value(lines: list[str], row: int, indent: int, table: tuple, places: dict) -> int:
    """Records the key of the line at ``row``; returns the last row the value spans."""
    line = lines[row].rstrip("\r")
    parsed = _dotted(line[indent:], indent, stop="=")
    if parsed is None:
        return row
    parts, equals = parsed[:-1], parsed[-1][1]
    value_column = equals + 1
    while value_column < len(line) and line[value_column] in " \t":
        value_column += 1
    path = table
    for name, column in parts:
        path += (name,)
        places.setdefault(path, Place(row, column, row, value_column, len(line)))
    value = line[value_column:]
    end, last_row = _value_end(lines, row, value_column)
    places[path] = Place(row, parts[-1][1], row, value_column, end)
    if value.startswith("{"):
        _inline_table(line, value_column, row, path, places)
    return last_row


def _value_end(lines: list[str], row: int, column: int) -> tuple[int, int]:
    """(end column on the value's first line, last row of the value)."""
    line = lines[row].rstrip("\r")
    value = line[column:]
    for quote in ('"""', "'''"):
        if value.startswith(quote):
            if value.find(quote, 3) >= 0:
                return column + value.find(quote, 3) + 3, row
            for later in range(row + 1, len(lines)):
                if quote in lines[later]:
                    return len(line), later
            return len(line), len(lines) - 1
    depth, end = _brackets(value)
    if depth > 0:  # a multi-line array
        for later in range(row + 1, len(lines)):
            more, _end = _brackets(lines[later])
            depth += more
            if depth <= 0:
                return len(line), later
        return len(line), len(lines) - 1
    return column + end, row


def _brackets(text: str) -> tuple[int, int]:
    """Net bracket depth of a line outside strings, and where its value ends (before a comment)."""
    depth, index, end = 0, 0, len(text.rstrip())
    while index < len(text):
        char = text[index]
        if char in "\"'":
            close = _string_end(text, index)
            index = close
            continue
        if char == "#":
            end = len(text[:index].rstrip())
            break
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        index += 1
    return depth, end


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    index = start + 1
    while index < len(text):
        if quote == '"' and text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            return index + 1
        index += 1
    return len(text)


def _inline_table(line: str, start: int, row: int, path: tuple, places: dict) -> None:
    """Keys of a one-line inline table (``options = { BinaryName = "x" }``), one level."""
    index, depth = start + 1, 1
    expect_key = True
    while index < len(line) and depth > 0:
        char = line[index]
        if expect_key and char not in " \t,":
            parsed = _dotted(line[index:], index, stop="=")
            if parsed is None:
                return
            parts, equals = parsed[:-1], parsed[-1][1]
            value_column = equals + 1
            while value_column < len(line) and line[value_column] in " \t":
                value_column += 1
            inner = path + tuple(name for name, _column in parts)
            end = _inline_value_end(line, value_column)
            places[inner] = Place(row, parts[-1][1], row, value_column, end)
            index, expect_key = end, False
            continue
        if char == ",":
            expect_key = True
        elif char in "\"'":
            index = _string_end(line, index)
            continue
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        index += 1


def _inline_value_end(line: str, start: int) -> int:
    index, depth = start, 0
    while index < len(line):
        char = line[index]
        if char in "\"'":
            index = _string_end(line, index)
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            break
        index += 1
    return len(line[:index].rstrip())


def _dotted(text: str, offset: int, stop: str = "]") -> list[tuple[str, int]] | None:
    """``a."b.c".d`` up to ``stop`` -> [(name, column)...]; the last item is (stop, column)."""
    parts: list[tuple[str, int]] = []
    index = 0
    while True:
        while index < len(text) and text[index] in " \t":
            index += 1
        if index >= len(text):
            return None
        char = text[index]
        if char in "\"'":
            close = _string_end(text, index)
            raw = text[index + 1 : close - 1]
            name = _unescape(raw) if char == '"' else raw
            parts.append((name, offset + index))
            index = close
        else:
            match = _BARE.match(text, index)
            if match is None:
                return None
            parts.append((match.group(), offset + index))
            index = match.end()
        while index < len(text) and text[index] in " \t":
            index += 1
        if index < len(text) and text[index] == ".":
            index += 1
            continue
        if index < len(text) and text[index] == stop:
            return parts + [(stop, offset + index)]
        return None


def _unescape(raw: str) -> str:
    if "\\" not in raw:
        return raw
    try:
        return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return raw
