"""Command line: wiring only; the work happens in discover, engine and report."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

import click

from gpulint import __version__
from gpulint.cli import adoption, fix_options
from gpulint.cli import render_options as render_flags
from gpulint.cli.check_options import check_options
from gpulint.cli.completion import COMPLETE_VAR
from gpulint.cli.option_groups import CONTEXT, Options, SectionedCommand, UsageError, apply_options
from gpulint.cli.output_paths import refuse_overwriting_inputs
from gpulint.core.findings import RunResult, Severity, printable
from gpulint.core.outputs import OutputError, PipeClosed, write_file, write_stdout
from gpulint.core.settings import Settings
from gpulint.engine.context import build_context
from gpulint.engine.run import DEBUG_HINT, run
from gpulint.engine.workers import cpu_count
from gpulint.inputs import discover as discovery
from gpulint.inputs import units
from gpulint.inputs.render import Terminated
from gpulint.report import SHOWS_FIXES, write
from gpulint.rules.registry import default_registry

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, what a shell reports for a process SIGTERM ended


def _split(values: Sequence[str] | None) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C)."""
    return tuple(
        part.strip() for value in values or () for part in value.split(",") if part.strip()
    )


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
        raise UsageError(
            f"{' and '.join(to_stdout)} would both go to standard output; give all but one "
            "an --output file (--output is paired with --format in order)"
        )


# The commands other than check, by name: the module and function that define them, and
# the summary `gpulint --help` shows (so listing them imports none of their code).
LAZY_COMMANDS = {
    "completion": ("rule_commands", "completion", "Print the shell completion script."),
    "config-schema": ("rule_commands", "config_schema", "Print the JSON Schema of .gpulint.yaml."),
    "explain": ("rule_commands", "explain", "Show a rule's documentation (by code or name)."),
    "lsp": ("lsp_command", "lsp", "Language server for editors (LSP over stdio)."),
    "report": (
        "report_command",
        "report",
        "GPU allocation and fragmentation of a cluster dump.",
    ),
    "rules": (
        "rule_commands",
        "list_rules",
        "List the rules: code, name, default severity and summary.",
    ),
}


