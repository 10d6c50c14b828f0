"""
## What it checks
An `aliyun.com/gpu-mem` request or limit (Alibaba Cloud's GPU sharing, the
gpushare device plugin and scheduler extender) of 1024 or more while the
plugin counts GiB, its default: a MiB figure (`16276`, `8192`) written where
GiB are counted. No GPU has a TiB of memory, so a count of 1024 or more can
only be MiB. The option `memory-unit: MiB` says the plugin runs with
`--memory-unit=MiB`, and nothing is reported.

## Why it matters
The gpushare device plugin advertises each node's GPU memory as
`aliyun.com/gpu-mem` in the unit of its `--memory-unit` flag, `GiB` unless set
(AliyunContainerService/gpushare-device-plugin, `cmd/nvidia/main.go`:
`flag.String("memory-unit", "GiB", ...)`), and the scheduler extender places a
pod's whole request on one GPU. A request of 16276 GiB fits no GPU of any
node: the pod stays `Pending` forever with `Insufficient aliyun.com/gpu-mem`.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: share
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          aliyun.com/gpu-mem: 16276  # <- GPU110
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: share
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          aliyun.com/gpu-mem: 16
```

## How to fix
Write the memory in GiB (`16276` MiB is about 15.9 GiB: `15` fits the GPU),
or, if the device plugin runs with `--memory-unit=MiB`, say so with
the rule's option `memory-unit: MiB` in `.gpulint.yaml`. There is no automatic
fix: which of the two was meant is the author's to say.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values.gpu_resources import as_fraction
from gpulint.rules.api import Context, Option, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU110",
    "gpu-share-memory-unit",
    Severity.WARNING,
    "An aliyun.com/gpu-mem figure in MiB where the gpushare plugin counts GiB: no GPU fits it.",
    __doc__,
    options=(
        Option(
            "memory-unit",
            str,
            "GiB",
            "The unit the gpushare device plugin counts in (its --memory-unit flag).",
            {"enum": ["GiB", "MiB"]},
        ),
    ),
    reads=mentions("aliyun.com/gpu-mem"),
)

GPU_MEM = "aliyun.com/gpu-mem"
# No GPU has 1 TiB of memory: in GiB, a count from here on is a MiB figure.
IMPOSSIBLE_GIB = 1024


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if ctx.option(rule, "memory-unit") != "GiB":
        return
    for container in resource.containers:
        resources = container.data.get("resources")
        if not isinstance(resources, dict):
            continue
        for section in ("limits", "requests"):
            entries = resources.get(section)
            value = entries.get(GPU_MEM) if isinstance(entries, dict) else None
            count = _count(value)
            if count is None or count < IMPOSSIBLE_GIB:
                continue
            yield Report(
                container.path + ("resources", section, GPU_MEM),
                f"{GPU_MEM}: {value} asks for {count} GiB of one GPU's memory (gpushare counts "
                f"GiB unless its device plugin runs with --memory-unit=MiB): no GPU fits it and "
                f"the pod stays Pending; read as MiB it is {count // 1024} GiB (rounded down)",
                container=container.name,
                at="value",
            )
            break  # one root cause, one finding: the limit, else the request


def _count(value: object) -> int | None:
    quantity = None if isinstance(value, bool) else as_fraction(value)
    return int(quantity) if quantity is not None and quantity == int(quantity) else None
