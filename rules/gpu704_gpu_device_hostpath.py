"""
## What it checks
A `hostPath` volume on a GPU device node (`/dev/nvidia*`, `/dev/dri`,
`/dev/kfd`), a warning; or on the driver's libraries and tools
(`/usr/local/nvidia`, `/run/nvidia/driver`, `libcuda.so`, `libnvidia-*`,
`nvidia-smi`), a note: libraries are not devices and allocate nothing, but
they may not match the driver the container toolkit injects. GKE documents
mounting its driver folder `/home/kubernetes/bin/nvidia` into pods that
request GPUs (GPUDirect-TCPX/TCPXO setups), so that path is left alone in a
pod that requests GPUs. GPU infrastructure, which installs and serves the
driver, is exempt (NVIDIA's, AMD's and Intel's components and GKE's own: its
driver installer, which installs in init containers and then runs `pause`,
its MIG partitioner and device plugin: `gpulint/model/gpu/infra.py`), and so
is a volume that a GPU infrastructure container of the pod mounts (a helper
container in the GPU Operator's driver pod shares the driver's volumes).

## Why it matters
Device nodes mounted from the host reach the container without the device
plugin: the scheduler does not count those GPUs, so several pods use the same
GPU while the node still advertises it as free, and MIG and sharing limits are
bypassed. Driver libraries mounted from the host allocate nothing, but they
may not match the ones the container toolkit injects, failing with
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
---
apiVersion: v1
kind: Pod
metadata:
  name: smi
spec:
  containers:
    - name: app
      image: ubuntu:22.04
      volumeMounts:
        - name: driver
          mountPath: /usr/local/nvidia
  volumes:
    - name: driver
      hostPath:
        path: /usr/local/nvidia  # <- GPU704
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
---
apiVersion: v1
kind: Pod
metadata:
  name: nccl-test
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 8
      volumeMounts:
        - name: libraries
          mountPath: /usr/local/nvidia
  volumes:
    - name: libraries
      hostPath:
        path: /home/kubernetes/bin/nvidia
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

from gpulint.model.gpu.infra import is_infra_container, is_infra_pod
from gpulint.rules.api import Context, PodSpec, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU704",
    "gpu-device-hostpath",
    Severity.WARNING,
    "A hostPath volume mounts GPU devices (bypassing the device plugin) or driver files.",
    __doc__,
    reads=mentions("hostPath"),  # a hostPath volume
    pods_only=True,
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
# GKE's driver folder, which its docs mount into GPU pods (gpu-bandwidth-gpudirect-tcpx).
_GKE_DRIVER = "/home/kubernetes/bin/nvidia"
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
            at = pod.path + ("volumes", i, "hostPath", "path")
            if what == "a GPU device":
                yield Report(
                    at,
                    f"hostPath volume {name!r} mounts {what} ({path}) from the node, bypassing "
                    "the device plugin: the scheduler does not count these GPUs and other pods "
                    "get them too",
                )
                continue
            clean = posixpath.normpath(path.strip())
            if pod.requests_gpu and (clean == _GKE_DRIVER or clean.startswith(_GKE_DRIVER + "/")):
                continue  # GKE's documented way to give a GPU pod its driver's libraries
            yield Report(
                at,
                f"hostPath volume {name!r} mounts {what} ({path}) from the node; driver files "
                "allocate no GPU, but they may not match the driver the container toolkit "
                'injects ("Driver/library version mismatch")',
                severity=Severity.NOTE,
            )
