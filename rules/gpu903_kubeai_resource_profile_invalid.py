"""
## What it checks
A KubeAI `Model` (`kubeai.org`) whose `spec.resourceProfile` is not of the form
`<profile>:<count>` with a whole number as the count (`nvidia-gpu-l4` without `:1`,
`nvidia-gpu-l4:two`, `a:b:1`).

Whether the named profile exists is not judged: the KubeAI chart's own default profiles
(`charts/kubeai/values.yaml`, a different set in each release) merge under the values a
repository holds, so a profile the run's values do not define may still be defined.

## Why it matters
The API server accepts any string there (the CRD has no pattern for it), but KubeAI's model
controller splits it on `:` and parses the count (substratusai/kubeai
internal/modelcontroller/model_controller.go `applyResourceProfile`): anything else fails
with `invalid resource profile: "nvidia-gpu-l4", should match <name>:<multiple>` (or
`invalid multiple in resource profile multiple`) on every reconcile, and the Model never gets
a pod, so the GPUs it was meant to use stay idle and requests to it fail.

## Failing example
```yaml
apiVersion: kubeai.org/v1
kind: Model
metadata:
  name: llama-3.1-8b
spec:
  features: [TextGeneration]
  url: hf://meta-llama/Meta-Llama-3.1-8B-Instruct
  engine: VLLM
  resourceProfile: nvidia-gpu-l4  # <- GPU903
```

## Passing example
```yaml
apiVersion: kubeai.org/v1
kind: Model
metadata:
  name: llama-3.1-8b
spec:
  features: [TextGeneration]
  url: hf://meta-llama/Meta-Llama-3.1-8B-Instruct
  engine: VLLM
  resourceProfile: nvidia-gpu-l4:1
```

## How to fix
Write the profile name, a colon and how many units of the profile each model server pod gets
(`nvidia-gpu-l4:2` for two L4 GPUs when the profile holds one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpulint.model.kinds.table import api_group
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU903",
    "kubeai-resource-profile-invalid",
    Severity.ERROR,
    "A KubeAI Model's resourceProfile is not <profile>:<count>; KubeAI never starts it.",
    __doc__,
    reads=mentions("kubeai.org"),  # a KubeAI object's API group
)

# strings.Split(profile, ":") must give two parts; strconv.Atoi the second (a sign allowed).
_FORM = re.compile(r"[^:]*:[+-]?[0-9]+")


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind != "Model" or api_group(resource.api_version) != "kubeai.org":
        return
    spec = resource.obj.get("spec")
    value = spec.get("resourceProfile") if isinstance(spec, dict) else None
    if not isinstance(value, str) or not value or is_placeholder(value):
        return  # empty: KubeAI applies no profile (the field is optional)
    if _FORM.fullmatch(value):
        return
    parts = value.split(":")
    if len(parts) != 2:
        error = f'invalid resource profile: "{value}", should match <name>:<multiple>'
    else:
        error = f'invalid multiple in resource profile multiple: "{parts[1]}"'
    yield Report(
        ("spec", "resourceProfile"),
        f"resourceProfile {value!r} is not <profile>:<count>: KubeAI's model controller fails "
        f'with "{error}" and never starts the Model\'s pods',
        at="value",
    )
