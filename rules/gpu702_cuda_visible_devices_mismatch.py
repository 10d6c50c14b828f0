"""
## What it checks
A container whose `CUDA_VISIBLE_DEVICES` names more devices than it holds
(any at all, when it holds none), or a device index the container does not
have (inside a container its GPUs are numbered from 0); or fewer devices than
the container's parallel command uses (`--tensor-parallel-size 8` with all 8
GPUs held but `CUDA_VISIBLE_DEVICES=0`). Pods that get GPUs
another way (DRA resource claims, a fractional-GPU scheduler's annotation,
GPU-sharing resources such as HAMi's) are not checked: their limits do not
show the devices; nor are containers that set `NVIDIA_VISIBLE_DEVICES` to
devices (they see those GPUs, not their allocation: GPU701 reports that
root cause once).

## Why it matters
The device plugin exposes only the allocated GPUs, renumbered from 0.
`CUDA_VISIBLE_DEVICES=0,1,2,3` in a container with one GPU makes every
index after `0` invalid, and CUDA stops at the first invalid entry, so code
written for four GPUs silently runs on one, or a launcher starting one rank per
listed device crashes with `invalid device ordinal`. In a container with no
GPU it hides nothing and enables nothing, or, with a runtime that exposes all
GPUs, picks devices that belong to other pods.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          env:
            - name: CUDA_VISIBLE_DEVICES
              value: "0,1,2,3"  # <- GPU702
          resources:
            limits:
              nvidia.com/gpu: 2
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          env:
            - name: CUDA_VISIBLE_DEVICES
              value: "0,1"
          resources:
            limits:
              nvidia.com/gpu: 2
```

## How to fix
Usually remove `CUDA_VISIBLE_DEVICES`: the container already sees exactly its
GPUs. If you keep it, list only indices below the container's GPU count.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.access import other_gpu_use
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.serving.fit import spans_pods
from gpulint.model.serving.parallelism import command_line, literal_env
from gpulint.model.values.gpu_resources import total_gpus
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Container, Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU702",
    "cuda-visible-devices-mismatch",
    Severity.WARNING,
    "CUDA_VISIBLE_DEVICES names devices the container lacks, or fewer than its command uses.",
    __doc__,
    reads=mentions("CUDA_VISIBLE_DEVICES"),  # the variable it checks
    pods_only=True,
)

VARIABLE = "CUDA_VISIBLE_DEVICES"


def _devices(value: str) -> list[str]:
    """Listed devices, up to the first negative index (CUDA stops there)."""
    found = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        if item.lstrip("-").isdigit() and int(item) < 0:
            break
        found.append(item)
    return found


def _gpus_from_elsewhere(container: Container) -> bool:
    """GPUs the limits do not show: DRA claims, a fractional-GPU scheduler, HAMi resources."""
    resources = container.data.get("resources")
    if isinstance(resources, dict) and resources.get("claims"):
        return True
    pod = container.pod
    return not pod.requests_gpu and other_gpu_use(pod) is not None


def _exposes_devices(env: dict[str, tuple[str, tuple]]) -> bool:
    entry = env.get("NVIDIA_VISIBLE_DEVICES")
    return entry is not None and entry[0].strip().lower() not in ("none", "void", "")


def _narrower_than_command(
    container: Container, resource: Resource, held: int, visible: int
) -> str | None:
    """What a command that uses all the container's GPUs says, when fewer are visible.

    Only where the command's degree matches the GPUs held (or, spread over several
    pods, needs all of them in each): a degree that differs is GPU107's finding.
    """
    found = command_line(container).parallelism
    if found is None or visible >= held:
        return None
    wanted = found.per_pod
    spread = found.multi_node or spans_pods(resource)
    if wanted != held and not (spread and wanted > held and wanted % held == 0):
        return None
    return (
        f"{found.describe()} needs {held} GPUs in this pod: the launcher sees {visible} and "
        f"fails at start-up (vLLM: the number of required GPUs exceeds the total number of "
        f"available GPUs; torchrun: invalid device ordinal)"
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if is_infra_container(container) or _gpus_from_elsewhere(container):
            continue
        env = literal_env(container)
        if _exposes_devices(env):
            continue  # GPU701's finding: the container sees other GPUs than it holds
        entry = env.get(VARIABLE)
        if entry is None or "$" in entry[0] or is_placeholder(entry[0]):
            continue
        value, path = entry
        devices = _devices(value)
        if not devices:
            continue
        held = total_gpus(container.gpus)
        beyond = [d for d in devices if d.isdigit() and int(d) >= held]
        if len(devices) <= held and not beyond:
            narrower = _narrower_than_command(container, resource, held, len(devices))
            if narrower is not None:
                yield Report(
                    path,
                    f"{VARIABLE}={value} shows container {container.name!r} "
                    f"{len(devices)} of its {held} GPUs, but {narrower}",
                    container=container.name,
                    at="value",
                )
            continue
        if held == 0:
            problem = "holds no GPU"
        elif len(devices) > held:
            problem = f"holds {held}, numbered 0..{held - 1}"
        else:
            problem = f"holds {held}, numbered 0..{held - 1}; {', '.join(beyond)} does not exist"
        yield Report(
            path,
            f"{VARIABLE}={value} names {len(devices)} device(s) but container "
            f"{container.name!r} {problem}",
            container=container.name,
            at="value",
        )
