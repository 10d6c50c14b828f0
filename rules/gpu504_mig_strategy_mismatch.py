"""
## What it checks
Across every file of one `gpulint check` run: workloads that request
`nvidia.com/mig-<profile>` while every device plugin deployment in the run
(chart values, a `ClusterPolicy` or GPU Operator values, a device plugin
DaemonSet) runs with MIG strategy `single` or `none`; and pods that require
the node label `nvidia.com/mig.strategy` with a value none of those
deployments sets (the label is `single` or `mixed`, and absent with `none`).
Deployments whose strategy comes from a ConfigMap outside the run are treated
as unknown, and then nothing is reported; a resource that a DRA `DeviceClass`
serves (`extendedResourceName`) is not the device plugin's.

## Why it matters
Only the `mixed` strategy advertises one resource per MIG profile. Under
`single`, MIG devices are advertised as `nvidia.com/gpu`; under `none`, not at
all. A pod asking for `nvidia.com/mig-1g.10gb` then stays Pending with
`Insufficient nvidia.com/mig-1g.10gb` on every node.

## Failing example
```yaml
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: gpu-cluster-policy
spec:
  mig:
    strategy: single
---
apiVersion: v1
kind: Pod
metadata:
  name: mig-pod
spec:
  containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 1  # <- GPU504
```

## Passing example
```yaml
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: gpu-cluster-policy
spec:
  mig:
    strategy: mixed
---
apiVersion: v1
kind: Pod
metadata:
  name: mig-pod
spec:
  containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/mig-1g.10gb: 1
```

## How to fix
Set the MIG strategy to `mixed` (chart `migStrategy: mixed`, operator
`mig.strategy: mixed`), or, under `single`, request `nvidia.com/gpu` and
select the MIG product (`nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-1g.10gb`).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.node_requirements import LabelRequirement
from gpulint.model.values.gpu_resources import is_mig_resource
from gpulint.rules import facts
from gpulint.rules.api import Context, RelatedPlace, Report, Rule, Severity, mentions

rule = Rule(
    "GPU504",
    "mig-strategy-mismatch",
    Severity.ERROR,
    "MIG resources or MIG strategy labels that the run's device plugin strategy never provides.",
    __doc__,
    reads=mentions("mig", ignore_case=True),  # a nvidia.com/mig-<profile> request
)


@facts.collected_by(rule)
def _pick(found: facts.DocFacts) -> list:
    uses = [u for u in found.uses if is_mig_resource(u.resource)]
    return [*found.strategies, *uses, *found.mig_selectors, *found.dra_resources]


def _described(deployments: list[facts.StrategyFact]) -> tuple[str, tuple[RelatedPlace, ...]]:
    """The strategies in the message, and where each is set (related locations)."""
    pairs = [(value, anchor, d.label) for d in deployments for value, anchor in d.strategies]
    text = ", ".join(dict.fromkeys(value for value, _anchor, _label in pairs))
    related = tuple((anchor, f"{label}: MIG strategy {value}") for value, anchor, label in pairs)
    return text, related


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    deployments = [f for f in found if isinstance(f, facts.StrategyFact)]
    if not deployments or not all(d.known for d in deployments):
        return
    strategies = [pair for d in deployments for pair in d.strategies]
    values = {value for value, _anchor in strategies}
    if not strategies:
        return
    described, related = _described(deployments)
    # A DeviceClass with extendedResourceName serves that resource through DRA, not the plugin.
    dra = {f.resource for f in found if isinstance(f, facts.DraExtendedResource)}
    for fact in found:
        if isinstance(fact, facts.GpuUse) and "mixed" not in values and fact.resource not in dra:
            yield Report.placed(
                fact.anchor,
                f"the container requests {fact.resource}, but the device plugin in this run "
                f"uses MIG strategy {described}; only 'mixed' advertises "
                f"nvidia.com/mig-<profile> resources, so the pod stays Pending "
                f'("Insufficient {fact.resource}")',
                related,
            )
        elif isinstance(fact, facts.MigSelector):
            labels = {None if v == "none" else v for v in values}
            requirement = _requirement(fact)
            if not any(requirement.allows(label) for label in labels):
                yield Report.placed(
                    fact.anchor,
                    f"the pod requires node label {facts.MIG_STRATEGY_LABEL} "
                    f"{fact.operator} {list(fact.values)}, but the device plugin in this run "
                    f"uses MIG strategy {described} (the label is absent under 'none'); "
                    "no node matches",
                    related,
                )


def _requirement(fact: facts.MigSelector) -> LabelRequirement:
    return LabelRequirement(facts.MIG_STRATEGY_LABEL, fact.operator, fact.values, (), None)
