"""Resources (documents with apiVersion and kind), their pod specs and containers.

Facts that several rules derive from the same resource or document are computed
once through :func:`shared` and kept in the owner's ``memo`` until :func:`release`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any, TypeVar

from gpulint.core.findings import ResourceRef
from gpulint.core.record import field, record
from gpulint.model.kinds import charts
from gpulint.model.kinds import table as workloads
from gpulint.model.kinds.charts import chart_pods
from gpulint.model.kinds.generic import find_generic
from gpulint.model.values import gpu_resources as gpu
from gpulint.yaml.parse import Document

CONTAINER_LISTS = (
    ("initContainers", "initContainer"),
    ("containers", "container"),
    ("ephemeralContainers", "ephemeralContainer"),
)


@record
class Container:
    """A container of a pod spec (app, init or ephemeral)."""

    pod: PodSpec
    section: str  # "container", "initContainer" or "ephemeralContainer"
    index: int
    path: tuple  # relative to the resource object
    data: dict
    default_name: str | None = None  # what the controller names it when the manifest does not
    # What the model reads from the container once and every rule asks again (its argument
    # words: serving/parallelism.arguments), by name; freed with the container.
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def name(self) -> str:
        name = self.data.get("name")
        if name is not None:
            return str(name)
        return self.default_name or f"#{self.index}"

    @property
    def is_init(self) -> bool:
        return self.section == "initContainer"

    @property
    def is_sidecar(self) -> bool:
        return self.is_init and gpu.is_sidecar(self.data)

    @cached_property
    def gpus(self) -> dict[str, int]:
        """GPUs held, by resource name (invalid quantities count as nothing)."""
        return gpu.container_gpus(self.data)

    @property
    def image(self) -> str:
        image = self.data.get("image")
        return image if isinstance(image, str) else ""


@record
class PodSpec:
    """A pod spec inside a resource, with what the kind says about it."""

    resource: Resource
    path: tuple  # relative to the resource object
    spec: dict
    metadata_path: tuple | None = None
    role: str | None = None  # e.g. a Kubeflow replica type ("Worker") or a JobSet job name
    replicas: int | None = None  # pods this spec stands for, where the kind says
    # Paths (relative to the spec) of single containers or container lists kept
    # outside ``containers``: KServe's ``model``, Argo's ``container``/``script``.
    extra_containers: tuple[tuple, ...] = ()
    # Containers an operator assembles (workloads.Built): (path, data), data not in the object.
    built_containers: tuple[tuple[tuple, dict], ...] = ()
    # Virtual path -> where its value was written (workloads.Built.redirects).
    redirects: tuple[tuple[tuple, tuple], ...] = ()
    qualify: bool = False  # findings name its containers ``role/name`` (workloads.PodSite)
    # The kind of the object a chart renders for this pod (kinds/charts.py: ``Deployment``),
    # where it is not the resource's own kind.
    workload_kind: str | None = None
    container_names: tuple[tuple[tuple, str], ...] = ()  # workloads.PodSite.container_names
    # Facts several rules derive from the pod (:func:`shared`); dropped by Resource.release().
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def metadata(self) -> dict:
        if self.metadata_path is None:
            return {}
        found = workloads.get(self.resource.obj, self.metadata_path)
        return found if isinstance(found, dict) else {}

    @cached_property
    def containers(self) -> list[Container]:
        """Init containers, containers and ephemeral containers, in that order."""
        found = []
        for key, section in CONTAINER_LISTS:
            items = self.spec.get(key)
            if not isinstance(items, list):
                continue
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    found.append(Container(self, section, index, self.path + (key, index), item))
        for rel in self.extra_containers:
            value = workloads.get(self.spec, rel)
            items = value if isinstance(value, list) else [value]
            single = None if isinstance(value, list) else dict(self.container_names).get(rel)
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    path = self.path + rel + ((index,) if isinstance(value, list) else ())
                    found.append(Container(self, "container", index, path, item, single))
        for index, (path, item) in enumerate(self.built_containers):
            found.append(Container(self, "container", index, path, item))
        return found

    def regular_containers(self) -> list[Container]:
        return [c for c in self.containers if c.section == "container"]

    def init_containers(self) -> list[Container]:
        return [c for c in self.containers if c.section == "initContainer"]

    @cached_property
    def effective_gpus(self) -> dict[str, int]:
        """:func:`gpu.effective_request` from the containers' own (cached) GPU counts."""
        return gpu.effective_counts(
            (c.gpus for c in self.regular_containers()),
            ((c.gpus, c.is_sidecar) for c in self.init_containers()),
        )

    @property
    def requests_gpu(self) -> bool:
        return any(c.gpus for c in self.containers)


