"""``--statistics``: how many findings each rule reported, most first (ruff's
``--statistics``), then the text report's summary line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from gpulint.core.findings import RunResult
from gpulint.report.text import summary


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    counts = Counter((f.code, f.name, str(f.severity)) for f in result.active())
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    code_width = max((len(code) for (code, _, _), _ in rows), default=0)
    name_width = max((len(name) for (_, name, _), _ in rows), default=0)
    for (code, name, severity), n in rows:
        yield f"{n:>{width}}  {code:<{code_width}}  {name:<{name_width}}  {severity}\n"
    if result.errors:
        shown = f"{len(result.errors):>{width}}"
        yield f"{shown}  input error(s): run without --statistics to see them\n"
    yield summary(result) + "\n"
