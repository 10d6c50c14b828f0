"""The command-line options of rendering; they reach ``Settings.render``, not the command."""

from __future__ import annotations

import argparse
import re

from gpulint.cli.option_groups import choices_metavar, number, path
from gpulint.core.settings import DEFAULT_RELEASE_NAME, DEFAULT_RENDER_TIMEOUT, RenderOptions
from gpulint.inputs.discover import FolderHandler, FolderMarker
from gpulint.inputs.readers import Readers
from gpulint.inputs.render import targets

_RESTRICTORS = ("LoadRestrictionsRootOnly", "LoadRestrictionsNone")
# An hour for one render: no chart takes that long, and a finite bound is what the
# process module's timers can hold (inf overflows them, nan is no time at all).
MAX_RENDER_TIMEOUT = 3600
# helm's own rules (chartutil.ValidateReleaseName), and a namespace's (a DNS-1123 label):
# a value that breaks them is a usage error here, never an argument helm could misread.
_RELEASE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def release_name(value: str) -> str:
    if len(value) > 53 or not _RELEASE_NAME.fullmatch(value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a valid release name (helm's rule: lowercase letters, digits, "
            "'-' and '.', beginning and ending with a letter or digit, at most 53 characters)"
        )
    return value


def namespace(value: str) -> str:
    if len(value) > 63 or not _DNS_LABEL.fullmatch(value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a valid namespace (a DNS-1123 label: lowercase letters, digits "
            "and '-', beginning and ending with a letter or digit, at most 63 characters)"
        )
    return value


def add_options(parser: argparse.ArgumentParser) -> None:
    """The Helm and Kustomize options, in a group of their own; read back by :func:`given`."""
    group = parser.add_argument_group("Helm and Kustomize")
    group.add_argument(
        "-f",
        "--values",
        dest="helm_values",
        action="append",
        type=path(exists=True, dir_okay=False),
        metavar="FILE",
        help="Helm values file for chart folders, as helm's --values/-f (repeatable).",
    )
    group.add_argument(
        "--set",
        dest="helm_set",
        action="append",
        metavar="KEY=VALUE",
        help="Helm --set for chart folders.",
    )
    group.add_argument(
        "--release-name",
        type=release_name,
        default=DEFAULT_RELEASE_NAME,
        metavar="TEXT",
        help=f"Release name chart folders are rendered with.  [default: {DEFAULT_RELEASE_NAME}]",
    )
    group.add_argument(
        "--namespace",
        type=namespace,
        metavar="TEXT",
        help="Namespace chart folders are rendered in.",
    )
    group.add_argument(
        "--kube-version",
        metavar="TEXT",
        help="Kubernetes version for helm --kube-version; also the release whose kubelet "
        "GPU318 judges feature gates for.",
    )
    group.add_argument(
        "--chart-dir",
        type=path(exists=True, file_okay=False),
        metavar="DIRECTORY",
        help="Chart folder of a rendered stream: findings also name the template line.",
    )
    group.add_argument(
        "--load-restrictor",
        choices=_RESTRICTORS,
        metavar=choices_metavar(_RESTRICTORS),
        help="Passed to kustomize for Kustomize folders.",
    )
    group.add_argument(
        "--enable-krm-functions",
        action="store_true",
        help="Let kustomize run exec and container KRM functions (off by default).",
    )
    group.add_argument(
        "--skip-unrenderable",
        action="store_true",
        help="Charts and kustomizations that cannot be rendered (no helm or kustomize, a "
        "failed render) are notes, not input errors (exit 2): accept that they go unchecked.",
    )
    group.add_argument(
        "--render-timeout",
        type=number(float, 1, MAX_RENDER_TIMEOUT),
        default=DEFAULT_RENDER_TIMEOUT,
        metavar="FLOAT RANGE",
        help="Seconds one helm or kustomize run may take.  "
        f"[default: {DEFAULT_RENDER_TIMEOUT}; 1<=x<={MAX_RENDER_TIMEOUT}]",
    )


def given(options: argparse.Namespace) -> RenderOptions:
    """The options as parsed (defaults for those not given)."""
    return RenderOptions(
        values=tuple(options.helm_values or ()),
        set_values=tuple(options.helm_set or ()),
        release_name=options.release_name or DEFAULT_RELEASE_NAME,
        namespace=options.namespace,
        kube_version=options.kube_version,
        chart_dir=options.chart_dir,
        load_restrictor=options.load_restrictor,
        enable_plugins=bool(options.enable_krm_functions),
        timeout=float(options.render_timeout or DEFAULT_RENDER_TIMEOUT),
        follow_symlinks=bool(getattr(options, "follow_symlinks", False)),
    )


def handlers() -> list[FolderHandler]:
    """Folder handlers for discovery: chart folders."""
    return targets.folder_handlers()


def markers() -> list[FolderMarker]:
    """Folder markers for discovery: kustomizations, walked on and sorted into units."""
    return targets.folder_markers()


def readers() -> Readers:
    """The readers of every target kind discovery may produce."""
    return targets.READERS
