"""``lazy(pattern)``: a regular expression compiled on first use, not at import.

Why (issue 12, start-up): gpulint's modules define about sixty patterns at module level,
and a one-file run over a Pod manifest uses fewer than ten of them; compiling the rest
cost ~7 ms of a ~100 ms run. A :class:`LazyPattern` keeps the source and flags and
compiles on the first call, then forwards each call to the compiled pattern (one method
call more per use: for patterns off the hot path; a pattern used on every scalar or line
stays a plain ``re.compile``).
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
