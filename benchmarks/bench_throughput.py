"""Throughput: `gpulint check` end to end against the parse-only baseline, same run.

For 1,000 and 10,000 generated documents (benchmarks/generate.py), times
    baseline   python benchmarks/parse_only.py DIR   (ruamel.yaml's C composer, nothing checked)
    lint       gpulint check DIR                     (default --jobs: the number of cores)
    lint -j1   gpulint check --jobs 1 DIR
    lint -j2   gpulint check --jobs 2 DIR
interleaved, and prints the medians and the ratios. Targets (issue 7): lint within
1.3x of the baseline at 10,000 documents; --jobs 2 faster than --jobs 1.

    python benchmarks/bench_throughput.py [--sizes 1000 10000] [--repeat 3] [--work /tmp/...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, HERE, PYTHON, compare, load  # noqa: E402
from generate import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "gpulint-bench"))
    args = parser.parse_args()
    print(f"# throughput ({load()})")
    for size in args.sizes:
        folder = os.path.join(args.work, f"docs-{size}")
        files = generate(size, folder)
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        out = ["--format", "json", "--output", os.devnull]
        results = compare(
            {
                "baseline": [PYTHON, os.path.join(HERE, "parse_only.py"), folder],
                "lint": [*GPULINT, "check", *out, folder],
                "lint -j1": [*GPULINT, "check", "--jobs", "1", *out, folder],
                "lint -j2": [*GPULINT, "check", "--jobs", "2", *out, folder],
            },
            args.repeat,
        )
        base = results["baseline"]
        print(f"\n{size} documents, {len(files)} files, {mb:.1f} MB (median of {args.repeat})")
        print(f"  {'':10} {'wall s':>8} {'x base':>7} {'cpu s':>8} {'x base':>7}")
        for name, sample in results.items():
            print(
                f"  {name:10} {sample.wall:8.2f} {sample.wall / base.wall:7.2f}"
                f" {sample.cpu:8.2f} {sample.cpu / base.cpu:7.2f}"
            )
        j1, j2 = results["lint -j1"], results["lint -j2"]
        print(f"  --jobs 2 speed-up over --jobs 1: {j1.wall / j2.wall:.2f}x (wall)")


if __name__ == "__main__":
    main()
