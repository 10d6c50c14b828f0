"""The linted tree: the real folders a run was named, and whether a path lies in them.

Whatever gpulint reads beyond the paths named (a render's files, a values file a GitOps
release names) must lie inside these folders; a symbolic link out of them is refused
unless ``--follow-symlinks`` (README, "Security").
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from gpulint.inputs.discover import STDIN


def roots(linted_paths: Iterable[str]) -> list[str]:
    """The real folders the run was named (a named file stands for its folder)."""
    found = []
    for path in linted_paths or (os.curdir,):
        if path == STDIN:
            continue
        real = os.path.realpath(path)
        found.append(real if os.path.isdir(real) else os.path.dirname(real))
    return found or [os.path.realpath(os.curdir)]


def inside(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)
