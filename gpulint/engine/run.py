"""Runs the rules: targets -> sources -> documents -> resources -> findings.

Each file is linted on its own (:func:`lint_target`), so files can be spread
over processes; rules that analyse across files collect small facts per
resource here and decide once all files of a deployable unit are read (:func:`run`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from functools import partial
from typing import Any

from gpulint.core.findings import (
    Finding,
    FixInfo,
    FixSafety,
    InputError,
    RuleInfo,
    RunResult,
)
from gpulint.core.record import field, record, replace
from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.engine.after_files import facts_per_unit, held_back, unique, unit_keys
from gpulint.engine.context import load_rule_hooks
from gpulint.engine.dispatch import SourceRules, source_rules, with_values_read
from gpulint.engine.workers import lint_all
from gpulint.filter import suppress
from gpulint.inputs import gitops_values
from gpulint.inputs.discover import Target
from gpulint.inputs.prepare import prepare
from gpulint.inputs.readers import PLAIN, Readers
from gpulint.model.cluster_profile import ClusterProfile
from gpulint.model.nvidia import recognise
from gpulint.model.resource import Resource, release, resources_of
from gpulint.model.values import joined
from gpulint.rules import pages
from gpulint.rules.anchor import Anchor
from gpulint.rules.registry import builtin_rules
from gpulint.rules.rule import Context, Report, Rule, RuleError
from gpulint.yaml import layered, toml_tree
from gpulint.yaml.embedded import INSIDE
from gpulint.yaml.parse import Document, documents
from gpulint.yaml.positions import place, place_with_value


@record
class FileResult:
    """What linting one target gives: findings, input errors, cross-file facts, notices."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    facts: dict[str, list[Any]] = field(default_factory=dict)
    files: int = 0
    notices: list[str] = field(default_factory=list)
    directives: list[Any] = field(default_factory=list)  # suppressions found (suppress.py)


def make_finding(
    rule: Rule,
    settings: Settings,
    doc: Document,
    prefix: tuple,
    report: Report,
    resource: Resource | None,
    profile: ClusterProfile | None = None,
) -> Finding:
    """A check's report: its path is resolved in the document being linted."""
    written = tuple(report.path)
    real = resource.real_path(written) if resource is not None else written
    if resource is not None and report.container is not None:
        named = resource.container_label(report.container, written)
        if named != report.container:
            report = replace(report, container=named)
    # A finding inside a pod an operator assembles points at what the author wrote; a fix
    # built for the assembled container's paths would edit the wrong place, so none is offered.
    # Nor inside a YAML string (an Argo CD helm.values), nor in values merged from several
    # places (yaml/layered.py): edits address the file's own YAML at the path reported.
    inside = INSIDE in real or layered.steps_in(real) is not None
    offered = report.fix if real == written and settings.fix_details and not inside else None
    fix = None if offered is None else _fix_info(doc, prefix, offered, rule.fix)
    if report.anchor is None:
        path = prefix + real
        location, pointer, template, at_template, value = place_with_value(doc, path, report.at)
        ref = resource.ref if resource else None
        anchor = Anchor(location, pointer, ref, report.container, template, at_template)
        finding = rule.placed_finding(report, settings, anchor, profile, fix)
        return finding if value is None else replace(finding, value_source=value)
    return rule.placed_finding(report, settings, profile=profile, fix=fix)


def _internal_error(rule: Rule, doc: Document, exc: Exception, ctx: Context) -> InputError:
    """One rule's crash, as that rule's error: the other rules still run. Without
    --debug it names only the exception's type (its text may quote the document)."""
    head = f"internal error in rule {rule.code} {rule.name}"
    if ctx.settings.debug:
        import traceback  # only with --debug

        trace = "".join(traceback.format_exception(exc)).rstrip()
        message = f"{head}; the other rules ran (please report it):\n{trace}"
    else:
        message = (
            f"{head}: {type(exc).__name__}; the other rules ran ({DEBUG_HINT}; please report it)"
        )
    return InputError(doc.source.path, message, doc.line, 1)


