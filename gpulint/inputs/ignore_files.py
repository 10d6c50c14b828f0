"""The ignore files a folder walk respects, as ruff and ripgrep do: ``.gitignore`` inside a
git work tree (a ``.git`` folder or file at or above the walked folder), ``.ignore``
anywhere. Each file's patterns speak for its own folder and what lies below it; the
``.gitignore`` files between the work tree's root and the walked folder count too.

A stranger's tree holds them, so they are read as data only: regular files (no link, no
FIFO), at most :data:`MAX_BYTES`, compiled into the linear-time glob automaton of
``config/globs.py``; a line that is not a valid pattern is skipped, as git does.
"""

from __future__ import annotations

import os
import stat

from gpulint.config.globs import GlobError, PathFilter, compile_pattern

GITIGNORE, IGNORE = ".gitignore", ".ignore"
MAX_BYTES = 1 << 20  # far beyond any real ignore file; more is not read


def git_root(folder: str) -> str | None:
    """The work tree holding ``folder`` (the nearest folder with a ``.git``), or None."""
    current = os.path.abspath(folder)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _lines(path: str) -> list[str]:
    """The lines of a regular file that is not a link, else none."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.read(fd, MAX_BYTES)
    except OSError:
        return []
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace").splitlines()


def _valid(lines: list[str]) -> list[str]:
    kept = []
    for line in lines:
        try:
            compile_pattern(line)
        except GlobError:
            continue  # git skips a pattern it cannot read; so does the walk
        kept.append(line)
    return kept


def folder_filters(folder: str, in_git: bool) -> list[PathFilter]:
    """The filters the ignore files of ``folder`` itself set."""
    names = (GITIGNORE, IGNORE) if in_git else (IGNORE,)
    found = []
    for name in names:
        patterns = _valid(_lines(os.path.join(folder, name)))
        if patterns:
            found.append(PathFilter(patterns, folder))
    return found


def enclosing_filters(top: str, root: str | None) -> list[PathFilter]:
    """The ``.gitignore`` filters of the folders from the work tree's root down to the
    walked folder's parent (the walk reads the walked folder's own), root first."""
    top = os.path.abspath(top)
    if root is None or top == root:
        return []
    chain = []
    current = os.path.dirname(top)
    while os.path.commonpath([current, root]) == root:
        chain.append(current)
        if current == root:
            break
        current = os.path.dirname(current)
    return [f for folder in reversed(chain) for f in folder_filters(folder, in_git=True)]
