"""Each fix where it applies and where it must not: exact text after --fix."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
    "    - name: c\n      image: {image}\n{extra}"
)


def fixed(tmp_path: Path, text: str, code: str, *args: str, name: str = "m.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    run_cli("check", str(path), "--select", code, "--fix", *args)
    return path.read_text()


def fixes(tmp_path: Path, text: str, code: str) -> list:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    data = json.loads(run_cli("check", str(path), "--select", code, "--format", "json").output)
    return [f["fix"] for f in data["findings"]]


DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
spec:
  selector:
    matchLabels: {app: dp}
  template:
    metadata:
      labels: {app: dp}
    spec:
      containers:
        - name: plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
          args: ["--mig-strategy=mixd", "--fail-on-init-error=false"]
          env:
            - name: MIG_STRATEGY
              value: "Single"
---
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  mig:
    strategy: singel
"""


def test_gpu402_every_site_keeps_its_quoting(tmp_path):
    assert fixed(tmp_path, DAEMONSET, "GPU402") == DAEMONSET.replace(
        "--mig-strategy=mixd", "--mig-strategy=mixed"
    ).replace('"Single"', '"single"').replace("strategy: singel", "strategy: single")


def test_gpu402_no_fix_without_exactly_one_candidate(tmp_path):
    text = "# file\nmigStrategy: bogus\n"
    path = tmp_path / "values.yaml"
    path.write_text(text)
    data = json.loads(run_cli("check", str(path), "--select", "GPU402", "--format", "json").output)
    assert [f["code"] for f in data["findings"]] == ["GPU402"]
    assert data["findings"][0]["fix"] is None


def test_gpu206_spaces_become_dashes_as_gfd_writes_them(tmp_path):
    text = POD.format(image="i:1", extra="      resources: {limits: {nvidia.com/gpu: 1}}\n") + (
        "  nodeSelector:\n    nvidia.com/gpu.product: 'NVIDIA A100-SXM4-80GB'  # the node pool\n"
    )
    assert fixed(tmp_path, text, "GPU206", "--unsafe-fixes") == text.replace(
        "'NVIDIA A100-SXM4-80GB'", "'NVIDIA-A100-SXM4-80GB'"
    )


def test_gpu010_deletes_a_repeated_block(tmp_path):
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    app: x\n"
        "  labels:\n    app: x\n  # kept\ndata:\n  k: v\n"
    )
    assert fixed(tmp_path, text, "GPU010") == (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    app: x\n"
        "  # kept\ndata:\n  k: v\n"
    )


def test_gpu706_only_for_variables_defined_earlier(tmp_path):
    extra = (
        "      env:\n        - name: A\n          value: $B/x\n"
        "        - name: B\n          value: /b\n"
        "      resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    assert fixes(tmp_path, POD.format(image="i:1", extra=extra), "GPU706") == [None]


def test_gpu301_leaves_an_image_still_to_be_filled_in(tmp_path):
    # A placeholder is not a value: whether it names a version is unknown.
    extra = "      imagePullPolicy: Always\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
    assert fixes(tmp_path, POD.format(image="$(IMAGE)", extra=extra), "GPU301") == []
    assert fixes(tmp_path, POD.format(image="i:1", extra=extra), "GPU301") != []


def test_gpu102_copies_the_limit_as_written(tmp_path):
    extra = (
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
        '        limits:\n          nvidia.com/gpu: "2"\n'
    )
    text = POD.format(image="i:1", extra=extra)
    assert fixed(tmp_path, text, "GPU102", "--unsafe-fixes") == text.replace(
        "nvidia.com/gpu: 1", 'nvidia.com/gpu: "2"'
    )


def test_gpu102_is_not_applied_without_unsafe_fixes(tmp_path):
    extra = (
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
        "        limits:\n          nvidia.com/gpu: 2\n"
    )
    text = POD.format(image="i:1", extra=extra)
    assert fixed(tmp_path, text, "GPU102") == text


def test_gpu705_mounts_an_existing_dshm_volume_in_the_second_container(tmp_path):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: a\n    image: i:1\n    command: [torchrun, t.py]\n"
        "    resources: {limits: {nvidia.com/gpu: 2}}\n"
        "  - name: b\n    image: i:1\n    command: [torchrun, t.py]\n"
        "    resources: {limits: {nvidia.com/gpu: 2}}\n"
        "    volumeMounts:\n    - {name: data, mountPath: /data}\n"
        "  volumes:\n  - name: data\n    emptyDir: {}\n"
    )
    assert fixed(tmp_path, text, "GPU705", "--unsafe-fixes") == (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: a\n    image: i:1\n    command: [torchrun, t.py]\n"
        "    resources: {limits: {nvidia.com/gpu: 2}}\n"
        "    volumeMounts:\n    - name: dshm\n      mountPath: /dev/shm\n"
        "  - name: b\n    image: i:1\n    command: [torchrun, t.py]\n"
        "    resources: {limits: {nvidia.com/gpu: 2}}\n"
        "    volumeMounts:\n    - {name: data, mountPath: /data}\n"
        "    - name: dshm\n      mountPath: /dev/shm\n"
        "  volumes:\n  - name: data\n    emptyDir: {}\n"
        "  - name: dshm\n    emptyDir:\n      medium: Memory\n"
    )


def test_gpu101_into_flow_limits_is_refused_with_the_reason(tmp_path):
    extra = (
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
        "        limits: {cpu: 1}\n"
    )
    [fix] = fixes(tmp_path, POD.format(image="i:1", extra=extra), "GPU101")
    assert fix["applicable"] is False
    assert (
        fix["reason"]
        == "not fixable here: the collection is written in flow style ({...} or [...])"
    )
    result = run_cli("check", str(tmp_path / "m.yaml"), "--select", "GPU101", "--fix", "-v")
    assert f"1 fix(es) not applied: {fix['reason']}" in result.output
