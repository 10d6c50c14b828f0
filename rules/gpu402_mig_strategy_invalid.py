"""
## What it checks
A MIG strategy other than `none`, `single` or `mixed`, wherever one is set:
the device plugin chart's `migStrategy`, the plugin config file's
`flags.migStrategy` (standalone, in a ConfigMap, or in the chart's
`config.map`), a container's `MIG_STRATEGY` env var or `--mig-strategy`
argument, the GPU Operator's `mig.strategy` (values or `ClusterPolicy`).
The comparison is exact: `Mixed` is not `mixed`.

## Why it matters
Neither the chart nor the API server checks the value. The plugin validates its
flags at start and exits with `unknown MIG strategy: <value>`, so the
DaemonSet pod crash-loops and the node advertises no GPUs at all (GPU feature
discovery fails the same way: `unknown strategy: <value>`).

## Failing example
```yaml
# file: values.yaml
migStrategy: mixd  # <- GPU402
image:
  tag: v0.17.4
```

## Passing example
```yaml
# file: values.yaml
migStrategy: mixed
image:
  tag: v0.17.4
```

## How to fix
Use one of `none` (the default: MIG devices are not advertised), `single`
(every GPU of a node is split the same way; MIG devices are advertised as
`nvidia.com/gpu`) or `mixed` (one resource per profile,
`nvidia.com/mig-<profile>`). When exactly one valid strategy is close to the
value (`mixd`, `Mixed`), `gpulint check --fix` writes it (a safe fix: any other
value crash-loops the plugin); a strategy inside an embedded config string is
fixed by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.nvidia import configs, containers, operator, plugin_config, recognise, values
from gpulint.rules.api import (
    Context,
    Document,
    FixSafety,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
)
from gpulint.rules.fixes import builders
from gpulint.validate.schema import did_you_mean

rule = Rule(
    "GPU402",
    "mig-strategy-invalid",
    Severity.ERROR,
    "A MIG strategy other than none, single or mixed; the device plugin crash-loops.",
    __doc__,
    fix=FixSafety.SAFE,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


def _bad(value: Any) -> bool:
    # Other types are GPU403's and GPU404's (the chart drops them, the config fails to parse).
    return isinstance(value, str) and value not in plugin_config.valid_mig_strategies()


def _fix(found: tuple[tuple, Any]) -> builders.Fix | None:
    path, value = found
    match = builders.only_candidate(value, plugin_config.valid_mig_strategies())
    return builders.replace_word(f"write migStrategy {match!r}", path, value, match)


def _message(where: str, value: Any) -> str:
    hint = did_you_mean(str(value), plugin_config.valid_mig_strategies())
    return (
        f"{where} {value!r} is not one of none, single, mixed; the device plugin exits "
        f'with "unknown MIG strategy: {value}" and crash-loops{hint}'
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    view = operator.cluster_policy(resource)
    if view is not None:
        found = view.mig_strategy()
        if found is not None and _bad(found[1]):
            yield Report(found[0], _message("mig.strategy", found[1]), at="value", fix=_fix(found))
        return
    for config in configs.resource_configs(resource):
        yield from _config(config)
    for container in resource.containers:
        for site in containers.strategy_sites(container):
            if _bad(site.value):
                yield Report(
                    site.path,
                    _message(site.how, site.value),
                    container=container.name,
                    at=site.at,
                    fix=_fix((site.path, site.value)),
                )


@rule.document_check
def check_values(doc: Document, ctx: Context) -> Iterator[Report]:
    placed = recognise.place(doc.data, recognise.values_for(ctx.settings))
    for where in placed:
        data = configs.at_path(doc.data, where.prefix)
        if not isinstance(data, dict):
            continue
        found = None
        if where.kind == recognise.DEVICE_PLUGIN_CHART:
            found = values.mig_strategy(data)
            name = "migStrategy"
        elif where.kind == recognise.OPERATOR_CHART:
            found = operator.values_view(data).mig_strategy()
            name = "mig.strategy"
        if found is not None and _bad(found[1]):
            path = where.prefix + found[0]
            yield Report(path, _message(name, found[1]), at="value", fix=_fix((path, found[1])))
    for config in configs.document_configs(doc.data, placed):
        yield from _config(config)


def _config(config: configs.FoundConfig) -> Iterator[Report]:
    found = plugin_config.mig_strategy(config.data)
    if found is None or not _bad(found[1]):
        return
    if config.embedded:
        yield Report(config.path, f"{config.label}: " + _message("flags.migStrategy", found[1]))
    else:
        path = config.path + found[0]
        yield Report(
            path, _message("flags.migStrategy", found[1]), at="value", fix=_fix((path, found[1]))
        )
