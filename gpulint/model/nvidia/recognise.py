"""What a document that is not a Kubernetes resource is, by its content.

Values files carry no ``apiVersion``/``kind``; they are recognised by keys only
their chart reads. An umbrella chart's values hold a chart's values under its
name (``nvidia-device-plugin:``, ``gpu-operator:``). ``--values-for CHART``
(``Settings.values_for``) places a values file that content cannot.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from gpulint.core.record import record
from gpulint.core.settings import Settings
from gpulint.model.values import releases

DEVICE_PLUGIN_CHART = "nvidia-device-plugin"
OPERATOR_CHART = "gpu-operator"
PLUGIN_CONFIG = "device-plugin-config"
CHARTS = (DEVICE_PLUGIN_CHART, OPERATOR_CHART)

# Text that every input the device plugin and GPU Operator rules (GPU401-407) read holds:
# the plugin's and GFD's image names, the chart names, the plugin flags (migStrategy,
# failOnInitError, ...), a config's flags/sharing, the operator's component keys
# (devicePlugin, driver, toolkit, dcgm, migManager, validator, ...) and ClusterPolicy.
# What place() and the image checks below recognise cannot be written without one of
# these words, in any case; a run where no input holds one need not load those rules
# (Rule.reads). With --values-for, any YAML is the chart's values, so the engine loads
# them regardless.
MENTIONED = (
    "device-plugin", "deviceplugin", "feature-discovery", "gfd", "mig", "flags", "sharing",
    "driver", "toolkit", "dcgm", "validator", "vgpu", "vfio", "sandbox", "katamanager",
    "ccmanager", "clusterpolicy", "gpucluster", "gpu-operator", "nodestatusexporter",
    "failoninit", "compatwithcpumanager", "devicelist", "deviceid", "gdrcopy", "gdsenabled",
    "mofed", "devicediscovery", "nvidiadriverroot", "nvidiadevroot",
)  # fmt: skip

# Top-level keys of the device plugin's config file (api/config/v1).
CONFIG_KEYS = frozenset({"version", "flags", "resources", "sharing", "imex"})
# Plugin flags the device plugin chart reads at the top level of its values.
_DP_FLAG_KEYS = frozenset(
    {
        "migStrategy",
        "failOnInitError",
        "compatWithCPUManager",
        "deviceListStrategy",
        "deviceIDStrategy",
        "nvidiaDriverRoot",
        "nvidiaDevRoot",
        "gdrcopyEnabled",
        "gdsEnabled",
        "mofedEnabled",
        "deviceDiscoveryStrategy",
    }
)
# Flags other NVIDIA charts share (the DRA driver chart has nvidiaDriverRoot too).
_DP_DISTINCTIVE = _DP_FLAG_KEYS - {"nvidiaDriverRoot", "nvidiaDevRoot"}
# Every top-level key of the chart's values.yaml (v0.20.0) and the keys its templates read.
_DP_TOP_KEYS = _DP_FLAG_KEYS | {
    "config",
    "nameOverride",
    "fullnameOverride",
    "namespaceOverride",
    "selectorLabelsOverride",
    "allowDefaultNamespace",
    "imagePullSecrets",
    "image",
    "updateStrategy",
    "podAnnotations",
    "podSecurityContext",
    "securityContext",
    "resources",
    "nodeSelector",
    "affinity",
    "tolerations",
    "priorityClassName",
    "runtimeClassName",
    "devicePlugin",
    "gfd",
    "nfd",
    "mps",
    "cdi",
    "noTimestamp",
    "sleepInterval",
    "version",  # not a chart key, but the classic mistake in these files
}
# Keys only the GPU Operator chart has (its components).
_OPERATOR_KEYS = frozenset(
    {
        "driver",
        "toolkit",
        "dcgm",
        "dcgmExporter",
        "migManager",
        "nodeStatusExporter",
        "validator",
        "vgpuManager",
        "vgpuDeviceManager",
        "vfioManager",
        "sandboxWorkloads",
        "sandboxDevicePlugin",
        "kataManager",
        "ccManager",
        "clusterPolicy",
        "gpuCluster",
    }
)


@record(frozen=True)
class Placed:
    """A mapping recognised as chart values or a plugin config, and where it sits."""

    kind: str  # DEVICE_PLUGIN_CHART, OPERATOR_CHART or PLUGIN_CONFIG
    prefix: tuple  # where the recognised mapping sits in the document


def is_resource(data: Any) -> bool:
    return isinstance(data, dict) and "apiVersion" in data and "kind" in data


def is_plugin_config(data: Any) -> bool:
    """``version``/``flags``/``sharing``: the plugin's config file (keys match in any case)."""
    if not isinstance(data, dict) or is_resource(data):
        return False
    keys = {str(k).lower() for k in data}
    if not (keys & {"flags", "sharing"}):
        return False
    known = {k.lower() for k in CONFIG_KEYS}
    return "version" in keys or keys <= known


