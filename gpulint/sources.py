"""A source: text plus where it came from. Decoding bytes is the only job here."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

from gpulint.findings import InputError


@dataclass
class Source:
    path: str  # the path findings name (relative to the working directory when possible)
    text: str
    origin: str = "file"  # "file", "stdin", or a renderer ("helm", "kustomize")
    # Renderers attach what maps a document back to its origin (chart dir, origin files).
    meta: dict = field(default_factory=dict)


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
    return Source(path, text, origin)


def _position_of(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
