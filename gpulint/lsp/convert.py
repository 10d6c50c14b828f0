"""gpulint's findings and fixes -> LSP diagnostics and text edits.

gpulint counts lines and columns from 1 in code points with an exclusive end; LSP counts
from 0. Ranges are built here in code points; the server turns them into the client's
units (UTF-16 by default) through pygls's position codec, passed in as ``encode``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from lsprotocol import types
from pygls.uris import from_fs_path

from gpulint.core.findings import Edit, Finding, FixInfo, FixSafety, InputError, Location, Severity
from gpulint.rules import pages

SOURCE = "gpulint"
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}
Encode = Callable[[types.Range], types.Range]


def _same(rng: types.Range) -> types.Range:
    return rng


def span(line: int, column: int, end_line: int, end_column: int) -> types.Range:
    """1-based, end-exclusive (gpulint) -> 0-based LSP range, both in code points."""
    start = types.Position(line=max(line - 1, 0), character=max(column - 1, 0))
    end = types.Position(line=max(end_line - 1, 0), character=max(end_column - 1, 0))
    if (end.line, end.character) < (start.line, start.character):
        end = start  # a zero-width finding still shows (editors widen it to a word)
    return types.Range(start=start, end=end)


def location_range(loc: Location) -> types.Range:
    return span(loc.line, loc.column, loc.end_line, loc.end_column)


def uri_of(path: str) -> str:
    return from_fs_path(os.path.abspath(path)) or path


def diagnostic(
    finding: Finding, builtin: Iterable[str] = (), encode: Encode = _same
) -> types.Diagnostic:
    """One finding; built-in rules link their page (docs/rules/CODE.md)."""
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri_of(other.location.file), range=location_range(other.location)
            ),
            message=other.message,
        )
        for other in finding.related
    ]
    href = pages.help_uri(finding.code) if finding.code in builtin else None
    return types.Diagnostic(
        range=encode(location_range(finding.location)),
        message=finding.message,
        severity=SEVERITIES[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related or None,
    )


def error_diagnostic(
    error: InputError, line_text: str = "", encode: Encode = _same
) -> types.Diagnostic:
    """A document gpulint could not read (a YAML syntax error): from the error to the
    end of its line, so the editor underlines something."""
    end_column = max(len(line_text) + 1, error.column + 1)
    return types.Diagnostic(
        range=encode(span(error.line, error.column, error.line, end_column)),
        message=error.message,
        severity=types.DiagnosticSeverity.Error,
        code="input",
        source=SOURCE,
    )


def text_edit(edit: Edit, encode: Encode = _same) -> types.TextEdit:
    rng = span(edit.line, edit.column, edit.end_line, edit.end_column)
    return types.TextEdit(range=encode(rng), new_text=edit.text)


def text_edits(fix: FixInfo, encode: Encode = _same) -> list[types.TextEdit]:
    """The editor's buffer has its own line breaks: edits say "\\n" as gpulint's text does."""
    return [text_edit(edit, encode) for edit in fix.edits]


def workspace_edit(uri: str, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: edits})


def fix_title(fix: FixInfo) -> str:
    """Unsafe fixes say so: they may change behaviour beyond the finding."""
    return f"{fix.title} (unsafe fix)" if fix.safety is FixSafety.UNSAFE else fix.title
