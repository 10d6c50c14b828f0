"""Reporters: findings in, text out (in chunks). They know nothing about YAML or rules."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TextIO

from gpulint.core.findings import RunResult

FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
# The formats that show a finding's fix (its edits); the others say nothing of fixes.
SHOWS_FIXES = frozenset({"json", "sarif"})


def render(fmt: str, result: RunResult, color: bool = False) -> str:
    return "".join(_reporter(fmt)(result, color))


def write(
    fmt: str, result: RunResult, stream: TextIO, color: bool = False, quiet: bool = False
) -> None:
    """The report, chunk by chunk: a big report is never held whole in memory. ``quiet``:
    the text report's findings and input errors only (no notes, no summary line)."""
    if fmt == "text" and quiet:
        from gpulint.report.text import findings_only

        chunks = findings_only(result, color)
    else:
        chunks = _reporter(fmt)(result, color)
    for chunk in chunks:
        stream.write(chunk)


def _reporter(fmt: str) -> Callable[[RunResult, bool], Iterator[str]]:
    # Imported on demand: sarif-om costs start-up time only when SARIF is asked for.
    if fmt == "text":
        from gpulint.report.text import chunks as fn
    elif fmt == "json":
        from gpulint.report.json import chunks as fn
    elif fmt == "sarif":
        from gpulint.report.sarif import chunks as fn
    elif fmt == "github":
        from gpulint.report.github import chunks as fn
    elif fmt == "gitlab":
        from gpulint.report.gitlab import chunks as fn
    elif fmt == "junit":
        from gpulint.report.junit import chunks as fn
    elif fmt == "statistics":  # --statistics: the text report as counts per rule
        from gpulint.report.statistics import chunks as fn
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return fn
