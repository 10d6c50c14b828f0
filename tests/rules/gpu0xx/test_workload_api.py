"""GPU012 workload-api-unserved: built-in GPU workloads in versions no Kubernetes serves."""

from __future__ import annotations

import pytest

from tests.helpers import lint, where

_CONTAINERS = """\
      containers:
        - name: c
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def _workload(api_version: str, kind: str, gpu: bool = True) -> str:
    containers = _CONTAINERS if gpu else _CONTAINERS.replace("nvidia.com/gpu", "memory")
    if kind == "Pod":
        body = "spec:\n" + containers.replace("\n    ", "\n")[4:]
    elif kind == "CronJob":
        body = (
            "spec:\n  schedule: '0 * * * *'\n  jobTemplate:\n    spec:\n      template:\n"
            "        spec:\n" + "".join("    " + line + "\n" for line in containers.splitlines())
        )
    else:
        body = "spec:\n  template:\n    spec:\n" + containers
    return f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: w\n{body}"


@pytest.mark.parametrize(
    ("api_version", "kind", "why"),
    [
        ("extensions/v1beta1", "Deployment", "removed in Kubernetes 1.16"),
        ("apps/v1beta2", "DaemonSet", "removed in Kubernetes 1.16"),
        ("apps/v1beta1", "StatefulSet", "removed in Kubernetes 1.16"),
        ("batch/v1beta1", "CronJob", "removed in Kubernetes 1.25"),
        ("batch/v1", "Deployment", "batch never served Deployment"),
        ("apps/v1", "Job", "apps never served Job"),
        ("apps/v1", "Pod", "apps never served Pod"),
    ],
)
def test_gpu012_unserved_versions(tmp_path, api_version, kind, why):
    found = lint(tmp_path, _workload(api_version, kind), "--select", "GPU012")
    assert where(found) == [("GPU012", 1, 13)]
    assert f"{kind} in {api_version} ({why})" in found[0]["message"]
    assert f'no matches for kind "{kind}" in version "{api_version}"' in found[0]["message"]
    assert found[0]["severity"] == "error"


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("apps/v1", "Deployment"),
        ("batch/v1", "CronJob"),
        ("v1", "Pod"),
        ("example.com/v1", "Deployment"),  # a custom resource of the same name
        ("${API_VERSION}", "Deployment"),  # filled in later
    ],
)
def test_gpu012_served_versions_and_other_groups_pass(tmp_path, api_version, kind):
    assert lint(tmp_path, _workload(api_version, kind), "--select", "GPU012") == []


def test_gpu012_leaves_workloads_without_gpus_to_other_linters(tmp_path):
    text = _workload("extensions/v1beta1", "Deployment", gpu=False)
    assert lint(tmp_path, text, "--select", "GPU012") == []


def test_gpu012_the_pod_template_is_still_judged(tmp_path):
    text = _workload("extensions/v1beta1", "Deployment").replace("gpu: 1", "gpu: 0.5")
    found = lint(tmp_path, text, "--select", "GPU012,GPU103")
    assert where(found) == [("GPU012", 1, 13), ("GPU103", 13, 31)]
