"""Where ML serving platforms keep their pods when no PodSpec holds them whole.

Sources (each read for the field names, defaults and the operator's assembly rule):

- NVIDIA Dynamo, ``nvidia.com``:
  - v1alpha1 ``DynamoGraphDeployment``: ``spec.services.<name>`` is a
    DynamoComponentDeploymentSharedSpec (ai-dynamo/dynamo
    deploy/cloud/operator/api/v1alpha1/dynamocomponentdeployment_types.go): ``resources``
    in Dynamo's own shape (deploy/cloud/operator/api/dynamo/common/common.go ``ResourceItem``:
    ``cpu``, ``memory``, ``gpu``, ``gpuType``, ``custom``), ``extraPodSpec`` (a PodSpec inline
    plus ``mainContainer``), ``replicas``, ``multinode.nodeCount`` (kubebuilder default 2).
  - The main container: deploy/operator/api/v1alpha1/shared_spec_conversion.go
    ``buildSharedPodTemplateFromAlpha``: a base built from the dedicated fields, then
    ``extraPodSpec.mainContainer`` merged over it (``mergo.WithOverride``), named ``main``;
    the other ``extraPodSpec.containers`` stay as sidecars.
  - ``resources.{requests,limits}.gpu`` becomes ``nvidia.com/gpu`` unless ``gpuType`` names
    another resource (deploy/operator/internal/controller_common/resource.go
    ``GetResourcesConfig``, ``getGPUResourceName``); ``custom`` keys are copied as they are.
  - v1beta1 (deploy/operator/api/v1beta1/dynamographdeployment_types.go,
    dynamocomponentdeployment_types.go): ``spec.components[]`` with ``name``, ``replicas``,
    ``multinode`` and ``podTemplate`` (a PodTemplateSpec whose container ``main`` the operator
    fills). The standalone DynamoComponentDeployment keeps the same shared spec at ``spec``.
- llm-d ModelService, ``llm-d.ai`` v1alpha1 (llm-d/llm-d-model-service
  api/v1alpha1/modelservice_types.go): ``spec.decode`` and ``spec.prefill`` (PDSpec:
  ``replicas`` default 1, ``containers``/``initContainers`` of ContainerSpec (name, image, args,
  env, envFrom, resources), ``parallelism.tensor``, ``acceleratorTypes`` (``labelKey``,
  ``labelValues``: a required node affinity, accelerator_types.go ``ToNodeAffinity``)).
  The controller overlays these on the ``baseConfigMapRef`` ConfigMap's Deployment templates
  (README "Merging"), so a ModelService that names a base config is an overlay the run cannot
  see whole: only one without ``baseConfigMapRef`` is read as the pods it makes.
"""

from __future__ import annotations

from typing import Any

from gpulint.model.kinds import sites as table
from gpulint.model.kinds.sites import ANY_ITEM, ANY_KEY, Built, Kinds, PodSite, mapping

KINDS = Kinds()  # this module's entries of the workload table (table.py)

NVIDIA_GPU = "nvidia.com/gpu"


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(value, 0)


# --- Dynamo ---------------------------------------------------------------------------------


def _nodes(component: dict) -> int:
    """Pods per replica: ``multinode.nodeCount`` (default 2 once ``multinode`` is set)."""
    multinode = component.get("multinode")
    if not isinstance(multinode, dict):
        return 1
    return _int(multinode.get("nodeCount"), 2)


def _component_pods(component: Any) -> int | None:
    if not isinstance(component, dict):
        return None
    return _int(component.get("replicas"), 1) * _nodes(component)


def _dynamo_native(resources: dict, base: tuple, main: tuple) -> tuple[dict, list]:
    """Dynamo's ``resources`` as the container's ResourceRequirements, with the redirects
    from the container's keys to the fields they came from."""
    native: dict = {}
    redirects: list = []
    for section in ("requests", "limits"):
        item = resources.get(section)
        if not isinstance(item, dict):
            continue
        out: dict = {}
        for key in ("cpu", "memory"):
            value = item.get(key)
            if value not in (None, ""):
                out[key] = value
                redirects.append((main + (section, key), base + (section, key)))
        gpu = item.get("gpu")
        if gpu not in (None, ""):
            kind = item.get("gpuType")
            name = kind if isinstance(kind, str) and kind else NVIDIA_GPU
            out[name] = gpu
            redirects.append((main + (section, name), base + (section, "gpu")))
        for key, value in mapping(item.get("custom")).items():
            out[str(key)] = value
            redirects.append((main + (section, str(key)), base + (section, "custom", key)))
        if out:
            native[section] = out
            redirects.append((main + (section,), base + (section,)))
    return native, redirects


def _merged_resources(native: dict, written: Any) -> dict:
    """mergo.Merge(base, mainContainer, WithOverride): maps merge key by key, the
    mainContainer's values win."""
    merged = {section: dict(values) for section, values in native.items()}
    for section, values in mapping(written).items():
        if isinstance(values, dict):
            merged.setdefault(section, {}).update(values)
        else:
            merged[section] = values
    return merged


