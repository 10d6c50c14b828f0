"""
## What it checks
A KubeRay head or worker group (RayCluster, RayJob, RayService; `ray.io/v1` and
`v1alpha1`) whose `rayStartParams.num-gpus` differs from the GPUs its Ray
container (the first container of the pod template) holds.

A Ray node that holds no GPU and runs a CPU image (no `gpu`, `cuda` or `cuXYZ`
in the image name) is left alone: declaring logical GPUs there is a deliberate
Ray idiom for testing GPU scheduling on CPU-only clusters.

## Why it matters
KubeRay passes `num-gpus` to `ray start` as the number of GPUs the Ray node
offers; only when it is absent does KubeRay read it from the container's GPU
limit. Set higher than the container holds, Ray schedules GPU tasks and actors
onto GPUs that do not exist in the pod and they fail at CUDA initialisation;
set lower, GPUs the pod holds (and the cluster pays for) sit idle, and with
`num-gpus: "0"` Ray never places GPU work there at all.

## Failing example
```yaml
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: llm
spec:
  headGroupSpec:
    rayStartParams:
      num-gpus: "0"
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.9.0
  workerGroupSpecs:
    - groupName: gpu
      replicas: 2
      rayStartParams:
        num-gpus: "4"  # <- GPU901
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.9.0-gpu
              resources:
                limits:
                  nvidia.com/gpu: 2
```

## Passing example
```yaml
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: llm
spec:
  headGroupSpec:
    rayStartParams:
      num-gpus: "0"
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.9.0
  workerGroupSpecs:
    - groupName: gpu
      replicas: 2
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.9.0-gpu
              resources:
                limits:
                  nvidia.com/gpu: 2
```

## How to fix
Remove `num-gpus` from `rayStartParams` and let KubeRay read it from the Ray
container's GPU limit, or make the two agree. Fractional GPUs belong in the
tasks (`@ray.remote(num_gpus=0.5)`), not in `rayStartParams`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpulint.model.kinds import table
from gpulint.model.kinds.crds import RAY_CLUSTER_SPEC
from gpulint.model.values.gpu_resources import as_fraction, count_unknown, total_gpus
from gpulint.model.values.quantity import Amount
from gpulint.rules.api import Context, PodSpec, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU901",
    "ray-gpus-mismatch",
    Severity.WARNING,
    "A Ray node's rayStartParams.num-gpus differs from the GPUs its Ray container holds.",
    __doc__,
    reads=mentions("ray.io"),  # a KubeRay object's API group
)

_KEY = "num-gpus"
# Ray's GPU images: rayproject/ray:2.9.0-gpu, ray-ml:...-cu121, CUDA base images.
_GPU_IMAGE = re.compile(r"gpu|cuda|(?<![a-z])cu[0-9]{2,3}|nvcr\.io/")


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    cluster = RAY_CLUSTER_SPEC.get(resource.kind)
    if cluster is None or not resource.api_version.startswith("ray.io/"):
        return
    groups: list[tuple[tuple, str]] = [(cluster + ("headGroupSpec",), "head")]
    workers = table.get(resource.obj, cluster + ("workerGroupSpecs",))
    if isinstance(workers, list):
        for i, group in enumerate(workers):
            name = group.get("groupName") if isinstance(group, dict) else None
            groups.append((cluster + ("workerGroupSpecs", i), f"worker group {name or i}"))
    pods = {pod.path: pod for pod in resource.pod_specs}
    for group_path, role in groups:
        params = table.get(resource.obj, group_path + ("rayStartParams",))
        if not isinstance(params, dict) or _KEY not in params:
            continue
        declared = as_fraction(params[_KEY])
        pod = pods.get(group_path + ("template", "spec"))
        if declared is None or pod is None:
            continue
        report = _mismatch(pod, declared, params[_KEY], role)
        if report is not None:
            yield Report(group_path + ("rayStartParams", _KEY), *report, at="value")


def _mismatch(
    pod: PodSpec, declared: Amount, raw: object, role: str
) -> tuple[str, str | None] | None:
    ray = pod.regular_containers()[:1]  # KubeRay's Ray container is the first one
    if not ray or count_unknown(ray[0].data):
        return None  # no Ray container, or its GPU count is still a placeholder
    held = total_gpus(ray[0].gpus)
    if declared == held or (held == 0 and not _GPU_IMAGE.search(ray[0].image.lower())):
        return None
    what = ", ".join(f"{n}: {c}" for n, c in sorted(ray[0].gpus.items())) or "no GPU"
    if declared > held:
        effect = (
            f"Ray schedules GPU tasks onto {declared - held} GPU(s) the pod does not have; "
            "they fail at CUDA initialisation"
        )
    else:
        effect = f"{held - declared} GPU(s) the pod holds are never used by Ray"
    message = (
        f"Ray {role}: rayStartParams num-gpus is {raw!s} but the Ray container "
        f"{ray[0].name!r} holds {held} GPU(s) ({what}); {effect}. Remove num-gpus "
        "to let KubeRay read it from the container's GPU limit"
    )
    return message, ray[0].name
