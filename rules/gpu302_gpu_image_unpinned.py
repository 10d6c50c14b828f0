"""
## What it checks
A container holding GPUs (device plugin resources, or a DRA claim of the run
that hands out GPUs) in a **server** whose image has no tag, the tag
`latest`, or a tag that names no version (`vllm/vllm-openai`,
`pytorch/pytorch:latest`, `:nightly`, `:serving-gpu`, `:latest-intel`: a tag
with no digit, or with the word `latest`). A digest (`@sha256:...`) counts as
pinned, with or without a tag. What a pod is for is read from what it runs
(`gpulint/model/workloads/purpose.py`, as GPU106 does): batch runs (Jobs,
training jobs, bare Pods that serve nothing) are reported only with the
option `batch: true`; benchmarks and probes (`gpu_burn`, the nccl-tests
binaries, `nvidia-smi`, `sleep`) never, nor a container whose image is loaded
by hand (`imagePullPolicy: Never`: no registry tag to pin) or named without a
registry or an owner (`ai-inference-gpu:latest`: the name of an image built
where it runs; Docker Hub's official images, the only short names a registry
serves, ship no GPU stack, while NVIDIA's, PyTorch's and vLLM's images all
live under an owner), nor a classic init
container (it runs once before the work; a GPU held there is GPU105's). An image that is
still a placeholder (`${IMAGE}`, `<your-registry>/server`,
`REPLACE_MODEL_SERVER_IMAGE`) is left to whoever fills it in. With
`imagePullPolicy: Always` as well, this one finding names both (GPU301 stays
silent: pinning comes first).

An image whose repository name carries its CUDA version (`cu124`, `cuda12.4`,
`cuda-12`; Google's Deep Learning Containers name theirs
`huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311`) is a
**note**: a new push to that repository keeps that CUDA runtime, so the
driver mismatch below cannot come from the tag moving; a rebuild can still
change what else the image holds. So is an image whose repository name carries
its release after the accelerator, as those containers name theirs, one
repository a release (`huggingface-text-generation-inference-gpu.3.0.1`,
`pytorch-gpu.2-1.py310`): a push to it rebuilds that release on its CUDA.

An image the linted repository publishes itself is a **note**, not a warning:
such a repository lets its default branch track `:latest` of its own images
on purpose and pins them when it releases (kubebuilder's scaffold deploys
`controller:latest` and `make deploy` sets the tag with `kustomize edit set
image`; release scripts do the same). Own is read from the run, never
guessed from a name (`gpulint/model/project.py`): the image's repository path
is the project's `owner/repo` or lies under it
(`ghcr.io/kubeflow/trainer/torchtune-trainer` in `kubeflow/trainer`); the
owner alone never matches (`rocm/pytorch` is not `ROCm/k8s-device-plugin`'s);
or the repository's own CI pushes that image repository, whatever its name
(`selkies-project/docker-nvidia-glx-desktop`'s workflow pushes
`ghcr.io/selkies-project/nvidia-glx-desktop`): the registry and path match
exactly, any tag. The message says where the identity or the push was read.

Through a kustomize render, where a kustomization's `images:` entry sets the
tag (`newTag: latest`, the outermost kustomization naming the image decides),
the finding names that entry as its related location: the pin belongs there,
not in the base manifest (`gpulint/inputs/render/kustomize_images.py`).

Facts: the project identity, a GitHub or GitLab `owner/repo` read from the
linted repository's files (`gpulint/inputs/project_scan.py`): the git remote
`origin` in `.git/config`, else a root `go.mod` module path, else the `home`
and `sources` of a top-level chart in the walk. The images the repository's
CI pushes (`gpulint/inputs/ci_images.py`), read from the files at the root of
the git repository that holds the linted paths: the GitHub Actions workflows
in `.github/workflows/` (the `tags` of `docker/build-push-action`, the
`images` of `docker/metadata-action`, `docker push` and `docker buildx build
--push -t` in `run:` scripts) and `.gitlab-ci.yml` (the same commands in
scripts). `${{ env.NAME }}` is read from the workflow's, job's and step's
`env:`, `${{ github.repository_owner }}`, `${{ github.repository }}` and
`${{ github.event.repository.name }}` from the identity; a name holding any
other expression (`${{ secrets.REGISTRY }}/app`, `${{ matrix.image }}`) is
not counted. Without either, every unpinned image is a warning.

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

import re
from collections.abc import Iterator

from gpulint.model.gpu.holding import container_holding
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.values.images import ImageRef, parse_image, tag_override
from gpulint.model.workloads.probe import is_probe
from gpulint.model.workloads.purpose import Purpose, pod_purpose
from gpulint.rules.api import Anchor, Context, Option, PodSpec, Report, Resource, Rule, Severity

rule = Rule(
    "GPU302",
    "gpu-image-unpinned",
    Severity.WARNING,
    "A GPU server's image has no tag or a tag that names no version; CUDA and framework drift.",
    __doc__,
    options=(
        Option(
            "batch",
            bool,
            False,
            "Report batch runs too (jobs, training, bare Pods that serve nothing), not only "
            "servers.",
        ),
    ),
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        purpose = pod_purpose(resource, pod)
        if purpose in (Purpose.PROBE, Purpose.BENCHMARK):
            continue  # what it measures or checks does not depend on the image's version
        if purpose is Purpose.BATCH and not ctx.option(rule, "batch"):
            continue
        yield from _pod_reports(resource, pod, ctx)


# A CUDA version in a repository name's last segment: cu124 (PyTorch's and Google's form,
# three digits), cuda12.4, cuda-12 (a following ".2-3" in cu124.2-3 is the framework's).
_CUDA_IN_NAME = re.compile(r"(?:^|[-_.])(cu\d{3}|cuda-?\d{1,2}(?:\.\d+)?)(?=$|[-_.])")


# A release after the accelerator in a repository name's last segment, as Google's Deep
# Learning Containers name theirs, one repository a release: {framework}-gpu.3.0.1,
# pytorch-gpu.2-1.py310, -cu121.2-2. Only that form: a release elsewhere in a name
# (ray2.24.0-py310-vllm-gpu, llama-3.3-nemotron) may be one part's, not the image's.
_RELEASE_IN_NAME = re.compile(r"[-_](?:gpu|cpu|tpu|cu\d{3})\.(\d+(?:[.-]\d+)+)(?=$|[-_.][a-z])")


def _cuda_in_name(ref: ImageRef) -> str | None:
    found = _CUDA_IN_NAME.search(ref.repository.rsplit("/", 1)[-1].lower())
    return found.group(1) if found else None


def _release_in_name(ref: ImageRef) -> str | None:
    found = _RELEASE_IN_NAME.search(ref.repository.rsplit("/", 1)[-1].lower())
    return found.group(1) if found else None


def _advice(ref: ImageRef, ctx: Context) -> str | None:
    """Why the unpinned image is advice (a note), not drift: None when it is drift."""
    own = ctx.project.publisher(ref)
    if own is not None:
        # Tracking its own latest on the default branch is a release practice.
        return (
            f"it is this repository's own image ({own.path}, from {own.source}), so the "
            "default branch may track it on purpose: pin a version tag or a digest when "
            "releasing"
        )
    pushed = ctx.project.publishes(ref)
    if pushed is not None:
        return (
            f"it is this repository's own image ({pushed.repository}, pushed by "
            f"{pushed.source}), so the default branch may track it on purpose: pin a version "
            "tag or a digest when releasing"
        )
    cuda = _cuda_in_name(ref)
    if cuda is not None:
        return (
            f"its repository name fixes the CUDA version ({cuda}), but each push to it can "
            "still change the framework build the replicas run: pin a version tag or a digest"
        )
    release = _release_in_name(ref)
    if release is not None:
        return (
            f"its repository name fixes the release ({release}) and the CUDA it is built "
            "with, but each push to it can still change the build the replicas run: pin a "
            "version tag or a digest"
        )
    return None


def _why(ref: ImageRef) -> str:
    if ref.tag is None:
        return "has no tag"
    if ref.tag == "latest":
        return "uses the tag latest"
    return f"uses the tag {ref.tag}, which names no version"


def _pod_reports(resource: Resource, pod: PodSpec, ctx: Context) -> Iterator[Report]:
    for container in pod.containers:
        if not container_holding(container, ctx.profile).any or is_infra_container(container):
            continue
        if container.is_init and not container.is_sidecar:
            continue  # runs once before the work (a download, a check): GPU105's question
        if is_probe(container):
            continue  # nvidia-smi or sleep: no CUDA or framework of the image is used
        if container.data.get("imagePullPolicy") == "Never":
            continue  # loaded by hand into the node (kind, minikube): no registry tag to pin
        ref = parse_image(container.image)
        if ref is None or ref.pinned:
            continue
        if ref.registry is None and "/" not in ref.repository:
            continue  # a short name (no registry, no owner): a local build, no registry tag
        why = _why(ref)
        # Where a kustomization's images: entry wrote the tag, the pin belongs there.
        entry = tag_override(ref, resource.doc) if ref.tag else None
        related = (
            ((Anchor(entry.where, "", None, None, None), f"the tag {ref.tag} is set here"),)
            if entry is not None
            else ()
        )
        advice = _advice(ref, ctx)
        if advice is not None:
            yield Report(
                container.path + ("image",),
                f"GPU container {container.name!r} image {container.image!r} {why}; {advice}",
                container=container.name,
                related=related,
                severity=Severity.NOTE,
            )
            continue
        policy = container.data.get("imagePullPolicy")
        if policy == "Always":
            pull = "and imagePullPolicy: Always pulls it again on every start"
            fix = "pin a version tag or a digest and use IfNotPresent"
        elif policy == "IfNotPresent":
            # The policy is kept, so each node runs whichever image it pulled first.
            pull = (
                f"and, with imagePullPolicy: {policy}, each node runs the version it pulled first"
            )
            fix = "pin a version tag or a digest"
        elif ref.tag in (None, "latest"):
            # Kubernetes defaults the policy to Always for no tag and for :latest only
            # ("Images: image pull policy"); any other tag gets IfNotPresent.
            pull = "and the default imagePullPolicy becomes Always"
            fix = "pin a version tag or a digest"
        else:
            pull = (
                "and, with the default imagePullPolicy (IfNotPresent for this tag), each node "
                "runs the version it pulled first"
            )
            fix = "pin a version tag or a digest"
        yield Report(
            container.path + ("image",),
            f"GPU container {container.name!r} image {container.image!r} {why}; its CUDA and "
            f"framework versions change without notice {pull}; {fix}",
            container=container.name,
            related=related,
        )
