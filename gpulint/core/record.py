"""``@record``: the data classes of gpulint, made without :mod:`dataclasses`.

Why: with standard dataclasses (``slots=True``) a one-file check took 116 ms, with
records 73 ms (the bare interpreter 10 ms; medians of 21 interleaved runs of regular
installs, 2026-12-03): a dataclass compiles each method of each of gpulint's ~150
classes with ``exec`` and its module imports :mod:`inspect`. A record reads its fields
from the class's annotations itself, gets an ``__init__`` written as the dataclass
writes it, compiled only once the record has made a few instances (a one-file run makes
instances of fewer than a third of them, most of those a few times: until then its
arguments are bound without compiling anything), and the other methods as functions
shared by every record, driven by the field names stored once per class.

The behaviour is the dataclass's: the same ``__init__`` (parameters, defaults,
default factories, ``__post_init__``), the same ``repr`` text, equality between
instances of the same class over the fields with ``compare=True`` (a tuple
comparison), the same ``hash`` value for frozen records and none for mutable ones,
:class:`FrozenInstanceError` on assignment to a frozen one, ``__slots__`` with
``slots=True``, a mutable default refused. Pickling and copies work. A method the class
body defines itself is kept. The dataclass helpers have their counterparts here:
:func:`field` (a :func:`dataclasses.field` is read too), :func:`fields`, :func:`replace`,
:func:`asdict`. Only what gpulint uses is taken: ``frozen`` and ``slots``; ``InitVar``,
keyword-only and ``init=False`` fields are refused (tests/project/test_record.py compares
every case with ``dataclass``).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from operator import attrgetter
from types import MethodType
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        """Read by type checkers only (it is typing.dataclass_transform from Python 3.11)."""
        return lambda decorator: decorator


T = TypeVar("T")


class _Missing:
    """No default given (``dataclasses.MISSING``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class Field:
    """One field of a record: its name, type and the options :func:`field` took."""

    __slots__ = ("name", "type", "default", "default_factory", "repr", "compare", "hash")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        repr: bool = True,  # noqa: A002 - the dataclasses parameter names
        compare: bool = True,
        hash: bool | None = None,  # noqa: A002
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name, self.type = "", ""
        self.default, self.default_factory = default, default_factory
        self.repr, self.compare, self.hash = repr, compare, hash

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r})"


@overload
def field(
    *, default: T, repr: bool = True, compare: bool = True, hash: bool | None = None
) -> T: ...


@overload
def field(
    *,
    default_factory: Callable[[], T],
    repr: bool = True,
    compare: bool = True,
    hash: bool | None = None,
) -> T: ...


@overload
def field(*, repr: bool = True, compare: bool = True, hash: bool | None = None) -> Any: ...


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,  # noqa: A002
    compare: bool = True,
    hash: bool | None = None,  # noqa: A002
) -> Any:
    """A field with options, as :func:`dataclasses.field` (not ``init``, ``kw_only``)."""
    return Field(default, default_factory, repr, compare, hash)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record (class or instance), in definition order."""
    return obj.__record_specs__


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes``, as :func:`dataclasses.replace`."""
    names: tuple[str, ...] = obj.__record_fields__  # type: ignore[attr-defined]
    for name in changes:
        if name not in names:
            raise TypeError(f"{type(obj).__qualname__} has no field {name!r}")
    return obj.__class__(**{name: getattr(obj, name) for name in names} | changes)


def asdict(obj: Any) -> Any:
    """A record as a dict, records inside it too, as :func:`dataclasses.asdict` (copies of
    lists, tuples and dicts; other values as they are)."""
    if hasattr(type(obj), "__record_specs__"):
        return {name: asdict(getattr(obj, name)) for name in obj.__record_fields__}
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(value) for value in obj)
    if isinstance(obj, dict):
        return {asdict(key): asdict(value) for key, value in obj.items()}
    return obj


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
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    super(owner, self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    owner = self.__record_owner__
    if type(self) is owner or name in self.__record_fields__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    super(owner, self).__delattr__(name)


def _getstate(self: Any) -> list[Any]:  # slotted: as dataclasses pickles them
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=False):
        object.__setattr__(self, name, value)


