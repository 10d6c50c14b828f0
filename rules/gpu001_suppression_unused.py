"""
## What it checks
A suppression that silences nothing: a `# gpulint: disable=...` comment, or an
`ignore-check.gpulint.io/<rule>` / `gpulint.io/ignore-all` annotation, naming a
rule that reports nothing where the suppression applies (or a rule that did not
run, or no rule at all).

## Why it matters
Stale suppressions hide the next real problem on that line or object, and an
audit of "what do we accept and why" is only useful if every entry still
accepts something.

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
          nvidia.com/gpu: 1  # gpulint: disable=GPU101 limit was missing once  # <- GPU001
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
```

## How to fix
Delete the suppression, or move it to the line (or the line above) that the
finding is reported on; annotations apply to their object or pod template.
"""

from __future__ import annotations

from gpulint.findings import Severity
from gpulint.rules.registry import Rule

# Reported by gpulint/suppress.py once all files are read; the rule holds no check.
rule = Rule(
    "GPU001",
    "suppression-unused",
    Severity.NOTE,
    "A suppression comment or annotation silences no finding.",
    __doc__,
)
