"""What a render would fetch, found before it runs: a linter run fetches nothing.

Kustomize: every remote reference (a URL, a git repository: ``kustomize_refs.is_remote``)
in any field that names a file, a folder or a chart source, in every kustomization a build
reaches locally. Helm: the dependencies of ``Chart.yaml`` (``requirements.yaml`` for
``apiVersion: v1``) that ``charts/`` does not hold; gpulint never runs helm with
``--dependency-update``. Each is refused at its line and column, and named.
"""

from __future__ import annotations

import os
import re

from gpulint.core.findings import InputError
from gpulint.core.record import record
from gpulint.inputs.discover import display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import (
    each_kustomization,
    entries,
    is_remote,
    load_document,
    refs_of,
)
from gpulint.yaml.positions import resolve

_SHOWN = 200  # characters of a reference a message quotes
# Where a packaged chart's file name (NAME-VERSION.tgz, from helm package) may end its name.
_VERSION_START = re.compile(r"-v?\d")


@record(frozen=True)
class Reference:
    """A remote reference, where it is written."""

    file: str  # display path
    line: int
    column: int
    ref: str
    field: str

    def shown(self) -> str:
        text = self.ref if len(self.ref) <= _SHOWN else self.ref[:_SHOWN] + "..."
        return repr(text)

    def error(self, message: str) -> InputError:
        return InputError(self.file, message, self.line, self.column)


# A kustomization folder -> (its own remote references, the local kustomizations it names).
Scanned = dict[str, tuple[list[Reference], list[str]]]


def kustomize_references(folder: str, cache: Scanned) -> list[Reference]:
    """The remote references of every kustomization a build of ``folder`` reads (itself,
    its bases and components, theirs...), in the order a build meets them."""
    found: list[Reference] = []

    def visit(current: str) -> list[str]:
        if current not in cache:
            cache[current] = _scan(current)
        own, inner = cache[current]
        found.extend(own)
        return inner

    each_kustomization(folder, visit)
    return found


def _scan(folder: str) -> tuple[list[Reference], list[str]]:
    kfile = kustomization_file(folder)
    doc = load_document(kfile) if kfile else None
    if kfile is None or doc is None:
        return [], []
    found = []
    for field_name, entry, path in entries(doc.data, sources=True):
        if "\n" not in entry and is_remote(entry):
            (line, column, _end_line, _end_column), _depth = resolve(doc.node, path, at="value")
            found.append(Reference(display_path(kfile), line, column, entry, field_name))
    return found, refs_of(folder, doc.data).kustomizations


def missing_dependencies(chart: str) -> list[Reference]:
    """The chart's dependencies that ``charts/`` does not hold (helm would stop on them; with
    --dependency-update it would fetch them, which gpulint never asks for)."""
    found: list[Reference] = []
    for name in ("Chart.yaml", "requirements.yaml"):
        path = os.path.join(chart, name)
        doc = load_document(path) if os.path.isfile(path) else None
        if doc is None or not isinstance(doc.data.get("dependencies"), list):
            continue
        vendored = None
        for i, dep in enumerate(doc.data["dependencies"]):
            if not isinstance(dep, dict) or not isinstance(dep.get("name"), str):
                continue
            vendored = _vendored(chart) if vendored is None else vendored
            if dep["name"] in vendored:
                continue
            (line, column, _el, _ec), _depth = resolve(doc.node, ("dependencies", i), at="value")
            repository = dep.get("repository")
            ref = repository if isinstance(repository, str) and repository else dep["name"]
            found.append(Reference(display_path(path), line, column, ref, dep["name"]))
    return found


def _vendored(chart: str) -> set[str]:
    """Names of the charts ``charts/`` holds: folders (their Chart.yaml's name, and the
    folder's) and packages (the name their file is packaged under)."""
    folder = os.path.join(chart, "charts")
    try:
        names = os.listdir(folder)
    except OSError:
        return set()
    found: set[str] = set()
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith(".tgz"):
            stem = name.removesuffix(".tgz")
            found.add(stem)
            found.update(stem[: m.start()] for m in _VERSION_START.finditer(stem))
        elif os.path.isdir(path):
            found.add(name)
            meta = os.path.join(path, "Chart.yaml")
            doc = load_document(meta) if os.path.isfile(meta) else None
            if doc is not None and isinstance(doc.data.get("name"), str):
                found.add(doc.data["name"])
    return found