def _init(cls: Any, specs: tuple[Field, ...], frozen: bool) -> Callable[..., None]:
    """``__init__`` as dataclasses writes it: one compiled function."""
    params, lines = ["self"], []
    bound: dict[str, Any] = {"_FACTORY": _FACTORY, "_setattr": object.__setattr__}
    for f in specs:
        value = f.name
        if f.default_factory is not MISSING:
            bound[f"_dflt_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            value = f"_dflt_{f.name}() if {f.name} is _FACTORY else {f.name}"
        elif f.default is not MISSING:
            bound[f"_dflt_{f.name}"] = f.default
            params.append(f"{f.name}=_dflt_{f.name}")
        else:
            params.append(f.name)
        lines.append(
            f"_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}"
        )
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    # One function, its defaults and helpers taken from its globals: half the compile time
    # of a factory closing over them (~55 µs, not ~100, for five fields).
    text = f"def __init__({', '.join(params)}):\n" + "".join(
        f" {line}\n" for line in lines or ["pass"]
    )
    exec(text, bound)  # noqa: S102 - the text is built above from field names
    init: Callable[..., None] = bound["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in specs}, "return": None}
    return init


class _Factory:
    """The default of a parameter whose field has a default factory."""

    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses shows it in the signature


_FACTORY = _Factory()


# The instances a record makes before its ``__init__`` is compiled (see _CompiledOnUse).
COMPILE_AFTER = 64
_ABSENT: Any = object()  # an argument not given


class _CompiledOnUse:
    """A record's ``__init__`` until it pays to compile it: then compiled and put in its place.

    Compiling one (the ``exec`` of its text) costs ~0.2 ms, and a one-file run makes
    instances of some 50 records, 40 of them fewer than ten times (2026-12-04): compiling
    them all was ~10 ms of a ~180 ms run. So a record's first instances are made by
    :meth:`make`, which binds the arguments as the compiled function would and sets the
    fields in the same order (a default factory called in its turn, then
    ``__post_init__``); the ``__init__`` is compiled at the record's :data:`COMPILE_AFTER`-th
    instance (binding here costs ~5 us more an instance: a run that makes many gets the
    fast one, one that makes fewer than compiling would cost never compiles), on any
    lookup on the class (``Record.__init__``, ``inspect.signature``), and for any call
    :meth:`make` does not bind (an argument missing, unknown or given twice: the compiled
    function then raises Python's own TypeError), so no caller sees this stand-in.
    """

    __slots__ = ("owner", "specs", "frozen", "made")

    def __init__(self, owner: Any, specs: tuple[Field, ...], frozen: bool) -> None:
        self.owner, self.specs, self.frozen = owner, specs, frozen
        self.made = 0

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None or self.made >= COMPILE_AFTER:
            return self.compiled(instance, owner)
        self.made += 1
        return MethodType(self.make, instance)

    def compiled(self, instance: Any, owner: Any = None) -> Any:
        init = _init(self.owner, self.specs, self.frozen)
        type.__setattr__(self.owner, "__init__", init)  # the record's, also from a subclass
        return init if instance is None else init.__get__(instance, owner)

    def make(self, instance: Any, /, *args: Any, **kwargs: Any) -> None:
        """What the compiled ``__init__`` does, for the calls it binds here."""
        specs = self.specs
        given = len(args)
        values: tuple[Any, ...] | list[Any] = args  # all given in order: as they are
        if kwargs or given != len(specs):
            values = list(args)
            taken = 0  # keyword arguments bound
            for spec in specs[given:]:
                value = kwargs.get(spec.name, _ABSENT)
                if value is not _ABSENT:
                    taken += 1
                elif spec.default is not MISSING:
                    value = spec.default
                elif spec.default_factory is not MISSING:
                    value = _FACTORY
                else:
                    break  # missing
                values.append(value)
            if len(values) != len(specs) or taken != len(kwargs):
                self.compiled(instance)(*args, **kwargs)  # raises the TypeError
                return
        assign = object.__setattr__ if self.frozen else setattr
        for spec, value in zip(specs, values, strict=True):
            if value is _FACTORY and spec.default_factory is not MISSING:
                value = spec.default_factory()
            assign(instance, spec.name, value)
        if hasattr(self.owner, "__post_init__"):
            instance.__post_init__()


# Annotations are strings here (``from __future__ import annotations``), read as
# dataclasses reads them: a ClassVar is a class attribute, not a field; an InitVar (an
# __init__ parameter that is not a field) is refused.
_CLASS_VARS = ("ClassVar", "typing.ClassVar")
_INIT_VARS = ("InitVar", "dataclasses.InitVar")


def _own_field(cls: Any, name: str, value: Any) -> Any:
    """``value``, or for a :func:`dataclasses.field` the same options as a :class:`Field`
    (told apart by its type's name, not by importing dataclasses)."""
    kind = type(value)
    if kind.__name__ != "Field" or kind.__module__ != "dataclasses":
        return value
    if not value.init or value.kw_only is True:
        raise TypeError(f"{cls.__qualname__}: @record takes plain fields only, not {[name]}")
    keep = {"default": value.default, "default_factory": value.default_factory}
    spec = Field(**{k: v for k, v in keep.items() if type(v).__name__ != "_MISSING_TYPE"})
    spec.repr, spec.compare, spec.hash = value.repr, value.compare, value.hash
    return spec


def _plain_field(name: str, kind: Any, default: Any) -> Field:
    """A field written ``name: kind`` or ``name: kind = default`` (what most are), made
    without :class:`Field`'s keyword handling: a record's creation is start-up."""
    spec = _new_field(Field)
    spec.name, spec.type, spec.default, spec.default_factory = name, kind, default, MISSING
    spec.repr, spec.compare, spec.hash = True, True, None
    return spec


_new_field = object.__new__
_SPECIAL_TYPES = _CLASS_VARS + _INIT_VARS


def _collect(cls: Any) -> tuple[Field, ...]:
    """The fields of ``cls``: its bases' record fields, then its own annotations in order;
    a default left in the class body is moved into its field (as dataclasses does)."""
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:  # the bases, object first
        for spec in base.__dict__.get("__record_specs__", ()):
            found[spec.name] = spec
    namespace = cls.__dict__
    for name, kind in namespace.get("__annotations__", {}).items():
        text = kind if type(kind) is str else getattr(kind, "__name__", str(kind))
        if text.startswith(_SPECIAL_TYPES):
            if text.startswith(_CLASS_VARS):
                continue
            raise TypeError(f"{cls.__qualname__}: @record takes plain fields only, not {[name]}")
        value = namespace.get(name, MISSING)
        if value is MISSING:
            found[name] = _plain_field(name, kind, MISSING)
            continue
        value = _own_field(cls, name, value)
        explicit = isinstance(value, Field)
        spec = value if explicit else _plain_field(name, kind, value)
        spec.name, spec.type = name, kind
        if spec.default is not MISSING and type(spec.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(spec.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        if explicit:  # the class keeps the plain default, as a dataclass's
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        found[name] = spec
    specs = tuple(found.values())
    defaulted = False
    for spec in specs:  # the dataclass's message, before the compiler's SyntaxError
        if spec.default is not MISSING or spec.default_factory is not MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {spec.name!r} follows default argument")
    return specs


def _with_slots(cls: Any, names: tuple[str, ...]) -> Any:
    """``cls`` made again with ``__slots__`` for its own fields (as ``dataclass(slots=True)``)."""
    inherited = {name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())}
    body = dict(cls.__dict__)
    body["__slots__"] = tuple(name for name in names if name not in inherited)
    body["__qualname__"] = cls.__qualname__
    for name in (*names, "__dict__", "__weakref__"):
        body.pop(name, None)  # a class attribute of a slot's name would shadow the slot
    return type(cls)(cls.__name__, cls.__bases__, body)


def _signature_doc(cls: Any, specs: tuple[Field, ...]) -> str:
    """The docstring a dataclass gives an undocumented class: ``Name(x: 'int', y: 'str' = 'a')``."""
    params = []
    for spec in specs:
        text = f"{spec.name}: {spec.type!r}"
        if spec.default_factory is not MISSING:
            text += " = <factory>"
        elif spec.default is not MISSING:
            text += f" = {spec.default!r}"
        params.append(text)
    return f"{cls.__name__}({', '.join(params)})"


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """``@record`` / ``@record(frozen=True, slots=True)``, as ``@dataclass(...)``."""

    def make(cls: Any) -> Any:
        own = cls.__dict__
        if frozen and ("__setattr__" in own or "__delattr__" in own):
            raise TypeError(f"{cls.__qualname__}: a frozen record defines its own assignment")
        keep_hash = own.get("__hash__") is not None  # None: from an own __eq__
        define_init, define_repr = "__init__" not in own, "__repr__" not in own
        define_eq = "__eq__" not in own
        define_state = slots and "__getstate__" not in own
        specs = _collect(cls)
        names, shown, compared, hashed = [], [], [], []
        for spec in specs:
            names.append(spec.name)
            if spec.repr:
                shown.append(spec.name)
            if spec.compare:
                compared.append(spec.name)
            if spec.compare if spec.hash is None else spec.hash:
                hashed.append(spec.name)
        fields = tuple(names)
        made = _with_slots(cls, fields) if slots else cls
        made.__record_specs__, made.__record_fields__ = specs, fields
        made.__match_args__ = fields  # type: ignore[misc]
        if define_init:
            made.__init__ = _CompiledOnUse(made, specs, frozen)
        if not cls.__doc__:
            made.__doc__ = _signature_doc(made, specs)
        if define_repr:
            made.__record_repr__ = tuple(shown)
            made.__repr__ = _repr
        if define_eq:
            made.__record_compared__ = staticmethod(_values(tuple(compared)))
            made.__eq__ = _eq
        if not keep_hash:
            # dataclass(eq=True): frozen -> a hash of the hashed fields; mutable -> unhashable
            made.__record_hashed__ = staticmethod(_values(tuple(hashed)))
            made.__hash__ = _hash if frozen else None
        if frozen:
            made.__record_owner__ = made
            made.__setattr__, made.__delattr__ = _frozen_setattr, _frozen_delattr
        if define_state:
            made.__getstate__, made.__setstate__ = _getstate, _setstate
        return made

    return make if cls is None else make(cls)
