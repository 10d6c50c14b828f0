"""Work linear in the input (issues 23 and 30): documents of a file, files of a folder,
containers of a pod.

Counted, not timed: the Python calls of a run (cProfile's count), and the characters of
the source's text that string methods and gpulint's lazy patterns scan, for a file of
N documents and one of 2N. Work per document proportional to the whole file (a rule
that searches ``doc.source.text``, a lookup that tries every suppression of an object,
a block of comment lines each searching for the line it covers) doubles the counts
per document when the documents double, and the ratio goes towards 4.
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import RULES, run_cli
from tests.text_scans import CountedText, count_text_scans

RATIO = 2.25  # twice the documents: twice the work, and some slack for the run's fixed part


def _documents() -> list[str]:
    """Every rule's documented examples (Kubernetes objects), and small documents of
    one's own: a suppression comment block above a line, an annotated object."""
    found = []
    for rule in RULES:
        for example in rule.examples():
            if example and not example.startswith("# file:") and "apiVersion" in example:
                found.extend(d for d in example.split("\n---\n") if d.strip())
    found.append(
        "# gpulint: disable=GPU106 sized by default\n" * 3 + "apiVersion: v1\nkind: Pod\n"
        "metadata:\n  name: p\n  annotations:\n    ignore-check.gpulint.io/GPU201: fine\n"
        "spec:\n  containers:\n    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base\n"
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
    )
    return found


def _stream(count: int) -> str:
    documents = _documents()
    return "".join(
        "---\n" + documents[i % len(documents)].replace("\n---", "\n#---") + "\n"
        for i in range(count)
    )


def _run(tmp_path: Any, count: int) -> tuple[int, int]:
    """(Python calls, characters scanned) of linting one file of ``count`` documents."""
    path = tmp_path / f"{count}.yaml"
    path.write_text(_stream(count))
    CountedText.scanned = 0
    profile = cProfile.Profile()
    profile.enable()
    result = run_cli("check", "--jobs", "1", "--format", "json", str(path))
    profile.disable()
    assert result.exit_code in (1, 2), result.stderr
    calls = sum(stat[1] for stat in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]
    return calls, CountedText.scanned


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    count_text_scans(monkeypatch)
    yield


def test_work_per_document_does_not_grow_with_the_file(tmp_path, counted):
    size = 2 * len(_documents())
    calls, scanned = _run(tmp_path, size)
    calls2, scanned2 = _run(tmp_path, 2 * size)
    assert scanned > 0
    assert scanned2 <= RATIO * scanned, (scanned, scanned2)
    assert calls2 <= RATIO * calls, (calls, calls2)


@pytest.mark.slow
def test_two_hundred_thousand_small_documents_lint(tmp_path):
    """The issue's case: one file of 200,000 small documents (minutes before)."""
    doc = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: b\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\nspec:\n  containers:\n"
        "    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base\n"
    )
    path = tmp_path / "many.yaml"
    path.write_text("".join(doc.format(i=i) for i in range(100_000)))
    result = run_cli(
        "check", "--jobs", "1", "--select", "GPU707,GPU101", "--format", "json", str(path)
    )
    assert result.exit_code == 0, result.stderr


# --- the other dimensions (issue 30): files of a folder, containers of a pod, joins ---

_GPU_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
{containers}"""
_CONTAINER = (
    "        - name: c{i}\n          image: vllm/vllm-openai:v0.6.3\n"
    "          resources:\n            limits: {{nvidia.com/gpu: 1}}\n"
)


def _calls(*args: str) -> int:
    profile = cProfile.Profile()
    profile.enable()
    result = run_cli("check", "--jobs", "1", "--no-config", "--format", "json", *args)
    profile.disable()
    assert result.exit_code in (0, 1), result.stderr
    return sum(stat[1] for stat in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]


def _folder(path: Any, files: int, containers: int = 1) -> str:
    path.mkdir()
    for i in range(files):
        body = "".join(_CONTAINER.format(i=c) for c in range(containers))
        (path / f"d{i}.yaml").write_text(_GPU_DEPLOYMENT.format(name=f"d{i}", containers=body))
    return str(path)


def test_work_grows_linearly_with_the_files_of_a_folder(tmp_path):
    # every file of one folder meets the cross-file rules' joins (one unit)
    _calls(_folder(tmp_path / "warm", 2))
    once = _calls(_folder(tmp_path / "a", 40))
    twice = _calls(_folder(tmp_path / "b", 80))
    assert twice <= RATIO * once, (once, twice)


def test_work_grows_linearly_with_the_containers_of_a_pod(tmp_path):
    _calls(_folder(tmp_path / "warm", 1, 2))
    once = _calls(_folder(tmp_path / "a", 1, 120))
    twice = _calls(_folder(tmp_path / "b", 1, 240))
    assert twice <= RATIO * once, (once, twice)
