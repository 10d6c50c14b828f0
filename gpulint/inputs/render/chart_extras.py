"""Kubernetes objects a chart folder holds where helm never renders them.

``helm template`` renders only ``templates/`` (and its dependencies under ``charts/``);
a manifest or a template kept beside them (an example Job at the chart's root, a
template a launcher copies into place at run time) is neither rendered nor, since the
chart folder is read as a chart, linted as a plain file. The run says which: a file
whose text holds a top-level ``kind:`` line among the chart's YAML files outside
``templates/``, ``charts/``, ``crds/`` (custom resource definitions, applied as they
are) and ``ci/`` (chart-testing values), other than the chart's own files and
kustomizations. A file the templates may read through ``.Files`` (they name it, or the
folder it lies in) is rendered with them, and is not named.

Only the chart folder is walked, without following links, and at most ``_MAX_FILES``
regular files of at most ``_MAX_BYTES`` each are read: a stranger's tree cannot make it
read outside the chart, wait on a pipe, or read for long.
"""

from __future__ import annotations

import os
import re

from gpulint.core.sources import read_bytes

_SKIPPED_FOLDERS = frozenset({"templates", "charts", "crds", "ci"})
_CHART_FILES = frozenset(
    {"chart.yaml", "chart.lock", "requirements.yaml", "requirements.lock", "kustomization.yaml",
     "kustomization.yml"}
)  # fmt: skip
_KIND_LINE = re.compile(rb"^kind:[ \t]*\S", re.MULTILINE)
_MAX_FILES = 200
_MAX_BYTES = 256 * 1024


def unrendered_objects(chart: str) -> list[str]:
    """Paths (relative to ``chart``, sorted) of YAML files helm does not render that hold
    a Kubernetes object or a template of one."""
    found: list[str] = []
    read = 0
    templates = _templates_reading_files(chart)
    for root, dirs, names in os.walk(chart):
        top = root == chart
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and not (top and d in _SKIPPED_FOLDERS)
            and not os.path.islink(os.path.join(root, d))
        )
        for name in sorted(names):
            if not name.endswith((".yaml", ".yml")) or _chart_file(name):
                continue
            path = os.path.join(root, name)
            if read >= _MAX_FILES or os.path.islink(path):
                continue
            read += 1
            relative = os.path.relpath(path, chart)
            if _holds_object(path) and not _may_be_read(relative, templates):
                found.append(relative)
    return sorted(found)


def _templates_reading_files(chart: str) -> bytes:
    """The text of the chart's templates when they read other files (``.Files``), else
    nothing."""
    texts: list[bytes] = []
    folder = os.path.join(chart, "templates")
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in names:
            path = os.path.join(root, name)
            if len(texts) < _MAX_FILES and not os.path.islink(path):
                texts.append(_head(path))
    text = b"\n".join(texts)
    return text if b".Files" in text else b""


def _may_be_read(relative: str, templates: bytes) -> bool:
    if not templates:
        return False
    parts = relative.replace(os.sep, "/").split("/")
    named = [parts[-1]] + ([parts[0] + "/"] if len(parts) > 1 else [])
    return any(word.encode() in templates for word in named)


def _chart_file(name: str) -> bool:
    lowered = name.lower()
    return lowered in _CHART_FILES or lowered.startswith("values")


def _holds_object(path: str) -> bool:
    return _KIND_LINE.search(_head(path)) is not None


def _head(path: str) -> bytes:
    # read_bytes opens without blocking and reads regular files only (a FIFO never stalls).
    try:
        small = os.path.getsize(path) <= _MAX_BYTES
    except OSError:  # gone since the walk listed it
        return b""
    data = read_bytes(path) if small else b""
    return data if isinstance(data, bytes) else b""
