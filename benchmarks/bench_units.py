"""Deployable units (issue 18): the walk of the shared corpus and the one-file case, against
a baseline checkout of gpulint, in the same run.

The baseline is a source tree of gpulint from before a change (e.g.
``git worktree add /tmp/gpulint-base main``, or ``git archive main | tar -x -C DIR``);
it runs with this interpreter, its own sources first on ``sys.path``. Target: the corpus
walk within 1.5x of the baseline, the one-file case unchanged. Keep both trees on the
same file system (``--current`` a copy of this checkout beside the baseline): start-up
is mostly imports, and a tree on a slower file system starts ~30 ms slower.

    python benchmarks/bench_units.py --baseline DIR [--current DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import PYTHON, compare, load  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command(tree: str) -> list[str]:
    """gpulint from ``tree``; exit 2 (the corpus has files that cannot be read) counts as done."""
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from gpulint.cli.main import main\n"
        "try:\n    main()\n"
        "except SystemExit as exc:\n    sys.exit(0 if exc.code == 2 else exc.code)"
    )
    return [PYTHON, "-c", code]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="a gpulint source tree to compare with")
    parser.add_argument("--current", default=ROOT, help="the gpulint tree to measure")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    corpus = os.path.abspath(args.corpus)
    one = os.path.join(ROOT, "examples", "training-pod.yaml")
    baseline, current = os.path.abspath(args.baseline), os.path.abspath(args.current)
    for tree in (baseline, current):  # byte-compiled, so neither pays for compiling
        for package in ("gpulint", "rules"):
            compileall.compile_dir(os.path.join(tree, package), quiet=1)
    before, after = command(baseline), command(current)
    cases = {
        "corpus walk": ["check", "--format", "json", corpus],
        "one file": ["check", "--format", "json", one],
    }
    print(f"# deployable units ({load()}); median of {args.repeat}, runs interleaved")
    for case, argv in cases.items():
        results = compare({"before": [*before, *argv], "after": [*after, *argv]}, args.repeat)
        base, now = results["before"], results["after"]
        print(
            f"  {case:12} before {base.wall:6.2f} s  after {now.wall:6.2f} s  "
            f"{now.wall / base.wall:4.2f}x   cpu before {base.cpu:6.2f} s  after {now.cpu:6.2f} s"
        )


if __name__ == "__main__":
    main()
