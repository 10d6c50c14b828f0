"""Command line: wiring only; the work happens in discover, engine and report."""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

import click

from gpulint import __version__
from gpulint.cli import adoption, fix_options, rule_commands
from gpulint.cli import render_options as render_flags
from gpulint.config.settings import Settings
from gpulint.engine.run import DEBUG_HINT, build_context, run
from gpulint.engine.workers import cpu_count
from gpulint.findings import RunResult, Severity, printable
from gpulint.inputs import discover as discovery
from gpulint.inputs import units
from gpulint.inputs.cluster import prepare
from gpulint.report import FORMATS, write
from gpulint.report.outputs import OutputError, write_file, write_stdout
from gpulint.rules.registry import default_registry

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C)."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _color(stream: TextIO, fmt: str, when: str = "auto") -> bool:
    """--color always/never win; else NO_COLOR, then FORCE_COLOR (no-color.org,
    force-color.org), then whether the stream is a terminal. Only text has colour."""
    if fmt != "text" or when == "never":
        return False
    if when == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def _one_to_stdout(formats: tuple[str, ...], outputs: tuple[str, ...]) -> None:
    """Two reports on one stream parse as neither: refuse before linting anything."""
    to_stdout = [f for i, f in enumerate(formats) if i >= len(outputs) or outputs[i] == "-"]
    if len(to_stdout) > 1:
        raise click.UsageError(
            f"{' and '.join(to_stdout)} would both go to standard output; give all but one "
            "an --output file (--output is paired with --format in order)"
        )


