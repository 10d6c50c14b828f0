"""The command-line options of rendering; they reach Settings.extra, not the command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from gpulint.cli.option_groups import option_group
from gpulint.inputs.render import DEFAULT_TIMEOUT, RenderOptions

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
            default="release-name",
            show_default=True,
            help="Release name chart folders are rendered with.",
        ),
        click.option("--namespace", default=None, help="Namespace chart folders are rendered in."),
        click.option(
            "--kube-version", default=None, help="Kubernetes version for helm --kube-version."
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
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help="Seconds one helm or kustomize run may take.",
        ),
    ]


def apply(settings: Any) -> None:
    """Put the options into ``settings.extra['render']`` for the readers."""
    mine = click.get_current_context().meta.get(_META_KEY, {})
    settings.extra["render"] = RenderOptions(
        values=tuple(mine.get("helm_values", ())),
        set_values=tuple(mine.get("helm_set", ())),
        release_name=mine.get("release_name") or "release-name",
        namespace=mine.get("namespace"),
        kube_version=mine.get("kube_version"),
        chart_dir=mine.get("chart_dir"),
        load_restrictor=mine.get("load_restrictor"),
        enable_plugins=bool(mine.get("enable_krm_functions")),
        timeout=float(mine.get("render_timeout") or DEFAULT_TIMEOUT),
    )


def handlers() -> list:
    """Folder handlers for discovery (importing them registers the readers)."""
    from gpulint.inputs.render.targets import folder_handlers

    return folder_handlers()
