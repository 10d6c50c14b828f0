"""Documents per file: one file of 25,000, 50,000, 100,000 and 200,000 small documents.

A file of many small documents (a rendered chart, a generated stream, a hostile one)
must cost time linear in its documents: each doubling about twice the time. Work
per document that scans the whole file (a rule reading the source's text, a
suppression lookup that tries every directive) makes a doubling cost four times as
much. The documents cycle through a GPU Pod, a ConfigMap, a Service and a Pod with a
suppression comment and annotation, each with its own name (200,000 of them stay
under the 32 MiB a file may hold).

Optionally against a baseline source tree of gpulint (``--baseline DIR``, e.g.
``git archive main | tar -x -C DIR``), run with this interpreter. Sizes above what
the baseline finishes in ``--timeout`` seconds are skipped for it.

    python benchmarks/bench_documents.py [--sizes 25000 50000 100000 200000]
        [--baseline DIR] [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import PYTHON  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Small: 200,000 of them stay under the 32 MiB a file may hold (~110 bytes each).
DOCUMENTS = (
    """\
kind: Pod
apiVersion: v1
metadata: {{name: train-{i}}}
spec:
  containers:
  - name: t
    image: nvcr.io/nvidia/cuda:12.4.1-base
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
""",
    "kind: ConfigMap\napiVersion: v1\nmetadata: {{name: settings-{i}}}\ndata: {{mode: fast}}\n",
    "kind: Service\napiVersion: v1\nmetadata: {{name: serve-{i}}}\n"
    "spec: {{ports: [{{port: 80}}]}}\n",
    """\
kind: Pod
apiVersion: v1
metadata:
  name: infer-{i}
  annotations: {{ignore-check.gpulint.io/GPU201: any node}}
spec:
  containers:
  - name: s
    image: nvcr.io/nvidia/cuda:12.4.1-base
    resources: {{limits: {{nvidia.com/gpu: 1}}}}  # gpulint: disable=GPU106 default
""",
)


def write(path: str, count: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for i in range(count):
            out.write("---\n" + DOCUMENTS[i % len(DOCUMENTS)].format(i=i))


def command(tree: str, path: str) -> list[str]:
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from gpulint.cli.main import main\n"
        "try:\n    main()\n"
        "except SystemExit as exc:\n    sys.exit(0 if exc.code in (0, 1) else exc.code)"
    )
    argv = ["check", "--jobs", "1", "--format", "json", "--output", os.devnull, path]
    return [PYTHON, "-c", code, *argv]


def seconds(tree: str, path: str, timeout: float) -> float | None:
    start = time.perf_counter()
    try:
        done = subprocess.run(command(tree, path), timeout=timeout, capture_output=True)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{tree} failed on {path}:\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[25_000, 50_000, 100_000, 200_000])
    parser.add_argument("--baseline", help="a gpulint source tree to compare with")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    trees = [("this tree", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
    with tempfile.TemporaryDirectory() as work:
        for label, tree in trees:
            print(f"{label}:")
            previous: float | None = None
            for size in args.sizes:
                path = os.path.join(work, f"{size}.yaml")
                if not os.path.exists(path):
                    write(path, size)
                took = seconds(tree, path, args.timeout)
                if took is None:
                    print(f"  {size:>7} documents: over {args.timeout:.0f} s")
                    break
                ratio = f"  x{took / previous:.2f} for twice the documents" if previous else ""
                print(f"  {size:>7} documents: {took:7.2f} s{ratio}")
                previous = took


if __name__ == "__main__":
    main()
