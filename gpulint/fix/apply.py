"""Edits -> new text; the file's own line breaks and byte order mark kept.

The linted text has every line break as LF (sources.decode); the file may have CRLF,
CR or a mix. The fixed text is mapped back line by line: a line that did not change is
written with its original bytes, a changed or new line takes the line break of the line
it replaces or follows.
"""

from __future__ import annotations

import codecs
import difflib
import re
from collections.abc import Iterable

from gpulint.core.findings import Edit

_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


def overlap(a: Edit, b: Edit) -> bool:
    """Whether two edits touch the same text (two insertions at one place do)."""
    return a.offset == b.offset or (a.offset < b.end and b.offset < a.end)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (offsets into ``text``)."""
    out = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.offset, e.end)):
        if edit.offset < at:
            raise ValueError("overlapping edits")
        out.append(text[at : edit.offset])
        out.append(edit.text)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


def decode(data: bytes) -> tuple[str, bytes] | None:
    """(text with its original line breaks, byte order mark); None if not UTF-8."""
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    try:
        return data[len(bom) :].decode("utf-8"), bom
    except UnicodeDecodeError:
        return None


def _lines(text: str) -> list[tuple[str, str]]:
    """(content, line break) of every line; the last one's break may be ''."""
    found = [(m.group(1), m.group(2)) for m in _LINE.finditer(text)]
    if found and found[-1] == ("", ""):
        found.pop()
    return found


def restore_breaks(original: str, fixed_lf: str) -> str:
    """``fixed_lf`` (LF breaks) with the line breaks of ``original`` where lines match."""
    if "\r" not in original:
        return fixed_lf  # LF throughout: nothing to map back
    old = _lines(original)
    new = _lines(fixed_lf)
    crlf = sum(1 for _c, br in old if br == "\r\n")
    default = "\r\n" if crlf * 2 > len(old) else "\n"
    matcher = difflib.SequenceMatcher(None, [c for c, _b in old], [c for c, _b in new], False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            content, lf = new[j1 + k]
            if tag in ("equal", "replace") and i1 + k < i2:
                brk = old[i1 + k][1]  # the line it replaces
            else:
                before = i2 if tag == "replace" else i1  # the original line it follows
                brk = (old[before - 1][1] if before > 0 else "") or default
            if not lf:
                brk = ""  # the fixed text ends without a break here
            elif not brk:
                brk = default
            out.append(content + brk)
    return "".join(out)
