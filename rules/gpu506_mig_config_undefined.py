"""
## What it checks
Across every file of one run, when the run holds a mig-parted config
(`mig-configs`, standalone, in a ConfigMap or in the operator chart's
`migManager.config.data`): the `nvidia.com/mig.config` label of Nodes and of
Karpenter NodePools (`spec.template.metadata.labels`) must name a config MIG
manager can find.

When the run says which config MIG manager reads, the name must be in that
one: the ConfigMap a `ClusterPolicy` names in `spec.migManager.config.name`
(none: the operator's default config), or the one the GPU Operator chart's
values name in `migManager.config.name` (in a values file, or inline in a Flux
HelmRelease, an Argo CD Application, kustomize's `helmCharts` or a Helmfile
release), which with `create: true` the chart makes from
`migManager.config.data`. A named ConfigMap is matched by name and, where the
run establishes it (a release's target namespace), by the operator's
namespace; only its `config.yaml` key counts. When that ConfigMap is not in
the run, the labels are left alone. The operator's default config
(`default-mig-parted-config`, gpu-operator
`assets/state-mig-manager/0400_configmap.yaml`, or the one MIG manager
generates from the node's GPUs, mig-parted `pkg/mig/builder/builder.go`)
defines `all-disabled`, `all-enabled`, `all-balanced` and `all-<profile>`
(`+me` written `.me`). The `migManager.config.default` given with the name
must be in that config too. Where the run does not say, a config of any
mig-parted config of the run, or a default name, will do.

## Why it matters
MIG manager mounts one ConfigMap, in the operator's namespace, and looks the
label's value up in its `config.yaml` (gpu-operator
`controllers/object_controls.go` TransformMIGManager,
`api/nvidia/v1/clusterpolicy_types.go` MIGPartedConfigSpec). A name that
file does not define (a typo, a config of another ConfigMap, a default name
once a custom config replaced the default) cannot be applied: the node is
labelled `nvidia.com/mig.config.state=failed` and keeps its old layout, so
the MIG resources its pods request never appear. The operator labels
MIG-capable nodes that carry no label with `migManager.config.default` when
it is `all-disabled` (the CRD allows only that or `""`): a custom config
without it fails on all of them.

## Failing example
```yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
  namespace: gpu-operator
spec:
  interval: 1h
  chart:
    spec:
      chart: gpu-operator
      version: v25.10.1
      sourceRef:
        kind: HelmRepository
        name: nvidia
  values:
    mig:
      strategy: mixed
    migManager:
      config:
        name: custom-mig-config
        default: all-disabled
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
  namespace: gpu-operator
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-disabled:
        - devices: all
          mig-enabled: false
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
        nvidia.com/mig.config: all-1g.10gb  # <- GPU506
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p4de.24xlarge"]
```

## Passing example
```yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
  namespace: gpu-operator
spec:
  interval: 1h
  chart:
    spec:
      chart: gpu-operator
      version: v25.10.1
      sourceRef:
        kind: HelmRepository
        name: nvidia
  values:
    mig:
      strategy: mixed
    migManager:
      config:
        name: custom-mig-config
        default: all-disabled
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
  namespace: gpu-operator
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-disabled:
        - devices: all
          mig-enabled: false
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
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p4de.24xlarge"]
```

## How to fix
Use a name the config MIG manager reads defines (the did-you-mean names the
closest), add the config under that config's `mig-configs`, or point
`migManager.config.name` at the ConfigMap that defines it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.nvidia import mig_manager, mig_parted, operator, recognise
from gpulint.model.nvidia.mig_manager import Declared
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
    "A node label or MIG manager default names a MIG config the config MIG manager reads lacks.",
    __doc__,
    partner=mentions("mig-configs"),  # the partner: a mig-parted config
)

FAILED = "nvidia.com/mig.config.state=failed"


@record(frozen=True, slots=True)
class Defined:
    """The config names one mig-parted config of the run defines, and where it is."""

    names: tuple[str, ...]
    label: str  # "mig-parted config 'config.yaml' in ConfigMap custom-mig-config"
    configmap: str | None = None  # the ConfigMap that holds it (None: a file, chart values)
    namespace: str | None = None
    key: str | None = None  # its key in the ConfigMap's data


@record(frozen=True, slots=True)
class Named:
    """A MIG config name a node label (or, where the run does not say which config MIG
    manager reads, a MIG manager default) asks for."""

    name: str
    anchor: Anchor
    label: str  # "NodePool gpu-mig label nvidia.com/mig.config"


@record(frozen=True, slots=True)
class InUse:
    """An input that says which mig-parted config MIG manager reads."""

    declared: Declared
    anchor: Anchor  # where it says so
    default_anchor: Anchor | None  # its config.default
    default_label: str  # "ClusterPolicy cluster-policy spec.migManager.config.default"


@record(frozen=True, slots=True)
class OperatorNamespace:
    """The namespace a GitOps release installs the GPU Operator into."""

    namespace: str


@record(frozen=True, slots=True)
class Reads:
    """The config an input makes MIG manager read, as far as the run shows it."""

    what: str  # "ConfigMap custom-mig-config", "the operator's default config"
    names: tuple[str, ...] | None  # None: the default config's names

    def defines(self, name: str) -> bool:
        return mig_manager.is_default_name(name) if self.names is None else name in self.names

    def listed(self) -> str:
        if self.names is None:
            return mig_manager.describe_default_names()
        return ", ".join(self.names) or "no config"

    def choices(self) -> list[str]:
        if self.names is not None:
            return list(self.names)
        profiles = sorted("all-" + catalog.mig_resource_profile(p) for p in catalog.mig_profiles())
        return [*mig_manager.default_names(), *profiles]


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = [
        Defined(
            tuple(mig_parted.config_names(c.data)),
            c.label,
            resource.name,
            resource.namespace,
            str(c.path[1]),
        )
        for c in mig_parted.resource_configs(resource)
    ]
    for path, label in _label_paths(resource):
        value = at_path(resource.obj, path)
        if isinstance(value, str):
            found.append(Named(value, ctx.anchor(resource, path, at="value"), label))
    declared = mig_manager.from_cluster_policy(resource)
    default_label = f"ClusterPolicy {resource.name} spec.migManager.config.default"
    if declared is not None:
        at = "value" if declared.path[-1:] == ("name",) else "key"
        anchor = ctx.anchor(resource, declared.path, at=at)
        default = declared.default
        default_anchor = ctx.anchor(resource, default[0], at="value") if default else None
        found.append(InUse(declared, anchor, default_anchor, default_label))
    elif operator.is_cluster_policy(resource):
        path = ("spec", "migManager", "config", "default")
        value = at_path(resource.obj, path)
        if isinstance(value, str):
            found.append(Named(value, ctx.anchor(resource, path, at="value"), default_label))
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    values_for = recognise.values_for(ctx.settings)
    found: list = [
        Defined(tuple(mig_parted.config_names(c.data)), c.label)
        for c in mig_parted.document_configs(doc.data, values_for)
    ]
    for where in recognise.place(doc.data, values_for):
        if where.kind != recognise.OPERATOR_CHART:
            continue
        namespace = mig_manager.release_namespace(doc.data, where.prefix)
        if namespace is not None:
            found.append(OperatorNamespace(namespace))
        who = _values_owner(doc.data)
        default_label = f"{who} migManager.config.default"
        declared = mig_manager.from_values(doc.data, where, who)
        if declared is not None:
            anchor = ctx.document_anchor(doc, declared.path, at="value")
            default = declared.default
            default_anchor = ctx.document_anchor(doc, default[0], at="value") if default else None
            found.append(InUse(declared, anchor, default_anchor, default_label))
            continue
        path = where.prefix + ("migManager", "config", "default")
        value = at_path(doc.data, path)
        if isinstance(value, str):
            anchor = ctx.document_anchor(doc, path, at="value")
            found.append(Named(value, anchor, default_label))
    return found


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    configs = [fact for fact in found if isinstance(fact, Defined)]
    if not configs:
        return
    uses = [fact for fact in found if isinstance(fact, InUse)]
    namespaces = {fact.namespace for fact in found if isinstance(fact, OperatorNamespace)}
    operator_namespace = next(iter(namespaces)) if len(namespaces) == 1 else None
    reads = [_reads(use.declared, configs, operator_namespace) for use in uses]
    known = [(use, read) for use, read in zip(uses, reads, strict=True) if read is not None]
    seen: set = set()
    yield from _check_defaults(known, configs, seen)
    named = [fact for fact in found if isinstance(fact, Named)]
    if not uses:
        yield from _check_any(named, configs, seen)
    elif len(known) == len(uses):
        yield from _check_in_use(named, _merged(known), configs, seen)
    # else: some input names a ConfigMap the run does not hold; its names are unknown


def _merged(known: list[tuple[InUse, Reads]]) -> list[tuple[str, Reads, list[InUse]]]:
    """The configs MIG manager is given, each with the inputs that give it (a chart's values
    and the ClusterPolicy it renders name one ConfigMap: one config, two inputs)."""
    merged: dict[Reads, list[InUse]] = {}
    for use, read in known:
        merged.setdefault(read, []).append(use)
    return [(" and ".join(u.declared.how for u in us), read, us) for read, us in merged.items()]


def _reads(
    declared: Declared, configs: list[Defined], operator_namespace: str | None
) -> Reads | None:
    """What MIG manager reads by ``declared``; None when the run does not hold it."""
    name = declared.configmap
    if name is None:
        return Reads("the operator's default config", None)
    if declared.created:
        names = declared.created_names
        return Reads(f"ConfigMap {name}", tuple(sorted(names))) if names is not None else None
    namespace = declared.namespace or operator_namespace
    held = [
        c
        for c in configs
        if c.configmap == name
        and (namespace is None or c.namespace is None or c.namespace == namespace)
    ]
    read = [c for c in held if c.key == mig_manager.config_key()]
    if not read:
        return None  # not in the run, or without the config.yaml key MIG manager reads
    where = f" in namespace {namespace}" if namespace else ""
    return Reads(f"ConfigMap {name}{where}", tuple(sorted({n for c in read for n in c.names})))


def _check_any(named: list[Named], configs: list[Defined], seen: set) -> Iterator[Report]:
    """Without a word on which config MIG manager reads: any config of the run, or the default."""
    defined = sorted({name for c in configs for name in c.names})
    for fact in named:
        if not _judged(fact.name) or fact.name in defined:
            continue
        if mig_manager.is_default_name(fact.name) or not _first(fact.anchor, seen):
            continue
        yield Report.placed(
            fact.anchor,
            f"{fact.label} names MIG config {fact.name!r}, which no mig-parted config of this "
            f"run defines ({', '.join(defined)}): MIG manager cannot apply it and labels the "
            f"node {FAILED}{_did_you_mean(fact.name, defined)}",
        )


def _check_in_use(
    named: list[Named],
    given: list[tuple[str, Reads, list[InUse]]],
    configs: list[Defined],
    seen: set,
) -> Iterator[Report]:
    related = [(u.anchor, f"MIG manager reads {read.what}") for _, read, us in given for u in us]
    for fact in named:
        if not _judged(fact.name) or any(read.defines(fact.name) for _, read, _ in given):
            continue
        if not _first(fact.anchor, seen):
            continue
        choices = [name for _, read, _ in given for name in read.choices()]
        hint = _elsewhere(fact.name, configs) + _did_you_mean(fact.name, choices)
        if len(given) == 1:
            how, read, _ = given[0]
            what = (
                f"which {read.what} does not define ({read.listed()}); MIG manager reads that "
                f"config ({how}), so it"
            )
        else:
            each = "; ".join(f"{read.what} ({read.listed()}), by {how}" for how, read, _ in given)
            what = f"which none of the configs MIG manager is given defines ({each}): MIG manager"
        yield Report.placed(
            fact.anchor,
            f"{fact.label} names MIG config {fact.name!r}, {what} cannot apply it and labels "
            f"the node {FAILED}{hint}",
            related,
        )


def _check_defaults(
    known: list[tuple[InUse, Reads]], configs: list[Defined], seen: set
) -> Iterator[Report]:
    """Each default once: a chart's values and the ClusterPolicy it renders say the same thing,
    reported at the values (where it is changed)."""
    groups: dict[tuple, list[InUse]] = {}
    for use, read in known:
        default = use.declared.default
        if default is not None and use.default_anchor is not None:
            groups.setdefault((default[1], read), []).append(use)
    for (value, read), group in groups.items():
        group.sort(key=lambda u: u.default_anchor is None or u.default_anchor.resource is not None)
        yield from _check_default(group, value, read, configs, seen)


def _check_default(
    group: list[InUse], value: str, read: Reads, configs: list[Defined], seen: set
) -> Iterator[Report]:
    """The config the operator gives nodes without the label must be in the config it reads."""
    use = group[0]
    anchor = use.default_anchor
    if anchor is None or not _judged(value) or read.defines(value) or not _first(anchor, seen):
        return
    enum = catalog.gpu_operator()["clusterpolicy"]["migManager_config_default_enum"]
    crd = (
        ""
        if value in enum
        else "; the ClusterPolicy CRD accepts only "
        + " or ".join(repr(str(v)) for v in enum)
        + " here"
    )
    hint = _elsewhere(value, configs) + _did_you_mean(value, read.choices())
    how = " and ".join(u.declared.how for u in group)
    related = [(use.anchor, f"MIG manager reads {read.what}")]
    related += [(u.default_anchor, "the same default") for u in group[1:] if u.default_anchor]
    yield Report.placed(
        anchor,
        f"{use.default_label} names MIG config {value!r}, which {read.what} does not define "
        f"({read.listed()}): MIG manager reads that config ({how}) and cannot apply it to "
        f"the nodes that carry no nvidia.com/mig.config label, which end {FAILED}{crd}{hint}",
        related,
    )


def _judged(name: str) -> bool:
    return bool(name) and not is_placeholder(name)


def _first(anchor: Anchor, seen: set) -> bool:
    """One finding per place (a label read twice, by two inputs, is one root cause)."""
    key = (anchor.location, anchor.pointer)
    if key in seen:
        return False
    seen.add(key)
    return True


def _elsewhere(name: str, configs: list[Defined]) -> str:
    """Where the run defines ``name`` after all: a config MIG manager does not read."""
    for config in sorted(configs, key=lambda c: c.label):
        if name in config.names:
            return f"; {name!r} is defined in the {config.label}, which MIG manager does not read"
    return ""


def _did_you_mean(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _values_owner(data: object) -> str:
    """Whose values: a GitOps object's (``HelmRelease gpu-operator values``) or a file's."""
    if recognise.is_resource(data) and isinstance(data, dict):
        meta = data.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        return f"{data.get('kind')} {name} values" if name else f"{data.get('kind')} values"
    return "GPU Operator values"


def _label_paths(resource: Resource) -> list[tuple[tuple, str]]:
    kind, name = resource.kind, resource.name
    if kind == "Node":
        path: tuple = ("metadata", "labels", mig_parted.LABEL)
    elif kind == "NodePool" and resource.api_version.startswith("karpenter.sh/"):
        path = ("spec", "template", "metadata", "labels", mig_parted.LABEL)
    else:
        return []
    return [(path, f"{kind} {name} label {mig_parted.LABEL}")]
