"""The GPU Operator: its ``ClusterPolicy`` (``nvidia.com/v1``) and its Helm chart values.

Both hold the same component blocks (``devicePlugin``, ``gfd``, ``mig``); the
chart's values feed the ClusterPolicy it renders. The chart defaults
``mig.strategy`` to ``single``; a ClusterPolicy without it leaves the choice to
the operator. Source: NVIDIA/gpu-operator (see gpulint's catalog).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpulint import catalog
from gpulint.core.record import record
from gpulint.model.nvidia import recognise
from gpulint.model.resource import Resource
from gpulint.model.values import placeholders

if TYPE_CHECKING:
    from gpulint.validate import schema as schema_check

API_VERSION = "nvidia.com/v1"
KIND = "ClusterPolicy"
VALUES_SCHEMA = "gpu-operator-values.schema.json"


@record(frozen=True)
class OperatorView:
    """The component blocks, wherever they sit (``spec`` of a ClusterPolicy, or values)."""

    root: dict
    prefix: tuple  # path of ``root`` relative to what rules report against
    is_values: bool

    def _block(self, name: str) -> dict:
        block = self.root.get(name)
        return block if isinstance(block, dict) else {}

    def field(self, block: str, key: str) -> tuple[tuple, Any] | None:
        found = self._block(block)
        if key not in found:
            return None
        return self.prefix + (block, key), found[key]

    def mig_strategy(self) -> tuple[tuple, Any] | None:
        return self.field("mig", "strategy")

    def effective_mig_strategy(self) -> str | None:
        """The strategy the operator gives the plugin; None when this input does not say."""
        found = self.mig_strategy()
        if found is not None:
            return found[1] if isinstance(found[1], str) else None
        if not self.is_values:
            return None
        return str(catalog.gpu_operator()["helm_chart"]["defaults"]["mig.strategy"])

    def plugin_enabled(self) -> bool:
        return self._block("devicePlugin").get("enabled", True) is not False

    def config_entries(self) -> list[tuple[tuple, str, str]]:
        """(path, name, text) of configs the chart builds (``devicePlugin.config.data``)."""
        config = self._block("devicePlugin").get("config")
        if not isinstance(config, dict) or config.get("create") is not True:
            return []  # the chart builds the ConfigMap from data only with create: true
        data = config.get("data")
        if not isinstance(data, dict):
            return []
        base = self.prefix + ("devicePlugin", "config", "data")
        return [(base + (k,), str(k), v) for k, v in data.items() if isinstance(v, str)]

    def external_config(self) -> bool:
        config = self._block("devicePlugin").get("config")
        return isinstance(config, dict) and bool(config.get("name")) and not config.get("data")


def is_cluster_policy(resource: Resource) -> bool:
    return resource.kind == KIND and resource.api_version == API_VERSION


def cluster_policy(resource: Resource) -> OperatorView | None:
    if not is_cluster_policy(resource):
        return None
    spec = resource.obj.get("spec")
    return OperatorView(spec if isinstance(spec, dict) else {}, ("spec",), False)


def values_view(values: dict, prefix: tuple = ()) -> OperatorView:
    return OperatorView(values, prefix, True)


def values_problems(values: dict) -> list[schema_check.SchemaProblem]:
    """Keys the gpu-operator chart never reads (top level, devicePlugin, gfd, mig), wrong types."""
    # Only for the operator's values (LAZY in tests/project/test_import_contract.py).
    from gpulint.validate import schema as schema_check

    found = []
    for problem in schema_check.check(values, VALUES_SCHEMA, unfilled=placeholders.is_placeholder):
        if problem.message.startswith("unknown key"):
            why = "the gpu-operator chart never reads it (Helm ignores it)"
            message = recognise.explain(problem.message, why)
        else:
            message = f"{'.'.join(map(str, problem.path))}: {problem.message}"
        found.append(schema_check.SchemaProblem(problem.path, message, problem.at))
    return found