def _interruptible(command: Callable) -> Callable:
    """Ctrl-C ends the run with exit code 130 and one line (click would say "Aborted!" and
    exit 1, the code that means findings); output files being written keep their old content."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            sys.stderr.write("gpulint: interrupted\n")
            sys.exit(EXIT_INTERRUPTED)

    return run


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="gpulint")
def cli() -> None:
    """gpulint: find GPU workload mistakes in Kubernetes manifests before they reach a cluster."""


@cli.command()
# readable=False: a path that cannot be read is a located input error of its own and the
# other paths are still linted (click would end the whole run with a usage error).
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--format",
    "formats",
    multiple=True,
    type=click.Choice(FORMATS),
    help="Output format; repeat for several outputs (paired in order with --output). "
    "Default: text, or github when GITHUB_ACTIONS=true.",
)
@click.option(
    "--output",
    "-o",
    "outputs",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="File for the format in the same position ('-' or none: standard output).",
)
@click.option("--select", multiple=True, help="Rules to run (codes, code prefixes or names).")
@click.option("--ignore", multiple=True, help="Rules to skip (codes, code prefixes or names).")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "note"]),
    default=None,
    help="Lowest severity that makes the exit code 1 (default: warning).",
)
@click.option(
    "--color",
    "color_when",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text report: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it).",
)
@click.option("--stdin-filename", default=None, help="Name to give standard input ('-').")
@click.option("--verbose", "-v", is_flag=True, help="Say more about what was read and how.")
@click.option(
    "--debug",
    is_flag=True,
    help="Show the traceback of an internal error (also GPULINT_DEBUG=1).",
)
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="In folders, follow symbolic links that lead out of the folder (not followed by "
    "default; --verbose names them).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the number of cores; used only for large inputs).",
)
@adoption.options
@render_flags.options
@fix_options.options
@click.option(
    "--cluster",
    "cluster",
    multiple=True,
    type=click.Path(exists=True, readable=False),
    help="Node objects ('kubectl get nodes -o yaml', a file or folder): check that GPU "
    "workloads fit the cluster; the Nodes are linted too.",
)
@click.option(
    "--pods",
    default=None,
    type=click.Path(exists=True, readable=False),
    help="Running pods ('kubectl get pods -A -o yaml'): subtract the GPUs they hold.",
)
@click.option(
    "--values-for",
    "values_for",
    type=click.Choice(["nvidia-device-plugin", "gpu-operator"]),
    default=None,
    help="Read YAML files that are not Kubernetes objects as this chart's values "
    "(for values files gpulint cannot place by content).",
)
@click.option(
    "--only-manifests",
    is_flag=True,
    help="Skip named files that do not parse and are not Kubernetes (no apiVersion/kind), "
    "as a folder walk does (the pre-commit hook passes it).",
)
@_interruptible
def check(
    paths: tuple[str, ...],
    formats: tuple[str, ...],
    outputs: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str | None,
    stdin_filename: str | None,
    verbose: bool,
    debug: bool,
    jobs: int | None,
    follow_symlinks: bool = False,
    cluster: tuple[str, ...] = (),
    pods: str | None = None,
    values_for: str | None = None,
    only_manifests: bool = False,
    color_when: str = "auto",
) -> None:
    """Lint manifests, folders, or standard input ('-')."""
    if len(outputs) > max(len(formats), 1):
        raise click.UsageError("each --output needs a --format in the same position")
    if not formats:
        formats = ("github",) if os.environ.get("GITHUB_ACTIONS") == "true" else ("text",)
    _one_to_stdout(formats, outputs)
    registry = default_registry()
    setup = adoption.setup(registry)  # config file (exit 2 on mistakes), suppressions, baseline
    registry = setup.registry
    unknown = registry.unknown(_split(select) + _split(ignore))
    if unknown:
        raise click.UsageError(f"unknown rule(s): {', '.join(unknown)} (see 'gpulint rules')")
    settings = Settings(
        select=_split(select),
        ignore=_split(ignore),
        fail_on=Severity.parse(fail_on) if fail_on else Severity.WARNING,
        stdin_filename=stdin_filename,
        verbose=verbose,
        debug=debug or debug_from_environment(),
        jobs=_jobs(jobs),
        render=render_flags.given(),
        values_for=values_for,
        only_manifests=only_manifests,
    )
    setup.apply(settings)
    walked: list[str] = []  # links not followed out of a folder
    targets, errors = discovery.discover(
        paths or (".",),
        folder_handlers=render_flags.handlers(),
        excluded=setup.excluded,
        folder_markers=render_flags.markers(),
        follow_symlinks=follow_symlinks,
        notes=walked,
    )
    unit_plan = units.plan(setup.keep(targets), verbose)
    targets = unit_plan.targets
    settings.named_files = units.named_files(list(paths))
    settings.linted_paths = tuple(paths or (".",))
    if cluster or pods:
        inventory, settings.cluster, inventory_errors = prepare(cluster, pods)
        targets += [t for t in inventory if t not in targets]
        errors += inventory_errors
    ctx = build_context(settings, registry)

    def lint() -> RunResult:
        # A fresh context each time: cross-file facts must not carry over to the re-lint.
        found = run(targets, build_context(settings, registry), render_flags.readers())
        found.notices[:0] = unit_plan.notices
        found.errors[:0] = errors
        if verbose:
            found.notices[:0] = walked
        found.errors.sort(key=lambda e: e.sort_key())
        return found

    result = lint()
    setup.finish(result)
    if fix_options.requested():
        fixed, changed = fix_options.fix_files(result, ctx, verbose)
        if fix_options.flags()["diff"]:
            for line in fix_options.summary(fixed, result, verbose):
                click.echo(line, err=True)
            sys.exit(EXIT_FINDINGS if changed else EXIT_OK)
        if changed:
            result = lint()
        for line in fix_options.summary(fixed, result, verbose):
            click.echo(line, err=True)
    _write_outputs(result, formats, outputs, color_when)
    if not any(f == "text" and i >= len(outputs) for i, f in enumerate(formats)):
        for notice in result.notices:  # the text report prints them; other formats do not
            click.echo(f"gpulint: note: {printable(notice)}", err=True)
    sys.exit(exit_code(result, settings.fail_on))


def _write_outputs(
    result: RunResult, formats: tuple[str, ...], outputs: tuple[str, ...], color_when: str = "auto"
) -> None:
    """Each format to its output; an output that cannot be written exits 2, naming it."""
    try:
        for i, fmt in enumerate(formats):
            target = outputs[i] if i < len(outputs) else None
            if target is None or target == "-":
                write_stdout(_reporter(fmt, result, color_when))
            else:
                write_file(target, _reporter(fmt, result, None))
    except OutputError as exc:
        click.echo(f"gpulint: {exc}", err=True)
        sys.exit(EXIT_ERROR)


def _reporter(fmt: str, result: RunResult, color_when: str | None) -> Callable[[TextIO], None]:
    """A report writer; ``color_when`` None for a file (never coloured)."""

    def fill(stream: TextIO) -> None:
        color = color_when is not None and _color(stream, fmt, color_when)
        write(fmt, result, stream, color=color)

    return fill


def _jobs(asked: int | None) -> int:
    """Worker processes: at most the usable cores (more only add processes and memory)."""
    cores = cpu_count()
    if asked is None:
        return cores
    if asked > cores:
        click.echo(
            f"gpulint: note: --jobs {asked} capped at {cores}, the cores this process may use",
            err=True,
        )
        return cores
    return asked


def exit_code(result: RunResult, fail_on: Severity) -> int:
    if result.errors:
        return EXIT_ERROR
    if any(f.severity >= fail_on for f in result.active()):
        return EXIT_FINDINGS
    return EXIT_OK


for _command in (rule_commands.list_rules, rule_commands.config_schema, rule_commands.explain):
    cli.add_command(_command)


def debug_from_environment() -> bool:
    return os.environ.get("GPULINT_DEBUG", "").strip().lower() in ("1", "true", "yes")


def main() -> None:
    """Console entry point: no traceback reaches the user unless asked for (--debug)."""
    try:
        cli.main(prog_name="gpulint")
    except SystemExit:
        # The run is over and its reports are written and closed. Frozen, the objects
        # still alive are left out of the collections the interpreter runs as it exits
        # (~12 ms of a one-file run's ~130, issue 12); the process's end frees them.
        gc.freeze()
        raise
    except KeyboardInterrupt:
        sys.stderr.write("gpulint: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # last resort; per-file errors are reported as data
        if debug_from_environment() or "--debug" in sys.argv[1:]:
            import traceback  # only with --debug: ~1 ms of start-up otherwise

            traceback.print_exc()
        # The type only: an exception's text may quote the input.
        sys.stderr.write(
            f"gpulint: internal error: {type(exc).__name__} ({DEBUG_HINT}; please report it)\n"
        )
        sys.exit(EXIT_ERROR)
