"""Dispatch by what a source holds (issue 30): a rule's checks meet only the sources that
hold what its ``reads`` trigger names; its collectors meet every source (a fact for another
file's finding may come from anywhere)."""

from __future__ import annotations

from pathlib import Path

from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.engine.context import build_context, load_rule_hooks
from gpulint.engine.dispatch import source_rules
from gpulint.inputs.prescan import RuleTriggers
from gpulint.model.resource import resources_of
from gpulint.yaml.parse import parse
from tests.helpers import RULES, lint, where

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


def test_a_resource_without_pod_specs_meets_no_pods_only_check():
    rules = _rules(CONFIGMAP)
    assert "GPU011" in {r.code for r in rules.resource}
    assert "GPU011" not in {r.code for r in rules.podless}  # pods only: a ConfigMap skips it
    # GPU801 checks pods but collects claim objects too: it meets every resource
    assert "GPU801" in {r.code for r in rules.podless}
    assert {r.code for r in rules.podless if r.pods_only} == {
        r.code for r in rules.resource if r.pods_only and r.collect is not None
    }


def _objects_without_pod_specs():
    """Every object without a pod spec in the rules' documented examples (Nodes, ConfigMaps,
    ClusterPolicies, RuntimeClasses, DRA objects...), the examples and the test data."""
    root = Path(__file__).resolve().parents[2]
    texts = [(f"{r.code}.yaml", text) for r in RULES for text in r.examples()]
    for path in sorted([*root.glob("examples/**/*.yaml"), *root.glob("tests/**/*.yaml")]):
        try:
            texts.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    for name, text in texts:
        docs, _errors = parse(Source(name, text))
        for doc in docs:
            for resource in resources_of(doc):
                if not resource.pod_specs:
                    yield resource


def test_pods_only_checks_report_nothing_on_objects_without_pod_specs():
    """The declaration is a promise the engine relies on: a pods-only check never reports
    on an object without a pod spec (here, every such object of the examples and tests)."""
    ctx = build_context(Settings())
    load_rule_hooks(ctx)
    pods_only = [r for r in ctx.rules if r.pods_only]
    assert len(pods_only) >= 15
    seen = 0
    for resource in _objects_without_pod_specs():
        seen += 1
        for rule in pods_only:
            assert list(rule.check_resource(resource, ctx) or ()) == [], (rule.code, resource)
    assert seen >= 50  # Nodes, ConfigMaps, ClusterPolicies, RuntimeClasses, DRA objects...


def test_sources_that_hold_the_same_triggers_share_one_answer():
    ctx = build_context(Settings())
    load_rule_hooks(ctx)
    first = source_rules(ctx, Source("a.yaml", POD))
    assert source_rules(ctx, Source("b.yaml", POD.replace("name: p", "name: q"))) is first
    assert source_rules(ctx, Source("c.yaml", CONFIGMAP)) is first  # holds none either
    env = POD + "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n          value: all\n"
    assert source_rules(ctx, Source("d.yaml", env)).silent == first.silent - {"GPU701"}


def test_each_preparation_answers_for_its_own_triggers():
    # One process, two runs (an editor's): the second preparation's triggers are searched
    # in another order (a rule list given in reverse), and its answers must be its own.
    ctx = build_context(Settings())
    load_rule_hooks(ctx)
    env = POD + "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n          value: all\n"
    expected = source_rules(ctx, Source("a.yaml", env)).silent
    for rules in (ctx.rules, list(reversed(ctx.rules))):
        triggers = RuleTriggers(rules)
        triggers.see(env.encode(), "a.yaml")
        ctx.seen = triggers.seen
        assert source_rules(ctx, Source("a.yaml", env)).silent == expected
        assert "GPU701" not in expected and "GPU701" in source_rules(ctx, Source("b", POD)).silent