@record
class Resource:
    """A Kubernetes object of a document: kind, name, namespace and its pod specs."""

    doc: Document
    prefix: tuple  # path of the object in its document: () or ("items", i)
    obj: dict
    kind: str
    api_version: str
    name: str
    namespace: str | None
    # Facts derived once and shared by every rule (:func:`shared`); dropped by release().
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    # A Helmfile release read as a resource (kinds/charts.helmfile_releases): the path of the
    # release in ``obj``, the Helmfile, whose chart pods under it are this resource's pods.
    scope: tuple | None = None

    @cached_property
    def ref(self) -> ResourceRef:
        # One shared (frozen) ref per resource: cross-file facts hold many anchors to it.
        return ResourceRef(self.kind, self.name, self.namespace, self.api_version)

    @property
    def metadata(self) -> dict:
        meta = self.obj.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def annotations(self) -> dict:
        found = self.metadata.get("annotations")
        return found if isinstance(found, dict) else {}

    @property
    def labels(self) -> dict:
        found = self.metadata.get("labels")
        return found if isinstance(found, dict) else {}

    @cached_property
    def pod_specs(self) -> list[PodSpec]:
        entry = workloads.lookup(self.kind, self.api_version)
        if entry is None:
            # A GitOps release of a chart whose values are pod specs (kinds/charts.py).
            charted = [
                PodSpec(
                    self,
                    pod.built.path,
                    pod.built.spec,
                    None,
                    pod.name,
                    pod.replicas,
                    built_containers=pod.built.containers,
                    redirects=pod.built.redirects,
                    workload_kind=pod.workload_kind,
                )
                for pod in chart_pods(self.obj, self.scope or ())
            ]
            if self.scope is not None:
                return charted  # a Helmfile release: its chart's pods, nothing guessed
            return charted or [
                PodSpec(self, g.path, g.spec, g.metadata_path, g.role, None)
                for g in find_generic(self.obj, self.api_version)
            ]
        found = []
        for site in entry.sites:
            meta_pattern = site.metadata_pattern()
            for path, bound in workloads.match(self.obj, site.spec):
                spec = workloads.get(self.obj, path)
                if not isinstance(spec, dict):
                    continue
                meta = workloads.bind(meta_pattern, bound) if meta_pattern else None
                role = (site.label(self.obj, bound) if site.label else None) or site.role
                role = role or ("/".join(str(b) for b in bound) or None)
                replicas = _replicas(self.obj, site, bound)
                if site.build is None:
                    pod = PodSpec(self, path, spec, meta, role, replicas, site.containers)
                    pod.qualify = site.qualify
                    pod.container_names = site.container_names
                    found.append(pod)
                    continue
                built = site.build(self.obj, path)
                if built is not None:
                    found.append(
                        PodSpec(
                            self,
                            built.path,
                            built.spec,
                            meta,
                            role,
                            replicas,
                            built_containers=built.containers,
                            redirects=built.redirects,
                            qualify=site.qualify,
                        )
                    )
        return found

    @cached_property
    def redirects(self) -> dict[tuple, tuple]:
        """Virtual paths of operator-assembled pods -> where the author wrote the value."""
        return {virtual: real for pod in self.pod_specs for virtual, real in pod.redirects}

    def container_label(self, name: str, path: tuple) -> str:
        """``role/name`` for a container of a pod whose site qualifies its names, else ``name``."""
        for pod in self.pod_specs:
            if pod.qualify and pod.role and path[: len(pod.path)] == pod.path:
                return f"{pod.role}/{name}"
        return name

    def real_path(self, path: tuple) -> tuple:
        """``path`` with its longest redirected prefix replaced (itself when none is)."""
        redirects = self.redirects
        if redirects:
            for n in range(len(path), 0, -1):
                target = redirects.get(path[:n])
                if target is not None:
                    return target + path[n:]
        return path

    @property
    def generic(self) -> bool:
        """Pod specs found by a fallback finder: the kind is not in the workload table."""
        return workloads.lookup(self.kind, self.api_version) is None and bool(self.pod_specs)

    @property
    def containers(self) -> list[Container]:
        """Every container of every pod spec (a property, like :attr:`PodSpec.containers`)."""
        return [container for pod in self.pod_specs for container in pod.containers]

    @property
    def requests_gpu(self) -> bool:
        return any(pod.requests_gpu for pod in self.pod_specs)

    def release(self) -> None:
        """Drop the cached views once every rule has seen this resource.

        Pod specs point back at their resource and containers at their pod: left as
        they are, those cycles keep the document's whole node tree alive until the
        cyclic garbage collector runs, so memory would grow with the number of files.
        """
        for pod in self.__dict__.pop("pod_specs", ()):
            for container in pod.__dict__.pop("containers", ()):
                container.memo.clear()
            pod.memo.clear()
        self.__dict__.pop("redirects", None)
        self.memo.clear()


