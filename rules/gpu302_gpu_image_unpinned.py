"""
## What it checks
A container holding GPUs (device plugin resources, or a DRA claim of the run
that hands out GPUs) whose image has no tag or the tag `latest`
(`vllm/vllm-openai`, `pytorch/pytorch:latest`). A digest
(`@sha256:...`) counts as pinned, with or without a tag. An image that is
still a placeholder (`${IMAGE}`, `<your-registry>/server`,
`REPLACE_MODEL_SERVER_IMAGE`) is left to whoever fills it in. With
`imagePullPolicy: Always` as well, this one finding names both (GPU301 stays
silent: pinning comes first). A container that only probes the GPU or waits
(`nvidia-smi`, `sleep`: `gpulint/model/workloads/probe.py`) is left alone: it uses no CUDA
or framework of its image.

An image the linted repository publishes itself is a **note**, not a warning:
such a repository lets its default branch track `:latest` of its own images
on purpose and pins them when it releases (kubebuilder's scaffold deploys
`controller:latest` and `make deploy` sets the tag with `kustomize edit set
image`; release scripts do the same). Own is read from the run, never
guessed from a name (`gpulint/model/project.py`): the image's repository path
is the project's `owner/repo` or lies under it
(`ghcr.io/kubeflow/trainer/torchtune-trainer` in `kubeflow/trainer`); the
owner alone never matches (`rocm/pytorch` is not `ROCm/k8s-device-plugin`'s).
The message says where the identity was learned.

Through a kustomize render, where a kustomization's `images:` entry sets the
tag (`newTag: latest`, the outermost kustomization naming the image decides),
the finding names that entry as its related location: the pin belongs there,
not in the base manifest (`gpulint/inputs/render/kustomize_images.py`).

Facts: the project identity, a GitHub or GitLab `owner/repo` read from the
linted repository's files (`gpulint/inputs/project_scan.py`): the git remote
`origin` in `.git/config`, else a root `go.mod` module path, else the `home`
and `sources` of a top-level chart in the walk. Without one, every unpinned
image is a warning.

## Why it matters
GPU images bundle a CUDA runtime that must match the node's driver and a
framework build that must match the model code. An unpinned image changes
under you: two replicas started a day apart can run different CUDA versions,
and a new `latest` that needs a newer driver fails with
`CUDA driver version is insufficient for CUDA runtime version` on nodes that
worked yesterday. Kubernetes also defaults `imagePullPolicy` to `Always` for
`latest` or untagged images, so every start pulls many gigabytes again.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: infer
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:latest  # <- GPU302
      resources:
        limits:
          nvidia.com/gpu: 1
    - name: sglang
      image: lmsysorg/sglang  # <- GPU302
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
    - name: vllm
      image: vllm/vllm-openai:v0.6.3
      resources:
        limits:
          nvidia.com/gpu: 1
    - name: sglang
      image: lmsysorg/sglang@sha256:4b3c4d6b0f6c1e3f0a7e1f2d7e8c9b0a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Use a version tag (`vllm/vllm-openai:v0.6.3`) or, for full reproducibility,
a digest (`image@sha256:...`), and upgrade deliberately. For the
repository's own images, pin them in what you release (`kustomize edit set
image` in the release job, the chart's `appVersion`), and leave the default
branch on `latest` if that is how you develop.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.holding import container_holding
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.values.images import parse_image, tag_override
from gpulint.model.workloads.probe import is_probe
from gpulint.rules.api import Anchor, Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU302",
    "gpu-image-unpinned",
    Severity.WARNING,
    "A GPU container image has no tag or uses :latest; CUDA and framework versions drift.",
    __doc__,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if not container_holding(container, ctx.profile).any or is_infra_container(container):
            continue
        if is_probe(container):
            continue  # nvidia-smi or sleep: no CUDA or framework of the image is used
        ref = parse_image(container.image)
        if ref is None or ref.pinned:
            continue
        why = "has no tag" if ref.tag is None else "uses the tag latest"
        # Where a kustomization's images: entry wrote the tag, the pin belongs there.
        entry = tag_override(ref, resource.doc) if ref.tag else None
        related = (
            ((Anchor(entry.where, "", None, None, None), f"the tag {ref.tag} is set here"),)
            if entry is not None
            else ()
        )
        own = ctx.project.publisher(ref)
        if own is not None:
            # Tracking its own latest on the default branch is a release practice: advice.
            yield Report(
                container.path + ("image",),
                f"GPU container {container.name!r} image {container.image!r} {why}; it is "
                f"this repository's own image ({own.path}, from {own.source}), so the "
                "default branch may track it on purpose: pin a version tag or a digest "
                "when releasing",
                container=container.name,
                related=related,
                severity=Severity.NOTE,
            )
            continue
        policy = container.data.get("imagePullPolicy")
        if policy == "Always":
            pull = "and imagePullPolicy: Always pulls it again on every start"
            fix = "pin a version tag or a digest and use IfNotPresent"
        elif policy in ("IfNotPresent", "Never"):
            # The policy is kept, so each node runs whichever image it pulled first.
            pull = (
                f"and, with imagePullPolicy: {policy}, each node runs the version it pulled first"
            )
            fix = "pin a version tag or a digest"
        else:
            pull = "and the default imagePullPolicy becomes Always"
            fix = "pin a version tag or a digest"
        yield Report(
            container.path + ("image",),
            f"GPU container {container.name!r} image {container.image!r} {why}; its CUDA and "
            f"framework versions change without notice {pull}; {fix}",
            container=container.name,
            related=related,
        )