def _failed(ctx: Context, rule: Rule, doc: Document, result: FileResult, exc: Exception) -> None:
    """What a rule that raised leaves in the result; the other rules go on."""
    if isinstance(exc, RuleError):  # reported at the configuration, once however often raised
        if exc.error not in result.errors:
            result.errors.append(exc.error)
    else:  # a bug in one rule must not hide what the others find
        result.errors.append(_internal_error(rule, doc, exc, ctx))


def _check_document(
    ctx: Context, doc: Document, result: FileResult, rules: SourceRules | None = None
) -> None:
    settings = ctx.settings
    rules = rules or source_rules(ctx, doc.source)
    silent = rules.silent

    def document_rule(rule: Rule) -> None:
        if rule.check_document is not None and rule.code not in silent:
            for report in rule.check_document(doc, ctx) or ():
                result.findings.append(
                    make_finding(rule, settings, doc, (), report, None, ctx.profile)
                )
        if rule.collect_document is not None and rule.code not in ctx.unpaired:
            facts = rule.collect_document(doc, ctx)
            if facts:
                result.facts.setdefault(rule.code, []).extend(facts)

    def resource_rule(rule: Rule, resource: Resource) -> None:
        if rule.check_resource is not None and rule.code not in silent:
            for report in rule.check_resource(resource, ctx) or ():
                result.findings.append(
                    make_finding(
                        rule, settings, doc, resource.prefix, report, resource, ctx.profile
                    )
                )
        if rule.collect is not None and rule.code not in ctx.unpaired:
            facts = rule.collect(resource, ctx)
            if facts:
                result.facts.setdefault(rule.code, []).extend(facts)

    # Only rules with a hook for it: a call per rule and document is most of a small one's cost.
    # The try inside the loop costs nothing until a rule raises (a call per rule and
    # resource is most of a small document's cost).
    for rule in rules.document:
        try:
            document_rule(rule)
        except Exception as exc:
            _failed(ctx, rule, doc, result, exc)
    for resource in resources_of(doc):
        try:
            meeting = rules.resource if resource.pod_specs else rules.podless
        except Exception:
            meeting = rules.resource  # each rule meets the failure, and reports it, as before
        for rule in meeting:
            try:
                resource_rule(rule, resource)
            except Exception as exc:
                _failed(ctx, rule, doc, result, exc)
        if settings.verbose and resource.generic:
            result.notices.append(
                f"{resource.kind} ({resource.api_version}) is not in the workload table; "
                "its pod specs were found generically (a mapping with containers that have images)"
            )
        if settings.verbose:
            _notice_unread(doc, resource, result)


def _notice_unread(doc: Document, resource: Resource, result: FileResult) -> None:
    """An object that names a GPU resource but gave no pod spec: say it was not checked."""
    # With --verbose only (LAZY in tests/project/test_import_contract.py).
    from gpulint.model.workloads.unread import unread_gpu_mention

    mention = unread_gpu_mention(resource)
    if mention is None:
        return
    location = place(doc, resource.prefix + mention)[0]
    result.notices.append(
        f"{location.file}:{location.line}: {resource.kind} {resource.name} "
        f"({resource.api_version}) names {mention[-1]} but gpulint read no pod spec from it: "
        "its containers were not checked (gpulint does not know where this kind keeps its pods)"
    )


DEBUG_HINT = "run with --debug or GPULINT_DEBUG=1 for the traceback"


def internal_error(exc: BaseException, debug: bool) -> str:
    """The message of an exception a rule raised: its traceback with ``--debug``."""
    if debug:
        import traceback  # only with --debug

        trace = "".join(traceback.format_exception(exc)).rstrip()
        return f"internal error while checking this document (please report it):\n{trace}"
    # The type only: an exception's text may quote the document (a secret).
    return (
        f"internal error while checking this document: {type(exc).__name__} "
        f"({DEBUG_HINT}; please report it)"
    )


