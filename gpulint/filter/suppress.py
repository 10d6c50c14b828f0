"""Accountable suppressions: annotations, comments, config exemptions, baseline.

Per source (inside ``lint_source``, so it runs in worker processes too):
:func:`scan` finds the directives (picklable) and :func:`apply` marks the
findings of that source. Once all files are read, :func:`finish` matches the
cross-file findings, hands the directives to the rules' directive checks (GPU001-GPU003
report those that expired, lack a reason or matched nothing), then applies config
exemptions and the baseline.

Directive forms::

    metadata.annotations (object or pod template):
        ignore-check.gpulint.io/<code-or-name>: "<reason>"
        gpulint.io/ignore-all: "<reason>"
    comment on the offending line, or alone on the line above it:
        # gpulint: disable=GPU101,gpu-toleration-missing [until=YYYY-MM-DD] <reason>
        (the grammar: directives.py)

Comments are found by scanning the raw lines (the C parser drops comments).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from gpulint.core.findings import Finding, InputError, Location, Suppression
from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.filter.directive_index import DirectiveIndex
from gpulint.model.kinds.table import get
from gpulint.model.resource import resources_of
from gpulint.rules.directives import ALL, ANNOTATION_ALL, ANNOTATION_PREFIX, Directive
from gpulint.rules.rule import Context
from gpulint.yaml.parse import Document
from gpulint.yaml.positions import json_pointer, place

# -- scanning --------------------------------------------------------------


def _scan_comments(path: str, text: str) -> tuple[list[Directive], list[InputError]]:
    if "gpulint:" not in text:
        return [], []
    # Only when a comment may be a directive.
    from gpulint.filter import directives as directives_grammar

    directives: list[Directive] = []
    errors: list[InputError] = []
    lines = text.splitlines()
    code = -1  # the next code line found so far: a block of comment lines shares it
    for index, line in enumerate(lines):
        if "gpulint:" not in line:
            continue
        match = directives_grammar.COMMENT.search(line)
        if match is None:
            continue
        number, column = index + 1, match.start() + 1
        parsed = directives_grammar.parse(line, match)
        if isinstance(parsed, directives_grammar.Problem):
            errors.append(InputError(path, parsed.message, number, parsed.offset + 1))
            continue
        selectors, until, reason = parsed.selectors, parsed.until, parsed.reason
        own_line = not line[: match.start()].strip()
        if own_line and code <= index:
            code = _next_code_index(lines, index)
        covered = ((code + 1 if code < len(lines) else index + 2),) if own_line else (number,)
        location = Location(path, number, column, number, len(line) + 1)
        directives.append(Directive("comment", location, selectors, reason, until, covered))
    return directives, errors


def _next_code_index(lines: list[str], index: int) -> int:
    """0-based index of the first line after ``index`` that is not blank or a comment;
    ``len(lines)`` if there is none."""
    for later in range(index + 1, len(lines)):
        stripped = lines[later].strip()
        if stripped and not stripped.startswith("#"):
            return later
    return len(lines)


def annotations_of(doc: Document) -> list[Directive]:
    """Suppression annotations of a document's resources and their pod templates."""
    found: list[Directive] = []
    for resource in resources_of(doc):
        sites = [(resource.prefix + ("metadata",), resource.annotations)]
        for pod in resource.pod_specs:
            meta = pod.metadata_path
            if meta and meta != ("metadata",):
                annotations = get(resource.obj, meta + ("annotations",))
                if isinstance(annotations, dict):
                    sites.append((resource.prefix + meta, annotations))
        for meta_path, annotations in sites:
            if not any(_is_directive_key(k) for k in annotations):
                continue
            prefix = json_pointer(meta_path[:-1])
            for key, value in annotations.items():
                if not _is_directive_key(key):
                    continue
                selector = ALL if key == ANNOTATION_ALL else key[len(ANNOTATION_PREFIX) :]
                reason = str(value).strip() if value is not None else ""
                location = _locate(doc, meta_path + ("annotations", key))
                found.append(
                    Directive(
                        "annotation",
                        location,
                        (selector,),
                        reason or None,
                        resource=resource.ref,
                        prefix=prefix,
                        files=tuple(sorted({doc.source.path, location.file})),
                    )
                )
    return found


