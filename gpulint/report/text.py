"""``path:line:col: severity [CODE name] message (Kind ns/name, container NAME)``.

A finding with related locations is followed by one indented line for each:
``    related: path:line:col: what is there``.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.core.findings import Finding, RunResult, Severity, printable

_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.NOTE: "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def format_finding(finding: Finding, color: bool = False) -> str:
    loc = finding.location
    where = f"{printable(loc.file)}:{loc.line}:{loc.column}"
    severity = _paint(str(finding.severity), _COLORS[finding.severity], color)
    context = []
    if finding.resource:
        context.append(printable(finding.resource.label()))
    if finding.container:
        context.append(f"container {printable(finding.container)}")
    rule = f"[{finding.code} {finding.name}]"
    line = f"{_paint(where, _BOLD, color)}: {severity} {rule} {printable(finding.message)}"
    if context:
        line += " " + _paint(f"({', '.join(context)})", _DIM, color)
    if finding.template:
        line += f" [template {printable(finding.template)}]"
    if finding.value_source:
        line += (
            f" [value {printable(finding.value_source.key)} from "
            f"{printable(finding.value_source.label())}]"
        )
    if finding.suppression:
        line += f" [suppressed: {finding.suppression.kind}]"
    for other in finding.related:  # the other files a cross-file rule compared
        at = other.location
        line += f"\n    related: {at.file}:{at.line}:{at.column}: {other.message}"
    return line


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    yield from findings_only(result, color)
    for notice in result.notices:
        yield f"note: {printable(notice)}\n"
    if result.held_back:
        # Only when findings are held back (LAZY in tests/project/test_import_contract.py).
        from gpulint.core.held import summary_line

        yield f"note: {summary_line(result.held_back)}\n"
    yield summary(result) + "\n"


def findings_only(result: RunResult, color: bool = False) -> Iterator[str]:
    """Input errors and unsuppressed findings, one a line (``--quiet``)."""
    for error in result.errors:
        yield (
            f"{printable(error.file)}:{error.line}:{error.column}: "
            f"{_paint('error', _COLORS[Severity.ERROR], color)} [input] "
            f"{printable(error.message)}\n"
        )
    for finding in result.findings:
        if finding.suppression is None:
            yield format_finding(finding, color) + "\n"


def summary(result: RunResult) -> str:
    active = result.active()
    counts = {s: sum(1 for f in active if f.severity == s) for s in Severity}
    parts = [
        f"{counts[Severity.ERROR]} error(s)",
        f"{counts[Severity.WARNING]} warning(s)",
        f"{counts[Severity.NOTE]} note(s)",
    ]
    suppressed = len(result.findings) - len(active)
    if suppressed:
        parts.append(f"{suppressed} suppressed")
    if result.errors:
        parts.append(f"{len(result.errors)} input error(s)")
    files = result.files_checked
    return f"{', '.join(parts)} in {files} file{'s' if files != 1 else ''}"
