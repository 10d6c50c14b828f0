"""A values key -> where its value came from: a ``--set``, a ``--values`` file, or values.yaml.

Helm's precedence, lowest first: the subchart's own values.yaml, the parent's
values.yaml under the subchart's name, the ``--values`` files in order, the
``--set`` assignments in order. The last layer that holds the key wins.
"""

from __future__ import annotations

import os
import re

from gpulint.core.findings import Location, ValueSource
from gpulint.core.settings import RenderOptions
from gpulint.core.sources import Source, read_file
from gpulint.inputs.discover import display_path
from gpulint.yaml import positions
from gpulint.yaml.parse import Document, parse


def dotted(path: tuple) -> str:
    return ".".join(str(p).replace(".", "\\.") if isinstance(p, str) else f"[{p}]" for p in path)


def _set_path(assignment: str) -> tuple:
    key = assignment.split("=", 1)[0]
    return tuple(part.replace("\\.", ".") for part in re.split(r"(?<!\\)\.", key))


class ValuesIndex:
    """Reads each values file once per run."""

    def __init__(
        self, chart_dir: str, opts: RenderOptions, written: dict[tuple, Location] | None = None
    ) -> None:
        self.chart_dir = chart_dir
        self.opts = opts
        self.written = written or {}  # a GitOps release's own values: path -> where written
        self._docs: dict[str, Document | None] = {}

    def origin(self, template: str, path: tuple) -> ValueSource | None:
        """``template`` as ``# Source:`` names it; ``path`` below ``.Values`` of its chart."""
        if not path:
            return None
        parts = template.replace("\\", "/").split("/")
        if ".." in parts:
            return None  # a `# Source:` of a stream on stdin may name anything
        subcharts = []  # `chart/charts/a/charts/b/templates/x.yaml` -> [a, b]
        for i, part in enumerate(parts[1:-1], start=1):
            if part == "charts" and i + 1 < len(parts):
                subcharts.append(parts[i + 1])
        chart = os.path.join(self.chart_dir, *[p for s in subcharts for p in ("charts", s)])
        key = dotted(path)
        prefix = tuple(subcharts)
        if prefix + path in self.written:  # over the values files, as --set is absent
            return ValueSource(key, self.written[prefix + path])
        for assignment in reversed(self.opts.set_values):
            target = _set_path(assignment)
            full = prefix + path
            if full[: len(target)] == target or target[: len(full)] == full:
                return ValueSource(key, None, assignment)
        layers = [*reversed(self.opts.values)]
        for values_file in layers:
            found = self._locate(values_file, prefix + path)
            if found is not None:
                return ValueSource(key, found)
        # The parents' values.yaml under the subchart's name, nearest parent last.
        for depth in range(len(subcharts)):
            parent = os.path.join(
                self.chart_dir, *[p for s in subcharts[:depth] for p in ("charts", s)]
            )
            found = self._locate(os.path.join(parent, "values.yaml"), prefix[depth:] + path)
            if found is not None:
                return ValueSource(key, found)
        found = self._locate(os.path.join(chart, "values.yaml"), path, partial=True)
        return ValueSource(key, found) if found is not None else None

    def _locate(self, file: str, path: tuple, partial: bool = False) -> Location | None:
        doc = self._doc(file)
        if doc is None:
            return None
        span, depth = positions.resolve(doc.node, path, "key")
        if depth == 0 or (depth < len(path) and not partial):
            return None
        return Location(display_path(file), *span)

    def _doc(self, file: str) -> Document | None:
        if file not in self._docs:
            self._docs[file] = None
            source = read_file(file) if os.path.isfile(file) else None
            if isinstance(source, Source):
                docs, _errors = parse(source)
                self._docs[file] = docs[0] if docs else None
        return self._docs[file]
