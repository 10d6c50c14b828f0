"""What a kustomization names on disk: the kustomizations it builds on and its member files.

Read from the kustomization file alone (no render), so discovery can sort a
walked tree into deployable units (``inputs/units.py``) before anything runs.
Only local paths count: remote references (:func:`is_remote`) are never fetched
(``remote.py`` refuses them before a render), and inline patches (a multi-line string
in place of a path) name no file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import field, record
from gpulint.core.sources import Source, decode
from gpulint.inputs.discover import display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.yaml.parse import Document, parse

# Fields whose entries are paths, files or folders (kustomize's types.Kustomization).
_PATH_LISTS = (
    "resources",
    "bases",
    "components",
    "crds",
    "configurations",
    "generators",
    "transformers",
    "validators",
    "patchesStrategicMerge",
)
# Fields whose entries are mappings with a ``path`` (or the generators' ``files``/``envs``).
_PATH_ENTRIES = ("patches", "patchesJson6902", "replacements")
_GENERATORS = ("configMapGenerator", "secretGenerator", "helmChartInflationGenerator")
# Files that only change other objects: never whole objects of their own.
PATCH_FIELDS = ("patches", "patchesStrategicMerge", "patchesJson6902", "replacements")
# Where kustomize's Helm inflation names a chart repository (and a chart home, locally).
_HELM_SOURCES = (("helmCharts", "repo"), ("helmChartInflationGenerator", "chartRepoUrl"))

# What kustomize reads as remote (api/internal/git/repospec.go and its file loader): any
# URL scheme (http, https, ssh, file, oci...), go-getter's forced git, GitHub shorthands,
# scp-like git and Azure's _git/ paths. Wider than kustomize, never narrower.
_SCHEME = lazy(r"^[a-z][a-z0-9+.-]*://")
_REMOTE_PREFIXES = ("git::", "gh:", "git@", "github.com/", "github.com:")


@record
class Refs:
    """What one kustomization names, as normalised absolute paths."""

    kustomizations: list[str] = field(default_factory=list)  # folders it builds on
    files: dict[str, str] = field(default_factory=dict)  # file -> the field naming it
    is_component: bool = False


def load_document(path: str) -> Document | None:
    """The kustomization file's first document; None when it cannot be read or parsed."""
    try:
        with open(path, "rb") as handle:
            source = decode(display_path(path), handle.read())
    except OSError:
        return None
    if not isinstance(source, Source):
        return None
    docs, _errors = parse(source)
    return docs[0] if docs and isinstance(docs[0].data, dict) else None


def load_spec(path: str) -> dict:
    """The kustomization file's mapping; empty when it cannot be read or parsed."""
    doc = load_document(path)
    return doc.data if doc is not None else {}


def each_kustomization(folder: str, visit: Callable[[str], list[str]]) -> None:
    """Call ``visit`` on each kustomization folder a build of ``folder`` reads (itself, its
    bases and components, theirs...), once each, in the order a build meets them; ``visit``
    returns the local kustomizations the one it visits names."""
    seen: set[str] = set()
    stack = [os.path.normpath(os.path.abspath(folder))]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(reversed(visit(current)))


def refs_of(folder: str, spec: dict | None = None) -> Refs:
    """The local kustomizations and files the kustomization in ``folder`` names (its
    ``spec``, when the caller has read the file already)."""
    found = Refs()
    if spec is None:
        kfile = kustomization_file(folder)
        spec = load_spec(kfile) if kfile else {}
    found.is_component = spec.get("kind") == "Component"
    for field_name, entry, _path in entries(spec):
        if "\n" in entry or is_remote(entry):
            continue  # an inline patch or a remote reference
        path = os.path.normpath(os.path.join(os.path.abspath(folder), entry))
        if os.path.isdir(path):
            if kustomization_file(path) is not None:
                found.kustomizations.append(path)
        elif os.path.isfile(path):
            found.files.setdefault(path, field_name)
    return found


def is_remote(entry: str) -> bool:
    """Whether kustomize would fetch ``entry`` (a URL, a git repository) instead of reading
    a local path."""
    text = entry.strip().lower()
    return bool(_SCHEME.match(text)) or text.startswith(_REMOTE_PREFIXES) or "_git/" in text


def entries(spec: dict, sources: bool = False) -> Iterator[tuple[str, str, tuple]]:
    """(field, entry, path in the document) of every path the kustomization names; with
    ``sources``, also where its Helm inflation would pull a chart from."""
    for name in _PATH_LISTS:
        yield from ((name, e, (name, i)) for i, e in _strings(spec.get(name)))
    for name in _PATH_ENTRIES:
        for i, entry in enumerate(_list(spec.get(name))):
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                yield name, entry["path"], (name, i, "path")
    for name in _GENERATORS:
        for i, entry in enumerate(_list(spec.get(name))):
            if not isinstance(entry, dict):
                continue
            for j, item in _strings(entry.get("files")):
                # "key=path" names the key too
                yield name, item.split("=", 1)[-1], (name, i, "files", j)
            yield from ((name, e, (name, i, "envs", j)) for j, e in _strings(entry.get("envs")))
            for key in ("env", "valuesFile"):
                if isinstance(entry.get(key), str):
                    yield name, entry[key], (name, i, key)
    openapi = spec.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        yield "openapi", openapi["path"], ("openapi", "path")
    if sources:
        yield from _helm_sources(spec)


def _helm_sources(spec: dict) -> Iterator[tuple[str, str, tuple]]:
    for name, key in _HELM_SOURCES:
        for i, entry in enumerate(_list(spec.get(name))):
            if isinstance(entry, dict) and isinstance(entry.get(key), str) and entry[key]:
                yield name, entry[key], (name, i, key)
    for i, entry in enumerate(_list(spec.get("helmCharts"))):
        if not isinstance(entry, dict):
            continue
        for j, item in _strings(entry.get("additionalValuesFiles")):
            yield "helmCharts", item, ("helmCharts", i, "additionalValuesFiles", j)
        if isinstance(entry.get("valuesFile"), str):
            yield "helmCharts", entry["valuesFile"], ("helmCharts", i, "valuesFile")
    globals_ = spec.get("helmGlobals")
    if isinstance(globals_, dict) and isinstance(globals_.get("chartHome"), str):
        yield "helmGlobals", globals_["chartHome"], ("helmGlobals", "chartHome")


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _strings(value: Any) -> list[tuple[int, str]]:
    """The non-empty strings of a list, with their indexes."""
    return [(i, v) for i, v in enumerate(_list(value)) if isinstance(v, str) and v]


def members(folder: str, cache: dict[str, Refs] | None = None) -> dict[str, tuple[str, str]]:
    """Every file a build of ``folder`` reads, through the kustomizations it builds on:
    file -> (the field naming it, the kustomization folder naming it)."""
    cache = {} if cache is None else cache
    found: dict[str, tuple[str, str]] = {}
    seen: set[str] = set()
    stack = [os.path.normpath(os.path.abspath(folder))]
    while stack:
        current = stack.pop()
        if current in seen:
            continue  # a cycle, or a base reached twice
        seen.add(current)
        refs = cache.get(current)
        if refs is None:
            refs = cache[current] = refs_of(current)
        for path, field_name in refs.files.items():
            found.setdefault(path, (field_name, current))
        stack.extend(reversed(refs.kustomizations))
    return found
