"""The pre-commit case: `gpulint check one-file.yaml` against a bare `python -c pass`.

Both are started the same way (the same interpreter, a fresh process each time),
interleaved, and the medians compared. Target (issue 7): within 8x.

    python benchmarks/bench_startup.py [--repeat 21]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, PYTHON, compare, load  # noqa: E402
from generate import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        (one,) = generate(1, os.path.join(work, "one"))
        results = compare(
            {
                "python -c pass": [PYTHON, "-c", "pass"],
                "gpulint check one-file.yaml": [*GPULINT, "check", one],
                "gpulint check --format sarif": [*GPULINT, "check", "--format", "sarif", one],
            },
            args.repeat,
        )
    print(f"# start-up, one file ({load()}); median of {args.repeat}")
    base = results["python -c pass"]
    for name, sample in results.items():
        print(
            f"  {name:30} {sample.wall * 1000:7.1f} ms  {sample.wall / base.wall:5.1f}x"
            f"   cpu {sample.cpu * 1000:7.1f} ms  {sample.cpu / base.cpu:5.1f}x"
        )


if __name__ == "__main__":
    main()
