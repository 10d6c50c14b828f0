"""Profile facts read from one object: a GPU Node, a Karpenter NodePool, a pod's selectors.

Each function adds to an :class:`Observations`; :func:`profile.decide` weighs them.
Only what an object says outright counts: a Node that advertises GPUs (by capacity
or GPU labels), a NodePool whose requirements or taints are about GPUs, a node
selector on a provider's own label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulint.model.cluster_profile import GpuNodeGroup, GpuTaint, Observations
from gpulint.model.dra import (
    DEVICE_CLASS,
    claim_objects,
    class_selects_gpus,
    compute_domain_template,
    is_dra_object,
)
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.gpu.labels import GKE_ACCELERATOR, PRODUCT, node_gpu_evidence
from gpulint.model.node_requirements import label_requirements, tolerations
from gpulint.model.resource import Resource
from gpulint.model.scheduling.nodes import BLOCKING_EFFECTS, is_node, node_view

# Node and selector label prefixes each provider sets on its own nodes.
_PROVIDER_PREFIXES = (
    ("cloud.google.com/", "gke"),
    ("eks.amazonaws.com/", "eks"),
    ("karpenter.k8s.aws/", "eks"),
    ("kubernetes.azure.com/", "aks"),
    ("karpenter.azure.com/", "aks"),
    ("node.openshift.io/", "openshift"),
)
_PROVIDER_IDS = (("gce://", "gke"), ("aws://", "eks"), ("azure://", "aks"))

# Labels whose value names the node's GPU model.
_MODEL_LABELS = (
    PRODUCT,
    GKE_ACCELERATOR,
    "karpenter.k8s.aws/instance-gpu-name",
    "eks.amazonaws.com/instance-gpu-name",
    "karpenter.azure.com/sku-gpu-name",
)
# Karpenter requirements that make a NodePool a GPU one; the first names the model.
_GPU_REQUIREMENTS = (
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/sku-gpu-manufacturer",
)
_GPU_NAME_REQUIREMENTS = ("karpenter.k8s.aws/instance-gpu-name", "karpenter.azure.com/sku-gpu-name")
# EC2 accelerated-computing families and the one NVIDIA GPU each carries
# (aws.amazon.com/ec2/instance-types/#Accelerated_Computing).
_EC2_GPU_FAMILIES = {
    "g4dn": "t4",
    "g5": "a10g",
    "g6": "l4",
    "g6e": "l40s",
    "gr6": "l4",
    "p3": "v100",
    "p3dn": "v100",
    "p4d": "a100",
    "p4de": "a100",
    "p5": "h100",
    "p5e": "h200",
    "p5en": "h200",
}


def _where(resource: Resource) -> str:
    return f"{resource.kind} {resource.name}"


def _provider_of_key(key: str) -> str | None:
    return next((p for prefix, p in _PROVIDER_PREFIXES if key.startswith(prefix)), None)


def observe(resource: Resource, seen: Observations, origin: str) -> None:
    """Add what one object says about the cluster."""
    if is_node(resource):
        _node(resource, seen, origin)
    elif resource.kind == "NodePool" and resource.api_version.startswith("karpenter.sh/"):
        _nodepool(resource, seen, origin)
    elif is_dra_object(resource) or compute_domain_template(resource):
        seen.claims.extend(claim_objects(resource))
        if resource.kind == DEVICE_CLASS and class_selects_gpus(resource):
            seen.gpu_classes.add(resource.name)
    elif resource.kind == "RuntimeClass" and resource.api_version.startswith("node.k8s.io/"):
        items = _get(resource.obj, ("scheduling", "tolerations"))
        if isinstance(items, list):
            found = tuple(dict(t) for t in items if isinstance(t, Mapping))
            seen.runtime_tolerations[resource.name] = found
    else:
        for pod in resource.pod_specs:
            if resource.kind == "DaemonSet" and is_infra_pod(pod):
                for toleration in tolerations(pod.spec):
                    if toleration.key and toleration.effect in (None, "NoSchedule"):
                        seen.infra_tolerated.setdefault(toleration.key, f"{_where(resource)}")
            for req in label_requirements(pod.spec):
                provider = _provider_of_key(req.key)
                if provider and req.operator in ("In", "Exists"):
                    seen.provider(provider, f"{req.key} selected by {_where(resource)} ({origin})")


def _node(resource: Resource, seen: Observations, origin: str) -> None:
    where = f"{_where(resource)} ({origin})"
    labels = resource.labels
    for key in labels:
        provider = _provider_of_key(str(key))
        if provider:
            seen.provider(provider, f"label {key} of {where}", cluster_object=True)
            break
    spec = resource.obj.get("spec")
    provider_id = str(spec.get("providerID") or "") if isinstance(spec, Mapping) else ""
    for prefix, provider in _PROVIDER_IDS:
        if provider_id.startswith(prefix):
            seen.provider(provider, f"providerID of {where}", cluster_object=True)
    if node_gpu_evidence(resource.obj, labels) is None:
        return
    view = node_view(resource)
    taints = tuple(GpuTaint(t.key, t.effect) for t in view.taints if t.effect in BLOCKING_EFFECTS)
    named = gpu_model(labels)
    models = frozenset({named}) if named else frozenset()
    most = max(view.allocatable.values(), default=0) or None
    seen.groups.append(GpuNodeGroup(where, taints, models, most))


def gpu_model(labels: Mapping[str, Any]) -> str | None:
    """The GPU model a node's labels name. One model per node: GFD's product label and
    GKE's accelerator label name the same GPU, so the first that is set wins."""
    return next((str(labels[k]) for k in _MODEL_LABELS if labels.get(k)), None)


def _nodepool(resource: Resource, seen: Observations, origin: str) -> None:
    where = f"{_where(resource)} ({origin})"
    template = _get(resource.obj, ("spec", "template", "spec"))
    if not isinstance(template, Mapping):
        return
    reqs = template.get("requirements")
    reqs = [r for r in reqs if isinstance(r, Mapping)] if isinstance(reqs, list) else []
    taints = template.get("taints")
    taints = [t for t in taints if isinstance(t, Mapping)] if isinstance(taints, list) else []
    for req in reqs:
        provider = _provider_of_key(str(req.get("key") or ""))
        if provider:
            seen.provider(provider, f"requirement {req.get('key')} of {where}", cluster_object=True)
            break
    models: set[str] = set()
    gpu = any(str(t.get("key")) == "nvidia.com/gpu" for t in taints)
    for req in reqs:
        key, values = str(req.get("key") or ""), req.get("values")
        values = [str(v) for v in values] if isinstance(values, list) else []
        if req.get("operator") != "In":
            continue
        if key in _GPU_REQUIREMENTS:
            gpu = True
        if key in _GPU_NAME_REQUIREMENTS:
            models.update(values)
        elif key == "karpenter.k8s.aws/instance-family":
            families = [_EC2_GPU_FAMILIES.get(v) for v in values]
            if families and all(families):
                gpu = True
                models.update(f for f in families if f)
    if not gpu:
        return
    blocking = tuple(
        GpuTaint(str(t["key"]), str(t.get("effect")))
        for t in taints
        if t.get("key") and t.get("effect") in BLOCKING_EFFECTS
    )
    seen.groups.append(GpuNodeGroup(where, blocking, frozenset(models)))


def _get(obj: Any, path: tuple) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj
