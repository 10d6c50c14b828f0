"""One root cause, one finding: rule pairs that would both report the same mistake.

Here GPU203/GPU204 and GPU801/GPU802; GPU301/GPU302 are in gpu3xx/test_images.py,
GPU102/GPU103 in gpu1xx/test_resources.py, GPU701/GPU702 in gpu7xx/test_isolation.py."""

from __future__ import annotations

from tests.helpers import lint, lint_known, where

CPU_POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
{scheduling}  tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
  containers:
    - name: c
      image: busybox:1.36
"""


def test_gpu_node_selection_and_toleration_without_gpu_is_gpu204_alone(tmp_path):
    aimed = CPU_POD.format(scheduling="  nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n")
    found = lint_known(tmp_path, aimed, "--select", "GPU203,GPU204")
    assert where(found) == [("GPU204", 5, 18)]
    # without the selection, the toleration alone is GPU203's
    alone = CPU_POD.format(scheduling="")
    assert where(lint_known(tmp_path, alone, "--select", "GPU203,GPU204")) == [("GPU203", 5, 18)]


def test_a_misspelt_claim_reference_is_gpu801_alone(tmp_path):
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
    - {name: gpus, resourceClaimTemplateName: gpu-template}
    - {name: spare, resourceClaimTemplateName: gpu-template}
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        claims: [{name: gpu}]
"""
    found = lint(tmp_path, text, "--select", "GPU801,GPU802")
    # the typo once (GPU801 suggests 'gpus'); the claim nothing refers to is still GPU802's
    assert where(found) == [("GPU802", 7, 8), ("GPU801", 12, 25)]
    assert "did you mean 'gpus'?" in found[1]["message"]
