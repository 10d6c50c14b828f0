"""
## What it checks
A `hostPath` volume on a GPU device node (`/dev/nvidia*`, `/dev/dri`,
`/dev/kfd`) or on the driver's libraries and tools (`/usr/local/nvidia`,
`/run/nvidia/driver`, GKE's `/home/kubernetes/bin/nvidia`, `libcuda.so`,
`libnvidia-*`, `nvidia-smi`), in any workload. GPU infrastructure, which
installs and serves the driver, is exempt, and so is a volume that a GPU
infrastructure container of the pod mounts (a helper container in the GPU
Operator's driver pod shares the driver's volumes).

## Why it matters
Devices and driver files mounted from the host reach the container without the
device plugin: the scheduler does not count those GPUs, so several pods use
the same GPU while the node still advertises it as free, MIG and sharing
limits are bypassed, and the driver libraries mounted from the host may not
match the ones the container toolkit injects, failing with
`Failed to initialize NVML: Driver/library version mismatch`.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: render
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      volumeMounts:
        - name: gpu
          mountPath: /dev/nvidia0
  volumes:
    - name: gpu
      hostPath:
        path: /dev/nvidia0  # <- GPU704
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: render
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Remove the hostPath volume and request the GPU as a resource
(`nvidia.com/gpu`, `amd.com/gpu`, `gpu.intel.com/i915`); the device plugin
and the container toolkit mount the right device nodes and matching driver
libraries.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from gpulint.findings import Severity
from gpulint.model.infra import is_infra_container, is_infra_pod
from gpulint.model.resource import PodSpec, Resource
from gpulint.rules.registry import Report, Rule

if TYPE_CHECKING:
    from gpulint.engine.run import Context

rule = Rule(
    "GPU704",
    "gpu-device-hostpath",
    Severity.ERROR,
    "A hostPath volume mounts GPU devices or driver files, bypassing the device plugin.",
    __doc__,
)

_DEVICE = re.compile(r"^/dev/(?:nvidia[^/]*|dri|kfd)(?:/|$)")
_DRIVER_DIRS = (
    "/usr/local/nvidia",
    "/run/nvidia/driver",
    "/home/kubernetes/bin/nvidia",
    "/usr/lib/nvidia",
    "/usr/lib64/nvidia",
    "/usr/lib/x86_64-linux-gnu/nvidia",
)
_DRIVER_FILE = re.compile(r"/(?:libcuda\.so[^/]*|libnvidia-[^/]*|nvidia-smi)$")


def gpu_host_path(path: str) -> str | None:
    """What a host path exposes, or None when it is not a GPU device or driver path."""
    clean = posixpath.normpath(path.strip()) if path.strip() else ""
    if _DEVICE.match(clean):
        return "a GPU device"
    if any(clean == d or clean.startswith(d + "/") for d in _DRIVER_DIRS):
        return "the GPU driver"
    if _DRIVER_FILE.search(clean):
        return "a GPU driver file"
    return None


def _mounted_by_infra(pod: PodSpec, volume: str) -> bool:
    """Whether a GPU infrastructure container of the pod mounts the volume (it exists for it)."""
    for container in pod.containers:
        mounts = container.data.get("volumeMounts")
        if not isinstance(mounts, list) or not is_infra_container(container):
            continue
        if any(isinstance(m, dict) and m.get("name") == volume for m in mounts):
            return True
    return False


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        if is_infra_pod(pod):
            continue
        volumes = pod.spec.get("volumes")
        if not isinstance(volumes, list):
            continue
        for i, volume in enumerate(volumes):
            host = volume.get("hostPath") if isinstance(volume, dict) else None
            path = host.get("path") if isinstance(host, dict) else None
            if not isinstance(path, str):
                continue
            what = gpu_host_path(path)
            if what is None:
                continue
            name = volume.get("name", f"#{i}")
            if _mounted_by_infra(pod, name):
                continue
            yield Report(
                pod.path + ("volumes", i, "hostPath", "path"),
                f"hostPath volume {name!r} mounts {what} ({path}) from the node, bypassing the "
                "device plugin: the scheduler does not count these GPUs and other pods get "
                "them too",
            )
