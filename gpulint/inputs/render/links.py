"""Symbolic links that would make a renderer read outside the linted tree.

helm reads every file of a chart folder and follows links (``.Files.Get`` of a link to
``~/.ssh/id_rsa`` renders the key into a ConfigMap); kustomize reads what a kustomization
names, through links too. A folder walk never follows a link out of the folder named on
the command line (``discover.py``); a render must not either: a unit holding such a link
is refused, at the link, unless ``--follow-symlinks``.
"""

from __future__ import annotations

import os

from gpulint.core.findings import InputError
from gpulint.inputs.discover import display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import refs_of
from gpulint.inputs.tree import inside, roots

__all__ = ["chart_escape", "inside", "kustomize_escape", "refusal", "roots"]


def chart_escape(chart: str, allowed: list[str]) -> str | None:
    """The first link under ``chart`` (in a walk through the links helm follows) whose
    target lies outside ``allowed``."""
    seen: set[str] = set()
    stack = [chart]
    while stack:
        folder = stack.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue  # a loop, or a folder reached twice
        seen.add(real)
        try:
            with os.scandir(folder) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError:
            continue  # helm says why, if it matters
        subfolders = []
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path) and not inside(os.path.realpath(path), allowed):
                return path
            if os.path.isdir(path):
                subfolders.append(path)
        stack.extend(reversed(subfolders))
    return None


def kustomize_escape(folder: str, allowed: list[str]) -> str | None:
    """The first path a build of ``folder`` reads (the kustomizations it reaches, their
    files) that leads outside through a link. Paths are followed as kustomize follows them,
    from each folder's real place; outside is beyond ``allowed`` and beyond the folders the
    build reaches by plain relative paths (an overlay's ``../base`` is the user's own
    layout)."""
    start = os.path.abspath(folder)
    real = os.path.realpath(start)
    if real != start and not inside(real, allowed):
        return start
    plain = [real]
    reads: list[str] = []
    stack, seen = [real], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        refs = refs_of(current)
        kfile = kustomization_file(current)
        reads += [*([kfile] if kfile else []), *refs.files, *refs.kustomizations]
        for reached in refs.kustomizations:
            if os.path.realpath(reached) == reached:
                plain.append(reached)
        stack.extend(os.path.realpath(k) for k in reversed(refs.kustomizations))
    for path in reads:
        target = os.path.realpath(path)
        if target != path and not inside(target, [*allowed, *plain]):
            return path
    return None


def refusal(link: str, unit: str, tool: str) -> InputError:
    return InputError(
        display_path(link),
        f"a symbolic link out of the linted folder: {unit} was not rendered ({tool} would "
        "read what it points to; --follow-symlinks renders it)",
    )
