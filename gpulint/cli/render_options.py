"""The command-line options of rendering; they reach ``Settings.render``, not the command."""

from __future__ import annotations

import click

from gpulint.cli.option_groups import Decorator, Options, number, option, path, pattern_type
from gpulint.core.lazy_re import lazy
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
_RELEASE_NAME = lazy(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS_LABEL = lazy(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def _release_name_fault(value: str) -> str | None:
    if len(value) > 53 or not _RELEASE_NAME.fullmatch(value):
        return (
            f"{value!r} is not a valid release name (helm's rule: lowercase letters, digits, "
            "'-' and '.', beginning and ending with a letter or digit, at most 53 characters)"
        )
    return None


def _namespace_fault(value: str) -> str | None:
    if len(value) > 63 or not _DNS_LABEL.fullmatch(value):
        return (
            f"{value!r} is not a valid namespace (a DNS-1123 label: lowercase letters, digits "
            "and '-', beginning and ending with a letter or digit, at most 63 characters)"
        )
    return None


_SECTION = "Helm and Kustomize"


def options() -> list[Decorator]:
    """The Helm and Kustomize options, in a section of their own; read back by :func:`given`."""
    return [
        option(
            "-f",
            "--values",
            "helm_values",
            multiple=True,
            type=path(exists=True, dir_okay=False),
            metavar="FILE",
            section=_SECTION,
            help="Helm values file for chart folders, as helm's --values/-f (repeatable).",
        ),
        option(
            "--set",
            "helm_set",
            multiple=True,
            metavar="KEY=VALUE",
            section=_SECTION,
            help="Helm --set for chart folders.",
        ),
        option(
            "--release-name",
            default=DEFAULT_RELEASE_NAME,
            show_default=True,
            callback=pattern_type("release_name", _release_name_fault),
            section=_SECTION,
            help="Release name chart folders are rendered with.",
        ),
        option(
            "--namespace",
            callback=pattern_type("namespace", _namespace_fault),
            section=_SECTION,
            help="Namespace chart folders are rendered in.",
        ),
        option(
            "--kube-version",
            section=_SECTION,
            help="Kubernetes version for helm --kube-version; also the release whose kubelet "
            "GPU318 judges feature gates for.",
        ),
        option(
            "--chart-dir",
            type=path(exists=True, file_okay=False),
            section=_SECTION,
            help="Chart folder of a rendered stream: findings also name the template line.",
        ),
        option(
            "--load-restrictor",
            type=click.Choice(_RESTRICTORS),
            section=_SECTION,
            help="Passed to kustomize for Kustomize folders.",
        ),
        option(
            "--enable-krm-functions",
            is_flag=True,
            section=_SECTION,
            help="Let kustomize run exec and container KRM functions (off by default).",
        ),
        option(
            "--skip-unrenderable",
            is_flag=True,
            section=_SECTION,
            help="Charts and kustomizations that cannot be rendered (no helm or kustomize, a "
            "failed render) are notes, not input errors (exit 2): accept that they go "
            "unchecked.",
        ),
        option(
            "--render-timeout",
            type=number(float, 1, MAX_RENDER_TIMEOUT),
            default=DEFAULT_RENDER_TIMEOUT,
            section=_SECTION,
            help="Seconds one helm or kustomize run may take.  "
            f"[default: {DEFAULT_RENDER_TIMEOUT}; 1<=x<={MAX_RENDER_TIMEOUT}]",
        ),
    ]


def given(options: Options) -> RenderOptions:
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
