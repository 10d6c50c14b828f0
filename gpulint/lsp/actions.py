"""Code actions: a finding's fix, all safe fixes of the file, a suppression comment.

Edits come from the findings of the last lint of the document's current version (a
stale edit would land on the wrong text); which fixes go together is the fixer's own
rule (``gpulint.fix.fixer.wanted``, ``gpulint.fix.apply.overlap``).
"""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from gpulint.core.findings import Edit, Finding, FixSafety
from gpulint.filter.directives import COMMENT
from gpulint.fix.apply import overlap
from gpulint.fix.fixer import wanted
from gpulint.lsp import convert

FIX_ALL = "source.fixAll.gpulint"
KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL]
REASON = "<reason>"  # the suppression's reason, for the author to write


def _before(a: types.Range, b: types.Position) -> bool:
    return (a.end.line, a.end.character) < (b.line, b.character)


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts: a cursor at a finding's end)."""
    return not (_before(a, b.start) or _before(b, a.start))


def quick_fixes(
    uri: str, findings: Iterable[Finding], builtin: frozenset[str], encode: convert.Encode
) -> list[types.CodeAction]:
    """Each applicable fix as a quick fix; a safe one is preferred, an unsafe one says so."""
    actions = []
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.applicable or fix.via != "file":
            continue
        actions.append(
            types.CodeAction(
                title=f"{convert.fix_title(fix)} ({finding.code})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[convert.diagnostic(finding, builtin, encode)],
                edit=convert.workspace_edit(uri, convert.text_edits(fix, encode)),
                is_preferred=fix.safety is FixSafety.SAFE,
            )
        )
    return actions


def fix_all(
    uri: str, findings: Iterable[Finding], encode: convert.Encode, kind: str = FIX_ALL
) -> types.CodeAction | None:
    """The safe fixes of the file whose edits do not overlap (the others wait for the next
    lint, as ``gpulint check --fix`` leaves them to its next pass)."""
    taken: list[Edit] = []
    for finding in sorted(findings, key=Finding.sort_key):
        if not wanted(finding, unsafe=False) or finding.fix is None or finding.fix.via != "file":
            continue
        edits = list(finding.fix.edits)
        if not any(overlap(a, b) for a in edits for b in taken):
            taken.extend(edits)
    if not taken:
        return None
    ordered = sorted(taken, key=lambda e: e.offset)
    return types.CodeAction(
        title="gpulint: fix all safe fixes in this file",
        kind=kind,
        edit=convert.workspace_edit(uri, [convert.text_edit(e, encode) for e in ordered]),
    )


def suppressions(
    uri: str, findings: Iterable[Finding], lines: list[str], encode: convert.Encode
) -> list[types.CodeAction]:
    """``# gpulint: disable=CODE <reason>`` at the end of the finding's line (README's
    syntax); not where the line already holds a gpulint directive."""
    actions = []
    seen: set[tuple[str, int]] = set()
    for finding in findings:
        line = finding.location.line
        if (finding.code, line) in seen or not 0 < line <= len(lines):
            continue
        seen.add((finding.code, line))
        text = lines[line - 1].rstrip("\r\n")
        if COMMENT.search(text):
            continue
        end = len(text)
        at = encode(convert.span(line, end + 1, line, end + 1))
        comment = f"  # gpulint: disable={finding.code} {REASON}"
        actions.append(
            types.CodeAction(
                title=f"Suppress {finding.code} on this line (write the reason)",
                kind=types.CodeActionKind.QuickFix,
                edit=convert.workspace_edit(uri, [types.TextEdit(range=at, new_text=comment)]),
            )
        )
    return actions
