"""Run commands as child processes and measure each: wall time, CPU time, peak memory.

Commands compared in one run are interleaved (A B A B ...) so that a busy
machine slows each the same way; the median of the repetitions is reported.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
GPULINT = [sys.executable, "-m", "gpulint"]
PYTHON = sys.executable


def compile_package() -> None:
    """Byte-compile gpulint as ``pip install`` does, so no run pays for compiling its
    sources (an editable install with PYTHONDONTWRITEBYTECODE set would, every time)."""
    import compileall

    import gpulint
    import gpulint.rules.builtin

    # gpulint/ and the rule pack (rules/, which ships as gpulint.rules.builtin)
    for package in (gpulint, gpulint.rules.builtin):
        for folder in package.__path__:
            compileall.compile_dir(folder, quiet=1)


compile_package()


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process and its waited-for children
    rss: float  # peak resident memory of the process itself, MiB


def measure(command: list[str], cwd: str | None = None) -> Sample:
    """One run of ``command``; its output is discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}):\n{err[-2000:]}")
    # wait4's usage includes the workers the command waited for (gpulint --jobs), in
    # microseconds (os.times counts clock ticks: 10 ms steps, too coarse for start-up).
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(wall, cpu, usage.ru_maxrss / 1024)


def compare(commands: dict[str, list[str]], repeat: int, cwd: str | None = None) -> dict:
    """Median Sample of each command, runs interleaved."""
    runs: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            runs[name].append(measure(command, cwd))
    return {
        name: Sample(
            statistics.median(s.wall for s in samples),
            statistics.median(s.cpu for s in samples),
            max(s.rss for s in samples),
        )
        for name, samples in runs.items()
    }


def load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"
