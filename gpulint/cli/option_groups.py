"""Groups of command-line options that a feature module owns.

A group's values are taken out of the command's arguments and kept in click's
context under the group's key, so the command stays wiring only and the feature
module reads its own options back from there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click


def option_group(
    key: str, names: Sequence[str], decorators: Sequence[Callable]
) -> Callable[[Callable], Callable]:
    """A decorator adding ``decorators`` (click options) whose values go to ``ctx.meta[key]``."""

    def apply(command: Callable) -> Callable:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            click.get_current_context().meta[key] = {name: kwargs.pop(name) for name in names}
            return command(*args, **kwargs)

        for decorate in reversed(decorators):
            wrapper = decorate(wrapper)
        return wrapper

    return apply
