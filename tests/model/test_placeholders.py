"""The one placeholder recogniser (template syntaxes, angle brackets, marker words; ordinary
values stay values), and the rules that read a value leaving placeholders alone."""

from __future__ import annotations

import pytest

from gpulint.model.placeholders import is_placeholder, is_sole_placeholder
from tests.helpers import CPU_POD, gpu_pod, lint, lint_known, where


@pytest.mark.parametrize(
    "value",
    [
        "{{ .Values.image }}",  # Go / Helm
        "{{workflow.parameters.gpus}}",  # Argo
        "{{inputs.parameters.image}}",
        "{% if gpu %}a100{% endif %}",  # Jinja
        "${IMAGE}",  # envsubst
        "${GPUS:-1}",
        "$IMAGE",
        "$(NODE_GPU)",  # the kubelet, Kustomize vars
        "repo/server:%VERSION%",
        "repo/server:@TAG@",
        "__IMAGE__",
        "#{ImageName}#",
        "${{ env.IMAGE }}",
        "REPLACE_REPO/server:latest",
        "REPLACE_IMAGE:REPLACE_TAG",
        "<your-registry>/server",
        "<none>",
        "REPLACE_MODEL_SERVER_IMAGE",
        "YOUR_IMAGE",
        "CHANGEME",
        "PLACEHOLDER",
        "TODO",
        "myrepo/server:TBD",
        "your-registry.io/server",
        "FILLED BY THE OPERATOR",
    ],
)
def test_placeholders_are_recognised(value):
    assert is_placeholder(value)


@pytest.mark.parametrize(
    "value",
    [
        "nvcr.io/nvidia/pytorch:24.05-py3",
        "vllm/vllm-openai:latest",
        "NVIDIA-A100-SXM4-80GB",
        "Quadro_RTX_5000",
        "Always",
        "ALL",
        "0,1",
        "2",
        "TODAY",
        "CHANGELOG",
        "ENTERPRISE",
        "yourself",
        "100%",
        "user@example.com",
        "a < b",
        "$",
        "__init__",
        "#1",
        "my-registry/app:IMAGE_TAG",
    ],
)
def test_ordinary_values_are_values(value):
    assert not is_placeholder(value)


def test_non_strings_are_values():
    assert not is_placeholder(1)
    assert not is_placeholder(None)


@pytest.mark.parametrize(
    ("value", "sole"),
    [
        ("${IMAGE}", True),
        ("{{ .Values.x }}", True),
        ("REPLACE_ME", True),
        ("$HF_TOKEN", True),
        ("${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64", False),
        ("repo/REPLACE_ME:1", False),
        ("plain", False),
    ],
)
def test_sole_placeholder(value, sole):
    assert is_sole_placeholder(value) is sole


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


def test_gpu501_placeholder_profile_is_not_judged(tmp_path):
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: x/y:1
      resources:
        limits: {"nvidia.com/mig-${PROFILE}": 1, nvidia.com/mig-1g.11gb: 1}
"""
    found = lint(tmp_path, text, "--select", "GPU501")
    assert [f["message"].split(":")[0] for f in found] == ["nvidia.com/mig-1g.11gb"]


def test_gpu901_placeholder_gpu_count_is_not_a_mismatch(tmp_path):
    text = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: r}
spec:
  headGroupSpec:
    rayStartParams: {num-gpus: "2"}
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.9.0-gpu
            resources: {limits: {nvidia.com/gpu: "$(GPUS)"}}
"""
    assert lint(tmp_path, text, "--select", "GPU901") == []
    held = text.replace('"$(GPUS)"', "1")
    assert where(lint(tmp_path, held, "--select", "GPU901")) == [("GPU901", 6, 32)]
