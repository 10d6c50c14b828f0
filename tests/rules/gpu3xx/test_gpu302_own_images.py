"""GPU302 on the linted repository's own images: a note that says where the identity was
read, never for another project of the same owner, and a warning where nothing says."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.helpers import findings_json, where

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
