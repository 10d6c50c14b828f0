"""Renderers: Helm chart folders and Kustomize folders become rendered sources.

This package is the only place gpulint starts processes (see ``process.py``).
Discovery asks the handlers in ``targets.py`` whether a folder is a chart or a
kustomization; the engine then calls the reader registered there for that
target kind. The Helm and Kustomize modules are imported only when a folder
of theirs is read, so a run over plain files pays nothing for them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpulint.config.settings import Settings

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
DEFAULT_TIMEOUT = 120.0  # seconds for one helm or kustomize run


@dataclass(frozen=True)
class RenderOptions:
    """What the command line passes to the renderers (picklable, kept in Settings.extra)."""

    values: tuple[str, ...] = ()  # helm --values files
    set_values: tuple[str, ...] = ()  # helm --set KEY=VALUE
    release_name: str = "release-name"  # what `helm template` calls a release by default
    namespace: str | None = None
    kube_version: str | None = None
    chart_dir: str | None = None  # maps `# Source:` of a rendered stream to template files
    load_restrictor: str | None = None  # kustomize --load-restrictor
    enable_plugins: bool = False  # kustomize exec/container KRM functions (off unless asked)
    timeout: float = DEFAULT_TIMEOUT


def options(settings: Settings) -> RenderOptions:
    found = settings.extra.get("render")
    return found if isinstance(found, RenderOptions) else RenderOptions()


def chart_root(folder: str) -> str | None:
    """The chart a folder is, or lies inside (``templates/`` of a chart)."""
    if os.path.isfile(os.path.join(folder, "Chart.yaml")):
        return folder
    parent = os.path.dirname(os.path.normpath(folder))
    in_templates = os.path.basename(os.path.normpath(folder)) == "templates"
    if in_templates and parent and os.path.isfile(os.path.join(parent, "Chart.yaml")):
        return parent
    return None


def kustomization_file(folder: str) -> str | None:
    for name in KUSTOMIZATION_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None
