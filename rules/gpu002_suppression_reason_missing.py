"""
## What it checks
A suppression without a reason: a `# gpulint: disable=...` comment with nothing
after the rules (and the optional `until=`), or an annotation
`ignore-check.gpulint.io/<rule>` / `gpulint.io/ignore-all` whose value is empty.
The suppression still works; with `--require-reason` (or `require-reason: true`
in the config file) this is an error and the suppression is ignored.

## Why it matters
A silenced finding is a decision someone took; without the reason, a reviewer
cannot tell an accepted risk from a silenced bug. The reason is kept in SARIF
as the suppression's justification.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
  annotations:
    ignore-check.gpulint.io/gpu-node-selection-missing: ""  # <- GPU002
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1  # gpulint: disable=GPU101  # <- GPU002
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
  annotations:
    ignore-check.gpulint.io/gpu-node-selection-missing: "single-model GPU pool"
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1  # gpulint: disable=GPU101 our admission webhook adds the limit
```

## How to fix
Write why the finding is accepted after the rules:
`# gpulint: disable=GPU101 webhook adds the limit (PLAT-123)`, or as the
annotation's value.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

from gpulint.rules.api import Context, Directive, Report, Rule, Severity, mentions

rule = Rule(
    "GPU002",
    "suppression-reason-missing",
    Severity.NOTE,
    "A suppression gives no reason for accepting the finding.",
    __doc__,
    reads=mentions("gpulint"),  # a `# gpulint:` comment, a gpulint.io annotation
)


@rule.directive_check
def check(directives: list[Directive], ctx: Context, today: datetime.date) -> Iterator[Report]:
    for d in directives:
        if d.quiet or d.reason is not None or d.expired(today):
            continue
        if ctx.settings.require_reason:
            message = f"{d.describe()} has no reason and --require-reason is set; it is ignored"
            # Always an error then: the suppression it asked for does not apply.
            yield Report.placed(d.anchor, message, severity=Severity.ERROR, final=True)
        else:
            yield Report.placed(
                d.anchor, f"{d.describe()} has no reason; say why the finding is accepted"
            )
