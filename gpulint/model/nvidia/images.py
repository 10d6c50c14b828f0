"""Container images of the NVIDIA device plugin and GPU feature discovery."""

from __future__ import annotations

from gpulint.core.lazy_re import lazy
from gpulint.model.values import placeholders

DEVICE_PLUGIN = "device-plugin"
GFD = "gpu-feature-discovery"

# Core of a plugin version in an image tag: v0.17.0, v0.17.0-ubi9, 0.9.0, v0.17.0-rc.1.
_VERSION = lazy(r"^v?(\d+\.\d+\.\d+(?:-(?:rc|beta|alpha)\.?\d+)?)")


def split_image(image: str) -> tuple[str, str | None, str | None]:
    """``repo:tag@sha256:...`` -> (repository, tag or None, digest or None)."""
    image = image.strip()
    digest = None
    if "@" in image:
        image, digest = image.split("@", 1)
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon + 1 :], digest
    return image, None, digest


def _path(repository: str) -> list[str]:
    return repository.lower().split("/")


def image_kind(image: str) -> str | None:
    """``device-plugin`` for NVIDIA's k8s-device-plugin image, ``gpu-feature-discovery`` for
    NVIDIA's old standalone GFD image, else None (AMD's ``rocm/k8s-device-plugin`` is not ours)."""
    if not image or "{{" in image:
        return None
    parts = _path(split_image(image)[0])
    if len(parts) < 2 or parts[-2] != "nvidia":
        return None
    if parts[-1] in ("k8s-device-plugin", "nvidia-device-plugin"):
        return DEVICE_PLUGIN
    if parts[-1] == GFD:
        return GFD
    return None


def is_unpinned(image: str) -> bool:
    """No tag and no digest, or the ``latest`` tag (a digest always pins); a placeholder
    (``<registry>/k8s-device-plugin``, ``${IMAGE}``) is not judged."""
    if placeholders.is_placeholder(image):
        return False
    _repo, tag, digest = split_image(image)
    if digest:
        return False
    return tag is None or tag.lower() == "latest"


def core_version(tag: str | None) -> str | None:
    """The plugin version a tag names,
    without base-image suffixes (``v0.16.2-ubi8``: ``v0.16.2``)."""
    if not isinstance(tag, str):
        return None
    if tag.startswith("sha256:"):
        return None
    match = _VERSION.match(tag.strip())
    return "v" + match.group(1) if match else None
