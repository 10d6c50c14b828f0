"""A release's values merged from several places (yaml/layered.py): Helm's merge, --set
points, and which layer wrote what a path reports."""

from __future__ import annotations

import gpulint.yaml.layered as layered
from gpulint.yaml.embedded import INSIDE
from gpulint.yaml.layered import MAX_PADDING, Layer, Layered


def _view(*layers: Layer) -> Layered:
    return Layered("k", ("spec",), layers, "test")


def test_mappings_merge_key_by_key_anything_else_replaces():
    low = Layer({"a": {"x": 1, "y": 2}, "list": [1, 2, 3], "gone": 1}, host=("low",))
    high = Layer({"a": {"y": 3}, "list": [9], "gone": None}, host=("high",))
    assert _view(low, high).values == {"a": {"x": 1, "y": 3}, "list": [9], "gone": None}
    assert low.values["a"] == {"x": 1, "y": 2}  # the layers themselves are left alone


def test_points_set_one_value_and_pad_lists():
    base = Layer({"tolerations": [{"key": "a"}, {"key": "b"}]}, host=("base",))
    first = Layer("c", at=("tolerations", 1, "key"), point=True, host=("p", 0, "value"))
    far = Layer(True, at=("extra", 2), point=True, host=("p", 1, "value"))
    values = _view(base, first, far).values
    assert values["tolerations"] == [{"key": "a"}, {"key": "c"}]
    assert values["extra"] == [None, None, True]


def test_the_owner_of_a_path_is_the_last_layer_that_wrote_it():
    low = Layer({"a": {"x": 1, "y": 2}}, host=("low",))
    high = Layer({"a": {"y": 3}}, host=("high",))
    point = Layer(4, at=("b", "c"), point=True, host=("p", "value"), host_key=("p", "name"))
    view = _view(low, high, point)
    assert view.owner(("a", "x")) == (low, ("a", "x"), True)
    assert view.owner(("a", "y")) == (high, ("a", "y"), True)
    assert view.owner(("a",)) == (high, ("a",), True)
    assert view.owner(("b", "c")) == (point, (), True)
    assert view.owner(("a", "z")) == (high, ("a",), False)  # past what exists: the deepest
    assert view.owner(())[0] is high  # the root: the last mapping layer
    layer, _rest, exact = view.owner(("b",))  # a mapping only the point's path makes
    assert layer is point and not exact


def test_a_string_holding_yaml_is_read_inside():
    text = "migStrategy: mixd\n"
    layer = Layer({"values": text}, host=("spec",))
    assert _view(layer).owner(("values", INSIDE, "migStrategy")) == (
        layer,
        ("values", "migStrategy"),
        True,
    )


def test_list_padding_is_bounded_for_the_whole_release():
    # strvals bounds each index (65,536), not their sum: three far indexes would pad 196,608
    # nulls (3,000 such parameters held 1.5 GB); past the bound a parameter is not read.
    far = [Layer("x", at=(f"a{i}", MAX_PADDING - 10), point=True, host=("p", i)) for i in range(3)]
    near = Layer("y", at=("b", 3), point=True, host=("p", 9))
    values = _view(*far, near).values
    assert len(values["a0"]) == MAX_PADDING - 9  # its nulls and the value
    assert "a1" not in values and "a2" not in values  # not read: the padding is spent
    assert values["b"] == [None, None, None, "y"]  # 3 of the 10 nulls left


def test_placing_every_parameter_of_a_release_is_linear(monkeypatch):
    """A release with thousands of parameters and a finding at each: the owner of a path is
    looked for among the layers that can hold it, not among all of them (count, not time)."""
    calls = 0
    below = layered._below

    def counted(layer, found):
        nonlocal calls
        calls += 1
        return below(layer, found)

    monkeypatch.setattr(layered, "_below", counted)

    def cost(n: int) -> int:
        nonlocal calls
        calls = 0
        base = Layer({"image": {"tag": "v1"}}, host=("base",))
        points = [Layer(i, at=(f"k{i}",), point=True, host=("p", i)) for i in range(n)]
        view = _view(base, *points)
        for i in range(n):
            assert view.owner((f"k{i}",))[0] is points[i]
        return calls

    small, large = cost(500), cost(1000)
    assert large <= 2.2 * small, (small, large)
