"""Whether a served model's weights fit the GPUs that hold one copy of it.

One copy of the model is split over tensor x pipeline parallel GPUs (data parallel
copies it); without those flags, over at most the GPUs its container holds. The GPU
memory is the catalog's ``nvidia.com/gpu.memory`` figure of the product the pod
selects (``nvidia.com/gpu.product`` or ``cloud.google.com/gke-accelerator``): every
product it may land on must be known, and the largest counts; without a selector,
the cluster profile's GPU models, when every one is a known product.
"""

from __future__ import annotations

from gpulint import catalog
from gpulint.core.record import record
from gpulint.model.cluster_profile import ClusterProfile
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.gpu.mig import selected_products
from gpulint.model.kinds.table import api_group
from gpulint.model.node_requirements import required_values
from gpulint.model.resource import Container, PodSpec, Resource
from gpulint.model.serving.parallelism import command_line
from gpulint.model.serving.weights import Weights, model_parallel_degree, weights
from gpulint.model.values.gpu_resources import NVIDIA_GPU

LWS_GROUP = "leaderworkerset.x-k8s.io"
GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
MIB = 2**20
GB = 1e9
# Counts in model names are rounded (Llama-2-7b holds 6.7B parameters).
NAME_ROUNDING = 0.95


def spans_pods(resource: Resource) -> bool:
    """Kinds whose model groups span several pods: a Ray cluster, a LeaderWorkerSet of size > 1,
    a Dynamo deployment with a multi-node component (``multinode.nodeCount`` > 1)."""
    group, spec = api_group(resource.api_version), resource.obj.get("spec")
    if group == "ray.io":
        return True
    if group == "nvidia.com" and resource.kind in _DYNAMO_KINDS and isinstance(spec, dict):
        return any(_node_count(part) > 1 for part in _dynamo_parts(spec))
    if group == LWS_GROUP and isinstance(spec, dict):
        template = spec.get("leaderWorkerTemplate")
        size = template.get("size") if isinstance(template, dict) else None
        return isinstance(size, int) and not isinstance(size, bool) and size > 1
    return False


_DYNAMO_KINDS = ("DynamoGraphDeployment", "DynamoComponentDeployment")


def _dynamo_parts(spec: dict) -> list:
    """A Dynamo spec's components: ``services`` by name (v1alpha1), ``components`` (v1beta1),
    or the spec itself (a DynamoComponentDeployment)."""
    services = spec.get("services")
    components = spec.get("components")
    parts: list = [spec]
    if isinstance(services, dict):
        parts += list(services.values())
    if isinstance(components, list):
        parts += components
    return parts


def _node_count(part: object) -> int:
    """``multinode.nodeCount`` of a Dynamo component (the pods one model copy spans)."""
    multinode = part.get("multinode") if isinstance(part, dict) else None
    count = multinode.get("nodeCount") if isinstance(multinode, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else 1


@record(frozen=True)
class Fit:
    """A model copy's weights against the memory of the GPUs that hold it."""

    container: Container
    weights: Weights
    gpus: int
    split: str  # why that many GPUs ("--tensor-parallel-size 4", "the container's 2 GPUs")
    product: str
    memory_mib: int

    @property
    def memory_bytes(self) -> float:
        return self.gpus * self.memory_mib * MIB

    @property
    def cannot_fit(self) -> bool:
        """The weights exceed the GPUs' memory even if the name's count is rounded up."""
        return self.weights.total_bytes * NAME_ROUNDING > self.memory_bytes

    def arithmetic(self) -> str:
        w = self.weights
        count = f"{w.parameters / 1e9:g}B parameters"
        if w.note:
            count += f" ({w.note})"
        return (
            f"{w.model} needs about {w.total_bytes / GB:.0f} GB for its weights ({count} x "
            f"{w.bytes_per_parameter:g} bytes, {w.precision}); {self.split} puts them on "
            f"{self.gpus} x {self.product} of {self.memory_mib * MIB / GB:.1f} GB "
            f"({self.memory_mib} MiB) = {self.memory_bytes / GB:.0f} GB"
        )


def _whole_gpus(labels: tuple[str, ...] | frozenset[str]) -> list[catalog.Gpu] | None:
    found = []
    for label in labels:
        _base, profile, shared = catalog.split_product(label)
        device = catalog.gpu_for_product(label)
        if profile or shared or device is None:
            return None  # a MIG slice or a shared GPU: not one whole GPU's memory
        found.append(device)
    return found or None


def _products(pod: PodSpec, profile: ClusterProfile | None) -> list[catalog.Gpu] | None:
    """The GPUs every node the pod may land on carries (None: not known)."""
    chosen = selected_products(pod.spec)
    if chosen is not None and chosen.values:
        return _whole_gpus(chosen.values)
    accelerators = required_values(pod.spec, GKE_ACCELERATOR)
    if accelerators:
        if len(accelerators) > 1 or accelerators[0].operator != "In":
            return None
        table = catalog.gke_accelerators()
        devices = [table.get(v) for v in accelerators[0].values]
        return [d for d in devices if d is not None] if devices and all(devices) else None
    if profile is not None and profile.gpu_models:
        return _whole_gpus(profile.gpu_models)  # the cluster's GPU models, every one known
    return None


def model_fits(resource: Resource, profile: ClusterProfile | None = None) -> list[Fit]:
    """Every serving container whose weights, GPUs and GPU memory are all known."""
    found: list[Fit] = []
    spread = spans_pods(resource)
    for pod in resource.pod_specs:
        products = None
        for container in pod.regular_containers():
            held = container.gpus.get(NVIDIA_GPU, 0)
            if not held or is_infra_container(container):
                continue
            line = command_line(container)
            loaded = weights(line, container.image)
            if loaded is None:
                continue
            parallelism = line.parallelism
            degree = model_parallel_degree(line)
            multi = spread or (parallelism is not None and parallelism.multi_node)
            multi = multi or (parallelism is not None and parallelism.nnodes > 1)
            if degree is not None and (multi or degree <= held):
                gpus, split = degree, parallelism.describe() if parallelism else ""
            elif degree is None and not multi:
                gpus, split = held, f"the container's {held} GPUs"
            else:
                continue  # more ranks than GPUs in one pod is GPU107's; a group unsized
            if products is None:
                products = _products(pod, profile) or []
            known = [p for p in products if p.memory_mib]
            if not known or len(known) != len(products):
                continue
            largest = max(known, key=lambda p: p.memory_mib or 0)
            label = largest.product_labels[0] if largest.product_labels else largest.id
            found.append(Fit(container, loaded, gpus, split, label, int(largest.memory_mib or 0)))
    return found