def _shape_of(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "a scalar"


def _fix_info(doc: Document, prefix: tuple, fix: Any, declared: FixSafety | None) -> FixInfo:
    # Only when a fix's edits are wanted (Settings.fix_details).
    from gpulint.engine.fix_details import fix_info

    return fix_info(doc, prefix, fix, declared)


def lint_source(ctx: Context, source: Source, result: FileResult) -> None:
    load_rule_hooks(ctx)  # a context from build_context, used without run() (the fixer, tests)
    errors: list[InputError] = []
    annotations: list[Any] = []
    wants_annotations = suppress.wanted(source, ctx.settings)
    start = len(result.findings)
    parse = toml_tree.documents if toml_tree.is_toml(source) else documents
    plain = source.origin in ("file", "stdin")  # renderers say what they rendered themselves
    seen: list[str] | None = [] if ctx.settings.verbose and plain else None
    rules = source_rules(ctx, source)
    # What other documents add to this source's GitOps releases (inputs/gitops_values.py):
    # from the preparation pass for a plain file, from its own documents for a render.
    flux = ctx.gitops.get(source.path, {}) if plain else gitops_values.render_extras(source)
    by_release = plain and source.path in ctx.release_values
    # Document by document: each node tree is freed before the next one is built.
    for doc in parse(source, errors):
        if not isinstance(doc.data, dict):
            # Kubernetes objects, values and config files are all mappings.
            # Named by type, never quoted: the file may be a secret (a token.yaml).
            errors.append(
                InputError(
                    source.path,
                    f"document {doc.index + 1} is {_shape_of(doc.data)}, not a mapping",
                    doc.line,
                    doc.node.start_mark.column + 1,
                )
            )
            continue
        if seen is not None and len(seen) < 20:
            # Only with --verbose (LAZY in tests/project/test_import_contract.py).
            from gpulint.engine.describe import describe

            seen.append(
                f"document {doc.index + 1} (line {doc.line}): {describe(doc, _values_for(ctx))}"
            )
        try:
            files, unread = gitops_values.file_extras(doc, ctx.settings)
            errors.extend(unread)
            extras = flux.get(doc.index, ()) + files
            with joined.scope(extras), recognise.values_of_a_release(by_release):
                _check_document(ctx, doc, result, with_values_read(ctx, source, rules, extras))
            if wants_annotations:
                annotations.extend(suppress.annotations_of(doc))
        except Exception as exc:  # a bug in a rule must not hide the other files' findings
            errors.append(
                InputError(source.path, internal_error(exc, ctx.settings.debug), doc.line, 1)
            )
        finally:
            release(doc)
    if errors and source.meta.get("skip_if_not_manifest") and _not_a_manifest(source, errors):
        if ctx.settings.verbose:
            result.notices.append(
                f"{source.path}: skipped: {errors[0].message.split(':')[0]} "
                "and no apiVersion, kind or GPU config in it (not a manifest)"
            )
        errors = []
        seen = None
    if seen is not None:
        result.notices.extend(f"{source.path}: {line}" for line in seen)
        if not seen and not errors:
            result.notices.append(f"{source.path}: read; no documents in it")
    result.errors.extend(errors)
    suppress.in_source(source, annotations, result.findings[start:], result, ctx.settings)


def lint_target(target: Target, ctx: Context, readers: Readers = PLAIN) -> FileResult:
    """Everything about one target; never raises on bad input.

    The cyclic garbage collector is paused meanwhile: a file's node trees hold no
    reference cycles (:meth:`Resource.release`), so reference counting frees them, and
    automatic collections would only traverse the trees being built, again and again
    (about half the run time on many large files). One young-generation collection at
    the end catches any cycle left behind, at the cost of the file's surviving facts.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _lint_target(target, ctx, readers)
    finally:
        gc.collect(0)
        if paused:
            gc.enable()


def _lint_target(target: Target, ctx: Context, readers: Readers) -> FileResult:
    result = FileResult()
    sources, errors = readers.read(target, ctx.settings)
    result.errors.extend(errors)
    for source in sources:
        result.files += 1
        result.notices.extend(source.meta.get("notices", ()))
        if target.walked or ctx.settings.only_manifests:
            source.meta["skip_if_not_manifest"] = True
        lint_source(ctx, source, result)
    return result


def _not_a_manifest(source: Source, errors: list[InputError]) -> bool:
    """inputs/skip.py's test, for a walked file that did not parse (LAZY in
    tests/project/test_import_contract.py: most runs have none)."""
    from gpulint.inputs.skip import not_a_manifest

    return not_a_manifest(source, errors)


def _load_hooks(ctx: Context, inapplicable: frozenset[str]) -> None:
    """``load_rule_hooks`` with the cyclic collector paused, as the console entry pauses it
    while the command line is imported: importing the rule modules makes modules,
    functions and classes that live as long as the process, which the collections
    triggered meanwhile would only traverse (~0.5 ms of a one-file run)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        load_rule_hooks(ctx, inapplicable)
    finally:
        if paused:
            gc.enable()


