"""The values of a kustomize ``helmCharts`` entry, in the order Helm gets them (issue 27).

kustomize's ``HelmChartInflationGenerator`` (``api/internal/builtins/
HelmChartInflationGenerator.go``; the fields in ``api/types/helmchartargs.go``):

- ``valuesFile`` (default: the chart's own ``<chartHome>/<name>/values.yaml``) and
  ``valuesInline`` are combined first, into one file: when ``valuesInline`` is not empty,
  ``override`` (the default) merges it over the file (``mergo.WithOverride``), ``merge``
  merges it under the file (mergo without override: the file's values are kept, the inline
  ones fill what the file lacks; ``yaml/mergo_fill.py``), ``replace`` uses it alone; an empty
  ``valuesInline`` leaves the file as it is. Any other ``valuesMerge`` fails the build.
- Helm then gets ``-f <that file>`` followed by ``-f <each additionalValuesFiles item>`` in
  list order (``HelmChart.AsHelmArgs``), so each additional file is merged over what comes
  before it, Helm's way. Each is "relative to the kust root" and loaded through the
  kustomization's loader first ("use Load() to enforce root restrictions", ``validateArgs``),
  as ``valuesFile`` is.

With ``merge`` and no ``valuesFile`` the inline values lie under the chart's own values,
which are not in the repository: what they set is not established, so they are not read.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import record

MERGE_OPTIONS = ("override", "merge", "replace")


@record(frozen=True)
class Under:
    """The inline values at ``path``, merged under the layers before them (``merge``)."""

    path: tuple


def chart_layers(entry: dict, release: tuple) -> list | None:
    """The values of the entry at ``release``, lowest precedence first: a values file as
    (name, path of the name), the entry's own ``valuesInline`` as its path (or
    :class:`Under`); None when the entry names no values file (its inline values alone)."""
    named = entry.get("valuesFile")
    file = (named, release + ("valuesFile",)) if isinstance(named, str) and named else None
    additional = _additional(entry.get("additionalValuesFiles"), release)
    if file is None and not additional:
        return None
    merge = entry.get("valuesMerge") or "override"
    if merge not in MERGE_OPTIONS:
        return None  # kustomize refuses the entry: nothing it builds to judge
    return _base(file, entry.get("valuesInline"), merge, release) + additional


def _additional(items: Any, release: tuple) -> list:
    if not isinstance(items, list):
        return []
    at = release + ("additionalValuesFiles",)
    return [(name, at + (i,)) for i, name in enumerate(items) if isinstance(name, str) and name]


def _base(file: tuple | None, inline: Any, merge: str, release: tuple) -> list:
    """The one file kustomize hands Helm first: ``valuesFile`` and ``valuesInline``."""
    own = release + ("valuesInline",)
    files = [file] if file is not None else []
    if not isinstance(inline, dict) or not inline:
        return files  # an empty valuesInline: the file as it is
    if merge == "replace":
        return [own]
    if merge == "merge":
        # under the chart's own values.yaml (no valuesFile): not in the repository
        return files + [Under(own)] if files else []
    return files + [own]
