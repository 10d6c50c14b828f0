"""
## What it checks
A container holding GPUs (device plugin resources, or a DRA claim of the run
that hands out GPUs) with `imagePullPolicy: Always`. An image without a
tag or on `latest` is reported once, by GPU302 (pinning it is the first fix,
and its message names the pull policy).

## Why it matters
GPU images (CUDA, PyTorch, vLLM, Triton) weigh many gigabytes. With `Always`
the kubelet asks the registry on every container start, and a new node
pulls the whole image before the GPU does any work: every scale-up, restart
after an OOM or preemption, and every node the autoscaler adds pays minutes of
idle, billed GPU time, and a registry outage or rate limit keeps the pod from
starting at all.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: infer
spec:
  containers:
    - name: triton
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      imagePullPolicy: Always  # <- GPU301
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: infer
spec:
  containers:
    - name: triton
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      imagePullPolicy: IfNotPresent
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Pin the image to a version tag or a digest and use `imagePullPolicy:
IfNotPresent` (the default for a tagged image, so the field can simply be
removed). Pre-pull large images onto GPU nodes (a DaemonSet or a node image)
to make scale-ups fast. On a pinned image, `gpulint check --fix --unsafe-fixes`
writes `IfNotPresent` (unsafe: a pipeline that pushes over the same tag relies
on `Always`).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.holding import container_holding
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.values.images import parse_image
from gpulint.rules.api import Context, FixSafety, Report, Resource, Rule, Severity, mentions
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU301",
    "gpu-image-pull-always",
    Severity.WARNING,
    "A GPU container pulls its multi-gigabyte image on every start (imagePullPolicy: Always).",
    __doc__,
    fix=FixSafety.UNSAFE,
    reads=mentions("Always"),  # imagePullPolicy: Always
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if not container_holding(container, ctx.profile).any or is_infra_container(container):
            continue
        if container.data.get("imagePullPolicy") != "Always":
            continue
        ref = parse_image(container.image)
        if ref is not None and not ref.pinned:
            continue  # one root cause, one finding: GPU302 reports the unpinned image
        yield Report(
            container.path + ("imagePullPolicy",),
            f"GPU container {container.name!r} pulls {container.image or 'its image'} on every "
            "start (imagePullPolicy: Always); each scale-up, restart or new node waits for a "
            "multi-gigabyte pull while its GPUs sit idle; pin the image and use IfNotPresent",
            container=container.name,
            fix=builders.pull_if_not_present(container.path, container.image),
        )
