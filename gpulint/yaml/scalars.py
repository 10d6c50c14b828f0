"""Plain YAML scalars resolved the way the Kubernetes API server reads them.

The API server decodes YAML with sigs.k8s.io/yaml on go-yaml v2: YAML 1.1 rules,
so ``yes``/``on`` are booleans and ``0777`` is octal. A rule must read the value
the cluster will read, not the one a YAML 1.2 parser would produce.
"""

from __future__ import annotations

import re

from gpulint.core.lazy_re import lazy

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z")
# go-yaml v2 (resolve.go, the 'D' and 'S' hints) drops every "_" and calls
# strconv.ParseInt(plain, 0, 64): base 0 reads 0x/0X, 0o/0O, 0b/0B and a leading 0.
# Compiled when first needed: only a scalar whose digits start 0 and one of _RADIX_NEXT
# can be such a number, and most manifests hold none.
_OCT = lazy(r"[-+]?0[0-7_]+\Z")
_OCT_O = lazy(r"[-+]?0[oO][0-7_]+\Z")
_HEX = lazy(r"[-+]?0[xX][0-9a-fA-F_]+\Z")
_BIN = lazy(r"[-+]?0[bB][01_]+\Z")
_RADIX_NEXT = frozenset("xXbBoO01234567_")  # what follows the 0 of the four above
_FLOAT = lazy(r"[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?\Z")
_FLOAT_CHARS = frozenset("0123456789_.eE+-")  # all _FLOAT matches (a quantity: 64Gi, 500m: none)
_SPECIAL_FLOATS = {
    ".inf": float("inf"),
    ".Inf": float("inf"),
    ".INF": float("inf"),
    "+.inf": float("inf"),
    "-.inf": float("-inf"),
    "-.Inf": float("-inf"),
    ".nan": float("nan"),
    ".NaN": float("nan"),
    ".NAN": float("nan"),
}
# Characters a plain scalar must start with to be anything but a string.
_MAYBE_TYPED = frozenset("0123456789+-.~nNyYtTfFoO")
_WORDY = frozenset("~nNyYtTfFoO")


def resolve_plain(text: str) -> object:
    """Return None, bool, int, float or the text itself."""
    if not text:
        return None
    first = text[0]
    if first not in _MAYBE_TYPED:
        return text
    if first in _WORDY:  # only null and booleans start with a letter or ~
        if text in _NULLS:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        return text
    try:
        if _INT.match(text):
            return int(text.replace("_", ""))
        digits = text[1:] if first in "+-" else text
        if digits[:1] == "0" and digits[1:2] in _RADIX_NEXT:
            if _HEX.match(text):
                return int(text.replace("_", ""), 16)
            if _BIN.match(text):
                return int(text.replace("_", ""), 2)
            if _OCT.match(text) or _OCT_O.match(text):
                return int(text.replace("_", ""), 8)
    except ValueError:
        # More digits than Python converts (sys.get_int_max_str_digits); go-yaml
        # cannot hold such a number either and keeps the text.
        return text
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if _FLOAT_CHARS.issuperset(text) and _FLOAT.match(text) and any(c.isdigit() for c in text):
        try:
            return float(text.replace("_", ""))
        except ValueError:
            return text
    return text


def resolve_tagged(tag: str, text: str) -> object:
    """Explicit core tags are honoured; any other tag keeps the text and constructs nothing."""
    short = tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else None
    if short == "str":
        return text
    if short in ("int", "float", "bool", "null"):
        value = resolve_plain(text)
        return value
    return text
