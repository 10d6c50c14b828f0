"""What a folder is: a Helm chart (or its ``templates/``), a kustomization.

Discovery, deployable units, the renderers and the output guard ask the same questions
of a folder; the answers live here, below all of them.
"""

from __future__ import annotations

import os

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


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
