"""Readers are composed by the command line and handed to the run; the engine knows no kind."""

from __future__ import annotations

import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path

from gpulint.core.settings import Settings
from gpulint.engine.context import build_context
from gpulint.engine.run import lint_target, run
from gpulint.inputs.discover import Target
from gpulint.inputs.readers import PLAIN
from gpulint.inputs.render.targets import READERS
from gpulint.rules.registry import default_registry

POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
    "    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
    "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
)


def test_plain_readers_read_files_and_refuse_kinds_they_do_not_know(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    sources, errors = PLAIN.read(Target(str(path)), Settings())
    assert [s.text for s in sources] == [POD] and errors == []
    sources, errors = PLAIN.read(Target(str(tmp_path), "helm"), Settings())
    assert sources == []
    assert [(e.file, e.message) for e in errors] == [(str(tmp_path), "no reader for helm input")]


def test_the_renderers_readers_extend_the_plain_ones() -> None:
    assert sorted(READERS.by_kind) == ["file", "helm", "helm-release", "kustomize", "stdin"]
    assert READERS.by_kind["file"] is PLAIN.by_kind["file"]
    assert len(READERS.source_hooks) == 1 and PLAIN.source_hooks == ()


def test_a_run_reads_a_chart_only_through_the_readers_it_is_given(tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    ctx = build_context(Settings(), default_registry())
    result = run([Target(str(chart), "helm")], ctx)  # the plain readers only
    assert [(e.file, e.message) for e in result.errors] == [
        (str(chart), "no reader for helm input")
    ]


def test_a_spawned_worker_gets_the_renderers_by_unpickling_its_readers() -> None:
    """What the engine used to hard-code ("helm", "kustomize"): a fresh interpreter that
    unpickles the run's lint function imports the renderers' module by itself."""
    lint_one = pickle.dumps(partial(lint_target, readers=READERS))
    code = (
        "import pickle, sys\n"
        "import gpulint.engine.run\n"
        "RENDER = 'gpulint.inputs.render.targets'\n"
        "before = RENDER in sys.modules\n"
        "lint_one = pickle.loads(sys.stdin.buffer.read())\n"
        "print(before, RENDER in sys.modules, sorted(lint_one.keywords['readers'].by_kind))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=lint_one, capture_output=True, check=True
    )
    kinds = "['file', 'helm', 'helm-release', 'kustomize', 'stdin']"
    assert done.stdout.decode().strip() == f"False True {kinds}"
