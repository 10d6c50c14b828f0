"""GitOps releases of a chart that lies in the linted repository, found for rendering (issue 27).

A chart folder of the tree is linted as a chart, with its own ``values.yaml``. A GitOps
object that installs that folder with values of its own makes another set of objects,
which only a render with those values shows. Two forms name a folder of this repository:

- an Argo CD ``Application`` (or an ``ApplicationSet`` whose template names one folder)
  whose ``spec.source`` (or one of ``spec.sources``) has a ``path`` and no ``chart``: the
  path is a "directory path within the Git repository" (the repository ``repoURL``
  names); its values are, lowest precedence first, ``helm.valueFiles`` ("relative to the
  Helm chart location"), ``helm.values`` or ``helm.valuesObject``, ``helm.parameters``
  ("Order of precedence is parameters > valuesObject > values > valueFiles > helm
  repository values.yaml": argo-cd.readthedocs.io, user-guide/helm); a missing values
  file makes Helm fail unless ``ignoreMissingValueFiles`` ("not passed to Helm"); it
  installs into ``spec.destination.namespace``;
- a Flux ``HelmRelease`` whose ``spec.chart.spec.sourceRef`` is a ``GitRepository`` and
  whose ``chart`` is "the name or path the Helm chart is available at in the SourceRef";
  its values are its ``valuesFrom`` and ``values`` (``inputs/gitops_values.py``), and it
  installs into ``spec.targetNamespace``, else its own namespace
  (fluxcd.io/flux/components/helm/helmreleases). Its ``chart.spec.valuesFiles``, paths
  "relative to the SourceRef", are merged in order into the chart's default values, and
  replace its ``values.yaml`` ("values.yaml is not included by default": a release whose
  list does not start with the chart's own ``values.yaml`` is not rendered); a file that is
  not there fails the chart's build unless ``ignoreMissingValuesFiles``.

The repository must be this one: the URL's ``owner/repo`` is the linted repository's
identity (``model/project.py``: the git remote first), and the folder is read relative to
the root of that git checkout (else to the linted folder when the run knows no identity).
A GitRepository is the run's object of that namespace and name, wherever in the run it is
(sources are referred to by name and namespace), and must be the only one. The chart
folder and every values file must lie inside the linted tree; a folder that is no chart,
a templated path, a ``$ref`` values file of another source: nothing is rendered and
nothing is guessed. A values file the release names that is not there is an input error
at its name (the release cannot render), unless the Application ignores missing ones.

Each release becomes a target of kind ``helm-release`` (``inputs/render/helm.py``
renders it): its values are handed to Helm as one more values file, and each path of
them keeps the place where the release writes it, so a rendered finding names it.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterator
from functools import partial
from typing import Any

from gpulint.core.findings import InputError, Location
from gpulint.core.settings import Settings
from gpulint.inputs.discover import ChartRelease, Target, display_path
from gpulint.inputs.folders import chart_root
from gpulint.inputs.gitops_values import mapping_documents
from gpulint.inputs.kustomize_refs import is_remote
from gpulint.inputs.project_scan import git_roots
from gpulint.inputs.tree import inside, roots
from gpulint.model.project import Project, repository_path
from gpulint.model.values import joined, releases
from gpulint.model.values.paths import at_path
from gpulint.model.values.placeholders import is_placeholder
from gpulint.yaml.parse import Document
from gpulint.yaml.positions import locate, place_with_value

_ARGO = "argoproj.io"
_FLUX = "helm.toolkit.fluxcd.io"
_SOURCES = "source.toolkit.fluxcd.io"
MAX_ORIGINS = 5_000  # places kept of one release's values (a finding past them names none)
MAX_RENDERS = 64  # releases rendered in one run: a tree of 10,000 Applications is no stall


def _group(data: dict) -> str:
    api = data.get("apiVersion")
    return api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_placeholder(value) else None


class ReleaseCharts:
    """The releases of in-tree charts among the plain files (a part of ``prepare.py``)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._argo: list[tuple[Document, tuple]] = []  # (document, source path)
        self._flux: list[Document] = []
        self._repositories: dict[tuple[str | None, str], list[str]] = {}  # -> urls

    def see(self, target: Target, data: bytes | None) -> None:
        if not data or target.kind != "file":
            return
        argo = _ARGO.encode() in data and b"path" in data
        flux = b"GitRepository" in data
        if not (argo or flux):
            return
        for doc in mapping_documents(target.path, data):
            self._take(doc)

    def _take(self, doc: Document) -> None:
        data, group, kind = doc.data, _group(doc.data), doc.data.get("kind")
        if group == _ARGO and kind in ("Application", "ApplicationSet"):
            spec: tuple = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
            for at in _argo_sources(data, spec):
                self._argo.append((doc, at))
        elif group == _FLUX and kind == "HelmRelease":
            if at_path(data, ("spec", "chart", "spec", "sourceRef", "kind")) == "GitRepository":
                self._flux.append(doc)
        elif group == _SOURCES and kind == "GitRepository":
            name, namespace = _meta(data)
            url = _text(at_path(data, ("spec", "url")))
            if name is not None:
                self._repositories.setdefault((namespace, name), []).append(url or "")

    def targets(
        self, project: Project, extras: dict[str, dict[int, tuple[joined.Extra, ...]]]
    ) -> tuple[list[Target], list[str]]:
        """A ``helm-release`` target for each release of an in-tree chart the run holds (at
        most ``MAX_RENDERS``: each is one helm process), and what the run says of the rest."""
        if not self._argo and not self._flux:
            return [], []
        where = _Tree(self._settings, project)
        found: list[Target] = []
        candidates = [
            *(partial(_argo_target, doc, at) for doc, at in self._argo),
            *(partial(_flux_target, doc, self._repositories) for doc in self._flux),
        ]
        for make in candidates:
            if len(found) == MAX_RENDERS:
                return found, [_over_budget(len(candidates))]
            found.extend(t for t in make(where, extras) if t not in found)
        return found, []


