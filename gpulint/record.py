"""``@record``: a dataclass made with one compiled function instead of up to six.

Why (issue 12, start-up): :func:`dataclasses.dataclass` writes each method of each
class as source text and compiles it with ``exec``, about 0.1 ms a method. gpulint
defines over a hundred record classes, and a frozen dataclass gets six methods
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``),
so creating the classes took about half of the start-up of a one-file run. A record
is made by ``dataclass`` itself (fields, defaults, slots: ``init``, ``repr``, ``eq``
and ``frozen`` off), then given an ``__init__`` written as the dataclass writes it,
compiled on first use (a one-file run makes instances of fewer than half of them),
and the other five methods as functions shared by every record, driven by the field
names the decorator stores once per class.

The behaviour is the dataclass's: the same ``__init__`` (parameters, defaults,
default factories, ``__post_init__``), the same ``repr`` text, equality between
instances of the same class over the fields with ``compare=True`` (a tuple
comparison), the same ``hash`` value for frozen records and none for mutable ones,
``FrozenInstanceError`` on assignment to a frozen one; it is a real dataclass
(``dataclasses.fields``, ``replace``, ``asdict``, pickling and copies work), though its
``__dataclass_params__`` records how ``dataclass`` was called, not the options given
here. A method the class body defines itself is kept. Only what gpulint uses is
taken: ``frozen`` and ``slots``; ``InitVar``, ``kw_only`` and ``init=False`` fields are
refused (tests/project/test_record.py compares every case with ``dataclass``).
"""

from __future__ import annotations

import dataclasses
import inspect
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


class _Factory:
    """The default of a parameter whose field has a default factory."""

    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses shows it in the signature


_FACTORY = _Factory()


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


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    owner = self.__record_owner__
    if type(self) is owner or name in self.__record_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    super(owner, self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    owner = self.__record_owner__
    if type(self) is owner or name in self.__record_fields__:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
    super(owner, self).__delattr__(name)


def _getstate(self: Any) -> list[Any]:  # frozen and slotted: as dataclasses pickles them
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=False):
        object.__setattr__(self, name, value)


def _init(cls: Any, fields: tuple[dataclasses.Field, ...], frozen: bool) -> Callable[..., None]:
    """``__init__`` as dataclasses writes it: one compiled function."""
    params, lines = ["self"], []
    bound: dict[str, Any] = {"_FACTORY": _FACTORY, "_setattr": object.__setattr__}
    for f in fields:
        value = f.name
        if f.default_factory is not dataclasses.MISSING:
            bound[f"_dflt_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            value = f"_dflt_{f.name}() if {f.name} is _FACTORY else {f.name}"
        elif f.default is not dataclasses.MISSING:
            bound[f"_dflt_{f.name}"] = f.default
            params.append(f"{f.name}=_dflt_{f.name}")
        else:
            params.append(f.name)
        lines.append(
            f"_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}"
        )
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    text = (
        f"def __make__({', '.join(bound)}):\n"
        f" def __init__({', '.join(params)}):\n"
        + "".join(f"  {line}\n" for line in lines or ["pass"])
        + " return __init__\n"
    )
    namespace: dict[str, Any] = {}
    exec(text, {}, namespace)  # noqa: S102 - the text is built above from field names
    init: Callable[..., None] = namespace["__make__"](**bound)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    return init


class _CompiledOnUse:
    """A record's ``__init__`` until first looked up: then compiled and put in its place.

    A one-file run instantiates about a third of gpulint's records, so most never pay
    for the ``exec``. Any lookup compiles it (an instance made, ``inspect.signature``),
    so no caller sees this stand-in.
    """

    __slots__ = ("owner", "fields", "frozen")

    def __init__(self, owner: Any, fields: tuple[dataclasses.Field, ...], frozen: bool) -> None:
        self.owner, self.fields, self.frozen = owner, fields, frozen

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        init = _init(self.owner, self.fields, self.frozen)
        type.__setattr__(self.owner, "__init__", init)  # the record's, also from a subclass
        return init if instance is None else init.__get__(instance, owner)


def _plain_fields_only(cls: Any, fields: tuple[dataclasses.Field, ...]) -> None:
    """Refuse what the __init__ above does not write: InitVar, kw_only and init=False."""
    # dataclasses.fields() leaves out ClassVar and InitVar pseudo-fields; count the InitVars.
    declared = [f for f in cls.__dataclass_fields__.values() if f not in fields]
    initvars = [f.name for f in declared if "InitVar" in str(f.type)]
    odd = initvars + [f.name for f in fields if not f.init or f.kw_only]
    if odd:
        raise TypeError(f"{cls.__qualname__}: @record takes plain fields only, not {odd}")
    defaulted = False
    for f in fields:  # the dataclass's message, before the compiler's SyntaxError
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """``@record`` / ``@record(frozen=True, slots=True)``, as ``@dataclass(...)``."""

    def make(cls: Any) -> Any:
        own = set(cls.__dict__)
        if frozen and own & {"__setattr__", "__delattr__"}:
            raise TypeError(f"{cls.__qualname__}: a frozen record defines its own assignment")
        keep_hash = cls.__dict__.get("__hash__") is not None  # None: from an own __eq__
        documented = bool(cls.__doc__)  # else a signature, as dataclass writes (~0.1 ms)
        made = dataclasses.dataclass(
            cls, init=False, repr=False, eq=False, frozen=False, slots=slots
        )
        fields = dataclasses.fields(made)
        _plain_fields_only(made, fields)
        names = tuple(f.name for f in fields)
        made.__record_fields__ = names
        if "__init__" not in own:
            made.__init__ = _CompiledOnUse(made, fields, frozen)
            if not documented:  # dataclass wrote "Name()", from the __init__ it did not make
                made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
        if "__repr__" not in own:
            made.__record_repr__ = tuple(f.name for f in fields if f.repr)
            made.__repr__ = _repr
        if "__eq__" not in own:
            compared = tuple(f.name for f in fields if f.compare)
            made.__record_compared__ = staticmethod(_values(compared))
            made.__eq__ = _eq
        if not keep_hash:
            # dataclass(eq=True): frozen -> a hash of the hashed fields; mutable -> unhashable
            hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
            made.__record_hashed__ = staticmethod(_values(hashed))
            made.__hash__ = _hash if frozen else None
        if frozen:
            made.__record_owner__ = made
            made.__setattr__, made.__delattr__ = _frozen_setattr, _frozen_delattr
            if slots and "__getstate__" not in own:
                made.__getstate__, made.__setstate__ = _getstate, _setstate
        return made

    return make if cls is None else make(cls)
