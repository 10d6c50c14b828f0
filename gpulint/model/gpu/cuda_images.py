"""Images whose config sets ``NVIDIA_VISIBLE_DEVICES=all``: CUDA base images, images built on them.

An ``ENV`` of a base image is inherited by every image built ``FROM`` it unless a later
``ENV`` changes it, so an image built on ``nvidia/cuda`` carries the variable. Each entry
names the Dockerfile that shows it (a list kept as data, not a guess from the name):

- ``nvidia/cuda`` (Docker Hub) and ``nvcr.io/nvidia/cuda`` (NGC, the same images):
  gitlab.com/nvidia/container-images/cuda ``dist/<version>/<os>/base/Dockerfile`` and
  ``templates/{ubuntu,redhat}/base/Dockerfile.jinja`` end with ``# nvidia-container-runtime``
  ``ENV NVIDIA_VISIBLE_DEVICES all``; the ``runtime``, ``devel`` and ``cudnn`` flavours are
  ``FROM`` the base image (``templates/ubuntu/runtime/Dockerfile.jinja``). Read from the
  GitHub copies taehun-kmu/FMCL-Docker and wimjan123/cuda11.7-gptj-training.
- ``pytorch/pytorch`` (its ``-cuda`` tags): pytorch/pytorch ``Dockerfile``, stage
  ``official``: ``ENV NVIDIA_VISIBLE_DEVICES all``.
- ``vllm/vllm-openai``: vllm-project/vllm ``docker/Dockerfile``:
  ``ARG FINAL_BASE_IMAGE=nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04``,
  ``FROM ${FINAL_BASE_IMAGE} AS vllm-base``, and ``vllm-openai`` is built on ``vllm-base``.
- ``ghcr.io/huggingface/text-generation-inference``: huggingface/text-generation-inference
  ``Dockerfile``: ``FROM nvidia/cuda:<version>-base-ubuntu<version> as base``, final stage
  ``FROM base``.
- RAPIDS (``rapidsai/base``, ``rapidsai/notebooks`` and the older ``rapidsai/rapidsai*``,
  also on NGC as ``nvcr.io/nvidia/rapidsai/*``): rapidsai/docker ``Dockerfile``:
  ``FROM rapidsai/mambaforge-cuda:cuda${CUDA_VER}-base-...``, whose own Dockerfile (and its
  successor ``miniforge-cuda``) is ``FROM nvidia/cuda:${CUDA_VER}-base-${LINUX_VER}``.

Images not built on a CUDA base image that set the variable themselves, commonly run with
``runtimeClassName: nvidia`` in home-lab clusters:

- ``ollama/ollama``: ollama/ollama ``Dockerfile``, final stage (``FROM ubuntu``):
  ``ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility`` ``ENV NVIDIA_VISIBLE_DEVICES=all``. Its
  ``:rocm`` tags are left out: older Dockerfiles built them from a separate ``runtime-rocm``
  stage without the variable.
- ``jellyfin/jellyfin`` (Docker Hub and ``ghcr.io``): jellyfin/jellyfin-packaging
  ``docker/Dockerfile``: ``ENV NVIDIA_VISIBLE_DEVICES="all"``; ``build.yaml`` names the image
  ``jellyfin/jellyfin`` and ``build.py`` pushes it to both registries.
- LocalAI (``localai/localai``, ``quay.io/go-skynet/local-ai``): mudler/LocalAI
  ``Dockerfile``, final stage: ``ENV NVIDIA_VISIBLE_DEVICES=all`` (every flavour);
  ``.github/workflows/image_build.yml`` names both images.

NVIDIA's toolkit docs say as much of the base images ("all ... is the default value in base
CUDA container images": docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/
docker-specialized.html).

Not listed, for want of a primary source that shows the variable: the NGC framework images
(``nvcr.io/nvidia/pytorch``, ``tritonserver``, ...), SGLang's image (the version read is
``FROM nvcr.io/nvidia/tritonserver:<tag>-py3-min``), ``linuxserver/jellyfin`` (the
version of linuxserver/docker-jellyfin ``Dockerfile`` read sets only
``NVIDIA_DRIVER_CAPABILITIES``), ``plexinc/pms-docker`` and ``linuxserver/plex`` (the
versions read set neither), and mirrors under other registries.
"""

from __future__ import annotations

from gpulint.model.values.images import parse_image

# (registry, repository) -> what builds it on a CUDA base image. Docker Hub is docker.io.
_EXACT: dict[tuple[str | None, str], str] = {
    ("docker.io", "nvidia/cuda"): "a CUDA base image",
    ("nvcr.io", "nvidia/cuda"): "a CUDA base image",
    ("docker.io", "vllm/vllm-openai"): "vLLM's image, built FROM nvidia/cuda",
    ("ghcr.io", "huggingface/text-generation-inference"): "TGI's image, built FROM nvidia/cuda",
    ("docker.io", "jellyfin/jellyfin"): "Jellyfin's image",
    ("ghcr.io", "jellyfin/jellyfin"): "Jellyfin's image",
    ("docker.io", "localai/localai"): "LocalAI's image",
    ("quay.io", "go-skynet/local-ai"): "LocalAI's image",
}
_OLLAMA = "ollama/ollama"
_RAPIDS = "a RAPIDS image, built FROM nvidia/cuda"
_RAPIDS_HUB = frozenset(
    {
        "rapidsai/base",
        "rapidsai/notebooks",
        "rapidsai/rapidsai",
        "rapidsai/rapidsai-core",
        "rapidsai/rapidsai-dev",
        "rapidsai/rapidsai-core-dev",
        "rapidsai/mambaforge-cuda",
        "rapidsai/miniforge-cuda",
    }
)
_PYTORCH = "pytorch/pytorch"


def _hub(registry: str | None) -> bool:
    return registry in (None, "docker.io", "index.docker.io", "registry-1.docker.io")


def visible_all_reason(image: str) -> str | None:
    """Why the image's config sets ``NVIDIA_VISIBLE_DEVICES=all``; None when not known to."""
    ref = parse_image(image)
    if ref is None:
        return None
    registry = "docker.io" if _hub(ref.registry) else ref.registry
    repository = ref.repository
    if _hub(ref.registry) and repository.startswith("library/"):
        return None  # official library images are not these
    found = _EXACT.get((registry, repository))
    if found:
        return found
    if _hub(ref.registry) and repository in _RAPIDS_HUB:
        return _RAPIDS
    if registry == "nvcr.io" and repository.startswith("nvidia/rapidsai/"):
        return _RAPIDS
    if _hub(ref.registry) and repository == _PYTORCH and ref.tag and "cuda" in ref.tag:
        return "a PyTorch CUDA image (its Dockerfile sets it)"
    if _hub(ref.registry) and repository == _OLLAMA and "rocm" not in (ref.tag or ""):
        return "Ollama's image"
    return None
