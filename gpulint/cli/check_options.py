"""The options of ``gpulint check``: its own, then each feature module's section."""

from __future__ import annotations

import click

from gpulint.cli import adoption, fix_options
from gpulint.cli import render_options as render_flags
from gpulint.cli.completion import complete_rules
from gpulint.cli.option_groups import Decorator, number, option, path
from gpulint.report import FORMATS

_SEVERITIES = ("error", "warning", "note")
_COLORS = ("auto", "always", "never")
_CHARTS = ("nvidia-device-plugin", "gpu-operator")


def check_options() -> list[Decorator]:
    """``gpulint check``: its own options, then each feature module's section."""
    return [
        # A path that cannot be read is a located input error of its own and the other
        # paths are still linted (never a usage error that ends the run).
        click.argument("paths", nargs=-1, type=click.Path(readable=False)),
        option(
            "--format",
            "formats",
            multiple=True,
            type=click.Choice(FORMATS),
            help="Output format; repeat for several outputs (paired in order with --output). "
            "Default: text, or github when GITHUB_ACTIONS=true.",
        ),
        option(
            "-o",
            "--output",
            "outputs",
            multiple=True,
            type=path(dir_okay=False),
            metavar="FILE",
            help="File for the format in the same position ('-' or none: standard output).",
        ),
        option(
            "--select",
            multiple=True,
            shell_complete=complete_rules,
            help="Rules to run (codes, code prefixes or names).",
        ),
        option(
            "--extend-select",
            multiple=True,
            shell_complete=complete_rules,
            help="Rules to run besides the selected ones (opt-in rules by code or name).",
        ),
        option(
            "--ignore",
            multiple=True,
            shell_complete=complete_rules,
            help="Rules to skip (codes, code prefixes or names).",
        ),
        option(
            "--fail-on",
            type=click.Choice(_SEVERITIES),
            help="Lowest severity that makes the exit code 1 (default: warning).",
        ),
        option(
            "--exit-zero",
            is_flag=True,
            help="Exit 0 even when findings are reported (a report-only run); input errors "
            "still exit 2.",
        ),
        option(
            "-q",
            "--quiet",
            is_flag=True,
            help="Text report: findings and input errors only, no notes or summary line.",
        ),
        option(
            "--statistics",
            is_flag=True,
            help="Text report: how many findings each rule reported, instead of the findings.",
        ),
        option(
            "--color",
            "color_when",
            type=click.Choice(_COLORS),
            default="auto",
            help="Colour the text report: auto (a terminal, unless NO_COLOR; FORCE_COLOR "
            "forces it).",
        ),
        option("--stdin-filename", help="Name to give standard input ('-')."),
        option("-v", "--verbose", is_flag=True, help="Say more about what was read and how."),
        option(
            "--debug",
            is_flag=True,
            help="Show the traceback of an internal error (also GPULINT_DEBUG=1).",
        ),
        option(
            "--follow-symlinks",
            is_flag=True,
            help="In folders, follow symbolic links that lead out of the folder (not followed "
            "by default; --verbose names them).",
        ),
        option(
            "--no-ignore",
            is_flag=True,
            help="Walk what .gitignore (in a git work tree) and .ignore files exclude too "
            "(respected by default; hidden folders are never walked).",
        ),
        option(
            "-j",
            "--jobs",
            type=number(int, 1),
            help="Worker processes (default: the number of cores; used only for large "
            "inputs).  [x>=1]",
        ),
        option(
            "--cluster",
            multiple=True,
            type=path(exists=True, readable=False),
            help="Node objects ('kubectl get nodes -o yaml', a file or folder): check that GPU "
            "workloads fit the cluster; the Nodes are linted too.",
        ),
        option(
            "--pods",
            type=path(exists=True, readable=False),
            help="Running pods ('kubectl get pods -A -o yaml'): subtract the GPUs they hold.",
        ),
        option(
            "--values-for",
            type=click.Choice(_CHARTS),
            help="Read YAML files that are not Kubernetes objects as this chart's values "
            "(for values files gpulint cannot place by content).",
        ),
        option(
            "--only-manifests",
            is_flag=True,
            help="Skip named files that do not parse and are not Kubernetes (no "
            "apiVersion/kind), as a folder walk does (the pre-commit hook passes it).",
        ),
        *adoption.options(),
        *render_flags.options(),
        *fix_options.options(),
    ]
