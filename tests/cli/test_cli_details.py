"""What a user meets in the first minutes: -V, one report per stream, colour, help, -v."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulint import __version__
from gpulint.rules.registry import builtin_rules
from tests.helpers import run_cli

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
        requests:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def pod(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("pod.yaml").write_text(POD)
    return Path("pod.yaml")


def test_short_version_flag():
    for flag in ("-V", "--version"):
        result = run_cli(flag)
        assert result.exit_code == 0
        assert result.output == f"gpulint, version {__version__}\n"


def test_two_formats_on_standard_output_are_refused(pod):
    result = run_cli("check", "pod.yaml", "--format", "json", "--format", "sarif")
    assert result.exit_code == 2
    assert (
        "Error: json and sarif would both go to standard output; give all but "
        "one an --output file (--output is paired with --format in order)"
    ) in result.stderr
    dash = run_cli("check", "pod.yaml", "--format", "json", "--format", "sarif", "-o", "-")
    assert dash.exit_code == 2
    fine = run_cli("check", "pod.yaml", "--format", "json", "--format", "sarif", "-o", "x.json")
    assert fine.exit_code == 1 and fine.output.startswith('{\n  "$schema"')
    assert Path("x.json").read_text().startswith('{\n  "version"')


@pytest.mark.parametrize(
    ("args", "env", "colored"),
    [
        ((), {}, False),  # not a terminal
        (("--color", "always"), {}, True),
        (("--color", "always"), {"NO_COLOR": "1"}, True),  # the flag wins
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_color_flag_and_environment(pod, args, env, colored):
    result = run_cli("check", "pod.yaml", *args, env=env)
    assert ("\x1b[" in result.output) is colored
    json_out = run_cli("check", "pod.yaml", "--format", "json", *args, env=env).output
    assert "\x1b[" not in json_out  # colour is for the text report only


def test_rules_wrap_to_the_terminal_width():
    wide = run_cli("rules").output.splitlines()
    assert len(wide) == len(builtin_rules())  # not a terminal: one line a rule, for grep
    narrow = run_cli("rules", env={"COLUMNS": "80"}).output.splitlines()
    assert max(len(line) for line in narrow) <= 80
    assert len(narrow) > len(wide)
    first = narrow[0]
    assert first.startswith("GPU001  suppression-unused")
    column = first.index("A suppression")
    continued = narrow[1]
    assert continued[:column].strip() == "" and continued[column] != " "


def test_every_command_help_line_is_whole():
    output = run_cli("--help").output
    assert "config-schema  Print the JSON Schema of .gpulint.yaml.\n" in output
    commands = output[output.index("Commands:") :]
    assert "..." not in commands  # no summary is cut short


def test_verbose_says_what_each_plain_file_was(pod):
    Path("ci.yml").write_text("name: ci\non: [push]\n")
    Path("plugin.yaml").write_text("version: v1\nflags:\n  migStrategy: none\n")
    Path("empty.yaml").write_text("# nothing\n")
    Path("tsconfig.json").write_text('{\n  // c\n  "a": 1,\n}\n')
    result = run_cli("check", ".", "-v")
    files = ("ci.yml", "empty.yaml", "plugin.yaml", "pod.yaml", "tsconfig.json")
    notes = [
        line
        for line in result.output.splitlines()
        if line.startswith(tuple(f"note: {f}:" for f in files))
    ]
    assert notes == [
        "note: ci.yml: document 1 (line 1): no apiVersion/kind and no GPU config gpulint "
        "knows: nothing to check",
        "note: empty.yaml: read; no documents in it",
        "note: plugin.yaml: document 1 (line 1): an NVIDIA device plugin config",
        "note: pod.yaml: document 1 (line 1): Pod train (1 pod spec(s) checked)",
        "note: tsconfig.json: skipped: invalid JSON and no apiVersion, kind or GPU config in "
        "it (not a manifest)",
    ]
