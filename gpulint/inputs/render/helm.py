"""Helm chart folders -> ``helm template`` output, findings mapped to template lines.

Without a ``helm`` binary the chart is not rendered: gpulint says so once and
still lints the chart's ``values.yaml`` (values rules recognise the device
plugin and GPU Operator charts by content). Templates under ``templates/`` are
Go text and are never parsed as YAML.
"""

from __future__ import annotations

import os
import shutil

from gpulint.config.settings import Settings
from gpulint.findings import InputError, Location
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.render.process import run_tool
from gpulint.inputs.render.template_map import find
from gpulint.inputs.sources import Source, decode
from gpulint.yaml import positions
from gpulint.yaml.parse import Document

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
        errors.append(InputError(chart, f"helm template failed: {outcome.message}"))
        return sources, errors
    rendered = Source(f"{chart} (helm template)", outcome.stdout, "helm")
    rendered.meta["mapper"] = TemplateMapper(chart, primary=True)
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


def attach_chart_dir(source: Source, chart_dir: str) -> None:
    """A rendered stream given with --chart-dir: name the template line beside the finding."""
    source.meta["mapper"] = TemplateMapper(chart_dir, primary=False)


class TemplateMapper:
    """Maps a rendered document's path to its template's line (``# Source:`` names the file).

    ``primary``: the finding moves to the template line (a chart folder, whose
    rendered stream is no file); otherwise it stays in the stream and the
    template line is added beside it.
    """

    def __init__(self, chart_dir: str, primary: bool) -> None:
        self.chart_dir = chart_dir
        self.primary = primary
        self._texts: dict[str, str | None] = {}

    def __call__(
        self, doc: Document, path: tuple, at: str, location: Location
    ) -> tuple[Location, str | None, Location | None]:
        template = doc.template
        if template is None:
            return location, None, None
        file = self._file(template)
        text = self._text(file) if file else None
        if file is None or text is None:
            return location, template, None
        _span, depth = positions.resolve(doc.node, path, at)
        if depth < len(path):
            at = "key"  # reported at the deepest node that exists
        hit = find(text, path[:depth])
        if hit is None:
            return location, template, None
        column, end = hit.column, hit.end_column
        if at == "value" and hit.value_column is not None:
            line_text = text.splitlines()[hit.line - 1]
            column, end = hit.value_column, len(line_text.rstrip()) + 1
        mapped = Location(display_path(file), hit.line, column, hit.line, end)
        return (mapped if self.primary else location), template, mapped

    def _file(self, template: str) -> str | None:
        # `<chart>/templates/x.yaml`, or `<chart>/charts/<sub>/templates/x.yaml` for subcharts.
        parts = template.replace("\\", "/").split("/")
        if len(parts) < 2 or ".." in parts:
            return None
        return os.path.join(self.chart_dir, *parts[1:])

    def _text(self, file: str) -> str | None:
        if file not in self._texts:
            try:
                with open(file, encoding="utf-8") as handle:
                    self._texts[file] = handle.read()
            except (OSError, UnicodeDecodeError):
                self._texts[file] = None
        return self._texts[file]
