"""The pre-commit case: `gpulint check one-file.yaml` against a bare `python -c pass`.

Both are started the same way (the same interpreter, a fresh process each time),
interleaved, and the medians compared. Target (issues 7 and 12): within 8x.

The breakdown rows say where the time goes: each starts a fresh interpreter and
stops after one more step (the two libraries every run imports, gpulint's own
modules, the rule pack), so the differences between rows are the steps' costs.
Run it with the interpreter of the environment to measure (``.venv/bin/python``),
never a shell shim such as pyenv's ``python3``, which adds its own start-up.
An editable install's ``python -c pass`` also pays for the editable finder
(pathlib and more: ~10 ms), which a regular install (pre-commit's) does not.

    python benchmarks/bench_startup.py [--repeat 21] [--no-breakdown]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, PYTHON, compare, load  # noqa: E402
from generate import generate  # noqa: E402

TARGET = 8.0
BREAKDOWN = {
    "  import click, ruamel.yaml": "import click, ruamel.yaml.cyaml",
    "  + gpulint's modules": "import gpulint.cli.main",
    "  + the rule pack": "import gpulint.cli.main; import gpulint.rules.registry as r; "
    "r.default_registry()",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--no-breakdown", action="store_true", help="only the two commands")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        (one,) = generate(1, os.path.join(work, "one"))
        commands = {
            "python -c pass": [PYTHON, "-c", "pass"],
            "gpulint check one-file.yaml": [*GPULINT, "check", one],
            "gpulint check --format sarif": [*GPULINT, "check", "--format", "sarif", one],
        }
        if not args.no_breakdown:
            commands.update({name: [PYTHON, "-c", code] for name, code in BREAKDOWN.items()})
        results = compare(commands, args.repeat)
    print(f"# start-up, one file ({load()}); median of {args.repeat}; {PYTHON}")
    base = results["python -c pass"]
    for name, sample in results.items():
        print(
            f"  {name:30} {sample.wall * 1000:7.1f} ms  {sample.wall / base.wall:5.1f}x"
            f"   cpu {sample.cpu * 1000:7.1f} ms  {sample.cpu / base.cpu:5.1f}x"
        )
    check = results["gpulint check one-file.yaml"]
    for what, ratio in (("wall", check.wall / base.wall), ("cpu", check.cpu / base.cpu)):
        verdict = "within" if ratio <= TARGET else "NOT within"
        print(f"# one file, {what}: {ratio:.1f}x the bare interpreter, {verdict} {TARGET:g}x")


if __name__ == "__main__":
    main()
