"""Which directive silences a finding, found by lookups rather than by trying each one.

A directive covers a finding when the place matches (a comment: the file and line;
an annotation: the object, the pod template under it, the files it is reported in)
and one of its selectors names the finding's rule. :meth:`Directive.covers` says
so for one pair; trying every directive of an object or line for every finding
is quadratic when many share one (a stream that repeats an object's name, a
block of comment lines above one line). Here each directive is filed under every
key it answers to, in the order given, so the first directive that covers a
finding is the first entry of one of the few buckets the finding's keys name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gpulint.core.findings import Finding
from gpulint.rules.directives import ALL, Directive


def _selector_keys(selector: str) -> tuple[str, ...]:
    # covers(): ALL, the code in any case, or the name as written
    return (ALL,) if selector == ALL else (selector.upper(), selector)


def _pointer_prefixes(pointer: str) -> Iterator[str]:
    """The empty pointer and every ancestor of ``pointer``, itself included
    ("/a/b": "", "/a", "/a/b")."""
    yield ""
    at = pointer.find("/", 1)
    while at != -1:
        yield pointer[:at]
        at = pointer.find("/", at + 1)
    if pointer:
        yield pointer


class DirectiveIndex:
    """The honoured directives of one :func:`suppress.apply`, filed by what they cover."""

    def __init__(self, directives: Iterable[Directive], same_source: bool) -> None:
        self.same_source = same_source
        self._comments: dict[tuple, list[tuple[int, Directive]]] = {}
        self._annotations: dict[tuple, list[tuple[int, Directive]]] = {}
        self._lines: set[tuple] = set()  # (file, line) a comment covers
        self._objects: set = set()  # objects an annotation sits on
        for order, d in enumerate(directives):
            keys = {k for s in d.selectors for k in _selector_keys(s)}
            if d.kind == "comment":
                for line in set(d.lines):
                    self._lines.add((d.location.file, line))
                    for key in keys:
                        self._file(self._comments, (d.location.file, line, key), order, d)
                continue
            self._objects.add(d.resource)
            files = (None,) if same_source else set(d.files)
            for file in files:
                for key in keys:
                    self._file(self._annotations, (d.resource, d.prefix, key, file), order, d)

    @staticmethod
    def _file(table: dict, key: tuple, order: int, d: Directive) -> None:
        table.setdefault(key, []).append((order, d))

    def first_covering(self, finding: Finding) -> tuple[Directive, str] | None:
        """The directive that silences ``finding`` and its selector: comments before
        annotations, each in the order given (as trying them one by one would)."""
        keys = (ALL, finding.code, finding.name)
        loc = finding.location
        found = None
        if (loc.file, loc.line) in self._lines:
            found = self._first(self._comments, ((loc.file, loc.line, k) for k in keys), finding)
        if found is None and finding.resource in self._objects:
            file = None if self.same_source else loc.file
            wanted = (
                (finding.resource, prefix, k, file)
                for prefix in _pointer_prefixes(finding.pointer)
                for k in keys
            )
            found = self._first(self._annotations, wanted, finding)
        return found

    def _first(
        self, table: dict, keys: Iterable[tuple], finding: Finding
    ) -> tuple[Directive, str] | None:
        best: tuple[int, Directive] | None = None
        for key in keys:
            bucket = table.get(key)
            if not bucket:
                continue
            for order, directive in bucket:
                if best is not None and order >= best[0]:
                    break
                if directive.covers(finding, self.same_source) is not None:
                    best = (order, directive)
                    break
        if best is None:
            return None
        selector = best[1].covers(finding, self.same_source)
        return (best[1], selector) if selector is not None else None
