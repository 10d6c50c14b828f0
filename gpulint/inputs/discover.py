"""Command-line paths -> the files to lint, in a deterministic order.

Folders are walked for ``*.yaml``, ``*.yml`` and ``*.json``, and for the ``*.toml``
files that are containerd configs (they name an ``io.containerd.`` plugin: other
TOML, such as ``pyproject.toml``, is not gpulint's input); a file named
explicitly is read whatever its extension; ``-`` is standard input. Hidden
folders (``.git`` among them) are skipped. Symlinked folders are followed once;
a link back to an enclosing folder (a loop) is reported, not followed. A link
that leads out of the folder named on the command line is not followed (a
``token.yaml`` pointing at a secret elsewhere), unless ``follow_symlinks``. Folders
that vanish or cannot be listed while walking are reported; the walk goes on. Unless
``respect_ignore_files`` is off (``--no-ignore``), what ``.gitignore`` (inside a git work
tree) and ``.ignore`` files exclude is not walked (``ignore_files.py``); a file named on the
command line is read whatever they say.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gpulint.core.findings import InputError, Location
from gpulint.core.record import record

if TYPE_CHECKING:
    from gpulint.config.globs import PathFilter

LINTED_SUFFIXES = (".yaml", ".yml", ".json")
CONTAINERD_MARK = b"io.containerd."
_PEEK = 1 << 20  # containerd configs are small; the plugin names come early
STDIN = "-"


@record(frozen=True)
class Target:
    """One input: a file to read, standard input, or a folder a renderer handles."""

    path: str  # the path as findings will name it
    kind: str = "file"  # "file", "stdin", or a renderer's name ("helm", "kustomize")
    walked: bool = False  # found by walking a folder, not named on the command line
    release: ChartRelease | None = None  # kind "helm-release": what a GitOps object renders


@record(frozen=True)
class ChartRelease:
    """A GitOps release of a chart in the linted tree: what its object renders it with
    (``inputs/release_charts.py`` reads it, ``inputs/render/helm.py`` renders it)."""

    label: str  # the object, as messages name it: "Application gpu (apps/gpu.yaml:4)"
    namespace: str | None  # the namespace the release installs into
    values: str  # the release's own values, merged from where it writes them, as JSON
    value_files: tuple[str, ...] = ()  # chart values files it names, lowest first
    # each path of ``values`` (a tuple of keys and indexes) -> where the release writes it
    origins: tuple[tuple[tuple, Location], ...] = ()
    problems: tuple[InputError, ...] = ()  # why it cannot render (a values file not there)


# A folder handler claims a folder (e.g. a Helm chart) and returns the targets
# it stands for; discovery then does not walk into that folder.
FolderHandler = Callable[[str], "list[Target] | None"]
# A folder marker names targets for a folder that is still walked (a kustomization:
# inputs/units.py later sorts its files into deployable units).
FolderMarker = Callable[[str], "list[Target] | None"]


def display_path(path: str) -> str:
    """Relative to the working directory when inside it, else as given."""
    if path == STDIN:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def discover(
    paths: Iterable[str],
    folder_handlers: Iterable[FolderHandler] = (),
    excluded: Callable[[str], bool] = lambda _path: False,
    folder_markers: Iterable[FolderMarker] = (),
    follow_symlinks: bool = False,
    notes: list[str] | None = None,
    respect_ignore_files: bool = True,
) -> tuple[list[Target], list[InputError]]:
    """Targets and errors; links not followed out of a tree are said in ``notes``."""
    targets: list[Target] = []
    errors: list[InputError] = []
    handlers = list(folder_handlers)
    markers = list(folder_markers)
    for raw in paths:
        if raw == STDIN:
            targets.append(Target(STDIN, "stdin"))
            continue
        try:
            is_dir = stat.S_ISDIR(os.stat(raw).st_mode)
        except OSError as exc:  # missing, a symlink loop, a dangling link, no permission
            errors.append(InputError(display_path(raw), _reason(exc)))
            continue
        if is_dir:
            escapes = None if follow_symlinks else _Escapes(raw, notes)
            ignoring = _Ignoring(raw) if respect_ignore_files else None
            _walk(raw, handlers, excluded, targets, errors, markers, escapes, ignoring)
        else:
            targets.append(Target(display_path(raw)))
    return _dedupe(targets), errors


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop (too many levels of symbolic links)"
    return exc.strerror or str(exc)


def _walk(
    top: str,
    handlers: list[FolderHandler],
    excluded: Callable[[str], bool],
    targets: list[Target],
    errors: list[InputError],
    markers: Iterable[FolderMarker] = (),
    escapes: _Escapes | None = None,
    ignoring: _Ignoring | None = None,
) -> None:
    """Depth first, each folder once; a link back to an enclosing folder is reported."""
    seen: set[tuple[int, int]] = set()
    # (folder, identities of the folders enclosing it, including itself once known, the
    # ignore filters of the folders above it)
    start = tuple(ignoring.enclosing) if ignoring else ()
    stack: list[tuple[str, frozenset, tuple[PathFilter, ...]]] = [(top, frozenset(), start)]
    found: list[Target] = []
    while stack:
        folder, enclosing, filters = stack.pop()
        try:
            st = os.stat(folder)
        except OSError as exc:  # vanished while walking, or a loop the OS refused
            errors.append(InputError(display_path(folder), f"cannot read folder: {_reason(exc)}"))
            continue
        identity = (st.st_dev, st.st_ino)
        if identity in enclosing:
            errors.append(
                InputError(
                    display_path(folder),
                    "symbolic link loop: this folder links back to a folder that contains it; "
                    "not followed",
                )
            )
            continue
        if identity in seen:
            continue  # reached twice through links: read once
        seen.add(identity)
        claimed = None
        for handler in handlers:
            claimed = handler(folder)
            if claimed is not None:
                break
        if claimed is not None:
            found.extend(claimed)
            continue
        for marker in markers:
            found.extend(marker(folder) or ())
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            # A folder that vanished or cannot be listed while walking.
            errors.append(InputError(display_path(folder), f"cannot read folder: {_reason(exc)}"))
            continue
        inside = enclosing | {identity}
        if ignoring is not None:
            filters = filters + tuple(ignoring.folder_filters(folder))
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = os.path.join(folder, entry.name)
            if excluded(display_path(path)):
                continue
            if any(f.excluded(path) for f in filters):
                continue
            if escapes is not None and entry.is_symlink() and escapes.leaves(path):
                continue
            try:
                is_dir = entry.is_dir()  # follows links; False for a dangling one
            except OSError:
                is_dir = False  # a link loop: reading it reports why, if it is ours
            if is_dir:
                subfolders.append(path)
            elif entry.name.endswith(LINTED_SUFFIXES) or (
                entry.name.endswith(".toml") and _is_containerd_config(path)
            ):
                found.append(Target(display_path(path), walked=True))
        stack.extend((sub, inside, filters) for sub in reversed(subfolders))
    targets.extend(sorted(found, key=lambda t: t.path))


def _is_containerd_config(path: str) -> bool:
    """Whether a walked ``.toml`` file names a containerd plugin (peeked without blocking:
    a FIFO or device named ``.toml`` is never opened for reading here)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return True  # reading it says why
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False  # not a regular file: nothing to lint
        return CONTAINERD_MARK in os.read(fd, _PEEK)
    except OSError:
        return True
    finally:
        os.close(fd)


