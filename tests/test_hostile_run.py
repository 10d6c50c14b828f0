"""Hostile runs (issue 13): findings never lost, exit codes that tell the truth,
nothing read or fetched beyond what the run was given, output escaped."""

from __future__ import annotations

import json

import pytest

from gpulint.engine import run as engine
from gpulint.findings import Severity
from gpulint.rules.registry import Report, Rule
from tests.conftest import run_cli

MALFORMED_LIMITS = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests: {nvidia.com/gpu: 1}
        limits: LIMIT
"""


def _json(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.output)


# --- 3. a rule crash hides the rest -------------------------------------------------------------


@pytest.mark.parametrize("limits", ["1", "true", "1.5", "[1]", "text"])
def test_malformed_limits_is_a_finding_at_the_key_and_every_rule_runs(tmp_path, limits):
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", limits))
    code, report = _json(str(path))
    assert report["errors"] == []
    where = {(f["code"], f["line"], f["column"]) for f in report["findings"]}
    assert ("GPU011", 11, 17) in where
    # GPU201 and GPU202 crashed on this pod before; now they report what is missing.
    assert {"GPU201", "GPU202"} <= {f["code"] for f in report["findings"]}
    assert code == 1


def test_one_rule_crash_is_that_rules_internal_error_and_the_others_run(tmp_path, monkeypatch):
    boom = Rule("GPU999", "boom", Severity.ERROR, "crashes", "")

    @boom.resource_check
    def _check(resource, ctx):
        yield Report(("metadata",), "first")
        raise TypeError("secret document text")

    real = engine.build_context

    def with_boom(settings, registry=None):
        ctx = real(settings, registry)
        ctx.rules.insert(0, boom)
        return ctx

    monkeypatch.setattr(engine, "build_context", with_boom)
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}"))
    code, report = _json(str(path))
    assert code == 2
    assert [(e["line"], e["message"]) for e in report["errors"]] == [
        (
            1,
            "internal error in rule GPU999 boom: TypeError; the other rules ran "
            "(run with --debug or GPULINT_DEBUG=1 for the traceback; please report it)",
        )
    ]
    codes = [f["code"] for f in report["findings"]]
    assert "GPU999" in codes and "GPU201" in codes  # its own finding kept, the others ran
    assert "secret document text" not in json.dumps(report)


def test_malformed_limits_is_one_finding_not_also_a_missing_limit(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", "1"))
    _, report = _json(str(path))
    assert [f["code"] for f in report["findings"] if f["code"] in ("GPU011", "GPU101")] == [
        "GPU011"
    ]
