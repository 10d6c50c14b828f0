"""
## What it checks
An ML operator's object written for an API version no operator release of the
last years serves:

- `MPIJob` in `kubeflow.org/v1alpha1` or `v1alpha2`: removed from mpi-operator
  in November 2021 (kubeflow/mpi-operator PR 438); mpi-operator v2 serves
  `kubeflow.org/v2beta1`, the training operator `kubeflow.org/v1`;
- `TFJob` and `PyTorchJob` in `kubeflow.org/v1alpha1`, `v1alpha2`, `v1beta1` or
  `v1beta2`: pytorch-operator dropped them in 2018-2019 (PRs 110, 166, 222),
  tf-operator moved to `v1` in 2019 (PR 993), and the training operator that
  replaced both serves only `kubeflow.org/v1`;
- anything in KFServing's `serving.kubeflow.org`: KFServing became KServe in
  0.7 (October 2021), which serves `InferenceService` as
  `serving.kserve.io/v1beta1`; its migration job moves the old objects and
  deletes KFServing ("Migrating from KFServing", KServe docs). The message
  says what it assumes: a platform still on KFServing 0.6 or older serves the
  group (Kubeflow 1.3 shipped it), and for such a cluster the finding is moot.

`ray.io/v1alpha1` is not reported: KubeRay still serves it beside `ray.io/v1`
(frozen since v1.0, kuberay issue 5124). The pod templates of these objects are
still read, so every other rule applies to them too.

## Why it matters
`kubectl apply` fails with `no matches for kind "MPIJob" in version
"kubeflow.org/v1alpha2"` (or, for KServe, `serving.kubeflow.org/v1beta1`): the
job or model server never reaches the cluster. Such manifests come from
tutorials and examples of the operators' early releases.

## Failing example
```yaml
apiVersion: kubeflow.org/v1alpha2  # <- GPU902
kind: MPIJob
metadata:
  name: horovod
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: horovod/horovod:0.28.1
              resources:
                limits:
                  nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: horovod
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: horovod/horovod:0.28.1
              resources:
                limits:
                  nvidia.com/gpu: 1
```

## How to fix
Move the object to the version the operator serves (`kubeflow.org/v2beta1` or
`v1` for MPIJob, `kubeflow.org/v1` for TFJob and PyTorchJob,
`serving.kserve.io/v1beta1` for InferenceService), adapting the fields that
changed between them (the operators' migration guides list them).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU902",
    "ml-operator-api-unserved",
    Severity.ERROR,
    "An ML operator's object uses an API version that its operator no longer serves.",
    __doc__,
    # every group it reports (UNSERVED's and KFSERVING_GROUP) ends so
    reads=mentions("kubeflow.org"),
)

_OLD_TRAINING = frozenset({"v1alpha1", "v1alpha2", "v1beta1", "v1beta2"})
# (group, kind) -> (versions no longer served, what serves the kind now, since when).
UNSERVED: dict[tuple[str, str], tuple[frozenset[str], str, str]] = {
    ("kubeflow.org", "MPIJob"): (
        frozenset({"v1alpha1", "v1alpha2"}),
        "kubeflow.org/v2beta1 (mpi-operator v2) or kubeflow.org/v1 (the training operator)",
        "mpi-operator removed it in November 2021 (PR 438)",
    ),
    ("kubeflow.org", "TFJob"): (
        _OLD_TRAINING,
        "kubeflow.org/v1",
        "tf-operator moved to v1 in 2019 and the training operator serves only v1",
    ),
    ("kubeflow.org", "PyTorchJob"): (
        _OLD_TRAINING,
        "kubeflow.org/v1",
        "pytorch-operator dropped it in 2018-2019 and the training operator serves only v1",
    ),
}
KFSERVING_GROUP = "serving.kubeflow.org"


def problem(resource: Resource) -> str | None:
    """Why the object's API version is not served, or None."""
    if "/" not in resource.api_version:
        return None
    group, version = resource.api_version.rsplit("/", 1)
    if group == KFSERVING_GROUP:
        return (
            f"{resource.kind} in {resource.api_version}: KFServing became KServe in 0.7 "
            f"(October 2021), which serves serving.kserve.io/v1beta1; a cluster running KServe "
            f'answers "no matches for kind {resource.kind!r} in version '
            f'{resource.api_version!r}" (this assumes KServe: only a platform still on '
            f"KFServing 0.6 or older, unmaintained since 2021, serves {group})"
        )
    known = UNSERVED.get((group, resource.kind))
    if known is None or version not in known[0]:
        return None
    return (
        f"{resource.kind} in {resource.api_version} is no longer served ({known[2]}); use "
        f'{known[1]}: kubectl apply fails with "no matches for kind {resource.kind!r} in '
        f'version {resource.api_version!r}"'
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    found = problem(resource)
    if found is not None:
        yield Report(("apiVersion",), found, at="value")
