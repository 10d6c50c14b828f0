"""Text from input made safe for terminals and CI logs.

File names, keys and values reach human-readable output inside messages; a raw
ESC starts a terminal escape sequence and a raw newline forges a line (a GitHub
``::add-mask::`` workflow command in a CI log). Control characters, the Unicode
line separators, bidirectional overrides ("Trojan source") and the surrogates that
stand for the bytes of a file name that is not UTF-8 are written as backslash escapes.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for one byte that is not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return _NAMED.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every unsafe character escaped, except those in ``keep``."""
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)


# A safety net: rules quote values cut short (quoted()), but a message must never grow
# with a value's length. Long enough for a --verbose list of every node of a cluster.
MAX_MESSAGE = 65_536


def quoted(value: object, limit: int = 60) -> str:
    """A value from input for a message: quoted, escaped, and cut to ``limit`` characters,
    so a finding never repeats a long value (or a secret) whole."""
    text = printable(str(value))
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "'" + text.replace("'", "\\'") + "'"


def bounded(message: str) -> str:
    """``message`` cut to :data:`MAX_MESSAGE` characters: output grows with the input's
    findings, never with the length of the values they quote."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[: MAX_MESSAGE - 40]}... ({len(message) - MAX_MESSAGE + 40} characters cut)"