def run(targets: Iterable[Target], ctx: Context, readers: Readers = PLAIN) -> RunResult:
    """Lint the targets (read through ``readers``), then run the cross-file rules."""
    findings: list[Finding] = []
    errors: list[InputError] = []
    directives: list[Any] = []
    notices: dict[str, None] = {}  # in order, each said once
    files = 0
    targets = list(targets)
    prepared = prepare(ctx.rules, targets, ctx.settings)
    ctx.unpaired, ctx.profile, ctx.project = prepared.unpaired, prepared.profile, prepared.project
    ctx.gitops, ctx.seen = prepared.gitops, prepared.seen
    ctx.release_values = prepared.named_values
    targets += prepared.renders
    notices.update(dict.fromkeys(prepared.notices))
    _load_hooks(ctx, prepared.inapplicable)
    if ctx.settings.verbose:
        notices.update(dict.fromkeys(f"cluster profile: {s}" for s in ctx.profile.sources))
        notices.update(dict.fromkeys(f"project: {s}" for s in ctx.project.describe()))
    lint_one = partial(lint_target, readers=readers)  # picklable: travels to spawned workers
    unit_facts: dict[str | None, dict[str, list[Any]]] = {}
    keys = unit_keys(targets, ctx.settings)
    how: list[str] = []  # how the files were linted (a fallback from worker processes)
    results = lint_all(targets, ctx, lint_one, ctx.settings.jobs, how)
    for target, result in zip(targets, results, strict=True):
        findings.extend(result.findings)
        errors.extend(result.errors)
        notices.update(dict.fromkeys(result.notices))
        files += result.files
        directives.extend(result.directives)
        unit = unit_facts.setdefault(keys[target], {})
        for code, facts in result.facts.items():
            unit.setdefault(code, []).extend(facts)
    for rule in ctx.rules:
        if rule.finalize is not None:
            for facts in facts_per_unit(unit_facts, rule.code):
                for report in rule.finalize(facts, ctx) or ():
                    findings.append(rule.placed_finding(report, ctx.settings, profile=ctx.profile))
    notices.update(dict.fromkeys(how))
    suppress.after_all_files(
        ctx, findings, directives
    )  # held findings still use their suppressions
    findings = unique(findings)
    held = held_back(findings, ctx.rules)
    findings = [f for f in findings if not f.held]
    findings.sort(key=Finding.sort_key)
    errors = sorted(dict.fromkeys(errors), key=InputError.sort_key)  # each said once
    rules = _infos(ctx.rules, ctx.settings.rule_docs)
    if held and ctx.settings.verbose:
        from gpulint.core.held import detail_lines  # --verbose, held findings (LAZY)

        notices.update(dict.fromkeys(detail_lines(held)))
    return RunResult(findings, errors, rules, files, list(notices), held)


def _values_for(ctx: Context) -> str | None:
    return ctx.settings.values_for


def _infos(rules: list[Rule], with_doc: bool) -> list[RuleInfo]:
    """What the reports say of the run's rules; built-in rules have a documentation page
    (docs/rules/), plugins' rules do not."""
    builtin = {rule.code for rule in builtin_rules()}
    return [
        r.described(with_doc, pages.help_uri(r.code) if r.code in builtin else None) for r in rules
    ]
