"""The scheduling rules judge values, not placeholders (model/placeholders.py)."""

from __future__ import annotations

import pytest

from tests.helpers import CPU_POD, gpu_pod, lint, lint_known, where


@pytest.mark.parametrize(
    "value",
    ["'{{workflow.parameters.gpu}}'", "${GPU_PRODUCT}", "REPLACE_WITH_GPU_PRODUCT", "<gpu-type>"],
)
def test_placeholder_selector_values_are_not_judged(tmp_path, value):
    scheduling = f"  nodeSelector:\n    nvidia.com/gpu.product: {value}"
    known = lint_known(tmp_path, gpu_pod(scheduling), "--select", "GPU201,GPU205,GPU206")
    assert known == []
    # on a key of its own: it may name a model once filled in
    own = f"  nodeSelector:\n    example.com/gpu: {value}"
    assert lint_known(tmp_path, gpu_pod(own), "--select", "GPU201") == []
    # on a key whose values are never a GPU model, it selects none
    zone = f"  nodeSelector:\n    topology.kubernetes.io/zone: {value}"
    found = lint_known(tmp_path, gpu_pod(zone), "--select", "GPU201")
    assert where(found) == [("GPU201", 13, 11)]


def test_gpu205_placeholder_is_no_contradiction_but_values_still_are(tmp_path):
    scheduling = """\
  nodeSelector:
    nvidia.com/gpu.product: Tesla-T4
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: nvidia.com/gpu.product, operator: In, values: ["${GPU}"]}"""
    assert lint(tmp_path, gpu_pod(scheduling), "--select", "GPU205") == []
    real = scheduling.replace('"${GPU}"', "NVIDIA-L4")
    assert [f["code"] for f in lint(tmp_path, gpu_pod(real), "--select", "GPU205")] == ["GPU205"]


def test_gpu204_a_placeholder_value_does_not_say_gpu_nodes(tmp_path):
    text = CPU_POD.format(key="nvidia.com/gpu.present", value="${GPU_PRESENT}")
    assert lint(tmp_path, text, "--select", "GPU204") == []
    real = CPU_POD.format(key="nvidia.com/gpu.present", value="'true'")
    assert where(lint(tmp_path, real, "--select", "GPU204")) == [("GPU204", 7, 5)]
