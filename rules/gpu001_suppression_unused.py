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

import datetime
from collections.abc import Iterator

from gpulint.rules.api import Context, Directive, Report, Rule, Severity, mentions

rule = Rule(
    "GPU001",
    "suppression-unused",
    Severity.NOTE,
    "A suppression comment or annotation silences no finding.",
    __doc__,
    reads=mentions("gpulint"),  # a `# gpulint:` comment, a gpulint.io annotation
)


@rule.directive_check
def check(directives: list[Directive], ctx: Context, today: datetime.date) -> Iterator[Report]:
    ran = {r.code for r in ctx.rules} | {r.name for r in ctx.rules}
    for d in directives:
        if d.quiet or d.expired(today):
            continue  # an expired one is GPU003's
        if d.reason is None and ctx.settings.require_reason:
            continue  # ignored, and GPU002 says so
        for selector in d.selectors:
            if selector not in d.used:
                yield Report.placed(d.anchor, f"{d.describe()}: {_why_unused(selector, ran, ctx)}")


def _why_unused(selector: str, ran: set[str], ctx: Context) -> str:
    if selector == Directive.ALL:
        return "it silences nothing here (unused suppression)"
    if selector.upper() in ran or selector in ran:
        return f"{selector} reports nothing here (unused suppression)"
    # The run's registry (custom rules of the config file included), not only the built-ins.
    if ctx.knows(selector):
        return f"{selector} did not run (not selected), so it silences nothing"
    return f"there is no rule {selector!r} (unused suppression)"