def _is_directive_key(key: Any) -> bool:
    return isinstance(key, str) and (key == ANNOTATION_ALL or key.startswith(ANNOTATION_PREFIX))


def _locate(doc: Document, path: tuple) -> Location:
    """Where findings on this key are reported (a renderer may map it to its origin file)."""
    return place(doc, path, "key")[0]


# -- applying ---------------------------------------------------------------


def _honoured(directive: Directive, settings: Settings, today: datetime.date) -> bool:
    if directive.expired(today):
        return False
    return not (settings.require_reason and directive.reason is None)


def apply(
    findings: Iterable[Finding],
    directives: list[Directive],
    settings: Settings,
    same_source: bool = True,
    today: datetime.date | None = None,
) -> None:
    """Mark the findings that a directive silences (in place)."""
    if not directives or not settings.suppressions:
        return
    today = today or datetime.date.today()
    # Indexed by what they cover: a run holds thousands of findings and directives.
    index = DirectiveIndex((d for d in directives if _honoured(d, settings, today)), same_source)
    for finding in findings:
        if finding.suppression is not None:
            continue
        found = index.first_covering(finding)
        if found is not None:
            directive, selector = found
            directive.used.add(selector)
            finding.suppression = Suppression(directive.kind, directive.reason)


def after_all_files(ctx: Context, findings: list[Finding], directives: list[Directive]) -> None:
    """After all files, in place: cross-file findings, directive findings, exemptions, baseline."""
    settings = ctx.settings
    today = datetime.date.today()
    if settings.suppressions:
        directives = _merged(directives)
        apply(findings, directives, settings, same_source=False, today=today)
        # After apply: findings about directives are never silenced by a directive.
        findings.extend(directive_findings(ctx, directives, today))
        for finding in findings:
            if finding.suppression is None:
                for exemption in settings.exemptions:
                    if exemption.matches(finding):
                        finding.suppression = Suppression("config", exemption.reason)
                        break
    if settings.baseline:
        # Only with --baseline (LAZY in tests/project/test_import_contract.py).
        from gpulint.filter import baseline

        baseline.apply(findings, settings.baseline, settings.baseline_file)


def directive_findings(
    ctx: Context, directives: list[Directive], today: datetime.date
) -> list[Finding]:
    """What the rules with a directive check (GPU001-GPU003) report about the directives."""
    if not directives:
        return []
    found: list[Finding] = []
    for rule in ctx.rules:
        if rule.check_directives is not None:
            for report in rule.check_directives(directives, ctx, today) or ():
                found.append(rule.placed_finding(report, ctx.settings))
    return found


def wanted(source: Source, settings: Settings) -> bool:
    """Whether the engine should collect :func:`annotations_of` each document of ``source``."""
    return bool(settings.suppressions) and "gpulint.io/" in source.text


def in_source(
    source: Source,
    annotations: list[Directive],
    new: list[Finding],
    result: Any,
    settings: Settings,
) -> None:
    """The engine's per-source hook: find directives, silence this source's findings.

    ``annotations`` are the directives :func:`annotations_of` found in its documents.
    """
    if not settings.suppressions:
        return
    text = source.text
    directives: list[Directive] = []
    errors: list[InputError] = []
    if "gpulint:" in text or annotations:
        directives, errors = _scan_comments(source.path, text)
        directives.extend(annotations)
        if source.origin not in ("file", "stdin"):  # a render: comments are the files' copies
            for directive in directives:
                directive.quiet = directive.kind == "comment"
    # Findings a renderer moved to a Helm template or a Kustomize origin file:
    # the comments written in that file apply to them.
    for path in sorted({f.location.file for f in new} - {source.path}):
        found, bad = _file_comments(path)
        directives.extend(found)
        errors.extend(bad)
    if directives:
        apply(new, directives, settings)
        result.directives.extend(directives)
    result.errors.extend(errors)


def _file_comments(path: str) -> tuple[list[Directive], list[InputError]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return [], []
    return _scan_comments(path, text)


def _merged(directives: list[Directive]) -> list[Directive]:
    """One directive per place: a template read for several renders counts once."""
    merged: dict[tuple, Directive] = {}
    for d in directives:
        key = (d.kind, d.location, d.selectors, d.prefix, d.quiet)
        if key in merged:
            merged[key].used |= d.used
        else:
            merged[key] = d
    return list(merged.values())
