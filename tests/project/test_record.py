"""``gpulint.core.record.record`` behaves as ``dataclasses.dataclass`` with the same options.

Each pair below is one class body decorated both ways; every observable the project
relies on (repr text, equality, hash values, frozenness, dataclass helpers, pickling)
must come out the same.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gpulint.core import record as records
from gpulint.core.findings import Finding, Location, ResourceRef, Severity
from gpulint.core.record import record


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


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_init_matches_the_dataclass(frozen: bool, slots: bool) -> None:
    made_by_dataclass, made_by_record = _pair(frozen, slots)
    assert str(inspect.signature(made_by_record)) == str(inspect.signature(made_by_dataclass))
    assert made_by_record.__init__.__qualname__ == made_by_dataclass.__init__.__qualname__
    point = made_by_record(tags=("t",), x=3)
    assert (point.x, point.label, point.tags, point.memo) == (3, "p", ("t",), {})
    assert made_by_record(1).memo is not made_by_record(1).memo  # a factory call each
    with pytest.raises(TypeError):
        made_by_record()  # x is required


@pytest.mark.parametrize("frozen", [False, True])
def test_post_init_runs_after_the_fields_are_set(frozen: bool) -> None:
    seen = []

    @record(frozen=frozen, slots=True)
    class Checked:
        """A record that checks itself."""

        code: str

        def __post_init__(self) -> None:
            seen.append(self.code)
            if not self.code:
                raise ValueError("empty code")

    Checked("GPU101")
    with pytest.raises(ValueError, match="empty code"):
        Checked("")
    assert seen == ["GPU101", ""]


def test_what_the_init_does_not_write_is_refused() -> None:
    with pytest.raises(TypeError, match="plain fields only"):

        @record
        class WithInitVar:
            seed: InitVar[int]

    with pytest.raises(TypeError, match="plain fields only"):

        @record
        class Hidden:
            made: int = field(default=0, init=False)

    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Order:
            a: int = 0
            b: int  # type: ignore[misc]


def test_init_is_compiled_after_its_first_instances_and_then_is_a_plain_function() -> None:
    _, made = _pair(True, True)
    assert type(made.__dict__["__init__"]).__name__ == "_CompiledOnUse"
    first = made(1)
    for _ in range(records.COMPILE_AFTER - 1):
        assert made(1) == first
    assert type(made.__dict__["__init__"]).__name__ == "_CompiledOnUse"
    assert made(1) == first  # the COMPILE_AFTER-th instance compiles it
    assert inspect.isfunction(made.__dict__["__init__"]) and made(1) == first
    _, other = _pair(False, False)
    assert "x" in str(inspect.signature(other))  # a lookup compiles it too
    assert inspect.isfunction(other.__dict__["__init__"])


def _calls() -> list[tuple[tuple, dict]]:
    """Calls of Point(x, label="p", tags=(), memo=<factory>), bound and not."""
    return [
        ((1,), {}),
        ((1, "q"), {}),
        ((1, "q", ("t",), {"m": 1}), {}),
        ((), {"x": 2}),
        ((3,), {"tags": ("a",), "memo": {}}),
        ((), {"memo": {"k": 1}, "x": 4, "label": ""}),
        ((1,), {"memo": records._FACTORY}),  # the factory's own default, given
        ((1, records._FACTORY), {}),  # given to a field without a factory: kept
        ((1, "q", (), records._FACTORY), {}),  # every field by position, the factory's default
        ((), {}),  # x missing
        ((1, "q", (), {}, 5), {}),  # too many
        ((1,), {"x": 2}),  # x twice
        ((1,), {"y": 2}),  # unknown
        ((1,), {"self": 2}),
    ]


def _outcome(cls: type, args: tuple, kwargs: dict) -> tuple:
    try:
        made = cls(*args, **kwargs)
    except TypeError as exc:
        return ("TypeError", str(exc))
    return ("made", made.x, made.label, made.tags, made.memo)


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_the_first_instances_are_made_as_the_compiled_init_makes_them(
    frozen: bool, slots: bool
) -> None:
    for args, kwargs in _calls():
        _, before = _pair(frozen, slots)  # a fresh record: its first instance
        _, compiled = _pair(frozen, slots)
        assert inspect.isfunction(compiled.__init__)  # a lookup on the class compiles it
        assert type(before.__dict__["__init__"]).__name__ == "_CompiledOnUse"
        assert _outcome(before, args, kwargs) == _outcome(compiled, args, kwargs)


def test_a_record_not_compiled_yet_sets_its_fields_in_order_then_runs_post_init() -> None:
    seen: list[str] = []

    def factory(name: str) -> Any:
        return lambda: seen.append(name) or name

    def body() -> type:
        @record(frozen=True)
        class Ordered:
            """A record that says what happens in its __init__."""

            a: str = field(default_factory=factory("a"))
            b: str = "b"
            c: str = field(default_factory=factory("c"))

            def __post_init__(self) -> None:
                seen.append(f"post {self.a}{self.b}{self.c}")

        return Ordered

    made = body()(b="B")
    first = list(seen)
    seen.clear()
    compiled = body()
    compiled.__init__  # noqa: B018 - a lookup compiles it
    assert compiled(b="B").c == made.c == "c"
    assert seen == first == ["a", "c", "post aBc"]


def test_an_undocumented_record_gets_the_dataclass_docstring() -> None:
    @dataclass(frozen=True)
    class Bare:
        x: int
        y: str = "a"

    made_by_dataclass = Bare

    @record(frozen=True)  # type: ignore[no-redef]
    class Bare:
        x: int
        y: str = "a"

    assert Bare.__doc__ == made_by_dataclass.__doc__ == "Bare(x: 'int', y: 'str' = 'a')"


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
    made_by_dataclass, made_by_record = _pair(True, slots)
    # gpulint.core.record's own error (no dataclasses import), an AttributeError as dataclasses'
    assert issubclass(records.FrozenInstanceError, AttributeError)
    assert issubclass(dataclasses.FrozenInstanceError, AttributeError)
    for made, error in (
        (made_by_dataclass, dataclasses.FrozenInstanceError),
        (made_by_record, records.FrozenInstanceError),
    ):
        point = made(1)
        with pytest.raises(error, match="cannot assign to field 'x'"):
            point.x = 2
        with pytest.raises(error, match="cannot delete field 'x'"):
            del point.x
        assert point.x == 1
    # Not a field: refused on the class itself. (Python 3.11's frozen slotted dataclass
    # raises TypeError here instead, from super() over the class it replaced.)
    with pytest.raises(records.FrozenInstanceError, match="cannot assign to field 'new'"):
        made_by_record(1).new = 2


def test_a_plain_subclass_of_a_frozen_record_may_set_its_own_attributes() -> None:
    for made in _pair(True, False):

        class Extended(made):  # type: ignore[misc, valid-type]
            pass

        point = Extended(1)
        point.extra = 5
        assert point.extra == 5
        with pytest.raises(AttributeError, match="cannot assign to field 'x'"):
            point.x = 2


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_pickles_and_copies_match_the_dataclass(frozen: bool, slots: bool) -> None:
    made_by_dataclass, made_by_record = _pair(frozen, slots)
    for made in (made_by_dataclass, made_by_record):
        globals()["Point"] = made  # pickle finds classes by module and name
        made.__qualname__ = "Point"
        point = made(4, "q", (1,), {"m": 1})
        for twin in (pickle.loads(pickle.dumps(point)), copy.copy(point), copy.deepcopy(point)):
            assert type(twin) is made and twin == point and twin.memo == {"m": 1}


@pytest.mark.parametrize(("frozen", "slots"), OPTIONS)
def test_the_record_helpers_match_the_dataclass_ones(frozen: bool, slots: bool) -> None:
    made_by_dataclass, made = _pair(frozen, slots)
    point, twin = made(1, "q", (made(2),)), made_by_dataclass(1, "q", (made_by_dataclass(2),))
    assert [f.name for f in records.fields(made)] == [f.name for f in dataclasses.fields(twin)]
    assert [(f.repr, f.compare) for f in records.fields(point)] == [
        (f.repr, f.compare) for f in dataclasses.fields(twin)
    ]
    assert records.replace(point, x=5) == made(5, "q", (made(2),))
    with pytest.raises(TypeError, match="has no field 'y'"):
        records.replace(point, y=1)
    assert records.asdict(point) == dataclasses.asdict(twin)
    assert records.asdict(point) == {
        "x": 1, "label": "q", "tags": ({"x": 2, "label": "p", "tags": (), "memo": {}},), "memo": {}
    }  # fmt: skip
    assert copy.deepcopy(point) == point
    assert made.__doc__ == "A test record."
    assert hasattr(point, "__dict__") is not slots
    assert made.__match_args__ == made_by_dataclass.__match_args__


def test_a_mutable_default_is_refused_as_dataclasses_refuse_it() -> None:
    with pytest.raises(ValueError, match="mutable default <class 'list'> for field tags"):

        @record
        class Listed:
            tags: list = []  # noqa: RUF012


def test_a_class_variable_is_not_a_field() -> None:
    @record(frozen=True, slots=True)
    class Counted:
        """A record with a class constant."""

        LIMIT: ClassVar[int] = 3
        n: int = 0

    assert records.fields(Counted)[0].name == "n" and Counted(1).LIMIT == 3
    assert str(inspect.signature(Counted)) == "(n: 'int' = 0) -> None"


def test_the_record_module_imports_neither_dataclasses_nor_inspect() -> None:
    """The point of it (start-up): dataclasses imports inspect, ast, dis and tokenize."""
    code = (
        "import sys, gpulint.core.record; "
        "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


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
    root = Path(__file__).resolve().parents[2] / "gpulint"
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
    assert dataclasses_left == [], "use @record (gpulint/core/record.py) in gpulint/"
    assert undocumented == [], "give each record a docstring"