def _over_budget(candidates: int) -> str:
    return (
        f"{MAX_RENDERS} GitOps releases of charts in this repository were rendered with their "
        f"values; the other releases of the run's {candidates} Argo CD sources and Flux "
        "releases of Git charts were not (each is one helm process)"
    )


def _meta(data: dict) -> tuple[str | None, str | None]:
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return None, None
    return _text(meta.get("name")), _text(meta.get("namespace"))


def _argo_sources(data: dict, spec: tuple) -> Iterator[tuple]:
    for at in releases.argo_source_paths(data, spec):
        source = at_path(data, at)
        if source.get("chart") is None and _text(source.get("path")) is not None:
            yield at


class _Tree:
    """Where this repository's folders are, and whether a URL names this repository."""

    def __init__(self, settings: Settings, project: Project) -> None:
        self.settings = settings
        self.project = project
        self.allowed = roots(settings.linted_paths)
        linted = [p for p in settings.linted_paths if os.path.isdir(p)] or [os.curdir]
        found = list(git_roots(linted))
        # Outside git the linted folders stand for the repository's root.
        self.tops = [os.path.realpath(p) for p in (found or linted)]

    def ours(self, url: str | None) -> bool:
        """Whether ``url`` is this repository: its identity when the run knows one; when it
        knows none, any GitHub or GitLab URL (the folder must still be a chart here)."""
        named = repository_path(url) if url else None
        if named is None:
            return False
        ids = self.project.ids
        return not ids or any((i.host, i.path) == named for i in ids)

    def _places(self, path: str) -> Iterator[tuple[str, str]]:
        """(shown, real) of ``path`` of the repository (relative to its root) below each
        root, where it lies in the linted tree."""
        if "\0" in path or os.path.isabs(path) or is_remote(path):
            return
        for top in self.tops:
            found = os.path.normpath(os.path.join(top, path))
            real = os.path.realpath(found)
            if inside(real, self.allowed):
                yield display_path(os.path.relpath(found) if _below_cwd(found) else found), real

    def file(self, path: str) -> str | None:
        """``path`` of the repository, when it lies in the linted tree."""
        return next((shown for shown, _real in self._places(path)), None)

    def chart(self, path: str) -> str | None:
        """The chart folder at ``path`` of the repository, when it lies in the linted tree."""
        return next((shown for shown, real in self._places(path) if chart_root(real) == real), None)


