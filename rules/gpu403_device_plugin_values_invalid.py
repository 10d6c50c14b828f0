"""
## What it checks
Values of the NVIDIA device plugin Helm chart (`nvidia-device-plugin`),
recognised by content or named with `--values-for nvidia-device-plugin`,
against the keys and types its templates read: unknown keys (with a
did-you-mean), values of the wrong type, bad enum values, the top-level
`version` key the chart does not have, `gfd.noTimestamp`/`gfd.sleepInterval`
(declared but never read), and the values that make the chart fail to render
(`namespace`, `config.name` with `config.map`, several `config.map` entries
without a default). In the GPU Operator chart's values (`gpu-operator`): top-level
keys the chart does not have, and the keys and types of its `devicePlugin`,
`gfd`, `mig` and `validator` blocks (`devicePlugin.verison` is ignored just the
same; `validator.enabled` too: the validator always runs). A
top-level key that either chart's values.yaml declares inside a block is named with
its place: the operator's `manager:` is `driver.manager`, the plugin chart's `tag:` is
`image.tag`.

A value that is still a placeholder (`${REPLICAS:=4}`, `$VAR`: filled in by Flux's
`postBuild` substitution or envsubst before it is applied) is left to whoever fills it
in: its type or choices are not known yet. An unknown key whose value is null is left
alone: it is the same as leaving the key out, on every chart version (an older chart's
defaults, such as `legacyDaemonsetAPI: null`). A value of the operator's
`devicePlugin.config.data` that is not a string is an error: the chart writes that
map as a ConfigMap's `data`, which the API server rejects, so the release fails.

## Why it matters
The chart ships no `values.schema.json`, so Helm accepts anything and renders
only what the templates read. `version: v0.16.2` pins nothing: the image stays
at the chart's appVersion. Each plugin flag is passed only when its YAML type
matches (`typeIs "bool"`), so `failOnInitError: "false"` as a string is
dropped and the plugin keeps its default.

## Failing example
```yaml
# file: values.yaml
version: v0.16.2  # <- GPU403
failOnInitError: "false"  # <- GPU403
migStrategy: single
devicePlugin:
  enabeld: true  # <- GPU403
```

## Passing example
```yaml
# file: values.yaml
image:
  tag: v0.16.2
failOnInitError: false
migStrategy: single
devicePlugin:
  enabled: true
```

## How to fix
Pin the plugin with `image.tag` or with `helm install --version`; write
booleans unquoted; fix the key the did-you-mean names, and move a key it names with
a dotted path (`driver.manager`) into that block. Check a values file
gpulint cannot place by content with `--values-for nvidia-device-plugin`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import operator, recognise, values
from gpulint.model.values.paths import at_path
from gpulint.model.values.shapes import described, dotted, json_type
from gpulint.rules.api import Context, Document, Report, Rule, Severity, mentions
from gpulint.validate.schema import SchemaProblem

rule = Rule(
    "GPU403",
    "device-plugin-values-invalid",
    Severity.WARNING,
    "A device plugin chart value the chart never reads, or of the wrong type.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


@rule.document_check
def check(doc: Document, ctx: Context) -> Iterator[Report]:
    for where in recognise.place(doc.data, recognise.values_for(ctx.settings)):
        data = at_path(doc.data, where.prefix)
        if not isinstance(data, dict):
            continue
        problems: list[values.Problem] | list[SchemaProblem]
        if where.kind == recognise.DEVICE_PLUGIN_CHART:
            problems = values.problems(data)
        elif where.kind == recognise.OPERATOR_CHART:
            problems = operator.values_problems(data)
        else:
            continue
        for problem in problems:
            if problem.message.startswith("unknown key") and at_path(data, problem.path) is None:
                continue  # null: the same as leaving the key out, on every chart version
            if where.kind == recognise.OPERATOR_CHART and _written_into_configmap(problem.path):
                value = at_path(data, problem.path)
                yield Report(
                    where.prefix + problem.path,
                    f"{dotted(problem.path)} is {described(value)}, not a string: the chart "
                    "writes it into the ConfigMap's data, which the API server rejects "
                    f'("json: cannot unmarshal {json_type(value)} into Go struct field '
                    'ConfigMap.data of type string"), and the release fails to install; write '
                    "the config as a string (a |- block)",
                    at=problem.at,
                    severity=Severity.ERROR,
                )
                continue
            yield Report(where.prefix + problem.path, problem.message, at=problem.at)


def _written_into_configmap(path: tuple) -> bool:
    """A value of ``devicePlugin.config.data``: the operator chart renders that map as the
    data of the plugin's ConfigMap (deployments/gpu-operator/templates/plugin_config.yaml,
    ``data: {{ toYaml .Values.devicePlugin.config.data | nindent 2 }}``)."""
    return len(path) == 4 and path[:3] == ("devicePlugin", "config", "data")
