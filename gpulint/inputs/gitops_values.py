"""GitOps values that are not inline: found, read and placed before the rules run (issue 27).

A release's document may name values written elsewhere; the rules judge them as if they
were inline (``model/values/releases.py`` merges them, ``yaml/layered.py`` places each
finding where its value is written). What is read, and how (each tool's reference):

- Flux ``HelmRelease`` ``spec.valuesFrom`` (fluxcd.io/flux/components/helm/helmreleases,
  "Values references"): each ``{kind: ConfigMap|Secret, name, valuesKey, targetPath,
  optional}`` names an object "in the same namespace as the HelmRelease"; ``valuesKey``
  defaults to ``values.yaml``; "the values are merged in the order given, with the later
  values overwriting earlier, and then inline values overwriting those. When
  ``targetPath`` is set, it will overwrite everything before, including inline values"
  (the value is then one flat value, set at the path as ``helm --set`` does). A ConfigMap's
  ``data`` is read, a Secret's ``stringData`` (its base64 ``data`` is not: no position in
  it could be given honestly); in a kustomize render, each value is placed in the origin
  file, or, for a ConfigMap a ``configMapGenerator`` made, in the file it read. The object
  must be in the same deployable unit (``inputs/units.py``: a kustomization's render, a
  folder's plain files) and the only one of its kind, namespace and name there; anything
  else says nothing (never a guess).
  Namespaces: an object without ``metadata.namespace`` gets the namespace the apply gives
  every such object of the unit (a Flux Kustomization's ``spec.targetNamespace``, which
  "either configures or overrides" every object's, else the default), so two objects
  without one share it, and one without and one with an explicit namespace are not
  matched (fluxcd.io/flux/components/kustomize/kustomizations, "Target namespace").
- Flux ``spec.chartRef`` ({kind: OCIRepository|HelmChart, name, namespace}, the namespace
  defaulting to the HelmRelease's): an ``OCIRepository``'s chart is the last segment of
  ``spec.url`` and its version ``spec.ref``'s ``digest``, else ``semver``, else ``tag``
  ("latter listed fields taking precedence"; "If not specified, it defaults to the
  ``latest`` tag": fluxcd.io/flux/components/source/ocirepositories, "Reference"); a
  ``HelmChart``'s is ``spec.chart`` and ``spec.version``, "applicable only when the Source
  reference is a HelmRepository" and defaulting to ``*`` (.../source/helmcharts, "Version").
- Flux ``spec.chart.spec.sourceRef`` of kind ``HelmRepository`` (a cross-namespace
  reference: name and namespace, unset the HelmRelease's, as for ``chartRef``;
  fluxcd.io/flux/components/helm/helmreleases, "Chart template"): the object's ``spec.url``
  ("The source-controller fetches the Helm repository index YAML ... from <url>, indicated
  by the .spec.interval and .spec.url fields", fluxcd.io/flux/components/source/
  helmrepositories, "Helm HTTP/S repository"; an ``oci://`` URL for an OCI one), which says
  whose chart a name is (``model/kinds/charts.py``). Sources are often kept apart from
  the releases (a ``flux-system`` folder), so besides the one object of the unit, those
  elsewhere in the run whose ``metadata.namespace`` is written are read (an object without
  one gets its namespace from how its own unit is applied: not matched across units).
- Helmfile ``releases[].values[]`` items that are file names, relative to the helmfile's
  folder, in list order with the inline mappings (helmfile.readthedocs.io, "Values Merging
  and Data Flow"); ``.gotmpl`` files and names holding ``{{`` are templates Helmfile renders
  first: not read.
- kustomize ``helmCharts[].valuesFile`` and ``additionalValuesFiles``, relative to the
  kustomization's folder, with ``valuesInline`` as ``valuesMerge`` says (``override``,
  ``merge``, ``replace``), the additional files over them in list order: the order and its
  sources in ``inputs/kustomize_chart_values.py``.

A values file is read only when it lies inside the linted tree, through no link out of it
unless ``--follow-symlinks``, and never when remote (``kustomize_refs.is_remote``): each
refusal, like a file that is not there, is an input error at the name, as a kustomization's
remote references are. Every place a value of another document may be reported at is
resolved when that document is read (``yaml/spots.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from gpulint.core.findings import InputError
from gpulint.core.record import field, record
from gpulint.core.settings import Settings
from gpulint.core.sources import Source, decode, read_bytes
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.kustomize_chart_values import Under, chart_layers
from gpulint.inputs.kustomize_refs import is_remote
from gpulint.inputs.project_scan import git_roots, project_of
from gpulint.inputs.tree import inside, roots
from gpulint.inputs.units import unit_of
from gpulint.model.project import repository_path
from gpulint.model.values import joined, releases, set_path
from gpulint.model.values.paths import at_path
from gpulint.yaml import spots as spots_of
from gpulint.yaml.embedded import mapping_in
from gpulint.yaml.layered import Layer
from gpulint.yaml.mergo_fill import fill
from gpulint.yaml.parse import Document, documents, parse
from gpulint.yaml.positions import locate

FLUX = "helm.toolkit.fluxcd.io"
SOURCES = "source.toolkit.fluxcd.io"
_VALUES_KINDS = ("ConfigMap", "Secret")
_CHART_KINDS = ("OCIRepository", "HelmChart")
_REPOSITORY = "HelmRepository"  # the source a spec.chart.spec.sourceRef may name
_KIND_BYTES = tuple(kind.encode() for kind in _VALUES_KINDS + _CHART_KINDS + (_REPOSITORY,))
_HOST_BYTES = (b"valuesFrom", b"chartRef", _REPOSITORY.encode())  # what a host names
_RUN = "(run)"  # the unit key of the HelmRepositories sought across the whole run
_SHOWN = 60  # characters of a name a message quotes
Extras = dict[int, tuple[joined.Extra, ...]]  # document index -> what the run adds to it


@record(frozen=True)
class ValuesRef:
    """One ``valuesFrom`` item."""

    index: int
    kind: str
    name: str
    key: str
    target: tuple | None  # the targetPath (None: merged at the root)


@record(frozen=True)
class FluxHost:
    """A HelmRelease that names values or its chart elsewhere."""

    unit: str | None
    index: int  # its document in its source
    name: str
    namespace: str | None
    refs: tuple[ValuesRef, ...]
    chart_ref: tuple[str, str, str | None] | None  # kind, name, namespace
    inline: bool  # spec.values is a mapping
    source_ref: tuple[str, str | None] | None = None  # the HelmRepository's name, namespace


@record(frozen=True)
class Found:
    """An object a HelmRelease names, read: the strings of its data (text, spots), or the
    chart and version it stands for."""

    kind: str
    namespace: str | None
    name: str
    strings: dict = field(default_factory=dict)  # key -> (text, spots, template, mapped)
    chart: joined.ChartRef | None = None
    url: str = ""  # a HelmRepository's spec.url


def _group(data: dict) -> str:
    api = data.get("apiVersion")
    return api.split("/", 1)[0] if isinstance(api, str) and "/" in api else ""


def _meta(data: dict) -> tuple[str | None, str | None]:
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return None, None
    name, namespace = meta.get("name"), meta.get("namespace")
    return (
        name if isinstance(name, str) and name else None,
        namespace if isinstance(namespace, str) and namespace else None,
    )


def flux_host(data: Any, unit: str | None, index: int) -> FluxHost | None:
    """The HelmRelease ``data`` is, when it names values or a chart elsewhere."""
    if not isinstance(data, dict) or data.get("kind") != "HelmRelease" or _group(data) != FLUX:
        return None
    name, namespace = _meta(data)
    spec = data.get("spec")
    if name is None or not isinstance(spec, dict):
        return None
    refs = []
    items = spec.get("valuesFrom")
    for i, item in enumerate(items if isinstance(items, list) else ()):
        if not isinstance(item, dict) or item.get("kind") not in _VALUES_KINDS:
            continue
        ref_name, key = item.get("name"), item.get("valuesKey") or "values.yaml"
        if not isinstance(ref_name, str) or not isinstance(key, str):
            continue
        target_text = item.get("targetPath")
        target = set_path.parse_name(target_text) if isinstance(target_text, str) else None
        if isinstance(target_text, str) and target_text and target is None:
            continue  # a targetPath Helm would refuse: the release fails; nothing to read
        refs.append(ValuesRef(i, item["kind"], ref_name, key, target))
    # A reference given again adds nothing its last time does not (Helm's merge of the same
    # values is idempotent): each is read once, where it is last given (2,000 references to
    # one ConfigMap in a 159 KB file read it 2,000 times: 524 MB).
    last = {(r.kind, r.name, r.key, r.target): r for r in refs}
    refs = [r for r in refs if last[r.kind, r.name, r.key, r.target] is r]
    chart_ref = None
    ref = spec.get("chartRef")
    if (
        isinstance(ref, dict)
        and ref.get("kind") in _CHART_KINDS
        and isinstance(ref.get("name"), str)
    ):
        ref_namespace = ref.get("namespace")
        chart_ref = (
            ref["kind"],
            ref["name"],
            ref_namespace if isinstance(ref_namespace, str) and ref_namespace else namespace,
        )
    source_ref = _source_ref(spec, namespace)
    if not refs and chart_ref is None and source_ref is None:
        return None
    inline = isinstance(spec.get("values"), dict)
    return FluxHost(unit, index, name, namespace, tuple(refs), chart_ref, inline, source_ref)


def _source_ref(spec: dict, namespace: str | None) -> tuple[str, str | None] | None:
    """The HelmRepository ``spec.chart.spec.sourceRef`` names (name, namespace; unset, the
    HelmRelease's namespace)."""
    ref = at_path(spec, ("chart", "spec", "sourceRef"))
    if not isinstance(ref, dict) or ref.get("kind") != _REPOSITORY:
        return None
    name, ref_namespace = ref.get("name"), ref.get("namespace")
    if not isinstance(name, str) or not name:
        return None
    return name, ref_namespace if isinstance(ref_namespace, str) and ref_namespace else namespace


def _wanted(hosts: Iterable[FluxHost]) -> dict[tuple, set[str]]:
    """(unit, kind, namespace, name) -> the data keys wanted of it."""
    wanted: dict[tuple, set[str]] = {}
    for host in hosts:
        for ref in host.refs:
            wanted.setdefault((host.unit, ref.kind, host.namespace, ref.name), set()).add(ref.key)
        if host.chart_ref is not None:
            kind, name, namespace = host.chart_ref
            wanted.setdefault((host.unit, kind, namespace, name), set())
        if host.source_ref is not None:
            name, namespace = host.source_ref
            wanted.setdefault((host.unit, _REPOSITORY, namespace, name), set())
            if namespace is not None:  # elsewhere in the run: an explicit namespace only
                wanted.setdefault((_RUN, _REPOSITORY, namespace, name), set())
    return wanted


def _identity(data: Any) -> tuple[str, str | None, str] | None:
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    name, namespace = _meta(data)
    if name is None or kind not in _VALUES_KINDS + _CHART_KINDS + (_REPOSITORY,):
        return None
    if kind in _VALUES_KINDS and data.get("apiVersion") != "v1":
        return None
    if kind not in _VALUES_KINDS and _group(data) != SOURCES:
        return None
    return kind, namespace, name


def _placed(doc: Document, base: tuple) -> tuple[dict, str | None, bool] | None:
    """The spots of ``base`` in the file ``doc`` was written in: its own source, or the
    origin file a kustomize render names (when the value there is the same); None when no
    exact place can be given."""
    mapper = doc.source.meta.get("mapper")
    if mapper is None:
        found = spots_of.spots(doc, base)
        return (found, doc.template, False) if found is not None else None
    origin_of = getattr(mapper, "origin_document", None)
    origin = origin_of(doc) if origin_of is not None else None
    if origin is None:
        return _generated(doc, base, mapper)
    if at_path(origin.data, base) != at_path(doc.data, base):
        return None
    found = spots_of.spots(origin, base)
    return (found, origin.source.path, True) if found is not None else None


def _generated(doc: Document, base: tuple, mapper: Any) -> tuple[dict, str | None, bool] | None:
    """The spots of a ConfigMap's data key that a kustomize ``configMapGenerator`` made
    from a file: the key's text is that file's, so each value is placed in the file."""
    generated = getattr(mapper, "generated_file", None)
    text = at_path(doc.data, base)
    if generated is None or len(base) != 2 or base[0] != "data" or not isinstance(text, str):
        return None
    path = generated(doc, base[1])  # a file kustomize read for the build (root-only)
    data = read_bytes(path) if path is not None else None
    source = decode(display_path(path), data) if isinstance(data, bytes) else None
    if not isinstance(source, Source) or source.text != text:
        return None  # not the file as kustomize read it: no exact place
    docs, errors = parse(source)
    found = spots_of.spots(docs[0], ()) if len(docs) == 1 and not errors else None
    return (found, source.path, True) if found is not None else None


def found_of(doc: Document, keys: set[str]) -> Found | None:
    """What a ConfigMap, Secret, OCIRepository or HelmChart document offers a release."""
    identity = _identity(doc.data)
    if identity is None:
        return None
    kind, namespace, name = identity
    data = doc.data
    if kind in _VALUES_KINDS:
        strings = {}
        for key in sorted(keys):
            where = _string_field(data, kind, key)
            placed = _placed(doc, (where, key)) if where is not None else None
            if placed is not None:
                strings[key] = (data[where][key], *placed)
        return Found(kind, namespace, name, strings)
    if kind == _REPOSITORY:
        url = at_path(data, ("spec", "url"))
        return Found(kind, namespace, name, url=url.strip()) if isinstance(url, str) else None
    return Found(kind, namespace, name, chart=_chart_of(doc, kind))


def _string_field(data: dict, kind: str, key: str) -> str | None:
    """Where the object keeps ``key`` as readable text: a ConfigMap's ``data``, a
    Secret's ``stringData`` (it wins over ``data`` when the API server merges them)."""
    for name in ("data",) if kind == "ConfigMap" else ("stringData",):
        held = data.get(name)
        if isinstance(held, dict) and isinstance(held.get(key), str):
            return name
    return None


def _chart_of(doc: Document, kind: str) -> joined.ChartRef | None:
    data = doc.data
    if kind == "OCIRepository":
        chart = releases.chart_name(at_path(data, ("spec", "url")))
        where: tuple = ("spec", "url")
        version = None
        for field_name in ("tag", "semver", "digest"):  # later ones take precedence
            value = at_path(data, ("spec", "ref", field_name))
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                where, version = ("spec", "ref", field_name), str(value)
    else:
        chart = releases.chart_name(at_path(data, ("spec", "chart")))
        if at_path(data, ("spec", "sourceRef", "kind")) not in (None, "HelmRepository"):
            return None  # a Git or Bucket source's chart: the source's revision pins it
        value = at_path(data, ("spec", "version"))
        ok = isinstance(value, str | int | float) and not isinstance(value, bool)
        where = ("spec", "version") if ok else ("spec", "chart")
        version = str(value) if ok else None
    if chart is None:
        return None
    placed = _placed(doc, where)
    if placed is None:
        return None
    found, template, mapped = placed
    name = _meta(data)[0]
    layer = Layer(
        version,
        point=True,
        spots={(): found[()]},
        template=template,
        mapped=mapped,
        label=f"{kind} {name}",
    )
    return joined.ChartRef(chart, version, layer)


def resolve(
    host: FluxHost, partners: dict[tuple, list[Found]], run: dict[tuple, list[Found]] | None = None
) -> joined.Extra | None:
    """What the objects of the run add to ``host`` (None: nothing of them is readable):
    ``partners`` those of its unit, ``run`` the HelmRepositories of the whole run."""
    before: list = []
    after: list = []
    texts: list[str] = []  # what the rules' triggers search besides the release's file
    for ref in host.refs:
        found = partners.get((ref.kind, host.namespace, ref.name), [])
        entry = found[0].strings.get(ref.key) if len(found) == 1 else None
        if entry is None:
            continue  # not in the unit, more than one, or unreadable: say nothing
        text, where, template, mapped = entry
        texts.append(text)
        label = f"valuesFrom[{ref.index}] {ref.kind} {ref.name} {ref.key}"
        if ref.target is None:
            values = mapping_in(text)
            if isinstance(values, dict):
                before.append(
                    Layer(values, spots=where, template=template, mapped=mapped, label=label)
                )
        elif "\n" not in text.strip():
            spots = {(): where[()]}
            value = set_path.typed(text.strip())
            after.append(
                Layer(
                    value,
                    at=ref.target,
                    point=True,
                    spots=spots,
                    template=template,
                    mapped=mapped,
                    label=label,
                )
            )
    chart = None
    if host.chart_ref is not None:
        kind, name, namespace = host.chart_ref
        found = partners.get((kind, namespace, name), [])
        chart = found[0].chart if len(found) == 1 else None
    repositories = _repositories(host, partners, run or {})
    if not before and not after and chart is None and not repositories:
        return None
    layers: tuple = ()
    if before or after:
        own = [("spec", "values")] if host.inline else []
        layers = tuple(before + own + after)
    label = f"HelmRelease {host.name} values (valuesFrom and spec.values)"
    owner = ("HelmRelease", host.name)
    return joined.Extra(("spec",), owner, layers, chart, label, "\n".join(texts), repositories)


def _repositories(
    host: FluxHost, partners: dict[tuple, list[Found]], run: dict[tuple, list[Found]]
) -> tuple[str, ...]:
    """The URLs the HelmRepository of ``host``'s ``sourceRef`` may have: the one object of
    that namespace and name in its unit, else every such object elsewhere in the run (its
    namespace written: objects without one get theirs from how each unit is applied); none
    when the run holds none."""
    if host.source_ref is None:
        return ()
    name, namespace = host.source_ref
    key = (_REPOSITORY, namespace, name)
    here = partners.get(key, [])
    if len(here) == 1:
        return (here[0].url,)
    if here:  # more than one in the unit: which one Flux reads is not established
        return tuple(dict.fromkeys(found.url for found in here))
    return tuple(dict.fromkeys(found.url for found in run.get(key, [])))


def _read_partners(
    docs: Iterable[Document],
    unit: str | None,
    wanted: dict[tuple, set[str]],
    partners: dict[tuple, list[Found]],
) -> None:
    """Read the objects of ``docs`` (of ``unit``) that a release wants into ``partners``."""
    for doc in docs:
        identity = _identity(doc.data)
        if identity is None:
            continue
        for key in ((unit, *identity), (_RUN, *identity)):
            keys = wanted.get(key)
            found = found_of(doc, keys) if keys is not None else None
            if found is not None:
                partners.setdefault(key, []).append(found)


def _join(hosts: list[FluxHost], partners: dict[tuple, list[Found]]) -> dict[int, list]:
    extras: dict[int, list] = {}
    by_unit: dict[Any, dict[tuple, list[Found]]] = {}
    for key, found in partners.items():  # once: a run may hold a thousand releases
        by_unit.setdefault(key[0], {})[key[1:]] = found
    run = by_unit.get(_RUN, {})
    for host in hosts:
        extra = resolve(host, by_unit.get(host.unit, {}), run)
        if extra is not None:
            extras.setdefault(host.index, []).append(extra)
    return extras


# --- plain files: the preparation pass ----------------------------------------------------


class PlainScan:
    """Flux HelmReleases of plain files and the objects they name, across the files of
    each deployable unit (a part of the preparation pass, ``prepare.py``)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._inventory = frozenset(settings.cluster.files)
        self._hosts: dict[str, list[FluxHost]] = {}
        self._candidates: list[Target] = []
        self.named: set[str] = set()  # the values files releases name (display paths)

    def _unit(self, target: Target) -> str | None:
        settings = self._settings
        return unit_of(target, settings.units, self._inventory, settings.named_files)

    def see(self, target: Target, data: bytes | None) -> Iterator[bytes]:
        """Take in one input; yield the bytes of the values files it names (a helmfile's,
        a kustomization's), which the lint pass reads with it."""
        if not data or target.kind != "file":
            return
        for path in named_file_paths(target, data, self._settings):
            self.named.add(display_path(path))
            read = read_bytes(path)
            if isinstance(read, bytes) and read:
                yield read
        if b"HelmRelease" in data and any(k in data for k in _HOST_BYTES):
            unit = self._unit(target)
            hosts = [
                h
                for doc in mapping_documents(target.path, data)
                if (h := flux_host(doc.data, unit, doc.index))
            ]
            if hosts:
                self._hosts[target.path] = hosts
        if any(kind in data for kind in _KIND_BYTES):
            self._candidates.append(target)

    def extras(self) -> dict[str, Extras]:
        """Source path -> document index -> what the run adds to its releases."""
        if not self._hosts:
            return {}
        wanted = _wanted(h for hosts in self._hosts.values() for h in hosts)
        names = {key[3].encode() for key in wanted}
        partners: dict[tuple, list[Found]] = {}
        for target in self._candidates:
            data = read_bytes(target.path)
            if isinstance(data, InputError) or not any(name in data for name in names):
                continue
            unit = self._unit(target)
            _read_partners(mapping_documents(target.path, data), unit, wanted, partners)
        result: dict[str, Extras] = {}
        for path, hosts in self._hosts.items():
            joined_here = _join(hosts, partners)
            if joined_here:
                result[path] = {index: tuple(found) for index, found in joined_here.items()}
        return result


def mapping_documents(path: str, data: bytes) -> list[Document]:
    """The documents of a file's bytes that are mappings (none when it cannot be decoded;
    its errors are the lint pass's to report, located)."""
    source = decode(path, data)
    if isinstance(source, InputError):
        return []
    errors: list[InputError] = []  # the lint pass reports them, located
    return [doc for doc in documents(source, errors) if isinstance(doc.data, dict)]


# --- a render: its own documents ----------------------------------------------------------


def render_extras(source: Source) -> Extras:
    """What a render's objects add to its HelmReleases (the render is one unit)."""
    text = source.text
    if "HelmRelease" not in text or not any(k.decode() in text for k in _HOST_BYTES):
        return {}
    docs, _errors = parse(source)
    hosts = [h for doc in docs if (h := flux_host(doc.data, None, doc.index))]
    if not hosts:
        return {}
    wanted = _wanted(hosts)
    partners: dict[tuple, list[Found]] = {}
    _read_partners(docs, None, wanted, partners)
    return {index: tuple(found) for index, found in _join(hosts, partners).items()}


# --- values files a Helmfile or a kustomization names --------------------------------------


def _named_files(data: Any, host: str, settings: Settings) -> Iterator[tuple[tuple, list]]:
    """(release path, its values in precedence order) of each release of a helmfile, a
    kustomization or an Argo CD object that names a values file: a values file as (name
    relative to ``host``'s folder, path of the name), the document's own values as their
    path."""
    if not isinstance(data, dict):
        return
    if _group(data) == "argoproj.io" and data.get("kind") in ("Application", "ApplicationSet"):
        yield from _argo_files(data, host, settings)
        return
    if _group(data) == "kustomize.config.k8s.io" and data.get("kind") == "Kustomization":
        charts = data.get("helmCharts")
        for i, entry in enumerate(charts if isinstance(charts, list) else ()):
            release = ("helmCharts", i)
            named = chart_layers(entry, release) if isinstance(entry, dict) else None
            if named is not None:
                yield release, named
    elif "apiVersion" not in data and isinstance(data.get("releases"), list):
        for i, release in enumerate(data["releases"]):
            values = release.get("values") if isinstance(release, dict) else None
            if not isinstance(values, list) or not any(isinstance(v, str) for v in values):
                continue
            at = ("releases", i)
            layers: list = []
            for j, item in enumerate(values):
                if isinstance(item, dict):
                    layers.append(at + ("values", j))
                elif isinstance(item, str):
                    layers.append((item, at + ("values", j)))
            yield at, layers


def _argo_files(data: dict, host: str, settings: Settings) -> Iterator[tuple[tuple, list]]:
    """The ``$ref/path`` values files of each Argo CD source of a Helm repository chart
    whose ``ref`` source is this repository (argo-cd.readthedocs.io, "Multiple Sources":
    "$values resolves to the root of the values repository"), as names relative to
    ``host``: the base the source's inline values and parameters go over (releases.py).
    A source with a values file of the chart's own package, or of another repository,
    keeps its inline values alone: its merged values cannot be read whole."""
    spec: tuple = (
        ("spec", "template", "spec") if data.get("kind") == "ApplicationSet" else ("spec",)
    )
    sources = at_path(data, (*spec, "sources"))
    if not isinstance(sources, list):
        return
    refs = {s.get("ref"): s.get("repoURL") for s in sources if isinstance(s, dict)}
    for at in releases.argo_source_paths(data, spec):
        names = at_path(data, (*at, "helm", "valueFiles"))
        if at_path(data, (*at, "chart")) is None or not isinstance(names, list) or not names:
            continue
        files: list = []
        for j, name in enumerate(names):
            if not isinstance(name, str) or not name.startswith("$"):
                break  # a file of the chart's own package: not in this tree
            ref, _slash, rest = name[1:].partition("/")
            root = _repository_root(refs.get(ref), settings)
            if root is None or not rest:
                break
            local = os.path.relpath(
                os.path.join(root, rest), os.path.dirname(os.path.abspath(host))
            )
            files.append((local, (*at, "helm", "valueFiles", j)))
        else:
            yield at, files


def _repository_root(url: Any, settings: Settings) -> str | None:
    """The root of this repository's checkout when ``url`` names it (``model/project.py``)."""
    named = repository_path(url) if isinstance(url, str) else None
    if named is None:
        return None
    linted = tuple(os.path.abspath(p) for p in settings.linted_paths or (os.curdir,))
    roots_found, ids = _this_repository(linted)
    if len(roots_found) != 1 or named not in ids:
        return None
    return roots_found[0]


@lru_cache(maxsize=4)
def _this_repository(linted: tuple[str, ...]) -> tuple[list[str], set[tuple[str, str]]]:
    """The git roots of the linted paths (absolute) and the repository's identities."""
    folders = [p for p in linted if os.path.isdir(p)] or [os.path.dirname(p) for p in linted]
    project = project_of(linted, [], ci=False)  # its identity only
    return list(git_roots(folders)), {(i.host, i.path) for i in project.ids}


def _is_name(layer: Any) -> bool:
    return isinstance(layer, tuple) and len(layer) == 2 and isinstance(layer[0], str)


def _values_file(
    name: str, host: str, settings: Settings, allowed: list[str]
) -> tuple[str | None, str | None]:
    """(path, None) of values file ``name`` a file at ``host`` names, or (None, why it is
    not read); (None, None) for a template, not read with nothing to say."""
    shown = repr(name if len(name) <= _SHOWN else name[:_SHOWN] + "...")
    unjudged = "its values were not judged"
    if "{{" in name or name.endswith(".gotmpl"):
        return None, None  # a template Helmfile renders first
    if is_remote(name):
        return None, f"remote values file {shown} not fetched (gpulint never fetches); {unjudged}"
    if "\0" in name:  # no file can have that name (and the system calls refuse it)
        return None, f"values file {shown} holds a NUL character: no file has that name; {unjudged}"
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(host)), name))
    follow = settings.render.follow_symlinks
    if not inside(os.path.realpath(path), allowed) and not (follow and inside(path, allowed)):
        return None, f"values file {shown} lies outside the linted tree: not read ({unjudged})"
    if not os.path.exists(path):
        return None, f"values file {shown} not found; {unjudged}"
    if os.path.isdir(path):
        return None, f"values file {shown} is a folder, not a file; {unjudged}"
    return path, None


