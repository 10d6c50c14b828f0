"""The renderers' processes (inputs/render/process.py): each in a process group of its own
that dies with the run however the run ends, and output read up to a cap.

The fake tools are shell scripts that start a grandchild (``sleep``) in their group and
write both pids down, so a test can tell that the whole group died, not only the tool.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from gpulint.engine.workers import cpu_count
from gpulint.inputs.render import Terminated, process
from gpulint.inputs.render.process import MAX_OUTPUT_BYTES, run_tool
from tests.helpers import run_cli

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

# Starts a grandchild in its group, writes "PID GRANDCHILD_PID", then hangs.
HANGING = """#!/bin/sh
PATH=/usr/bin:/bin
sleep 600 >/dev/null 2>&1 &
echo "$$ $!" >> "$TOOL_PIDS"
exec sleep 600
"""
# The same, but prints and exits at once: the grandchild stays behind in its group.
LEAVES_A_CHILD = """#!/bin/sh
PATH=/usr/bin:/bin
sleep 600 >/dev/null 2>&1 &
echo "$$ $!" >> "$TOOL_PIDS"
echo rendered
"""
GUARD = 60.0  # seconds: a bound against a hang, never a measurement


def _tool(tmp_path: Path, name: str, script: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text(script)
    tool.chmod(0o755)
    return tool


def _alive(pid: int) -> bool:
    """Running (a zombie left to a parent that does not reap it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _pids(path: Path, count: int = 1) -> list[int]:
    """The pids the fake tools wrote, once ``count`` of them have started."""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count and all(len(line.split()) == 2 for line in lines):
            return [int(pid) for line in lines for pid in line.split()]
        time.sleep(0.05)
    raise AssertionError(f"the fake tool did not start: {path}")


def _all_gone(pids: list[int]) -> list[int]:
    """The pids still running after a generous wait (empty when all are gone)."""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


@pytest.fixture
def pid_file(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "pids.txt"
    monkeypatch.setenv("TOOL_PIDS", str(path))
    return path


# --- every way a run ends kills the whole group --------------------------------------------


def _chart(root: Path, name: str) -> None:
    (root / name / "templates").mkdir(parents=True)
    (root / name / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")


def _gpulint(tmp_path: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PATH": str(tmp_path / "bin")}
    return subprocess.Popen(
        [sys.executable, "-m", "gpulint", "check", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the signal is the test's to send, to gpulint alone
    )


@pytest.mark.parametrize(
    ("signum", "code", "line"),
    [
        (signal.SIGTERM, 143, "gpulint: terminated\n"),
        (signal.SIGINT, 130, "gpulint: interrupted\n"),
    ],
)
def test_a_signal_during_a_render_kills_the_renderers_group(tmp_path, pid_file, signum, code, line):
    _tool(tmp_path, "helm", HANGING)
    _chart(tmp_path, "chart")
    run = _gpulint(tmp_path, "--jobs", "1", "chart")
    pids = _pids(pid_file)
    os.kill(run.pid, signum)  # gpulint only: its children are in a session of their own
    _, err = run.communicate(timeout=GUARD)
    assert (run.returncode, err.decode()) == (code, line)
    assert _all_gone(pids) == []


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_sigkill_of_gpulint_kills_the_renderer_it_started(tmp_path, pid_file):
    """Nothing can run in gpulint on SIGKILL: the kernel kills the tool (PR_SET_PDEATHSIG).
    What the tool itself started is its own to end (helm and kustomize start nothing)."""
    _tool(tmp_path, "helm", HANGING)
    _chart(tmp_path, "chart")
    run = _gpulint(tmp_path, "--jobs", "1", "chart")
    tool, grandchild = _pids(pid_file)
    os.kill(run.pid, signal.SIGKILL)
    run.communicate(timeout=GUARD)
    try:
        assert _all_gone([tool]) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(tool, signal.SIGKILL)  # the grandchild, in the tool's group


def test_sigterm_with_workers_kills_every_workers_renderers(tmp_path, pid_file):
    _tool(tmp_path, "helm", HANGING)
    for name in ("a", "b", "c"):
        _chart(tmp_path, name)
    run = _gpulint(tmp_path, "--jobs", "2", ".")
    rendering = min(cpu_count(), 2)  # with one core, no pool: the main process renders
    pids = _pids(pid_file, rendering)
    os.kill(run.pid, signal.SIGTERM)
    _, err = run.communicate(timeout=GUARD)
    assert (run.returncode, err.decode()) == (143, "gpulint: terminated\n")
    assert _all_gone(pids) == []


def test_the_timeout_kills_the_whole_group(tmp_path, pid_file):
    tool = _tool(tmp_path, "helm", HANGING)
    outcome = run_tool([str(tool), "template"], timeout=0.5)
    assert (outcome.ok, outcome.message) == (False, "helm did not finish within 0.5 s")
    assert _all_gone(_pids(pid_file)) == []
    assert process.live() == []


def test_a_normal_return_leaves_nothing_of_the_group(tmp_path, pid_file):
    tool = _tool(tmp_path, "kustomize", LEAVES_A_CHILD)
    outcome = run_tool([str(tool), "build"], timeout=GUARD)
    assert (outcome.ok, outcome.stdout) == (True, "rendered\n")
    assert _all_gone(_pids(pid_file)) == []
    assert process.live() == []


def test_an_exception_while_reading_kills_the_group(tmp_path, pid_file, monkeypatch):
    tool = _tool(tmp_path, "helm", HANGING)

    def broken(child, what, timeout):
        _pids(pid_file)  # started and registered
        assert process.live() == [child.pid]
        raise RuntimeError("a bug while reading")

    monkeypatch.setattr(process, "_read", broken)
    with pytest.raises(RuntimeError):
        run_tool([str(tool), "template"], timeout=GUARD)
    assert _all_gone(_pids(pid_file)) == []
    assert process.live() == []


def test_a_signal_while_a_child_starts_waits_until_it_is_registered(
    tmp_path, pid_file, monkeypatch
):
    tool = _tool(tmp_path, "helm", HANGING)
    real = subprocess.Popen

    def signalled(*args, **kwargs):
        child = real(*args, **kwargs)
        process._on_signal(signal.SIGTERM, None)  # arrives before run_tool knows the child
        return child

    monkeypatch.setattr(subprocess, "Popen", signalled)
    with pytest.raises(Terminated):
        run_tool([str(tool), "template"], timeout=GUARD)
    monkeypatch.undo()
    assert process.live() == []
    # Killed before it could write its pids, or after: either way nothing runs.
    pids = [int(p) for p in pid_file.read_text().split()] if pid_file.exists() else []
    assert _all_gone(pids) == []


# --- output read up to a cap ----------------------------------------------------------------

FLOOD = """#!/bin/sh
PATH=/usr/bin:/bin
head -c {size} /dev/zero | tr '\\0' 'a' {redirect}
"""


@pytest.mark.parametrize(
    ("redirect", "stream"), [("", "output"), (">&2", "error output")], ids=["stdout", "stderr"]
)
def test_output_past_the_cap_stops_the_tool_and_memory_stays_bounded(tmp_path, redirect, stream):
    # Four times the cap: read whole, as before, the run would hold all of it.
    size = 4 * MAX_OUTPUT_BYTES
    tool = _tool(tmp_path, "helm", FLOOD.format(size=size, redirect=redirect))
    tracemalloc.start()
    try:
        outcome = run_tool([str(tool), "template"], timeout=GUARD)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not outcome.ok
    assert outcome.message == (
        f"helm template {stream} exceeds 32 MiB (gpulint reads a render up to 32 MiB, "
        "as a file); helm was stopped"
    )
    assert peak < 2 * MAX_OUTPUT_BYTES
    assert process.live() == []


def test_output_at_the_cap_is_read_whole(tmp_path):
    tool = _tool(tmp_path, "helm", FLOOD.format(size=MAX_OUTPUT_BYTES, redirect=""))
    outcome = run_tool([str(tool), "template"], timeout=GUARD)
    assert outcome.ok and len(outcome.stdout) == MAX_OUTPUT_BYTES


# 34 ConfigMaps of 1 MiB each: 34 MiB of YAML from a few lines of template.
BIG_TEMPLATE = """\
{{- range until 34 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c{{ . }}
data:
  k: {{ repeat 1048576 "a" }}
{{- end }}
"""


def test_a_chart_that_renders_past_the_cap_is_a_located_error(real_helm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _chart(tmp_path, "big")
    (tmp_path / "big" / "templates" / "configmaps.yaml").write_text(BIG_TEMPLATE)
    (tmp_path / "small.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    tracemalloc.start()
    try:
        result = run_cli("check", "--format", "json", "--jobs", "1", "big", "small.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    data = json.loads(result.stdout)
    assert result.exit_code == 2
    assert data["errors"] == [
        {
            "path": "big/Chart.yaml",
            "line": 1,
            "column": 1,
            "message": "helm template failed: helm template output exceeds 32 MiB (gpulint "
            "reads a render up to 32 MiB, as a file); helm was stopped",
        }
    ]
    assert data["summary"]["files"] == 1  # the other input is still linted
    assert peak < 2 * MAX_OUTPUT_BYTES
