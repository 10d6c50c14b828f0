"""Fix files in place: apply the fixes of a run's findings, re-lint, keep what holds.

Per file, in passes: the fixable findings are linted afresh from the current text,
the fixes whose edits do not overlap are applied together, and the result is parsed and
linted again. A batch is kept only if the text still parses, each fixed finding is gone
and no finding appeared; otherwise the fixes are retried one at a time, and a fix that
fails alone is rolled back and reported (a bug in that fix). Overlapping fixes wait for
the next pass, where they are computed from the text the previous pass left.
"""

from __future__ import annotations

from collections import Counter

from gpulint.core.findings import Edit, Finding, FixSafety
from gpulint.core.record import field, record
from gpulint.core.sources import Source, read_bytes
from gpulint.core.sources import decode as decode_source
from gpulint.engine.run import FileResult, lint_source
from gpulint.fix import apply
from gpulint.rules.rule import Context

MAX_PASSES = 50  # each pass fixes at least one finding or rejects one fix


@record
class FileFix:
    """One file's --fix outcome: its old and new bytes, the findings fixed or rolled back."""

    path: str
    original: bytes = b""
    fixed: bytes | None = None  # None: the file is unchanged
    fixed_findings: list[Finding] = field(default_factory=list)
    rolled_back: list[tuple[Finding, str]] = field(default_factory=list)
    error: str | None = None  # why the file could not be fixed at all

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original


def wanted(finding: Finding, unsafe: bool) -> bool:
    """Whether --fix (with or without --unsafe-fixes) applies this finding's fix."""
    fix = finding.fix
    return (
        finding.suppression is None
        and fix is not None
        and fix.applicable
        and (unsafe or fix.safety is FixSafety.SAFE)
    )


def fix_file(path: str, targets: list[Finding], ctx: Context, unsafe: bool) -> FileFix:
    """Fix the findings ``targets`` (of one file, from a run) in that file's text."""
    outcome = FileFix(path)
    data = read_bytes(path)
    if not isinstance(data, bytes):
        outcome.error = data.message
        return outcome
    outcome.original = data
    decoded = apply.decode(data)
    linted = decode_source(path, data)
    if decoded is None or not isinstance(linted, Source):
        outcome.error = "not UTF-8 text: not fixed"
        return outcome
    raw, bom = decoded
    text = linted.text
    origin = [f for f in targets if f.fix is not None and f.fix.via != "file"]
    if origin:
        text = _fix_origin_file(ctx, path, text, origin, outcome)
    targets = [f for f in targets if f not in origin]
    remaining = Counter(f.fingerprint() for f in targets)
    rejected: set[str] = set()
    one_at_a_time = False
    before = _lint(ctx, path, text)
    for _pass in range(MAX_PASSES):
        batch = _batch(before, remaining, rejected, unsafe, one_at_a_time)
        if not batch:
            break
        new_text = apply.apply_edits(text, _edits(batch))
        after = _lint(ctx, path, new_text)
        problem = _problem(before, after, batch)
        if problem is None:
            text, before = new_text, after
            outcome.fixed_findings.extend(batch)
            remaining.subtract(f.fingerprint() for f in batch)
            one_at_a_time = False
        elif len(batch) == 1:
            rejected.add(batch[0].fingerprint())
            outcome.rolled_back.append((batch[0], problem))
        else:
            one_at_a_time = True
    if text != linted.text:
        outcome.fixed = bom + apply.restore_breaks(raw, text).encode("utf-8")
    return outcome


def _fix_origin_file(
    ctx: Context, path: str, text: str, findings: list[Finding], outcome: FileFix
) -> str:
    """Apply the fixes of Kustomize findings to their origin file, once, in one batch.

    Their finding belongs to the built resource, so linting this file alone cannot show
    it cleared (the report after fixing does); the batch is kept if the file still parses
    and no finding appears in it.
    """
    chosen: list[Finding] = []
    seen: set[tuple] = set()
    for finding in findings:
        edits = tuple(_edits([finding]))
        if edits in seen:  # the same origin node, reached through several builds
            outcome.fixed_findings.append(finding)
            continue
        taken = _edits(chosen)
        if not any(apply.overlap(a, b) for a in edits for b in taken):
            chosen.append(finding)
            seen.add(edits)
    new_text = apply.apply_edits(text, _edits(chosen))
    before, after = _lint(ctx, path, text), _lint(ctx, path, new_text)
    problem = _problem(before, after, [])
    if problem is not None:
        outcome.rolled_back.extend((f, problem) for f in chosen)
        return text
    outcome.fixed_findings.extend(chosen)
    return new_text


def _edits(findings: list[Finding]) -> list[Edit]:
    return [e for f in findings if f.fix is not None for e in f.fix.edits]


def _lint(ctx: Context, path: str, text: str) -> FileResult:
    result = FileResult()
    lint_source(ctx, Source(path, text), result)
    return result


def _batch(
    result: FileResult, remaining: Counter, rejected: set[str], unsafe: bool, single: bool
) -> list[Finding]:
    chosen: list[Finding] = []
    for finding in sorted(result.findings, key=Finding.sort_key):
        fingerprint = finding.fingerprint()
        if remaining[fingerprint] <= 0 or fingerprint in rejected or not wanted(finding, unsafe):
            continue
        edits = _edits([finding])
        taken = _edits(chosen)
        if any(apply.overlap(a, b) for a in edits for b in taken):
            continue  # waits for the next pass
        chosen.append(finding)
        if single:
            break
    return chosen


def _problem(before: FileResult, after: FileResult, batch: list[Finding]) -> str | None:
    """Why the fixed text is not kept, or None.

    Findings are compared by rule, resource and container, not by place: a fix may move
    another rule's finding (GPU201 points at limits once GPU101 has added them).
    """
    if len(after.errors) > len(before.errors):
        error = after.errors[-1]
        return f"the fixed text does not parse ({error.line}:{error.column}: {error.message})"
    old = Counter(map(_subject, before.findings))
    new = Counter(map(_subject, after.findings))
    expected = Counter(map(_subject, batch))
    for subject, count in expected.items():
        if new[subject] > old[subject] - count:
            return "the finding is still there after the fix"
    for finding in after.findings:
        if new[_subject(finding)] > old[_subject(finding)]:
            return f"the fix creates a new finding: {finding.code} {finding.message}"
    return None


def _subject(finding: Finding) -> tuple:
    resource = finding.resource.label() if finding.resource else ""
    return (finding.code, resource, finding.container)
