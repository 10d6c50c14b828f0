"""
## What it checks
A privileged container (`securityContext.privileged: true`) in a pod that
requests GPUs. GPU infrastructure (device plugin with
`compatWithCPUManager`, GPU feature discovery, the GPU Operator's components)
is exempt: it runs privileged on purpose. So is a pod that holds a whole node's
GPUs (NCCL and RDMA tests, 8-GPU training workers): there is no other pod's GPU
to see. A whole node is the cluster profile's largest GPU node
(`max-gpus-per-node`, or the Nodes of the run) or, where the run does not say,
8 whole GPUs (`nvidia.com/gpu`, `amd.com/gpu`): the HGX and DGX baseboards of
nearly every multi-GPU server carry 8. A pod that claims the channel of a
ComputeDomain of the run runs on a Multi-Node NVLink system (GB200 or GB300
NVL72), whose nodes (compute trays) carry 4.

## Why it matters
A privileged container gets every device of the node, "by design of the
--privileged option" (NVIDIA): it sees and can use all GPUs, not just the
ones the device plugin allocated to it, while the kubelet hands the others to
other pods. Jobs then collide on the same GPU, MIG and sharing limits do
not hold, and a bug or an attacker in that container can reset or reconfigure
every GPU of the node.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      securityContext:
        privileged: true  # <- GPU703
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      securityContext:
        allowPrivilegeEscalation: false
        capabilities:
          drop: [ALL]
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Drop `privileged: true`; a GPU workload needs only its `nvidia.com/gpu`
limit. Add the single capability it really needs (for example `IPC_LOCK` for
RDMA memory registration) instead of all of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.holding import joins_compute_domain
from gpulint.model.gpu.infra import is_infra_container, is_infra_pod
from gpulint.rules.api import Context, PodSpec, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU703",
    "gpu-privileged",
    Severity.WARNING,
    "A privileged container in a GPU pod sees every GPU of the node, not just its allocation.",
    __doc__,
    reads=mentions("privileged"),  # securityContext.privileged
    pods_only=True,
)


WHOLE_NODE = 8  # GPUs of an HGX/DGX baseboard, where the run does not say
# GPUs of a Multi-Node NVLink compute tray, the only nodes a ComputeDomain is allocated on
# (NVIDIA DRA driver docs, "ComputeDomains": GB200/GB300 NVL72; a GB200 NVL72 node holds 4).
MNNVL_NODE = 4
_WHOLE_GPUS = ("nvidia.com/gpu", "amd.com/gpu")


def _holds_whole_node(pod: PodSpec, ctx: Context) -> bool:
    whole = max(pod.effective_gpus.get(name, 0) for name in _WHOLE_GPUS)
    most = ctx.profile.max_gpus_per_node
    if most is None:
        most = MNNVL_NODE if joins_compute_domain(pod, ctx.profile) else WHOLE_NODE
    return whole >= most


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        if not pod.requests_gpu or is_infra_pod(pod):
            continue
        gpus = sum(pod.effective_gpus.values())
        if _holds_whole_node(pod, ctx):
            continue  # no other pod's GPU on its node to see
        for container in pod.containers:
            security = container.data.get("securityContext")
            if not isinstance(security, dict) or security.get("privileged") is not True:
                continue
            if is_infra_container(container):
                continue
            yield Report(
                container.path + ("securityContext", "privileged"),
                f"container {container.name!r} is privileged in a pod that is allocated "
                f"{gpus} GPU(s): it sees every GPU of the node, including those the kubelet "
                "gives to other pods",
                container=container.name,
            )
