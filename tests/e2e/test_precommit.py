"""The real ``pre-commit try-repo`` against this repository's ``.pre-commit-hooks.yaml``.

pre-commit builds a virtualenv and pip-installs gpulint from this checkout.
The test keeps that offline: the hook's environment sees this interpreter's
site-packages (where gpulint's dependencies are installed) through PYTHONPATH,
pip never asks an index, and the build uses the installed setuptools instead of
an isolated build environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gpulint.core.sources import Source
from gpulint.yaml.parse import parse
from tests.helpers import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (ROOT / ".git").exists() or shutil.which("git") is None,
        reason="pre-commit try-repo needs this checkout to be a git repository",
    ),
]

GOOD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
"""

BAD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
"""

# A Helm template is a Go template, not YAML: the file hook must never pass it.
HELM_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  {{- if .Values.gpu }}
  template: {{ toYaml .Values.template | nindent 4 }}
  {{- end }}
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    """One pre-commit home for the module, so the hook environment is built once."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    env = dict(os.environ)
    # This interpreter's site-packages, not the base interpreter's: in CI that is a venv.
    site = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    env.update(
        PRE_COMMIT_HOME=str(home),
        PRE_COMMIT_COLOR="never",
        PYTHONPATH=os.pathsep.join(sorted(site)),
        VIRTUALENV_NO_PERIODIC_UPDATE="true",
        PIP_NO_INDEX="1",
        PIP_NO_BUILD_ISOLATION="0",  # pip's inverted switch: "0" turns isolation off
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GIT_AUTHOR_NAME="test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="test",
        GIT_COMMITTER_EMAIL="test@example.com",
    )
    return env


@pytest.fixture
def repo(tmp_path, env) -> Path:
    """A git repository with a passing manifest, a failing one and a Helm chart."""
    files = {
        "deploy/good.yaml": GOOD,
        "deploy/bad.yaml": BAD,
        "chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
        "chart/templates/deployment.yaml": HELM_TEMPLATE,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "manifests"]):
        subprocess.run(["git", *command], cwd=tmp_path, env=env, check=True)
    return tmp_path


def _try_repo(repo: Path, env: dict, hook: str, *files: str) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--verbose"]
    args += ["--files", *files] if files else ["--all-files"]
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_hooks_file_declares_the_hooks():
    (doc,), errors = parse(
        Source(".pre-commit-hooks.yaml", (ROOT / ".pre-commit-hooks.yaml").read_text())
    )
    hooks = {hook["id"]: hook for hook in doc.data}
    assert errors == [] and set(hooks) == {"gpulint", "gpulint-charts", "gpulint-fix"}
    assert hooks["gpulint-fix"]["entry"] == "gpulint check --fix --only-manifests"
    assert hooks["gpulint"]["entry"] == "gpulint check --only-manifests"
    assert hooks["gpulint"]["language"] == "python"
    assert hooks["gpulint"]["types_or"] == ["yaml", "json"]
    assert hooks["gpulint-charts"]["pass_filenames"] is False


def test_hook_passes_on_a_clean_manifest_and_never_gets_a_helm_template(repo, env):
    result = _try_repo(repo, env, "gpulint", "deploy/good.yaml", "chart/templates/deployment.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "gpulint" in result.stdout and "Passed" in result.stdout
    assert "0 error(s), 0 warning(s), 0 note(s) in 1 file" in result.stdout


def test_hook_leaves_json_with_comments_alone_but_not_a_broken_manifest(repo, env):
    # tsconfig.json and VS Code settings are JSON with comments: not YAML, not Kubernetes.
    jsonc = '{\n  // strict\n  "compilerOptions": {"strict": true,},\n}\n'
    (repo / "tsconfig.json").write_text(jsonc)
    (repo / ".vscode").mkdir()
    (repo / ".vscode" / "settings.json").write_text('{\n  // editor\n  "a": 1,\n}\n')
    (repo / "deploy" / "broken.yaml").write_text("apiVersion: v1\nkind: [Pod\n")
    subprocess.run(["git", "add", "."], cwd=repo, env=env, check=True)
    names = ("tsconfig.json", ".vscode/settings.json", "deploy/good.yaml")
    result = _try_repo(repo, env, "gpulint", *names)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "invalid" not in result.stdout
    result = _try_repo(repo, env, "gpulint", *names, "deploy/broken.yaml")
    assert result.returncode == 1, result.stdout + result.stderr  # pre-commit's own code
    assert "exit code: 2" in result.stdout
    assert "deploy/broken.yaml:3:1: error [input] invalid YAML" in result.stdout
    assert "tsconfig.json" not in result.stdout


def test_hook_fails_on_a_bad_manifest(repo, env):
    result = _try_repo(repo, env, "gpulint", "deploy/good.yaml", "deploy/bad.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Failed" in result.stdout
    assert "deploy/bad.yaml:11:11: error [GPU101 gpu-limit-missing]" in result.stdout


def test_hook_honours_the_repositorys_config(repo, env):
    (repo / ".gpulint.yaml").write_text("exclude: [deploy/bad.yaml]\n")
    subprocess.run(["git", "add", "."], cwd=repo, env=env, check=True)
    result = _try_repo(repo, env, "gpulint", "deploy/bad.yaml", "deploy/good.yaml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_charts_hook_lints_the_repository_as_a_whole(repo, env):
    # No file names: the chart folder is handled whole (rendered with helm, or
    # reported once without it) and its template is never parsed as YAML.
    result = _try_repo(repo, env, "gpulint-charts", "chart/Chart.yaml")
    output = result.stdout + result.stderr
    assert "deploy/bad.yaml:11:11: error [GPU101 gpu-limit-missing]" in output
    assert "chart/templates/deployment.yaml" not in output


def test_fix_hook_fixes_then_fails_because_it_changed_the_file(repo, env):
    result = _try_repo(repo, env, "gpulint-fix", "deploy/bad.yaml", "deploy/good.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    assert (repo / "deploy/bad.yaml").read_text() == BAD + (
        "        limits:\n          nvidia.com/gpu: 1\n"
    )
    assert (repo / "deploy/good.yaml").read_text() == GOOD
