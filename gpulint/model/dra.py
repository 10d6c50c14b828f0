"""Dynamic Resource Allocation (``resource.k8s.io``) views.

A pod names its claims in ``spec.resourceClaims[]`` (each with a
``resourceClaimTemplateName`` or a ``resourceClaimName``; before Kubernetes
1.31 these sat under a ``source:`` mapping, kubernetes/kubernetes#125116) and a
container uses them in ``resources.claims[]{name, request}``.

ResourceClaim, ResourceClaimTemplate and DeviceClass objects describe the
devices. In ``resource.k8s.io/v1`` and ``v1beta2`` a request is
``{name, exactly: {deviceClassName, ...}}`` or ``{name, firstAvailable: [...]}``;
``v1beta1`` (and the removed ``v1alpha3``) put ``deviceClassName`` on the request
itself (kubernetes/api ``resource/v1/types.go``, ``resource/v1beta1/types.go``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.resource import Container, PodSpec, Resource

GROUP = "resource.k8s.io"
CLAIM = "ResourceClaim"
TEMPLATE = "ResourceClaimTemplate"
DEVICE_CLASS = "DeviceClass"
OBJECT_KINDS = (CLAIM, TEMPLATE, DEVICE_CLASS)

# Versions whose request carries ``exactly``/``firstAvailable`` vs ``deviceClassName`` directly.
EXACTLY_VERSIONS = ("v1", "v1beta2")
FLAT_VERSIONS = ("v1beta1",)
SERVED_VERSIONS = EXACTLY_VERSIONS + FLAT_VERSIONS

# NVIDIA DRA driver device classes that hand out GPUs (not IMEX channels or compute domains).
# [k8s-dra-driver-gpu deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-*.yaml]
GPU_DEVICE_CLASSES = frozenset({"gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com"})
GPU_DRIVER = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"
FULL_GPU_CLASS = "gpu.nvidia.com"

# ComputeDomain (resource.nvidia.com) makes the ResourceClaimTemplate it names in
# ``spec.channel.resourceClaimTemplate.name`` in its own namespace.
COMPUTE_DOMAIN_GROUP = "resource.nvidia.com"
COMPUTE_DOMAIN_TEMPLATE = ("spec", "channel", "resourceClaimTemplate", "name")


def split_api_version(api_version: str) -> tuple[str, str]:
    """``resource.k8s.io/v1`` -> (``resource.k8s.io``, ``v1``); ``v1`` -> (``""``, ``v1``)."""
    if "/" in api_version:
        group, version = api_version.rsplit("/", 1)
        return group, version
    return "", api_version


def is_dra_object(resource: Resource) -> bool:
    group, _version = split_api_version(resource.api_version)
    return group == GROUP and resource.kind in OBJECT_KINDS


@record(frozen=True, slots=True)
class PodClaim:
    """One ``spec.resourceClaims`` entry."""

    name: str
    template: str | None  # resourceClaimTemplateName
    claim: str | None  # resourceClaimName
    path: tuple  # relative to the resource object: the list item
    legacy_source: bool  # the pre-1.31 ``source:`` indirection
    ref_path: tuple | None = None  # the resourceClaimTemplateName/resourceClaimName key

    @property
    def reference(self) -> tuple[str, str] | None:
        """(kind, name) of the object this entry needs, if it names one."""
        if self.template:
            return TEMPLATE, self.template
        if self.claim:
            return CLAIM, self.claim
        return None


@record(frozen=True, slots=True)
class ContainerClaim:
    """One ``resources.claims`` entry of a container."""

    name: str
    request: str | None
    path: tuple  # relative to the resource object: the list item


def _text(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def pod_claims(pod: PodSpec) -> list[PodClaim]:
    items = pod.spec.get("resourceClaims")
    if not isinstance(items, list):
        return []
    found = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or _text(item.get("name")) is None:
            continue
        source = item.get("source")
        legacy = isinstance(source, dict)
        holder = source if isinstance(source, dict) else item  # legacy: the source mapping
        path = pod.path + ("resourceClaims", i)
        template = claim = ref_path = None
        for key in ("resourceClaimTemplateName", "resourceClaimName"):
            for where, prefix in ((holder, ("source",) if legacy else ()), (item, ())):
                value = _text(where.get(key))
                if value and ref_path is None:
                    ref_path = path + prefix + (key,)
                    if key == "resourceClaimName":
                        claim = value
                    else:
                        template = value
        found.append(PodClaim(str(item["name"]), template, claim, path, legacy, ref_path))
    return found


def container_claims(container: Container) -> list[ContainerClaim]:
    resources = container.data.get("resources")
    items = resources.get("claims") if isinstance(resources, dict) else None
    if not isinstance(items, list):
        return []
    found = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and _text(item.get("name")) is not None:
            found.append(
                ContainerClaim(
                    str(item["name"]),
                    _text(item.get("request")),
                    container.path + ("resources", "claims", i),
                )
            )
    return found


def claim_spec_path(resource: Resource) -> tuple | None:
    """Where a claim's spec (the mapping holding ``devices``) lives in the object."""
    if resource.kind == CLAIM:
        return ("spec",)
    if resource.kind == TEMPLATE:
        return ("spec", "spec")
    return None


