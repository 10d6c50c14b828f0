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
  values in ``helm.valuesObject`` (argo-cd.readthedocs.io, "Helm"); an ApplicationSet
  holds the same under ``spec.template``. ``helm.values`` is a YAML string, not read here;
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


def _chart_name(reference: Any) -> str | None:
    if not isinstance(reference, str) or not reference.strip():
        return None
    return reference.strip().rstrip("/").rsplit("/", 1)[-1] or None


def _group(data: dict) -> str:
    api = data.get("apiVersion")
    return api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""


def _get(data: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


def chart_values(data: Any) -> Iterator[tuple[str, tuple]]:
    """(chart name, path of its inline values mapping) for each release the document holds."""
    if not isinstance(data, dict):
        return
    group, kind = _group(data), data.get("kind")
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        yield from _found(_get(data, "spec", "chart", "spec", "chart"), data, ("spec", "values"))
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        yield from _argo_sources(data, spec)
    elif group == "kustomize.config.k8s.io" and kind == "Kustomization":
        yield from _each(data, ("helmCharts",), "name", ("valuesInline",))
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        yield from _helmfile(data)


def _found(reference: Any, data: dict, path: tuple) -> Iterator[tuple[str, tuple]]:
    name = _chart_name(reference)
    if name is not None and isinstance(_get(data, *path), dict):
        yield name, path


def _argo_sources(data: dict, spec: tuple) -> Iterator[tuple[str, tuple]]:
    single = _get(data, *spec, "source")
    sources = [(spec + ("source",), single)] if isinstance(single, dict) else []
    many = _get(data, *spec, "sources")
    if isinstance(many, list):
        sources += [(spec + ("sources", i), s) for i, s in enumerate(many) if isinstance(s, dict)]
    for at, source in sources:
        reference = source.get("chart") or source.get("path")
        yield from _found(reference, data, at + ("helm", "valuesObject"))


def _each(data: dict, where: tuple, name_key: str, values: tuple) -> Iterator[tuple[str, tuple]]:
    entries = _get(data, *where)
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
