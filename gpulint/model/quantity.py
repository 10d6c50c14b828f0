"""Kubernetes resource quantities as exact fractions.

Grammar (k8s.io/apimachinery/pkg/api/resource): a signed decimal number, then a
binary suffix (Ki..Ei), a decimal suffix (n, u, m, "", k, M, G, T, P, E) or a
decimal exponent (e3, E-2). YAML numbers are accepted as they decode.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE](?P<exp>[+-]?[0-9]+))?\Z"
)


# Longer numbers are hostile input: Python refuses to convert (or print) integers
# beyond 4,300 digits, and no GPU, CPU or memory amount needs more than a few dozen.
_MAX_DIGITS = 100


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


def parse_quantity(value: object) -> Fraction:
    """Exact value of a quantity; raises QuantityError for null, empty or garbage."""
    if type(value) in (int, str):  # the usual cases; remembered, as every rule asks again
        found = _cached(value)
        if isinstance(found, QuantityError):
            raise QuantityError(str(found))
        return found
    return _parse(value)


@functools.lru_cache(maxsize=4096, typed=True)
def _cached(value: int | str) -> Fraction | QuantityError:
    try:
        return _parse(value)
    except QuantityError as exc:
        return exc


def _parse(value: object) -> Fraction:
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"{_show(value)} is not a quantity")
    if isinstance(value, int):
        if value.bit_length() > 3 * _MAX_DIGITS:
            raise QuantityError("an integer with more than 100 digits is out of range")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"{value} is not a quantity")
        return Fraction(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"a {type(value).__name__} is not a quantity")
    match = _QUANTITY.match(value.strip())
    if not match or not value.strip():
        raise QuantityError(f"{_show(value)} is not a quantity")
    if len(match.group("number")) > _MAX_DIGITS:
        raise QuantityError(f"{_show(value[:20] + '...')} is out of range")
    number = Fraction(match.group("number"))
    if match.group("exp") is not None:
        exponent = int(match.group("exp"))
        if abs(exponent) > 100:
            raise QuantityError(f"{_show(value)} is out of range")
        return number * Fraction(10) ** exponent
    suffix = match.group("suffix") or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    return number * _DECIMAL[suffix]


def _show(value: object) -> str:
    if value is None:
        return "null"
    if value == "":
        return 'empty string ""'
    return repr(value) if isinstance(value, str) else str(value)


def format_quantity(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return str(float(value))
