"""The ``cluster:`` section of ``.gpulint.yaml``: what the user says about the target cluster.

It feeds the cluster profile (``model/profile.py``) and wins over what the run's
objects show. The older top-level keys (``gpu-taint-keys``, ``max-gpus-per-node``,
``extended-resource-toleration``) are still read, as if written in the section;
where both are given, the section wins.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.settings import ClusterConfig, GpuTaint, Settings

# Top-level keys from before the section existed -> their name inside it.
LEGACY_KEYS = {
    "gpu-taint-keys": "gpu-taints",
    "max-gpus-per-node": "max-gpus-per-node",
    "extended-resource-toleration": "extended-resource-toleration",
}


def _taint(item: Any) -> GpuTaint:
    """``nvidia.com/gpu``, ``nvidia.com/gpu:NoExecute`` or ``{key: ..., effect: ...}``."""
    if isinstance(item, dict):
        return GpuTaint(str(item["key"]), str(item.get("effect") or "NoSchedule"))
    key, _, effect = str(item).partition(":")
    return GpuTaint(key.split("=", 1)[0], effect or "NoSchedule")


def cluster_config(values: dict, path: str = ".gpulint.yaml") -> ClusterConfig:
    """The section merged over the legacy keys (the schema has checked the types)."""
    section: dict = {new: values[old] for old, new in LEGACY_KEYS.items() if old in values}
    section.update(values.get("cluster") or {})
    taints = section.get("gpu-taints")
    models = section.get("gpu-models")
    return ClusterConfig(
        provider=section.get("provider"),
        gpu_taints=tuple(_taint(t) for t in taints) if taints is not None else None,
        gpu_models=frozenset(str(m) for m in models) if models is not None else None,
        extended_resource_toleration=section.get("extended-resource-toleration"),
        max_gpus_per_node=section.get("max-gpus-per-node"),
        source=path,
    )


def apply(values: dict, settings: Settings, path: str = ".gpulint.yaml") -> None:
    """Set the run's cluster settings from a config file's values."""
    config = cluster_config(values, path)
    settings.cluster_facts = config
    if config.gpu_taints:
        settings.gpu_taint_keys = tuple(dict.fromkeys(t.key for t in config.gpu_taints))
    if config.extended_resource_toleration is not None:
        settings.extended_resource_toleration = config.extended_resource_toleration
