"""Folder handlers for discovery and the readers of the targets they claim.

The command line adds :data:`READERS` to the run's readers; Helm and Kustomize
themselves (and subprocess) are imported only when a folder of theirs is read.
"""

from __future__ import annotations

from gpulint.core.findings import InputError
from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.inputs.discover import FolderHandler, FolderMarker, Target, display_path
from gpulint.inputs.folders import chart_root, kustomization_file
from gpulint.inputs.readers import PLAIN, Readers


def claim_chart(folder: str) -> list[Target] | None:
    """A Helm chart folder: rendered as a whole; its Go templates are never read as YAML."""
    root = chart_root(folder)
    if root is None:
        return None
    return [Target(display_path(root), "helm")]


def mark_kustomization(folder: str) -> list[Target] | None:
    """A kustomization folder: a render target, while its files are still walked
    (``inputs/units.py`` decides which of them are linted through which render)."""
    if kustomization_file(folder) is None:
        return None
    return [Target(display_path(folder), "kustomize")]


def folder_handlers() -> list[FolderHandler]:
    return [claim_chart]


def folder_markers() -> list[FolderMarker]:
    return [mark_kustomization]


def _read_helm(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    from gpulint.inputs.render import helm

    return helm.read(target, settings)


def _read_helm_release(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    from gpulint.inputs.render import helm

    return helm.read_release(target, settings)


def _read_kustomize(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    from gpulint.inputs.render import kustomize

    return kustomize.read(target, settings)


def _chart_dir_hook(source: Source, settings: Settings) -> None:
    chart_dir = settings.render.chart_dir
    if chart_dir and "mapper" not in source.meta and "# Source: " in source.text:
        from gpulint.inputs.render import helm

        helm.attach_chart_dir(source, chart_dir, settings)


# Plain files, standard input, chart and kustomization folders.
READERS: Readers = PLAIN.extended(
    {"helm": _read_helm, "helm-release": _read_helm_release, "kustomize": _read_kustomize},
    (_chart_dir_hook,),
)