class _Commands(click.Group):
    """``gpulint``: ``check`` here, the other commands imported only when they run."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*self.commands, *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in LAZY_COMMANDS:
            return self.commands.get(cmd_name)
        module_name, attribute, _ = LAZY_COMMANDS[cmd_name]
        # Only for the commands other than check: a check never loads their code
        # (LAZY in tests/project/test_import_contract.py).
        if module_name == "report_command":
            from gpulint.cli import report_command

            command: click.Command = getattr(report_command, attribute)
        elif module_name == "lsp_command":
            from gpulint.cli import lsp_command

            command = getattr(lsp_command, attribute)
        else:
            from gpulint.cli import rule_commands

            command = getattr(rule_commands, attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.commands[name].get_short_help_str()) for name in self.commands]
        rows += [(name, summary) for name, (_, _, summary) in LAZY_COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))


@click.group(
    "gpulint",
    cls=_Commands,
    context_settings=CONTEXT,
    help="gpulint: find GPU workload mistakes in Kubernetes manifests before they reach a cluster.",
)
@click.version_option(__version__, "-V", "--version", message="gpulint, version %(version)s")
def gpulint() -> None:
    """The group: each command does the work."""


@gpulint.command(
    "check",
    cls=SectionedCommand,
    context_settings=CONTEXT,
    short_help="Lint manifests, folders, or standard input ('-').",
)
@apply_options(check_options())
def check_command(**options: object) -> None:
    """Lint manifests, folders, or standard input ('-').

    PATHS: files and folders to lint; '-' is standard input (default: .).
    """
    check(Options(**options))


def check(options: Options) -> None:
    """Lint manifests, folders, or standard input ('-')."""
    formats: tuple[str, ...] = tuple(options.formats or ())
    outputs: tuple[str, ...] = tuple(options.outputs or ())
    paths: tuple[str, ...] = tuple(options.paths)
    select, ignore, verbose = options.select, options.ignore, options.verbose
    if len(outputs) > max(len(formats), 1):
        raise UsageError("each --output needs a --format in the same position")
    if not formats:
        formats = ("github",) if os.environ.get("GITHUB_ACTIONS") == "true" else ("text",)
    _one_to_stdout(formats, outputs)
    if (options.statistics or options.quiet) and "text" not in formats:
        flag = "--statistics" if options.statistics else "--quiet"
        raise UsageError(f"{flag} changes the text report; add --format text")
    if options.statistics:
        formats = tuple("statistics" if f == "text" else f for f in formats)
    registry = default_registry()
    setup = adoption.setup(
        registry, options
    )  # config file (exit 2 on mistakes), suppressions, baseline
    registry = setup.registry
    extend = _split(options.extend_select)
    unknown = registry.unknown(_split(select) + _split(ignore) + extend)
    if unknown:
        raise UsageError(f"unknown rule(s): {', '.join(unknown)} (see 'gpulint rules')")
    settings = Settings(
        select=_split(select),
        ignore=_split(ignore),
        extend_select=extend,
        fail_on=Severity.parse(options.fail_on) if options.fail_on else Severity.WARNING,
        stdin_filename=options.stdin_filename,
        verbose=verbose,
        debug=options.debug or debug_from_environment(),
        jobs=_jobs(options.jobs),
        render=render_flags.given(options),
        values_for=options.values_for,
        only_manifests=options.only_manifests,
        skip_unrenderable=options.skip_unrenderable,
        fix_details=fix_options.requested(options) or bool(SHOWS_FIXES & set(formats)),
        rule_docs="sarif" in formats,
    )
    setup.apply(settings)
    walked: list[str] = []  # links not followed out of a folder
    targets, errors = discovery.discover(
        paths or (".",),
        folder_handlers=render_flags.handlers(),
        excluded=setup.excluded,
        folder_markers=render_flags.markers(),
        follow_symlinks=options.follow_symlinks,
        notes=walked,
        respect_ignore_files=not options.no_ignore,
    )
    kept = setup.keep(targets)
    unit_plan = units.plan(kept, verbose)
    targets = unit_plan.targets
    settings.named_files = units.named_files(list(paths))
    settings.linted_paths = tuple(paths or (".",))
    inventory: list[discovery.Target] = []
    if options.cluster or options.pods:
        cluster = tuple(options.cluster or ())
        # Only with --cluster/--pods (LAZY in tests/project/test_import_contract.py).
        from gpulint.inputs.cluster import prepare

        inventory, settings.cluster, inventory_errors = prepare(cluster, options.pods)
        targets += [t for t in inventory if t not in targets]
        errors += inventory_errors
    # Before anything is linted or written: no output may be a file the run reads.
    config_path = setup.config.path if setup.config else None
    refuse_overwriting_inputs(options, settings, config_path, kept, inventory)
    ctx = build_context(settings, registry)

    def lint() -> RunResult:
        # A fresh context each time: cross-file facts must not carry over to the re-lint.
        found = run(targets, build_context(settings, registry), render_flags.readers())
        found.notices[:0] = unit_plan.notices
        found.errors[:0] = errors
        if verbose:
            found.notices[:0] = walked
        if settings.skip_unrenderable:
            _skip_unrendered(found)
        found.errors.sort(key=lambda e: e.sort_key())
        return found

    result = lint()
    setup.finish(result)
    not_written = 0  # files --fix did not write (each said): exit 2, as an unwritten output
    if fix_options.requested(options):
        chosen = fix_options.flags(options)
        fixed, changed, not_written = fix_options.fix_files(result, ctx, verbose, chosen)
        if chosen["diff"]:
            _note_lines(fix_options.summary(fixed, result, verbose, chosen))
            sys.exit(EXIT_FINDINGS if changed else EXIT_OK)
        if changed:
            result = lint()
        _note_lines(fix_options.summary(fixed, result, verbose, chosen))
    _write_outputs(result, formats, outputs, options.color_when, options.quiet)
    text_on_stdout = any(f == "text" and i >= len(outputs) for i, f in enumerate(formats))
    if not text_on_stdout and not options.quiet:
        # the text report prints them; other formats do not
        _note_lines([f"gpulint: note: {printable(notice)}" for notice in result.notices])
    code = EXIT_ERROR if not_written else exit_code(result, settings.fail_on)
    sys.exit(EXIT_OK if options.exit_zero and code == EXIT_FINDINGS else code)


def _skip_unrendered(result: RunResult) -> None:
    """--skip-unrenderable: a unit that could not be rendered is a note, not an input error."""
    skipped = [e for e in result.errors if e.unrendered]
    result.errors[:] = [e for e in result.errors if not e.unrendered]
    result.notices.extend(
        f"{e.file}:{e.line}: not rendered (--skip-unrenderable): {e.message}" for e in skipped
    )


def _write_outputs(
    result: RunResult,
    formats: tuple[str, ...],
    outputs: tuple[str, ...],
    color_when: str = "auto",
    quiet: bool = False,
) -> None:
    """Each format to its output; an output that cannot be written exits 2, naming it."""
    try:
        for i, fmt in enumerate(formats):
            target = outputs[i] if i < len(outputs) else None
            if target is None or target == "-":
                # a reader that stopped reading (`| head`) took what it wanted: the exit
                # code still says what the run found, with no message
                with contextlib.suppress(PipeClosed):
                    write_stdout(_reporter(fmt, result, color_when, quiet))
            else:
                write_file(target, _reporter(fmt, result, None, quiet))
    except OutputError as exc:
        sys.stderr.write(f"gpulint: {exc}\n")
        sys.exit(EXIT_ERROR)


def _reporter(
    fmt: str, result: RunResult, color_when: str | None, quiet: bool = False
) -> Callable[[TextIO], None]:
    """A report writer; ``color_when`` None for a file (never coloured)."""

    def fill(stream: TextIO) -> None:
        color = color_when is not None and _color(stream, fmt, color_when)
        write(fmt, result, stream, color=color, quiet=quiet)

    return fill


def _jobs(asked: int | None) -> int:
    """Worker processes: at most the usable cores (more only add processes and memory)."""
    cores = cpu_count()
    if asked is None:
        return cores
    if asked > cores:
        sys.stderr.write(
            f"gpulint: note: --jobs {asked} capped at {cores}, the cores this process may use\n"
        )
        return cores
    return asked


def _note_lines(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(line + "\n")


def exit_code(result: RunResult, fail_on: Severity) -> int:
    if result.errors:
        return EXIT_ERROR
    if any(f.severity >= fail_on for f in result.active()):
        return EXIT_FINDINGS
    return EXIT_OK


def debug_from_environment() -> bool:
    return os.environ.get("GPULINT_DEBUG", "").strip().lower() in ("1", "true", "yes")


def cli(argv: Sequence[str] | None = None) -> NoReturn:
    """Parse the command line and run its command; always ends with SystemExit (the exit
    code), standard output and standard error flushed. Exceptions other than usage
    errors and Ctrl-C propagate (:func:`main` turns them into one line)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if COMPLETE_VAR in os.environ:  # the shell asks for completions: click answers
            gpulint.main(args, prog_name="gpulint", complete_var=COMPLETE_VAR)
        try:
            # Not click's main(): Ctrl-C and SIGTERM keep gpulint's exit codes and words.
            with gpulint.make_context("gpulint", args) as ctx:
                gpulint.invoke(ctx)
        except click.exceptions.Exit as exc:  # --help, --version
            sys.exit(exc.exit_code)
        except click.ClickException as exc:  # usage errors: the usage and the error, exit 2
            exc.show()
            sys.exit(exc.exit_code)
        sys.exit(EXIT_OK)
    except KeyboardInterrupt as exc:
        # Ctrl-C: exit code 130 and one line; output files being written keep their old
        # content (1 would say "findings"). SIGTERM while renderers or workers ran: the
        # same, 143 (before any ran, SIGTERM ends the process at once: also 143).
        _interrupted(exc)
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                # a closed or broken stream: the report already said so
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()


