"""
## What it checks
The `featureGates` of a kubelet configuration (`kubelet.config.k8s.io`
`KubeletConfiguration`: a document of its own, the YAML text of a ConfigMap value
or a cloud-init file, or `spec.kubelet.config` of an EKS `NodeConfig`) that name
a gate the kubelet no longer knows, or set a locked gate to the other value. It
judges the gates GPU nodes use (DevicePlugins, KubeletPodResources,
KubeletPodResourcesGetAllocatable, TopologyManager, CPUManager, MemoryManager,
DevicePluginCDIDevices, CPUManagerPolicyOptions, DynamicResourceAllocation, ...;
the catalog's `kubernetes.feature_gates`, read from Kubernetes' versioned feature
specs). With `--kube-version` it judges the kubelet of that release (a gate not
added yet counts as unknown too); without it, only what every release the
Kubernetes project still supports refuses (1.35 and later, the catalog's
`kubernetes.oldest_supported_minor`).

## Why it matters
The kubelet applies `featureGates` through component-base's feature gate, which
refuses a gate the binary does not have ("unrecognized feature gate:
DevicePlugins") and a locked gate set against its lock ("cannot set feature gate
MemoryManager to false, feature is locked to true"). The kubelet exits: the node
never becomes Ready and runs no pod, GPU or not. Gates that graduated to GA are
locked on and then removed a few releases later, so configurations copied from
old GPU guides (`DevicePlugins: true`) stop nodes from starting after an upgrade.

## Failing example
```yaml
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  DevicePlugins: true  # <- GPU318
  KubeletPodResourcesGetAllocatable: true  # <- GPU318
cpuManagerPolicy: static
```

## Passing example
```yaml
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
```

## How to fix
Delete the entries of removed gates (their features are GA and always on), and of
locked gates set against their lock (the feature can no longer be turned off; use
the feature's own settings, such as `memoryManagerPolicy: None`).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.runtime import kubelet
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU318",
    "kubelet-feature-gate-rejected",
    Severity.ERROR,
    "A kubelet featureGates entry names a removed gate or sets a locked one: the kubelet "
    "does not start.",
    __doc__,
    reads=mentions("featureGates"),  # a kubelet configuration's gates (model/kubelet.py)
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for found in kubelet.resource_gates(resource):
        yield from _reports(found, ctx)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    for found in kubelet.document_gates(doc):
        yield from _reports(found, ctx)


def _reports(found: kubelet.Gates, ctx: Context) -> Iterator[Report]:
    target = kubelet.minor(ctx.settings.render.kube_version)
    where = f"{found.label}: " if found.label else ""
    for gate, value in found.gates.items():
        refused = kubelet.refusal(gate, value, target)
        if refused is not None:
            yield Report(
                found.path + (gate,), f"{where}featureGates.{gate}: {_bool(value)}: {refused.why}"
            )


def _bool(value: object) -> str:
    return "true" if value is True else "false"
