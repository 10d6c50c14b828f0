"""A finding in ``helm template`` output -> the template line, and the values key behind it.

``# Source:`` names the template; ``template_map`` finds the line writing the
key, ``template_items`` which writer of a list wrote an item whose position the
template does not say (by what the item holds), ``template_block`` the
``toYaml``/``include`` expression that wrote a block the template does not spell
out, and ``values_origin`` the values key (and the ``--values`` file or ``--set``
over it). For a chart folder the rendered stream
is no file, so a finding always moves to a real one: the template line, else
the expression, else the template document's first line, else Chart.yaml.
"""

from __future__ import annotations

import bisect
import os
import re

from gpulint.core.findings import Location, ValueSource
from gpulint.core.record import replace
from gpulint.core.settings import Settings
from gpulint.inputs.discover import ChartRelease, display_path
from gpulint.inputs.render.template_block import find_block, value_reference
from gpulint.inputs.render.template_items import Items
from gpulint.inputs.render.template_map import find
from gpulint.inputs.render.values_origin import ValuesIndex
from gpulint.yaml import positions
from gpulint.yaml.parse import Document

_CONTROL_ACTION = re.compile(r"^\{\{-?\s*(?:if|else|end|with|range|define|/\*)\b.*\}\}$")
_SOURCE_LINE = re.compile(r"^# Source: (.+?)\s*$", re.MULTILINE)


class TemplateMapper:
    """Maps a rendered document's path to its template's line.

    ``primary``: the finding moves to the template (a chart folder, whose
    rendered stream is no file); otherwise it stays in the stream and the
    template line is added beside it.
    """

    def __init__(
        self,
        chart_dir: str,
        primary: bool,
        settings: Settings | None = None,
        release: ChartRelease | None = None,
    ) -> None:
        self.chart_dir = chart_dir
        self.primary = primary
        opts = settings.render if settings is not None else None
        if opts is not None and release is not None:  # its values, not the command line's
            opts = replace(opts, values=release.value_files, set_values=())
        written = dict(release.origins) if release is not None else None
        self.values = ValuesIndex(chart_dir, opts, written) if opts is not None else None
        self._texts: dict[str, str | None] = {}
        self._sources: dict[str, list[tuple[int, str | None]]] | None = None

    def __call__(
        self, doc: Document, path: tuple, at: str, location: Location
    ) -> tuple[Location, str | None, Location | None, ValueSource | None]:
        template = doc.template
        file = self._file(template) if template else None
        text = self._text(file) if file else None
        if template is None or file is None or text is None:
            return self._fallback(location), template, None, None
        text = self._document(doc, template, text)
        _span, depth = positions.resolve(doc.node, path, at)
        if depth < len(path):
            at = "key"  # reported at the deepest node that exists
        shown = display_path(file)
        values = self.values
        lookup = (lambda key: values.effective(template, key)) if values is not None else None
        items = Items(text, doc.node, lookup)
        hit = find(text, path[:depth], items)
        value: ValueSource | None = None
        if hit is not None:
            column, end = hit.column, hit.end_column
            if at == "value" and hit.value_column is not None:
                line_text = text.splitlines()[hit.line - 1]
                column, end = hit.value_column, len(line_text.rstrip()) + 1
            mapped = Location(shown, hit.line, column, hit.line, end)
            reference = value_reference(text, hit)
            if reference is not None and self.values is not None:
                value = self.values.origin(template, reference)
        else:
            block = find_block(text, path[:depth], items)
            if block is not None:
                mapped = Location(shown, block.line, block.column, block.line, block.end_column)
                if block.values_path and self.values is not None:
                    value = self.values.origin(template, block.values_path)
            elif self.primary:
                mapped = Location(shown, *_first_line(text))
            else:
                return location, template, None, None
        return (mapped if self.primary else location), template, mapped, value

    def _fallback(self, location: Location) -> Location:
        if not self.primary:
            return location
        chart = display_path(os.path.join(self.chart_dir, "Chart.yaml"))
        return Location(chart, 1, 1, 1, 1)

    def _document(self, doc: Document, template: str, text: str) -> str:
        """The template's text with only the document ``doc`` came from, when that is known.

        helm template writes a release's objects sorted by kind (its install order: a
        Service before a Deployment), keeping the written order among objects of one kind.
        So the document is matched by kind first: the n-th rendered object of a kind from
        this template is the n-th written part whose literal ``kind:`` is that kind. Where
        the parts do not spell their kinds out, as many rendered documents as written
        parts are taken in written order."""
        if self._sources is None:
            self._sources = _rendered_sources(doc.source.text)
        rendered = self._sources.get(template, [])
        lines = [line for line, _kind in rendered]
        parts = _split(text)
        ordinal = bisect.bisect_left(lines, doc.line) - 1  # lines ascend: found, not counted
        if len(parts) < 2 or not 0 <= ordinal < len(rendered):
            return text
        raw = text.splitlines()
        chosen = _part_of_kind(rendered, ordinal, [_literal_kind(raw[a:b]) for a, b in parts])
        if chosen is None:
            if len(lines) != len(parts):
                return text
            chosen = ordinal
        first, last = parts[chosen]
        return "\n".join(r if first <= i < last else "" for i, r in enumerate(raw)) + "\n"

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


