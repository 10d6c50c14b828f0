"""The linted repository's identity, read from its own files (inputs/project_scan.py):
the git remote origin first, then a root go.mod, then a top-level chart's home/sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulint.inputs.discover import Target
from gpulint.inputs.project_scan import project_of
from gpulint.model.project import Project, ProjectId, repository_path
from gpulint.model.values.images import parse_image

_GIT_CONFIG = """\
[core]
\trepositoryformatversion = 0
[remote "upstream"]
\turl = https://github.com/other/thing.git
[remote "origin"]
\turl = {url}
\tfetch = +refs/heads/*:refs/remotes/origin/*
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _paths(project: Project) -> list[tuple[str, str]]:
    return [(i.host, i.path) for i in project.ids]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/Acme/Trainer.git", ("github.com", "acme/trainer")),
        ("git@github.com:acme/trainer.git", ("github.com", "acme/trainer")),
        ("ssh://git@github.com/acme/trainer", ("github.com", "acme/trainer")),
        ("https://github.com/acme/trainer/tree/main/charts", ("github.com", "acme/trainer")),
        ("github.com/acme/trainer/v2", ("github.com", "acme/trainer")),
        ("https://gitlab.com/group/sub/repo/-/tree/main", ("gitlab.com", "group/sub/repo")),
        ("https://docs.example.com/trainer", None),
        ("https://github.com/acme", None),
        ("https://github.com.example.org/acme/trainer", None),
    ],
)
def test_repository_paths(url, expected):
    assert repository_path(url) == expected


def test_the_git_remote_origin(tmp_path):
    _write(tmp_path / ".git" / "config", _GIT_CONFIG.format(url="git@github.com:Acme/Trainer.git"))
    _write(tmp_path / "deploy" / "job.yaml", "")
    project = project_of([str(tmp_path / "deploy")], [])
    assert _paths(project) == [("github.com", "acme/trainer")]
    assert project.ids[0].source.endswith(".git/config remote origin")


def test_a_worktree_reads_the_config_of_its_common_git_folder(tmp_path):
    common = tmp_path / "main" / ".git"
    _write(common / "config", _GIT_CONFIG.format(url="https://github.com/acme/trainer"))
    _write(common / "worktrees" / "wt" / "commondir", "../..\n")
    _write(tmp_path / "wt" / ".git", f"gitdir: {common / 'worktrees' / 'wt'}\n")
    assert _paths(project_of([str(tmp_path / "wt")], [])) == [("github.com", "acme/trainer")]


def test_a_git_root_without_origin_falls_back_to_its_go_mod(tmp_path):
    _write(tmp_path / ".git" / "config", "[core]\n\tbare = false\n")
    _write(tmp_path / "go.mod", "// comment\nmodule github.com/acme/operator/v2\n\ngo 1.22\n")
    project = project_of([str(tmp_path)], [])
    assert _paths(project) == [("github.com", "acme/operator")]
    assert project.ids[0].source.endswith("go.mod module")


def test_go_mod_in_a_linted_folder_outside_git(tmp_path):
    _write(tmp_path / "go.mod", "module gitlab.com/acme/ops/operator\n")
    assert _paths(project_of([str(tmp_path)], [])) == [("gitlab.com", "acme/ops/operator")]


def _chart(folder: Path, extra: str) -> Target:
    _write(folder / "Chart.yaml", f"apiVersion: v2\nname: x\nversion: 0.1.0\n{extra}")
    return Target(str(folder), "helm")


def test_charts_home_and_sources_not_subcharts(tmp_path):
    top = _chart(tmp_path / "charts" / "trainer", "home: https://github.com/acme/trainer\n")
    docs = _chart(
        tmp_path / "deploy",
        "home: https://docs.acme.io/\nsources:\n  - https://github.com/acme/serving\n",
    )
    sub = _chart(
        tmp_path / "deploy" / "charts" / "nfd", "home: https://github.com/kubernetes-sigs/nfd\n"
    )
    project = project_of([str(tmp_path)], [top, docs, sub])
    assert _paths(project) == [("github.com", "acme/trainer"), ("github.com", "acme/serving")]
    assert project.ids[1].source.endswith("deploy/Chart.yaml sources")


def test_the_git_remote_wins_over_a_chart_home(tmp_path):
    _write(tmp_path / ".git" / "config", _GIT_CONFIG.format(url="https://github.com/me/fork"))
    chart = _chart(tmp_path / "chart", "home: https://github.com/acme/trainer\n")
    assert _paths(project_of([str(tmp_path)], [chart])) == [("github.com", "me/fork")]


def test_nothing_says(tmp_path):
    _write(tmp_path / "job.yaml", "")
    assert project_of([str(tmp_path / "job.yaml")], []).ids == ()


@pytest.mark.parametrize(
    ("image", "own"),
    [
        ("ghcr.io/acme/trainer/runtime:latest", True),
        ("ghcr.io/ACME/Trainer", True),
        ("quay.io/acme/trainer:latest", True),
        ("acme/trainer", True),  # Docker Hub
        ("registry.gitlab.com/acme/trainer/gpu:latest", True),
        ("ghcr.io/acme/pytorch:latest", False),  # the owner alone
        ("ghcr.io/acme/trainer-extra:latest", False),
        ("acme:latest", False),
    ],
)
def test_which_images_the_project_publishes(image, own):
    project = Project((ProjectId("github.com", "acme/trainer", "go.mod module"),))
    ref = parse_image(image)
    assert ref is not None
    assert (project.publisher(ref) is not None) is own
