"""GPU109 gpu-resource-name-invalid: GPU resource names the API server sees differently
(rejected as unqualified, or a name no device plugin serves)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import MALFORMED_LIMITS, run_cli


def _named(tmp_path: Path, name: str) -> list[tuple[str, int, int, str]]:
    path = tmp_path / "pod.yaml"
    path.write_text(
        MALFORMED_LIMITS.replace("requests: {nvidia.com/gpu: 1}", "requests: {}").replace(
            "LIMIT", "{" + json.dumps(name) + ": 1}"
        )
    )
    result = run_cli("check", "--format", "json", "--jobs", "1", "--select", "GPU109", str(path))
    report = json.loads(result.stdout)
    return [(f["code"], f["line"], f["column"], f["message"]) for f in report["findings"]]


@pytest.mark.parametrize(
    "name, rejected, part",
    [
        ("nvidia.com/gpu ", True, "name part must consist of alphanumeric characters"),
        (" nvidia.com/gpu", True, "prefix part a lowercase RFC 1123 subdomain must consist"),
        ("nvidia.\u0441om/gpu", True, "prefix part a lowercase RFC 1123 subdomain"),
        ("NVIDIA.com/gpu", True, "prefix part a lowercase RFC 1123 subdomain"),
        ("nvidia.com/gpus", False, "Insufficient nvidia.com/gpus"),
        ("nvidia.com/GPU", False, "Insufficient nvidia.com/GPU"),
        ("nvidia.com/gup", False, "Insufficient nvidia.com/gup"),
        ("amd.com/gpus", False, "did you mean 'amd.com/gpu'?"),
    ],
)
def test_mistyped_gpu_resource_names(tmp_path, name, rejected, part):
    [(code, line, column, message)] = _named(tmp_path, name)
    assert (code, line, column) == ("GPU109", 11, 18)
    assert part in message
    assert ("is not a qualified name; the API server rejects" in message) is rejected
    if "did you mean" not in part:
        assert message.count("did you mean 'nvidia.com/gpu'?") == 1


@pytest.mark.parametrize(
    "name",
    [
        "nvidia.com/gpu",
        "nvidia.com/gpumem",
        "nvidia.com/gpucores",
        "nvidia.com/mig-1g.10gb",
        "amd.com/gpu",
        "example.com/foo",
        "memory",
    ],
)
def test_gpu_and_other_plugins_resource_names_pass(tmp_path, name):
    assert _named(tmp_path, name) == []