def _replicas(obj: dict, site: workloads.PodSite, bound: tuple) -> int | None:
    if site.count is not None:
        return site.count(obj, bound)
    if not site.replicas:
        return None
    total = 1
    for pattern in site.replicas:
        value = workloads.get(obj, workloads.bind(pattern, bound))
        if isinstance(value, bool) or not isinstance(value, int):
            value = 1  # the API default for replicas and parallelism
        total *= max(value, 0)
    return total


T = TypeVar("T")


def shared(
    owner: Resource | PodSpec | Container | Document, compute: Callable[..., T], *args: Any
) -> T:
    """``compute(owner, *args)``, computed once per owner and shared by every rule that asks.

    The one way rules share derived facts: kept in the owner's ``memo``, keyed by the
    function (so ``compute`` must be a module-level function, and ``args`` the same
    for the whole run, like the run's context). :func:`release` drops the memo with
    the owner's views, so an entry that points back at its owner leaves no cycle.
    """
    memo = owner.memo
    if compute in memo:
        return memo[compute]
    value = memo[compute] = compute(owner, *args)
    return value


def resources_of(doc: Document) -> Iterator[Resource]:
    """The resources of a document: itself, or the items of a ``kind: List``.

    Built once per document, so every rule shares the same views and their
    cached pod specs, containers and GPU counts.
    """
    return iter(shared(doc, _resource_list))


def release(doc: Document) -> None:
    """Drop what :func:`shared` kept for ``doc`` and its resources (:meth:`Resource.release`)."""
    for resource in doc.memo.get(_resource_list, ()):
        resource.release()
    doc.memo.clear()


def _resource_list(doc: Document) -> list[Resource]:
    return list(_resources_of(doc))


def _resources_of(doc: Document) -> Iterator[Resource]:
    data = doc.data
    if not isinstance(data, dict):
        return
    kind = data.get("kind")
    items = data.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for i, item in enumerate(items):
            resource = _resource(doc, ("items", i), item)
            if resource is not None:
                yield resource
        return
    resource = _resource(doc, (), data)
    if resource is not None:
        yield resource
        return
    # A Helmfile's releases of charts whose values are pod specs, each a resource.
    found = False
    for scope, name, namespace in charts.helmfile_releases(data):
        found = True
        kind, api_version = charts.HELMFILE_RELEASE, charts.HELMFILE_API
        yield Resource(doc, (), data, kind, api_version, name, namespace, scope=scope)
    if found:
        return
    # A KubeAI values file: each resource profile is the pod of the Models that name it.
    # Only for a document that is no object (LAZY in tests/project/test_import_contract.py).
    from gpulint.model.kinds import kubeai

    for prefix, name, profile in kubeai.profiles_of(data):
        yield Resource(doc, prefix, profile, kubeai.KIND, kubeai.API_VERSION, name, None)


def _resource(doc: Document, prefix: tuple, obj: Any) -> Resource | None:
    if not isinstance(obj, dict):
        return None
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return None
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name = meta.get("name") or meta.get("generateName") or "<unnamed>"
    namespace = meta.get("namespace")
    return Resource(
        doc,
        prefix,
        obj,
        kind,
        api_version,
        str(name),
        str(namespace) if namespace is not None else None,
    )
