"""The options of ``gpulint check``: its own, then each feature module's group."""

from __future__ import annotations

from gpulint.cli import adoption, fix_options
from gpulint.cli import render_options as render_flags
from gpulint.cli.option_groups import Parser, choices_metavar, number, path
from gpulint.report import FORMATS


def check_parser() -> Parser:
    """``gpulint check``: its own options, then each feature module's group."""
    parser = Parser(
        "gpulint check",
        "%(prog)s [OPTIONS] [PATHS]...",
        "Lint manifests, folders, or standard input ('-').",
    )
    # readable=False: a path that cannot be read is a located input error of its own and
    # the other paths are still linted (never a usage error that ends the run).
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATHS",
        help="Files and folders to lint; '-' is standard input (default: .).",
    )
    add = parser.add_argument
    add(
        "--format",
        dest="formats",
        action="append",
        choices=FORMATS,
        metavar=choices_metavar(FORMATS),
        help="Output format; repeat for several outputs (paired in order with --output). "
        "Default: text, or github when GITHUB_ACTIONS=true.",
    )
    add(
        "-o",
        "--output",
        dest="outputs",
        action="append",
        type=path(dir_okay=False),
        metavar="FILE",
        help="File for the format in the same position ('-' or none: standard output).",
    )
    add(
        "--select",
        action="append",
        metavar="TEXT",
        help="Rules to run (codes, code prefixes or names).",
    )
    add(
        "--ignore",
        action="append",
        metavar="TEXT",
        help="Rules to skip (codes, code prefixes or names).",
    )
    severities = ("error", "warning", "note")
    add(
        "--fail-on",
        choices=severities,
        metavar=choices_metavar(severities),
        help="Lowest severity that makes the exit code 1 (default: warning).",
    )
    add(
        "--exit-zero",
        action="store_true",
        help="Exit 0 even when findings are reported (a report-only run); input errors "
        "still exit 2.",
    )
    add(
        "-q",
        "--quiet",
        action="store_true",
        help="Text report: findings and input errors only, no notes or summary line.",
    )
    add(
        "--statistics",
        action="store_true",
        help="Text report: how many findings each rule reported, instead of the findings.",
    )
    colors = ("auto", "always", "never")
    add(
        "--color",
        dest="color_when",
        choices=colors,
        default="auto",
        metavar=choices_metavar(colors),
        help="Colour the text report: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it).",
    )
    add("--stdin-filename", metavar="TEXT", help="Name to give standard input ('-').")
    add("-v", "--verbose", action="store_true", help="Say more about what was read and how.")
    add(
        "--debug",
        action="store_true",
        help="Show the traceback of an internal error (also GPULINT_DEBUG=1).",
    )
    add(
        "--follow-symlinks",
        action="store_true",
        help="In folders, follow symbolic links that lead out of the folder (not followed by "
        "default; --verbose names them).",
    )
    add(
        "--no-ignore",
        action="store_true",
        help="Walk what .gitignore (in a git work tree) and .ignore files exclude too "
        "(respected by default; hidden folders are never walked).",
    )
    add(
        "-j",
        "--jobs",
        type=number(int, 1),
        metavar="INTEGER RANGE",
        help="Worker processes (default: the number of cores; used only for large inputs).  [x>=1]",
    )
    add(
        "--cluster",
        action="append",
        type=path(exists=True, readable=False),
        metavar="PATH",
        help="Node objects ('kubectl get nodes -o yaml', a file or folder): check that GPU "
        "workloads fit the cluster; the Nodes are linted too.",
    )
    add(
        "--pods",
        type=path(exists=True, readable=False),
        metavar="PATH",
        help="Running pods ('kubectl get pods -A -o yaml'): subtract the GPUs they hold.",
    )
    charts = ("nvidia-device-plugin", "gpu-operator")
    add(
        "--values-for",
        choices=charts,
        metavar=choices_metavar(charts),
        help="Read YAML files that are not Kubernetes objects as this chart's values "
        "(for values files gpulint cannot place by content).",
    )
    add(
        "--only-manifests",
        action="store_true",
        help="Skip named files that do not parse and are not Kubernetes (no apiVersion/kind), "
        "as a folder walk does (the pre-commit hook passes it).",
    )
    parser.add_help_option()
    adoption.add_options(parser)
    render_flags.add_options(parser)
    fix_options.add_options(parser)
    return parser
