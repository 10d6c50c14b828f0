"""``gpulint report``: the GPU allocation and fragmentation report of a cluster dump.

Wiring only: the inputs are found (``allocation/read.py``), an ``--output`` over any of
them is refused before anything is read (``cli/output_paths.py``, as ``check`` does), the
report is built and written through ``core/outputs.py``. Exit codes: 0 written, 2 input,
usage or output errors (said on standard error, nothing written).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

import click

from gpulint.allocation import html, json_out, text
from gpulint.allocation.model import Report
from gpulint.allocation.read import Inputs, build, gather
from gpulint.cli.option_groups import CONTEXT, UsageError, path
from gpulint.cli.output_paths import Read, refuse_overwrites
from gpulint.core.findings import InputError, printable
from gpulint.core.outputs import OutputError, PipeClosed, write_file, write_stdout

EXIT_OK, EXIT_ERROR = 0, 2
WRITERS: dict[str, Callable[[Report, TextIO], None]] = {
    "text": text.write,
    "json": json_out.write,
    "html": html.write,
}
FORMATS = tuple(WRITERS)


def _say(message: str) -> None:
    sys.stderr.write(f"gpulint report: {message}\n")


def _say_errors(errors: Iterable[InputError]) -> None:
    for error in sorted(errors, key=InputError.sort_key):
        sys.stderr.write(
            f"{printable(error.file)}:{error.line}:{error.column}: error [input] "
            f"{printable(error.message)}\n"
        )


def _progress() -> Callable[[str], None]:
    """One line on the terminal, rewritten as the reading goes."""

    def say(message: str) -> None:
        sys.stderr.write(f"\rgpulint report: {message}\x1b[K")
        sys.stderr.flush()

    return say


def _reads(inputs: Inputs) -> Iterator[Read]:
    """Every file the report reads, for the output to be compared with."""
    yield from (Read(t.path, "a --cluster file") for t in inputs.nodes)
    if inputs.pods:
        yield Read(inputs.pods, "--pods", whole=os.path.isdir(inputs.pods))
    for target in inputs.manifests:
        walked = "found in a folder named on the command line"
        why = walked if target.walked else "named on the command line"
        yield Read(target.path, why)


def run(
    cluster: tuple[str, ...],
    pods: str | None,
    paths: tuple[str, ...],
    fmt: str,
    output: str | None,
) -> int:
    """Write the report of the ``--cluster`` node dump and the ``--pods`` pod dump (the
    manifests' GPU pods count as pending) in ``fmt`` to ``output`` (None or "-": standard
    output); the exit code."""
    writer = WRITERS.get(fmt)
    if writer is None:
        _say(f"unknown format {printable(fmt)!r} (choose from {', '.join(FORMATS)})")
        return EXIT_ERROR
    if not cluster:
        _say("the report needs the nodes: --cluster NODES ('kubectl get nodes -o yaml')")
        return EXIT_ERROR
    to_file = output not in (None, "-")
    inputs = gather(cluster, pods, paths)
    if inputs.errors:
        _say_errors(inputs.errors)
        return EXIT_ERROR
    try:
        if to_file:
            refuse_overwrites([(str(output), "--output")], _reads(inputs))
    except UsageError as exc:
        _say(str(exc))
        return EXIT_ERROR
    report, errors = build(inputs, _progress() if sys.stderr.isatty() else None)
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")  # the progress line goes
    if errors:  # a report of part of the cluster would mislead: none at all
        _say_errors(errors)
        return EXIT_ERROR
    try:
        if to_file:
            write_file(str(output), lambda handle: writer(report, handle))
        else:
            write_stdout(lambda handle: writer(report, handle))
    except PipeClosed:
        return EXIT_OK  # the reader took what it wanted (`| head`)
    except OutputError as exc:
        _say(str(exc))
        return EXIT_ERROR
    return EXIT_OK


@click.command("report", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--cluster",
    multiple=True,
    type=path(exists=True, readable=False),
    help="Node objects ('kubectl get nodes -o yaml', a file or folder; repeatable). Required.",
)
@click.option(
    "--pods",
    type=path(exists=True, readable=False),
    help="Pods ('kubectl get pods -A -o yaml'): what bound pods hold, and the pending ones.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for a terminal, json for scripts, html for one self-contained page.",
)
@click.option(
    "-o",
    "--output",
    type=path(dir_okay=False),
    metavar="FILE",
    help="Write the report to FILE ('-' or none: standard output).",
)
def report(
    paths: tuple[str, ...], cluster: tuple[str, ...], pods: str | None, fmt: str, output: str | None
) -> None:
    """GPU allocation and fragmentation of a cluster: per node, product and namespace, and
    whether each pending GPU pod fits now (and why not).

    PATHS: manifests whose GPU pods are added as pending.
    """
    sys.exit(run(cluster, pods, paths, fmt, output))
