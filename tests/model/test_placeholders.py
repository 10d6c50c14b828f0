"""The one placeholder recogniser: template syntaxes, angle brackets, marker words; ordinary
values stay values. The rules that leave placeholders alone are tested in their series
(rules/gpu2xx/test_placeholders.py, gpu5xx/test_mig.py, gpu9xx/test_ray.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpulint.model.values import placeholders
from gpulint.model.values.placeholders import is_placeholder, is_sole_placeholder

RECOGNISED = [
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
    # Sample images whose tag is still to be filled in (KAITO's test manifests).
    "REPO_HERE.azurecr.io/falcon-40b-instruct:TAG_HERE",
    "REPO/llama-2-13b-chat:TAG",
    "my-registry/app:IMAGE_TAG",
    "server:VERSION",
    "INSERT_IMAGE",
]


@pytest.mark.parametrize("value", RECOGNISED)
def test_placeholders_are_recognised(value):
    assert is_placeholder(value)


ORDINARY = [
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
    "WHERE",
    "TAGS",
    "nvcr.io/nvidia/tritonserver:24.05-py3",
    "yourself",
    "100%",
    "user@example.com",
    "a < b",
    "$",
    "__init__",
    "#1",
]


@pytest.mark.parametrize("value", ORDINARY)
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


def test_the_substring_tests_before_the_patterns_change_no_answer():
    """is_placeholder tries _ANY and _YOUR only on values holding what they need."""
    values = [*RECOGNISED, *ORDINARY, "YOUR-bucket", "yOuRrepo/x", "FILLED_BY", "x{{y}}", "<A>"]
    for value in values:
        whole = bool(
            placeholders._MAYBE.search(value)
            and (
                placeholders._ANY.search(value)
                or placeholders._YOUR.search(value)
                or placeholders._marker_word(value)
            )
        )
        assert is_placeholder(value) is whole, value


def test_an_all_caps_value_is_decided_without_the_syntax_patterns():
    code = (
        "import gpulint.model.values.placeholders as p\n"
        "assert not p.is_placeholder('NVIDIA-A100-SXM4-80GB') and p.is_placeholder('TODO')\n"
        "print(p._ANY._compiled, p._YOUR._compiled)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["None", "None"]
