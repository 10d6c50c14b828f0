"""The real-world corpus (../shared/corpus): gpulint never crashes on any of it.

Skipped only where the corpus is absent (it is reference material, not part of
the project). gpulint runs as a real subprocess over the whole corpus with
worker processes; every input error must be a located message, never an
internal error, and the output must equal a single-process run.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import CORPUS as SHARED_CORPUS

CORPUS = SHARED_CORPUS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}"),
]


def run(*args: str) -> tuple[int, dict, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "--format", "json", *args],
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1, 2), f"gpulint died ({proc.returncode}): {proc.stderr[-800:]}"
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


@pytest.fixture(scope="module")
def corpus_run() -> tuple[int, dict]:
    code, report, _stderr = run("--jobs", "2", str(CORPUS))
    return code, report


def test_the_whole_corpus_never_crashes(corpus_run):
    code, report = corpus_run
    assert report["summary"]["files"] > 300
    internal = [e for e in report["errors"] if "internal error" in e["message"]]
    assert internal == []
    for error in report["errors"]:
        assert error["path"] and error["line"] >= 1 and error["column"] >= 1 and error["message"]
    for finding in report["findings"]:
        assert finding["line"] >= 1 and finding["column"] >= 1
    # Findings exist (the corpus holds real mistakes); input errors alone give exit code 2.
    assert report["findings"]
    assert code == (2 if report["errors"] else 1)


def test_unrendered_templates_are_one_message_each(corpus_run):
    _code, report = corpus_run
    # One message a place: a file holds several only where it names several things that
    # could not be read (a kustomization's missing values files, each at its own line).
    places = [(e["path"], e["line"], e["column"]) for e in report["errors"]]
    assert len(places) == len(set(places))
    templates = [e for e in report["errors"] if "render it first" in e["message"]]
    assert templates, "the corpus holds unrendered Helm templates given as plain files"
    # An unrendered template or a chart that was not rendered: one message for the file.
    unrendered = [e["path"] for e in report["errors"] if e["line"] == 1]
    assert len(unrendered) == len(set(unrendered))
    # Several places in one file: each a values file that file names.
    for path in {e["path"] for e in report["errors"] if e["line"] > 1}:
        inside = [e["message"] for e in report["errors"] if e["path"] == path and e["line"] > 1]
        assert len(inside) == 1 or all(m.startswith("values file ") for m in inside), path


def test_worker_processes_give_the_single_process_output(corpus_run):
    _code, parallel = corpus_run
    _code1, single, _stderr = run("--jobs", "1", str(CORPUS))
    assert single == parallel
