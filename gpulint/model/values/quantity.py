"""Kubernetes resource quantities as exact numbers, decoded the way the API server does.

A quantity is an ``int`` when it is whole (nearly always) and a ``Fraction`` otherwise:
both compare, add and format exactly, and ``fractions`` (with the ``decimal`` it imports:
~3.5 ms of a one-file run) is imported only for the first quantity that is not whole.

A value travels YAML -> JSON -> ``resource.Quantity`` (kubernetes/kubernetes
staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go, read at commit
009f4971; the statements quoted are that file's):

- ``UnmarshalJSON``: JSON ``null`` is the zero quantity, no error; a
  string loses its quotes and ``strings.TrimSpace``, and is parsed by
  ``ParseQuantity``. The JSON bytes are still escaped: a tab, newline or carriage
  return inside the string arrive as ``\\t``, ``\\n``, ``\\r`` and are not trimmed,
  so ``"1\\t"`` is rejected while ``" 1"`` (and a no-break space) is read as 1
  (``parsed, err := ParseQuantity(strings.TrimSpace(string(value)))``).
- ``parseQuantityString``: an optional sign, digits, an optional ``.``
  and digits, a run of the letters ``eEinumkKMGTP``, an optional sign and digits;
  anything else is ``ErrFormatWrong``. Every part may be empty: ``+``, ``.`` and
  ``Ki`` are all zero.
- ``quantitySuffixer.interpret`` (suffix.go): ``Ki``..``Ei``, ``n u m k M G T P E``,
  nothing, or ``e``/``E`` and an integer exponent; any other suffix is ``ErrSuffix``.
- ``ParseQuantity``: the value is rounded up, away from zero, to
  nano precision (``amount.Round(amount, Nano.infScale(), inf.RoundUp)``, l. 345):
  ``0.9999999999999`` is 1 and ``1.000...001`` is 1.000000001.

What YAML gives the JSON side (plain scalars: go-yaml v2 resolve.go, which
sigs.k8s.io/yaml uses) is :mod:`gpulint.yaml.scalars`' job. ``YAMLToJSON`` passes no
target, so values reach ``json.Marshal`` unchanged (kubernetes-sigs/yaml yaml.go,
``yamlToJSONTarget(y, nil, yaml.Unmarshal)``): a float arrives as Go's shortest
decimal, which is Python's ``repr`` too, and null as JSON null.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Union

from gpulint.core.lazy_re import lazy

if TYPE_CHECKING:
    from fractions import Fraction

# An exact amount: whole (an int) or not (a Fraction).
Amount = Union[int, "Fraction"]

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
# Each decimal suffix as (numerator, denominator).
_DECIMAL = {
    "n": (1, 10**9),
    "u": (1, 10**6),
    "m": (1, 1000),
    "": (1, 1),
    "k": (10**3, 1),
    "M": (10**6, 1),
    "G": (10**9, 1),
    "T": (10**12, 1),
    "P": (10**15, 1),
    "E": (10**18, 1),
}
_NANOS = 10**9  # nano units in one: quantities are exact to nano precision

# parseQuantityString as one expression: every group may be empty.
_SCANNED = lazy(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?P<suffix>[eEinumkKMGTP]*[-+]?[0-9]*)\Z"
)
_EXPONENT = lazy(r"[eE](?P<exp>[-+]?[0-9]+)\Z")
# ErrFormatWrong's text (quantity.go l. 146).
FORMAT_WRONG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_WRONG = "unable to parse quantity's suffix"
# What strings.TrimSpace removes that encoding/json leaves unescaped: the space and
# the Unicode spaces above U+007F (control characters and U+2028/U+2029 are escaped).
_TRIMMED = " \u0085\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"

# Longer numbers are hostile input: Python refuses to convert (or print) integers
# beyond 4,300 digits, and no GPU, CPU or memory amount needs more than a few dozen.
_MAX_DIGITS = 100


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


def parse_quantity(value: object) -> Amount:
    """Exact value of a quantity; raises QuantityError for null, garbage or out of range.

    Null is an error here (a missing amount) although the API server reads it as 0:
    :func:`decodes_to_zero` says when that is what happens."""
    if type(value) in (int, str):  # the usual cases; remembered, as every rule asks again
        found = _cached(value)
        if isinstance(found, QuantityError):
            raise QuantityError(str(found))
        return found
    return _parse(value)


def decodes_to_zero(value: object) -> bool:
    """JSON null (YAML ``null``, ``~`` or nothing) decodes to the zero quantity."""
    return value is None


@functools.lru_cache(maxsize=4096, typed=True)
def _cached(value: int | str) -> Amount | QuantityError:
    try:
        return _parse(value)
    except QuantityError as exc:
        return exc


def _parse(value: object) -> Amount:
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"{_show(value)} is not a quantity")
    if isinstance(value, int):
        if value.bit_length() > 3 * _MAX_DIGITS:
            raise QuantityError("an integer with more than 100 digits is out of range")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):  # YAMLToJSON itself fails: JSON has no infinity
            raise QuantityError(f"{value} is not a quantity")
        return _parse_text(repr(value))  # Go's shortest decimal is Python's repr
    if not isinstance(value, str):
        raise QuantityError(f"a {type(value).__name__} is not a quantity")
    return _parse_text(value)


def _parse_text(value: str) -> Amount:
    text = value.strip(_TRIMMED)
    found = _SCANNED.match(text) if text else None
    if found is None:
        raise QuantityError(f'{_show(value)} is not a quantity ("{FORMAT_WRONG}")')
    digits = found.group("int") + (found.group("frac") or "")
    if len(digits) > _MAX_DIGITS:
        raise QuantityError(f"{_show(value[:20] + '...')} is out of range")
    numerator, denominator = _multiplier(found.group("suffix"), value)
    numerator *= int(digits or "0")
    denominator *= 10 ** len(found.group("frac") or "")
    negative = found.group("sign") == "-"
    return _amount(-numerator if negative else numerator, denominator)


def _multiplier(suffix: str, value: str) -> tuple[int, int]:
    """The suffix's factor as (numerator, denominator)."""
    if suffix in _BINARY:
        return _BINARY[suffix], 1
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    exponent = _EXPONENT.match(suffix)
    if exponent is None:
        raise QuantityError(f"{_show(value)} is not a quantity ({SUFFIX_WRONG})")
    power = int(exponent.group("exp"))
    if abs(power) > 100:
        raise QuantityError(f"{_show(value)} is out of range")
    return (10**power, 1) if power >= 0 else (1, 10**-power)


def _amount(numerator: int, denominator: int) -> Amount:
    """``numerator / denominator`` rounded up, away from zero, to nano precision
    (ParseQuantity's inf.RoundUp): an int when whole, else a Fraction."""
    nanos, rest = divmod(abs(numerator) * _NANOS, denominator)
    nanos += 1 if rest else 0
    if numerator < 0:
        nanos = -nanos
    if nanos % _NANOS == 0:
        return nanos // _NANOS
    # Only for a quantity that is not whole (LAZY in tests/project/test_import_contract.py).
    from fractions import Fraction

    return Fraction(nanos, _NANOS)


def _show(value: object) -> str:
    if value is None:
        return "null"
    if value == "":
        return 'empty string ""'
    return repr(value) if isinstance(value, str) else str(value)


def format_quantity(value: Amount) -> str:
    """The exact decimal (values are rounded to nano precision, so it is finite)."""
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    scaled = (-value if value < 0 else value) * 10**9
    if scaled.denominator != 1:  # not from a quantity: the nearest float will do
        return str(float(value))
    whole, part = divmod(scaled.numerator, 10**9)
    return f"{sign}{whole}.{part:09d}".rstrip("0")
