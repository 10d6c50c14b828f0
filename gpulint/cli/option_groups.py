"""What every command's options share: click's command class with option sections in its
help, the option types, and the parsed options as one object.

A feature module (adoption, rendering, fixes) lists its own options under a section of
``gpulint check --help`` and reads its values back from the parsed :data:`Options`, so
the command stays wiring only. "Was this flag given?" is ``None`` (or an empty tuple for
a repeatable option).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any, TypeVar

import click

from gpulint.core.lazy_re import lazy

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

# The options a command was given, by parameter name (``options.formats``).
Options = SimpleNamespace

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class UsageError(click.UsageError):
    """A command line that parsed but makes no sense (exit 2, as click's own errors)."""


class SectionOption(click.Option):
    """An option listed under a section of the help (``--help``): the command's own options
    first, then each feature's section."""

    def __init__(self, *args: Any, section: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.section = section


class SectionedCommand(click.Command):
    """A command whose help lists its options by section, in the order they were declared."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Options": []}
        for param in self.get_params(ctx):
            if not isinstance(param, click.Option):  # arguments: in the command's text
                continue
            record = param.get_help_record(ctx)
            if record is None:
                continue
            section = getattr(param, "section", None) or "Options"
            sections.setdefault(section, []).append(record)
        help_first = sections["Options"]  # -h/--help closes the command's own options
        help_first.sort(key=lambda row: row[0].startswith("-h, --help"))
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def option(*names: str, section: str | None = None, **kwargs: Any) -> Decorator:
    """``click.option`` listed under ``section`` of the help."""
    return click.option(*names, cls=SectionOption, section=section, **kwargs)


def apply_options(decorators: Sequence[Decorator]) -> Decorator:
    """One decorator for a list of option decorators, the first one's option listed first."""

    def decorate(command: F) -> F:
        for add in reversed(decorators):
            command = add(command)
        return command

    return decorate


def path(
    *, exists: bool = False, file_okay: bool = True, dir_okay: bool = True, readable: bool = True
) -> click.Path:
    """A path option's type: must exist (``exists``), be of the kind allowed, and be
    readable (``readable``) when it exists."""
    return click.Path(exists=exists, file_okay=file_okay, dir_okay=dir_okay, readable=readable)


# Numbers as a person writes them on a command line: ASCII digits, an optional sign, and
# for floats a point and an exponent. int() and float() also take "1_000", " 1 ", Unicode
# digits, "inf" and "nan"; an infinite or NaN timeout reaches the renderers as an
# OverflowError or ValueError, an internal error (click's FloatRange lets "nan" through).
_INTEGER = lazy(r"[+-]?[0-9]+")
_FLOAT = lazy(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = lazy(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_MAX_DIGITS = 100  # an integer option is a count: 100 digits is past any range


class Number(click.ParamType):
    """A finite number in ``[minimum, maximum]`` (click's IntRange/FloatRange messages);
    anything else is a usage error that names the option and the value."""

    def __init__(
        self, convert: type[int] | type[float], minimum: float, maximum: float | None = None
    ):
        self.minimum, self.maximum = minimum, maximum
        self.name = "integer" if convert is int else "float"
        self.syntax = _INTEGER if convert is int else _FLOAT
        self.shown = f"{minimum:g}<=x<={maximum:g}" if maximum is not None else f"x>={minimum:g}"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return f"{self.name.upper()} RANGE"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value  # the option's default, gpulint's own (a pattern is start-up time)
        if _NOT_FINITE.fullmatch(value):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        if not self.syntax.fullmatch(value):
            self.fail(f"{value!r} is not a valid {self.name}.", param, ctx)
        if self.name == "integer" and len(value) > _MAX_DIGITS:  # int() would take its time
            self.fail(f"{value} is not in the range {self.shown}.", param, ctx)
        found = int(value) if self.name == "integer" else float(value)
        if not math.isfinite(found):  # 1e309 is written as a float, and infinite
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        if found < self.minimum or (self.maximum is not None and found > self.maximum):
            self.fail(f"{found} is not in the range {self.shown}.", param, ctx)
        return found


def number(
    convert: type[int] | type[float], minimum: float, maximum: float | None = None
) -> Number:
    return Number(convert, minimum, maximum)


def pattern_type(
    name: str, check: Callable[[str], str | None]
) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback that refuses a value ``check`` finds fault with (its message)."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None and value != param.default:  # the default is gpulint's own
            fault = check(value)
            if fault:
                raise click.BadParameter(fault, ctx, param)
        return value

    callback.__name__ = name
    return callback
