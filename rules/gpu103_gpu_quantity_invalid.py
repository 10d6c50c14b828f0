"""
## What it checks
A GPU quantity under `resources.requests` or `resources.limits` that is not a
whole, non-negative number: `0.5`, `500m`, `1.5`, an empty string, `"two"`,
`"1\t"`, or a negative count; and an empty value (null), which the API server
reads as 0, so the container gets no GPU. A value that still holds a template placeholder
(`${GPUS}` in a file envsubst fills in) is left to the rendered output.

## Why it matters
Extended resources are integers. The API server rejects the pod with
`must be an integer` (or `must be greater than or equal to 0`); a value that is
not a quantity at all fails to decode. GPUs cannot be split this way: sharing
goes through MIG profiles, time-slicing or MPS resources, or DRA.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: notebook-half-gpu
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 0.5  # <- GPU103
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: notebook-mig-slice
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/mig-1g.10gb: 1
```

## How to fix
Request a whole number of GPUs. For a fraction of a GPU, request a MIG profile
(`nvidia.com/mig-1g.10gb: 1`) or a shared GPU from a time-slicing or MPS
configuration.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values.gpu_resources import gpu_entries
from gpulint.model.values.placeholders import is_placeholder
from gpulint.model.values.quantity import (
    QuantityError,
    decodes_to_zero,
    format_quantity,
    parse_quantity,
)
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU103",
    "gpu-quantity-invalid",
    Severity.ERROR,
    "A GPU quantity is not a whole non-negative number.",
    __doc__,
    pods_only=True,
)


def problem(value: object) -> str | None:
    """Why a GPU quantity is invalid, in the API server's words, or None."""
    if is_placeholder(value):
        return None  # a template's `${GPUS}`: the rendered value is what counts
    if decodes_to_zero(value):
        return (
            "is empty (null), which the API server reads as 0: the container gets no GPU; "
            "write the count"
        )
    try:
        quantity = parse_quantity(value)
    except QuantityError as exc:
        return f"{exc}; GPU counts must be whole numbers"
    if quantity < 0:
        return f"{format_quantity(quantity)} must be greater than or equal to 0"
    if quantity.denominator != 1:
        return f"{format_quantity(quantity)} must be an integer"
    return None


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        for section in ("requests", "limits"):
            for name, value in gpu_entries(container.data, section).items():
                why = problem(value)
                if why is not None:
                    yield Report(
                        container.path + ("resources", section, name),
                        f"{name} {section[:-1]} {why}",
                        container=container.name,
                        at="value",
                    )
