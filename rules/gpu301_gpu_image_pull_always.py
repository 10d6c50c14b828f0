"""
## What it checks
A container holding GPUs (device plugin resources, or a DRA claim of the run
that hands out GPUs) whose image names a version (a tag with a digit, or a
digest) and sets `imagePullPolicy: Always`: advice, a note. An image without
a version (no tag, `latest`, `nightly`) is reported once, by GPU302 (pinning
it is the first fix, and its message names the pull policy); a placeholder
image (`${REGISTRY}/trainer:1.0`) is left to whoever fills it in.

## Why it matters
With `Always` the kubelet asks the registry to resolve the tag on every
container start (Kubernetes documentation, "Images: image pull policy"); the
cached layers are reused when the digest has not changed, so a pinned image
is not downloaded again, but every restart of a GPU pod after an OOM or a
preemption depends on the registry answering: an outage, an expired pull
secret or a registry rate limit keeps the pod
in `ErrImagePull` while its GPUs sit idle. And whoever pushes over the same
tag changes the CUDA stack of the next restart.

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
    Severity.NOTE,
    "A GPU container asks the registry on every start (imagePullPolicy: Always on a pinned image).",
    __doc__,
    fix=FixSafety.UNSAFE,
    reads=mentions("Always"),  # imagePullPolicy: Always
    # Opt-in: on pinned images, 0 of 3 notes judged worth reading on the shared corpus
    # (benchmarks/precision/judged.tsv): the cached layers are reused, and teams that push
    # over a tag rely on Always.
    default=False,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if not container_holding(container, ctx.profile).any or is_infra_container(container):
            continue
        if container.data.get("imagePullPolicy") != "Always":
            continue
        ref = parse_image(container.image)
        if ref is None or not ref.pinned:
            continue  # a placeholder; or unpinned: one root cause, one finding (GPU302)
        yield Report(
            container.path + ("imagePullPolicy",),
            f"GPU container {container.name!r} asks the registry for {container.image} on "
            "every start (imagePullPolicy: Always): a registry outage, an expired pull secret "
            "or a rate limit keeps a restarting GPU pod from starting, and a push over the "
            "same tag changes its CUDA stack; IfNotPresent runs the cached image",
            container=container.name,
            fix=builders.pull_if_not_present(container.path, container.image),
        )
