"""One root cause, one finding: rule pairs that would both report the same mistake.

(GPU301/GPU302 are in test_rules_images.py, GPU102/GPU103 in test_rules_resources.py,
GPU701/GPU702 in test_rules_isolation.py.)"""

from __future__ import annotations

from tests.conftest import lint, where

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
    found = lint(tmp_path, aimed, "--select", "GPU203,GPU204")
    assert where(found) == [("GPU204", 5, 18)]
    # without the selection, the toleration alone is GPU203's
    alone = CPU_POD.format(scheduling="")
    assert where(lint(tmp_path, alone, "--select", "GPU203,GPU204")) == [("GPU203", 5, 18)]
