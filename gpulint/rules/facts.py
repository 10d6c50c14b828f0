"""Small picklable facts per document for the rules that compare files.

What each input deploys (device plugin versions, the MIG strategies it can
run with), which resources sharing configs replicate, and what workloads
request and select. Built once per document (the cross-file rules all ask).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from gpulint.core.record import field, record
from gpulint.model import node_requirements as scheduling
from gpulint.model.gpu import infra
from gpulint.model.nvidia import (
    configs,
    containers,
    images,
    operator,
    plugin_config,
    recognise,
    values,
)
from gpulint.model.resource import Container, PodSpec, Resource, shared
from gpulint.model.serving.servers import sharing_selector
from gpulint.model.values import gpu_resources as gpu
from gpulint.model.workloads.purpose import serves_requests
from gpulint.rules.anchor import Anchor
from gpulint.rules.rule import Context, Rule
from gpulint.yaml.parse import Document

MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"


@record(frozen=True, slots=True)
class VersionFact:
    """A device plugin version a deployment pins."""

    anchor: Anchor
    label: str
    version: str  # core version, v0.17.0


@record(frozen=True, slots=True)
class StrategyFact:
    """The MIG strategies a device plugin deployment may run with."""

    label: str
    anchor: Anchor  # the deployment (where a default applies)
    strategies: tuple  # ((strategy, Anchor), ...) it may run with
    known: bool  # False: set elsewhere (an external ConfigMap, a config file)


@record(frozen=True, slots=True)
class SharingFact:
    """A device plugin sharing config (time-slicing or MPS) and what it advertises."""

    anchor: Anchor
    label: str
    strategy: str  # time-slicing or mps
    advertised: str
    replicas: int | None
    fail_requests_greater_than_one: bool


@record(frozen=True, slots=True)
class GpuUse:
    """A container's GPU request, with the pod and workload it belongs to."""

    anchor: Anchor  # the request (limits entry, else requests entry)
    pod: str  # identity of the pod spec (file and pointer)
    workload: str  # "Deployment web, container server"
    resource: str
    count: int
    serving: bool | None  # None: serves if a Service of its namespace selects its labels
    selector: tuple | None  # (Anchor, "nvidia.com/gpu.sharing-strategy=time-slicing")
    namespace: str | None = None
    labels: frozenset[tuple[str, str]] = frozenset()

    def selected_by(self, service: ServiceSelector) -> bool:
        same = None in (self.namespace, service.namespace) or self.namespace == service.namespace
        return same and bool(service.selector) and service.selector <= self.labels


@record(frozen=True, slots=True)
class ServiceSelector:
    """A core Service's pod selector: the pods it sends requests to."""

    namespace: str | None
    selector: frozenset[tuple[str, str]]


@record(frozen=True, slots=True)
class MigSelector:
    """A workload's node selection on the MIG strategy or profile labels."""

    anchor: Anchor
    workload: str
    operator: str
    values: tuple


@record(frozen=True, slots=True)
class DraExtendedResource:
    """A DeviceClass that serves an extended resource through DRA (DRAExtendedResource)."""

    resource: str
    device_class: str


@record
class DocFacts:
    """The shared facts of one document, computed once for every rule that reads them."""

    versions: list[VersionFact] = field(default_factory=list)
    strategies: list[StrategyFact] = field(default_factory=list)
    sharing: list[SharingFact] = field(default_factory=list)
    uses: list[GpuUse] = field(default_factory=list)
    mig_selectors: list[MigSelector] = field(default_factory=list)
    dra_resources: list[DraExtendedResource] = field(default_factory=list)
    services: list[ServiceSelector] = field(default_factory=list)


_EMPTY = DocFacts()


def for_resource(resource: Resource, ctx: Context) -> DocFacts:
    """Facts of one resource, built once: every cross-file rule asks in turn."""
    return shared(resource, _facts_of_resource, ctx)


def for_document(doc: Document, ctx: Context) -> DocFacts:
    """Facts of a document that is not a resource (chart values, a plugin config file)."""
    if recognise.is_resource(doc.data):
        return _EMPTY
    return shared(doc, _facts_of_document, ctx)


def _facts_of_resource(resource: Resource, ctx: Context) -> DocFacts:
    found = DocFacts()
    _resource_facts(resource, ctx, found)
    return found


def _facts_of_document(doc: Document, ctx: Context) -> DocFacts:
    found = DocFacts()
    _document_facts(doc, ctx, found)
    return found


Pick = Callable[[DocFacts], list]


def collected_by(rule: Rule) -> Callable[[Pick], Pick]:
    """Decorator: ``rule`` collects what ``pick`` keeps of these facts, from resources and
    from the other documents (values and config files) alike."""

    def register(pick: Pick) -> Pick:
        # partials of module functions, not closures: rules travel to spawned workers.
        rule.collector(partial(_picked_from_resource, pick))
        rule.document_collector(partial(_picked_from_document, pick))
        return pick

    return register


