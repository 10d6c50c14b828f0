"""The one placeholder recogniser: template syntaxes, angle brackets, marker words; ordinary
values stay values. The rules that leave placeholders alone are tested in their series
(rules/gpu2xx/test_placeholders.py, gpu5xx/test_mig.py, gpu9xx/test_ray.py)."""

from __future__ import annotations

import pytest

from gpulint.model.values.placeholders import is_placeholder, is_sole_placeholder


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
