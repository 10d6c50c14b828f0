"""The grammar of suppression comments, parsed token by token.

::

    comment   := "#" "gpulint:" "disable" "=" selectors [options] [reason]
    selectors := selector ("," selector)*          selector := [A-Za-z0-9-]+, not followed by "="
    options   := (("," | " ") option)*             option   := "until" "=" YYYY-MM-DD
    reason    := anything else (a leading "-", ":" or dash is dropped)

Spaces may surround ``=`` and ``,``. A word followed by ``=`` is an option, never a
rule: ``disable=GPU101, until=2020-01-01`` names GPU101 and expires on that date
(a regular expression read ``until`` as a second rule and ``=2020-01-01`` as the
reason, so the suppression never expired). An unknown option is an error.
"""

from __future__ import annotations

import datetime
import re

from gpulint.core.record import record

# `#` starts a YAML comment at the line start or after whitespace.
COMMENT = re.compile(r"(?:^|(?<=\s))#\s*gpulint:\s*disable(?P<body>.*)$")
# A further comment (`# <- GPU101`) ends the directive; `#123` does not.
_NEXT_COMMENT = re.compile(r"\s#(?:\s|$)")
_WORD = re.compile(r"[A-Za-z0-9-]+")
_SPACE = re.compile(r"\s*")
OPTIONS = ("until",)


@record(frozen=True)
class Parsed:
    """A directive's body: the rules it names, its expiry date and its reason."""

    selectors: tuple[str, ...]
    until: datetime.date | None
    reason: str | None


@record(frozen=True)
class Problem:
    """Why a directive's body does not parse, and where in the line."""

    message: str
    offset: int  # in the line


class _Cursor:
    def __init__(self, text: str, start: int) -> None:
        self.text, self.pos = text, start

    def skip_space(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def take(self, char: str) -> bool:
        self.skip_space()
        if self.text.startswith(char, self.pos):
            self.pos += len(char)
            return True
        return False

    def word(self) -> str | None:
        self.skip_space()
        found = _WORD.match(self.text, self.pos)
        if found is None:
            return None
        self.pos = found.end()
        return found.group()

    def peek_option(self) -> str | None:
        """The option name at the cursor (``until`` in ``until=...``), without moving."""
        saved = self.pos
        self.take(",")
        name = self.word()
        is_option = name is not None and self.take("=")
        self.pos = saved
        return name if is_option else None


def parse(line: str, match: re.Match[str]) -> Parsed | Problem:
    """The directive of a comment :data:`COMMENT` matched in ``line``."""
    start = match.start("body")
    end = start + len(_NEXT_COMMENT.split(match.group("body"), maxsplit=1)[0])
    cursor = _Cursor(line[:end], start)
    if not cursor.take("="):
        return Problem("suppression comment names no rule: write disable=CODE", match.start())
    selectors: list[str] = []
    while True:
        at = cursor.pos
        if cursor.peek_option() is not None:
            cursor.pos = at
            break
        word = cursor.word()
        if word is None:
            if not selectors:
                return Problem(
                    "suppression comment names no rule: write disable=CODE", match.start()
                )
            cursor.pos = at
            break
        selectors.append(word)
        before_comma = cursor.pos
        if not cursor.take(","):
            break
        if cursor.peek_option() is not None:
            cursor.pos = before_comma
            break
    if not selectors:
        return Problem("suppression comment names no rule: write disable=CODE", match.start())
    until: datetime.date | None = None
    while (name := cursor.peek_option()) is not None:
        cursor.take(",")
        at = cursor.pos
        cursor.word()
        cursor.take("=")
        cursor.skip_space()
        value = re.match(r"\S*", cursor.text[cursor.pos :]).group()  # type: ignore[union-attr]
        cursor.pos += len(value)
        if name not in OPTIONS:
            return Problem(
                f"suppression option {name!r} is unknown: options are {', '.join(OPTIONS)}",
                _SPACE.match(line, at).end(),  # type: ignore[union-attr]
            )
        try:
            until = datetime.date.fromisoformat(value.rstrip(","))
        except ValueError:
            return Problem(
                f"suppression expiry 'until={value[:20]}' is not a date: write until=YYYY-MM-DD",
                _SPACE.match(line, at).end(),  # type: ignore[union-attr]
            )
    reason = cursor.text[cursor.pos :].strip().lstrip(",").lstrip("-:–— ").strip() or None
    return Parsed(tuple(selectors), until, reason)
