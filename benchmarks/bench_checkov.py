"""gpulint side by side with Checkov on the same 1,000 documents.

    checkov -d DIR --framework kubernetes   (the Python tool most teams would pick instead)
    gpulint check DIR

Checkov is looked up on PATH or in CHECKOV (e.g. a separate venv, so that it does
not disturb gpulint's environment: python -m venv /tmp/checkov-venv &&
/tmp/checkov-venv/bin/pip install checkov). Skipped when it is not installed.
Target (issue 7): gpulint at least 20x faster.

    CHECKOV=/tmp/checkov-venv/bin/checkov python benchmarks/bench_checkov.py [--docs 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, compare, load  # noqa: E402
from generate import generate  # noqa: E402


def find_checkov() -> str | None:
    explicit = os.environ.get("CHECKOV")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("checkov")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    checkov = find_checkov()
    if checkov is None:
        print("checkov is not installed (set CHECKOV or put it on PATH); skipped")
        return
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "docs")
        files = generate(args.docs, folder)
        results = compare(
            {
                # --skip-download: no network; -o json --quiet: one report, like gpulint's.
                "checkov": [
                    checkov,
                    "-d",
                    folder,
                    "--framework",
                    "kubernetes",
                    "--skip-download",
                    "--quiet",
                    "-o",
                    "json",
                ],
                "gpulint": [*GPULINT, "check", "--format", "json", folder],
                "gpulint -j1": [*GPULINT, "check", "--jobs", "1", "--format", "json", folder],
            },
            args.repeat,
            cwd=work,
        )
    print(f"# gpulint vs Checkov, {args.docs} documents in {len(files)} files ({load()})")
    slow = results["checkov"]
    for name, sample in results.items():
        print(
            f"  {name:12} {sample.wall:8.2f} s wall  {slow.wall / sample.wall:6.1f}x faster"
            f"   {sample.cpu:8.2f} s cpu  {slow.cpu / sample.cpu:6.1f}x"
        )


if __name__ == "__main__":
    main()