def named_file_paths(target: Target, data: bytes, settings: Settings) -> Iterator[str]:
    """The values files a plain helmfile or kustomization (``data``, its bytes) names that
    the lint pass reads with it: those inside the linted tree that exist."""
    if (
        b"valuesFile" not in data
        and b"ValuesFiles" not in data
        and b"valueFiles" not in data
        and b"releases" not in data
    ):
        return
    allowed = roots(settings.linted_paths)
    for doc in mapping_documents(target.path, data):
        for _release, layers in _named_files(doc.data, target.path, settings):
            for layer in filter(_is_name, layers):
                path = _values_file(layer[0], target.path, settings, allowed)[0]
                if path is not None:
                    yield path


def file_extras(
    doc: Document, settings: Settings
) -> tuple[tuple[joined.Extra, ...], list[InputError]]:
    """The values files a helmfile's releases or a kustomization's ``helmCharts`` name,
    read as layers of those releases, and the names that could not be read."""
    data = doc.data
    if doc.source.origin != "file" or not isinstance(data, dict):
        return (), []
    if "releases" not in data and "helmCharts" not in data and _group(data) != "argoproj.io":
        return (), []
    errors: list[InputError] = []
    extras: list[joined.Extra] = []
    allowed: list[str] | None = None
    owner = joined.owner_of(data)
    # One read of each file however many releases name it (500 releases naming one 128 KB
    # file parsed it 500 times and never finished); its read errors said once.
    reads: dict[str, tuple[Layer, str] | None] = {}
    for release, named in _named_files(data, doc.source.path, settings):
        layers: list = []
        texts: list[str] = []
        for layer in named:
            if isinstance(layer, Under):
                layers.append(_under(data, layer.path, layers))
                continue
            if not _is_name(layer):
                layers.append(layer)
                continue
            allowed = allowed if allowed is not None else roots(settings.linted_paths)
            path, why = _values_file(layer[0], doc.source.path, settings, allowed)
            if why is not None:
                location, _pointer = locate(doc, layer[1], "value")
                errors.append(InputError(doc.source.path, why, location.line, location.column))
            elif path is not None:
                if path not in reads:
                    reads[path] = _read_layer(path, errors)
                read = reads[path]
                if read is not None:
                    layers.append(read[0])
                    texts.append(read[1])
        if texts:
            label = ".".join(str(step) for step in release) + " values (files and inline)"
            # a merge whose outcome is not established: no values of the release are judged
            known = () if _UNSETTLED in layers else tuple(layers)
            extras.append(joined.Extra(release, owner, known, None, label, "\n".join(texts)))
    return tuple(extras), errors


