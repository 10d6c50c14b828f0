"""The docs stay the tests: each fixable rule's failing example, fixed, loses its finding
(for a safe fix: becomes the passing example), a second --fix changes nothing, and every
documented example (and every fixed one) is a valid Kubernetes object.
"""

from __future__ import annotations

import re

import pytest

from gpulint.rules.registry import default_registry
from tests.helpers import example_name, findings_json, run_cli
from tests.kube_valid import problems

RULES = list(default_registry())
FIXABLE = [r for r in RULES if r.fix]
_MARK = re.compile(r"[ \t]*#\s*<-\s*[A-Z]+[0-9]{3}")
# Failing examples that are invalid objects on purpose: the invalidity is the finding.
INVALID_BY_DESIGN = {
    "GPU805": "the failing example is the malformed claim GPU805 reports",
    "GPU011": "the failing example has the wrong shapes GPU011 reports",
}


def test_the_fixable_rules():
    assert {r.code: r.fix for r in FIXABLE} == {
        "GPU010": "safe",
        "GPU101": "safe",
        "GPU402": "safe",
        "GPU706": "safe",
        "GPU102": "unsafe",
        "GPU206": "unsafe",
        "GPU301": "unsafe",
        "GPU705": "unsafe",
    }


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda r: r.code)
def test_documented_failing_example_is_fixed(rule, tmp_path):
    failing, passing = rule.examples()
    path = tmp_path / example_name(rule)
    path.write_text(failing)
    unsafe = ("--unsafe-fixes",) if rule.fix == "unsafe" else ()
    run_cli("check", str(path), "--select", rule.code, "--fix", *unsafe)
    fixed = path.read_text()
    assert fixed != failing
    left = findings_json(str(path), "--select", rule.code)["findings"]
    assert [f for f in left if f["code"] == rule.code] == []
    if rule.fix == "safe":
        assert _MARK.sub("", fixed) == passing
    invalid, _skipped = problems(fixed)
    assert invalid == []
    again = run_cli("check", str(path), "--select", rule.code, "--fix", *unsafe)
    assert path.read_text() == fixed
    assert "fixed 0 finding(s)" in again.output


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda r: r.code)
def test_how_to_fix_says_what_fix_does(rule):
    how = rule.sections()["How to fix"]
    assert "--fix" in how
    assert ("--unsafe-fixes" in how) == (rule.fix == "unsafe")


@pytest.mark.parametrize("rule", [r for r in RULES if not r.fix], ids=lambda r: r.code)
def test_rules_without_a_fix_do_not_promise_one(rule):
    assert "--fix" not in rule.doc


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
@pytest.mark.parametrize("which", ["failing", "passing"])
def test_documented_examples_are_valid_objects(rule, which):
    if example_name(rule).endswith(".toml"):
        pytest.skip("a containerd config.toml (TOML), not Kubernetes objects")
    failing, passing = rule.examples()
    invalid, skipped = problems(failing if which == "failing" else passing)
    if which == "failing" and rule.code in INVALID_BY_DESIGN:
        assert invalid, INVALID_BY_DESIGN[rule.code]
        return
    assert invalid == []
    if skipped and not invalid:
        pytest.skip(f"no bundled schema for {', '.join(skipped)} (custom or removed API)")


def test_the_schemas_are_bundled_and_need_no_network(monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise OSError("no network in the tests")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n"
        "spec:\n  template: {spec: {containers: [{name: a, image: b}]}}\n"
    )
    assert problems(text) == (["Deployment spec: 'selector' is a required property"], [])
