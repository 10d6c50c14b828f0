"""
## What it checks
A suppression comment whose expiry date has passed:
`# gpulint: disable=GPU101 until=2024-01-31 <reason>`. From the day after that
date the suppression no longer applies, the findings it silenced are reported
again, and this note points at the comment.

## Why it matters
Temporary exceptions ("until the migration is done") become permanent unless
something reminds the team; the expiry makes the reminder automatic.

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
        requests:
          # gpulint: disable=GPU101 until=2024-01-31 until the migration  # <- GPU003
          nvidia.com/gpu: 1
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
Fix the finding and delete the comment, or, if the exception still holds, set a
new date and say why in the reason.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

from gpulint.rules.api import Context, Directive, Report, Rule, Severity, mentions

rule = Rule(
    "GPU003",
    "suppression-expired",
    Severity.NOTE,
    "A suppression comment's until= date has passed; its findings are reported again.",
    __doc__,
    reads=mentions("gpulint"),  # a directive: a `# gpulint:` comment
)


@rule.directive_check
def check(directives: list[Directive], ctx: Context, today: datetime.date) -> Iterator[Report]:
    for d in directives:
        if d.quiet or d.until is None or not d.expired(today):
            continue
        yield Report.placed(
            d.anchor,
            f"{d.describe()} expired on {d.until.isoformat()}; "
            "the findings it silenced are reported again",
        )
