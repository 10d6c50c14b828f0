"""Rule packs from other installed packages, through the ``gpulint.rules`` entry points.

The test builds a tiny installed distribution in a temporary folder (a package
and its ``.dist-info`` with ``entry_points.txt``) and puts it on PYTHONPATH of
a real ``python -m gpulint`` process, so the registry of this test process is
never touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import ROOT

# Each test starts a Python process with a plugin distribution on its path.
pytestmark = pytest.mark.slow

PLUGIN = '''\
"""Acme's GPU rules."""

from gpulint.rules.api import Report, Rule, Severity

_DOC = """
## What it checks
A GPU container without an `acme.io/cost-center` label on its pod.

## Why it matters
Finance splits the GPU bill by cost center.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:  # <- ACME001
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
  labels:
    acme.io/cost-center: ml-research
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
```

## How to fix
Add the label.
"""

cost_center = Rule(
    "ACME001", "acme-cost-center", Severity.ERROR, "GPU pods name a cost center.", _DOC
)


@cost_center.resource_check
def _check(resource, ctx):
    for pod in resource.pod_specs:
        labels = (pod.metadata or {}).get("labels") or {}
        if pod.requests_gpu and "acme.io/cost-center" not in labels:
            yield Report(pod.path, f"{resource.name} holds GPUs but names no acme.io/cost-center")


def more_rules():
    """An entry point may also name a function returning rules."""
    return [Rule("ACME002", "acme-noop", Severity.NOTE, "Never fires.", _DOC)]


RULES = [cost_center]
'''

ENTRY_POINTS = """\
[gpulint.rules]
acme = acme_gpulint:RULES
acme-more = acme_gpulint:more_rules
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def plugin_env(tmp_path) -> dict:
    site = tmp_path / "site"
    (site / "acme_gpulint").mkdir(parents=True)
    (site / "acme_gpulint" / "__init__.py").write_text(PLUGIN)
    info = site / "acme_gpulint-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-gpulint\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _gpulint(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gpulint", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_plugin_rules_are_listed_and_explained(plugin_env, tmp_path):
    listing = _gpulint(plugin_env, tmp_path, "rules")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert any(line.split()[:3] == ["ACME001", "acme-cost-center", "error"] for line in lines)
    assert any(line.split()[:2] == ["ACME002", "acme-noop"] for line in lines)
    assert any(line.startswith("GPU101") for line in lines)  # the built-in pack is still there
    explained = _gpulint(plugin_env, tmp_path, "explain", "acme-cost-center")
    assert explained.stdout.startswith("# ACME001 acme-cost-center (error)")


def test_plugin_rule_runs_with_exact_position(plugin_env, tmp_path):
    (tmp_path / "pod.yaml").write_text(textwrap.dedent(POD))
    result = _gpulint(plugin_env, tmp_path, "check", "--format", "json", "pod.yaml")
    assert result.returncode == 1, result.stderr
    found = [
        (f["code"], f["line"], f["column"], f["message"])
        for f in json.loads(result.stdout)["findings"]
        if f["code"].startswith("ACME")
    ]
    assert found == [("ACME001", 5, 1, "train holds GPUs but names no acme.io/cost-center")]


def test_plugin_rules_take_selection_and_suppression(plugin_env, tmp_path):
    text = POD.replace("  name: train\n", "  name: train\n  annotations:\n")
    text = text.replace(
        "  annotations:\n",
        '  annotations:\n    ignore-check.gpulint.io/ACME001: "billing exempt"\n',
    )
    (tmp_path / "pod.yaml").write_text(text)
    result = _gpulint(
        plugin_env, tmp_path, "check", "--format", "json", "--select", "ACME", "pod.yaml"
    )
    report = json.loads(result.stdout)
    assert result.returncode == 0
    assert [(f["code"], f["suppressed"]) for f in report["findings"]] == [("ACME001", True)]


def test_without_the_plugin_the_rules_are_absent(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    listing = _gpulint(env, tmp_path, "rules")
    assert listing.returncode == 0
    assert "ACME001" not in listing.stdout


def test_the_metadata_scan_finds_a_declaration_and_reads_nothing_else_amiss(tmp_path, monkeypatch):
    from gpulint.rules import registry

    plain = tmp_path / "other-1.0.dist-info"
    plain.mkdir()
    (plain / "entry_points.txt").write_bytes(b"[console_scripts]\nother = other:main\n")
    (tmp_path / "nothing-1.0.dist-info").mkdir()  # no entry_points.txt
    (tmp_path / "odd-1.0.dist-info" / "entry_points.txt").mkdir(parents=True)  # a folder
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    assert registry._any_plugin_declared() is False
    declares = tmp_path / "team-1.0.egg-info"
    declares.mkdir()
    (declares / "entry_points.txt").write_bytes(b"x" * 70_000 + b"\n[gpulint.rules]\nteam = t\n")
    assert registry._any_plugin_declared() is True
