"""
## What it checks
Across every file of one `gpulint check` run: the device plugin versions that
the linted inputs deploy (a `k8s-device-plugin` image tag in a DaemonSet, the
chart's `image.tag`, the GPU Operator's `devicePlugin.version` in values or a
`ClusterPolicy`). When they differ, each deployment that differs from the most
common version is reported, naming the others. Base-image suffixes are ignored
(`v0.16.2-ubi8` is `v0.16.2`).

## Why it matters
Two device plugin releases in one fleet advertise resources, labels and health
differently (new MIG profiles, sharing behaviour, CDI), so the same pod
schedules on one node group and not on another. It usually means one
environment's manifests were upgraded and another's were forgotten.

## Failing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-legacy
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin-legacy}
  template:
    metadata:
      labels: {name: nvidia-device-plugin-legacy}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.14.5  # <- GPU407
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-b
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin-b}
  template:
    metadata:
      labels: {name: nvidia-device-plugin-b}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4-ubi9
```

## Passing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
---
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: gpu-cluster-policy
spec:
  devicePlugin:
    repository: nvcr.io/nvidia
    image: k8s-device-plugin
    version: v0.17.4-ubi9
```

## How to fix
Deploy one device plugin release everywhere: upgrade the stragglers (or, if the
difference is deliberate, e.g. a canary, suppress the finding with a reason).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from gpulint.model.nvidia import recognise
from gpulint.rules import facts
from gpulint.rules.api import Context, Report, Rule, Severity, mentions

rule = Rule(
    "GPU407",
    "device-plugin-version-drift",
    Severity.WARNING,
    "The linted files deploy different device plugin versions.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


@facts.collected_by(rule)
def _pick(found: facts.DocFacts) -> list:
    return list(found.versions)


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    counts = Counter(f.version for f in found)
    if len(counts) < 2:
        return
    # The most common version is the reference; ties go to the newest.
    reference = max(counts, key=lambda v: (counts[v], _key(v)))
    first: dict[str, facts.VersionFact] = {}
    for fact in sorted(found, key=lambda f: (f.anchor.location.file, f.anchor.location.line)):
        first.setdefault(fact.version, fact)
    ordered = sorted(counts, key=_key)  # once, not once per fact
    for fact in found:
        if fact.version == reference:
            continue
        versions = [v for v in ordered if v != fact.version]
        related = [
            (first[v].anchor, f"{first[v].label} deploys device plugin {v}") for v in versions
        ]
        yield Report.placed(
            fact.anchor,
            f"{fact.label} deploys device plugin {fact.version}, while other linted files "
            f"deploy {', '.join(versions)}; nodes would advertise GPUs differently",
            related,
        )


def _key(version: str) -> tuple:
    parts = version.lstrip("v").split("-", 1)[0].split(".")
    return tuple(int(p) if p.isdigit() else 0 for p in parts)