class _Escapes:
    """Symbolic links that lead out of the tree named on the command line."""

    def __init__(self, top: str, notes: list[str] | None) -> None:
        self.top = os.path.realpath(top)
        self.notes = notes

    def leaves(self, path: str) -> bool:
        target = os.path.realpath(path)
        if target == self.top or target.startswith(self.top.rstrip(os.sep) + os.sep):
            return False
        if self.notes is not None:
            self.notes.append(
                f"{display_path(path)}: a symbolic link out of the linted folder; not followed "
                "(--follow-symlinks lints what it points to)"
            )
        return True


class _Ignoring:
    """The ignore files a walk of ``top`` respects: whether it is inside a git work tree,
    and the ``.gitignore`` filters of the folders above it within that tree."""

    def __init__(self, top: str) -> None:
        # Only when a folder is walked (LAZY in tests/project/test_import_contract.py).
        from gpulint.inputs import ignore_files

        root = ignore_files.git_root(top)
        self.in_git = root is not None
        self.enclosing = ignore_files.enclosing_filters(top, root)
        self._folder_filters = ignore_files.folder_filters

    def folder_filters(self, folder: str) -> list[PathFilter]:
        """The filters of ``folder``'s own ignore files."""
        return self._folder_filters(folder, self.in_git)


def _dedupe(targets: list[Target]) -> list[Target]:
    """Each input once, in first-seen order; named on the command line wins over walked."""
    seen: dict[tuple[str, str], int] = {}
    unique: list[Target] = []
    for target in targets:
        key = (target.path, target.kind)
        if key not in seen:
            seen[key] = len(unique)
            unique.append(target)
        elif not target.walked:
            unique[seen[key]] = target
    return unique
