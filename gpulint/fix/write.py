"""Writing a fixed file back: through its symbolic link, with its mode and owner, atomically.

The new text goes to a temporary file beside the file itself (the target of a symbolic
link, so the link stays a link), which takes the file's owner, group and mode and is
renamed over it: an interrupted run leaves the old file or the new one, never half of one.

Some files are not written, each for a reason the user can act on:

- a symbolic link whose target lies outside the folders linted (a ``deploy.yaml``
  pointing at ``~/.bashrc`` in a stranger's repository), unless ``--follow-symlinks``;
- a file with more than one hard link: renaming over it would split the link (the other
  names keep the old text), and writing into the inode instead would change names
  gpulint never linted (a ``cp -al`` or ``rsync --link-dest`` backup, another checkout),
  without the atomic rename;
- a read-only file (no write bit, or not writable by this user), as ruff, black and
  prettier leave one: the mode says "do not change me" (generated or vendored files);
- a file whose owner or group this user cannot give the new file.

``--diff`` shows what would change in each case.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable

from gpulint.core.findings import printable


class NotWritten(Exception):
    """Why a fixed file was not written (the file is unchanged)."""


def linted_roots(paths: Iterable[str]) -> tuple[str, ...]:
    """The real folders a run lints: each folder named, the folder of each file named."""
    roots = []
    for path in paths:
        if path == "-":
            continue
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        roots.append(os.path.realpath(folder))
    return tuple(roots)


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def check_writable(path: str, roots: Iterable[str], follow_symlinks: bool) -> None:
    """Raise :class:`NotWritten` when ``path`` is not to be written (see the module)."""
    real = os.path.realpath(path)
    if real != os.path.abspath(path) and not follow_symlinks and not _inside(real, roots):
        raise NotWritten(
            f"a symbolic link to {printable(real)}, outside the linted folders: not fixed "
            "(--follow-symlinks writes through it)"
        )
    try:
        found = os.stat(real)
    except OSError as exc:
        raise NotWritten(f"cannot write: {exc.strerror or exc}") from None
    if not stat.S_ISREG(found.st_mode):
        raise NotWritten("not a regular file: not fixed")
    if found.st_nlink > 1:
        raise NotWritten(
            f"{found.st_nlink} hard links name this file: not fixed (replacing it would split "
            "them, writing into it would change the other names too; --diff shows the fix)"
        )
    mode = stat.S_IMODE(found.st_mode)
    if not mode & 0o222:
        raise NotWritten(
            f"read-only (mode {mode:04o}): not fixed (make it writable to let --fix change "
            "it; --diff shows the fix)"
        )
    if not os.access(real, os.W_OK):
        raise NotWritten(
            f"not writable by this user (mode {mode:04o}, owner {found.st_uid}): not fixed "
            "(--diff shows the fix)"
        )


def write_fixed(path: str, data: bytes) -> None:
    """Replace the file ``path`` names (through symbolic links) with ``data``, keeping its
    mode, owner and group; :class:`NotWritten` or OSError leave it unchanged."""
    real = os.path.realpath(path)
    found = os.stat(real)
    folder, name = os.path.split(real)
    handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".gpulint-fix")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        _keep_owner(temp, found)
        os.chmod(temp, stat.S_IMODE(found.st_mode))  # after chown, which clears set-id bits
        os.replace(temp, real)
    except BaseException:  # KeyboardInterrupt too: the old file stays
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _keep_owner(temp: str, found: os.stat_result) -> None:
    made = os.stat(temp)
    if (made.st_uid, made.st_gid) == (found.st_uid, found.st_gid):
        return
    try:
        os.chown(temp, found.st_uid, found.st_gid)
    except PermissionError:
        raise NotWritten(
            f"owned by {found.st_uid}:{found.st_gid}, which this user cannot give a new file: "
            "not fixed (--diff shows the fix)"
        ) from None
