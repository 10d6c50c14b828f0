"""Shell completion: rule codes and names for ``--select``, ``--ignore`` and ``explain``,
and the scripts ``gpulint completion SHELL`` prints (click's own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gpulint.rules.registry import builtin_rules

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_GPULINT_COMPLETE"


def complete_rules(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Codes and names of the built-in rules that start with what was typed (a
    comma-separated list completes its last item)."""
    # Only while completing (a check never needs it).
    from click.shell_completion import CompletionItem

    done, _, last = incomplete.rpartition(",")
    prefix = done + "," if done else ""
    items = []
    for rule in builtin_rules():
        for word in (rule.code, rule.name):
            if word.lower().startswith(last.lower()):
                items.append(CompletionItem(prefix + word, help=rule.summary))
    return items


def script(command: click.Command, shell: str) -> str:
    """The completion script for ``shell``, for ``gpulint``."""
    from click.shell_completion import get_completion_class

    completion = get_completion_class(shell)
    assert completion is not None  # SHELLS are click's own
    return completion(command, {}, "gpulint", COMPLETE_VAR).source()
