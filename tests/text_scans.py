"""Counting the characters of the sources' text a run scans: tests of work linear in the
input (a search of the whole file per document makes the count quadratic)."""

from __future__ import annotations

from typing import Any

from gpulint.core import lazy_re


class CountedText(str):
    """A source text that counts the characters its searches scan."""

    scanned = 0

    def _charge(self, start: Any, end: Any, found: int, width: int = 1) -> None:
        start = 0 if start is None else start
        end = len(self) if end is None else end
        CountedText.scanned += (found + width - start) if found >= 0 else max(end - start, 0)

    def __contains__(self, item: object) -> bool:
        found = str.find(self, item)  # type: ignore[arg-type]
        self._charge(None, None, found, len(item))  # type: ignore[arg-type]
        return found >= 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:
        found = str.find(self, sub, start, end)
        self._charge(start, end, found, len(sub))
        return found

    def index(self, sub: str, start: Any = None, end: Any = None) -> int:
        found = str.find(self, sub, start, end)
        self._charge(start, end, found, len(sub))
        return str.index(self, sub, start, end)

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:
        found = str.rfind(self, sub, start, end)
        end = len(self) if end is None else end
        CountedText.scanned += end - found if found >= 0 else end - (start or 0)
        return found

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        self._charge(start, end, -1)
        return str.count(self, sub, start, end)

    def splitlines(self, keepends: bool = False) -> list[str]:
        CountedText.scanned += len(self)
        return str.splitlines(self, keepends)

    def split(self, sep: Any = None, maxsplit: int = -1) -> list[str]:
        CountedText.scanned += len(self)
        return str.split(self, sep, maxsplit)


def _count_pattern_scans(monkeypatch: Any) -> None:
    for name in ("search", "match", "finditer", "findall"):
        real = getattr(lazy_re.LazyPattern, name)

        def counted(self: Any, text: Any, *args: Any, _real: Any = real) -> Any:
            if isinstance(text, CountedText):
                CountedText.scanned += len(text)  # at most: a search may stop early
            return _real(self, text, *args)

        monkeypatch.setattr(lazy_re.LazyPattern, name, counted)


def count_text_scans(monkeypatch: Any) -> None:
    """Make every source read wrap its text in :class:`CountedText` (libyaml, which takes
    an exact str, parses a plain copy) and count gpulint's lazy patterns' scans of it."""
    from gpulint.core import sources
    from gpulint.yaml import parse, templates

    real = sources.decode

    def decode(path: str, data: bytes, origin: str = "file") -> Any:
        found = real(path, data, origin)
        if isinstance(found, sources.Source):
            found.text = CountedText(found.text)
        return found

    monkeypatch.setattr(sources, "decode", decode)
    composer, parser = parse._Composer, templates.CParser
    monkeypatch.setattr(parse, "_Composer", lambda text: composer(str(text)))
    monkeypatch.setattr(templates, "CParser", lambda text: parser(str(text)))
    _count_pattern_scans(monkeypatch)
