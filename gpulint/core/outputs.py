"""Where reports go: standard output, or files replaced only when complete.

A report file is written to a temporary file beside it and renamed over it once
the last byte is written, so an interrupted or failed run leaves the old file as it
was. A path that is not a regular file (a FIFO, ``/dev/full``) or that names an open
descriptor (``/dev/stdout``) is written in place: it cannot be renamed over. Every
failure is an :class:`OutputError` naming the output, never a finding count.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from typing import Literal, TextIO

from gpulint.core.findings import printable

STDOUT = "standard output"


class OutputError(Exception):
    """An output that could not be written: ``cannot write <name>: <reason>``."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"cannot write {name}: {reason}")
        self.name = name


class PipeClosed(OutputError):
    """Standard output is a pipe whose reader stopped reading (``gpulint check . | head``):
    what it wanted was read; nothing to report."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc) or type(exc).__name__


def descriptor_link(path: str) -> bool:
    """Whether ``path`` names an open file of this process (``/dev/stdout``, ``/dev/fd/1``,
    ``/proc/self/fd/1``: links into ``/proc``), whatever the descriptor is: a terminal, a
    pipe, or a file the shell redirected it to (``> report.txt``)."""
    try:
        if os.readlink(path).startswith("/proc/"):
            return True
    except OSError:
        pass  # not a link
    return os.path.realpath(os.path.dirname(os.path.abspath(path))).startswith("/proc/")


def _in_place(path: str) -> bool:
    """Written where it is: a device, a FIFO, or an open descriptor (replacing the file a
    shell redirected stdout to would leave the shell's descriptor on the old one)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) or descriptor_link(path)
    except OSError:
        return False  # does not exist yet: created by the rename


def write_file(path: str, fill: Callable[[TextIO], None]) -> None:
    """Call ``fill`` with a text stream whose content replaces ``path`` when complete."""
    name = printable(path)
    if _in_place(path):
        # An open descriptor is appended to, as the process's own writes to it are: a
        # shell's `> file` then holds everything written, in order.
        mode: Literal["a", "w"] = "a" if descriptor_link(path) else "w"
        try:
            with open(path, mode, encoding="utf-8", errors="backslashreplace") as handle:
                fill(handle)
        except (OSError, ValueError) as exc:
            raise OutputError(name, _reason(exc)) from None
        return
    target = os.path.realpath(path)  # through a symlink to the file it names
    folder = os.path.dirname(target) or "."
    import tempfile  # only when a report goes to a file

    try:
        fd, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OutputError(name, _reason(exc)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            fill(handle)
        os.chmod(temporary, _mode(target))
        os.replace(temporary, target)
    except BaseException as exc:  # KeyboardInterrupt too: the old file stays
        _remove(temporary)
        if isinstance(exc, OSError | ValueError):
            raise OutputError(name, _reason(exc)) from None
        raise


def _mode(target: str) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)  # replacing a file keeps its mode
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_stdout(fill: Callable[[TextIO], None]) -> None:
    """Write to standard output; a closed or broken stdout is an OutputError."""
    stream = sys.stdout
    if stream is None:
        raise OutputError(STDOUT, "it is closed")
    try:
        if hasattr(stream, "reconfigure"):
            # An ASCII or strict terminal still gets every finding, escaped.
            stream.reconfigure(errors="backslashreplace")
        fill(stream)
        stream.flush()
    except (OSError, ValueError) as exc:
        _silence_stdout()
        if isinstance(exc, BrokenPipeError):
            raise PipeClosed(STDOUT, _reason(exc)) from None
        raise OutputError(STDOUT, _reason(exc)) from None


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null: the interpreter's own flush at exit
    would fail again and print a traceback (see the signal module's docs on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        sys.stdout = None
