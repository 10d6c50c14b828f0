"""Helm chart folders -> ``helm template`` output, findings mapped to template lines.

Without a ``helm`` binary the chart is not rendered: gpulint says so once and
still lints the chart's ``values.yaml`` (values rules recognise the device
plugin and GPU Operator charts by content). Templates under ``templates/`` are
Go text and are never parsed as YAML.
"""

from __future__ import annotations

import os
import re
import shutil

from gpulint.config.settings import Settings
from gpulint.findings import InputError
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.render.helm_map import TemplateMapper
from gpulint.inputs.render.process import run_tool
from gpulint.inputs.sources import Source, decode

NO_HELM = (
    "helm is not on PATH: Helm chart folders were not rendered; only their values.yaml "
    "files were linted. Install helm (https://helm.sh/docs/intro/install/) to lint what "
    "the charts produce"
)


def command(helm: str, chart: str, settings: Settings) -> list[str]:
    opts = settings.render
    argv = [helm, "template", opts.release_name, chart]
    if opts.namespace:
        argv += ["--namespace", opts.namespace]
    if opts.kube_version:
        argv += ["--kube-version", opts.kube_version]
    for values in opts.values:
        argv += ["--values", values]
    for assignment in opts.set_values:
        argv += ["--set", assignment]
    return argv


def read(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    chart = target.path
    sources: list[Source] = []
    errors: list[InputError] = []
    values = _values(chart)
    if isinstance(values, InputError):
        errors.append(values)
    elif values is not None:
        sources.append(values)
    helm = shutil.which("helm")
    if helm is None:
        holder = sources[0] if sources else Source(chart, "", "helm")
        holder.meta.setdefault("notices", []).append(NO_HELM)
        return sources or [holder], errors
    argv = command(helm, chart, settings)
    outcome = run_tool(argv, settings.render.timeout)
    if not outcome.ok:
        errors.append(failure(chart, outcome.message))
        return sources, errors
    rendered = Source(f"{chart} (helm template)", outcome.stdout, "helm")
    rendered.meta["mapper"] = TemplateMapper(chart, primary=True, settings=settings)
    if settings.verbose:
        shown = " ".join(["helm", *argv[1:]])
        rendered.meta["notices"] = [f"{chart}: rendered with `{shown}`"]
    return [rendered, *sources], errors


def _values(chart: str) -> Source | InputError | None:
    path = os.path.join(chart, "values.yaml")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return InputError(display_path(path), f"cannot read file: {exc.strerror or exc}")
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
            )
    schema = os.path.join(chart, "values.schema.json")
    if "values don't meet the specifications" in text and os.path.isfile(schema):
        return InputError(display_path(schema), f"helm template failed: {text}")
    anchor = os.path.join(chart, "Chart.yaml")
    return InputError(display_path(anchor), f"helm template failed: {text}")
