"""GPU label families and instance types (model/gpu_labels.py)."""

from __future__ import annotations

import pytest

from gpulint.model.gpu.label_families import is_gpu_instance_type, names_gpu_instances


@pytest.mark.parametrize(
    ("value", "gpu"),
    [
        ("p4d.24xlarge", True),
        ("g6e.xlarge", True),
        ("g4dn.xlarge", True),
        ("a2-highgpu-1g", True),
        ("g2-standard-8", True),
        ("Standard_NC24ads_A100_v4", True),
        ("Standard_ND96asr_v4", True),
        ("VM.GPU.A10.1", True),
        ("BM.GPU4.8", True),
        ("m5.large", False),
        ("c6i.xlarge", False),
        ("n2-standard-8", False),
        ("Standard_D16s_v5", False),
        ("VM.Standard.E4.Flex", False),
        ("gd-8xh100ib-i128", False),  # CoreWeave's own instance IDs: not in the table
    ],
)
def test_gpu_instance_types(value, gpu):
    assert is_gpu_instance_type(value) is gpu


def test_instance_families():
    assert names_gpu_instances("karpenter.k8s.aws/instance-family", ("p5", "g6"))
    assert not names_gpu_instances("karpenter.k8s.aws/instance-family", ("p5", "m5"))
    assert not names_gpu_instances("example.com/instance", ("p5",))
    assert names_gpu_instances("karpenter.k8s.aws/instance-category", ("g", "p"))
    assert not names_gpu_instances("karpenter.k8s.aws/instance-category", ("g", "m"))
