"""Precision of gpulint on the shared corpus, against a table of judged findings.

Each repository folder of the corpus is linted on its own, as its owners would lint it
(from inside the folder, `gpulint check --format json .`). Every error and warning is looked
up in `judged.tsv` by (repo, path, line, column, code), so a change of message wording keeps
its verdict; notes are advice and are listed, not judged.

    run.py              # counts per rule and repository, and what changed
    run.py --update     # append unjudged findings to judged.tsv with verdict '?'
    run.py --check      # exit 1 if a finding is unjudged or a judged-wrong one fires
    run.py --summary    # the Markdown tables of SUMMARY.md

Standard library only: it runs the gpulint it is given, it does not import it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_TABLE = HERE / "judged.tsv"
DEFAULT_CORPUS = PROJECT.parent / "shared" / "corpus"
HEADER = ("repo", "path", "line", "column", "code", "verdict", "reason")
VERDICTS = ("real", "wrong", "unactionable")
UNJUDGED = "?"
JUDGED_SEVERITIES = ("error", "warning")
REPO_TIMEOUT_SECONDS = 900

Key = tuple[str, str, int, int, str]


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    column: int
    code: str
    severity: str
    message: str

    @property
    def key(self) -> Key:
        return (self.repo, self.path, self.line, self.column, self.code)


@dataclass(frozen=True)
class Row:
    key: Key
    verdict: str
    reason: str


@dataclass
class RepoRun:
    repo: str
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    input_errors: list[str] = field(default_factory=list)
    failure: str | None = None  # gpulint crashed or printed no JSON
    tool_version: str = "?"


class TableError(Exception):
    pass


def default_gpulint() -> str:
    """The gpulint beside this interpreter (the project's venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "gpulint"
    if beside.exists():
        return str(beside)
    return shutil.which("gpulint") or "gpulint"


def repositories(corpus: Path) -> list[Path]:
    """Repository folders; `_rendered` and other `_`/`.` folders belong to the corpus itself."""
    return sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def clean_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def lint(gpulint: str, repo_dir: Path) -> RepoRun:
    started = time.perf_counter()
    run = RepoRun(repo=repo_dir.name, seconds=0.0)
    try:
        done = subprocess.run(
            [gpulint, "check", "--format", "json", "."],
            cwd=repo_dir,
            capture_output=True,
            text=True,
            timeout=REPO_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        run.failure = f"could not run {gpulint}: {exc}"
        run.seconds = time.perf_counter() - started
        return run
    run.seconds = time.perf_counter() - started
    # Exit 0, 1 (findings) and 2 (input errors) all print the report; anything else is a crash.
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        run.failure = f"exit {done.returncode}, no JSON report: {tail}"
        return run
    if done.returncode not in (0, 1, 2):
        run.failure = f"exit {done.returncode}"
    run.tool_version = str(report.get("tool", {}).get("version", "?"))
    for item in report.get("findings", []):
        if item.get("suppressed"):
            continue  # the owners silenced it on purpose: gpulint does not report it
        finding = Finding(
            repo=run.repo,
            path=clean_path(item["path"]),
            line=int(item["line"]),
            column=int(item["column"]),
            code=item["code"],
            severity=item["severity"],
            message=" ".join(item["message"].split()),
        )
        (run.findings if finding.severity in JUDGED_SEVERITIES else run.notes).append(finding)
    for error in report.get("errors", []):
        place = ":".join(
            str(error[k]) for k in ("path", "line", "column") if error.get(k) is not None
        )
        run.input_errors.append(
            f"{clean_path(place)}: {' '.join(str(error.get('message', '')).split())}"
        )
    return run


def read_table(path: Path) -> dict[Key, Row]:
    if not path.exists():
        return {}
    rows: dict[Key, Row] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise TableError(f"{path}:1: the header must be: {chr(9).join(HEADER)}")
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        cells = text.split("\t")
        if len(cells) != len(HEADER):
            raise TableError(
                f"{path}:{number}: {len(cells)} tab-separated cells, expected {len(HEADER)}"
            )
        repo, file, line, column, code, verdict, reason = cells
        if verdict not in (*VERDICTS, UNJUDGED):
            raise TableError(
                f"{path}:{number}: verdict {verdict!r} is not one of {', '.join(VERDICTS)} or ?"
            )
        if not line.isdigit() or not column.isdigit():
            raise TableError(
                f"{path}:{number}: line and column must be numbers, got {line!r} and {column!r}"
            )
        key: Key = (repo, file, int(line), int(column), code)
        if key in rows:
            raise TableError(f"{path}:{number}: a second row for {format_key(key)}")
        if verdict != UNJUDGED and not reason.strip():
            raise TableError(f"{path}:{number}: a verdict needs its one-line reason")
        rows[key] = Row(key=key, verdict=verdict, reason=reason.strip())
    return rows


def write_table(path: Path, rows: dict[Key, Row]) -> None:
    out = ["\t".join(HEADER)]
    for key in sorted(rows):
        row = rows[key]
        repo, file, line, column, code = key
        reason = " ".join(row.reason.replace("\t", " ").split())
        out.append("\t".join((repo, file, str(line), str(column), code, row.verdict, reason)))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def format_key(key: Key) -> str:
    repo, file, line, column, code = key
    return f"{repo}/{file}:{line}:{column} {code}"


def verdict_of(finding: Finding, table: dict[Key, Row]) -> str:
    row = table.get(finding.key)
    return row.verdict if row else UNJUDGED


def count_table(groups: dict[str, list[str]], label: str) -> list[str]:
    """Markdown table, one line per group: fired, each verdict, unjudged, precision."""
    lines = [
        f"| {label} | fired | real | wrong | unactionable | unjudged | precision |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    total: Counter[str] = Counter()
    for name in sorted(groups):
        counts = Counter(groups[name])
        total.update(counts)
        lines.append(count_line(name, counts))
    lines.append(count_line("**total**", total))
    return lines


def count_line(name: str, counts: Counter[str]) -> str:
    fired = sum(counts.values())
    precision = f"{100 * counts['real'] / fired:.0f}%" if fired else "-"
    cells = [str(counts[v]) for v in (*VERDICTS, UNJUDGED)]
    return f"| {name} | {fired} | {' | '.join(cells)} | {precision} |"


def tables(runs: list[RepoRun], table: dict[Key, Row]) -> list[str]:
    by_rule: dict[str, list[str]] = {}
    by_repo: dict[str, list[str]] = {run.repo: [] for run in runs}
    for run in runs:
        for finding in run.findings:
            verdict = verdict_of(finding, table)
            by_rule.setdefault(finding.code, []).append(verdict)
            by_repo[run.repo].append(verdict)
    return [
        "### Per rule (errors and warnings)",
        "",
        *count_table(by_rule, "rule"),
        "",
        "### Per repository (errors and warnings)",
        "",
        *count_table(by_repo, "repository"),
    ]


def environment_line(runs: list[RepoRun]) -> str:
    """What the figures depend on besides the rules: gpulint's version, the renderers."""
    versions = ", ".join(sorted({run.tool_version for run in runs})) or "?"
    tools = ", ".join(
        f"{name} {'found' if shutil.which(name) else 'absent'}"
        for name in ("helm", "kustomize", "kubectl")
    )
    return f"gpulint {versions}; on PATH: {tools} (charts are rendered only where helm is found)."


def summary(runs: list[RepoRun], table: dict[Key, Row]) -> str:
    notes = Counter(n.code for run in runs for n in run.notes)
    input_errors = sum(len(run.input_errors) for run in runs)
    lines = [
        "# gpulint precision on the shared corpus",
        "",
        "Generated by `benchmarks/precision/run.py --summary`: each repository folder of",
        "`../shared/corpus` linted on its own (`cd <repo> && gpulint check --format json .`),",
        "every error and warning looked up in `judged.tsv`. Precision = real / (errors +",
        "warnings). The verdicts are defined in README.md.",
        "",
        environment_line(runs),
        "",
        *tables(runs, table),
        "",
        "Notes (advice, not judged): "
        + (", ".join(f"{code} {count}" for code, count in sorted(notes.items())) or "none")
        + f". Input errors (files gpulint could not read or render): {input_errors}.",
    ]
    # The wrong ones in full: they are what the rule engineers must silence first.
    wrong = sorted(
        (f.key, table[f.key].reason)
        for run in runs
        for f in run.findings
        if verdict_of(f, table) == "wrong"
    )
    lines += ["", f"### Judged wrong ({len(wrong)})", ""]
    lines += [f"- {format_key(key)}: {reason}" for key, reason in wrong]
    failures = [f"- {run.repo}: {run.failure}" for run in runs if run.failure]
    if failures:
        lines += ["", "gpulint failed on:", *failures]
    return "\n".join(lines) + "\n"


def changes(
    runs: list[RepoRun], table: dict[Key, Row], linted: set[str]
) -> tuple[list[str], int, int]:
    """New unjudged findings, judged wrong/unactionable ones still firing, rows gone."""
    firing = {f.key: f for run in runs for f in run.findings}
    as_notes = {n.key: n for run in runs for n in run.notes}
    new = [f for f in firing.values() if verdict_of(f, table) == UNJUDGED]
    still = [
        (table[k], f)
        for k, f in firing.items()
        if k in table and table[k].verdict in ("wrong", "unactionable")
    ]
    gone = [row for k, row in table.items() if k not in firing and k[0] in linted]
    out: list[str] = []
    out += [f"### Unjudged findings ({len(new)})", ""]
    for f in sorted(new, key=lambda f: f.key):
        out.append(f"- {format_key(f.key)} {f.severity}: {f.message}")
    for verdict in ("wrong", "unactionable"):
        rows = sorted(
            ((r, f) for r, f in still if r.verdict == verdict), key=lambda pair: pair[0].key
        )
        out += ["", f"### Judged {verdict}, still firing ({len(rows)})", ""]
        out += [f"- {format_key(r.key)}: {r.reason}" for r, _ in rows]
    out += ["", f"### Judged rows that no longer fire ({len(gone)})", ""]
    for row in sorted(gone, key=lambda r: r.key):
        now = " (now a note)" if row.key in as_notes else ""
        out.append(f"- [{row.verdict}] {format_key(row.key)}{now}: {row.reason}")
    wrong_firing = sum(1 for r, _ in still if r.verdict == "wrong")
    return out, len(new), wrong_firing


def details(runs: list[RepoRun]) -> list[str]:
    out = ["### Notes (advice, not judged)", ""]
    out += [
        f"- {format_key(n.key)}: {n.message}"
        for run in runs
        for n in sorted(run.notes, key=lambda n: n.key)
    ]
    errors = [f"- {run.repo}/{error}" for run in runs for error in run.input_errors]
    out += ["", f"### Input errors ({len(errors)})", "", *errors]
    failures = [f"- {run.repo}: {run.failure}" for run in runs if run.failure]
    if failures:
        out += ["", "### gpulint failed", "", *failures]
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--gpulint", default=default_gpulint(), help="gpulint executable (default: the venv's)"
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="corpus folder (default: ../shared/corpus)",
    )
    parser.add_argument(
        "--table", type=Path, default=DEFAULT_TABLE, help="judged table (default: judged.tsv here)"
    )
    parser.add_argument(
        "--repo", action="append", default=[], help="only this repository folder (repeatable)"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--update", action="store_true", help="append unjudged findings to the table with verdict ?"
    )
    mode.add_argument(
        "--summary", action="store_true", help="print only the Markdown tables (for SUMMARY.md)"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 on an unjudged finding or a judged-wrong one"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        table = read_table(args.table)
    except TableError as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    if not args.corpus.is_dir():
        print(f"run.py: corpus folder not found: {args.corpus}", file=sys.stderr)
        return 2
    # gpulint runs from inside each repository folder: a relative path must not depend on that.
    gpulint = args.gpulint if os.sep not in args.gpulint else str(Path(args.gpulint).resolve())
    repos = [p for p in repositories(args.corpus) if not args.repo or p.name in args.repo]
    missing = set(args.repo) - {p.name for p in repos}
    if missing:
        print(
            f"run.py: no repository folder {', '.join(sorted(missing))} in {args.corpus}",
            file=sys.stderr,
        )
        return 2
    started = time.perf_counter()
    runs = [lint(gpulint, repo) for repo in repos]
    elapsed = time.perf_counter() - started

    report, unjudged, wrong_firing = changes(runs, table, {run.repo for run in runs})
    if args.summary:
        print(summary(runs, table), end="")
    else:
        print(f"## gpulint precision: {len(runs)} repositories of {args.corpus}\n")
        print(
            "\n".join(
                [environment_line(runs), "", *tables(runs, table), "", *report, "", *details(runs)]
            )
        )
        timing = ", ".join(f"{run.repo} {run.seconds:.1f}" for run in runs)
        print(f"\nlinted in {elapsed:.1f} s ({timing})")

    if args.update:
        added = 0
        for run in runs:
            for finding in run.findings:
                if finding.key not in table:
                    reason = f"{finding.severity}: {finding.message}"
                    table[finding.key] = Row(key=finding.key, verdict=UNJUDGED, reason=reason)
                    added += 1
        write_table(args.table, table)
        print(f"{args.table}: {added} row(s) added with verdict ?")
    if args.check:
        failed = [run.repo for run in runs if run.failure]
        problems = []
        if unjudged:
            problems.append(f"{unjudged} unjudged finding(s)")
        if wrong_firing:
            problems.append(f"{wrong_firing} judged-wrong finding(s) firing")
        if failed:
            problems.append(f"gpulint failed on {', '.join(failed)}")
        if problems:
            print("check failed: " + "; ".join(problems), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
