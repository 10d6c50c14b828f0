"""kustomize's ``valuesMerge: merge`` (mergo without override): what the inline values add
under a values file (``gpulint/yaml/mergo_fill.py``)."""

from __future__ import annotations

import pytest

from gpulint.yaml.layered import Layer, merged
from gpulint.yaml.mergo_fill import fill


def test_kustomizes_own_values_merge_case():
    # plugin/builtin/helmchartinflationgenerator/HelmChartInflationGenerator_test.go,
    # TestHelmChartInflationGeneratorValuesMerge: the file's values kept, the inline ones
    # fill what is absent or null, mappings merged key by key, the file's list kept
    base = {"a": 1, "b": 2, "c": None, "list": ["a", "b"], "map": {"a": 4, "b": 5, "c": None}}
    inline = {"a": 4, "c": 3, "list": ["c"], "map": {"a": 7, "c": 6}}
    added = fill(base, inline)
    assert added == {"c": 3, "map": {"c": 6}}
    result = merged((Layer(base), Layer(added)))
    assert result == {"a": 1, "b": 2, "c": 3, "list": ["a", "b"], "map": {"a": 4, "b": 5, "c": 6}}


def test_an_inline_null_adds_nothing_and_an_empty_mapping_is_filled_key_by_key():
    assert fill({"a": 1}, {"a": None, "b": None}) == {}
    assert fill({"m": {}}, {"m": {"x": 1, "y": None}}) == {"m": {"x": 1}}


@pytest.mark.parametrize("empty", [False, 0, 0.0, "", [], {}])
def test_an_empty_file_value_under_an_inline_one_is_not_established(empty):
    # mergo v0.3.7 keeps it (a non-nil interface is not empty), later versions replace it
    assert fill({"k": empty}, {"k": "set"}) is None
    assert fill({"top": {"k": empty}}, {"top": {"k": 1}}) is None


def test_a_value_the_file_holds_is_kept_whatever_the_inline_one():
    base = {"k": True, "n": 3, "s": "x", "l": [1]}
    assert fill(base, {"k": False, "n": 0, "s": "", "l": []}) == {}