def _get(obj: Any, path: tuple) -> Any:
    for step in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(step)
    return obj


@record(frozen=True, slots=True)
class DeviceRequest:
    """One device request of a ResourceClaim (or claim template) spec."""

    name: str
    classes: tuple[str, ...]  # device class names it (or its firstAvailable subrequests) names
    path: tuple  # relative to the resource object
    devices: int | None = 1  # how many devices an exact request gets; None: allocationMode All
    exact_class: str | None = None  # the class of an exact request (not firstAvailable)


def device_requests(resource: Resource) -> Iterator[DeviceRequest]:
    """The device requests of a ResourceClaim or ResourceClaimTemplate, any shape."""
    spec_path = claim_spec_path(resource)
    if spec_path is None:
        return
    spec = _get(resource.obj, spec_path)
    if not isinstance(spec, dict):
        return
    # resource.k8s.io/v1alpha2 named one class for the whole claim.
    legacy_class = _text(spec.get("resourceClassName"))
    if legacy_class:
        yield DeviceRequest("", (legacy_class,), spec_path + ("resourceClassName",))
    requests = _get(spec, ("devices", "requests"))
    if not isinstance(requests, list):
        return
    for i, request in enumerate(requests):
        if not isinstance(request, dict):
            continue
        classes = []
        devices: int | None = 1
        exact_class = None
        for holder in (request, request.get("exactly")):
            if isinstance(holder, dict) and _text(holder.get("deviceClassName")):
                exact_class = str(holder["deviceClassName"])
                classes.append(exact_class)
                devices = _devices(holder)
        subrequests = request.get("firstAvailable")
        if isinstance(subrequests, list):
            for sub in subrequests:
                if isinstance(sub, dict) and _text(sub.get("deviceClassName")):
                    classes.append(str(sub["deviceClassName"]))
        name = _text(request.get("name")) or ""
        path = spec_path + ("devices", "requests", i)
        yield DeviceRequest(name, tuple(classes), path, devices, exact_class)


def _devices(request: dict) -> int | None:
    """Devices an exact request is allocated: ``count`` (default 1), None for ``All``."""
    if request.get("allocationMode") == "All":
        return None
    count = request.get("count", 1)
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def class_selects_gpus(resource: Resource) -> bool:
    """A DeviceClass whose CEL selectors pick devices of NVIDIA's GPU driver."""
    selectors = _get(resource.obj, ("spec", "selectors"))
    if not isinstance(selectors, list):
        return False
    for selector in selectors:
        expression = _get(selector, ("cel", "expression"))
        if isinstance(expression, str) and (
            f"'{GPU_DRIVER}'" in expression or f'"{GPU_DRIVER}"' in expression
        ):
            return True
    return False


def extended_resource_name(resource: Resource) -> str | None:
    """A DeviceClass's ``extendedResourceName`` (DRAExtendedResource, KEP-5004)."""
    return _text(_get(resource.obj, ("spec", "extendedResourceName")))


def compute_domain_template(resource: Resource) -> str | None:
    group, _version = split_api_version(resource.api_version)
    if group != COMPUTE_DOMAIN_GROUP or resource.kind != "ComputeDomain":
        return None
    return _text(_get(resource.obj, COMPUTE_DOMAIN_TEMPLATE))


@record(frozen=True, slots=True)
class ClaimObject:
    """A ResourceClaim or ResourceClaimTemplate the run defines (a small picklable fact)."""

    kind: str  # CLAIM or TEMPLATE
    namespace: str | None
    name: str
    requests: tuple[str, ...]  # request names; empty when unknown
    classes: tuple[str, ...]  # device class names its requests use
    generated: bool = False  # made by another object (ComputeDomain), contents unknown
    # (request name, device class, devices or None for All) of each exact request
    exact: tuple[tuple[str, str, int | None], ...] = ()


