"""
## What it checks
A container that requests more than one replica of a shared GPU: more than 1
of a `.shared` resource, more than 1 GPU on a pod that requires
`nvidia.com/gpu.sharing-strategy` or a `-SHARED` product, or more than 1 of a
resource that a sharing config in the same run replicates.

## Why it matters
Replicas of a time-sliced GPU are slots on the same device, not more devices:
two of them may well be the same GPU, so the pod gets no more compute or
memory, and code that expects two devices breaks. Where the config sets
`failRequestsGreaterThanOne: true` (the default for MPS), the kubelet rejects
the pod: `UnexpectedAdmissionError ... maximum request size for shared
resources is 1`.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu.shared: 2  # <- GPU602
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu.shared: 1
```

## How to fix
Request one replica of a shared GPU; a workload that needs more compute needs
whole GPUs (`nvidia.com/gpu` on nodes that do not share) or a larger MIG slice.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values.gpu_resources import is_shared_resource
from gpulint.rules import facts
from gpulint.rules.api import Context, Report, Rule, Severity, mentions

rule = Rule(
    "GPU602",
    "shared-gpu-multiple",
    Severity.WARNING,
    "More than one replica of a shared GPU is requested.",
    __doc__,
    # every sign of sharing: .shared, sharing-strategy, -SHARED, a sharing config
    reads=mentions("shar", ignore_case=True),
)

_NO_MORE = "replicas of a shared GPU give no more compute or memory"
_REJECTED = '"maximum request size for shared resources is 1"'


@facts.collected_by(rule)
def _pick(found: facts.DocFacts) -> list:
    return [*found.sharing, *(u for u in found.uses if u.count > 1)]


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    replicated: dict[str, facts.SharingFact] = {}
    for fact in found:
        if isinstance(fact, facts.SharingFact):
            replicated.setdefault(fact.advertised, fact)
    for use in found:
        if not isinstance(use, facts.GpuUse):
            continue
        sharing = replicated.get(use.resource)
        head = f"the container requests {use.count} {use.resource}"
        if sharing is not None:
            verdict = (
                f"the kubelet rejects it: {_REJECTED}"
                if sharing.fail_requests_greater_than_one
                else f"it is rejected wherever failRequestsGreaterThanOne is set: {_REJECTED}"
            )
            where = (
                sharing.anchor,
                f"{sharing.label} shares {sharing.advertised} by {sharing.strategy}",
            )
            yield Report.placed(
                use.anchor,
                f"{head}, which {sharing.label} shares by {sharing.strategy}; "
                f"{_NO_MORE}, and {verdict}",
                [where],
            )
        elif is_shared_resource(use.resource) or use.selector is not None:
            why = ""
            if not is_shared_resource(use.resource) and use.selector is not None:
                why = f" on nodes selected by {use.selector[1]}"
            yield Report.placed(
                use.anchor,
                (
                    f"{head}{why}; {_NO_MORE}, and it is rejected wherever "
                    f"failRequestsGreaterThanOne is set: {_REJECTED}"
                ),
            )
