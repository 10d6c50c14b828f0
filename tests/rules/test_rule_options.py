"""Per-rule options: declared by the rule, set under ``rules:`` in .gpulint.yaml, checked
against the schema built from the declarations, read through the run's context."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from gpulint.config.file import ConfigError, load_config, rule_options
from gpulint.core.settings import Settings
from gpulint.engine.context import build_context
from gpulint.engine.run import run
from gpulint.inputs.discover import Target
from gpulint.rules.api import Context, Option, Report, Resource, Rule, Severity
from gpulint.rules.registry import Registry, default_registry

odd = Rule(
    "TEAM108",
    "gpu-count-odd",
    Severity.NOTE,
    "A container holds an odd number of GPUs.",
    "",
    options=(
        Option("allowed", list, [], "Counts that are fine anyway."),
        Option("most", int, 8, "Counts above this are not judged.", {"minimum": 1}),
    ),
)


@odd.resource_check
def _check(resource: Resource, ctx: Context) -> Iterator[Report]:
    allowed, most = ctx.option(odd, "allowed"), ctx.option(odd, "most")
    for container in resource.containers:
        count = container.gpus.get("nvidia.com/gpu", 0)
        if 1 < count <= most and count % 2 and str(count) not in allowed:
            path = container.path + ("resources", "limits", "nvidia.com/gpu")
            yield Report(path, f"{count} GPUs", container=container.name, at="value")


REGISTRY = Registry([*default_registry(), odd])
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: x:1
    resources:
      limits:
        nvidia.com/gpu: 3
"""


def _config(tmp_path, text: str):
    path = tmp_path / ".gpulint.yaml"
    path.write_text(textwrap.dedent(text))
    return load_config(str(path), REGISTRY)


def _findings(tmp_path, options: dict) -> list[tuple[str, int, int]]:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(POD)
    settings = Settings(select=("TEAM108",), rule_options=options)
    result = run([Target(str(manifest))], build_context(settings, REGISTRY))
    return [(f.code, f.location.line, f.location.column) for f in result.findings]


def test_options_set_by_code_or_name_reach_the_rule(tmp_path):
    assert _findings(tmp_path, {}) == [("TEAM108", 10, 25)]  # the defaults
    for text in ("rules:\n  TEAM108: {allowed: ['3']}\n", "rules:\n  gpu-count-odd: {most: 2}\n"):
        config = _config(tmp_path, text)
        options = rule_options(config.values, REGISTRY)
        assert list(options) == ["TEAM108"]  # keyed by code, whichever way it was written
        assert _findings(tmp_path, options) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "rules:\n  TEAM108:\n    most: 0\n",
            (3, 11, "rules.TEAM108.most: 0 is less than the minimum of 1"),
        ),
        (
            "rules:\n  TEAM108:\n    allowd: []\n",
            (3, 5, "rules.TEAM108.allowd: unknown key 'allowd'; did you mean 'allowed'?"),
        ),
        (
            "rules:\n  TEAM108: {most: many}\n",
            (2, 19, "rules.TEAM108.most: 'many' is not of type 'integer'"),
        ),
        ("rules:\n  GPU101: {most: 1}\n", (2, 3, "rules.GPU101: GPU101 has no options")),
        ("rules:\n  TEAM999: {}\n", (2, 3, "rules.TEAM999: unknown rule 'TEAM999'")),
        (
            "rules:\n  TEAM108: {}\n  gpu-count-odd: {}\n",
            (
                3,
                3,
                "rules.gpu-count-odd: TEAM108 is configured twice ('TEAM108' and 'gpu-count-odd')",
            ),
        ),
    ],
)
def test_mistakes_are_config_errors_at_the_key(tmp_path, text, expected):
    with pytest.raises(ConfigError) as raised:
        _config(tmp_path, text)
    (error,) = raised.value.errors
    assert (error.line, error.column, error.message) == expected


def test_the_schema_is_built_from_the_declarations():
    schema = REGISTRY.options_schema()
    entry = schema["properties"]["TEAM108"]
    assert schema["properties"]["gpu-count-odd"] == entry
    assert entry["additionalProperties"] is False
    assert entry["properties"]["most"] == {
        "description": "Counts above this are not judged.",
        "default": 8,
        "type": "integer",
        "minimum": 1,
    }
    assert "GPU101" not in schema["properties"]  # no options, no entry


def test_an_option_is_shown_as_explain_lists_it():
    assert odd.options[1].shown() == "most (integer, default 8): Counts above this are not judged."
    with pytest.raises(KeyError, match="TEAM108 declares no option 'mots'"):
        odd.option_named("mots")
