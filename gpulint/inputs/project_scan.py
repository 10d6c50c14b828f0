"""Reads the linted repository's identity (``model/project.py``) from its own files.

Text only: no git process, no network. Three places, strongest first, and the first
that names a GitHub or GitLab repository decides:

1. the git remote: ``[remote "origin"] url`` in the config of the git repository
   that holds each linted path (``.git/config``; a worktree's ``.git`` file leads to
   its common git folder), in https, ssh or scp-like (``git@host:o/r.git``) form;
2. a ``go.mod`` at that repository's root (or, outside git, in a linted folder):
   ``module github.com/o/r...``;
3. the ``home`` and ``sources`` of each chart the walk lints as a chart, subcharts
   (under another chart's ``charts/``) excepted. Helm defines them as "the URL of this
   project's home page" and "a list of URLs to source code for this project", and a
   chart's dependencies live in its ``charts/`` folder (helm.sh/docs/topics/charts/,
   "The Chart.yaml File", "Chart Dependencies").

The git remote is what the checkout is, so it wins: a fork deploying its upstream's
``:latest`` is warned, and a chart whose ``home`` names the upstream project it
packages is not consulted where the remote says otherwise.

Then the images the repository publishes, whatever their names: what the CI files at
the root of each such git repository push (``ci_images.py``: GitHub Actions workflows,
``.gitlab-ci.yml``), read once per run here, never per linted file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from gpulint.core.findings import InputError
from gpulint.core.lazy_re import lazy
from gpulint.core.sources import decode, read_bytes
from gpulint.inputs.ci_images import published_images
from gpulint.inputs.discover import STDIN, Target, display_path
from gpulint.model.project import Project, ProjectId, PublishedImage, repository_path
from gpulint.yaml.parse import documents

_SECTION = lazy(r"^\s*\[(?P<name>[^\]]*)\]\s*$")
_ORIGIN = lazy(r'^remote\s+"origin"$')
_URL_KEY = lazy(r"^\s*url\s*=\s*(?P<url>.+?)\s*$", re.IGNORECASE)
_MODULE = lazy(r"^\s*module\s+\"?(?P<path>[^\s\"]+)\"?", re.MULTILINE)
_LIMIT = 1 << 20  # identity files are small; a bigger one is not read


def project_of(linted: Sequence[str], targets: Sequence[Target], ci: bool = True) -> Project:
    """The project of the run: ``linted`` are the paths named on the command line (the
    targets' paths when none are given). ``ci``: read what the CI files publish too."""
    paths = [p for p in (linted or [t.path for t in targets]) if p != STDIN]
    roots = git_roots(paths)
    remotes = {root: _remote(git_dir) if git_dir else [] for root, git_dir in roots.items()}
    ids = [i for found in remotes.values() for i in found]
    if not ids:
        folders = list(roots) + [p for p in paths if os.path.isdir(p) and p not in roots]
        ids = [i for folder in dict.fromkeys(folders) for i in _go_module(folder)]
    if not ids:
        ids = [
            i for t in targets if t.kind == "helm" and not _subchart(t.path) for i in _chart(t.path)
        ]
    unique = {(i.host, i.path): i for i in reversed(ids)}  # the first source of each kept
    kept = tuple(reversed(list(unique.values())))
    published: dict[str, PublishedImage] = {}
    for root, remote in remotes.items() if ci else ():
        # A root's own remote names its github.repository; else the run's one identity.
        for image in published_images(root, remote or kept):
            published.setdefault(image.repository, image)
    return Project(kept, tuple(published.values()))


def _bytes(path: str) -> bytes | None:
    # sources.read_bytes: regular files only (a FIFO named .git/config never blocks the run)
    data = read_bytes(path)
    return data if isinstance(data, bytes) and len(data) <= _LIMIT else None


def _read(path: str) -> str | None:
    data = _bytes(path)
    return None if data is None else data.decode("utf-8", "replace")


def git_roots(paths: Iterable[str]) -> dict[str, str | None]:
    """Git root (a folder holding ``.git``) -> its git folder, for each linted path. Each
    folder is looked at once: pre-commit names hundreds of files in a few folders."""
    roots: dict[str, str | None] = {}
    root_of: dict[str, str | None] = {}  # folder -> its git root, None outside git
    for path in paths:
        start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        folder, walked = start, []
        while folder not in root_of:
            walked.append(folder)
            git = os.path.join(folder, ".git")
            if os.path.exists(git):
                roots.setdefault(folder, _git_dir(git))
                root_of[folder] = folder
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                root_of[folder] = None
                break
            folder = parent
        for seen in walked:
            root_of[seen] = root_of[folder]
    return roots


def _git_dir(git: str) -> str | None:
    """The folder holding the config: ``.git`` itself, or (a worktree or submodule, whose
    ``.git`` is a file ``gitdir: X``) X's common folder."""
    if os.path.isdir(git):
        return git
    text = _read(git) or ""
    if not text.startswith("gitdir:"):
        return None
    target = os.path.join(os.path.dirname(git), text[len("gitdir:") :].strip())
    common = (_read(os.path.join(target, "commondir")) or "").strip()
    return os.path.normpath(os.path.join(target, common)) if common else target


def _remote(git_dir: str) -> list[ProjectId]:
    text = _read(os.path.join(git_dir, "config")) or ""
    inside = False
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            inside = bool(_ORIGIN.match(section["name"].strip()))
            continue
        url = _URL_KEY.match(line) if inside else None
        found = repository_path(url["url"].strip("\"'")) if url else None
        if found:
            where = display_path(os.path.join(git_dir, "config"))
            return [ProjectId(*found, f"{where} remote origin")]
    return []


def _go_module(folder: str) -> list[ProjectId]:
    path = os.path.join(folder, "go.mod")
    match = _MODULE.search(_read(path) or "")
    found = repository_path(match["path"]) if match else None
    return [ProjectId(*found, f"{display_path(path)} module")] if found else []


def _subchart(chart: str) -> bool:
    parent = os.path.dirname(os.path.normpath(chart))
    return os.path.basename(parent) == "charts" and os.path.isfile(
        os.path.join(os.path.dirname(parent), "Chart.yaml")
    )


def _chart(chart: str) -> list[ProjectId]:
    path = os.path.join(chart, "Chart.yaml")
    raw = _bytes(path)
    source = decode(path, raw) if raw is not None else None
    if source is None or isinstance(source, InputError):
        return []
    data = next((d.data for d in documents(source, []) if isinstance(d.data, dict)), {})
    found: list[ProjectId] = []
    for key in ("home", "sources"):
        value = data.get(key)
        for url in value if isinstance(value, list) else [value]:
            place = repository_path(url) if isinstance(url, str) else None
            if place:
                found.append(ProjectId(*place, f"{display_path(path)} {key}"))
    return found
