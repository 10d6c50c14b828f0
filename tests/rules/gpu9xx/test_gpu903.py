"""GPU903 kubeai-resource-profile-invalid: a KubeAI Model's resourceProfile that is not
<profile>:<count>."""

from __future__ import annotations

from tests.helpers import lint, where

KUBEAI_MODEL = """\
    apiVersion: kubeai.org/v1
    kind: Model
    metadata:
      name: llama
    spec:
      features: [TextGeneration]
      url: hf://meta-llama/Meta-Llama-3.1-8B-Instruct
      engine: VLLM
      resourceProfile: nvidia-gpu-l4
    """


def test_gpu903_kubeai_resource_profile_without_a_count(tmp_path):
    findings = lint(tmp_path, KUBEAI_MODEL, "--select", "GPU903")
    assert where(findings) == [("GPU903", 9, 20)]
    assert "should match <name>:<multiple>" in findings[0]["message"]
    bad_count = KUBEAI_MODEL.replace("nvidia-gpu-l4", "nvidia-gpu-l4:two")
    found = lint(tmp_path, bad_count, "--select", "GPU903")
    assert where(found) == [("GPU903", 9, 20)]
    assert 'invalid multiple in resource profile multiple: "two"' in found[0]["message"]
    for fine in ("nvidia-gpu-l4:2", "'{{ .Values.profile }}'"):
        text = KUBEAI_MODEL.replace("nvidia-gpu-l4", fine)
        assert lint(tmp_path, text, "--select", "GPU903") == []
