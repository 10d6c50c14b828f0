"""A chart whose ``required`` check names the value it wants (``.Values.x is required``)
renders with a placeholder for it, says so, and is linted (issue 24: a chart that exits
with a required value is otherwise not checked at all)."""

from __future__ import annotations

import json

from gpulint.inputs.render.helm import REQUIRED_PLACEHOLDER
from gpulint.model.values.placeholders import is_placeholder
from tests.helpers import run_cli

SECRET = (
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n"
    'data:\n  token: {{ required ".Values.secret.token is required in base64" '
    ".Values.secret.token | quote }}\n"
)


def _report(*args: str) -> dict:
    return json.loads(run_cli("check", "--format", "json", *args, "mychart").stdout)


def _values(chart, extra: str) -> None:
    (chart / "values.yaml").write_text("gpus: 1\ntag: 24.05-py3\n" + extra)


def test_a_required_value_the_chart_names_is_filled_with_a_placeholder(chart, real_helm):
    (chart / "templates" / "secret.yaml").write_text(SECRET)
    _values(chart, 'secret:\n  token: ""\n')
    report = _report()
    assert report["errors"] == []
    assert ("GPU101", "mychart/templates/deployment.yaml") in {
        (f["code"], f["path"]) for f in report["findings"]
    }
    result = run_cli("check", "mychart")
    assert (
        "mychart: rendered with a placeholder for the required value(s) secret.token"
        in result.output
    )


def test_two_required_values_are_filled_one_render_each(chart, real_helm):
    (chart / "templates" / "secret.yaml").write_text(SECRET)
    (chart / "templates" / "model.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n"
        '  m: {{ required "A valid .Values.model.name entry required!" .Values.model.name }}\n'
    )
    _values(chart, 'secret:\n  token: ""\nmodel:\n  name: ""\n')
    assert _report()["errors"] == []
    output = run_cli("check", "mychart").output
    assert "the required value(s) " in output
    named = output.split("the required value(s) ")[1].split(" (")[0]
    assert sorted(named.split(", ")) == ["model.name", "secret.token"]


def test_a_value_the_placeholder_does_not_satisfy_stays_an_input_error(chart, real_helm):
    # the chart checks the value's form too: the placeholder is not taken, the render fails
    (chart / "templates" / "port.yaml").write_text(
        '{{ $p := required ".Values.port is required" .Values.port }}'
        '{{ if not (regexMatch "^[0-9]+$" (toString $p)) }}{{ fail "port must be a number" }}'
        "{{ end }}\n"
    )
    report = _report()
    assert [e["path"] for e in report["errors"]] == ["mychart/templates/port.yaml"]
    assert "port must be a number" in report["errors"][0]["message"]


def test_a_message_that_names_no_value_path_is_not_guessed_at(chart, real_helm):
    (chart / "templates" / "model.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n"
        'data:\n  m: {{ required "the model is required" .Values.model }}\n'
    )
    report = _report()
    assert "the model is required" in report["errors"][0]["message"]


def test_the_placeholder_is_one_gpulint_reads_as_a_placeholder():
    assert is_placeholder(REQUIRED_PLACEHOLDER)


def test_at_most_five_values_are_filled(chart, real_helm):
    # a chart that wants a sixth is not guessed at further: the render stays an input error
    names = [f"v{i}" for i in range(6)]
    (chart / "templates" / "many.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n"
        + "".join(
            f'  {n}: {{{{ required ".Values.{n} is required" .Values.{n} }}}}\n' for n in names
        )
    )
    _values(chart, "".join(f'{n}: ""\n' for n in names))
    report = _report()
    assert [e["path"] for e in report["errors"]] == ["mychart/templates/many.yaml"]
    assert ".Values.v5 is required" in report["errors"][0]["message"]
