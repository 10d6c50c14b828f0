"""The images a repository's own CI pushes (inputs/ci_images.py), read by the project scan
from the GitHub Actions workflows and .gitlab-ci.yml at the root of the linted git
repository: only what the files say, expressions resolved only from env: maps and the
identity, unknown names left out, only regular files read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpulint.inputs import ci_images
from gpulint.inputs.project_scan import project_of
from gpulint.model.project import Project, ProjectId, PublishedImage
from gpulint.model.values.images import parse_image

_ORIGIN = '[remote "origin"]\n\turl = {url}\n'

_BUILD_PUSH = """\
name: Build
on:
  push:
    branches: [main]
env:
  REGISTRY: ghcr.io
  IMAGE_NAME: ${{ github.repository_owner }}/nvidia-glx-desktop
jobs:
  build:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        version: ["22.04", "24.04"]
    steps:
      - uses: actions/checkout@v4
      - uses: docker/build-push-action@v6
        with:
          push: true
          tags: |
            ${{ env.REGISTRY }}/${{ env.IMAGE_NAME }}:${{ matrix.version }}
            ${{ env.REGISTRY }}/${{ env.IMAGE_NAME }}:latest
"""

_METADATA = """\
on: push
jobs:
  publish:
    runs-on: ubuntu-latest
    env:
      HUB: selkies
    steps:
      - id: meta
        uses: docker/metadata-action@902fa8ec7d6ecbf8d84d538b9b233a880e428394
        env:
          APP: egl-desktop
        with:
          images: |
            ghcr.io/${{ github.repository_owner }}/nvidia-${{ env.APP }}
            name=docker.io/${{ env.HUB }}/${{ env.APP }}
            name=quay.io/selkies/${{ env.APP }},enable=false
            ${{ secrets.REGISTRY }}/private
            ghcr.io/${{ github.repository_owner }}/${{ matrix.flavour }}
      - uses: docker/build-push-action@v6
        with:
          tags: ${{ steps.meta.outputs.tags }}
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _repo(tmp_path: Path, files: dict[str, str], url: str | None = None) -> list[str]:
    url = url or "https://github.com/Selkies-Project/docker-nvidia-glx-desktop.git"
    _write(tmp_path / ".git" / "config", _ORIGIN.format(url=url))
    for name, text in files.items():
        _write(tmp_path / name, text)
    return [p.repository for p in project_of([str(tmp_path)], []).published]


def test_build_push_tags_from_workflow_env_and_the_identity(tmp_path):
    found = _repo(tmp_path, {".github/workflows/container-publish.yml": _BUILD_PUSH})
    # The unknown tag (matrix.version) is not part of the repository: both lines count.
    assert found == ["ghcr.io/selkies-project/nvidia-glx-desktop"]
    project = project_of([str(tmp_path)], [])
    assert project.published[0].source.endswith(".github/workflows/container-publish.yml")
    assert project.describe()[-1] == (
        f"publishes ghcr.io/selkies-project/nvidia-glx-desktop: {project.published[0].source}"
    )


def test_metadata_action_images_one_a_line(tmp_path):
    found = _repo(tmp_path, {".github/workflows/docker.yaml": _METADATA})
    # Job and step env: are read; enable=false, secrets and matrix are not counted.
    assert found == ["ghcr.io/selkies-project/nvidia-egl-desktop", "docker.io/selkies/egl-desktop"]


def test_metadata_action_one_comma_separated_line(tmp_path):
    workflow = """\
jobs:
  j:
    steps:
      - uses: docker/metadata-action@v5
        with:
          images: acme/app,ghcr.io/acme/app
"""
    found = _repo(tmp_path, {".github/workflows/m.yml": workflow})
    assert found == ["docker.io/acme/app", "ghcr.io/acme/app"]


def test_an_unresolved_expression_is_not_counted(tmp_path):
    workflow = """\
env:
  REGISTRY: ${{ secrets.REGISTRY }}
jobs:
  j:
    steps:
      - uses: docker/build-push-action@v6
        with:
          tags: ${{ secrets.REGISTRY }}/x:latest,${{ env.REGISTRY }}/y:latest,${{ vars.IMAGE }}
      - uses: docker/build-push-action@v6
        with:
          tags: ${{ env.NOT_SET }}/z:latest
"""
    assert _repo(tmp_path, {".github/workflows/w.yml": workflow}) == []


def test_a_variable_a_step_writes_to_github_env_is_unknown(tmp_path):
    workflow = """\
env:
  IMAGE: ghcr.io/acme/app
jobs:
  j:
    steps:
      - run: echo "IMAGE=ghcr.io/acme/other" >> "$GITHUB_ENV"
      - uses: docker/build-push-action@v6
        with:
          tags: ${{ env.IMAGE }}:latest
"""
    assert _repo(tmp_path, {".github/workflows/w.yml": workflow}) == []


