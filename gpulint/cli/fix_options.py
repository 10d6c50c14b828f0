"""``check --fix``, ``--unsafe-fixes``, ``--diff``: options, running the fixer, the summary."""

from __future__ import annotations

import sys
from collections import Counter

from gpulint.cli.option_groups import Decorator, Options, option
from gpulint.core.findings import Finding, FixSafety, RunResult, printable


def options() -> list[Decorator]:
    """The fix options, in a section of their own; read back by :func:`flags`."""
    return [
        option("--fix", is_flag=True, section="Fixes", help="Apply safe fixes in place."),
        option(
            "--unsafe-fixes",
            is_flag=True,
            section="Fixes",
            help="With --fix or --diff: also the fixes that may change what you meant.",
        ),
        option(
            "--diff",
            is_flag=True,
            section="Fixes",
            help="Print the fixes as a unified diff and change nothing "
            "(exit 1 when there is something to fix).",
        ),
    ]


def flags(options: Options) -> dict[str, bool]:
    names = ("fix", "unsafe_fixes", "diff", "follow_symlinks")
    return {name: bool(getattr(options, name, False)) for name in names}


def requested(options: Options) -> bool:
    chosen = flags(options)
    return chosen["fix"] or chosen["diff"]


def fix_files(
    result: RunResult, ctx, verbose: bool, chosen: dict[str, bool]
) -> tuple[int, bool, int]:
    """Fix (or, with --diff, show) the fixable findings of ``result``: (fixed count, changed,
    files that were not written: each said on standard error)."""
    # Only with --fix or --diff; a plain run never imports the fixer (LAZY in
    # tests/project/test_import_contract.py).
    from gpulint.fix.fixer import fix_file, wanted
    from gpulint.fix.write import NotWritten, check_writable, linted_roots, write_fixed

    unsafe = bool(chosen["unsafe_fixes"])
    roots = linted_roots(ctx.settings.linted_paths)
    by_file: dict[str, list[Finding]] = {}
    for finding in result.findings:
        if finding.fix is not None and wanted(finding, unsafe):
            by_file.setdefault(finding.fix.file, []).append(finding)
    fixed = 0
    changed = False
    failed = 0
    for path, findings in sorted(by_file.items()):
        try:
            if not chosen["diff"]:  # before the work: a file that is not written is not fixed
                check_writable(path, roots, chosen["follow_symlinks"])
            outcome = fix_file(path, findings, ctx, unsafe)
            if outcome.changed and not chosen["diff"]:
                write_fixed(path, outcome.fixed or b"")
        except (NotWritten, OSError) as exc:
            reason = str(exc) if isinstance(exc, NotWritten) else f"cannot write: {_reason(exc)}"
            sys.stderr.write(f"gpulint: {printable(path)}: {reason}\n")
            failed += 1
            continue
        if outcome.error:
            sys.stderr.write(f"gpulint: {path}: {outcome.error}\n")
        for finding, why in outcome.rolled_back:
            sys.stderr.write(
                f"gpulint: {path}:{finding.location.line}: {finding.code} fix rolled back: {why} "
                "(a bug in the fix; please report it)\n"
            )
        fixed += len(outcome.fixed_findings)
        if not outcome.changed:
            continue
        changed = True
        if chosen["diff"]:
            _print_diff(path, outcome.original, outcome.fixed or b"")
        if verbose:
            for finding in outcome.fixed_findings:
                sys.stderr.write(
                    f"gpulint: {path}:{finding.location.line}: {finding.code} fixed: "
                    f"{finding.fix.title if finding.fix else ''}\n"
                )
    return fixed, changed, failed


def _reason(exc: OSError) -> str:
    return f"{exc.strerror}: not fixed" if exc.strerror else f"{exc}: not fixed"


def _print_diff(path: str, before: bytes, after: bytes) -> None:
    import difflib  # only with --diff (see tests/project/test_import_contract.py: LAZY)

    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    names = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    for line in difflib.unified_diff(old, new, *names):
        # As diff(1) marks it, so that patch(1) applies the output as it is.
        sys.stdout.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    sys.stdout.flush()


def summary(fixed: int, result: RunResult, verbose: bool, chosen: dict[str, bool]) -> list[str]:
    """What --fix did and what is left, for standard error."""
    active = result.active()
    verb = "would fix" if chosen["diff"] else "fixed"
    left = len(active) - (fixed if chosen["diff"] else 0)  # --diff changed nothing
    lines = [f"gpulint: {verb} {fixed} finding(s); {left} remain"]
    if not chosen["unsafe_fixes"]:
        more = sum(
            1 for f in active if f.fix and f.fix.applicable and f.fix.safety is FixSafety.UNSAFE
        )
        if more:
            lines[0] += f"; {more} more with --unsafe-fixes"
    reasons = Counter(
        f.fix.reason for f in active if f.fix is not None and not f.fix.applicable and f.fix.reason
    )
    for reason, count in sorted(reasons.items()):
        if verbose or not reason.startswith("not fixable here"):
            lines.append(f"gpulint: {count} fix(es) not applied: {reason}")
    return lines
