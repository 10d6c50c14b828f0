"""The command-line options of rendering; they reach ``Settings.render``, not the command."""

from __future__ import annotations

from collections.abc import Callable

import click

from gpulint.cli.option_groups import option_group
from gpulint.config.settings import DEFAULT_RELEASE_NAME, DEFAULT_RENDER_TIMEOUT, RenderOptions
from gpulint.inputs.discover import FolderHandler, FolderMarker
from gpulint.inputs.readers import Readers
from gpulint.inputs.render import targets

_META_KEY = "gpulint.inputs.render"
_NAMES = (
    "helm_values",
    "helm_set",
    "release_name",
    "namespace",
    "kube_version",
    "chart_dir",
    "load_restrictor",
    "enable_krm_functions",
    "render_timeout",
)


def options(command: Callable) -> Callable:
    """Adds the Helm and Kustomize options to a click command."""
    return option_group(_META_KEY, _NAMES, _decorators())(command)


def _decorators() -> list[Callable]:
    return [
        click.option(
            "--values",
            "-f",
            "helm_values",
            multiple=True,
            type=click.Path(exists=True, dir_okay=False),
            help="Helm values file for chart folders, as helm's --values/-f (repeatable).",
        ),
        click.option(
            "--set",
            "helm_set",
            multiple=True,
            metavar="KEY=VALUE",
            help="Helm --set for chart folders.",
        ),
        click.option(
            "--release-name",
            default=DEFAULT_RELEASE_NAME,
            show_default=True,
            help="Release name chart folders are rendered with.",
        ),
        click.option("--namespace", default=None, help="Namespace chart folders are rendered in."),
        click.option(
            "--kube-version",
            default=None,
            help="Kubernetes version for helm --kube-version; also the release whose kubelet "
            "GPU318 judges feature gates for.",
        ),
        click.option(
            "--chart-dir",
            default=None,
            type=click.Path(exists=True, file_okay=False),
            help="Chart folder of a rendered stream: findings also name the template line.",
        ),
        click.option(
            "--load-restrictor",
            type=click.Choice(["LoadRestrictionsRootOnly", "LoadRestrictionsNone"]),
            default=None,
            help="Passed to kustomize for Kustomize folders.",
        ),
        click.option(
            "--enable-krm-functions",
            is_flag=True,
            help="Let kustomize run exec and container KRM functions (off by default).",
        ),
        click.option(
            "--render-timeout",
            type=click.FloatRange(min=1),
            default=DEFAULT_RENDER_TIMEOUT,
            show_default=True,
            help="Seconds one helm or kustomize run may take.",
        ),
    ]


def given() -> RenderOptions:
    """The options as given to the current command (defaults for those not given)."""
    mine = click.get_current_context().meta.get(_META_KEY, {})
    return RenderOptions(
        values=tuple(mine.get("helm_values", ())),
        set_values=tuple(mine.get("helm_set", ())),
        release_name=mine.get("release_name") or DEFAULT_RELEASE_NAME,
        namespace=mine.get("namespace"),
        kube_version=mine.get("kube_version"),
        chart_dir=mine.get("chart_dir"),
        load_restrictor=mine.get("load_restrictor"),
        enable_plugins=bool(mine.get("enable_krm_functions")),
        timeout=float(mine.get("render_timeout") or DEFAULT_RENDER_TIMEOUT),
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