_UNSETTLED = "unsettled"  # a layer whose values mergo's versions merge differently


def _under(data: dict, path: tuple, before: list) -> Layer | str | tuple:
    """kustomize's ``valuesMerge: merge``: the inline values at ``path`` that fill what the
    values file before them lacks, as a layer over it (``yaml/mergo_fill.py``)."""
    inline = at_path(data, path)
    base = before[-1] if before and isinstance(before[-1], Layer) else None
    if base is None or not isinstance(inline, dict) or not isinstance(base.values, dict):
        return path  # the file was not read (an input error): the inline values as written
    added = fill(base.values, inline)
    if added is None:
        return _UNSETTLED
    return Layer(added, host=path, label=".".join(str(step) for step in path))


def _read_layer(path: str, errors: list[InputError]) -> tuple[Layer, str] | None:
    """A values file as a layer (every place in it resolved) and its text."""
    data = read_bytes(path)  # regular files only, size-capped
    if isinstance(data, InputError):
        errors.append(data)
        return None
    source = decode(display_path(path), data)
    if isinstance(source, InputError):
        errors.append(source)
        return None
    docs, parsed = parse(source)
    errors.extend(parsed)
    doc = next((d for d in docs if isinstance(d.data, dict)), None)
    found = spots_of.spots(doc, ()) if doc is not None and not parsed else None
    if doc is None or found is None:
        return None
    return Layer(doc.data, spots=found, template=doc.template, label=source.path), source.text
