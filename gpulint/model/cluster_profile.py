"""The cluster profile: what the run knows about the cluster its manifests go to.

Some rules are only true of some clusters: a GPU pod without a toleration stays
Pending only where GPU nodes are tainted and no admission plugin adds the
toleration; a pod that pins no GPU model lands on the wrong one only where there
are several. Such a rule asks the profile, and a finding that needs a fact the
profile does not hold is held back (``Report.needs``) and counted, never shown.

The profile is built once per run, before any rule runs (``inputs/profile_scan.py``),
from four places, strongest first: the ``cluster:`` section of ``.gpulint.yaml``;
Nodes (``--cluster`` or in the run); Karpenter NodePools; and provider signals in
the manifests (a ``cloud.google.com/gke-accelerator`` selector says GKE). It is
small, frozen and picklable, so worker processes get it with the context.
"""

from __future__ import annotations

from gpulint.core.record import field, record
from gpulint.core.settings import ClusterConfig, GpuTaint
from gpulint.model.dra import GPU_DEVICE_CLASSES, ClaimObject

PROVIDERS = ("gke", "eks", "aks", "openshift", "generic")

# The facts a finding can need, with how a user gives each one.
TAINTS = "gpu-taints"
MODELS = "gpu-models"
MAX_GPUS = "max-gpus-per-node"

# GKE taints GPU nodes with nvidia.com/gpu=present:NoSchedule and runs the
# ExtendedResourceToleration admission plugin, which adds the matching toleration to
# every pod that requests nvidia.com/gpu ("Run GPUs in GKE Standard node pools",
# cloud.google.com/kubernetes-engine/docs/how-to/gpus; the plugin: kubernetes/kubernetes
# PR 55839, plugin/pkg/admission/extendedresourcetoleration).
GKE_GPU_TAINT = "nvidia.com/gpu"
# Providers whose control plane runs ExtendedResourceToleration on every cluster: GKE (as
# above) and EKS, whose every platform version enables it ("View Amazon EKS platform
# versions", docs.aws.amazon.com/eks/latest/userguide/platform-versions.html, the admission
# controllers of each version; enabled from Kubernetes 1.19 on, aws/containers-roadmap#739).
# AKS does not (catalog.yaml, taints.aks_doc_example).
TOLERATION_ADDED_BY = frozenset({"gke", "eks"})


@record(frozen=True, slots=True)
class GpuNodeGroup:
    """One kind of GPU node the run describes: a Node, a NodePool, a config entry."""

    source: str  # "Node gpu-0 (nodes.yaml)", "NodePool gpu (karpenter.yaml)"
    taints: tuple[GpuTaint, ...] = ()  # the blocking (NoSchedule/NoExecute) ones
    models: frozenset[str] = frozenset()  # empty: the group does not say
    max_gpus: int | None = None


@record
class Observations:
    """Profile facts gathered from the run's objects, merged in any order."""

    groups: list[GpuNodeGroup] = field(default_factory=list)
    providers: dict[str, str] = field(default_factory=dict)  # provider -> first source
    # Providers a cluster object (Node, NodePool) names, not only a workload's selector.
    from_cluster: set[str] = field(default_factory=set)
    # RuntimeClass name -> the tolerations its admission adds to pods that name it.
    runtime_tolerations: dict[str, tuple[dict, ...]] = field(default_factory=dict)
    # Taint key -> the GPU infrastructure DaemonSet of the run that tolerates it by name.
    infra_tolerated: dict[str, str] = field(default_factory=dict)
    # DRA: the run's ResourceClaims and templates, and DeviceClasses that select GPUs.
    claims: list[ClaimObject] = field(default_factory=list)
    gpu_classes: set[str] = field(default_factory=set)

    def provider(self, name: str, source: str, cluster_object: bool = False) -> None:
        self.providers.setdefault(name, source)
        if cluster_object:
            self.from_cluster.add(name)

    def merge(self, other: Observations) -> None:
        self.groups.extend(other.groups)
        for name, source in other.providers.items():
            self.provider(name, source, name in other.from_cluster)
        self.runtime_tolerations.update(other.runtime_tolerations)
        for key, source in other.infra_tolerated.items():
            self.infra_tolerated.setdefault(key, source)
        self.claims.extend(other.claims)
        self.gpu_classes |= other.gpu_classes


