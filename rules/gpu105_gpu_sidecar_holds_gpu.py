"""
## What it checks
A restartable sidecar (an init container with `restartPolicy: Always`) that
requests GPUs, or a classic init container that requests more GPUs than the
app containers use (so the pod reserves more than its app needs). An init
container that checks or prepares the GPUs the app will get (no more of
them than the app holds) reserves nothing extra and is left alone.

## Why it matters
The scheduler reserves a pod's *effective* request: the larger of
`sum(containers) + sum(sidecars)` and, for each init container,
`init + sidecars started before it`.

- A sidecar runs for the pod's whole life, so its GPUs are **added** to the
  app containers' for as long as the pod runs; a sidecar with one GPU next
  to a trainer with eight makes a 9-GPU pod that no 8-GPU node can take.
- A classic init container's GPUs count for scheduling even though it ends
  before the app starts: an init container with 4 GPUs in front of an app
  with 1 reserves 4 GPUs for the pod's whole life, three of them idle.
  In a pod that runs to completion (`restartPolicy: Never` or `OnFailure`, or
  none in a pod template of a kind gpulint does not know, which its operator
  completes) whose app containers use no GPU, the init container is likely the pod's GPU
  work (a GPU check before a completion marker), and how long the reservation
  lasts depends on the app: a note.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: serve
spec:
  initContainers:
    - name: warmup
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 4  # <- GPU105
    - name: metrics
      image: nvcr.io/nvidia/pytorch:24.05-py3
      restartPolicy: Always
      resources:
        limits:
          nvidia.com/gpu: 1  # <- GPU105
  containers:
    - name: server
      image: vllm/vllm-openai:v0.6.3
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: serve
spec:
  initContainers:
    - name: download
      image: busybox:1.36
    - name: metrics
      image: busybox:1.36
      restartPolicy: Always
  containers:
    - name: server
      image: vllm/vllm-openai:v0.6.3
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Give GPUs only to the app containers. Warm-up that needs a GPU belongs in the
app container's start-up (or in a separate Job); a monitoring sidecar reads
GPU metrics from DCGM exporter rather than holding a GPU of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.infra import is_infra_container, is_infra_pod
from gpulint.model.values.gpu_resources import gpu_entries
from gpulint.rules.api import (
    Container,
    Context,
    PodSpec,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
)

rule = Rule(
    "GPU105",
    "gpu-sidecar-holds-gpu",
    Severity.WARNING,
    "An init container or sidecar requests GPUs, which the pod then holds beyond its app's needs.",
    __doc__,
    reads=mentions("initContainers"),  # init containers and restartable sidecars
    pods_only=True,
)


def _regular_sum(pod: PodSpec, name: str) -> int:
    return sum(c.gpus.get(name, 0) for c in pod.regular_containers())


def _path(container: Container, name: str) -> tuple:
    section = "limits" if name in gpu_entries(container.data, "limits") else "requests"
    return container.path + ("resources", section, name)


def _message(pod: PodSpec, container: Container, name: str) -> str:
    held = container.gpus[name]
    apps = _regular_sum(pod, name)
    effective = pod.effective_gpus.get(name, 0)
    if container.is_sidecar:
        return (
            f"sidecar {container.name!r} (restartPolicy: Always) holds {held} {name} for the "
            f"pod's whole life, added to the app containers' {apps}: the pod reserves "
            f"{effective} {name}"
        )
    return (
        f"init container {container.name!r} holds {held} {name}; the scheduler reserves "
        f"max(init, app containers) = {effective} {name} for the pod's whole life while "
        f"the app containers use {apps}"
    )


_RUNS_TO_COMPLETION = ("Never", "OnFailure")


def _own_work(resource: Resource, pod: PodSpec, container: Container, name: str) -> bool:
    """A GPU check or job done by the init container of a pod that may run to completion,
    whose app containers use no GPU: the pod's life is then as long as those app containers
    run, which the files do not say (a completion marker takes a second, a CPU job hours).
    A pod template found by its shape in a kind gpulint does not know, with no restart
    policy, is completed by its operator, which may run it to completion."""
    if container.is_sidecar or _regular_sum(pod, name) != 0:
        return False
    policy = pod.spec.get("restartPolicy")
    return policy in _RUNS_TO_COMPLETION or (policy is None and resource.generic)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        if is_infra_pod(pod):
            continue
        for container in pod.init_containers():
            if is_infra_container(container):
                continue
            for name in sorted(container.gpus):
                if not container.is_sidecar and pod.effective_gpus.get(name, 0) <= _regular_sum(
                    pod, name
                ):
                    continue  # within what the app holds: nothing is reserved beyond it
                own = _own_work(resource, pod, container, name)
                message = _message(pod, container, name)
                if own:
                    message += (
                        "; the pod may run to completion, so how long depends on how long "
                        "they run (a GPU check before a completion marker costs little)"
                    )
                yield Report(
                    _path(container, name),
                    message,
                    container=container.name,
                    severity=Severity.NOTE if own else None,
                )