def claim_objects(resource: Resource) -> list[ClaimObject]:
    """The claim objects a resource stands for: itself, or the template a ComputeDomain makes."""
    template = compute_domain_template(resource)
    if template:
        return [ClaimObject(TEMPLATE, resource.namespace, template, (), (), generated=True)]
    group, _version = split_api_version(resource.api_version)
    if group != GROUP or resource.kind not in (CLAIM, TEMPLATE):
        return []
    requests = list(device_requests(resource))
    return [
        ClaimObject(
            resource.kind,
            resource.namespace,
            resource.name,
            tuple(r.name for r in requests if r.name),
            tuple(c for r in requests for c in r.classes),
            exact=tuple((r.name, r.exact_class, r.devices) for r in requests if r.exact_class),
        )
    ]


def namespaces_match(a: str | None, b: str | None) -> bool:
    """Objects without a namespace land in whatever namespace they are applied to."""
    return a is None or b is None or a == b


def cel_expressions(resource: Resource) -> Iterator[tuple[tuple, str]]:
    """Every ``cel.expression`` string of a DRA object, with its path."""
    return _cel_walk(resource.obj.get("spec"), ("spec",))


# Module level, not a closure: a recursive closure is a reference cycle (see engine).
def _cel_walk(node: Any, path: tuple) -> Iterator[tuple[tuple, str]]:
    if isinstance(node, dict):
        cel = node.get("cel")
        if isinstance(cel, dict) and isinstance(cel.get("expression"), str):
            yield path + ("cel", "expression"), cel["expression"]
        for key, value in node.items():
            if key != "cel":
                yield from _cel_walk(value, path + (key,))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _cel_walk(item, path + (i,))


_ANY = object()  # a key part: any namespace


class ClaimIndex:
    """The run's claim objects, looked up by what a reference names (GPU503, GPU801,
    GPU803): comparing every reference with every object is quadratic in a large file."""

    def __init__(self, objects: list[ClaimObject]) -> None:
        self.namespaces = {o.namespace for o in objects}
        self._places: dict[tuple, list[ClaimObject]] = {}  # (kind, name, namespace or ANY)
        self._names: dict[tuple[str, str | None], set[str]] = {}
        self._kinds: set[str] = set()
        self._classes: dict[tuple, tuple[str, ...]] = {}
        for o in objects:
            self._places.setdefault((o.kind, o.name, o.namespace), []).append(o)
            self._places.setdefault((o.kind, o.name, _ANY), []).append(o)
            self._names.setdefault((o.kind, o.namespace), set()).add(o.name)
            self._kinds.add(o.kind)
        self._order = {id(o): i for i, o in enumerate(objects)}

    def matching(
        self, kind: str, name: str, namespace: str | None, limit: int = 2, usable: bool = False
    ) -> list[ClaimObject]:
        """The first ``limit`` objects (in the run's order) of that kind and name whose
        namespace matches (:func:`namespaces_match`); ``usable``: not generated ones."""
        if namespace is None:
            groups = [self._places.get((kind, name, _ANY), [])]
        else:
            groups = [self._places.get((kind, name, ns), []) for ns in (namespace, None)]
        found: list[ClaimObject] = []
        for group in groups:
            kept = (o for o in group if not (usable and o.generated))
            found.extend(o for _, o in zip(range(limit), kept, strict=False))
        found.sort(key=lambda o: self._order[id(o)])
        return found[:limit]

    def names(self, kind: str, namespace: str | None) -> set[str]:
        """Names of the objects of that kind in exactly that namespace."""
        return self._names.get((kind, namespace), set())

    def other_kind(self, kind: str, name: str, namespace: str | None) -> ClaimObject | None:
        """The first object of another kind with that name whose namespace matches."""
        found = [o for k in self._kinds if k != kind for o in self.matching(k, name, namespace, 1)]
        return min(found, key=lambda o: self._order[id(o)]) if found else None

    def classes(self, kind: str, name: str, namespace: str | None) -> tuple[str, ...]:
        """Device classes of every matching object (each key worked out once)."""
        key = (kind, name, namespace)
        found = self._classes.get(key)
        if found is None:
            limit = len(self._order)
            objects = self.matching(kind, name, namespace, limit) if limit else []
            found = self._classes[key] = tuple(c for o in objects for c in o.classes)
        return found
