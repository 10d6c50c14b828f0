"""Report-only and terse modes peers taught users (issue 29): --exit-zero, --quiet,
--statistics, `rules --format json`, and a reader that stops reading (`| head`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p{n}
spec:
  containers:
    - name: server
      image: vllm/vllm-openai:latest
      resources:
        requests:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def pods(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("pods.yaml").write_text("---\n".join(POD.format(n=n) for n in range(3)))
    return Path("pods.yaml")


def test_exit_zero_reports_findings_and_exits_zero_but_not_on_input_errors(pods):
    result = run_cli("check", "--exit-zero", str(pods))
    assert result.exit_code == 0
    assert "3 error(s), 6 warning(s), 0 note(s) in 1 file" in result.output
    Path("broken.yaml").write_text("kind: [unclosed\n")
    assert run_cli("check", "--exit-zero", str(pods), "broken.yaml").exit_code == 2


def test_quiet_prints_the_findings_only(pods):
    result = run_cli("check", "--quiet", str(pods))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 9 and all(line.startswith("pods.yaml:") for line in lines)
    assert lines[0].startswith("pods.yaml:8:7: warning [GPU302 gpu-image-unpinned]")
    assert "error(s)" not in result.stdout and "note:" not in result.stdout


def test_statistics_counts_each_rule_most_first(pods):
    result = run_cli("check", "--statistics", str(pods))
    assert result.exit_code == 1
    assert result.stdout == (
        "3  GPU101  gpu-limit-missing                   error\n"
        "3  GPU106  gpu-container-resources-incomplete  warning\n"
        "3  GPU302  gpu-image-unpinned                  warning\n"
        "3 error(s), 6 warning(s), 0 note(s) in 1 file\n"
    )


def test_statistics_and_quiet_change_the_text_report_only(pods):
    result = run_cli("check", "--statistics", "--format", "json", str(pods))
    assert result.exit_code == 2
    assert "--statistics changes the text report; add --format text" in result.stderr


def test_rules_as_json_for_scripts():
    result = run_cli("rules", "--format", "json")
    assert result.exit_code == 0
    rules = {rule["code"]: rule for rule in json.loads(result.stdout)}
    assert rules["GPU101"]["name"] == "gpu-limit-missing"
    assert rules["GPU101"]["severity"] == "error"
    assert rules["GPU101"]["fix"] == "safe"
    batch = {o["name"]: o for o in rules["GPU106"]["options"]}["batch"]
    assert (batch["type"], batch["default"]) == ("bool", False)


def test_a_reader_that_stops_reading_ends_the_run_quietly(tmp_path):
    many = tmp_path / "many.yaml"
    many.write_text("---\n".join(POD.format(n=n) for n in range(2000)))
    # `gpulint check many.yaml | head -1`: the pipe closes after one line
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpulint", "check", str(many)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1  # what the run found, as if read whole
    assert first.startswith(str(many).encode())
    assert "Broken pipe" not in stderr and "Traceback" not in stderr
