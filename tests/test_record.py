"""``gpulint.record.record`` behaves as ``dataclasses.dataclass`` with the same options.

Each pair below is one class body decorated both ways; every observable the project
relies on (repr text, equality, hash values, frozenness, dataclass helpers, pickling)
must come out the same.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gpulint.findings import Finding, Location, ResourceRef, Severity
from gpulint.record import record


def _pair(frozen: bool, slots: bool) -> tuple[type, type]:
    def body() -> type:
        class Point:
            """A test record."""

            x: int
            label: str = "p"
            tags: tuple = ()
            memo: dict = field(default_factory=dict, repr=False, compare=False)

            def shifted(self) -> int:
                return self.x + 1

        return Point

    return (
        dataclass(frozen=frozen, slots=slots)(body()),
        record(frozen=frozen, slots=slots)(body()),
    )


OPTIONS = [(False, False), (True, False), (True, True), (False, True)]


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_repr_eq_and_hash_match_the_dataclass(frozen: bool, slots: bool) -> None:
    made_by_dataclass, made_by_record = _pair(frozen, slots)
    for args in [(1,), (2, "q", ("a", 1)), (0, "", ())]:
        a, b = made_by_dataclass(*args), made_by_record(*args)
        assert repr(a) == repr(b) == f"{type(a).__qualname__}({', '.join(_shown(a))})"
        assert (a == made_by_dataclass(*args)) and (b == made_by_record(*args))
        assert b != made_by_record(99)
        assert (b != made_by_record(*args)) is False  # __ne__ follows __eq__
        assert b.shifted() == a.shifted()
        if frozen:
            assert hash(a) == hash(b) == hash((a.x, a.label, a.tags))  # memo: compare=False
        else:
            assert made_by_dataclass.__hash__ is made_by_record.__hash__ is None
            with pytest.raises(TypeError):
                hash(b)


def _shown(obj: Any) -> list[str]:
    return [f"{f.name}={getattr(obj, f.name)!r}" for f in dataclasses.fields(obj) if f.repr]


def test_a_field_left_out_of_compare_is_left_out_of_equality() -> None:
    _, made = _pair(True, True)
    assert made(1, memo={"a": 1}) == made(1, memo={"b": 2})


def test_instances_of_another_class_are_never_equal() -> None:
    _, first = _pair(True, False)
    _, second = _pair(True, False)
    assert first(1) != second(1)
    assert first(1) != (1, "p", ())
    assert first(1).__eq__(second(1)) is NotImplemented


@pytest.mark.parametrize("slots", [False, True])
def test_frozen_records_refuse_assignment_as_dataclasses_do(slots: bool) -> None:
    _, made = _pair(True, slots)
    point = made(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_dataclass_helpers_and_copies_work(frozen: bool, slots: bool) -> None:
    _, made = _pair(frozen, slots)
    point = made(1, "q")
    assert dataclasses.is_dataclass(made)
    assert [f.name for f in dataclasses.fields(made)] == ["x", "label", "tags", "memo"]
    assert dataclasses.replace(point, x=5) == made(5, "q")
    assert dataclasses.asdict(point) == {"x": 1, "label": "q", "tags": (), "memo": {}}
    assert copy.deepcopy(point) == point
    assert made.__doc__ == "A test record."
    assert hasattr(point, "__dict__") is not slots


def test_a_recursive_value_shows_as_dots() -> None:
    _, made = _pair(False, False)
    point = made(1)
    point.tags = (point,)
    assert repr(point) == f"{made.__qualname__}(x=1, label='p', tags=(...,))"


def test_methods_the_class_defines_are_kept() -> None:
    @record(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert repr(Named("A")) == "<A>"
    assert Named("A") == Named("a") and hash(Named("A")) == hash(Named("a"))


def test_project_records_pickle_and_compare_as_before() -> None:
    """The classes the engine sends to worker processes."""
    location = Location("a.yaml", 3, 5, 3, 9)
    finding = Finding(
        "GPU101",
        "gpu-limit-missing",
        Severity.ERROR,
        "m",
        location,
        "/spec",
        ResourceRef("Pod", "p"),
    )
    assert pickle.loads(pickle.dumps(finding)) == finding
    assert hash(pickle.loads(pickle.dumps(location))) == hash(location)
    assert repr(location) == ("Location(file='a.yaml', line=3, column=5, end_line=3, end_column=9)")


def test_every_class_of_gpulint_is_a_documented_record() -> None:
    """A class without a docstring gets one from ``inspect.signature`` at import (~0.1 ms
    each, start-up); ``@dataclass`` in gpulint/ compiles three more methods than a record."""
    root = Path(__file__).resolve().parents[1] / "gpulint"
    undocumented, dataclasses_left = [], []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            where = f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"
            if any(d.startswith("dataclass") for d in decorators):
                dataclasses_left.append(where)
            if any(d.startswith("record") for d in decorators) and not ast.get_docstring(node):
                undocumented.append(where)
    assert dataclasses_left == [], "use @record (gpulint/record.py) in gpulint/"
    assert undocumented == [], "give each record a docstring"
