"""Does a container hold GPUs, and how many: device plugin resources and DRA claims alike.

Device plugin GPUs (``nvidia.com/gpu``, MIG ``nvidia.com/mig-*``, ``amd.com/gpu``...)
are counted from the container's limits. A container also holds the devices of the
DRA claims it lists in ``resources.claims`` (all requests of the claim, or the one
``request`` it names) when the run defines that ResourceClaim or
ResourceClaimTemplate and the request's device class hands out GPUs (NVIDIA's
``gpu.nvidia.com``/``mig.nvidia.com`` classes, or a DeviceClass of the run that
selects NVIDIA's GPU driver). A request with ``allocationMode: All`` holds GPUs, how
many only the node knows. A claim the run does not define is not counted: whether it
is a GPU at all is then unknown.
"""

from __future__ import annotations

from gpulint.core.record import record
from gpulint.model.cluster_profile import ClusterProfile
from gpulint.model.dra import ClaimObject, container_claims, namespaces_match, pod_claims
from gpulint.model.resource import Container, PodSpec
from gpulint.model.values.gpu_resources import total_gpus

# A claim's device request as a container uses it: (claim kind, claim name, request name).
ClaimKey = tuple[str, str, str]


@record(frozen=True)
class Held:
    """The GPUs a container (or a pod) holds."""

    device_plugin: int  # whole GPUs and MIG devices from resource limits
    claimed: dict[ClaimKey, int | None]  # DRA requests -> devices (None: allocationMode All)

    @property
    def any(self) -> bool:
        return bool(self.device_plugin or self.claimed)

    @property
    def count(self) -> int | None:
        """How many GPUs in all; None when a DRA request's count is not known."""
        if any(n is None for n in self.claimed.values()):
            return None
        return self.device_plugin + sum(n or 0 for n in self.claimed.values())

    def describe(self, container: Container | None = None) -> str:
        parts = []
        if container is not None and container.gpus:
            parts += [f"{n} {c}" for n, c in sorted(container.gpus.items())]
        elif self.device_plugin:
            parts.append(f"{self.device_plugin} from device plugin resources")
        for (kind, name, request), devices in sorted(self.claimed.items()):
            shown = "all" if devices is None else str(devices)
            parts.append(f"{shown} through {kind} {name} request {request!r}")
        return ", ".join(parts)


def _claim(
    profile: ClusterProfile, kind: str, name: str, namespace: str | None
) -> ClaimObject | None:
    for claim in profile.claims:
        if (
            claim.kind == kind
            and claim.name == name
            and namespaces_match(claim.namespace, namespace)
        ):
            return claim
    return None


def joins_compute_domain(pod: PodSpec, profile: ClusterProfile) -> bool:
    """Whether the pod claims the channel of a ComputeDomain of the run (the template such a
    domain makes): it then runs on a Multi-Node NVLink system's node."""
    namespace = pod.resource.namespace
    for entry in pod_claims(pod):
        reference = entry.reference
        claim = _claim(profile, *reference, namespace) if reference is not None else None
        if claim is not None and claim.generated:
            return True
    return False


def _claimed(container: Container, profile: ClusterProfile) -> dict[ClaimKey, int | None]:
    entries = {c.name: c for c in pod_claims(container.pod)}
    namespace = container.pod.resource.namespace
    found: dict[ClaimKey, int | None] = {}
    for used in container_claims(container):
        entry = entries.get(used.name)
        reference = entry.reference if entry is not None else None
        if reference is None:
            continue
        claim = _claim(profile, reference[0], reference[1], namespace)
        if claim is None or claim.generated:
            continue
        for request, device_class, devices in claim.exact:
            if used.request not in (None, request) or device_class not in profile.gpu_classes:
                continue
            found[(claim.kind, claim.name, request)] = devices
    return found


def container_holding(container: Container, profile: ClusterProfile) -> Held:
    """The GPUs one container holds."""
    return Held(total_gpus(container.gpus), _claimed(container, profile))


def pod_holding(pod: PodSpec, profile: ClusterProfile) -> Held:
    """The GPUs a pod holds: the scheduler's effective device plugin request, and each DRA
    request once however many containers share it."""
    claimed: dict[ClaimKey, int | None] = {}
    for container in pod.containers:
        claimed.update(_claimed(container, profile))
    return Held(total_gpus(pod.effective_gpus), claimed)
