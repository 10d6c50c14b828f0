"""The pre-commit case: `gpulint check one-file.yaml` against a bare `python -c pass`.

Both are started the same way (the same interpreter, a fresh process each time),
interleaved, and the medians compared. Target (issue 29: the CLI on click): within 10x.

The breakdown rows say where the time goes: each starts a fresh interpreter and
stops after one more step (the two libraries every run imports, gpulint's own
modules, the rule registry read from the pack index), so the differences between rows
are the steps' costs.
Run it with the interpreter of the environment to measure (``.venv/bin/python``),
never a shell shim such as pyenv's ``python3``, which adds its own start-up.
An editable install's ``python -c pass`` also pays for the editable finder
(pathlib and more: ~10 ms), which a regular install (pre-commit's) does not.

The children run from a temporary directory, so they import the *installed*
gpulint, as pre-commit does: ``python -c`` and ``python -m`` put the current
directory first on ``sys.path``, and from the project folder they would import
the source tree instead (and, with PYTHONDONTWRITEBYTECODE set, compile it on
every run: ~350 ms). Measure a regular install, reinstalled after each change:

    python3 -m venv /tmp/vstart && /tmp/vstart/bin/pip install -q .
    cd /tmp && /tmp/vstart/bin/python <project>/benchmarks/bench_startup.py

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

TARGET = 10.0
BREAKDOWN = {
    "  import click, ruamel.yaml": "import click, ruamel.yaml.cyaml",
    "  + gpulint's modules": "import gpulint.cli.main",
    # The registry reads the pack's index; a run imports the rule modules its inputs need.
    "  + the registry (pack index)": "import gpulint.cli.main; import gpulint.rules.registry as r; "
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
        # cwd: the temporary directory, never the project folder (see the docstring)
        results = compare(commands, args.repeat, cwd=work)
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
