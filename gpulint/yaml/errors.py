"""Where and why YAML stopped parsing: a located failure, and ruamel's error as a message."""

from __future__ import annotations

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from gpulint.yaml.nodes import Node


class ParseFailure(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def failure(message: str, node: Node) -> ParseFailure:
    mark = node.start_mark
    return ParseFailure(message, mark.line + 1, mark.column + 1)


def error_position(exc: YAMLError, text: str) -> tuple[int, int]:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return mark.line + 1, mark.column + 1
    offset = getattr(exc, "position", None)  # a ReaderError: a byte offset into the UTF-8
    if isinstance(offset, int) and offset >= 0:
        before = text.encode("utf-8", "surrogatepass")[:offset]
        start = before.rfind(b"\n") + 1
        return before.count(b"\n") + 1, len(before[start:].decode("utf-8", "ignore")) + 1
    return 1, 1


def error_message(exc: YAMLError, text: str, line: int, column: int) -> str:
    if isinstance(exc, MarkedYAMLError):
        parts = [p for p in (exc.context, exc.problem) if p]
        message = "invalid YAML: " + ", ".join(parts) if parts else ""
    else:
        message = ""
    if not message:
        message = "invalid YAML: " + str(exc).splitlines()[0]
    rows = text.split("\n", line)
    row = rows[line - 1] if len(rows) >= line else ""
    if row[column - 1 : column] == "\t":
        message += " (a tab: YAML indents with spaces only)"
    return message
