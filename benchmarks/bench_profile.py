"""What the preparation pass costs, against the lint run it precedes (same input, same run).

The preparation pass (gpulint/inputs/prepare.py) must finish before any rule runs: it reads
the raw bytes of every plain file once, matches the rules' triggers and builds the cluster
profile, parsing only the files that can hold a Node, NodePool, RuntimeClass or a
provider's label. Both are timed in this process, interleaved, medians compared; the pass
should stay a few percent of the run.

    python benchmarks/bench_profile.py [--docs 2000] [--repeat 5] [PATH ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import load  # noqa: E402
from generate import generate  # noqa: E402

from gpulint.core.settings import Settings  # noqa: E402
from gpulint.engine.context import build_context  # noqa: E402
from gpulint.engine.run import run  # noqa: E402
from gpulint.inputs.discover import discover  # noqa: E402
from gpulint.inputs.prepare import prepare  # noqa: E402


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(paths: list[str], repeat: int) -> tuple[float, float, int]:
    targets, _ = discover(paths)
    settings = Settings()
    rules = build_context(settings).rules
    prescan = _median(lambda: prepare(rules, targets, settings), repeat)
    lint = _median(lambda: run(targets, build_context(settings)), repeat)
    return prescan, lint, len(targets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("paths", nargs="*", help="folders to time besides generated manifests")
    args = parser.parse_args()
    print(f"# the preparation pass vs the lint run ({load()}); median of {args.repeat}")
    with tempfile.TemporaryDirectory() as work:
        generate(args.docs, os.path.join(work, "docs"))
        inputs = {f"{args.docs} generated documents": [os.path.join(work, "docs")]}
        inputs.update({path: [path] for path in args.paths})
        for name, paths in inputs.items():
            prescan, lint, count = bench(paths, args.repeat)
            print(
                f"  {name:40} {count:5} targets  prescan {prescan * 1000:7.1f} ms  "
                f"lint {lint * 1000:8.1f} ms  ({prescan / lint:6.1%})"
            )


if __name__ == "__main__":
    main()
