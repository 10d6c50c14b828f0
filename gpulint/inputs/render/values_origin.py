"""A values key -> where its value came from: a ``--set``, a ``--values`` file, or values.yaml.

Helm's precedence, lowest first: the subchart's own values.yaml, the parent's
values.yaml under the subchart's name, the ``--values`` files in order, the
``--set`` assignments in order. The last layer that holds the key wins. Maps
merge, so a layer whose map lacks the key leaves it to the layers below; a list,
a scalar or a null replaces what is below it, so a layer that holds one on the
way to the key (``extraEnvVars: []`` for ``extraEnvVars[0].value``) decides that
the key is not there: no layer below is named.
"""

from __future__ import annotations

import os
import re

from gpulint.core.findings import Location, ValueSource
from gpulint.core.settings import RenderOptions
from gpulint.core.sources import Source, read_file
from gpulint.inputs.discover import display_path
from gpulint.yaml import positions
from gpulint.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document, parse


def dotted(path: tuple) -> str:
    return ".".join(str(p).replace(".", "\\.") if isinstance(p, str) else f"[{p}]" for p in path)


def _set_paths(assignment: str) -> list[tuple]:
    """The values paths a ``--set`` assigns: ``a.b=1,c[0].d=2`` -> [(a, b), (c, 0, d)]
    (helm's strvals: ``,`` between assignments, ``.`` between keys, ``[n]`` list items,
    a backslash escapes either)."""
    paths = []
    for part in re.split(r"(?<!\\),", assignment):
        if "=" not in part:
            continue  # the rest of a value in braces: `a={x,y}`
        path: list = []
        for key in re.split(r"(?<!\\)\.", part.split("=", 1)[0]):
            name, *indexes = re.split(r"\[(\d+)\]", key)
            path.append(name.replace("\\.", ".").replace("\\,", ","))
            path.extend(int(i) for i in indexes if i)
        paths.append(tuple(p for p in path if p != ""))
    return paths


def _overlaps(full: tuple, assignment: str) -> bool:
    """The ``--set`` assigns ``full``, a key above it, or a key below it."""
    return any(
        full[: len(target)] == target or target[: len(full)] == full
        for target in _set_paths(assignment)
    )


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
        """``template`` as ``# Source:`` names it; ``path`` below ``.Values`` of its chart.
        None when no layer holds the key (an empty list holds no item 0)."""
        prefix = _subcharts(template)
        if prefix is None or not path:
            return None
        key = dotted(path)
        if prefix + path in self.written:  # over the values files, as --set is absent
            return ValueSource(key, self.written[prefix + path])
        for assignment in reversed(self.opts.set_values):
            if _overlaps(prefix + path, assignment):
                return ValueSource(key, None, assignment)
        for file, within in self._layers(prefix, path):
            doc = self._doc(file)
            if doc is None:
                continue
            state, node, depth = _walk(doc.node, within)
            if state == "missing":
                continue
            if state == "found" or _text(node):  # a string a `tpl` may render further
                span, _depth = positions.resolve(doc.node, within[:depth], "key")
                return ValueSource(key, Location(display_path(file), *span))
            return None
        return None

    def effective(self, template: str, path: tuple) -> tuple[str, Node | None]:
        """The node helm reads at ``path`` of ``template``'s chart values: ("found", node),
        ("absent", None), or ("unknown", None) when a ``--set`` or a GitOps release's own
        values write it (or something in it)."""
        prefix = _subcharts(template)
        if prefix is None or not path:
            return "unknown", None
        full = prefix + path
        for written in self.written:
            if written[: len(full)] == full or full[: len(written)] == written:
                return "unknown", None
        if any(_overlaps(full, assignment) for assignment in self.opts.set_values):
            return "unknown", None
        for file, within in self._layers(prefix, path):
            doc = self._doc(file)
            if doc is None:
                continue
            state, node, _depth = _walk(doc.node, within)
            if state == "found":
                return "found", node
            if state == "replaced":
                return "absent", None
        return "absent", None

    def _layers(self, prefix: tuple, path: tuple) -> list[tuple[str, tuple]]:
        """(values file, the path in it) from the highest precedence down."""
        subcharts = list(prefix)
        chart = os.path.join(self.chart_dir, *[p for s in subcharts for p in ("charts", s)])
        layers = [(values_file, prefix + path) for values_file in reversed(self.opts.values)]
        # The parents' values.yaml under the subchart's name, nearest parent last.
        for depth in range(len(subcharts)):
            parent = os.path.join(
                self.chart_dir, *[p for s in subcharts[:depth] for p in ("charts", s)]
            )
            layers.append((os.path.join(parent, "values.yaml"), prefix[depth:] + path))
        layers.append((os.path.join(chart, "values.yaml"), path))
        return layers

    def _doc(self, file: str) -> Document | None:
        if file not in self._docs:
            self._docs[file] = None
            source = read_file(file) if os.path.isfile(file) else None
            if isinstance(source, Source):
                docs, _errors = parse(source)
                self._docs[file] = docs[0] if docs else None
        return self._docs[file]


def _subcharts(template: str) -> tuple | None:
    """The subcharts ``template`` lies in, as a prefix of values paths."""
    parts = template.replace("\\", "/").split("/")
    if ".." in parts:
        return None  # a `# Source:` of a stream on stdin may name anything
    subcharts = []  # `chart/charts/a/charts/b/templates/x.yaml` -> [a, b]
    for i, part in enumerate(parts[1:-1], start=1):
        if part == "charts" and i + 1 < len(parts):
            subcharts.append(parts[i + 1])
    return tuple(subcharts)


def _walk(root: Node, path: tuple) -> tuple[str, Node | None, int]:
    """("found", node, len(path)); ("missing", None, depth) when a map on the way lacks the
    next key (a lower layer may hold it); ("replaced", node, depth) when a list, scalar or
    null on the way stands where the path goes on (it replaces what is below)."""
    if type(root) is not MappingNode:
        return "missing", None, 0  # an empty file, or no map: nothing to merge
    node: Node = root
    for depth, step in enumerate(path):
        if type(node) is MappingNode:
            entry = positions.mapping_entry(node, step) if type(step) is str else None
            if entry is None:
                return "missing", None, depth
            node = entry[1]
        elif type(node) is SequenceNode and type(step) is int and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return "replaced", node, depth
    return "found", node, len(path)


def _text(node: Node | None) -> bool:
    """A non-empty quoted or block string, or plain text that is no null."""
    if type(node) is not ScalarNode or not node.value:
        return False
    return bool(node.style) or node.value not in ("~", "null", "Null", "NULL")
