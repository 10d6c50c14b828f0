"""Known vulnerabilities of the NVIDIA Container Toolkit and the GPU Operator: which of the
catalog's advisories (``advisories:`` in catalog.yaml, with their sources) a release is
affected by, and the images that name a release.

A version is judged only when it names one release: ``v1.16.1``, ``1.16.1-ubuntu20.04``,
``v24.6.1``. A pre-release (``v1.17.0-rc.1``), a partial version (``v1.17``), a range or a
placeholder is not a release, and nothing is said about it.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.nvidia import images
from gpulint.model.values import placeholders

TOOLKIT = "container_toolkit"
OPERATOR = "gpu_operator"
NAMES = {TOOLKIT: "NVIDIA Container Toolkit", OPERATOR: "GPU Operator"}

# A release, maybe with a base-image suffix (-ubuntu20.04, -ubi8, -centos7); never a pre-release.
_RELEASE = lazy(r"^v?(\d+)\.(\d+)\.(\d+)(?:-(?!rc|alpha|beta)[a-z][a-z0-9.]*)?$", re.IGNORECASE)


@record(frozen=True)
class Hit:
    """One advisory that applies to one release."""

    cve: str
    severity: str  # warning (code on the host, an escape) or note (tampering, denial of service)
    allows: str
    bulletin: str
    affected_through: str
    fixed: str
    scope: str  # "" or the mode it applies in at this release


def release(text: Any) -> tuple[int, int, int] | None:
    """(major, minor, patch) of a version that names one release, else None."""
    if not isinstance(text, str) or placeholders.is_placeholder(text):
        return None
    match = _RELEASE.match(text.strip())
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _parse(version: str) -> tuple[int, int, int]:
    found = release(str(version))
    if found is None:
        raise RuntimeError(f"gpulint's catalog holds a version that is not a release: {version!r}")
    return found


@cache
def _entries() -> tuple[dict, ...]:
    return tuple(catalog.raw()["advisories"])


@record(frozen=True)
class Mode:
    """What the run says of the runtime's mode: CDI enabled (``cdi.enabled``), and CDI the
    default for every container (``cdi.default``); both off unless the run sets them."""

    cdi_enabled: bool = False
    cdi_default: bool = False


LEGACY = Mode()  # what a run that says nothing of CDI runs


def affecting(component: str, version: Any, mode: Mode | None = None) -> list[Hit]:
    """The advisories that ``version`` of ``component`` (TOOLKIT or OPERATOR) is affected by
    in ``mode``: one that applies only in CDI mode at this release counts only where the run
    enables CDI; one that does not apply with CDI, unless the run makes CDI the default.
    ``mode`` None: in any mode (what an upgrade must leave behind)."""
    at = release(version)
    if at is None:
        return []
    hits = []
    for entry in _entries():
        ranges = entry.get(component)
        if not isinstance(ranges, dict) or at > _parse(ranges["affected_through"]):
            continue
        scope = ""
        if entry.get("not_with_cdi"):
            if mode is not None and mode.cdi_enabled and mode.cdi_default:
                continue
            scope = "in the default (legacy) mode, not with CDI"
        elif "cdi_only_before" in ranges and at < _parse(ranges["cdi_only_before"]):
            if mode is not None and not mode.cdi_enabled:
                continue
            scope = "at this release in CDI mode only (the run enables CDI)"
        hits.append(
            Hit(
                cve=entry["cve"],
                severity=entry["severity"],
                allows=entry["allows"],
                bulletin=entry["bulletin"],
                affected_through=str(ranges["affected_through"]),
                fixed=str(ranges["fixed"]),
                scope=scope,
            )
        )
    return hits


def first_safe(hits: list[Hit]) -> str:
    """The oldest release fixed for every one of ``hits``."""
    return max((h.fixed for h in hits), key=_parse)


def image_component(image: str) -> str | None:
    """TOOLKIT for NVIDIA's ``k8s/container-toolkit`` image, OPERATOR for its ``gpu-operator``
    image (``nvcr.io/nvidia/...``, the names their release notes give), else None."""
    if not isinstance(image, str) or "{{" in image:
        return None
    parts = images.split_image(image)[0].lower().split("/")
    if parts[-2:] == ["k8s", "container-toolkit"] and "nvidia" in parts[:-2]:
        return TOOLKIT
    if parts[-1] == "gpu-operator" and len(parts) >= 2 and parts[-2] == "nvidia":
        return OPERATOR
    return None


def image_version(image: str) -> str | None:
    """The tag of an image when it names a release (a digest pins an unknown one)."""
    _repo, tag, _digest = images.split_image(image)
    return tag if release(tag) is not None else None