def _below_cwd(path: str) -> bool:
    return inside(os.path.abspath(path), [os.path.abspath(os.curdir)])


def _argo_target(
    doc: Document, at: tuple, where: _Tree, extras: dict[str, dict[int, tuple]]
) -> Iterator[Target]:
    data = doc.data
    source = at_path(data, at)
    if not where.ours(_text(source.get("repoURL"))):
        return
    chart = where.chart(source["path"])
    if chart is None:
        return
    helm = source.get("helm") if isinstance(source.get("helm"), dict) else {}
    try:
        files, problems = _value_files(doc, at, chart, helm, where)
    except _Unreadable:
        return
    spec = at[:-1] if at[-1] == "source" else at[:-2]
    namespace = _text(at_path(data, (*spec, "destination", "namespace")))
    found = _target(doc, at, chart, namespace, files, problems, extras)
    if found is not None:
        yield found


def _value_files(
    doc: Document, at: tuple, chart: str, helm: dict, where: _Tree
) -> tuple[tuple[str, ...], tuple[InputError, ...]]:
    names = helm.get("valueFiles")
    files: list[str] = []
    problems: list[InputError] = []
    skip_missing = helm.get("ignoreMissingValueFiles") is True
    for i, name in enumerate(names if isinstance(names, list) else ()):
        if not isinstance(name, str) or name.startswith("$") or is_placeholder(name):
            raise _Unreadable  # another source's file, or one a generator fills in
        path = os.path.normpath(os.path.join(chart, name))
        real = os.path.realpath(path)
        if is_remote(name) or "\0" in name or not inside(real, where.allowed):
            raise _Unreadable
        if os.path.isfile(real):
            files.append(path)
        elif not skip_missing:
            location, _pointer = locate(doc, (*at, "helm", "valueFiles", i), "value")
            problems.append(
                InputError(
                    doc.source.path,
                    f"values file {name!r} is not in the chart folder {chart}: Argo CD cannot "
                    "generate this application's manifests (helm template fails; "
                    "helm.ignoreMissingValueFiles: true skips missing files)",
                    location.line,
                    location.column,
                )
            )
    return tuple(files), tuple(problems)


class _Unreadable(Exception):
    """A release whose values the run cannot read whole: it is not rendered."""


def _flux_target(
    doc: Document,
    repositories: dict[tuple[str | None, str], list[str]],
    where: _Tree,
    extras: dict[str, dict[int, tuple]],
) -> Iterator[Target]:
    data = doc.data
    chart_spec = at_path(data, ("spec", "chart", "spec"))
    ref = chart_spec.get("sourceRef")
    name, namespace = _meta(data)
    ref_name = _text(ref.get("name")) if isinstance(ref, dict) else None
    path = _text(chart_spec.get("chart"))
    if ref_name is None or path is None:
        return
    ref_namespace = _text(ref.get("namespace")) or namespace
    urls = repositories.get((ref_namespace, ref_name), [])
    if len(urls) != 1 or not where.ours(urls[0]):
        return
    chart = where.chart(path)
    if chart is None:
        return
    try:
        files, problems = _flux_value_files(doc, chart_spec, chart, where)
    except _Unreadable:
        return
    target_namespace = _text(at_path(data, ("spec", "targetNamespace"))) or namespace
    found = _target(doc, ("spec",), chart, target_namespace, files, problems, extras)
    if found is not None:
        yield found


