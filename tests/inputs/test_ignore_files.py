"""Folder walks respect .gitignore (inside a git work tree) and .ignore, as ruff does
(issue 29); --no-ignore walks everything; a file named on the command line is read; an
ignore file is data, never a way to read outside the tree or to stall the walk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""


def _paths(*args: str) -> list[str]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", *args)
    return sorted(f["path"] for f in json.loads(result.stdout)["findings"])


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    for name in ("deploy/pod.yaml", "node_modules/x/pod.yaml", "build/out.yaml", "keep/a.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(POD)
    (tmp_path / ".gitignore").write_text("node_modules/\n/build\n[unclosed\n")
    return tmp_path


def test_a_walk_leaves_what_gitignore_excludes(repo):
    assert _paths(".") == ["deploy/pod.yaml", "keep/a.yaml"]
    assert _paths("--no-ignore", ".") == [
        "build/out.yaml",
        "deploy/pod.yaml",
        "keep/a.yaml",
        "node_modules/x/pod.yaml",
    ]
    # named on the command line: read whatever the ignore files say
    assert _paths("build/out.yaml") == ["build/out.yaml"]


def test_nested_and_enclosing_ignore_files(repo):
    (repo / "keep" / ".gitignore").write_text("a.yaml\n")
    assert _paths(".") == ["deploy/pod.yaml"]
    # walking a subfolder still honours the work tree's root .gitignore
    (repo / "deploy" / "node_modules").mkdir()
    (repo / "deploy" / "node_modules" / "b.yaml").write_text(POD)
    assert _paths("deploy") == ["deploy/pod.yaml"]


def test_gitignore_outside_a_work_tree_is_not_read_but_ignore_is(repo):
    os.rmdir(repo / ".git")
    assert "node_modules/x/pod.yaml" in _paths(".")
    (repo / ".ignore").write_text("node_modules\n")
    assert "node_modules/x/pod.yaml" not in _paths(".")


def test_an_ignore_file_is_only_ever_a_regular_file_of_the_tree(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("deploy\n")
    (repo / "keep" / ".gitignore").symlink_to(outside)  # a link: not read
    os.mkfifo(repo / "deploy" / ".gitignore")  # a FIFO: would block a reader
    assert _paths(".") == ["deploy/pod.yaml", "keep/a.yaml"]
