"""
## What it checks
A serving workload (LeaderWorkerSet, KServe and other serving CRDs; a
Deployment or StatefulSet whose app containers open ports, have a readiness
probe or run a model server, or whose pods a Service of the run selects, a
headless one excepted (it names peers, as a training StatefulSet's); any
other pod with a readiness probe or container ports that is not a batch job) on
a time-sliced or MPS-shared GPU: it requests a `.shared`
resource (`nvidia.com/gpu.shared`), requires `nvidia.com/gpu.sharing-strategy`
(`time-slicing` or `mps`) or a `-SHARED` product label, or requests a resource
that a sharing config in the same run replicates (a config file, a ConfigMap,
the chart's `config.map`). GPU infrastructure is exempt, and so is a pod
whose GPU containers only probe the device or benchmark it (a Deployment that
loops `vectorAdd` to check time-slicing serves nobody).

## Why it matters
Time-slicing gives no isolation: co-located pods take turns on the whole GPU
and share its memory and fault domain. One noisy neighbour (a batch job, a
long prefill) stalls every other pod on that GPU, so request latency becomes
unpredictable and one out-of-memory error can take all of them down. MPS
limits compute but still shares a fault domain.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  replicas: 2
  selector:
    matchLabels: {app: chat}
  template:
    metadata:
      labels: {app: chat}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          ports:
            - containerPort: 8000
          resources:
            limits:
              nvidia.com/gpu.shared: 1  # <- GPU601
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  replicas: 2
  selector:
    matchLabels: {app: chat}
  template:
    metadata:
      labels: {app: chat}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          ports:
            - containerPort: 8000
          resources:
            limits:
              nvidia.com/gpu: 1
```

## How to fix
Give serving workloads whole GPUs or MIG slices (hardware isolation: own
memory, own compute, own fault domain), and keep time-slicing for notebooks,
CI and batch work that tolerate stalls. If sharing is deliberate, suppress
the finding with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values.gpu_resources import is_shared_resource
from gpulint.rules import facts
from gpulint.rules.api import Context, RelatedPlace, Report, Rule, Severity, mentions

rule = Rule(
    "GPU601",
    "shared-gpu-latency-sensitive",
    Severity.WARNING,
    "A serving workload runs on a time-sliced or MPS-shared GPU.",
    __doc__,
    # every sign of sharing: .shared, sharing-strategy, -SHARED, a sharing config
    reads=mentions("shar", ignore_case=True),
)

_WHY = "one noisy neighbour stalls every pod on that GPU"


@facts.collected_by(rule)
def _pick(found: facts.DocFacts) -> list:
    return [*found.sharing, *found.services, *(u for u in found.uses if u.serving is not False)]


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    replicated: dict[str, facts.SharingFact] = {}
    for fact in found:
        if isinstance(fact, facts.SharingFact):
            replicated.setdefault(fact.advertised, fact)
    done: set[str] = set()
    services = [f for f in found if isinstance(f, facts.ServiceSelector)]
    # A long-running pod with no sign of its own serves when a Service sends it requests.
    uses = [
        f
        for f in found
        if isinstance(f, facts.GpuUse) and (f.serving or any(f.selected_by(s) for s in services))
    ]
    for use in uses:  # the strongest evidence first: a shared resource, then a selector
        if use.pod not in done and is_shared_resource(use.resource):
            done.add(use.pod)
            yield Report.placed(
                use.anchor,
                (
                    f"this serving workload requests {use.resource}, a time-sliced or MPS-shared "
                    f"GPU; "
                    f"{_WHY}"
                ),
            )
    for use in uses:
        if use.pod not in done and use.selector is not None:
            done.add(use.pod)
            anchor, text = use.selector
            yield Report.placed(
                anchor, f"this serving workload runs on shared GPUs: it requires {text}; {_WHY}"
            )
    for use in uses:
        sharing = replicated.get(use.resource)
        if use.pod not in done and sharing is not None:
            done.add(use.pod)
            replicas = f" x{sharing.replicas}" if sharing.replicas else ""
            yield Report.placed(
                use.anchor,
                f"this serving workload requests {use.resource}, which {sharing.label} "
                f"shares by {sharing.strategy}{replicas}; {_WHY}",
                [_sharing_place(sharing)],
            )


def _sharing_place(sharing: facts.SharingFact) -> RelatedPlace:
    return sharing.anchor, f"{sharing.label} shares {sharing.advertised} by {sharing.strategy}"
