"""Providers' GPU label families and GPU instance types (GPU201, GPU204, GPU206)."""

from __future__ import annotations

import pytest

from tests.helpers import CPU_POD, gpu_pod, lint, lint_known, where


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("gpu.nvidia.com/class", "A40"),
        ("gpu.nvidia.com/class", "RTX_A5000"),
        ("gpu.nvidia.com/class", "Quadro_RTX_5000"),
        ("gpu.nvidia.com/model", "RTX_A6000"),
        ("gpu.nvidia.com/vram", "'24'"),
        ("karpenter.k8s.aws/instance-gpu-manufacturer", "nvidia"),
        ("karpenter.k8s.aws/instance-gpu-count", "'8'"),
        ("karpenter.k8s.aws/instance-gpu-memory", "'81920'"),
        ("eks.amazonaws.com/instance-gpu-manufacturer", "nvidia"),
        ("karpenter.azure.com/sku-gpu-name", "A100"),
    ],
)
def test_gpu201_a_provider_family_key_selects_the_gpu(tmp_path, key, value):
    scheduling = f"  nodeSelector:\n    {key}: {value}"
    assert lint(tmp_path, gpu_pod(scheduling), "--select", "GPU201") == []


def test_gpu201_family_key_in_an_affinity_expression(tmp_path):
    scheduling = """\
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: gpu.nvidia.com/class, operator: In, values: [A100_PCIE_80GB]}"""
    assert lint_known(tmp_path, gpu_pod(scheduling), "--select", "GPU201") == []
    # Exists says only that the node has some GPU
    exists = scheduling.replace("operator: In, values: [A100_PCIE_80GB]", "operator: Exists")
    found = lint_known(tmp_path, gpu_pod(exists), "--select", "GPU201")
    assert where(found) == [("GPU201", 17, 11)]
    assert "gpu.nvidia.com/class only says the node has a GPU" in found[0]["message"]


def test_gpu206_still_suggests_for_a_misspelt_value(tmp_path):
    scheduling = "  nodeSelector:\n    nvidia.com/gpu.product: TESLA-T4"
    found = lint(tmp_path, gpu_pod(scheduling), "--select", "GPU206")
    assert where(found) == [("GPU206", 7, 29)]


@pytest.mark.parametrize(
    ("value", "meant"),
    [
        ("NVIDIA-H100-SXM5-80GB", "NVIDIA-H100-80GB-HBM3"),
        ("NVIDIA-H100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3"),
        ("NVIDIA-B200-SXM6", "NVIDIA-B200"),
    ],
)
def test_gpu206_a_module_word_no_gpu_name_has(tmp_path, value, meant):
    # issue 24: people write the SXM module into the product; NVML's names never hold it
    scheduling = f"  nodeSelector:\n    nvidia.com/gpu.product: {value}"
    found = lint(tmp_path, gpu_pod(scheduling), "--select", "GPU206")
    assert where(found) == [("GPU206", 7, 29)]
    assert f"did you mean {meant}?" in found[0]["message"]


def test_gpu206_a_nodes_own_product_label(tmp_path):
    # issue 24: a Node labelled with a name no GPU reports (set by hand) is checked too
    node = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-0\n  labels:\n"
        "    nvidia.com/gpu.product: NVIDIA-H100-SXM4-80GB\n"
    )
    found = lint(tmp_path, node, "--select", "GPU206")
    assert where(found) == [("GPU206", 6, 29)]
    assert "did you mean NVIDIA-H100-80GB-HBM3?" in found[0]["message"]
    real = node.replace("NVIDIA-H100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3")
    assert lint(tmp_path, real, "--select", "GPU206") == []


def test_gpu206_an_unknown_value_beside_real_products_is_a_note(tmp_path):
    # issue 24: the pod still schedules on the list's other values; the unknown one is dead
    scheduling = """\
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: In
                values: [NVIDIA-H100-80GB-HBM3, NVIDIA-H100-SXM4-80GB]"""
    found = lint(tmp_path, gpu_pod(scheduling), "--select", "GPU206")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU206", 13, 49, "note")
    ]
    assert "the pod still schedules on NVIDIA-H100-80GB-HBM3" in found[0]["message"]
    alone = scheduling.replace(
        "[NVIDIA-H100-80GB-HBM3, NVIDIA-H100-SXM4-80GB]", "[NVIDIA-H100-SXM4-80GB]"
    )
    found = lint(tmp_path, gpu_pod(alone), "--select", "GPU206")
    assert [f["severity"] for f in found] == ["warning"]
    assert "the pod stays Pending" in found[0]["message"]


def test_gpu204_a_gpu_instance_type_selects_gpu_nodes(tmp_path):
    text = CPU_POD.format(key="node.kubernetes.io/instance-type", value="p4d.24xlarge")
    found = lint(tmp_path, text, "--select", "GPU204")
    assert where(found) == [("GPU204", 7, 5)]
    cpu = CPU_POD.format(key="node.kubernetes.io/instance-type", value="m5.large")
    assert lint(tmp_path, cpu, "--select", "GPU204") == []


def test_gpu201_instance_types_outside_the_table_still_count(tmp_path):
    # CoreWeave names its instance types itself: a machine type comes with its GPU
    scheduling = "  nodeSelector:\n    node.kubernetes.io/instance-type: gd-8xh100ib-i128"
    assert lint(tmp_path, gpu_pod(scheduling), "--select", "GPU201") == []


def test_gpu206_coreweave_class_misspelt_by_case_or_separators(tmp_path):
    scheduling = """\
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: gpu.nvidia.com/class
                operator: In
                values: [rtx-a5000, A40, H200_NVL, "${CLASS}"]"""
    found = lint(tmp_path, gpu_pod(scheduling), "--select", "GPU201,GPU206")
    # a documented class, a class gpulint does not list and a placeholder pass; GPU201 is silent
    assert where(found) == [("GPU206", 13, 26)]
    assert "'rtx-a5000' matches no GPU node: did you mean RTX_A5000?" in found[0]["message"]


def test_gpu206_names_of_drivers_before_r470_are_no_reported_value(tmp_path):
    # A list of only pre-R470 names: no node reports either, so the pod stays Pending (a
    # warning), not a note that claims it "still schedules" on the other old name.
    scheduling = """\
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: In
                values: [A100-SXM4-40GB, A100-SXM4-80GB]"""
    found = lint(tmp_path, gpu_pod(scheduling), "--select", "GPU206")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU206", 13, 26, "warning"),
        ("GPU206", 13, 42, "warning"),
    ]
    assert all("the pod stays Pending" in f["message"] for f in found)
    # Beside the name current drivers report, the old one is dead text: a note.
    both = scheduling.replace("A100-SXM4-80GB]", "NVIDIA-A100-SXM4-40GB]")
    found = lint(tmp_path, gpu_pod(both), "--select", "GPU206")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU206", 13, 26, "note")
    ]
    assert "the pod still schedules on NVIDIA-A100-SXM4-40GB" in found[0]["message"]
