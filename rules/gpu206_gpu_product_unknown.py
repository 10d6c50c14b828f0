"""
## What it checks
A `nvidia.com/gpu.product` or `cloud.google.com/gke-accelerator` value, in a
`nodeSelector` or a required node affinity `In` expression, that no known GPU
reports, and that is close to one that does:
- the wrong case (`TESLA-T4` for `Tesla-T4`; label values are case-sensitive);
- spaces where GPU feature discovery writes dashes
  (`NVIDIA A100-SXM4-80GB` for `NVIDIA-A100-SXM4-80GB`);
- a bare or partial model (`A100`, `NVIDIA-H100-80GB`) or a model with words
  the label never has (`NVIDIA-H200-SXM5-141GB`; `NVIDIA-H100-SXM4-80GB` and
  `NVIDIA-H100-SXM5-80GB`: no GPU name says SXM5 or SXM6, SXM4 only the A100's,
  and the H100 SXM reports `NVIDIA-H100-80GB-HBM3`);
- the name drivers before R470 gave a GPU (`A100-SXM4-40GB`, also with
  `-MIG-1g.5gb`): NVML's names gained the `NVIDIA` prefix in R470, so every
  supported driver reports `NVIDIA-A100-SXM4-40GB` (`Tesla-T4` and the V100s
  kept their names);
- a GKE accelerator name as a product, or the reverse (`nvidia-tesla-t4` vs
  `Tesla-T4`).
KServe's `serving.kserve.io/gke-accelerator` annotation, which becomes a
`cloud.google.com/gke-accelerator` node selector, is checked the same way.
The GPU feature discovery suffixes `-MIG-<profile>` and `-SHARED` are understood.
In an `In` list that also names a value GPUs do report (a name of drivers
before R470 is not one), the pod still schedules there and the unknown value
only selects nothing: a note. A Node's
own `nvidia.com/gpu.product` or `cloud.google.com/gke-accelerator` label is
checked the same way (GPU feature discovery writes what the driver names, so
an unknown value there was set by hand or by a driver before R470).
A provider's own GPU label with a documented list of values (CoreWeave's
`gpu.nvidia.com/class`: `A40`, `RTX_A5000`...) is reported only when the value
differs from a listed one by case or separators (`rtx-a5000`).
A well-formed value that matches nothing gpulint knows is left alone: it may be
a GPU newer than gpulint's catalog; so is a placeholder (`${GPU_PRODUCT}`,
`{{workflow.parameters.gpu}}`) that is filled in later.

## Why it matters
Label values match exactly. A pod that selects a product no node reports stays
`Pending` forever with `node(s) didn't match Pod's node affinity/selector`, and
nothing says the value was misspelt. The NVIDIA device plugin README itself
shows `nvidia.com/gpu.product=TESLA-T4`, which matches no node.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: cuda-test
spec:
  nodeSelector:
    nvidia.com/gpu.product: TESLA-T4  # <- GPU206
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: cloud.google.com/gke-accelerator
                operator: In
                values: [nvidia-tesla-t4, nvidia-l4, nvidia-tesla-l4]  # <- GPU206
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  containers:
    - name: cuda
      image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: cuda-test
spec:
  nodeSelector:
    nvidia.com/gpu.product: Tesla-T4
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: cloud.google.com/gke-accelerator
                operator: In
                values: [nvidia-tesla-t4, nvidia-l4]
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  containers:
    - name: cuda
      image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Use the value exactly as the nodes carry it (`kubectl get nodes -L
nvidia.com/gpu.product`). To accept both the older (`A100-SXM4-40GB`) and the
current (`NVIDIA-A100-SXM4-40GB`) driver naming, list both with `operator: In`.
When gpulint knows exactly one value that was meant, `gpulint check --fix
--unsafe-fixes` writes it (unsafe: check that your nodes carry it; the catalog
may not know a newer GPU's name).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.gpu.label_families import known_values, suggest_value
from gpulint.model.gpu.label_suggestions import (
    current_driver_form,
    sanitised,
    suggest_gke_accelerators,
    suggest_products,
)
from gpulint.model.gpu.labels import GKE_ACCELERATOR, PRODUCT
from gpulint.model.node_requirements import label_requirements
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Context, FixSafety, Report, Resource, Rule, Severity
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU206",
    "gpu-product-unknown",
    Severity.WARNING,
    "A GPU product or GKE accelerator value that no known GPU reports (with a did-you-mean).",
    __doc__,
    fix=FixSafety.UNSAFE,
)


def _advice(key: str, value: str) -> str | None:
    """A did-you-mean for an unknown value, or None when the value is known or unplaceable."""
    if is_placeholder(value):
        return None  # filled in later: the rendered value is what counts
    gke = catalog.gke_accelerators()
    if key == PRODUCT:
        current = current_driver_form(value)
        if current is not None:
            return (
                f"drivers before R470 named the GPU so; R470 and later (every supported "
                f"driver branch) report {current}: did you mean {current}?"
            )
        if catalog.is_known_product(value):
            return None
        found = suggest_products(value)
        if not found and sanitised(value) != value:
            # GFD never writes spaces or punctuation: "NVIDIA GeForce RTX 3090".
            found = [sanitised(value)]
        if value in gke:
            return f"{value} is a {GKE_ACCELERATOR} value, not a product label" + (
                f"; did you mean {_either(found)}?" if found else ""
            )
    else:
        if value in gke:
            return None
        found = suggest_gke_accelerators(value)
        if catalog.is_known_product(value):
            return f"{value} is a {PRODUCT} value, not a GKE accelerator" + (
                f"; did you mean {_either(found)}?" if found else ""
            )
    return f"did you mean {_either(found)}?" if found else None


def _node_labels(resource: Resource) -> Iterator[Report]:
    """A Node's own product label that no GPU reports under a supported driver: set by hand,
    or by GPU feature discovery under a driver before R470; pods that select the name the
    GPU reports skip the node."""
    metadata = resource.obj.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if not isinstance(labels, dict):
        return
    for key in (PRODUCT, GKE_ACCELERATOR):
        value = labels.get(key)
        advice = _advice(key, value) if isinstance(value, str) else None
        if advice is None:
            continue
        yield Report(
            ("metadata", "labels", key),
            f"Node {resource.name} is labelled {key}={value}, which no GPU reports under a "
            f"supported driver: {advice} (pods that select the name the GPU reports skip this "
            "node)",
            at="value",
        )


def _reported(key: str, value: str) -> bool:
    """Whether GPUs report ``value`` for ``key`` under a supported driver (a product, a GKE
    accelerator, a family value the catalog knows). A name only drivers before R470 gave
    is known to the catalog but reported by no node today."""
    if key == PRODUCT:
        return catalog.is_known_product(value) and current_driver_form(value) is None
    if key == GKE_ACCELERATOR:
        return value in catalog.gke_accelerators()
    return value in (known_values(key) or ())


def _family_advice(key: str, value: str) -> str | None:
    if is_placeholder(value):
        return None
    found = suggest_value(key, value)
    return f"did you mean {_either(found)}?" if found else None


def _either(values: list[str]) -> str:
    shown = values[:6]
    more = f" (and {len(values) - len(shown)} more)" if len(values) > len(shown) else ""
    if len(shown) < 3:
        return " or ".join(shown) + more
    return ", ".join(shown[:-1]) + " or " + shown[-1] + more


# KServe turns this InferenceService annotation into a gke-accelerator node selector.
_KSERVE_GKE = "serving.kserve.io/gke-accelerator"


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    value = resource.annotations.get(_KSERVE_GKE)
    advice = _advice(GKE_ACCELERATOR, str(value)) if isinstance(value, str) else None
    if advice is not None:
        yield Report(
            ("metadata", "annotations", _KSERVE_GKE),
            f"{_KSERVE_GKE} {value!r} (a {GKE_ACCELERATOR} value) matches no GPU node: {advice}",
            at="value",
            fix=builders.label_value(
                ("metadata", "annotations", _KSERVE_GKE), GKE_ACCELERATOR, str(value)
            ),
        )
    if resource.kind == "Node" and resource.api_version == "v1":
        yield from _node_labels(resource)
    for pod in resource.pod_specs:
        for req in label_requirements(pod.spec):
            if req.operator != "In":
                continue
            if req.key in (PRODUCT, GKE_ACCELERATOR):
                judge = _advice
            elif known_values(req.key):
                judge = _family_advice
            else:
                continue
            # Another value of the list that GPUs do report: the pod still schedules there,
            # and the unknown value is only dead text (advice, a note).
            others = [v for v in req.values if _reported(req.key, v)]
            for index, value in enumerate(req.values):
                advice = judge(req.key, value)
                if advice is None:
                    continue
                # A nodeSelector entry is reported at its value; an expression at that value.
                path = req.path if req.term is None else req.path + ("values", index)
                effect = (
                    f"the pod still schedules on {_either(others)}, and this value selects nothing"
                    if others
                    else "label values are exact and case-sensitive; the pod stays Pending"
                )
                yield Report(
                    pod.path + path,
                    f"{req.key} {value!r} matches no GPU node: {advice} ({effect})",
                    at="value",
                    fix=builders.label_value(pod.path + path, req.key, value),
                    severity=Severity.NOTE if others else None,
                )
