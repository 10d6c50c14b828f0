"""
## What it checks
The device plugin's config file (`version: v1`, `flags`, `sharing`), standalone,
in a ConfigMap, or in the chart's `config.map` (and the GPU Operator chart's
`devicePlugin.config.data`): a `version` other than `v1`; unknown keys; values
of the wrong type; sharing `resources` without a name or `replicas`, or with
`replicas` below 2; time-slicing and MPS together; `migStrategy: mixed` with
MPS (also when the chart's `migStrategy` or the operator's `mig.strategy` is
`mixed` and one of its configs uses MPS); and the fields the plugin ignores
with a warning (`rename`, `devices` other than `all`, the top-level
`resources`). A config inside a string is
reported at its entry, with the path inside it in the message. An unknown key
inside a section the plugin rejects (`replicas` beside `resources` instead of in
an entry) is named in that error, not reported again: one mistake, one finding.

A value that is still a placeholder (`${REPLICAS:=4}`, `$VAR`: filled in by Flux's
`postBuild` substitution or envsubst before it is applied) is left to whoever fills it
in: its type or choices are not known yet.

## Why it matters
The plugin decodes the file leniently: an unknown or misspelt key (`replica`,
`timeslicing` under the wrong parent) is dropped without a word, so the GPUs
are simply not shared. A wrong type or version, `replicas: 1`, or `mixed` with
MPS stop the plugin at start ("number of replicas must be >= 2", "using
--mig-strategy=mixed is not supported with MPS"), and the node advertises no
GPUs. Those are errors; a key or field the plugin goes without (it starts, and
does not do what the file asks) is a warning.

## Failing example
```yaml
# file: config.yaml
version: v1
sharing:
  timeSlicing:
    renameByDefault: true
    resources:
      - name: nvidia.com/gpu
        replicas: 1  # <- GPU404
        rename: gpu-shared  # <- GPU404
    failRequestGreaterThanOne: true  # <- GPU404
```

## Passing example
```yaml
# file: config.yaml
version: v1
sharing:
  timeSlicing:
    renameByDefault: true
    failRequestsGreaterThanOne: true
    resources:
      - name: nvidia.com/gpu
        replicas: 4
```

## How to fix
Keep `version: v1`, fix the keys the did-you-mean names, set `replicas` to 2 or
more, use `renameByDefault: true` instead of `rename`, and pick one sharing
strategy (MPS does not work with `mixed`).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import configs, operator, plugin_config, recognise, values
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU404",
    "device-plugin-config-invalid",
    Severity.ERROR,
    "The device plugin config file is invalid, or has settings the plugin ignores.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


def _reports(config: configs.FoundConfig) -> Iterator[Report]:
    for problem in plugin_config.problems(config.data):
        # A setting the plugin goes without: it runs, misconfigured (a warning).
        severity = Severity.WARNING if problem.ignored else None
        if config.embedded:
            inner = ".".join(str(p) for p in problem.path)
            message = f"{config.label}, at {inner}: {problem.message}"
            yield Report(config.path, message, severity=severity)
        else:
            path = config.path + problem.path
            yield Report(path, problem.message, at=problem.at, severity=severity)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for config in configs.resource_configs(resource):
        yield from _reports(config)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    placed = recognise.place(doc.data, recognise.values_for(ctx.settings))
    for config in configs.document_configs(doc.data, placed):
        yield from _reports(config)
    for where in placed:
        yield from _mixed_env_with_mps(doc.data, where)


def _mixed_env_with_mps(data: object, where: recognise.Placed) -> Iterator[Report]:
    """The chart's strategy reaches the plugin as MIG_STRATEGY, which beats the config file."""
    values_data = configs.at_path(data, where.prefix)
    if not isinstance(values_data, dict):
        return
    if where.kind == recognise.DEVICE_PLUGIN_CHART:
        strategy, name = values.mig_strategy(values_data), "migStrategy"
    elif where.kind == recognise.OPERATOR_CHART:
        strategy, name = operator.values_view(values_data).mig_strategy(), "mig.strategy"
    else:
        return
    if strategy is None or strategy[1] != "mixed":
        return
    for config in configs.document_configs(data, [where]):
        if plugin_config.uses_mps(config.data):
            yield Report(
                config.path,
                f"{config.label} shares GPUs with MPS while the chart sets {name}: mixed; the "
                'plugin refuses to start ("using --mig-strategy=mixed is not supported with '
                'MPS")',
            )
