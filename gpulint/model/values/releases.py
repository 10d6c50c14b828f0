"""Where GitOps objects keep a chart's values inline: Flux ``HelmRelease``, Argo CD
``Application`` and ``ApplicationSet``, kustomize's ``helmCharts:``, Helmfile's
``releases:``. Each yields (chart name, path of the values mapping in the document), so the
values rules judge those values at their own lines, as if they were the chart's
``values.yaml``.

Field paths, from each tool's API reference:

- Flux ``helm.toolkit.fluxcd.io`` HelmRelease: ``spec.chart.spec.chart`` names the chart,
  ``spec.values`` holds the values (fluxcd.io/flux/components/helm/helmreleases);
- Argo CD ``argoproj.io`` Application: ``spec.source`` or each of ``spec.sources``, its
  ``chart`` (a Helm repository) or the last folder of its ``path`` (a chart in Git), the
  values in ``helm.valuesObject``, or as a YAML string in ``helm.values`` (read inside:
  ``yaml/embedded.INSIDE``) (argo-cd.readthedocs.io, "Helm"); an ApplicationSet holds the
  same under ``spec.template``;
- kustomize ``kustomize.config.k8s.io`` Kustomization: ``helmCharts[].name`` and
  ``helmCharts[].valuesInline`` (kubectl.docs.kubernetes.io, "helmCharts");
- Helmfile (``helmfile.yaml``): ``releases[].chart`` (``repo/name``) and the mappings in
  ``releases[].values[]`` (helmfile.readthedocs.io).

A chart reference names a chart by its last path segment (``nvdp/nvidia-device-plugin``,
``oci://nvcr.io/nvidia/gpu-operator``); a name that is a placeholder names nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.values.paths import at_path
from gpulint.yaml.embedded import INSIDE


@record(frozen=True)
class ChartVersion:
    """The chart version a release pins, as written (None: not set), and where."""

    chart: str
    version: str | None
    path: tuple  # the version's path, or the chart reference's when the version is not set


# Semver ranges and wildcards as Flux, Argo CD, kustomize and Helmfile read them
# (Masterminds/semver constraints): anything but one exact version floats.
_RANGE = lazy(r"[*^~<>=|,]|(?:^|\.)[xX](?:\.|$)|\s-\s|^\s*$|^latest$|^v?\d+(?:\.\d+)?$")


def floats(version: str | None) -> bool:
    """Whether ``version`` leaves the release to the newest chart that matches it: unset,
    a range (``>=0.14``, ``0.x``, ``^0.17``, ``*``) or a partial one (``0.17``)."""
    return version is None or bool(_RANGE.search(version.strip()))


def chart_versions(data: Any) -> Iterator[ChartVersion]:
    """The chart version of each release the GitOps document holds (``chart_values``'
    objects): Flux ``spec.chart.spec.version``, Argo CD ``targetRevision`` of a source
    that names a ``chart`` (a Helm repository; a Git source's revision is a branch or a
    commit), kustomize ``helmCharts[].version``, Helmfile ``releases[].version``."""
    if not isinstance(data, dict):
        return
    group, kind = _group(data), data.get("kind")
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        chart = ("spec", "chart", "spec")
        yield from _version(data, chart + ("chart",), chart + ("version",))
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec: tuple = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        sources: list[tuple] = [spec + ("source",)]
        many = at_path(data, (*spec, "sources"))
        if isinstance(many, list):
            sources += [spec + ("sources", i) for i in range(len(many))]
        for at in sources:
            if isinstance(at_path(data, at), dict):
                yield from _version(data, at + ("chart",), at + ("targetRevision",))
    elif group == "kustomize.config.k8s.io" and kind == "Kustomization":
        entries = at_path(data, ("helmCharts",))
        for i in range(len(entries) if isinstance(entries, list) else 0):
            yield from _version(data, ("helmCharts", i, "name"), ("helmCharts", i, "version"))
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        for i in range(len(data["releases"])):
            yield from _version(data, ("releases", i, "chart"), ("releases", i, "version"))


def _version(data: dict, chart_at: tuple, version_at: tuple) -> Iterator[ChartVersion]:
    name = _chart_name(at_path(data, chart_at))
    if name is None:
        return
    version = at_path(data, version_at)
    if version is None:
        yield ChartVersion(name, None, chart_at)
    elif isinstance(version, str | int | float) and not isinstance(version, bool):
        yield ChartVersion(name, str(version), version_at)


def _chart_name(reference: Any) -> str | None:
    if not isinstance(reference, str) or not reference.strip():
        return None
    return reference.strip().rstrip("/").rsplit("/", 1)[-1] or None


def _group(data: dict) -> str:
    api = data.get("apiVersion")
    return api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""


def chart_values(data: Any) -> Iterator[tuple[str, tuple]]:
    """(chart name, path of its inline values mapping) for each release the document holds."""
    if not isinstance(data, dict):
        return
    group, kind = _group(data), data.get("kind")
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        yield from _found(
            at_path(data, ("spec", "chart", "spec", "chart")), data, ("spec", "values")
        )
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        yield from _argo_sources(data, spec)
    elif group == "kustomize.config.k8s.io" and kind == "Kustomization":
        yield from _each(data, ("helmCharts",), "name", ("valuesInline",))
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        yield from _helmfile(data)


def _found(reference: Any, data: dict, path: tuple) -> Iterator[tuple[str, tuple]]:
    name = _chart_name(reference)
    if name is not None and isinstance(at_path(data, path), dict):
        yield name, path


def _argo_sources(data: dict, spec: tuple) -> Iterator[tuple[str, tuple]]:
    single = at_path(data, (*spec, "source"))
    sources = [(spec + ("source",), single)] if isinstance(single, dict) else []
    many = at_path(data, (*spec, "sources"))
    if isinstance(many, list):
        sources += [(spec + ("sources", i), s) for i, s in enumerate(many) if isinstance(s, dict)]
    for at, source in sources:
        reference = source.get("chart") or source.get("path")
        # helm.values: the same values as a YAML string (Argo CD merges valuesObject over it)
        yield from _found(reference, data, at + ("helm", "values", INSIDE))
        yield from _found(reference, data, at + ("helm", "valuesObject"))


def _each(data: dict, where: tuple, name_key: str, values: tuple) -> Iterator[tuple[str, tuple]]:
    entries = at_path(data, where)
    if not isinstance(entries, list):
        return
    for i, entry in enumerate(entries):
        if isinstance(entry, dict):
            yield from _found(entry.get(name_key), data, where + (i, *values))


def _helmfile(data: dict) -> Iterator[tuple[str, tuple]]:
    for i, release in enumerate(data["releases"]):
        values = release.get("values") if isinstance(release, dict) else None
        if not isinstance(values, list):
            continue
        for j, _ in enumerate(values):
            yield from _found(release.get("chart"), data, ("releases", i, "values", j))
