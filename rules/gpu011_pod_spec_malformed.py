"""
## What it checks
A pod spec field that the API server decodes into a fixed Go type holds a value of
another shape: `resources.limits: 1` where a mapping of quantities belongs,
`containers: web` where a list belongs, `env` as a mapping, `command` as a single
string, a container list entry that is a string. Null is not reported (it decodes
to an empty value), nor is a template placeholder.

## Why it matters
The API server cannot decode the object and rejects it as a whole
(`cannot unmarshal number into Go struct field ResourceRequirements.limits of type
v1.ResourceList`), so nothing in it is applied. The other checks cannot read what
the field was meant to say.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      command: python train.py  # <- GPU011
      resources:
        requests:
          nvidia.com/gpu: 1
        limits: 1  # <- GPU011
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      command: [python, train.py]
      resources:
        requests:
          nvidia.com/gpu: 1
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Give the field the shape the Kubernetes API defines: a mapping of resource names to
quantities under `requests` and `limits`, lists under `containers`, `env`,
`tolerations` and `volumes`, a list of strings for `command` and `args`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.values import shapes
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU011",
    "pod-spec-malformed",
    Severity.ERROR,
    "A pod spec field has the wrong shape (a scalar for a mapping or list); the API server "
    "rejects the object.",
    __doc__,
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        yield from _reports(pod.path, shapes.problems(pod.spec, shapes.POD_SPEC))
        metadata: Any = pod.metadata_path and _at(resource.obj, pod.metadata_path)
        if isinstance(metadata, dict):
            yield from _reports(pod.metadata_path or (), shapes.problems(metadata, shapes.METADATA))


def _at(obj: Any, path: tuple) -> Any:
    for part in path:
        try:
            obj = obj[part]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def _reports(prefix: tuple, found: Iterator[shapes.Problem]) -> Iterator[Report]:
    for problem in found:
        yield Report(prefix + problem.path, problem.message, at="value")