def _picked_from_resource(pick: Pick, resource: Resource, ctx: Context) -> list:
    return pick(for_resource(resource, ctx))


def _picked_from_document(pick: Pick, doc: Document, ctx: Context) -> list:
    return pick(for_document(doc, ctx))


# Non-resource documents: values and config files -----------------------------------------


def _document_facts(doc: Document, ctx: Context, found: DocFacts) -> None:
    placed = recognise.place(doc.data, recognise.values_for(ctx.settings))
    for where in placed:
        sub = configs.at_path(doc.data, where.prefix)
        if not isinstance(sub, dict):
            continue
        if where.kind == recognise.DEVICE_PLUGIN_CHART:
            _device_plugin_values(doc, ctx, where.prefix, sub, found)
        elif where.kind == recognise.OPERATOR_CHART:
            view = operator.values_view(sub, where.prefix)
            _operator(ctx.document_anchor, doc, view, "gpu-operator values", found)
    for config in configs.document_configs(doc.data, placed):
        _sharing(lambda p, at="key": ctx.document_anchor(doc, p, at), config, found)


def _device_plugin_values(
    doc: Document, ctx: Context, prefix: tuple, data: dict, found: DocFacts
) -> None:
    def anchor(path: tuple, at: str = "key") -> Anchor:
        return ctx.document_anchor(doc, prefix + path, at)

    label = "nvidia-device-plugin values"
    tag = values.image_tag(data)
    version = images.core_version(tag[1]) if tag else None
    if tag and version:
        found.versions.append(VersionFact(anchor(tag[0], "value"), label, version))
    plugin = data.get("devicePlugin")
    if isinstance(plugin, dict) and plugin.get("enabled") is False:
        return  # only GFD is deployed
    here = anchor(())
    strategy = values.mig_strategy(data)
    if strategy is not None and isinstance(strategy[1], str):  # the env var beats any config
        chosen = ((strategy[1], anchor(strategy[0], "value")),)
        found.strategies.append(StrategyFact(label, here, chosen, True))
        return  # (a value of another type is dropped by the chart: as if unset)
    if values.external_config(data):
        found.strategies.append(StrategyFact(label, here, (), False))
        return
    entries = list(
        configs.document_configs(data, [recognise.Placed(recognise.DEVICE_PLUGIN_CHART, ())])
    )
    pairs = tuple(_config_strategy(c, lambda p: anchor(p, "value")) for c in entries)
    found.strategies.append(StrategyFact(label, here, pairs or (("none", here),), True))


def _config_strategy(config: configs.FoundConfig, anchor: Any) -> tuple[str, Anchor]:
    got = plugin_config.mig_strategy(config.data)
    value = got[1] if got and isinstance(got[1], str) else "none"
    return value, anchor(config.path)


def _operator(
    make_anchor: Any, doc: Any, view: operator.OperatorView, label: str, found: DocFacts
) -> None:
    def anchor(path: tuple, at: str = "key") -> Anchor:
        return make_anchor(doc, path, at)

    version = view.field("devicePlugin", "version")
    core = images.core_version(version[1]) if version else None
    if version and core:
        found.versions.append(VersionFact(anchor(version[0], "value"), label, core))
    if not view.plugin_enabled():
        return
    here = anchor(view.prefix)
    strategy = view.effective_mig_strategy()
    if strategy is None:
        found.strategies.append(StrategyFact(label, here, (), False))
        return
    set_at = view.mig_strategy()
    where = anchor(set_at[0], "value") if set_at else here
    found.strategies.append(StrategyFact(label, here, ((strategy, where),), True))


def _sharing(anchor: Any, config: configs.FoundConfig, found: DocFacts) -> None:
    for item in plugin_config.replicated(config.data):
        path = config.path if config.embedded else config.path + item.path
        found.sharing.append(
            SharingFact(
                anchor(path),
                config.label,
                item.strategy,
                item.advertised,
                item.replicas,
                item.fail_requests_greater_than_one,
            )
        )


# Resources: plugin DaemonSets, ClusterPolicies, ConfigMaps, workloads ----------------------


def _resource_facts(resource: Resource, ctx: Context, found: DocFacts) -> None:
    view = operator.cluster_policy(resource)
    if view is not None:
        label = f"ClusterPolicy {resource.name}"
        _operator(lambda _d, p, at="key": ctx.anchor(resource, p, at=at), None, view, label, found)
        return
    for config in configs.resource_configs(resource):
        _sharing(lambda p, at="key": ctx.anchor(resource, p, at=at), config, found)
    if resource.kind == "ConfigMap":
        return
    if resource.kind == "Service" and resource.api_version == "v1":
        spec = resource.obj.get("spec")
        selector = spec.get("selector") if isinstance(spec, dict) else None
        # A headless Service (clusterIP: None) names peers for each other (a training
        # StatefulSet's rendezvous); it routes no requests.
        headless = isinstance(spec, dict) and spec.get("clusterIP") == "None"
        if isinstance(selector, dict) and not headless:
            pairs = _string_pairs(selector)
            if pairs is not None:
                found.services.append(ServiceSelector(_namespace(resource.metadata), pairs))
        return
    if resource.kind == "DeviceClass" and resource.api_version.startswith("resource.k8s.io/"):
        spec = resource.obj.get("spec")
        name = spec.get("extendedResourceName") if isinstance(spec, dict) else None
        if isinstance(name, str):
            found.dra_resources.append(DraExtendedResource(name, resource.name))
        return
    _plugin_facts(resource, ctx, found)
    for pod in resource.pod_specs:
        if not infra.is_infra_pod(pod):
            _workload_facts(resource, pod, ctx, found)


