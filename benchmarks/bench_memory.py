"""Memory: peak RSS follows the largest document and the findings, not the number of files.

Runs `gpulint check --jobs 1` (one process, so its own peak is the whole story) on
    one file of N documents            (the largest file is N documents)
    one file of 2N documents           (twice the largest file)
    10 x N documents in N-doc files    (ten times the input, same largest file)
and reports the peak resident memory of each. Documents are parsed, checked and
freed one at a time, so the 2N file costs about what the N file does, and ten
times the input adds only what the run keeps to the end: its findings (sorted and
reported last) and the small facts of cross-file rules.

    python benchmarks/bench_memory.py [--docs 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, PYTHON, measure  # noqa: E402
from generate import generate  # noqa: E402


def one_file(count: int, path: str, scratch: str) -> str:
    """``count`` documents in a single multi-document file at ``path``."""
    parts = generate(count, scratch)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for part in parts:
            with open(part, encoding="utf-8") as handle:
                out.write("---\n" + handle.read() + "\n")
    return path


def input_size(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(r, f)) for r, _d, fs in os.walk(path) for f in fs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    n = args.docs
    with tempfile.TemporaryDirectory() as work:
        scratch = os.path.join(work, "scratch")
        ten = os.path.join(work, "ten")
        cases = {
            "python -c pass": None,
            f"1 file of {n} docs": one_file(n, os.path.join(work, "n", "all.yaml"), scratch),
            f"1 file of {2 * n} docs": one_file(2 * n, os.path.join(work, "2", "a.yaml"), scratch),
        }
        for i in range(10):
            one_file(n, os.path.join(ten, f"part-{i}.yaml"), scratch)
        cases[f"{10 * n} docs in 10 files of {n}"] = ten
        print("# peak memory (RSS), gpulint --jobs 1")
        for name, path in cases.items():
            command = (
                [PYTHON, "-c", "pass"]
                if path is None
                else [*GPULINT, "check", "--jobs", "1", "--format", "json", path]
            )
            sample = measure(command)
            size = 0 if path is None else input_size(path)
            found = "" if path is None else f"   {findings(path):6} findings kept"
            print(
                f"  {name:30} input {size / 2**20:7.1f} MiB   peak RSS {sample.rss:7.1f} MiB{found}"
            )


def findings(path: str) -> int:
    """How many findings the run keeps to the end (what grows with the input)."""
    out = subprocess.run(
        [*GPULINT, "check", "--jobs", "1", "--format", "json", path],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return len(json.loads(out)["findings"])


if __name__ == "__main__":
    main()
