"""
## What it checks
A mapping that gives the same key more than once, in any document: a manifest,
a `kind: List`, a Helm values file. The finding points at the last occurrence
(the one that takes effect) and names every line the key appears on.

## Why it matters
YAML readers keep one value and drop the others without a word. The API server
rejects the object with a `duplicate field` error when the client asks for
strict field validation (`kubectl --validate=strict`); with `Warn` or `Ignore`
it keeps only the last value. So the GPU limit a reviewer reads on the first
line may not be the one the cluster schedules, and the same file can apply with
one client and fail with another.

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
          nvidia.com/gpu: 4
          nvidia.com/gpu: 4  # <- GPU010
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
          nvidia.com/gpu: 4
```

## How to fix
Keep one occurrence of the key with the value you mean, and delete the others.
When the repeats come from merging two snippets, merge their contents under the
single key instead. When every occurrence holds the same value, `gpulint check
--fix` deletes the repeats (a safe fix: the object means the same); when they
differ, only you know which one is meant.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.kinds.table import get
from gpulint.rules.api import Context, Document, FixSafety, Report, Rule, Severity
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU010",
    "duplicate-key",
    Severity.ERROR,
    "A mapping repeats a key; only the last value is applied, or the object is rejected.",
    __doc__,
    fix=FixSafety.SAFE,
)


@rule.document_check
def check(doc: Document, ctx: Context) -> Iterator[Report]:
    # The parser records each repeat; group them so a key given 3 times is one finding.
    lines: dict[tuple, list[int]] = {}
    for dup in doc.duplicates:
        found = lines.setdefault((dup.path, dup.key), [dup.first_line])
        found.append(dup.line)
    for (path, key), where in lines.items():
        kept = get(doc.data, path + (key,))
        shown = f"; the value kept is {kept!r}" if isinstance(kept, str | int | float) else ""
        distinct = sorted(set(where))
        place = (
            f"on line {distinct[0]}"
            if len(distinct) == 1
            else f"on lines {', '.join(map(str, distinct))}"
        )
        yield Report(
            path + (key,),
            f"key {key!r} appears {len(where)} times in this mapping, {place}{shown}; with "
            "strict field validation the API server rejects the object (duplicate field), "
            "otherwise it keeps only the last value",
            fix=builders.drop_equal_repeats(doc, path, key),
        )
