"""The composite GitHub Action: its check step runs for real, the way a runner runs it.

A runner evaluates ``${{ inputs.* }}`` in the step's ``env`` and runs the
script with bash; this test does the same with the installed ``gpulint``, then
checks the annotations, the SARIF file, the step output and the exit code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gpulint.core.sources import Source
from gpulint.yaml.parse import parse
from tests.helpers import ROOT, sarif_schema

ACTION = parse(Source("action.yml", (ROOT / "action.yml").read_text()))[0][0].data

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

# Only warnings, no error: a server pod (GPU106 BestEffort, GPU302 tag latest).
WARNINGS = (
    BAD.replace("requests:", "limits:")
    .replace("name: train", "name: serve")
    .replace("nvcr.io/nvidia/pytorch:24.05-py3", "vllm/vllm-openai:latest")
)


def _step(step_id: str) -> dict:
    return next(s for s in ACTION["runs"]["steps"] if s.get("id") == step_id)


def _run_check(
    workdir: Path, tmp_path: Path, runner: dict | None = None, **inputs: str
) -> tuple[int, str, dict]:
    """Run the check step with these inputs (others: their defaults); ``runner``: more of
    the environment a runner sets (GITHUB_ACTIONS, GITHUB_WORKSPACE)."""
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    step = _step("check")

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: values[m.group(1)], text)

    output_file = tmp_path / "github_output"
    summary_file = tmp_path / "step_summary"
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env.update({key: expand(value) for key, value in step["env"].items()})
    env.update(
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_OUTPUT=str(output_file),
        GITHUB_STEP_SUMMARY=str(summary_file),
    )
    env.update(runner or {})
    # The runner finds the gpulint the install step put on PATH: here, this interpreter's.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    cwd = workdir / expand(step["working-directory"])
    result = subprocess.run(
        ["bash", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    outputs = dict(
        line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
    )
    outputs["summary"] = summary_file.read_text() if summary_file.exists() else ""
    return result.returncode, result.stdout + result.stderr, outputs


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
]


@pytest.fixture
def workdir(tmp_path) -> Path:
    (tmp_path / "repo" / "deploy").mkdir(parents=True)
    (tmp_path / "repo" / "deploy" / "bad.yaml").write_text(BAD)
    (tmp_path / "repo" / "other").mkdir()
    (tmp_path / "repo" / "other" / "warn.yaml").write_text(WARNINGS)
    return tmp_path / "repo"


def test_action_is_composite_and_installs_from_its_own_checkout():
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "config", "fail-on", "sarif-file"} <= set(ACTION["inputs"])
    install = " ".join(s.get("run", "") for s in ACTION["runs"]["steps"])
    assert 'pip install --disable-pip-version-check --quiet "$GITHUB_ACTION_PATH"' in install
    assert ACTION["outputs"]["sarif-file"]["value"] == "${{ steps.check.outputs.sarif-file }}"


def test_annotations_sarif_and_failure(workdir, tmp_path):
    code, out, outputs = _run_check(workdir, tmp_path, paths="deploy")
    assert code == 1
    assert "::error file=deploy/bad.yaml,line=11,col=11,endLine=11,endColumn=28," in out
    assert "title=GPU101 gpu-limit-missing::" in out
    assert "deploy/bad.yaml:11:11: error [GPU101 gpu-limit-missing]" in out  # the text report
    assert outputs["sarif-file"] == "gpulint.sarif"
    log = json.loads((workdir / "gpulint.sarif").read_text())
    jsonschema.validate(log, sarif_schema())
    assert "GPU101" in {r["ruleId"] for r in log["runs"][0]["results"]}
    assert outputs["summary"].startswith("### gpulint\n```\n")


def test_fail_on_and_several_paths(workdir, tmp_path):
    code, out, _ = _run_check(workdir, tmp_path, paths="other", fail_on="error")
    assert code == 0 and "::warning file=other/warn.yaml" in out
    code, out, _ = _run_check(workdir, tmp_path, paths="other\ndeploy/bad.yaml", fail_on="error")
    assert code == 1
    assert "file=other/warn.yaml" in out and "file=deploy/bad.yaml" in out


def test_config_and_args_inputs(workdir, tmp_path):
    (workdir / "ci.gpulint.yaml").write_text("select: [GPU101]\n")
    code, out, _ = _run_check(
        workdir, tmp_path, config="ci.gpulint.yaml", args="--ignore GPU101", sarif_file=""
    )
    assert code == 0, out
    assert not (workdir / "gpulint.sarif").exists()
    assert "0 error(s), 0 warning(s), 0 note(s) in 3 files" in out  # the config file too


def test_a_broken_config_fails_the_step_with_exit_2(workdir, tmp_path):
    (workdir / ".gpulint.yaml").write_text("fail_on: error\n")
    code, out, _ = _run_check(workdir, tmp_path)
    assert code == 2
    assert ".gpulint.yaml:1:1: error [config] fail_on: unknown key 'fail_on'" in out


def test_working_directory_paths_are_from_the_workspace(workdir, tmp_path):
    # The runner's layout: the repository checked out at GITHUB_WORKSPACE, the step in deploy/.
    (workdir / "deploy" / "k8s").mkdir()
    (workdir / "deploy" / "k8s" / "x.yaml").write_text(BAD)
    runner = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workdir)}
    code, out, outputs = _run_check(
        workdir, tmp_path, runner, working_directory="deploy", paths="k8s"
    )
    assert code == 1
    assert "::error file=deploy/k8s/x.yaml,line=11,col=11," in out
    assert "k8s/x.yaml:11:11: error [GPU101" in out  # the log's text report: from deploy/
    # hashFiles() and upload-sarif resolve the output from the workspace.
    assert outputs["sarif-file"] == "deploy/gpulint.sarif"
    log = json.loads((workdir / outputs["sarif-file"]).read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert uris == {"deploy/k8s/x.yaml"}
    assert all((workdir / uri).is_file() for uri in uris)


def test_paths_outside_the_workspace_are_left_as_they_are(tmp_path, monkeypatch):
    from gpulint.report.paths import from_root

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "repo"))
    (tmp_path / "repo").mkdir()
    assert from_root("repo/a.yaml", "github") == "a.yaml"
    assert from_root("other/a.yaml", "github") == "other/a.yaml"
    assert from_root("<stdin>", "github") == "<stdin>"
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert from_root("repo/a.yaml", "github") == "repo/a.yaml"
