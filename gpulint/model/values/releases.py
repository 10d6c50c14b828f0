"""Where GitOps objects keep a chart's values: Flux ``HelmRelease``, Argo CD
``Application`` and ``ApplicationSet``, kustomize's ``helmCharts:``, Helmfile's
``releases:``. Each yields (chart name, path of the values mapping in the document), so the
values rules judge those values at their own lines, as if they were the chart's
``values.yaml``.

Field paths, from each tool's API reference:

- Flux ``helm.toolkit.fluxcd.io`` HelmRelease: ``spec.chart.spec.chart`` names the chart
  (its ``version`` applies to a HelmRepository source only: a GitRepository's or Bucket's
  chart is pinned by the source's revision), ``spec.values`` holds the values
  (fluxcd.io/flux/components/helm/helmreleases, "Chart template", "Inline values";
  fluxcd.io/flux/components/source/helmcharts, "Version"); ``spec.chartRef`` names an
  OCIRepository or HelmChart object, ``spec.valuesFrom`` ConfigMaps and Secrets
  ("Chart reference", "Values references"), read when they are in the run
  (``inputs/gitops_values.py``);
- Argo CD ``argoproj.io`` Application: ``spec.source`` or each of ``spec.sources``, its
  ``chart`` (a Helm repository) or the last folder of its ``path`` (a chart in Git), the
  values in ``helm.valuesObject``, else as a YAML string in ``helm.values`` (read inside:
  ``yaml/embedded.INSIDE``; Argo CD hands Helm ``valuesObject`` when it is set, else
  ``values``: ``ApplicationSourceHelm.ValuesYAML``), and ``helm.parameters`` over them
  (each ``{name, value, forceString}`` one ``--set``, ``model/values/set_path.py``); "Order
  of precedence is parameters > valuesObject > values > valueFiles"
  (argo-cd.readthedocs.io, "Helm"); an ApplicationSet holds the same under
  ``spec.template``;
- kustomize ``kustomize.config.k8s.io`` Kustomization: ``helmCharts[].name`` and
  ``helmCharts[].valuesInline`` (kubectl.docs.kubernetes.io, "helmCharts"), with the
  ``valuesFile`` and ``additionalValuesFiles`` when they are read, in kustomize's order
  (``inputs/kustomize_chart_values.py``); with ``valuesMerge: merge`` and no ``valuesFile``
  the inline values lie under the chart's own ``values.yaml``: not read;
- Helmfile (``helmfile.yaml``): ``releases[].chart`` (``repo/name``) and
  ``releases[].values[]``, each a mapping or a values file, later ones over earlier ones
  (helmfile.readthedocs.io, "Values Merging and Data Flow").

A release whose values come from more than one place is one merged view
(``yaml/layered.Layered``): the rules judge what the chart gets, and each finding is
placed where the value it is about is written.

A chart reference names a chart by its last path segment (``nvdp/nvidia-device-plugin``,
``oci://nvcr.io/nvidia/gpu-operator``); a name that is a placeholder names nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.values import joined, set_path
from gpulint.model.values.paths import at_path
from gpulint.yaml.embedded import INSIDE
from gpulint.yaml.layered import Layer, Layered, steps_in


@record(frozen=True)
class ChartVersion:
    """The chart version a release pins, as written (None: not set), and where."""

    chart: str
    version: str | None
    path: tuple  # the version's path, or the chart reference's when the version is not set
    release: tuple = ()  # the release's path in the object: its values belong to it


# Semver ranges and wildcards as Flux, Argo CD, kustomize and Helmfile read them
# (Masterminds/semver constraints): anything but one exact version floats.
_RANGE = lazy(r"[*^~<>=|,]|(?:^|\.)[xX](?:\.|$)|\s-\s|^\s*$|^latest$|^v?\d+(?:\.\d+)?$")
_FLUX_RELEASE = ("spec",)
_FLUX_CHART = ("spec", "chart", "spec")


def floats(version: str | None) -> bool:
    """Whether ``version`` leaves the release to the newest chart that matches it: unset,
    a range (``>=0.14``, ``0.x``, ``^0.17``, ``*``) or a partial one (``0.17``)."""
    return version is None or bool(_RANGE.search(version.strip()))


def belongs(values_prefix: tuple, release: tuple) -> bool:
    """Whether values placed at ``values_prefix`` are the release at ``release``'s."""
    step = steps_in(values_prefix)
    if step is not None:
        return values_prefix[step].release == release
    return values_prefix[: len(release)] == release