_KIND_LINE = re.compile(r"^kind:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_DOCUMENT_START = re.compile(r"^---", re.MULTILINE)


def _rendered_sources(rendered: str) -> dict[str, list[tuple[int, str | None]]]:
    """Template -> (line, kind) of each document the stream holds from it, in order."""
    found: dict[str, list[tuple[int, str | None]]] = {}
    line, counted = 1, 0
    for match in _SOURCE_LINE.finditer(rendered):  # lines counted on from the last one
        line += rendered.count("\n", counted, match.start())
        counted = match.start()
        end = _DOCUMENT_START.search(rendered, match.end())
        kind = _KIND_LINE.search(rendered, match.end(), end.start() if end else len(rendered))
        found.setdefault(match.group(1), []).append((line, kind.group(1) if kind else None))
    return found


def _literal_kind(lines: list[str]) -> str | None:
    """The kind a template part writes at its top level, when it spells it out."""
    for line in lines:
        match = _KIND_LINE.match(line)
        if match and "{{" not in line:
            return match.group(1)
    return None


def _part_of_kind(
    rendered: list[tuple[int, str | None]], ordinal: int, kinds: list[str | None]
) -> int | None:
    """The written part of the ``ordinal``-th rendered document, matched by kind: None
    unless its kind's rendered documents and written parts are as many."""
    kind = rendered[ordinal][1]
    if kind is None:
        return None
    same = [i for i, (_line, k) in enumerate(rendered) if k == kind]
    written = [i for i, k in enumerate(kinds) if k == kind]
    if len(same) != len(written):
        return None
    return written[same.index(ordinal)]


def _split(text: str) -> list[tuple[int, int]]:
    """0-based [first, last) line ranges of the template's ``---``-separated documents."""
    raw = text.splitlines()
    bounds = [i for i, line in enumerate(raw) if line.startswith("---")]
    starts = [0, *[b + 1 for b in bounds]]
    ends = [*bounds, len(raw)]
    parts = [(a, b) for a, b in zip(starts, ends, strict=True) if _has_content(raw[a:b])]
    return parts


def _has_content(lines: list[str]) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in lines)


def _first_line(text: str) -> tuple[int, int, int, int]:
    """The span of the document's first line that writes something (a key, an include)."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "---")):
            continue
        if _CONTROL_ACTION.match(stripped):
            continue
        column = len(line) - len(line.lstrip()) + 1
        return number, column, number, len(line.rstrip()) + 1
    return 1, 1, 1, 1
