"""Helm chart folders -> ``helm template`` output, findings mapped to template lines.

Without a ``helm`` binary the chart is not rendered: gpulint says so once and
still lints the chart's ``values.yaml`` (values rules recognise the device
plugin and GPU Operator charts by content). Templates under ``templates/`` are
Go text and are never parsed as YAML.

Nothing of the tree becomes a flag: options are bound as ``--flag=value``, the release
name and the chart come after ``--`` (the chart as an absolute path, never read as a
repository reference). helm runs with empty plugin, cache, config and data folders of
its own, so none of the user's plugins (post-renderers, downloaders) or repositories is
in reach. A dependency ``charts/`` does not hold, or a link out of the linted folders,
stops the render before helm runs (``remote.py``, ``links.py``).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

from gpulint.core.findings import InputError
from gpulint.core.settings import Settings
from gpulint.core.sources import Source, decode, read_bytes
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.render import links
from gpulint.inputs.render.chart_extras import unrendered_objects
from gpulint.inputs.render.helm_map import TemplateMapper
from gpulint.inputs.render.process import Outcome, run_tool
from gpulint.inputs.render.remote import Reference, missing_dependencies
from gpulint.inputs.render.schemas import ARCHIVE_BUDGET, schema_references

NO_HELM = (
    "helm is not on PATH: this chart was not rendered, so what it produces is not checked "
    "(only its values.yaml was linted); install helm (https://helm.sh/docs/intro/install/), "
    "or pass --skip-unrenderable (config: skip-unrenderable: true) to accept that"
)


# helm's folders: each set to an empty one of the run's, so no plugin of the user's runs
# and no repository or registry setting of theirs is read.
_HELM_HOMES = (
    "HELM_PLUGINS",
    "HELM_CACHE_HOME",
    "HELM_CONFIG_HOME",
    "HELM_DATA_HOME",
    "HELM_REPOSITORY_CACHE",
    "HELM_REPOSITORY_CONFIG",
    "HELM_REGISTRY_CONFIG",
)


def command(helm: str, chart: str, settings: Settings) -> list[str]:
    opts = settings.render
    argv = [helm, "template"]
    if opts.namespace:
        argv.append(f"--namespace={opts.namespace}")
    if opts.kube_version:
        argv.append(f"--kube-version={opts.kube_version}")
    argv += [f"--values={os.path.abspath(values)}" for values in opts.values]
    argv += [f"--set={assignment}" for assignment in opts.set_values]
    return [*argv, "--", opts.release_name, os.path.abspath(chart)]


def release_command(helm: str, target: Target, values: str, settings: Settings) -> list[str]:
    """``helm template`` of an in-tree chart as a GitOps release installs it: its namespace,
    its values files, then its own values (``values``, a file of the run's)."""
    release = target.release
    assert release is not None
    argv = [helm, "template"]
    if release.namespace:
        argv.append(f"--namespace={release.namespace}")
    if settings.render.kube_version:
        argv.append(f"--kube-version={settings.render.kube_version}")
    argv += [f"--values={os.path.abspath(path)}" for path in release.value_files]
    argv.append(f"--values={values}")
    # The chart's own render's release name: what both renders make is named alike, so a
    # finding both give is reported once.
    return [*argv, "--", settings.render.release_name, os.path.abspath(target.path)]


def _namespace_retry(
    argv: list[str], outcome: Outcome, chart: str, settings: Settings
) -> list[str] | None:
    """The command again with ``--namespace=<chart folder>`` when no namespace was given and
    the failure names the default namespace (``Running in the 'default' namespace is not
    recommended``), else None."""
    if outcome.ok or settings.render.namespace:
        return None
    if (
        "'default' namespace" not in outcome.message
        and '"default" namespace' not in outcome.message
    ):
        return None
    name = re.sub(r"[^a-z0-9-]", "-", os.path.basename(os.path.abspath(chart)).lower()).strip("-")
    return [argv[0], argv[1], f"--namespace={name or 'gpulint'}", *argv[2:]]


def _ci_values_retry(
    argv: list[str], outcome: Outcome, chart: str, settings: Settings
) -> list[str] | None:
    """A chart whose defaults do not render (a ``required`` value, a guard) rendered as its own
    CI installs it: with its first ``ci/*-values.yaml`` (chart-testing's convention, also
    ``ci/*.yaml``), when the user gave no values of their own; else None."""
    if outcome.ok or settings.render.values or settings.render.set_values:
        return None
    folder = os.path.join(chart, "ci")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith((".yaml", ".yml")) and os.path.isfile(path) and not os.path.islink(path):
            return [argv[0], argv[1], f"--values={os.path.abspath(path)}", *argv[2:]]
    return None


# A chart's ``required`` message that names the value (``.Values.secret.token is required``,
# Bitnami's ``A valid .Values.auth.password entry required!``): a key path and nothing else,
# so it can travel in ``--set-string=KEY=VALUE`` (no comma, bracket, backslash or equals sign).
_REQUIRED = re.compile(r"\.Values\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,15})")
# What a required value is filled with: a placeholder (model/values/placeholders.py), never
# mistaken for a setting of the chart's.
REQUIRED_PLACEHOLDER = "${GPULINT_REQUIRED_VALUE}"
MAX_REQUIRED = 5  # values filled in, one render each: a chart that needs more is not guessed at


def _required_retry(
    argv: list[str], outcome: Outcome, chart: str, settings: Settings
) -> list[str] | None:
    """The command again with a placeholder for the value a ``required`` check names, when
    the failure is one and names it (``.Values.x.y``), else None."""
    if outcome.ok or "required" not in outcome.message.lower():
        return None
    found = _REQUIRED.search(outcome.message)
    if found is None:
        return None
    assignment = f"--set-string={found[1]}={REQUIRED_PLACEHOLDER}"
    if assignment in argv:
        return None  # filled already: the chart refuses the placeholder too
    return [argv[0], argv[1], assignment, *argv[2:]]


def _fill_required(
    argv: list[str], outcome: Outcome, chart: str, settings: Settings, home: str
) -> tuple[list[str], Outcome]:
    """Render again, a placeholder for each ``required`` value the failure names, at most
    ``MAX_REQUIRED`` times; the last command and its outcome."""
    for _ in range(MAX_REQUIRED):
        retry = _required_retry(argv, outcome, chart, settings)
        if retry is None:
            break
        argv, outcome = retry, run_tool(retry, settings.render.timeout, env=helm_env(home))
    return argv, outcome


def filled(argv: list[str]) -> list[str]:
    """The values a render filled with the placeholder (``_required_retry``)."""
    prefix = "--set-string="
    suffix = f"={REQUIRED_PLACEHOLDER}"
    return [
        a[len(prefix) : -len(suffix)] for a in argv if a.startswith(prefix) and a.endswith(suffix)
    ]


def helm_env(home: str) -> dict[str, str]:
    """helm's own folders, all under ``home`` (an empty temporary folder)."""
    return {name: os.path.join(home, name.lower()) for name in _HELM_HOMES}


def read(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    chart = target.path
    sources: list[Source] = []
    errors: list[InputError] = []
    allowed = None if settings.render.follow_symlinks else links.roots(settings.linted_paths)
    values = _values(chart, allowed)
    if isinstance(values, InputError):
        errors.append(values)
    elif values is not None:
        sources.append(values)
    helm = shutil.which("helm")
    if helm is None:
        where = display_path(os.path.join(chart, "Chart.yaml"))
        return sources, [*errors, InputError(where, NO_HELM, unrendered=True)]
    refused = _refusal(chart, allowed)
    if refused is not None:
        return sources, [*errors, refused]
    argv = command(helm, chart, settings)
    with tempfile.TemporaryDirectory(prefix="gpulint-helm-") as home:
        outcome = run_tool(argv, settings.render.timeout, env=helm_env(home))
        for retry_of in (_namespace_retry, _ci_values_retry):
            retry = retry_of(argv, outcome, chart, settings)
            if retry is not None:
                argv, outcome = retry, run_tool(retry, settings.render.timeout, env=helm_env(home))
        argv, outcome = _fill_required(argv, outcome, chart, settings, home)
    if not outcome.ok:
        errors.append(failure(chart, outcome.message.replace(os.path.abspath(chart), chart)))
        return sources, errors
    rendered = Source(f"{chart} (helm template)", outcome.stdout, "helm")
    rendered.meta["mapper"] = TemplateMapper(chart, primary=True, settings=settings)
    notices = []
    placeheld = filled(argv)
    if placeheld:
        # The render assumed values: say which, so no finding is read as the chart's defaults'.
        notices.append(
            f"{chart}: rendered with a placeholder for the required value(s) "
            f"{', '.join(placeheld)} (the chart renders nothing without them; give them with "
            "--set or --values)"
        )
    beside = unrendered_objects(chart)
    if beside:
        listed = ", ".join(beside[:3]) + (f" and {len(beside) - 3} more" if len(beside) > 3 else "")
        verb = "holds" if len(beside) == 1 else "hold"
        notices.append(
            f"{chart}: {listed} {verb} Kubernetes objects outside templates/, which helm does "
            "not render: not linted (lint a plain manifest with `gpulint check FILE`)"
        )
    if settings.verbose:
        shown = " ".join(["helm", *argv[1:-1], chart])
        notices.append(f"{chart}: rendered with `{shown}`")
    if notices:
        rendered.meta["notices"] = notices
    return [rendered, *sources], errors


def read_release(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    """An in-tree chart rendered with a GitOps release's values (``inputs/release_charts.py``).
    Without helm, or when the chart itself cannot render, the chart's own target says so."""
    release = target.release
    assert release is not None
    if release.problems:
        return [], list(release.problems)
    chart = target.path
    helm = shutil.which("helm")
    allowed = None if settings.render.follow_symlinks else links.roots(settings.linted_paths)
    if helm is None or _refusal(chart, allowed) is not None:
        return [], []
    with tempfile.TemporaryDirectory(prefix="gpulint-helm-") as home:
        values = os.path.join(home, "release-values.json")
        with open(values, "w", encoding="utf-8") as out:
            out.write(release.values)
        argv = release_command(helm, target, values, settings)
        outcome = run_tool(argv, settings.render.timeout, env=helm_env(home))
        argv, outcome = _fill_required(argv, outcome, chart, settings, home)
    if not outcome.ok:
        message = outcome.message.replace(os.path.abspath(chart), chart)
        return [], [failure(chart, f"{message} (with the values of {release.label})")]
    rendered = Source(f"{chart} (helm template, {release.label})", outcome.stdout, "helm")
    rendered.meta["mapper"] = TemplateMapper(
        chart, primary=True, settings=settings, release=release
    )
    notices = [f"{chart}: rendered with the values of {release.label}"]
    rendered.meta["notices"] = notices if settings.verbose else []
    return [rendered], []


def _refusal(chart: str, allowed: list[str] | None) -> InputError | None:
    """What helm would read outside the linted folders or fetch, found before it runs."""
    escape = links.chart_escape(chart, allowed) if allowed is not None else None
    if escape is not None:
        return links.refusal(escape, chart, "helm")
    missing = missing_dependencies(chart)
    if missing:
        return _not_vendored(chart, missing)
    leaving, too_big = schema_references(chart)
    if too_big:
        return _too_big(chart, too_big)
    return _schema_refusal(chart, leaving) if leaving else None


def _not_vendored(chart: str, missing: list[Reference]) -> InputError:
    """One error for the chart, at the first dependency ``charts/`` lacks, naming them all."""
    first, *more = missing
    also = [f"{r.field!r} ({r.shown()}, line {r.line})" for r in more]
    rest = f" (nor {', '.join(also)})" if also else ""
    return first.error(
        f"dependency {first.field!r} ({first.shown()}) is not vendored under charts/{rest}: "
        f"{chart} was not rendered (gpulint never fetches; `helm dependency build` vendors it)"
    )


def _schema_refusal(chart: str, leaving: list[Reference]) -> InputError:
    first, *more = leaving
    also = [f"{r.shown()} ({r.file}:{r.line}:{r.column})" for r in more[:5]]
    rest = f" (nor {', '.join(also)})" if also else ""
    return first.error(
        f"values schema reference {first.shown()} ({first.field}) not followed{rest}: {chart} "
        "was not rendered (helm would fetch or read it to validate the values; gpulint never "
        "fetches: a reference within the schema, '#/...', is followed)"
    )


def _too_big(chart: str, package: str) -> InputError:
    return InputError(
        package,
        f"a packaged subchart that unpacks to more than {ARCHIVE_BUDGET // 2**20} MiB: {chart} "
        "was not rendered (the values schemas in it could not all be read)",
    )


def _values(chart: str, allowed: list[str] | None) -> Source | InputError | None:
    path = os.path.join(chart, "values.yaml")
    if not os.path.isfile(path):
        return None
    if allowed is not None and not links.inside(os.path.realpath(path), allowed):
        return None  # a link out of the linted folders, never read (the refusal says so)
    data = read_bytes(path)
    if isinstance(data, InputError):
        return InputError(display_path(path), data.message)
    return decode(display_path(path), data)


def attach_chart_dir(source: Source, chart_dir: str, settings: Settings) -> None:
    """A rendered stream given with --chart-dir: name the template line beside the finding."""
    source.meta["mapper"] = TemplateMapper(chart_dir, primary=False, settings=settings)


# helm's messages name templates as `chart/templates/x.yaml:LINE[:COLUMN]`.
_AT = re.compile(r"(?:template: |at \()(?P<file>[^\s:()]+):(?P<line>\d+)(?::(?P<col>\d+))?")


def failure(chart: str, message: str) -> InputError:
    """helm's error at the template line it names, else at the chart's Chart.yaml."""
    lines = [line for line in message.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("Use --debug flag")]
    text = " ".join(line.strip() for line in lines)
    text = re.sub(r"^helm exited with code \d+: (?:Error: )?", "", text)
    found = _AT.search(text)
    if found is not None:
        parts = found.group("file").split("/")
        file = os.path.join(chart, *parts[1:])
        if len(parts) > 1 and ".." not in parts and os.path.isfile(file):
            column = int(found.group("col") or 1)
            return InputError(
                display_path(file),
                f"helm template failed: {text}",
                int(found.group("line")),
                column,
                unrendered=True,
            )
    schema = os.path.join(chart, "values.schema.json")
    if "values don't meet the specifications" in text and os.path.isfile(schema):
        return InputError(display_path(schema), f"helm template failed: {text}", unrendered=True)
    anchor = os.path.join(chart, "Chart.yaml")
    return InputError(display_path(anchor), f"helm template failed: {text}", unrendered=True)
