"""The Markdown of the precision report: counts per rule and repository, notes, recall."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterable

from defects import FOUND, MISSED, NO_RULE, NOTE_ONLY, Defect, Hit, status
from judged import UNJUDGED, VERDICTS, Key, Row, format_key
from lint_corpus import Finding, RepoRun

FINDINGS_HEADER = ("fired", "precision")  # errors and warnings: real / fired
NOTES_HEADER = ("notes", "worth reading")  # notes: real (worth reading) / notes


def verdict_of(finding: Finding, table: dict[Key, Row]) -> str:
    row = table.get(finding.key)
    return row.verdict if row else UNJUDGED


def count_table(groups: dict[str, list[str]], label: str, header: tuple[str, str]) -> list[str]:
    """Markdown table, one line per group: how many, each verdict, unjudged, real share."""
    total_name, rate_name = header
    lines = [
        f"| {label} | {total_name} | real | wrong | unactionable | unjudged | {rate_name} |",
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
    rate = f"{100 * counts['real'] / fired:.0f}%" if fired else "-"
    cells = [str(counts[v]) for v in (*VERDICTS, UNJUDGED)]
    return f"| {name} | {fired} | {' | '.join(cells)} | {rate} |"


def grouped(
    runs: list[RepoRun], table: dict[Key, Row], notes: bool, every_repo: bool
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Verdicts per rule and per repository, of the errors and warnings or of the notes."""
    by_rule: dict[str, list[str]] = {}
    by_repo: dict[str, list[str]] = {run.repo: [] for run in runs} if every_repo else {}
    for run in runs:
        for finding in run.notes if notes else run.findings:
            verdict = verdict_of(finding, table)
            by_rule.setdefault(finding.code, []).append(verdict)
            by_repo.setdefault(run.repo, []).append(verdict)
    return by_rule, by_repo


def tables(runs: list[RepoRun], table: dict[Key, Row]) -> list[str]:
    rules, repos = grouped(runs, table, notes=False, every_repo=True)
    note_rules, note_repos = grouped(runs, table, notes=True, every_repo=False)
    return [
        "### Per rule (errors and warnings)",
        "",
        *count_table(rules, "rule", FINDINGS_HEADER),
        "",
        "### Per repository (errors and warnings)",
        "",
        *count_table(repos, "repository", FINDINGS_HEADER),
        "",
        "### Notes per rule (real = worth reading)",
        "",
        *count_table(note_rules, "rule", NOTES_HEADER),
        "",
        "### Notes per repository (real = worth reading)",
        "",
        *count_table(note_repos, "repository", NOTES_HEADER),
    ]


def environment_line(runs: list[RepoRun], path: str | None) -> str:
    """What the figures depend on besides the rules: gpulint's version, the renderers."""
    versions = ", ".join(sorted({run.tool_version for run in runs})) or "?"
    tools = ", ".join(
        f"{name} {'found' if shutil.which(name, path=path) else 'absent'}"
        for name in ("helm", "kustomize", "kubectl")
    )
    cloned = sum(run.as_clone for run in runs)
    how = (
        "each repository linted as a clone of its source (INDEX.tsv's git remote)"
        if cloned == len(runs)
        else f"{cloned} of {len(runs)} repositories linted as clones, the others as bare folders"
    )
    return (
        f"gpulint {versions}; on PATH: {tools} (charts are rendered only where helm is found); "
        f"{how}."
    )


def hits(runs: list[RepoRun]) -> tuple[set[Hit], set[Hit]]:
    """Where errors and warnings, and where notes, were reported."""
    reported = {(f.repo, f.path, f.line, f.code) for run in runs for f in run.findings}
    as_notes = {(n.repo, n.path, n.line, n.code) for run in runs for n in run.notes}
    # a finding at a chart's template that names the value it came from hits it there too
    reported |= {(f.repo, *f.value_at, f.code) for run in runs for f in run.findings if f.value_at}
    as_notes |= {(n.repo, *n.value_at, n.code) for run in runs for n in run.notes if n.value_at}
    return reported, as_notes


def recall(runs: list[RepoRun], defects: list[Defect], full: bool) -> list[str]:
    """Per code: labelled, found, as a note only, missed; then the defects themselves."""
    reported, as_notes = hits(runs)
    states = [(d, status(d, reported, as_notes)) for d in defects]
    found = sum(s == FOUND for _, s in states)
    lines = [
        f"### Labelled defects: {found} of {len(states)} found "
        f"(defects.tsv; {sum(d.code == NO_RULE for d in defects)} have no rule yet)",
        "",
        "| code | labelled | found | note only | missed |",
        "|---|---:|---:|---:|---:|",
    ]
    per_code: dict[str, Counter[str]] = {}
    for defect, state in states:
        per_code.setdefault(defect.code, Counter())[state] += 1
    total: Counter[str] = Counter()
    for code in sorted(per_code):
        counts = per_code[code]
        total.update(counts)
        lines.append(recall_line(code, counts))
    lines.append(recall_line("**total**", total))
    shown = [(d, s) for d, s in states if full or s != FOUND]
    title = "Each defect" if full else "Defects not found (missed or note only)"
    lines += ["", f"#### {title} ({len(shown)})", ""]
    lines += [f"- [{s}] {d.where()}: {d.description}" for d, s in shown]
    return lines


def recall_line(name: str, counts: Counter[str]) -> str:
    cells = [str(counts[s]) for s in (FOUND, NOTE_ONLY, MISSED)]
    return f"| {name} | {sum(counts.values())} | {' | '.join(cells)} |"


def listed(title: str, items: Iterable[str]) -> list[str]:
    rows = list(items)
    return ["", f"### {title} ({len(rows)})", "", *rows]


def wrong_lines(runs: list[RepoRun], table: dict[Key, Row]) -> list[str]:
    """Every finding (error, warning or note) judged wrong that still fires, with its reason."""
    out = []
    for run in runs:
        for f in [*run.findings, *run.notes]:
            if verdict_of(f, table) == "wrong":
                out.append((f.key, f.severity, table[f.key].reason))
    return [f"- {format_key(key)} ({severity}): {reason}" for key, severity, reason in sorted(out)]


def totals_line(runs: list[RepoRun], table: dict[Key, Row], defects: list[Defect]) -> str:
    """One line of totals (the helm-present section of SUMMARY.md)."""
    fired = Counter(verdict_of(f, table) for run in runs for f in run.findings)
    notes = Counter(verdict_of(n, table) for run in runs for n in run.notes)
    reported, as_notes = hits(runs)
    found = sum(status(d, reported, as_notes) == FOUND for d in defects)

    def rate(counts: Counter[str]) -> str:
        n = sum(counts.values())
        return f"{100 * counts['real'] / n:.0f}%" if n else "-"

    return (
        f"errors and warnings: {sum(fired.values())} fired, {fired['real']} real, "
        f"{fired['wrong']} wrong, {fired['unactionable']} unactionable, {fired[UNJUDGED]} "
        f"unjudged (precision {rate(fired)}); notes: {sum(notes.values())}, {notes['real']} "
        f"worth reading ({rate(notes)}), {notes['wrong']} wrong; labelled defects found: "
        f"{found} of {len(defects)}; input errors: {sum(len(r.input_errors) for r in runs)}."
    )
