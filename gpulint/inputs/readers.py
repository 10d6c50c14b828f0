"""Readers: what a target (a file, standard input, a chart folder...) stands for as sources.

A :class:`Readers` maps a target kind to the function that reads it, plus hooks
called on every source before it is parsed. The engine knows no kind by name:
the command line composes the readers (plain files and standard input here,
the renderers' from :mod:`gpulint.inputs.render.targets`) and hands them to the
run. They are module-level functions, so a spawned worker process that
unpickles them imports the modules that define them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from gpulint.core.findings import InputError
from gpulint.core.record import field, record
from gpulint.core.settings import Settings
from gpulint.core.sources import Source, read_file, read_stream
from gpulint.inputs.discover import Target

Reader = Callable[[Target, Settings], "tuple[list[Source], list[InputError]]"]
# Called on every source before parsing (Helm's --chart-dir attaches a template mapper).
SourceHook = Callable[[Source, Settings], None]


def read_plain_file(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    decoded = read_file(target.path)  # bounded: regular files only, size-capped
    if isinstance(decoded, InputError):
        return [], [decoded]
    return [decoded], []


def read_stdin(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    name = settings.stdin_filename or "<stdin>"
    decoded = read_stream(name, sys.stdin.buffer)
    if isinstance(decoded, InputError):
        return [], [decoded]
    return [decoded], []


@record(frozen=True)
class Readers:
    """Target kind -> reader, and the hooks every source passes through before parsing."""

    by_kind: Mapping[str, Reader] = field(
        default_factory=lambda: {"file": read_plain_file, "stdin": read_stdin}
    )
    source_hooks: tuple[SourceHook, ...] = ()

    def extended(
        self, by_kind: Mapping[str, Reader], source_hooks: tuple[SourceHook, ...] = ()
    ) -> Readers:
        return Readers({**self.by_kind, **by_kind}, self.source_hooks + source_hooks)

    def read(self, target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
        """The sources a target stands for, through the reader of its kind, hooks applied."""
        reader = self.by_kind.get(target.kind)
        if reader is None:
            return [], [InputError(target.path, f"no reader for {target.kind} input")]
        sources, errors = reader(target, settings)
        for source in sources:
            for hook in self.source_hooks:
                hook(source, settings)
        return sources, errors


PLAIN = Readers()
