"""``@record``: a dataclass whose ``__repr__``, ``__eq__`` and ``__hash__`` are shared.

Why (issue 12, start-up): :func:`dataclasses.dataclass` writes each method of each
class as source text and compiles it with ``exec``, about 0.1 ms a method. gpulint
defines over a hundred record classes, and a frozen dataclass gets six methods, so
creating the classes took about half of the start-up of a one-file run. A record
keeps what only generated code can do per class (``__init__``, and the frozen
``__setattr__``/``__delattr__``) and takes the other three from functions shared by
every record, driven by the field names the decorator stores once per class.

The behaviour is the dataclass's: the same ``repr`` text, equality between instances
of the same class over the fields with ``compare=True`` (a tuple comparison), the
same ``hash`` value for frozen records and none for mutable ones; the class is a
real dataclass (``dataclasses.fields``, ``replace``, ``asdict`` and pickling work).
A method the class body defines itself is kept, as the dataclass would keep it.
Only the two options gpulint uses are taken: ``frozen`` and ``slots``.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        """Read by type checkers only (it is typing.dataclass_transform from Python 3.11)."""
        return lambda decorator: decorator


T = TypeVar("T")


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The tuple of an instance's values of ``names``, as the generated methods build it."""
    if len(names) > 1:
        return attrgetter(*names)  # already a tuple, built in C
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


@reprlib.recursive_repr()  # as dataclasses' own __repr__: a cycle shows as "..."
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{self.__class__.__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self.__record_compared__
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_hashed__(self))


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """``@record`` / ``@record(frozen=True, slots=True)``, as ``@dataclass(...)``."""

    def make(cls: Any) -> Any:
        own = cls.__dict__
        keep_repr, keep_eq = "__repr__" in own, "__eq__" in own
        keep_hash = own.get("__hash__") is not None  # None: Python's, from an own __eq__
        made = dataclasses.dataclass(cls, repr=False, eq=False, frozen=frozen, slots=slots)
        fields = dataclasses.fields(made)
        if not keep_repr:
            made.__record_repr__ = tuple(f.name for f in fields if f.repr)
            made.__repr__ = _repr
        if not keep_eq:
            made.__record_compared__ = staticmethod(
                _values(tuple(f.name for f in fields if f.compare))
            )
            made.__eq__ = _eq
        if not keep_hash:
            # dataclass(eq=True): frozen -> a hash of the hashed fields; mutable -> unhashable
            hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
            made.__record_hashed__ = staticmethod(_values(hashed))
            made.__hash__ = _hash if frozen else None
        return made

    return make if cls is None else make(cls)
