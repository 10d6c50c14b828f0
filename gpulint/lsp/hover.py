"""Hover text: a finding's rule page, or what gpulint's catalog knows of a GPU name.

The catalog answers through its own lookups (``gpulint.catalog``,
``gpulint.model.values.gpu_resources``, ``gpulint.model.gpu.mig``); nothing is
re-derived here.
"""

from __future__ import annotations

import re

from gpulint import catalog
from gpulint.model.gpu.mig import PRODUCT_LABEL, gpu_name, resource_profiles
from gpulint.model.values import gpu_resources
from gpulint.rules import pages
from gpulint.rules.registry import Registry

# What a resource name, label value or MIG profile is made of (no ':' or quotes).
_WORD = re.compile(r"[A-Za-z0-9._/+-]+")


def word_at(line: str, character: int) -> str:
    """The name under the cursor (code points into ``line``)."""
    for match in _WORD.finditer(line):
        if match.start() <= character <= match.end():
            return match.group().strip(".-")
    return ""


def rule_page(code: str, registry: Registry) -> str | None:
    """The rule's page (what, why, failing and passing example, fix), as docs/rules/ has it."""
    rule = registry.get(code)
    return pages.page(rule.info) if rule is not None else None


def _memory(gpu: catalog.Gpu) -> str:
    if gpu.memory_mib:
        return f"{gpu.memory_mib} MiB ({gpu.memory_mib / 1024:g} GiB)"
    return "not in the catalog"


def _gpu_text(gpu: catalog.Gpu) -> list[str]:
    lines = [f"**{gpu_name(gpu)}**", f"- memory: {_memory(gpu)}"]
    if gpu.family:
        lines.append(f"- family: {gpu.family}")
    if gpu.mig_capable and gpu.mig_profiles:
        profiles = ", ".join(f"`{p}`" for p in resource_profiles(gpu))
        lines.append(f"- MIG profiles: {profiles}")
    else:
        lines.append("- MIG: not supported")
    if len(gpu.product_labels) > 1:
        lines.append(f"- `{PRODUCT_LABEL}` values: " + ", ".join(gpu.product_labels))
    return lines


def _offering(profile: str) -> list[str]:
    gpus = catalog.gpus_with_mig_profile(profile)
    if not gpus:
        return [f"MIG profile `{profile}`: no GPU in gpulint's catalog offers it"]
    lines = [f"MIG profile `{profile}`, offered by:"]
    for gpu in gpus:
        lines.append(f"- {gpu_name(gpu)} ({_memory(gpu)})")
    return lines


def catalog_text(word: str) -> str | None:
    """Markdown for a GPU resource name, a ``nvidia.com/gpu.product`` value or a MIG profile."""
    if not word:
        return None
    profile = gpu_resources.mig_profile(word)
    if profile is not None:
        head = f"`{word}`: a MIG device (the device plugin's mixed strategy)"
        return "\n".join([head, "", *_offering(profile)])
    if gpu_resources.is_gpu_resource(word):
        replica = (
            " (a time-sliced or MPS replica)" if gpu_resources.is_shared_resource(word) else ""
        )
        return f"`{word}`: a GPU resource the device plugin advertises{replica}"
    if catalog.is_known_product(word):
        gpu = catalog.gpu_for_product(word)
        _base, mig, shared = catalog.split_product(word)
        if gpu is None:
            return None
        lines = _gpu_text(gpu)
        if mig:
            lines += ["", *_offering(catalog.mig_resource_profile(mig))]
        if shared:
            lines.append("- `-SHARED`: replicas of the GPU (time-slicing or MPS)")
        return "\n".join(lines)
    if catalog.mig_resource_profile(word) in catalog.mig_resource_profiles():
        return "\n".join(_offering(catalog.mig_resource_profile(word)))
    return None
