"""``gpulint check`` options for team adoption: config file, suppressions, baseline.

The options are listed in a section of their own and read back from the parsed
options, so the command itself only asks :func:`setup` for a :class:`Setup` and
calls it at three points: after building the settings, on the discovered targets,
and before writing the reports.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

import click

from gpulint.cli.option_groups import Decorator, Options, option
from gpulint.config import file as config_mod
from gpulint.config.merge import FLAGGED, apply_config
from gpulint.core.findings import RunResult, printable
from gpulint.core.outputs import OutputError
from gpulint.core.record import field, record
from gpulint.core.settings import Settings
from gpulint.inputs.discover import Target, display_path
from gpulint.rules.registry import Registry, default_registry

if TYPE_CHECKING:
    from gpulint.config.globs import PathFilter

_EXIT_ERROR = 2
_UNITS = ("per-folder", "per-run")


_SECTION = "Config file, suppressions and baseline"


def options() -> list[Decorator]:
    """The adoption options, in a section of their own; they reach :func:`setup`, not the
    command."""
    return [
        option(
            "--config",
            "config_path",
            metavar="FILE",
            section=_SECTION,
            help="Config file (default: .gpulint.yaml or .gpulint.yml in this folder or above).",
        ),
        option("--no-config", is_flag=True, section=_SECTION, help="Ignore any config file."),
        option(
            "--exclude",
            multiple=True,
            metavar="PATTERN",
            section=_SECTION,
            help="Paths not to lint (gitignore-style, relative to this folder); "
            "adds to the config file's.",
        ),
        option(
            "--no-suppressions",
            is_flag=True,
            section=_SECTION,
            help="Show everything: ignore suppression annotations, comments and config exemptions.",
        ),
        option(
            "--require-reason",
            is_flag=True,
            section=_SECTION,
            help="A suppression without a reason is an error and does not suppress.",
        ),
        option(
            "--baseline",
            "baseline_path",
            metavar="FILE",
            section=_SECTION,
            help="Report only findings that are not in this baseline.",
        ),
        option(
            "--write-baseline",
            metavar="FILE",
            section=_SECTION,
            help="Record the current findings in FILE; then --baseline FILE reports only new ones.",
        ),
        option(
            "--units",
            type=click.Choice(_UNITS),
            section=_SECTION,
            help="Which plain files cross-file rules join: those of one folder (default) "
            "or all of the run. Kustomizations and charts are units of their own.",
        ),
    ]


@record
class Setup:
    """The config file, path filters and flags of one ``gpulint check``, applied in three steps."""

    registry: Registry
    flags: dict  # the parsed command line (vars of the namespace)
    config: config_mod.Config | None = None
    filters: list[PathFilter] = field(default_factory=list)

    def apply(self, settings: Settings) -> None:
        """Config values where no flag was given; then the suppression switches."""
        apply_config(settings, self.config, self.registry, _given(self.flags))
        if self.flags["require_reason"]:
            settings.require_reason = True
        if self.flags["units"]:
            settings.units = self.flags["units"]
        settings.suppressions = not self.flags["no_suppressions"]
        baseline_path = self.flags["baseline_path"]
        if baseline_path and not self.flags["write_baseline"]:
            # Only with --baseline (LAZY in tests/project/test_import_contract.py).
            from gpulint.filter import baseline

            try:
                settings.baseline = baseline.load(baseline_path)
            except baseline.BaselineError as exc:
                _fail([f"gpulint: {exc}"])
            settings.baseline_file = baseline_path

    def excluded(self, path: str) -> bool:
        return any(f.excluded(path) for f in self.filters)

    def keep(self, targets: list[Target]) -> list[Target]:
        """Targets not excluded (files named on the command line included, for pre-commit)."""
        if not self.filters:
            return targets
        return [t for t in targets if t.kind == "stdin" or not self.excluded(t.path)]

    def finish(self, result: RunResult) -> None:
        """``--write-baseline``: record the findings and exit instead of reporting them."""
        path = self.flags["write_baseline"]
        if not path:
            return
        from gpulint.filter import baseline  # only with --write-baseline (LAZY, as above)

        try:
            count = baseline.write(path, result.findings)
        except OutputError as exc:
            _fail([f"gpulint: baseline: {exc}"])
        sys.stderr.write(f"gpulint: wrote {count} finding(s) to baseline {printable(path)}\n")
        for error in result.errors:
            sys.stdout.write(
                f"{printable(error.file)}:{error.line}:{error.column}: error [input] "
                f"{printable(error.message)}\n"
            )
        sys.exit(_EXIT_ERROR if result.errors else 0)


def _given(flags: dict) -> set[str]:
    """The settings given on the command line: None or, repeatable, an empty tuple when not."""
    return {name for name in FLAGGED if flags.get(name) not in (None, ())}


def _fail(lines: list[str]) -> NoReturn:
    for line in lines:
        sys.stderr.write(line + "\n")
    sys.exit(_EXIT_ERROR)


def setup(registry: Registry, options: Options) -> Setup:
    """Load the config file the flags point to; config errors end the run with exit code 2."""
    flags = vars(options)
    path: str | None = None
    if not flags["no_config"]:
        path = flags["config_path"] or config_mod.find_config()
        if flags["config_path"] and not os.path.isfile(flags["config_path"]):
            _fail([f"gpulint: config file {path} not found"])
    result = Setup(registry, flags)
    if path:
        result.config, result.registry = _load(path, registry)
        patterns = result.config.values.get("exclude", ())
        if patterns:
            result.filters.append(_path_filter(patterns, result.config.root))
    if flags["exclude"]:
        from gpulint.config.globs import GlobError  # with the patterns, as _path_filter

        try:
            result.filters.append(_path_filter(flags["exclude"], os.getcwd()))
        except GlobError as exc:
            _fail([f"gpulint: --exclude: {printable(str(exc))}"])
    return result


def _path_filter(patterns: list[str] | tuple[str, ...], root: str) -> PathFilter:
    """Exclude patterns as a filter; the glob code only when there are some (LAZY in
    tests/project/test_import_contract.py)."""
    from gpulint.config.globs import PathFilter

    return PathFilter(patterns, root)


def configured_registry() -> Registry:
    """The rules with the custom rules of the config file found from here (for listing)."""
    path = config_mod.find_config()
    return _load(path, default_registry())[1] if path else default_registry()


def _load(path: str, registry: Registry) -> tuple[config_mod.Config, Registry]:
    """(config, registry with its custom rules); a broken file ends the run with exit 2."""
    # Only when there is a config file (LAZY in tests/project/test_import_contract.py).
    from gpulint.config.loading import load_with_rules

    try:
        return load_with_rules(display_path(path), registry)
    except config_mod.ConfigError as exc:
        _fail([f"{e.file}:{e.line}:{e.column}: error [config] {e.message}" for e in exc.errors])