def _is_operator_values(data: dict) -> bool:
    plugin = data.get("devicePlugin")
    if isinstance(plugin, dict) and ({"repository", "version"} & set(plugin)):
        return True
    mig = data.get("mig")
    if isinstance(mig, dict) and "strategy" in mig and len(_OPERATOR_KEYS & set(data)) >= 1:
        return True
    return len(_OPERATOR_KEYS & set(data)) >= 2


def _is_device_plugin_values(data: dict) -> bool:
    # Mostly the chart's own keys (another chart's values share a few generic ones).
    keys = {k for k in data if isinstance(k, str)}
    return 2 * len(keys & _DP_TOP_KEYS) >= len(keys) and _has_device_plugin_signature(data)


def _has_device_plugin_signature(data: dict) -> bool:
    if _DP_DISTINCTIVE & set(data):
        return True
    image = data.get("image")
    if isinstance(image, dict):
        repository = image.get("repository")
        if isinstance(repository, str) and repository.rstrip("/").endswith(
            "nvidia/k8s-device-plugin"
        ):
            return True
    config = data.get("config")
    if isinstance(config, dict) and "map" in config and isinstance(config.get("map"), dict):
        return any(isinstance(v, str) and is_config_text(v) for v in config["map"].values())
    return False


def is_config_text(text: str) -> bool:
    """A string that looks like a plugin config (cheap test before parsing it)."""
    return "version" in text and ("flags" in text or "sharing" in text)


# A values file a release of the run names (a Helmfile's, a kustomization's, an Argo CD
# source's $ref file) is judged through that release, merged with the values over it: read
# alone by its keys, a value a later layer overrides would be reported too.
_BY_RELEASE: ContextVar[bool] = ContextVar("by_release", default=False)


@contextmanager
def values_of_a_release(named: bool) -> Iterator[None]:
    """Within: the current document is (``named``) or is not a file a release names."""
    token = _BY_RELEASE.set(named)
    try:
        yield
    finally:
        _BY_RELEASE.reset(token)


def place(data: Any, values_for: str | None = None) -> list[Placed]:
    """What a non-resource document is (possibly several charts in an umbrella's values),
    or, in a GitOps object (a Flux HelmRelease, an Argo CD Application...), where the values
    of a chart gpulint knows sit inline (``model/values/releases.py``)."""
    inline = [Placed(chart, at) for chart, at in releases.chart_values(data) if chart in CHARTS]
    if inline or not isinstance(data, dict) or is_resource(data):
        return inline
    if _BY_RELEASE.get() and values_for not in CHARTS:
        return _umbrella(data)  # its own keys are the release's: judged there
    if is_plugin_config(data):
        return [Placed(PLUGIN_CONFIG, ())]
    if values_for in CHARTS:
        return [Placed(values_for, ())]
    if _is_operator_values(data):
        return [Placed(OPERATOR_CHART, ())]
    if _is_device_plugin_values(data):
        return [Placed(DEVICE_PLUGIN_CHART, ())]
    return _umbrella(data)


def _umbrella(data: dict) -> list[Placed]:
    """An umbrella chart's values: each subchart's values under its name."""
    return [Placed(chart, (chart,)) for chart in CHARTS if isinstance(data.get(chart), dict)]


def explain(message: str, why: str) -> str:
    """``unknown key 'x'; did you mean 'y'?`` + why -> the why before the did-you-mean."""
    head, sep, hint = message.partition("; did you mean")
    return f"{head}: {why}{sep}{hint}"


def values_for(settings: Settings) -> str | None:
    chosen = settings.values_for
    return chosen if chosen in CHARTS else None
