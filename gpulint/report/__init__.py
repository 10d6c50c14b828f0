"""Reporters: findings in, text out. They know nothing about YAML or rules."""

from __future__ import annotations

from collections.abc import Callable

from gpulint.findings import RunResult

FORMATS = ("text", "json", "sarif", "github")


def render(fmt: str, result: RunResult, color: bool = False) -> str:
    return _reporter(fmt)(result, color)


def _reporter(fmt: str) -> Callable[[RunResult, bool], str]:
    # Imported on demand: sarif-om costs start-up time only when SARIF is asked for.
    if fmt == "text":
        from gpulint.report.text import render as fn
    elif fmt == "json":
        from gpulint.report.json import render as fn
    elif fmt == "sarif":
        from gpulint.report.sarif import render as fn
    elif fmt == "github":
        from gpulint.report.github import render as fn
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return fn