def _dynamo_service(obj: Any, path: tuple) -> Built | None:
    """A v1alpha1 service: ``extraPodSpec`` with the ``main`` container assembled from
    ``resources`` and ``extraPodSpec.mainContainer``."""
    service = table.get(obj, path)
    if not isinstance(service, dict):
        return None
    extra = service.get("extraPodSpec")
    spec_path = path + ("extraPodSpec",)
    redirects: list = []
    if not isinstance(extra, dict):
        extra = {}
        redirects.append((spec_path, path))
    main_path = spec_path + ("mainContainer",)
    written = extra.get("mainContainer")
    resources = service.get("resources")
    if not isinstance(written, dict) and not isinstance(resources, dict):
        # No main container to judge; sidecars in extraPodSpec.containers still count.
        return Built(spec_path, extra, (), tuple(redirects))
    if not isinstance(written, dict):
        written = {}
        redirects.append((main_path, path))
    native, moved = _dynamo_native(
        mapping(resources), path + ("resources",), main_path + ("resources",)
    )
    main = dict(written)
    main["name"] = "main"
    merged = _merged_resources(native, written.get("resources"))
    if merged:
        main["resources"] = merged
    if "resources" not in written and native:
        moved.append((main_path + ("resources",), path + ("resources",)))
    # Only the keys the mainContainer did not set come from Dynamo's own fields.
    mine = mapping(written.get("resources"))
    for virtual, real in moved:
        section = virtual[len(main_path) + 1] if len(virtual) > len(main_path) + 1 else None
        key = virtual[len(main_path) + 2] if len(virtual) > len(main_path) + 2 else None
        if key is not None and key in mapping(mine.get(section)):
            continue
        if key is None and section is not None and section in mine:
            continue
        redirects.append((virtual, real))
    # extraPodSpec.containers stay as they are: sidecars beside the assembled main container.
    return Built(spec_path, extra, ((main_path, main),), tuple(redirects))


def _service_name(obj: Any, bound: tuple) -> str | None:
    return str(bound[0]) if bound else None


def _service_pods(services: tuple):
    def count(obj: Any, bound: tuple) -> int | None:
        return _component_pods(table.get(obj, services + (bound[0],)) if bound else None)

    return count


def _component_label(components: tuple):
    def label(obj: Any, bound: tuple) -> str | None:
        item = table.get(obj, components + (bound[0],)) if bound else None
        name = item.get("name") if isinstance(item, dict) else None
        return str(name) if name is not None else None

    return label


def _component_count(components: tuple):
    def count(obj: Any, bound: tuple) -> int | None:
        return _component_pods(table.get(obj, components + (bound[0],)) if bound else None)

    return count


_SERVICES = ("spec", "services")
_COMPONENTS = ("spec", "components")
KINDS.add(
    "DynamoGraphDeployment",
    PodSite(
        _SERVICES + (ANY_KEY,),
        replicas=(_SERVICES + (ANY_KEY, "replicas"), _SERVICES + (ANY_KEY, "multinode")),
        metadata=_SERVICES + (ANY_KEY, "extraPodMetadata"),
        count=_service_pods(_SERVICES),
        label=_service_name,
        build=_dynamo_service,
        qualify=True,
    ),
    PodSite(
        _COMPONENTS + (ANY_ITEM, "podTemplate", "spec"),
        replicas=(_COMPONENTS + (ANY_ITEM, "replicas"), _COMPONENTS + (ANY_ITEM, "multinode")),
        count=_component_count(_COMPONENTS),
        label=_component_label(_COMPONENTS),
        qualify=True,
    ),
    group="nvidia.com",
)


def _dcd_pods(obj: Any, bound: tuple) -> int | None:
    return _component_pods(table.get(obj, ("spec",)))


def _dcd_name(obj: Any, bound: tuple) -> str | None:
    spec = mapping(table.get(obj, ("spec",)))
    name = spec.get("serviceName") or spec.get("name")
    return str(name) if name else None


def _dcd_build(obj: Any, path: tuple) -> Built | None:
    spec = table.get(obj, path)
    if not isinstance(spec, dict) or "podTemplate" in spec:
        return None  # v1beta1: the podTemplate site reads it
    return _dynamo_service(obj, path)


KINDS.add(
    "DynamoComponentDeployment",
    PodSite(
        ("spec",),
        metadata=("spec", "extraPodMetadata"),
        count=_dcd_pods,
        label=_dcd_name,
        build=_dcd_build,
        qualify=True,
    ),
    PodSite(("spec", "podTemplate", "spec"), count=_dcd_pods, label=_dcd_name, qualify=True),
    group="nvidia.com",
)

# --- llm-d ModelService -----------------------------------------------------------------------


def _accelerator_affinity(types: Any) -> dict | None:
    """``acceleratorTypes`` as the required node affinity it places the pods with."""
    if not isinstance(types, dict):
        return None
    key, values = types.get("labelKey"), types.get("labelValues")
    if not isinstance(key, str) or not key or not isinstance(values, list) or not values:
        return None
    term = {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
    required = {"nodeSelectorTerms": [term]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}


def _model_service_role(obj: Any, path: tuple) -> Built | None:
    spec = table.get(obj, ("spec",))
    section = table.get(obj, path)
    if not isinstance(section, dict) or not isinstance(spec, dict):
        return None
    if spec.get("baseConfigMapRef") is not None:
        return None  # an overlay on a base config the run does not hold as a pod
    pod = {k: section[k] for k in ("containers", "initContainers") if k in section}
    redirects: list = []
    affinity = _accelerator_affinity(section.get("acceleratorTypes"))
    if affinity is not None:
        pod["affinity"] = affinity
        redirects.append((path + ("affinity",), path + ("acceleratorTypes",)))
    return Built(path, pod, (), tuple(redirects))


def _pd_replicas(role: str):
    def count(obj: Any, bound: tuple) -> int | None:
        return _int(table.get(obj, ("spec", role, "replicas")), 1)

    return count


KINDS.add(
    "ModelService",
    *(
        PodSite(
            ("spec", role),
            replicas=(("spec", role, "replicas"),),
            metadata=("spec", role, "metadata"),
            count=_pd_replicas(role),
            role=role,
            build=_model_service_role,
            qualify=True,
        )
        for role in ("decode", "prefill")
    ),
    group="llm-d.ai",
)
