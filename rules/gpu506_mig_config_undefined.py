"""
## What it checks
Across every file of one run, when the run holds a mig-parted config
(`mig-configs`, standalone, in a ConfigMap or in the operator chart's
`migManager.config.data`): the config names that select a MIG layout must be
defined by one of them. It reads the `nvidia.com/mig.config` label of Nodes
and of Karpenter NodePools (`spec.template.metadata.labels`), and
`migManager.config.default` of a `ClusterPolicy` or the GPU Operator chart's
values. The names of the operator's default config (`all-disabled`,
`all-enabled`, `all-balanced`, `all-<profile>`) are never reported: a node may
use the default ConfigMap.

## Why it matters
MIG manager looks the label's value up in its config file. A name the file
does not define (a typo, a config renamed or left out of this ConfigMap)
cannot be applied: the node is labelled `nvidia.com/mig.config.state=failed`
and keeps its old layout, so the MIG resources its pods request never appear.

## Failing example
```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
  namespace: gpu-operator
data:
  config.yaml: |
    version: v1
    mig-configs:
      inference-7x1g:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 7
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-mig
spec:
  template:
    metadata:
      labels:
        nvidia.com/mig.config: inference-7xlg  # <- GPU506
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
```

## Passing example
```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
  namespace: gpu-operator
data:
  config.yaml: |
    version: v1
    mig-configs:
      inference-7x1g:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 7
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-mig
spec:
  template:
    metadata:
      labels:
        nvidia.com/mig.config: inference-7x1g
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
```

## How to fix
Use a name the config defines (the did-you-mean names the closest), or add
the config under `mig-configs`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.nvidia import mig_parted, operator, recognise
from gpulint.model.values.paths import at_path
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import (
    Anchor,
    Context,
    Document,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
    record,
)

rule = Rule(
    "GPU506",
    "mig-config-undefined",
    Severity.ERROR,
    "A node label or MIG manager default names a MIG config the run's mig-parted config lacks.",
    __doc__,
    partner=mentions("mig-configs"),  # the partner: a mig-parted config
)

# The operator's default config (mig-parted deployments/, gpu-operator's
# default-mig-parted-config): names a node may use without a custom config.


@record(frozen=True, slots=True)
class Defined:
    """The config names a mig-parted config of the run defines."""

    names: tuple[str, ...]


@record(frozen=True, slots=True)
class Named:
    """A MIG config name a node label asks for."""

    name: str
    anchor: Anchor
    label: str  # "NodePool gpu-mig label nvidia.com/mig.config"


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = [
        Defined(tuple(mig_parted.config_names(c.data)))
        for c in mig_parted.resource_configs(resource)
    ]
    for path, label in _references(resource):
        value = at_path(resource.obj, path)
        if isinstance(value, str):
            found.append(Named(value, ctx.anchor(resource, path, at="value"), label))
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    values_for = recognise.values_for(ctx.settings)
    found: list = [
        Defined(tuple(mig_parted.config_names(c.data)))
        for c in mig_parted.document_configs(doc.data, values_for)
    ]
    for where in recognise.place(doc.data, values_for):
        if where.kind != recognise.OPERATOR_CHART:
            continue
        path = where.prefix + ("migManager", "config", "default")
        value = at_path(doc.data, path)
        if isinstance(value, str):
            anchor = ctx.document_anchor(doc, path, at="value")
            found.append(Named(value, anchor, "GPU Operator values migManager.config.default"))
    return found


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    defined = sorted({name for fact in found if isinstance(fact, Defined) for name in fact.names})
    if not defined:
        return
    known = set(defined) | _defaults()
    for fact in found:
        if not isinstance(fact, Named) or fact.name in known:
            continue
        if not fact.name or is_placeholder(fact.name):
            continue
        close = difflib.get_close_matches(fact.name, defined, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        yield Report.placed(
            fact.anchor,
            f"{fact.label} names MIG config {fact.name!r}, which no mig-parted config of this "
            f"run defines ({', '.join(defined)}): MIG manager cannot apply it and labels the "
            f"node nvidia.com/mig.config.state=failed{hint}",
        )


def _references(resource: Resource) -> list[tuple[tuple, str]]:
    kind, name = resource.kind, resource.name
    path: tuple
    if kind == "Node":
        path = ("metadata", "labels", mig_parted.LABEL)
    elif kind == "NodePool" and resource.api_version.startswith("karpenter.sh/"):
        path = ("spec", "template", "metadata", "labels", mig_parted.LABEL)
    elif operator.is_cluster_policy(resource):
        return [
            (
                ("spec", "migManager", "config", "default"),
                f"ClusterPolicy {name} spec.migManager.config.default",
            )
        ]
    else:
        return []
    return [(path, f"{kind} {name} label {mig_parted.LABEL}")]


def _defaults() -> set[str]:
    """The default config's names: all-disabled... and ``all-<profile>`` (``+me`` as ``.me``)."""
    names = {str(n) for n in catalog.raw()["mig"]["default_config_names"]}
    return names | {"all-" + p.replace("+", ".") for p in catalog.mig_profiles()}