def _interrupted(exc: KeyboardInterrupt) -> NoReturn:
    if isinstance(exc, Terminated):
        sys.stderr.write("gpulint: terminated\n")
        sys.exit(EXIT_TERMINATED)
    sys.stderr.write("gpulint: interrupted\n")
    sys.exit(EXIT_INTERRUPTED)


def main() -> None:
    """Console entry point: no traceback reaches the user unless asked for (--debug)."""
    # What is alive now is the modules' state, kept for the whole process: frozen, it is
    # left out of the collections the run triggers (a full one scans every object; a few
    # ms of a one-file run, issue 12). The console process only: a library caller keeps
    # its collector as it was.
    gc.freeze()
    try:
        cli()
    except SystemExit:
        # The run is over and its reports are written and closed. Frozen, the objects
        # still alive are left out of the collections the interpreter runs as it exits
        # (~12 ms of a one-file run's ~130, issue 12); the process's end frees them.
        gc.freeze()
        raise
    except KeyboardInterrupt as exc:
        _interrupted(exc)
    except Exception as exc:  # last resort; per-file errors are reported as data
        if debug_from_environment() or "--debug" in sys.argv[1:]:
            import traceback  # only with --debug: ~1 ms of start-up otherwise

            traceback.print_exc()
        # The type only: an exception's text may quote the input.
        sys.stderr.write(
            f"gpulint: internal error: {type(exc).__name__} ({DEBUG_HINT}; please report it)\n"
        )
        sys.exit(EXIT_ERROR)
