"""
## What it checks
A workload container that sets `NVIDIA_VISIBLE_DEVICES` in its `env` to
`all` or to a list of devices. The values `none` and `void` (which hide GPUs)
are fine. GPU infrastructure (device plugin, GPU feature discovery, DCGM
exporter, the GPU Operator's components) is exempt: it needs every GPU. So is
a container that asks the driver for `utility` alone
(`NVIDIA_DRIVER_CAPABILITIES: utility`, nvidia-smi and NVML: a power-limit or
monitoring DaemonSet): without `compute`, `graphics` or `video` it gets no
library to run work on the GPUs it sees (NVIDIA Container Toolkit, "Driver
Capabilities"). Likewise a container that holds no GPU and whose command runs
nothing but `nvidia-smi` (or another vendor's management tool) and shell
placeholders (`sleep`, `echo`): a node labeler or GPU inventory DaemonSet
reads the GPUs' state and runs no work on them. A CUDA sample (`vectorAdd`)
runs a kernel and is reported, and so is a container that holds GPUs and
widens its view past them.

## Why it matters
With the device plugin's default `envvar` device-list strategy, the NVIDIA
container runtime decides which GPUs a container sees from
`NVIDIA_VISIBLE_DEVICES`. A container that sets it itself sees GPUs the
scheduler never gave it: `all` (the default in CUDA base images) exposes every
GPU of the node, even with `nvidia.com/gpu: 0` or no GPU request at all,
while the kubelet counts those GPUs as free and hands them to other pods.
Two jobs then share a GPU without knowing, MIG partitioning and time-slicing
quotas are bypassed, and out-of-memory errors appear in the other tenant's pod.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: notebook
spec:
  replicas: 1
  selector:
    matchLabels: {app: notebook}
  template:
    metadata:
      labels: {app: notebook}
    spec:
      containers:
        - name: jupyter
          image: nvcr.io/nvidia/pytorch:24.05-py3
          env:
            - name: NVIDIA_VISIBLE_DEVICES
              value: all  # <- GPU701
          resources:
            limits:
              nvidia.com/gpu: 0
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: notebook
spec:
  replicas: 1
  selector:
    matchLabels: {app: notebook}
  template:
    metadata:
      labels: {app: notebook}
    spec:
      containers:
        - name: jupyter
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
        - name: cpu-helper
          image: nvcr.io/nvidia/pytorch:24.05-py3
          env:
            - name: NVIDIA_VISIBLE_DEVICES
              value: none
```

## How to fix
Remove `NVIDIA_VISIBLE_DEVICES` and request the GPUs the container needs
(`nvidia.com/gpu: N`); the device plugin sets the variable to exactly those
devices. In a container that must not see GPUs, set it to `none`. To make
the cluster immune, configure the device plugin with
`DEVICE_LIST_STRATEGY=volume-mounts` and the container toolkit with
`accept-nvidia-visible-devices-envvar-when-unprivileged = false`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.serving.parallelism import literal_env
from gpulint.model.values.gpu_resources import total_gpus
from gpulint.model.values.placeholders import is_placeholder
from gpulint.model.workloads.probe import only_queries
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU701",
    "nvidia-visible-devices-set",
    Severity.WARNING,
    "A workload sets NVIDIA_VISIBLE_DEVICES and sees GPUs the device plugin did not allocate.",
    __doc__,
    reads=mentions("NVIDIA_VISIBLE_DEVICES"),  # the variable it checks
    pods_only=True,
)

VARIABLE = "NVIDIA_VISIBLE_DEVICES"
HIDING = ("none", "void", "")
CAPABILITIES = "NVIDIA_DRIVER_CAPABILITIES"


def _manages_only(entry: tuple | None) -> bool:
    """``NVIDIA_DRIVER_CAPABILITIES`` set to ``utility`` alone (nvidia-smi, NVML)."""
    if entry is None or not isinstance(entry[0], str):
        return False
    asked = {part.strip().lower() for part in entry[0].split(",") if part.strip()}
    return asked == {"utility"}


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if is_infra_container(container):
            continue
        entry = literal_env(container).get(VARIABLE)
        if entry is None:
            continue
        value, path = entry
        if value.strip().lower() in HIDING or is_placeholder(value):
            continue  # hides every GPU, or is filled in later (it may say none)
        if _manages_only(literal_env(container).get(CAPABILITIES)):
            continue  # nvidia-smi and NVML only: it watches or tunes the GPUs, runs nothing
        held = total_gpus(container.gpus)
        if not held and only_queries(container):
            continue  # a labeler or an inventory agent: the variable is how it sees them
        sees = "every GPU of the node" if value.strip().lower() == "all" else f"GPUs {value}"
        holds = f"holds {held} GPU(s)" if held else "holds no GPU"
        yield Report(
            path,
            f"container {container.name!r} sets {VARIABLE}={value}: it {holds} but sees {sees}, "
            "bypassing the device plugin's allocation; the kubelet gives those GPUs to other "
            "pods too (MIG partitioning and sharing limits no longer hold)",
            container=container.name,
            at="value",
        )
