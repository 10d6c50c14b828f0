"""GPU quantities decoded the way the API server decodes them: a table of YAML values
and what Kubernetes makes of them.

Sources (read in kubernetes/kubernetes and kubernetes-sigs/yaml; see
gpulint/model/values/quantity.py and gpulint/yaml/scalars.py for the statements):
go-yaml v2 resolve.go (plain scalars: ``strconv.ParseInt(plain, 0, 64)`` after
dropping ``_``), sigs.k8s.io/yaml ``YAMLToJSON`` (values reach ``json.Marshal``
unchanged), apimachinery ``Quantity.UnmarshalJSON`` (null is zero; quotes stripped,
then ``strings.TrimSpace`` of the still-escaped bytes) and ``ParseQuantity`` (the
scanner, the suffixes, rounding up to nano precision).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpulint.model.values.quantity import QuantityError, format_quantity, parse_quantity
from tests.helpers import lint

FORMAT_WRONG = "quantities must match the regular expression"
# (the value as written after `nvidia.com/gpu: `, what Kubernetes reads, or the error)
TABLE = [
    # go-yaml: ParseInt base 0 reads every prefix, in either case
    ("0o1", Fraction(1)),
    ("0O1", Fraction(1)),
    ("0X1", Fraction(1)),
    ("0B1", Fraction(1)),
    ("0x10", Fraction(16)),
    ("010", Fraction(8)),
    ("1_0", Fraction(10)),
    ("08", Fraction(8)),  # not octal: a YAML float, 8.0, JSON 8
    ("1.", Fraction(1)),  # yamlStyleFloat
    ("1e3", Fraction(1000)),
    ('"0x1"', FORMAT_WRONG),  # a string: ParseQuantity knows no prefixes
    # UnmarshalJSON: TrimSpace of the escaped JSON bytes
    ('" 1"', Fraction(1)),
    ('"1 "', Fraction(1)),
    ('"\\u00a01"', Fraction(1)),  # a no-break space is not escaped, and is trimmed
    ('"1\\t"', FORMAT_WRONG),
    ('"1\\n"', FORMAT_WRONG),
    ('"\\t1"', FORMAT_WRONG),
    ('"1\\r"', FORMAT_WRONG),
    ('"1\\u2028"', FORMAT_WRONG),  # escaped by encoding/json
    ('""', FORMAT_WRONG),
    # parseQuantityString: every part may be empty
    ('"+"', Fraction(0)),
    ('"."', Fraction(0)),
    ('"Ki"', Fraction(0)),
    ('"1E"', Fraction(10**18)),
    ('"1e"', "unable to parse quantity's suffix"),
    ('"1Ki3"', "unable to parse quantity's suffix"),
    ('"1.2.3"', FORMAT_WRONG),
    # ParseQuantity rounds up to nano precision
    ('"0.9999999999999"', Fraction(1)),
    ('"1.000000000000000000000000000001"', Fraction(1_000_000_001, 10**9)),
    ("1.000000000000000000000000000001", Fraction(1)),  # plain: a float64, exactly 1.0
    ('"1e-10"', Fraction(1, 10**9)),
]


def _decoded(text: str):
    """The value the YAML text decodes to, through gpulint's own YAML reader."""
    from gpulint.core.sources import decode
    from gpulint.yaml.parse import documents

    source = decode("q.yaml", f"v: {text}\n".encode())
    [doc] = list(documents(source, []))
    return doc.data["v"]


@pytest.mark.parametrize("text, expected", TABLE, ids=[t for t, _ in TABLE])
def test_quantities_decode_as_kubernetes_decodes_them(text, expected):
    value = _decoded(text)
    if isinstance(expected, Fraction):
        assert parse_quantity(value) == expected
    else:
        with pytest.raises(QuantityError, match=expected.replace("(", r"\(")):
            parse_quantity(value)


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: VALUE
"""


def _gpu103(tmp_path, value: str) -> list[tuple[int, int, str]]:
    found = lint(tmp_path, POD.replace("VALUE", value), "--select", "GPU103")
    return [(f["line"], f["column"], f["message"]) for f in found]


@pytest.mark.parametrize("value", ["0o1", "0O1", "0X1", "0B1", '" 1"'])
def test_go_yaml_integers_are_valid_gpu_counts(tmp_path, value):
    assert _gpu103(tmp_path, value) == []


@pytest.mark.parametrize("value", ['"1\\t"', '"1\\n"', '"\\t1"', '"1\\r"'])
def test_control_whitespace_is_rejected(tmp_path, value):
    [(line, column, message)] = _gpu103(tmp_path, value)
    assert (line, column) == (11, 27)
    assert message.startswith("nvidia.com/gpu limit '1") or message.startswith(
        "nvidia.com/gpu limit '\\t"
    )
    assert FORMAT_WRONG in message


@pytest.mark.parametrize("value", ["null", "", "~"])
def test_null_decodes_to_zero_and_says_so(tmp_path, value):
    [(_, _, message)] = _gpu103(tmp_path, value)
    assert message == (
        "nvidia.com/gpu limit is empty (null), which the API server reads as 0: the container "
        "gets no GPU; write the count"
    )


def test_thirty_decimals_shows_the_value_kubernetes_holds(tmp_path):
    [(_, _, message)] = _gpu103(tmp_path, '"1.000000000000000000000000000001"')
    assert message == "nvidia.com/gpu limit 1.000000001 must be an integer"


@pytest.mark.parametrize(
    "value, shown", [(Fraction(3, 2), "1.5"), (Fraction(-1, 10**9), "-0.000000001"), (4, "4")]
)
def test_format_quantity_is_exact(value, shown):
    assert format_quantity(Fraction(value)) == shown
