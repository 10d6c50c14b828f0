"""YAML 1.1 plain scalars (gpulint/yaml/scalars.py): the hex, binary and octal patterns are
tried only on digits that start 0 and go on as one of them can; that test changes no answer."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys

from gpulint.yaml import scalars
from gpulint.yaml.scalars import resolve_plain

_OCT = re.compile(r"[-+]?0[0-7_]+\Z")
_OCT_O = re.compile(r"[-+]?0[oO][0-7_]+\Z")
_HEX = re.compile(r"[-+]?0[xX][0-9a-fA-F_]+\Z")
_BIN = re.compile(r"[-+]?0[bB][01_]+\Z")


def _radix(text: str) -> object:
    """What the four patterns alone make of ``text`` (None: not such a number)."""
    try:
        if _HEX.match(text):
            return int(text.replace("_", ""), 16)
        if _BIN.match(text):
            return int(text.replace("_", ""), 2)
        if _OCT.match(text) or _OCT_O.match(text):
            return int(text.replace("_", ""), 8)
    except ValueError:
        return text
    return None


def test_every_short_number_in_another_base_is_read_as_before():
    alphabet = "+-0189xXbBoOa_.e "
    checked = 0
    for size in range(1, 5):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            expected = _radix(text)
            if expected is not None and not scalars._INT.match(text):
                assert resolve_plain(text) == expected, text
                checked += 1
            elif expected is None:
                value = resolve_plain(text)
                assert not isinstance(value, int) or scalars._INT.match(text), text
    assert checked > 300


def test_a_manifest_without_such_numbers_compiles_none_of_their_patterns():
    code = (
        "from gpulint.yaml import scalars as s\n"
        "for t in ('1', '0', '0.5', '-0.5', '64Gi', '10', '+1', '1e3', '.inf', '-'):\n"
        "    s.resolve_plain(t)\n"
        "print(*(p._compiled for p in (s._HEX, s._BIN, s._OCT, s._OCT_O)))\n"
        "print(s.resolve_plain('0x1f'), s.resolve_plain('-0o17'), s.resolve_plain('0b11'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["None None None None", "31 -15 3"]
