"""What every command's options share: the parser, its help layout, the option types.

A feature module (adoption, rendering, fixes) adds its own argument group to the
``check`` parser and reads its values back from the parsed namespace, so the command
stays wiring only. "Was this flag given?" is a default of ``None``.

argparse, not click: importing click (with the ``inspect``, ``uuid``, ``platform`` and
``datetime`` it pulls in) cost ~13 ms of the ~122 ms one-file run (issue 12); argparse,
which the standard library already holds, ~3 ms.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
import sys
from collections.abc import Callable


class UsageError(Exception):
    """A command line that parsed but makes no sense (exit 2, as argparse's own errors)."""


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size finds it, without importing shutil
    (~2 ms of start-up; argparse builds a formatter for every option it adds)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Formatter(argparse.HelpFormatter):
    """argparse's help layout at the terminal's width; option names up to ~30 columns."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32, width=max(_columns() - 2, 40))

    def _format_action_invocation(self, action: argparse.Action) -> str:
        """``-o, --output FILE`` (the metavar once), not argparse's ``-o FILE, --output FILE``."""
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        metavar = self._format_args(action, self._get_default_metavar_for_optional(action))
        return f"{', '.join(action.option_strings)} {metavar}"


class Parser(argparse.ArgumentParser):
    """One command's parser: no abbreviations (a prefix of an option is not that option),
    ``-h/--help`` after the command's own options. argparse's errors: the usage and
    ``gpulint check: error: ...`` on standard error, exit code 2."""

    def __init__(self, prog: str, usage: str, description: str) -> None:
        super().__init__(
            prog=prog,
            usage=usage,
            description=description,
            formatter_class=Formatter,
            add_help=False,
            allow_abbrev=False,
        )

    def add_help_option(self) -> None:
        self.add_argument("-h", "--help", action="help", help="Show this message and exit.")


def path(
    *, exists: bool = False, file_okay: bool = True, dir_okay: bool = True, readable: bool = True
) -> Callable[[str], str]:
    """An option type that checks a path as click.Path did (same messages): it must exist
    (``exists``), be of the kind allowed, and be readable (``readable``) when it exists."""
    kind = "File" if not dir_okay else "Directory" if not file_okay else "Path"

    def check(value: str) -> str:
        try:
            found = os.stat(value)
        except OSError:
            if not exists:
                return value
            raise argparse.ArgumentTypeError(f"{kind} {value!r} does not exist.") from None
        if not file_okay and stat.S_ISREG(found.st_mode):
            raise argparse.ArgumentTypeError(f"{kind} {value!r} is a file.")
        if not dir_okay and stat.S_ISDIR(found.st_mode):
            raise argparse.ArgumentTypeError(f"{kind} {value!r} is a directory.")
        if readable and not os.access(value, os.R_OK):
            raise argparse.ArgumentTypeError(f"{kind} {value!r} is not readable.")
        return value

    check.__name__ = kind.lower()
    return check


# Numbers as a person writes them on a command line: ASCII digits, an optional sign, and
# for floats a point and an exponent. int() and float() also take "1_000", " 1 ", Unicode
# digits, "inf" and "nan"; an infinite or NaN timeout reaches the renderers as an
# OverflowError or ValueError, an internal error.
_INTEGER = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_MAX_DIGITS = 100  # an integer option is a count: 100 digits is past any range


def number(
    convert: type[int] | type[float], minimum: float, maximum: float | None = None
) -> Callable[[str], int | float]:
    """A finite number type in ``[minimum, maximum]`` (click's IntRange/FloatRange
    messages); anything else is a usage error that names the option and the value."""
    noun = "integer" if convert is int else "float"
    syntax = _INTEGER if convert is int else _FLOAT
    shown = f"{minimum:g}<=x<={maximum:g}" if maximum is not None else f"x>={minimum:g}"

    def check(value: str) -> int | float:
        if _NOT_FINITE.fullmatch(value):
            raise argparse.ArgumentTypeError(f"{value!r} is not a finite number.")
        if not syntax.fullmatch(value):
            raise argparse.ArgumentTypeError(f"{value!r} is not a valid {noun}.")
        if convert is int and len(value) > _MAX_DIGITS:  # int() would take its time
            raise argparse.ArgumentTypeError(f"{value} is not in the range {shown}.")
        found = convert(value)
        if not math.isfinite(found):  # 1e309 is written as a float, and infinite
            raise argparse.ArgumentTypeError(f"{value!r} is not a finite number.")
        if found < minimum or (maximum is not None and found > maximum):
            raise argparse.ArgumentTypeError(f"{found} is not in the range {shown}.")
        return found

    check.__name__ = noun
    return check


def choices_metavar(choices: tuple[str, ...] | list[str]) -> str:
    """``[a|b|c]``: how the help has always shown an option's allowed values."""
    return "[" + "|".join(choices) + "]"
