"""Custom rules from a config file the linted tree holds: no pattern runs for minutes,
no schema recurses into an internal error; each such problem is located at the config."""

from __future__ import annotations

import json
import random
import textwrap

import pytest

from gpulint.validate import linear_re
from tests.helpers import run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        requests:
          nvidia.com/gpu: 1
"""


def _rule(schema: str) -> str:
    return (
        "custom-rules:\n"
        "  - code: TEAM001\n"
        "    name: team-one\n"
        "    message: bad name\n"
        "    target: Pod\n"
        "    schema:\n" + textwrap.indent(textwrap.dedent(schema), "      ")
    )


NAME_PATTERN = "properties:\n  metadata:\n    properties:\n      name: {pattern: '%s'}\n"


@pytest.fixture
def lint(tmp_path, monkeypatch):
    """lint(config, *manifests) -> (exit code, findings (code, file, line, column), the
    errors: config errors on stderr, input errors from the report as text lines)."""
    monkeypatch.chdir(tmp_path)

    def _lint(config: str, *manifests: str, args: tuple = ()):
        (tmp_path / ".gpulint.yaml").write_text(config)
        names = []
        for i, text in enumerate(manifests):
            (tmp_path / f"m{i}.yaml").write_text(text)
            names.append(f"m{i}.yaml")
        result = run_cli("check", "--format", "json", *args, *names)
        report = json.loads(result.stdout) if result.stdout.strip() else {"findings": []}
        found = [(f["code"], f["path"], f["line"], f["column"]) for f in report["findings"]]
        errors = "".join(
            f"{e['path']}:{e['line']}:{e['column']}: {e['message']}\n"
            for e in report.get("errors", ())
        )
        return result.exit_code, found, result.stderr + errors

    return _lint


def test_a_backtracking_pattern_is_answered_at_once(lint):
    code, found, _ = lint(
        _rule(NAME_PATTERN % "^(a+)+$"), POD.format(name="a" * 40 + "x"), args=("--select", "TEAM")
    )
    assert code == 1
    assert found == [("TEAM001", "m0.yaml", 4, 9)]


def test_pattern_properties_and_their_extras_are_searched_in_linear_time(lint):
    schema = (
        "properties:\n  metadata:\n    properties:\n      labels:\n"
        "        patternProperties: {'^(a|aa)+$': {}}\n        additionalProperties: false\n"
    )
    pod = POD.replace("  name: {name}\n", "  name: p\n  labels:\n    %s: x\n" % ("a" * 60 + "!"))
    code, found, _ = lint(_rule(schema), pod, args=("--select", "TEAM"))
    assert (code, found) == (1, [("TEAM001", "m0.yaml", 6, 5)])


@pytest.mark.parametrize(
    "pattern, what",
    [("^(?!kube-system$)", "a negative lookahead"), ("(a)\\1", "a backreference")],
)
def test_a_pattern_that_needs_backtracking_is_a_located_config_error(lint, pattern, what):
    code, _, stderr = lint(_rule(NAME_PATTERN % pattern), POD.format(name="p"))
    assert code == 2
    assert stderr.startswith(
        ".gpulint.yaml:10:29: error [config] custom-rules.0.schema.properties.metadata."
        f"properties.name.pattern: pattern {pattern!r}: {what}"
    )


def test_a_pattern_over_its_budget_is_the_rules_error_at_the_pattern(lint, monkeypatch):
    """The rule stops with one error at the pattern's line and column; the other rules
    and the other files are still linted."""
    monkeypatch.setattr(linear_re, "BUDGET", 20_000)
    rng = random.Random(7)
    costly = POD.format(name="".join(rng.choice("ab") for _ in range(5_000)))
    code, found, stderr = lint(
        _rule(NAME_PATTERN % "(a|b)*a(a|b){12}c"), costly, POD.format(name="ok"), costly
    )
    assert code == 2
    assert stderr.splitlines()[0] == (
        ".gpulint.yaml:10:29: pattern '(a|b)*a(a|b){12}c' needs more work than "
        "gpulint allows a config pattern (it matches text in ways that never repeat); the rule "
        "stopped checking"
    )
    assert sum("needs more work" in line for line in stderr.splitlines()) == 1
    assert {(c, f) for c, f, _l, _c in found} >= {
        ("GPU101", "m0.yaml"),
        ("GPU101", "m1.yaml"),
        ("GPU101", "m2.yaml"),
    }


@pytest.mark.parametrize(
    "schema, line, column, where",
    [
        ("$ref: '#'\n", 7, 13, "schema.$ref"),
        (
            "allOf:\n  - $ref: '#/$defs/a'\n$defs:\n  a: {not: {$ref: '#'}}\n",
            10,
            25,
            "schema.$defs.a.not.$ref",
        ),
        ("properties:\n  spec: {$ref: '#/$defs/missing'}\n", 8, 22, "schema.properties.spec.$ref"),
    ],
)
def test_a_schema_that_cannot_be_validated_is_a_located_config_error(
    lint, schema, line, column, where
):
    code, _, stderr = lint(_rule(schema), POD.format(name="p"))
    assert code == 2
    first = stderr.splitlines()[0]
    assert first.startswith(f".gpulint.yaml:{line}:{column}: error [config] custom-rules.0.")
    if where:
        assert first.startswith(
            f".gpulint.yaml:{line}:{column}: error [config] custom-rules.0.{where}:"
        )
    assert "internal error" not in stderr


def test_a_recursive_tree_schema_still_validates(lint):
    schema = (
        "$ref: '#/$defs/node'\n$defs:\n  node:\n    type: object\n    additionalProperties:\n"
        "      anyOf: [{type: [string, array], maxLength: 20}, {$ref: '#/$defs/node'}]\n"
    )
    pod = POD.format(name="a" * 30)
    code, found, _ = lint(_rule(schema), pod, args=("--select", "TEAM"))
    # metadata's value fails both branches (its name is too long): reported at that value
    assert (code, found) == (1, [("TEAM001", "m0.yaml", 4, 3)])


def test_a_recursion_while_validating_is_the_rules_error_not_an_internal_error(lint):
    schema = (
        "$ref: '#/$defs/node'\n$defs:\n  node: {additionalProperties: {$ref: '#/$defs/node'}}\n"
    )
    deep = POD.format(name="p") + "  extra:\n"
    deep += "".join("  " * (i + 2) + f"k{i}:\n" for i in range(300)) + "  " * 302 + "leaf: 1\n"
    code, found, stderr = lint(_rule(schema), deep, POD.format(name="q"))
    assert code == 2
    assert stderr.splitlines()[0] == (
        ".gpulint.yaml:6:5: validating an object against this schema recursed "
        "deeper than Python allows; the object was not checked"
    )
    assert "internal error" not in stderr
    assert ("GPU101", "m0.yaml", 11, 11) in found and ("GPU101", "m1.yaml", 11, 11) in found


def test_unevaluated_properties_beside_pattern_properties_is_refused(lint):
    schema = "patternProperties: {'^a': {}}\nunevaluatedProperties: false\n"
    code, _, stderr = lint(_rule(schema), POD.format(name="p"))
    assert code == 2
    assert stderr.startswith(
        ".gpulint.yaml:8:7: error [config] custom-rules.0.schema.unevaluatedProperties: "
        "unevaluatedProperties in a schema with patternProperties is not supported"
    )


@pytest.mark.parametrize(
    "schema, column, where",
    [
        ("properties:\n  spec: {multipleOf: .nan}\n", 28, "schema.properties.spec.multipleOf"),
        ("properties:\n  spec: {maximum: .inf}\n", 25, "schema.properties.spec.maximum"),
    ],
)
def test_a_number_that_is_not_finite_is_a_located_config_error(lint, schema, column, where):
    code, found, stderr = lint(_rule(schema), POD.format(name="p"))
    assert code == 2
    assert found == []
    assert stderr.splitlines()[0] == (
        f".gpulint.yaml:8:{column}: error [config] custom-rules.0.{where}: not a finite number "
        "(.inf or .nan): JSON has no such numbers and a JSON Schema keyword cannot compare "
        "with them"
    )
