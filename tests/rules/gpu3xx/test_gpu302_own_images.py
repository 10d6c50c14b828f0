"""GPU302 on the linted repository's own images: a note that says where the identity was
read, never for another project of the same owner, and a warning where nothing says."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.helpers import findings_json, run_cli, where

_JOB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
spec:
  template:
    spec:
      restartPolicy: Always
      containers:
        - name: train
          image: ghcr.io/acme/trainer/runtime:latest
          resources:
            limits:
              nvidia.com/gpu: 1
        - name: base
          image: ghcr.io/acme/pytorch:latest
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def _repo(tmp_path: Path, files: dict[str, str]) -> list[dict]:
    for name, text in {"deploy/job.yaml": _JOB, **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    found = findings_json(str(tmp_path), "--select", "GPU302")["findings"]
    return [f for f in found if f["path"].endswith("job.yaml")]


def test_own_image_from_a_chart_home_is_a_note(tmp_path):
    chart = "apiVersion: v2\nname: trainer\nversion: 0.1.0\nhome: https://github.com/Acme/Trainer\n"
    found = _repo(tmp_path, {"chart/Chart.yaml": chart})
    assert where(found) == [("GPU302", 11, 11), ("GPU302", 16, 11)]
    own, other = found
    assert own["severity"] == "note"
    assert "this repository's own image (acme/trainer, from " in own["message"]
    assert "chart/Chart.yaml home" in own["message"]
    assert "pin a version tag or a digest when releasing" in own["message"]
    assert other["severity"] == "warning"  # the owner alone is not the project


def test_own_image_from_the_git_remote_is_a_note(tmp_path):
    config = '[remote "origin"]\n\turl = git@github.com:acme/trainer.git\n'
    found = _repo(tmp_path, {".git/config": config})
    assert [(f["line"], f["severity"]) for f in found] == [(11, "note"), (16, "warning")]
    assert ".git/config remote origin" in found[0]["message"]


def test_without_an_identity_both_are_warnings(tmp_path):
    found = _repo(tmp_path, {})
    assert where(found) == [("GPU302", 11, 11), ("GPU302", 16, 11)]
    assert {f["severity"] for f in found} == {"warning"}


def test_another_projects_image_stays_a_warning(tmp_path):
    found = _repo(tmp_path, {"go.mod": "module github.com/acme/serving\n"})
    assert {f["severity"] for f in found} == {"warning"}


# The repository's name is not its image's (docker-nvidia-glx-desktop pushes
# nvidia-glx-desktop): its own CI workflows say which images it publishes.
_DESKTOP = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: desktop
spec:
  template:
    spec:
      containers:
        - name: glx
          image: ghcr.io/selkies-project/nvidia-glx-desktop:latest
          resources:
            limits:
              nvidia.com/gpu: 1
        - name: egl
          image: docker.io/selkies/egl-desktop:latest
          resources:
            limits:
              nvidia.com/gpu: 1
        - name: other
          image: ghcr.io/someone-else/nvidia-glx-desktop:latest
          resources:
            limits:
              nvidia.com/gpu: 1
        - name: hidden
          image: ghcr.io/selkies-project/private:latest
          resources:
            limits:
              nvidia.com/gpu: 1
"""

_PUBLISH = """\
on: push
env:
  REGISTRY: ghcr.io
  IMAGE_NAME: ${{ github.repository_owner }}/nvidia-glx-desktop
jobs:
  push:
    runs-on: ubuntu-latest
    steps:
      - uses: docker/build-push-action@v6
        with:
          push: true
          tags: ${{ env.REGISTRY }}/${{ env.IMAGE_NAME }}:latest
      - uses: docker/build-push-action@v6
        with:
          tags: ${{ secrets.REGISTRY }}/selkies-project/private:latest
"""

_METADATA = """\
on: push
jobs:
  meta:
    runs-on: ubuntu-latest
    env:
      NAME: egl-desktop
    steps:
      - uses: docker/metadata-action@v5
        with:
          images: |
            selkies/${{ env.NAME }}
            ghcr.io/${{ github.repository_owner }}/nvidia-egl-desktop
"""


def _desktop(tmp_path: Path, workflows: dict[str, str]) -> list[dict]:
    config = (
        '[remote "origin"]\n\turl = https://github.com/selkies-project/docker-nvidia-glx-desktop\n'
    )
    files = {".git/config": config, "deploy/desktop.yaml": _DESKTOP}
    files.update({f".github/workflows/{name}": text for name, text in workflows.items()})
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = findings_json(str(tmp_path), "--select", "GPU302")["findings"]
    return [f for f in found if f["path"].endswith("desktop.yaml")]


def test_images_the_repositorys_workflows_push_are_notes(tmp_path):
    found = _desktop(tmp_path, {"container-publish.yml": _PUBLISH, "meta.yaml": _METADATA})
    assert where(found) == [
        ("GPU302", 10, 11),
        ("GPU302", 15, 11),
        ("GPU302", 20, 11),
        ("GPU302", 25, 11),
    ]
    assert [f["severity"] for f in found] == ["note", "note", "warning", "warning"]
    glx, egl = found[0]["message"], found[1]["message"]
    assert (
        "this repository's own image (ghcr.io/selkies-project/nvidia-glx-desktop, pushed by " in glx
    )
    assert ".github/workflows/container-publish.yml)" in glx
    assert "(docker.io/selkies/egl-desktop, pushed by " in egl and "meta.yaml)" in egl


def test_without_the_workflows_they_are_warnings(tmp_path):
    found = _desktop(tmp_path, {})
    assert [f["severity"] for f in found] == ["warning"] * 4


def test_a_symlinked_workflow_is_not_read(tmp_path):
    outside = tmp_path / "outside" / "publish.yml"
    outside.parent.mkdir()
    outside.write_text(_PUBLISH)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "publish.yml").symlink_to(outside)
    found = _desktop(tmp_path, {})
    assert [f["severity"] for f in found] == ["warning"] * 4


def test_verbose_names_the_workflow(tmp_path):
    _desktop(tmp_path, {"container-publish.yml": _PUBLISH})
    result = run_cli("check", str(tmp_path / "deploy"), "--verbose", "--select", "GPU302")
    assert "project: publishes ghcr.io/selkies-project/nvidia-glx-desktop: " in result.output
    assert ".github/workflows/container-publish.yml" in result.output