def chart_versions(data: Any) -> Iterator[ChartVersion]:
    """The chart version of each release the GitOps document holds (``chart_values``'
    objects): Flux ``spec.chart.spec.version`` (or what its ``chartRef`` names), Argo CD
    ``targetRevision`` of a source that names a ``chart`` (a Helm repository; a Git
    source's revision is a branch or a commit), kustomize ``helmCharts[].version``,
    Helmfile ``releases[].version``."""
    if not isinstance(data, dict):
        return
    group, kind = _group(data), data.get("kind")
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        yield from _flux_version(data)
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec: tuple = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        for at in argo_source_paths(data, spec):
            yield from _version(data, at + ("chart",), at + ("targetRevision",), at)
    elif group == "kustomize.config.k8s.io" and kind == "Kustomization":
        entries = at_path(data, ("helmCharts",))
        for i in range(len(entries) if isinstance(entries, list) else 0):
            at = ("helmCharts", i)
            yield from _version(data, at + ("name",), at + ("version",), at)
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        for i in range(len(data["releases"])):
            at = ("releases", i)
            yield from _version(data, at + ("chart",), at + ("version",), at)


def _flux_version(data: dict) -> Iterator[ChartVersion]:
    if isinstance(at_path(data, _FLUX_CHART), dict):
        source = at_path(data, _FLUX_CHART + ("sourceRef", "kind"))
        if source in (None, "HelmRepository"):  # a Git or Bucket source's chart has none
            yield from _version(
                data, _FLUX_CHART + ("chart",), _FLUX_CHART + ("version",), _FLUX_RELEASE
            )
        return
    extra = joined.of(data, _FLUX_RELEASE)
    if extra is None or extra.chart is None:
        return
    ref = extra.chart
    key = f"{extra.owner}:{_FLUX_RELEASE}:chart"
    step = joined.cached(key, lambda: Layered(key, _FLUX_RELEASE, (ref.place,), ref.place.label))
    yield ChartVersion(ref.chart, ref.version, (step,), _FLUX_RELEASE)


def _version(
    data: dict, chart_at: tuple, version_at: tuple, release: tuple
) -> Iterator[ChartVersion]:
    name = chart_name(at_path(data, chart_at))
    if name is None:
        return
    version = at_path(data, version_at)
    if version is None:
        yield ChartVersion(name, None, chart_at, release)
    elif isinstance(version, str | int | float) and not isinstance(version, bool):
        yield ChartVersion(name, str(version), version_at, release)


def chart_name(reference: Any) -> str | None:
    """The chart a reference names: its last path segment (an OCI tag or digest dropped)."""
    if not isinstance(reference, str) or not reference.strip():
        return None
    last = reference.strip().rstrip("/").rsplit("/", 1)[-1]
    if reference.strip().startswith("oci://"):
        last = last.split("@", 1)[0].split(":", 1)[0]
    return last or None


def _group(data: dict) -> str:
    api = data.get("apiVersion")
    return api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""


def chart_values(data: Any) -> Iterator[tuple[str, tuple]]:
    """(chart name, path of its values mapping) for each release the document holds; a
    release whose values come from several places has one path, through its merged view."""
    if not isinstance(data, dict):
        return
    group, kind = _group(data), data.get("kind")
    if group == "helm.toolkit.fluxcd.io" and kind == "HelmRelease":
        yield from _flux(data)
    elif group == "argoproj.io" and kind in ("Application", "ApplicationSet"):
        spec = ("spec", "template", "spec") if kind == "ApplicationSet" else ("spec",)
        yield from _argo_sources(data, spec)
    elif group == "kustomize.config.k8s.io" and kind == "Kustomization":
        yield from _kustomize(data)
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        yield from _helmfile(data)


def _flux(data: dict) -> Iterator[tuple[str, tuple]]:
    extra = joined.of(data, _FLUX_RELEASE)
    name = chart_name(at_path(data, _FLUX_CHART + ("chart",)))
    if name is None and extra is not None and extra.chart is not None:
        name = extra.chart.chart
    if name is None:
        return
    if extra is not None and extra.layers:
        view = _view(data, _FLUX_RELEASE, extra.layers, extra.label)
        if view is not None:
            yield name, view
        return
    yield from _found(name, data, ("spec", "values"))


def _found(reference: Any, data: dict, path: tuple) -> Iterator[tuple[str, tuple]]:
    name = chart_name(reference)
    if name is not None and isinstance(at_path(data, path), dict):
        yield name, path


def argo_source_paths(data: dict, spec: tuple) -> list[tuple]:
    sources: list[tuple] = []
    if isinstance(at_path(data, (*spec, "source")), dict):
        sources.append(spec + ("source",))
    many = at_path(data, (*spec, "sources"))
    if isinstance(many, list):
        sources += [spec + ("sources", i) for i, s in enumerate(many) if isinstance(s, dict)]
    return sources


