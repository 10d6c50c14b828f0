"""Dispatch by what a source holds (issue 30): a rule's checks meet only the sources that
hold what its ``reads`` trigger names; its collectors meet every source (a fact for another
file's finding may come from anywhere)."""

from __future__ import annotations

from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.engine.context import build_context, load_rule_hooks
from gpulint.engine.run import source_rules
from tests.helpers import lint, where

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/gpu: 1
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"


def _rules(text: str):
    ctx = build_context(Settings())
    load_rule_hooks(ctx)
    return source_rules(ctx, Source("a.yaml", text))


def test_a_rule_whose_trigger_the_source_lacks_is_not_checked_there():
    plain = _rules(POD)
    assert "GPU701" in plain.silent  # no NVIDIA_VISIBLE_DEVICES in the text
    assert "GPU701" not in {r.code for r in plain.resource}
    env = POD + "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n          value: all\n"
    assert "GPU701" in {r.code for r in _rules(env).resource}
    assert "GPU101" in {r.code for r in plain.resource}  # no trigger: every source


def test_a_configmap_meets_few_rules():
    rules = _rules(CONFIGMAP)
    checked = {r.code for r in rules.resource if r.code not in rules.silent}
    assert checked < {r.code for r in _rules(POD).resource}
    assert "GPU804" in rules.silent and "GPU703" in rules.silent


def test_collectors_still_meet_every_source():
    rules = _rules(CONFIGMAP)
    # GPU601 decides across files: its collector reads every source even where "shar"
    # (its trigger) is absent, so a sharing config elsewhere can pair with this pod
    collecting = {r.code for r in rules.resource if r.collect is not None}
    assert "GPU601" in collecting and "GPU601" in rules.silent


def test_findings_are_unchanged_by_dispatch(tmp_path):
    env = POD + "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n          value: all\n"
    found = lint(tmp_path, env + "---\n" + CONFIGMAP, "--select", "GPU701")
    assert where(found) == [("GPU701", 14, 18)]