def _string_pairs(mapping: dict) -> frozenset[tuple[str, str]] | None:
    """A label map's pairs; None if a key or value is not plain text (a placeholder's
    structure, a number: the selector is not known)."""
    pairs = frozenset(
        (k, v) for k, v in mapping.items() if isinstance(k, str) and isinstance(v, str)
    )
    return pairs if len(pairs) == len(mapping) else None


def _namespace(metadata: dict) -> str | None:
    namespace = metadata.get("namespace")
    return namespace if isinstance(namespace, str) else None


def _plugin_facts(resource: Resource, ctx: Context, found: DocFacts) -> None:
    for container in containers.plugin_containers(resource):
        label = f"{resource.kind} {resource.name}"
        image_anchor = ctx.anchor(resource, container.path + ("image",), container.name, "value")
        if images.image_kind(container.image) == images.DEVICE_PLUGIN:
            version = images.core_version(images.split_image(container.image)[1])
            if version:
                found.versions.append(VersionFact(image_anchor, label, version))
        if not containers.runs_plugin(container):
            continue
        sites = containers.strategy_sites(container)
        flag = [s for s in sites if s.how == containers.FLAG]
        chosen = (flag or sites)[-1:] if sites else []
        if chosen:
            site = chosen[0]
            known = isinstance(site.value, str)
            at = ctx.anchor(resource, site.path, container.name, site.at)
            pairs = ((site.value, at),) if known else ()
            found.strategies.append(StrategyFact(label, image_anchor, pairs, known))
        elif _has_config_file(container):
            found.strategies.append(StrategyFact(label, image_anchor, (), False))
        else:
            found.strategies.append(
                StrategyFact(label, image_anchor, (("none", image_anchor),), True)
            )


def _has_config_file(container: Container) -> bool:
    env = container.data.get("env")
    if isinstance(env, list) and any(
        isinstance(e, dict) and e.get("name") == "CONFIG_FILE" for e in env
    ):
        return True
    words = [
        w for f in ("command", "args") for w in (container.data.get(f) or []) if isinstance(w, str)
    ]
    return any("--config-file" in w for w in words)


def _workload_facts(resource: Resource, pod: PodSpec, ctx: Context, found: DocFacts) -> None:
    requirements = scheduling.label_requirements(pod.spec)
    for req in requirements:
        if req.key == MIG_STRATEGY_LABEL:
            found.mig_selectors.append(
                MigSelector(
                    ctx.anchor(resource, pod.path + req.path),
                    f"{resource.kind} {resource.name}",
                    req.operator,
                    req.values,
                )
            )
    if not pod.requests_gpu:
        return
    # What the pod is for, as GPU106 and GPU302 judge it, and that it answers requests: a
    # probe a Deployment keeps running (a time-slicing check looping vectorAdd), or a
    # Deployment that runs a training script, serves nobody.
    serving = serves_requests(resource, pod)
    selected = sharing_selector(requirements)
    selector = (ctx.anchor(resource, pod.path + selected[0]), selected[1]) if selected else None
    pod_id = f"{resource.doc.source.path}#{resource.doc.index}{resource.prefix}{pod.path}"
    pod_labels = pod.metadata.get("labels")
    labels = _string_pairs(pod_labels) if isinstance(pod_labels, dict) else None
    labels = frozenset(labels or ())
    for container in pod.containers:
        if container.is_init and not container.is_sidecar:
            continue
        limits = gpu.gpu_entries(container.data, "limits")
        for name, count in container.gpus.items():
            # Only what a cross-file rule can use: serving pods (GPU601), more than one
            # GPU (GPU602), MIG devices (GPU504); anchors cost a walk of the node tree.
            if not (serving is not False or count > 1 or gpu.is_mig_resource(name)):
                continue
            section = "limits" if name in limits else "requests"
            found.uses.append(
                GpuUse(
                    ctx.anchor(
                        resource, container.path + ("resources", section, name), container.name
                    ),
                    pod_id,
                    f"{resource.kind} {resource.name}, container {container.name}",
                    name,
                    count,
                    serving,
                    selector,
                    _namespace(resource.metadata),
                    labels,
                )
            )
