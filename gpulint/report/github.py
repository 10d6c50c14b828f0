"""GitHub Actions workflow commands: ``::error file=..,line=..,col=..::message``."""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.core.findings import RunResult, Severity, printable
from gpulint.core.held import summary_line
from gpulint.report.paths import from_root

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    # Other control characters (ESC) are escaped too: the log is shown on terminals.
    text = printable(text, keep="\r\n")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(kind: str, props: dict[str, object], message: str) -> str:
    joined = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{kind} {joined}::{escape_data(message)}"


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    for error in result.errors:
        props = {
            "file": from_root(error.file, "github"),
            "line": error.line,
            "col": error.column,
            "title": "gpulint",
        }
        yield _command("error", props, error.message) + "\n"
    for finding in result.active():
        loc = finding.location
        props = {
            "file": from_root(loc.file, "github"),
            "line": loc.line,
            "col": loc.column,
            "endLine": loc.end_line,
            "endColumn": loc.end_column,
            "title": f"{finding.code} {finding.name}",
        }
        message = finding.message
        if finding.resource:
            message += f" ({finding.resource.label()}"
            message += f", container {finding.container})" if finding.container else ")"
        if finding.value_source:
            source = finding.value_source
            message += f" [value {source.key} from {source.label()}]"
        for other in finding.related:  # shown as further lines of the annotation
            message += f"\nrelated: {other.location.file}:{other.location.line}: {other.message}"
        yield _command(_COMMAND[finding.severity], props, message) + "\n"
    if result.held_back:  # one run-level notice, without a file
        yield f"::notice title=gpulint::{escape_data(summary_line(result.held_back))}\n"