def test_docker_commands_in_run_scripts(tmp_path):
    workflow = """\
env:
  IMAGE: ghcr.io/acme/runner
jobs:
  j:
    env:
      HUB_USER: acme
      TAG: ghcr.io/acme/from-env
    steps:
      - run: |
          docker build -t acme/local .
          docker push $IMAGE:latest && docker image push "${HUB_USER}/hub-app:${GITHUB_SHA}"
          docker buildx build --platform linux/amd64 --push \\
            --tag=quay.io/acme/built:latest -t ${{ secrets.MIRROR }}/built .
          docker buildx imagetools create -t ghcr.io/acme/multi:latest a b
          TAG=ghcr.io/acme/assigned; docker push $TAG
          echo docker push ghcr.io/acme/echoed
"""
    found = _repo(tmp_path, {".github/workflows/w.yml": workflow})
    # acme/local is built, never pushed; the script assigns $TAG itself (env: is not it).
    assert found == [
        "ghcr.io/acme/runner",
        "docker.io/acme/hub-app",
        "quay.io/acme/built",
        "ghcr.io/acme/multi",
    ]


def test_gitlab_ci_scripts_with_variables_and_the_registry_image(tmp_path):
    gitlab = """\
variables:
  HUB_IMAGE: docker.io/acme/serving
build:
  stage: build
  script:
    - docker build -t $CI_REGISTRY_IMAGE/gpu:latest .
    - docker push $CI_REGISTRY_IMAGE/gpu:latest
    - docker push ${HUB_IMAGE}:$CI_COMMIT_SHORT_SHA
kaniko:
  script:
    - /kaniko/executor --context . --destination "${CI_REGISTRY}/acme/ops/serving/k:latest"
.template:
  script:
    - docker push docker.io/acme/hidden
"""
    found = _repo(tmp_path, {".gitlab-ci.yml": gitlab}, "git@gitlab.com:Acme/ops/serving.git")
    assert found == [
        "registry.gitlab.com/acme/ops/serving/gpu",
        "docker.io/acme/serving",
        "registry.gitlab.com/acme/ops/serving/k",
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symbolic_links_are_not_followed(tmp_path):
    elsewhere = _write(tmp_path / "elsewhere" / "w.yml", _BUILD_PUSH)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "linked.yml").symlink_to(elsewhere)
    assert _repo(tmp_path, {}) == []
    # Nor a workflows folder that is a link.
    other = tmp_path / "other"
    _write(other / ".git" / "config", _ORIGIN.format(url="https://github.com/acme/other"))
    (other / ".github").mkdir()
    (other / ".github" / "workflows").symlink_to(elsewhere.parent, target_is_directory=True)
    assert project_of([str(other)], []).published == ()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_not_read(tmp_path):
    os.makedirs(tmp_path / ".github" / "workflows")
    os.mkfifo(tmp_path / ".github" / "workflows" / "fifo.yml")
    _write(tmp_path / ".github" / "workflows" / "z.yml", _BUILD_PUSH)
    assert _repo(tmp_path, {}) == ["ghcr.io/selkies-project/nvidia-glx-desktop"]


def _alias_bomb() -> str:
    lines = ["a: &a [docker, docker, docker, docker, docker, docker, docker, docker]"]
    for before, name in zip("abcde", "bcdef", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{before}'] * 8)}]")
    return "\n".join(lines) + "\n"


def test_broken_bombs_big_and_too_many_files_are_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(ci_images, "MAX_FILES", 2)
    files = {
        ".github/workflows/a-broken.yml": "jobs: [docker\n" + _BUILD_PUSH,
        ".github/workflows/b-alias.yml": _alias_bomb() + _BUILD_PUSH,  # 8**6 values
        ".github/workflows/c-late.yml": _BUILD_PUSH,  # the third file: not read
    }
    assert _repo(tmp_path, files) == []
    monkeypatch.setattr(ci_images, "MAX_FILES", 50)
    monkeypatch.setattr(ci_images, "MAX_BYTES", 100)
    assert _repo(tmp_path, {}) == []


def test_outside_git_no_workflow_is_read(tmp_path):
    _write(tmp_path / ".github" / "workflows" / "w.yml", _BUILD_PUSH)
    assert project_of([str(tmp_path)], []).published == ()


@pytest.mark.parametrize(
    ("image", "own"),
    [
        ("ghcr.io/Selkies-Project/nvidia-glx-desktop:latest", True),
        ("ghcr.io/selkies-project/nvidia-glx-desktop", True),
        ("docker.io/selkies-project/nvidia-glx-desktop:latest", False),  # another registry
        ("ghcr.io/selkies-project/nvidia-glx-desktop/sub:latest", False),
        ("acme/app:latest", True),  # Docker Hub, however written
        ("index.docker.io/acme/app", True),
    ],
)
def test_which_images_are_published(image, own):
    project = Project(
        (),
        (
            PublishedImage("ghcr.io/selkies-project/nvidia-glx-desktop", "w.yml"),
            PublishedImage("docker.io/acme/app", "w.yml"),
        ),
    )
    ref = parse_image(image)
    assert ref is not None
    assert (project.publishes(ref) is not None) is own
    assert project.owns(ref) is own


def test_owns_keeps_the_identity():
    project = Project((ProjectId("github.com", "acme/trainer", "go.mod module"),))
    ref = parse_image("ghcr.io/acme/trainer/gpu:latest")
    assert ref is not None and project.owns(ref) and project.publishes(ref) is None
