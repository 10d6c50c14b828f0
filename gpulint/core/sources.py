"""A source: text plus where it came from. Reading and decoding bytes is the only job here.

Reading is bounded by construction: only regular files are opened (never a
pipe or device that could block or never end), and never more than
MAX_FILE_BYTES are read, from a file or from standard input.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from typing import BinaryIO

from gpulint.core.findings import InputError
from gpulint.core.record import field, record


@record
class Source:
    """Decoded text to parse, with the path findings name."""

    path: str  # the path findings name (relative to the working directory when possible)
    text: str
    origin: str = "file"  # "file", "stdin", or a renderer ("helm", "kustomize")
    # Renderers attach what maps a document back to its origin (chart dir, origin files).
    meta: dict = field(default_factory=dict)


# Far beyond any manifest, chart render or kustomize build seen in practice; a
# larger file is refused before it is read rather than held in memory.
MAX_FILE_BYTES = 32 * 1024 * 1024

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode(path: str, data: bytes, origin: str = "file") -> Source | InputError:
    """Bytes -> text, or an error that says where the first bad byte is."""
    encoding = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            break
    if encoding == "utf-8" and b"\0" in data[:8192]:
        line, column = _position_of(data, data.index(b"\0"))
        return InputError(path, "binary file (NUL byte); not YAML or JSON", line, column)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, column = _position_of(data, exc.start)
        return InputError(path, f"not valid {encoding.upper()}: {exc.reason}", line, column)
    meta = {}
    if "\r" in text:
        if text.count("\r\n") * 2 > text.count("\n"):
            meta["newline"] = "\r\n"  # what fixes write in their edits (gpulint/fix/)
        # libyaml counts CR and CRLF as line breaks; so must every raw-line scan.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return Source(path, text, origin, meta)


def _too_big(path: str, size: int) -> InputError:
    return InputError(
        path,
        f"file is {size / 2**20:.1f} MiB; gpulint reads files up to "
        f"{MAX_FILE_BYTES // 2**20} MiB (split it into smaller files)",
    )


def read_file(path: str) -> Source | InputError:
    """A regular file's text, or an error saying why it cannot be linted."""
    data = read_bytes(path)
    return data if isinstance(data, InputError) else decode(path, data)


def read_bytes(path: str) -> bytes | InputError:
    """A regular file's bytes (at most MAX_FILE_BYTES), or why they cannot be read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)  # non-blocking: opening a FIFO must not wait for a writer
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return InputError(path, "symbolic link loop (too many levels of symbolic links)")
        if os.path.islink(path) and not os.path.exists(path):
            return InputError(path, "broken symbolic link (its target does not exist)")
        return InputError(path, f"cannot read file: {exc.strerror or exc}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return InputError(path, "not a regular file (a pipe, socket or device); not read")
        if info.st_size > MAX_FILE_BYTES:
            return _too_big(path, info.st_size)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            # Ask for what stat says (a read(n) allocates n bytes up front), then for
            # anything the file grew by, up to the cap.
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += handle.read(MAX_FILE_BYTES + 1 - len(data))
    except OSError as exc:
        return InputError(path, f"cannot read file: {exc.strerror or exc}")
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # it grew while we read it
        return _too_big(path, len(data))
    return data


def read_stream(path: str, stream: BinaryIO, origin: str = "stdin") -> Source | InputError:
    """Standard input (or any stream), read up to MAX_FILE_BYTES."""
    try:
        data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return InputError(path, f"cannot read: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:
        return InputError(path, f"more than {MAX_FILE_BYTES // 2**20} MiB on standard input")
    return decode(path, data, origin)


def _position_of(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
