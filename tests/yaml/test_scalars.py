"""YAML 1.1 plain scalars (gpulint/yaml/scalars.py): the hex, binary, octal and float
patterns are tried only on text they can match (digits that start 0 and go on as one of
them can; only the characters of a float); those tests change no answer."""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys

from gpulint.yaml import scalars
from gpulint.yaml.scalars import resolve_plain

_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z")
_OCT = re.compile(r"[-+]?0[0-7_]+\Z")
_OCT_O = re.compile(r"[-+]?0[oO][0-7_]+\Z")
_HEX = re.compile(r"[-+]?0[xX][0-9a-fA-F_]+\Z")
_BIN = re.compile(r"[-+]?0[bB][01_]+\Z")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?\Z")


def _eager(text: str) -> object:
    """resolve_plain as it was written before, every pattern tried in turn."""
    if not text:
        return None
    first = text[0]
    if first not in scalars._MAYBE_TYPED:
        return text
    if first in scalars._WORDY:
        if text in scalars._NULLS:
            return None
        if text in scalars._TRUE:
            return True
        if text in scalars._FALSE:
            return False
        return text
    try:
        if _INT.match(text):
            return int(text.replace("_", ""))
        if _HEX.match(text):
            return int(text.replace("_", ""), 16)
        if _BIN.match(text):
            return int(text.replace("_", ""), 2)
        if _OCT.match(text) or _OCT_O.match(text):
            return int(text.replace("_", ""), 8)
    except ValueError:
        return text
    if text in scalars._SPECIAL_FLOATS:
        return scalars._SPECIAL_FLOATS[text]
    if _FLOAT.match(text) and any(c.isdigit() for c in text):
        try:
            return float(text.replace("_", ""))
        except ValueError:
            return text
    return text


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


def test_every_short_scalar_resolves_as_with_every_pattern_tried():
    alphabet = "+-0189xXbBoOa_.eEGim "
    numbers = 0
    for size in range(1, 5):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            value, expected = resolve_plain(text), _eager(text)
            assert _same(value, expected), text
            numbers += isinstance(expected, int | float) and not isinstance(expected, bool)
    assert numbers > 1000


def test_a_manifest_without_such_numbers_compiles_none_of_their_patterns():
    code = (
        "from gpulint.yaml import scalars as s\n"
        "for t in ('1', '0', '-1', '64Gi', '10', '+1', '500m', '.inf', '3.5Gi'):\n"
        "    s.resolve_plain(t)\n"
        "print(*(p._compiled for p in (s._HEX, s._BIN, s._OCT, s._OCT_O, s._FLOAT)))\n"
        "print(s.resolve_plain('0x1f'), s.resolve_plain('-0o17'), s.resolve_plain('0b11'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["None None None None None", "31 -15 3"]