def _flux_value_files(
    doc: Document, chart_spec: dict, chart: str, where: _Tree
) -> tuple[tuple[str, ...], tuple[InputError, ...]]:
    """The files of ``chart.spec.valuesFiles`` after the chart's own ``values.yaml`` (the
    first of them; any other first file replaces the chart's defaults: not rendered)."""
    names = chart_spec.get("valuesFiles")
    if names is None:
        return (), ()
    if not isinstance(names, list) or not names:
        raise _Unreadable
    files: list[str] = []
    problems: list[InputError] = []
    skip_missing = chart_spec.get("ignoreMissingValuesFiles") is True
    own = os.path.realpath(os.path.join(chart, "values.yaml"))
    for i, name in enumerate(names):
        if not isinstance(name, str) or "\0" in name or is_placeholder(name) or is_remote(name):
            raise _Unreadable
        path = where.file(name)
        if path is None:
            raise _Unreadable  # outside the linted tree
        if i == 0:
            if os.path.realpath(path) != own:
                raise _Unreadable  # the chart's defaults replaced by another file
        elif os.path.isfile(os.path.realpath(path)):
            files.append(path)
        elif not skip_missing:
            problems.append(_missing(doc, ("spec", "chart", "spec", "valuesFiles", i), name))
    return tuple(files), tuple(problems)


def _missing(doc: Document, at: tuple, name: str) -> InputError:
    location, _pointer = locate(doc, at, "value")
    return InputError(
        doc.source.path,
        f"values file {name[:60]!r} is not in this repository's checkout: Flux cannot build "
        "this release's chart (chart.spec.ignoreMissingValuesFiles: true skips missing files)",
        location.line,
        location.column,
    )


def _target(
    doc: Document,
    release: tuple,
    chart: str,
    namespace: str | None,
    files: tuple[str, ...],
    problems: tuple[InputError, ...],
    extras: dict[str, dict[int, tuple]],
) -> Target | None:
    values, origins = _values(doc, release, extras.get(doc.source.path, {}).get(doc.index, ()))
    if values == "{}" and not files and not problems:
        return None  # the chart's own render, already linted as a chart
    kind = doc.data.get("kind")
    name = _meta(doc.data)[0] or "(unnamed)"
    location, _pointer = locate(doc, release, "key")
    label = f"{kind} {name} ({doc.source.path}:{location.line})"
    payload = ChartRelease(label, namespace, values, files, origins, problems)
    return Target(chart, "helm-release", walked=True, release=payload)


def _values(
    doc: Document, release: tuple, extras: tuple[joined.Extra, ...]
) -> tuple[str, tuple[tuple[tuple, Location], ...]]:
    """The release's own values as JSON, and where it writes each of their paths."""
    with joined.scope(extras):
        for _name, path in releases.chart_values(doc.data):
            if releases.belongs(path, release) or path[: len(release)] == release:
                values = at_path(doc.data, path)
                if isinstance(values, dict):
                    return _json(values), tuple(_origins(doc, path, values))
    return "{}", ()


def _json(values: dict) -> str:
    return json.dumps(values, default=str, sort_keys=False)


def _origins(doc: Document, base: tuple, values: dict) -> Iterator[tuple[tuple, Location]]:
    """(values path, where it is written) for each path of ``values``, breadth first."""
    queue: deque[tuple[tuple, Any]] = deque([((), values)])
    kept = 0
    while queue and kept < MAX_ORIGINS:
        sub, value = queue.popleft()
        if sub:
            kept += 1
            yield sub, place_with_value(doc, base + sub, "key")[0]
        if isinstance(value, dict):
            queue.extend((sub + (key,), item) for key, item in value.items())
        elif isinstance(value, list):
            queue.extend((sub + (i,), item) for i, item in enumerate(value))