@record(frozen=True)
class ClusterProfile:
    """What is established; None means unknown (a rule that needs it holds back)."""

    provider: str | None = None
    gpu_taints: tuple[GpuTaint, ...] | None = None  # () : some GPU nodes are untainted
    gpu_models: frozenset[str] | None = None
    extended_resource_toleration: bool | None = None
    max_gpus_per_node: int | None = None
    sources: tuple[str, ...] = ()  # where each fact came from, for --verbose
    # (RuntimeClass name, tolerations its scheduling adds), for pods with runtimeClassName.
    runtime_tolerations: tuple[tuple[str, tuple[dict, ...]], ...] = ()
    # (taint key, DaemonSet): GPU infrastructure of the run that tolerates the key by name.
    # Not a fact about the nodes (NVIDIA's charts tolerate nvidia.com/gpu in case), but it
    # says what the run's own infrastructure expects; GPU207 holds the rest to it.
    infra_tolerated: tuple[tuple[str, str], ...] = ()
    # DRA objects of the run (model/gpu_holding.py resolves containers' claims with them).
    claims: tuple[ClaimObject, ...] = ()
    gpu_classes: frozenset[str] = GPU_DEVICE_CLASSES

    def runtime_class_tolerations(self, name: object) -> list[dict]:
        """Tolerations the RuntimeClass admission plugin merges into a pod naming ``name``
        (RuntimeClass ``scheduling.tolerations``, KEP-585; plugin/pkg/admission/runtimeclass)."""
        return next((list(t) for n, t in self.runtime_tolerations if n == name), [])

    def knows(self, fact: str) -> bool:
        if fact == TAINTS:
            return self.gpu_taints is not None
        if fact == MODELS:
            return self.gpu_models is not None
        if fact == MAX_GPUS:
            return self.max_gpus_per_node is not None
        return False

    @property
    def gpu_taint_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.key for t in self.gpu_taints or ()))


def decide(config: ClusterConfig, seen: Observations) -> ClusterProfile:
    """The profile: the config file's word first, then what the run's objects show."""
    sources: list[str] = []
    provider = config.provider
    if provider:
        sources.append(f"provider {provider}: {config.source}")
    elif len(seen.providers) == 1:
        provider, source = next(iter(seen.providers.items()))
        sources.append(f"provider {provider}: {source}")
    elif seen.providers:
        found = ", ".join(sorted(seen.providers))
        sources.append(f"provider unknown: the run points at several ({found})")

    ert = config.extended_resource_toleration
    if ert is None and provider in TOLERATION_ADDED_BY:
        ert = True
    # A workload's selector may only quiet rules (GKE adds the toleration); that GKE's GPU
    # nodes are tainted, which makes GPU207 and GPU203 report, takes a cluster object or
    # the config file: a sample in one folder does not say where another folder deploys.
    sure = bool(config.provider) or provider in seen.from_cluster
    taints, source = _taints(config, seen, provider if sure else None)
    if source:
        sources.append(f"{TAINTS} {_show_taints(taints)}: {source}")
    models, source = _models(config, seen)
    if source:
        sources.append(f"{MODELS} {', '.join(sorted(models or ())) or 'none'}: {source}")
    most = config.max_gpus_per_node
    if most is not None:
        sources.append(f"{MAX_GPUS} {most}: {config.source}")
    else:
        counts = [g.max_gpus for g in seen.groups if g.max_gpus]
        if counts:
            most = max(counts)
            sources.append(f"{MAX_GPUS} {most}: the largest of {len(counts)} GPU node(s)")
    runtime = tuple(sorted(seen.runtime_tolerations.items()))
    infra = tuple(sorted(seen.infra_tolerated.items()))
    return ClusterProfile(
        provider,
        taints,
        models,
        ert,
        most,
        tuple(sources),
        runtime,
        infra,
        claims=tuple(seen.claims),
        gpu_classes=GPU_DEVICE_CLASSES | frozenset(seen.gpu_classes),
    )


def _taints(
    config: ClusterConfig, seen: Observations, provider: str | None
) -> tuple[tuple[GpuTaint, ...] | None, str]:
    if config.gpu_taints is not None:
        return config.gpu_taints, config.source
    if seen.groups:
        # Tainted only if every kind of GPU node is: an untainted one takes any pod.
        if any(not g.taints for g in seen.groups):
            bare = next(g for g in seen.groups if not g.taints)
            return (), f"{bare.source} has no GPU taint"
        found = tuple(dict.fromkeys(t for g in seen.groups for t in g.taints))
        return found, _names(seen.groups)
    if provider == "gke":
        return (GpuTaint(GKE_GPU_TAINT),), "GKE taints its GPU nodes"
    return None, ""


def _models(config: ClusterConfig, seen: Observations) -> tuple[frozenset[str] | None, str]:
    if config.gpu_models is not None:
        return config.gpu_models, config.source
    named = [g for g in seen.groups if g.models]
    found = frozenset(m for g in named for m in g.models)
    # Several models are established by any two; one model only if every group names it.
    if len(found) > 1 or (found and len(named) == len(seen.groups)):
        return found, _names(named)
    return None, ""


def _names(groups: list[GpuNodeGroup]) -> str:
    shown = ", ".join(g.source for g in groups[:3])
    more = f" and {len(groups) - 3} more" if len(groups) > 3 else ""
    return shown + more


def _show_taints(taints: tuple[GpuTaint, ...] | None) -> str:
    return ", ".join(str(t) for t in taints or ()) or "none"


def taint_keys(profile: ClusterProfile, fallback: tuple[str, ...]) -> tuple[tuple[str, ...], tuple]:
    """(GPU taint keys to check, facts a finding then needs): the profile's keys when it
    knows them (none when GPU nodes are untainted), else the configured default keys,
    and the finding is held back for want of ``gpu-taints``."""
    if profile.gpu_taints is None:
        return fallback, (TAINTS,)
    return profile.gpu_taint_keys, ()
