"""The streamed JSON writer gives exactly the text of ``json.dumps(..., indent=2)``."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gpulint.report.streaming import dump, encode
from tests.helpers import BUDGET

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
KEYS = st.text() | st.integers() | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@BUDGET
@given(VALUES)
def test_encode_writes_what_json_dumps_writes(value):
    assert encode(value) == json.dumps(value, indent=2)


@BUDGET
@given(
    st.lists(VALUES, max_size=5),
    st.dictionaries(st.text().filter(lambda k: k not in ("version", "runs")), VALUES, max_size=3),
)
def test_a_streamed_list_reads_as_the_whole_document(items, rest):
    document = {"version": 1, "runs": [{"tool": {"name": "x"}, "results": None}], **rest}
    expected = json.dumps(
        {**document, "runs": [{"tool": {"name": "x"}, "results": items}]}, indent=2
    )
    assert "".join(dump(document, iter(items), "runs", "0", "results")) == expected
