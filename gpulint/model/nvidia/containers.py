"""Device plugin and GFD containers in any workload, and the MIG strategy they are given.

A container is the device plugin's when it runs NVIDIA's ``k8s-device-plugin``
image; the strategy comes from env ``MIG_STRATEGY`` or ``--mig-strategy`` in
``command``/``args`` (the flag wins over the env var, which wins over the
config file).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.nvidia import images
from gpulint.model.resource import Container, Resource
from gpulint.model.values import placeholders

ENV_NAME = "MIG_STRATEGY"
FLAG = "--mig-strategy"
_OTHER_BINARIES = ("gpu-feature-discovery", "mps-control-daemon", "config-manager")


@record(frozen=True)
class StrategySite:
    """Where a device plugin container sets its MIG strategy."""

    path: tuple  # relative to the resource
    value: Any
    at: str  # "value" for an env value, "key" for an args entry
    how: str  # "env MIG_STRATEGY" or "--mig-strategy"


def _words(container: Container) -> list[tuple[tuple, str]]:
    found = []
    for field in ("command", "args"):
        items = container.data.get(field)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, str):
                    found.append((container.path + (field, i), item))
    return found


def strategy_sites(container: Container) -> list[StrategySite]:
    """Where this container sets a MIG strategy (placeholders such as ``$(VAR)`` skipped)."""
    return setting_sites(container, ENV_NAME, FLAG)


def setting_sites(container: Container, env_name: str, flag: str) -> list[StrategySite]:
    """Where this container sets one plugin option, by env var or by flag."""
    found = []
    env = container.data.get("env")
    if isinstance(env, list):
        for i, item in enumerate(env):
            if isinstance(item, dict) and item.get("name") == env_name and "value" in item:
                path = container.path + ("env", i, "value")
                found.append(StrategySite(path, item.get("value"), "value", f"env {env_name}"))
    words = _words(container)
    for n, (path, word) in enumerate(words):
        if word.startswith(flag + "="):
            found.append(StrategySite(path, word.split("=", 1)[1], "value", flag))
        elif word == flag and n + 1 < len(words):
            found.append(StrategySite(words[n + 1][0], words[n + 1][1], "value", flag))
        elif flag + "=" in word and " " in word:  # a shell line: sh -c "... --flag=x"
            value = word.split(flag + "=", 1)[1].split()[0].strip("'\"")
            found.append(StrategySite(path, value, "value", flag))
    return [s for s in found if not _placeholder(s.value)]


def _placeholder(value: Any) -> bool:
    # Template placeholders, and any $VAR / $(VAR) a shell or the kubelet expands.
    return placeholders.is_placeholder(value) or (isinstance(value, str) and "$" in value)


def runs_plugin(container: Container) -> bool:
    """The k8s-device-plugin image running the plugin itself (not GFD, MPS or config-manager)."""
    if images.image_kind(container.image) != images.DEVICE_PLUGIN:
        return False
    text = " ".join(word for _path, word in _words(container)[:3])
    return not any(binary in text for binary in _OTHER_BINARIES)


def role(container: Container) -> str:
    """What a device plugin or GFD image container runs, in words."""
    if images.image_kind(container.image) == images.GFD:
        return "GPU feature discovery"
    text = " ".join(word for _path, word in _words(container)[:3])
    for binary, words in zip(
        _OTHER_BINARIES,
        ("GPU feature discovery", "MPS control daemon", "config manager"),
        strict=True,
    ):
        if binary in text:
            return words
    return "device plugin"


def plugin_containers(resource: Resource, init: bool = False) -> Iterator[Container]:
    """Containers running NVIDIA's device plugin or GFD images (init containers on request:
    the chart's config-manager init container runs the plugin image too)."""
    for container in resource.containers:
        if container.is_init and not container.is_sidecar and not init:
            continue
        if images.image_kind(container.image) is not None:
            yield container


def is_operator_managed(resource: Resource) -> bool:
    """Rendered by the GPU Operator (owned by a ClusterPolicy) or by Helm (a chart label)."""
    for owner in resource.metadata.get("ownerReferences") or ():
        if isinstance(owner, dict) and owner.get("kind") == "ClusterPolicy":
            return True
    return False


def is_chart_rendered(resource: Resource) -> bool:
    labels = resource.labels
    if "helm.sh/chart" in labels or labels.get("app.kubernetes.io/managed-by") == "Helm":
        return True
    return resource.doc.template is not None
