"""
## What it checks
A resource name under `resources.requests` or `resources.limits` that is meant to
be a GPU but is not one: a name the API server rejects because it is not a
qualified name (`"nvidia.com/gpu "` with a trailing space, `" nvidia.com/gpu"`,
`NVIDIA.com/gpu`, a Cyrillic `с` in `nvidia.сom/gpu`), or a valid name one
character or a case away from a GPU resource (`nvidia.com/gpus`,
`nvidia.com/GPU`). Each comes with the name it most likely meant.

## Why it matters
The API server validates every resource name with `IsQualifiedName` and rejects
the pod: `Invalid value: "nvidia.com/gpu ": name part must consist of
alphanumeric characters...`. A valid name that no device plugin advertises is
accepted, requests nothing the nodes offer, and the pod stays Pending forever
(`Insufficient nvidia.com/gpus`); no GPU rule sees it as a GPU either.

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
      resources:
        limits:
          "nvidia.com/gpu ": 1  # <- GPU109
          nvidia.com/gpus: 1  # <- GPU109
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
      resources:
        limits:
          nvidia.com/gpu: 1
          nvidia.com/gpumem: 4000
```

## How to fix
Write the resource name exactly as the device plugin advertises it
(`nvidia.com/gpu`, `amd.com/gpu`, `gpu.intel.com/i915`): lower case, no spaces,
Latin letters only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from gpulint.model.gpu.resource_names import meant_gpu, qualified_name_problem
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, quoted

rule = Rule(
    "GPU109",
    "gpu-resource-name-invalid",
    Severity.ERROR,
    "A GPU resource name is mistyped: not a qualified name (rejected) or not one any "
    "device plugin offers (Pending).",
    __doc__,
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        resources = container.data.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in ("requests", "limits"):
            entries = resources.get(section)
            if not isinstance(entries, dict):
                continue
            for key in entries:
                message = _problem(str(key))
                if message is not None:
                    yield Report(
                        container.path + ("resources", section, key),
                        message,
                        container=container.name,
                    )


@functools.lru_cache(maxsize=1024)  # a pure function of the name; most names recur
def _problem(name: str) -> str | None:
    meant = meant_gpu(name)
    invalid = qualified_name_problem(name)
    if invalid is not None:
        hint = f"; did you mean '{meant}'?" if meant else ""
        foreign = [c for c in name if ord(c) > 127]
        if foreign:  # a look-alike letter: say which, it cannot be seen
            hint += f" (it holds {foreign[0]!r}, U+{ord(foreign[0]):04X}, not a Latin letter)"
        return (
            f"resource name {quoted(name)} is not a qualified name; the API server rejects "
            f'the pod: "Invalid value: {quoted(name)}: {invalid}"{hint}'
        )
    if meant is None:
        return None
    return (
        f"{quoted(name)} is not a resource any GPU device plugin advertises: no node offers "
        f"it and the pod stays Pending (\"Insufficient {name}\"); did you mean '{meant}'?"
    )
