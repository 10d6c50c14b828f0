"""
## What it checks
A container that sets the same GPU resource under both `resources.requests` and
`resources.limits` with different values (compared as quantities, so `1` and
`"1"` are equal). A request or limit that is not a whole non-negative number is
GPU103's finding alone.

## Why it matters
Extended resources cannot be overcommitted, so the API server requires the
request to equal the limit and rejects the pod:
`must be equal to nvidia.com/gpu limit of 2`. Whoever wrote it expected one of
the two numbers; neither is scheduled.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
spec:
  selector:
    matchLabels: {app: serve}
  template:
    metadata:
      labels: {app: serve}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            requests:
              nvidia.com/gpu: 1  # <- GPU102
            limits:
              nvidia.com/gpu: 2
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
spec:
  selector:
    matchLabels: {app: serve}
  template:
    metadata:
      labels: {app: serve}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            requests:
              nvidia.com/gpu: 2
            limits:
              nvidia.com/gpu: 2
```

## How to fix
Decide how many GPUs the container needs and write that number in both places,
or drop the request and keep only the limit. `gpulint check --fix
--unsafe-fixes` sets the request to the limit (unsafe: the request may be the
number you meant).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values.gpu_resources import as_fraction, gpu_entries
from gpulint.model.values.quantity import Amount, format_quantity
from gpulint.rules.api import Context, FixSafety, Report, Resource, Rule, Severity
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU102",
    "gpu-request-limit-mismatch",
    Severity.ERROR,
    "A GPU request differs from its limit; the API server rejects the pod.",
    __doc__,
    fix=FixSafety.UNSAFE,
    pods_only=True,
)


def _whole(quantity: Amount) -> bool:
    return quantity >= 0 and quantity.denominator == 1


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        requests = gpu_entries(container.data, "requests")
        limits = gpu_entries(container.data, "limits")
        for name, requested in requests.items():
            if name not in limits:
                continue
            request, limit = as_fraction(requested), as_fraction(limits[name])
            if request is None or limit is None or request == limit:
                continue  # invalid quantities are GPU103's
            if not (_whole(request) and _whole(limit)):
                continue  # one root cause, one finding: GPU103 reports the fraction or the sign
            yield Report(
                container.path + ("resources", "requests", name),
                f"{name} request {format_quantity(request)} differs from its limit "
                f"{format_quantity(limit)}; the API server rejects the pod: "
                f'"must be equal to {name} limit of {format_quantity(limit)}"',
                container=container.name,
                fix=builders.request_from_limit(container.path, name),
            )
