"""GPUs through DRA are GPUs: GPU107, GPU301 and GPU302 count a container's claims (GPU705's
case: rules/gpu7xx/test_isolation.py)."""

from __future__ import annotations

from tests.helpers import findings_json, lint, where

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: two-gpus
spec:
  spec:
    devices:
      requests:
        - name: gpus
          exactly:
            deviceClassName: {device_class}
            {count}
---
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: server
spec:
  resourceClaims:
    - name: gpus
      resourceClaimTemplateName: two-gpus
  containers:
    - name: vllm
      image: vllm/vllm-openai:{tag}
      imagePullPolicy: Always
      args: [--model=m, --tensor-parallel-size=4]
      resources:
        claims:
          - name: gpus
"""


def manifest(
    device_class: str = "gpu.nvidia.com",
    count: str = "count: 2",
    tag: str = "v0.9.1",
    template: bool = True,
) -> str:
    head = TEMPLATE.format(device_class=device_class, count=count) if template else ""
    return head + POD.format(tag=tag)


CODES = ("--select", "GPU107,GPU301,GPU302,GPU705")

# Line of the pod's objects after the 13-line template document.
OFFSET = 13


def test_a_dra_claim_of_two_gpus_counts(tmp_path):
    found = lint(tmp_path, manifest(), *CODES)
    assert sorted(where(found)) == [
        ("GPU107", OFFSET + 13, 25),  # the --tensor-parallel-size=4 item
        ("GPU301", OFFSET + 12, 7),
        ("GPU705", OFFSET + 10, 7),  # the container's name
    ]
    gpu107 = next(f for f in found if f["code"] == "GPU107")
    assert "holds 2 (2 through ResourceClaimTemplate two-gpus request 'gpus')" in gpu107["message"]
    gpu705 = next(f for f in found if f["code"] == "GPU705")
    assert "the pod holds 2 GPUs" in gpu705["message"]


def test_latest_image_through_dra_is_gpu302(tmp_path):
    found = lint(tmp_path, manifest(tag="latest"), "--select", "GPU301,GPU302")
    assert where(found) == [("GPU302", OFFSET + 11, 7)]


def test_a_claim_the_run_does_not_define_is_not_counted(tmp_path):
    found = lint(tmp_path, manifest(template=False), *CODES)
    assert where(found, "GPU107") == [] and where(found, "GPU301") == []


def test_a_claim_of_another_device_class_holds_no_gpu(tmp_path):
    found = lint(tmp_path, manifest(device_class="rdma.example.com"), *CODES)
    assert where(found, "GPU107") == [] and where(found, "GPU301") == []


def test_allocation_mode_all_holds_gpus_of_unknown_count(tmp_path):
    found = lint(tmp_path, manifest(count="allocationMode: All"), *CODES)
    assert where(found, "GPU107") == []  # how many only the node knows
    assert where(found, "GPU301") == [("GPU301", OFFSET + 12, 7)]


def test_the_claim_in_another_file_of_the_run(tmp_path):
    (tmp_path / "claim.yaml").write_text(
        TEMPLATE.format(device_class="gpu.nvidia.com", count="count: 4")
    )
    (tmp_path / "pod.yaml").write_text(POD.format(tag="v0.9.1"))
    assert findings_json(str(tmp_path), "--select", "GPU107")["findings"] == []  # tp 4 on 4
    (tmp_path / "claim.yaml").write_text(TEMPLATE.format(device_class="gpu.nvidia.com", count=""))
    found = findings_json(str(tmp_path), "--select", "GPU107")["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("GPU107", 13)]  # one GPU by default
