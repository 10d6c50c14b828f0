"""``lazy(pattern)``: a regular expression compiled on first use, not at import.

Why: gpulint's modules define about sixty patterns at module level, and a one-file run
over a Pod manifest uses fewer than ten of them; compiling the rest is start-up. A
:class:`LazyPattern` keeps the source and flags and compiles on the first call, then
forwards each call to the compiled pattern (one method call more per use: for patterns
off the hot path; a pattern used on every scalar or line stays a plain ``re.compile``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

_END = sys.maxsize  # re's own default for endpos


class LazyPattern(Generic[AnyStr]):
    """The methods of :class:`re.Pattern` that gpulint uses, compiled on first use."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: AnyStr, flags: int = 0) -> None:
        self._source: AnyStr = source
        self._flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> AnyStr:
        return self._source

    @property
    def flags(self) -> int:
        """The flags given (not, as re.Pattern.flags, with those the pattern sets inline)."""
        return self._flags

    def search(self, text: AnyStr, pos: int = 0, endpos: int = _END) -> re.Match[AnyStr] | None:
        return self.compiled.search(text, pos, endpos)

    def match(self, text: AnyStr, pos: int = 0, endpos: int = _END) -> re.Match[AnyStr] | None:
        return self.compiled.match(text, pos, endpos)

    def fullmatch(self, text: AnyStr, pos: int = 0, endpos: int = _END) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(text, pos, endpos)

    def finditer(self, text: AnyStr) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(text)

    def findall(self, text: AnyStr) -> list[Any]:
        return self.compiled.findall(text)

    def split(self, text: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled.split(text, maxsplit)

    def sub(
        self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0
    ) -> AnyStr:
        return self.compiled.sub(repl, text, count)

    def __repr__(self) -> str:
        return f"lazy({self._source!r})"


def lazy(source: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """A pattern compiled on first use (see the module docstring)."""
    return LazyPattern(source, flags)


# A pattern that is only literals joined by `|` (`io\.containerd\.|SET_AS_DEFAULT`,
# `(?i)shar`) is decided by substring tests, without compiling it.
_META = frozenset(b"[](){}*+?^$.\\|")


def _literals(source: bytes) -> tuple[tuple[bytes, ...], bool] | None:
    """(alternatives, case-insensitive) of a pattern made of literals only, else None."""
    folded = source.startswith(b"(?i)")
    body = source[4:] if folded else source
    alternatives, current, escaped = [], bytearray(), False
    for byte in body:
        if escaped:
            if byte not in _META:
                return None  # \b, \d, \s...: a real regular expression
            current.append(byte)
            escaped = False
        elif byte == 0x5C:  # backslash
            escaped = True
        elif byte == 0x7C:  # |
            alternatives.append(bytes(current))
            current = bytearray()
        elif byte in _META:
            return None
        else:
            current.append(byte)
    if escaped:
        return None
    alternatives.append(bytes(current))
    if not all(alternatives):
        return None
    return tuple(a.lower() for a in alternatives) if folded else tuple(alternatives), folded


def occurs(pattern: re.Pattern[bytes] | LazyPattern[bytes], data: bytes) -> bool:
    """Whether ``pattern`` matches somewhere in ``data``; a lazy pattern of plain literals
    (flags none, or only ``(?i)`` written in it) is decided without being compiled."""
    if isinstance(pattern, LazyPattern) and pattern._compiled is None and not pattern._flags:
        found = _literals(pattern._source)
        if found is not None:
            alternatives, folded = found
            text = data.lower() if folded else data
            return any(alternative in text for alternative in alternatives)
    return pattern.search(data) is not None
