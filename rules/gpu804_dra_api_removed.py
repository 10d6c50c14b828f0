"""
## What it checks
Dynamic Resource Allocation objects written for APIs that current clusters no
longer serve:
- anything in `resource.k8s.io/v1alpha2` (classic DRA: ResourceClass,
  ResourceClaimParameters, PodSchedulingContext, `parametersRef`...), removed in
  Kubernetes 1.31;
- ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice in
  `resource.k8s.io/v1alpha3`, which now holds only alpha kinds such as
  DeviceTaintRule;
- the NVIDIA DRA driver's old `gpu.resource.nvidia.com` parameter objects
  (`GpuClaimParameters`, `MigDeviceClaimParameters`, `DeviceClassParameters`);
- a pod's `resourceClaims[].source:` mapping, flattened in Kubernetes 1.31.

## Why it matters
`kubectl apply` fails with `no matches for kind "ResourceClaim" in version
"resource.k8s.io/v1alpha2"` (or rejects the unknown `source` field), and
nothing of the GPU request reaches the cluster. Such manifests come from
pre-1.31 tutorials and from the NVIDIA DRA driver's early demos.

## Failing example
```yaml
apiVersion: gpu.resource.nvidia.com/v1alpha1  # <- GPU804
kind: MigDeviceClaimParameters
metadata:
  name: mig-1g-5gb
spec:
  profile: 1g.5gb
---
apiVersion: resource.k8s.io/v1alpha2  # <- GPU804
kind: ResourceClaimTemplate
metadata:
  name: mig-1g-5gb
spec:
  spec:
    resourceClassName: gpu.nvidia.com
    parametersRef:
      apiGroup: gpu.resource.nvidia.com
      kind: MigDeviceClaimParameters
      name: mig-1g-5gb
```

## Passing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: mig-1g-5gb
spec:
  spec:
    devices:
      requests:
        - name: mig
          exactly:
            deviceClassName: mig.nvidia.com
            selectors:
              - cel:
                  expression: "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"
```

## How to fix
Rewrite the objects for `resource.k8s.io/v1` (Kubernetes 1.34+; `v1beta1` on
1.32 and 1.33): a claim lists `spec.devices.requests[]` with
`exactly.deviceClassName` and CEL `selectors`; driver settings that used to sit
in parameter objects go to `spec.devices.config[].opaque` (for NVIDIA's driver,
`apiVersion: resource.nvidia.com/v1beta1`, `kind: GpuConfig` or
`MigDeviceConfig`). In pods, write `resourceClaimTemplateName` directly on the
`resourceClaims` entry.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.dra import GROUP, device_requests, pod_claims, split_api_version
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU804",
    "dra-api-removed",
    Severity.ERROR,
    "A DRA object uses an API version or kind that clusters no longer serve.",
    __doc__,
    # its objects, the old driver parameters, pod claims
    reads=mentions("resource.k8s.io", "resource.nvidia.com", "resourceClaims"),
)

NVIDIA_LEGACY_GROUP = "gpu.resource.nvidia.com"
_V1ALPHA3_MOVED = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")
_CLAIM_SHAPE = (
    "spec.devices.requests[] with exactly.deviceClassName and CEL selectors, driver "
    "settings in spec.devices.config[].opaque"
)

# v1alpha2 (classic DRA) was last served in 1.30: 1.31 replaced it with v1alpha3 (KEP-4381 "DRA
# update for 1.31", kubernetes/enhancements#4709; Intel's DRA maintainers: classic DRA is supported
# "from 1.28 through 1.30", intel/intel-resource-drivers-for-kubernetes#21).
_V1ALPHA2 = {
    "ResourceClaim": f"resource.k8s.io/v1 ResourceClaim ({_CLAIM_SHAPE})",
    "ResourceClaimTemplate": f"resource.k8s.io/v1 ResourceClaimTemplate ({_CLAIM_SHAPE})",
    "ResourceClass": "a resource.k8s.io/v1 DeviceClass with CEL selectors",
    "ResourceClaimParameters": "CEL selectors in the claim's requests and driver settings "
    "in spec.devices.config[].opaque",
    "ResourceClassParameters": "a DeviceClass's selectors and spec.config[].opaque",
    "PodSchedulingContext": "nothing: the scheduler now allocates claims itself",
    "ResourceSlice": "resource.k8s.io/v1 ResourceSlice, which DRA drivers publish themselves",
}
_NVIDIA = {
    "GpuClaimParameters": "a claim request for device class gpu.nvidia.com with CEL selectors; "
    "sharing settings go in spec.devices.config[].opaque.parameters as "
    "apiVersion: resource.nvidia.com/v1beta1, kind: GpuConfig",
    "MigDeviceClaimParameters": "a claim request for device class mig.nvidia.com with a CEL "
    "selector on the profile{profile}; sharing settings go in spec.devices.config[].opaque."
    "parameters as apiVersion: resource.nvidia.com/v1beta1, kind: MigDeviceConfig",
    "DeviceClassParameters": "the driver's DeviceClasses gpu.nvidia.com and mig.nvidia.com, "
    "which its Helm chart installs",
}


def _not_served(resource: Resource) -> str:
    return f'no matches for kind "{resource.kind}" in version "{resource.api_version}"'


def _object_problem(resource: Resource) -> str | None:
    group, version = split_api_version(resource.api_version)
    kind = resource.kind
    if group == GROUP and version == "v1alpha2":
        use = _V1ALPHA2.get(kind, f"the resource.k8s.io/v1 API for {kind}")
        legacy = [r.classes[0] for r in device_requests(resource) if not r.name and r.classes]
        if legacy:
            use += f"; resourceClassName {legacy[0]} becomes exactly.deviceClassName"
        return (
            f"{resource.api_version} (classic DRA) was removed in Kubernetes 1.31, so kubectl "
            f"fails with: {_not_served(resource)}; use {use}"
        )
    if group == GROUP and version == "v1alpha3" and kind in _V1ALPHA3_MOVED:
        return (
            f"{kind} is no longer served as {resource.api_version} (it now holds only alpha "
            f"kinds such as DeviceTaintRule), so kubectl fails with: {_not_served(resource)}; use "
            f"resource.k8s.io/v1 (v1beta1 before Kubernetes 1.34)"
        )
    if group == NVIDIA_LEGACY_GROUP and kind in _NVIDIA:
        spec = resource.obj.get("spec")
        profile = spec.get("profile") if isinstance(spec, dict) else None
        shown = f" (device.attributes['gpu.nvidia.com'].profile == '{profile}')" if profile else ""
        return (
            f"{kind} ({resource.api_version}) belongs to the NVIDIA DRA driver's classic-DRA "
            f"API, which current drivers no longer install, so kubectl fails with: "
            f"{_not_served(resource)}; use {_NVIDIA[kind].format(profile=shown)}"
        )
    return None


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    problem = _object_problem(resource)
    if problem:
        yield Report(("apiVersion",), problem, at="value")
    for pod in resource.pod_specs:
        for entry in pod_claims(pod):
            if not entry.legacy_source:
                continue
            field, value = (
                ("resourceClaimTemplateName", entry.template)
                if entry.template
                else ("resourceClaimName", entry.claim)
            )
            yield Report(
                entry.path + ("source",),
                f"claim {entry.name!r} uses the resourceClaims[].source mapping, removed from the "
                "Pod API in Kubernetes 1.31: kubectl rejects the unknown field and the claim "
                f"names nothing; write {field}: {value} directly on the entry",
            )