def _argo_sources(data: dict, spec: tuple) -> Iterator[tuple[str, tuple]]:
    for at in argo_source_paths(data, spec):
        source = at_path(data, at)
        name = chart_name(source.get("chart") or source.get("path"))
        if name is None:
            continue
        helm = at + ("helm",)
        # Argo CD hands Helm valuesObject when it is set, else the values string
        base = helm + ("valuesObject",)
        if not isinstance(at_path(data, base), dict):
            base = helm + ("values", INSIDE)
        files = joined.of(data, at)  # $ref values files of this repository, read (lowest)
        layers: list = list(files.layers) if files is not None else []
        layers += [base] if isinstance(at_path(data, base), dict) else []
        layers += _parameters(data, helm + ("parameters",))
        if any(isinstance(layer, Layer) for layer in layers):
            label = "Argo CD values and parameters"
            view = _view(data, at, tuple(layers), label, at + ("helm",))
            if view is not None:
                yield name, view
        elif layers:
            yield name, layers[0]


def _parameters(data: dict, where: tuple) -> list[Layer]:
    """Each ``helm.parameters`` item a ``--set`` reads, as a point layer at its value."""
    items = at_path(data, where)
    found: list[Layer] = []
    for i, item in enumerate(items if isinstance(items, list) else ()):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        path = set_path.parse_name(item["name"])
        value = item.get("value", "")
        if path is None or not isinstance(value, str | int | float | bool):
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        typed = set_path.typed(text, item.get("forceString") is True)
        label = f"helm.parameters[{i}] {item['name']}"
        found.append(
            Layer(
                typed,
                at=path,
                point=True,
                host=where + (i, "value"),
                host_key=where + (i, "name"),
                label=label,
            )
        )
    return found


def _judged_before(seen: set, name: str, layers: tuple) -> bool:
    """Whether an earlier release of the document reads the same chart from the same values
    files alone (the same layers: a file is read once however many releases name it). Its
    findings would land at the same places, so it is judged once (500 releases naming one
    128 KB file judged it 500 times and never finished)."""
    if not layers or not all(isinstance(layer, Layer) for layer in layers):
        return False
    key = (name, tuple(id(layer) for layer in layers))
    if key in seen:
        return True
    seen.add(key)
    return False


def _kustomize(data: dict) -> Iterator[tuple[str, tuple]]:
    entries = at_path(data, ("helmCharts",))
    seen: set = set()
    for i, entry in enumerate(entries if isinstance(entries, list) else ()):
        if not isinstance(entry, dict):
            continue
        release = ("helmCharts", i)
        extra = joined.of(data, release)
        if extra is not None:  # no layers: a merge whose outcome is not established
            name = chart_name(entry.get("name"))
            if name is None or not extra.layers or _judged_before(seen, name, extra.layers):
                continue
            view = _view(data, release, extra.layers, extra.label)
            if view is not None:
                yield name, view
            continue
        if entry.get("valuesMerge") == "merge" and not entry.get("valuesFile"):
            continue  # under the chart's own values, which are not in the repository
        yield from _found(entry.get("name"), data, release + ("valuesInline",))


def _helmfile(data: dict) -> Iterator[tuple[str, tuple]]:
    seen: set = set()
    for i, release in enumerate(data["releases"]):
        values = release.get("values") if isinstance(release, dict) else None
        name = chart_name(release.get("chart")) if isinstance(release, dict) else None
        if name is None or not isinstance(values, list):
            continue
        at = ("releases", i)
        extra = joined.of(data, at)
        layers = (
            extra.layers
            if extra is not None
            else tuple(at + ("values", j) for j, v in enumerate(values) if isinstance(v, dict))
        )
        if len(layers) == 1 and isinstance(layers[0], tuple):
            yield name, layers[0]
        elif layers and not _judged_before(seen, name, layers):
            view = _view(data, at, layers, "Helmfile release values")
            if view is not None:
                yield name, view


def _view(
    data: dict, release: tuple, layers: tuple, label: str, anchor: tuple | None = None
) -> tuple | None:
    """The path of a release's merged values (the view built once in the current
    document): ``anchor`` (default: the release's path), then the view."""
    anchor = release if anchor is None else anchor
    owner = joined.owner_of(data)
    key = f"{owner}:{release}"

    def build() -> Layered:
        made: list[Layer] = []
        for layer in layers:
            if isinstance(layer, Layer):
                made.append(layer)
            else:
                values = at_path(data, layer)
                if isinstance(values, dict):
                    made.append(Layer(values, host=layer, label=_label(layer)))
        return Layered(key, release, tuple(made), label, anchor)

    view = joined.cached(key, build)
    return (*anchor, view) if view.layers else None


def _label(path: tuple) -> str:
    return ".".join(str(step) for step in path if step != INSIDE)
