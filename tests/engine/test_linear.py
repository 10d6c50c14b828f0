"""A file of many documents costs work linear in its documents (issue 23).

Counted, not timed: the Python calls of a run (cProfile's count), and the characters of
the source's text that string methods and gpulint's lazy patterns scan, for a file of
N documents and one of 2N. Work per document proportional to the whole file (a rule
that searches ``doc.source.text``, a lookup that tries every suppression of an object,
a block of comment lines each searching for the line it covers) doubles the counts
per document when the documents double, and the ratio goes towards 4.
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Iterator
from typing import Any

import pytest

from gpulint import lazy_re
from gpulint.inputs import sources
from gpulint.yaml import parse, templates
from tests.helpers import RULES, run_cli

RATIO = 2.25  # twice the documents: twice the work, and some slack for the run's fixed part


class _Counted(str):
    """A source text that counts the characters its searches scan."""

    scanned = 0

    def _charge(self, start: Any, end: Any, found: int, width: int = 1) -> None:
        start = 0 if start is None else start
        end = len(self) if end is None else end
        _Counted.scanned += (found + width - start) if found >= 0 else max(end - start, 0)

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
        _Counted.scanned += end - found if found >= 0 else end - (start or 0)
        return found

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        self._charge(start, end, -1)
        return str.count(self, sub, start, end)

    def splitlines(self, keepends: bool = False) -> list[str]:
        _Counted.scanned += len(self)
        return str.splitlines(self, keepends)

    def split(self, sep: Any = None, maxsplit: int = -1) -> list[str]:
        _Counted.scanned += len(self)
        return str.split(self, sep, maxsplit)


def _counting_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("search", "match", "finditer", "findall"):
        real = getattr(lazy_re.LazyPattern, name)

        def counted(self: Any, text: Any, *args: Any, _real: Any = real) -> Any:
            if isinstance(text, _Counted):
                _Counted.scanned += len(text)  # at most: a search may stop early
            return _real(self, text, *args)

        monkeypatch.setattr(lazy_re.LazyPattern, name, counted)


def _documents() -> list[str]:
    """Every rule's documented examples (Kubernetes objects), and small documents of
    one's own: a suppression comment block above a line, an annotated object."""
    found = []
    for rule in RULES:
        for example in rule.examples():
            if example and not example.startswith("# file:") and "apiVersion" in example:
                found.extend(d for d in example.split("\n---\n") if d.strip())
    found.append(
        "# gpulint: disable=GPU106 sized by default\n" * 3 + "apiVersion: v1\nkind: Pod\n"
        "metadata:\n  name: p\n  annotations:\n    ignore-check.gpulint.io/GPU201: fine\n"
        "spec:\n  containers:\n    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base\n"
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
    )
    return found


def _stream(count: int) -> str:
    documents = _documents()
    return "".join(
        "---\n" + documents[i % len(documents)].replace("\n---", "\n#---") + "\n"
        for i in range(count)
    )


def _run(tmp_path: Any, count: int) -> tuple[int, int]:
    """(Python calls, characters scanned) of linting one file of ``count`` documents."""
    path = tmp_path / f"{count}.yaml"
    path.write_text(_stream(count))
    _Counted.scanned = 0
    profile = cProfile.Profile()
    profile.enable()
    result = run_cli("check", "--jobs", "1", "--format", "json", str(path))
    profile.disable()
    assert result.exit_code in (1, 2), result.stderr
    calls = sum(stat[1] for stat in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]
    return calls, _Counted.scanned


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = sources.decode

    def decode(path: str, data: bytes, origin: str = "file") -> Any:
        found = real(path, data, origin)
        if isinstance(found, sources.Source):
            found.text = _Counted(found.text)
        return found

    monkeypatch.setattr(sources, "decode", decode)
    # libyaml takes an exact str: it parses a plain copy (once per source)
    composer, parser = parse._Composer, templates.CParser
    monkeypatch.setattr(parse, "_Composer", lambda text: composer(str(text)))
    monkeypatch.setattr(templates, "CParser", lambda text: parser(str(text)))
    _counting_patterns(monkeypatch)
    yield


def test_work_per_document_does_not_grow_with_the_file(tmp_path, counted):
    size = 2 * len(_documents())
    calls, scanned = _run(tmp_path, size)
    calls2, scanned2 = _run(tmp_path, 2 * size)
    assert scanned > 0
    assert scanned2 <= RATIO * scanned, (scanned, scanned2)
    assert calls2 <= RATIO * calls, (calls, calls2)


@pytest.mark.slow
def test_two_hundred_thousand_small_documents_lint(tmp_path):
    """The issue's case: one file of 200,000 small documents (minutes before)."""
    doc = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: b\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\nspec:\n  containers:\n"
        "    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base\n"
    )
    path = tmp_path / "many.yaml"
    path.write_text("".join(doc.format(i=i) for i in range(100_000)))
    result = run_cli(
        "check", "--jobs", "1", "--select", "GPU707,GPU101", "--format", "json", str(path)
    )
    assert result.exit_code == 0, result.stderr
