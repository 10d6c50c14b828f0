"""The command line end to end: discovery, exit codes, selection, outputs, stdin."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, findings_json, run_cli, where

NO_LIMIT = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        requests:
          nvidia.com/gpu: 1
"""
CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"


def test_examples_exit_1_with_exact_positions(monkeypatch):
    monkeypatch.chdir(ROOT)
    data = findings_json("examples/", "--select", "GPU101,GPU102,GPU103")
    got = [(f["path"], f["code"], f["line"], f["column"]) for f in data["findings"]]
    assert got == [
        ("examples/broken/fractional-gpu.yaml", "GPU103", 24, 27),
        ("examples/broken/fractional-gpu.yaml", "GPU103", 28, 27),
        ("examples/broken/gpu-request-limit-mismatch.yaml", "GPU102", 24, 11),
        ("examples/broken/gpu-request-without-limit.yaml", "GPU101", 24, 11),
    ]
    assert run_cli("check", "examples/").exit_code == 1


def test_the_clean_example_has_no_findings_from_any_rule(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run_cli("check", "examples/training-pod.yaml", "--fail-on", "note")
    assert result.exit_code == 0, result.output


def test_clean_file_exits_0(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text(CLEAN)
    result = run_cli("check", str(path))
    assert result.exit_code == 0
    assert result.output.endswith("0 error(s), 0 warning(s), 0 note(s) in 1 file\n")


def test_missing_path_exits_2(tmp_path):
    result = run_cli("check", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert "nope.yaml:1:1: error [input] no such file or directory" in result.output


def test_broken_file_exits_2_and_other_files_are_still_reported(tmp_path):
    (tmp_path / "a-broken.yaml").write_text("kind: Pod\nspec: [\n")
    (tmp_path / "b.yaml").write_text(NO_LIMIT)
    (tmp_path / "c.json").write_text('{"apiVersion": "v1", "kind": "Pod", \n')
    data = findings_json(str(tmp_path))
    assert [(os.path.basename(e["path"]), e["line"]) for e in data["errors"]] == [
        ("a-broken.yaml", 3),
        ("c.json", 2),
    ]
    assert where(data["findings"], "GPU101") == [("GPU101", 11, 11)]
    assert run_cli("check", str(tmp_path)).exit_code == 2


def test_non_utf8_and_non_mapping_documents_are_input_errors(tmp_path):
    (tmp_path / "latin1.yaml").write_bytes(b"kind: Pod\nname: caf\xe9\n")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    (tmp_path / "z.yaml").write_text(NO_LIMIT)
    # Named: an error. Walked alone, a list with no apiVersion/kind is no manifest: skipped.
    data = findings_json(str(tmp_path), str(tmp_path / "list.yaml"))
    errors = [(os.path.basename(e["path"]), e["line"], e["column"]) for e in data["errors"]]
    assert errors == [("latin1.yaml", 2, 10), ("list.yaml", 1, 1)]
    assert "UTF-8" in data["errors"][0]["message"]
    assert where(data["findings"], "GPU101") == [("GPU101", 11, 11)]


def test_discovery_walks_yaml_and_json_skips_hidden_folders_and_reads_named_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hidden").mkdir()
    for folder in ("sub", ".git", ".hidden"):
        (tmp_path / folder / "p.yaml").write_text(NO_LIMIT)
    (tmp_path / "notes.txt").write_text(NO_LIMIT)
    (tmp_path / "p.yml").write_text(NO_LIMIT)
    data = findings_json(str(tmp_path))
    paths = sorted({os.path.relpath(f["path"], tmp_path) for f in data["findings"]})
    assert paths == ["p.yml", os.path.join("sub", "p.yaml")]
    named = findings_json(str(tmp_path / "notes.txt"))
    assert where(named["findings"], "GPU101") == [("GPU101", 11, 11)]


def test_stdin_with_a_name():
    data = findings_json("-", "--stdin-filename", "rendered.yaml", input=NO_LIMIT)
    assert [
        (f["path"], f["code"], f["line"]) for f in data["findings"] if f["code"] == "GPU101"
    ] == [("rendered.yaml", "GPU101", 11)]


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (("--select", "GPU101"), ["GPU101"]),
        (("--select", "gpu-quantity-invalid"), ["GPU103"]),
        (
            (
                "--select",
                "GPU10",
                "--ignore",
                "GPU101,gpu-quantity-invalid,GPU104,GPU105,GPU106,GPU107",
            ),
            ["GPU102"],
        ),
    ],
)
def test_select_and_ignore_by_code_prefix_or_name(tmp_path, args, codes):
    path = tmp_path / "m.yaml"
    path.write_text(
        NO_LIMIT  # GPU101
        + "    - name: d\n      resources:\n"
        + "        requests: {nvidia.com/gpu: 1}\n        limits: {nvidia.com/gpu: 2}\n"  # GPU102
        + "    - name: e\n      resources:\n        limits: {nvidia.com/gpu: 1.5}\n"  # GPU103
    )
    data = findings_json(str(path), *args)
    assert sorted({f["code"] for f in data["findings"]}) == codes


def test_unknown_rule_is_a_usage_error(tmp_path):
    result = run_cli("check", str(tmp_path), "--select", "GPU999")
    assert result.exit_code == 2
    assert "unknown rule(s): GPU999" in result.output


def test_fail_on_decides_the_exit_code(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(NO_LIMIT)
    assert run_cli("check", str(path), "--select", "GPU101", "--fail-on", "error").exit_code == 1
    # a finding below the fail level does not fail the run
    result = run_cli("check", str(path), "--select", "GPU102", "--fail-on", "note")
    assert result.exit_code == 0


def test_several_outputs_in_one_run(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(NO_LIMIT)
    sarif = tmp_path / "out.sarif"
    result = run_cli(
        "check",
        str(path),
        "--select",
        "GPU101",
        "--format",
        "text",
        "--format",
        "sarif",
        "-o",
        "-",
        "-o",
        str(sarif),
    )
    assert "[GPU101 gpu-limit-missing]" in result.output
    assert json.loads(sarif.read_text())["runs"][0]["results"][0]["ruleId"] == "GPU101"


def test_github_format_is_automatic_on_github_actions(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(NO_LIMIT)
    result = run_cli("check", str(path), "--select", "GPU101", env={"GITHUB_ACTIONS": "true"})
    assert result.output.startswith("::error file=")


def test_rules_and_explain():
    listing = run_cli("rules").output
    assert "GPU101  gpu-limit-missing" in listing
    text = run_cli("explain", "gpu-limit-missing").output
    assert text.startswith("# GPU101 gpu-limit-missing (error)")
    for section in (
        "## What it checks",
        "## Why it matters",
        "## Failing example",
        "## How to fix",
    ):
        assert section in text
    assert run_cli("explain", "GPU999").exit_code == 2


def test_version():
    from gpulint import __version__

    assert run_cli("--version").output.strip() == f"gpulint, version {__version__}"


@pytest.mark.slow
def test_real_subprocess_and_python_dash_m(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(NO_LIMIT)
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", str(path), "--select", "GPU101"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("m.yaml:11:11: error [GPU101 gpu-limit-missing]")
    assert "\033[" not in proc.stdout
    assert proc.stderr == ""


def _generate_script():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "scripts/generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_rule_table_is_the_one_gpulint_rules_prints(tmp_path, monkeypatch):
    from gpulint.rules.registry import default_registry

    monkeypatch.chdir(tmp_path)  # no config file: the built-in rules only
    result = run_cli("rules", "--format", "markdown")
    assert result.exit_code == 0
    rows = result.output.splitlines()
    assert rows[:2] == ["| code | name | severity | what it finds |", "|---|---|---|---|"]
    assert len(rows) == 2 + len(list(default_registry()))
    assert any(
        r.startswith("| GPU101 | `gpu-limit-missing` | error | A GPU resource") for r in rows
    )
    script = _generate_script()
    text = (ROOT / "README.md").read_text()
    table = text[text.index(script.BEGIN) + len(script.BEGIN) : text.index(script.END)]
    assert table == result.output, (
        "README.md's rule table differs from the registry: run `python scripts/generate.py`"
    )


# --- files that are not Kubernetes: a walk and the pre-commit hook leave them alone ---

JSONC = '{\n  // comment\n  "compilerOptions": {"strict": true,},\n}\n'


def test_json_with_comments_named_is_invalid_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tsconfig.json").write_text(JSONC)
    result = run_cli("check", "tsconfig.json")
    assert result.exit_code == 2
    assert result.output.startswith(
        "tsconfig.json:3:20: error [input] invalid JSON: while parsing a flow mapping"
    )


def test_walk_and_only_manifests_skip_files_that_are_not_manifests(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tsconfig.json").write_text(JSONC)
    Path("list.json").write_text("[1, 2]\n")
    Path("manifest.yaml").write_text("apiVersion: v1\nkind: [Pod\n")
    Path("mig.yaml").write_text("version: v1\nmig-configs: [\n")
    walked = run_cli("check", ".", "-v")
    assert walked.exit_code == 2
    errors = [line for line in walked.output.splitlines() if "[input]" in line]
    # A broken manifest and a broken MIG config are still errors; the others are skipped.
    assert [line.split(":")[0] for line in errors] == ["manifest.yaml", "mig.yaml"]
    assert (
        "note: tsconfig.json: skipped: invalid JSON and no apiVersion, kind or GPU config "
        "in it (not a manifest)"
    ) in walked.output
    hook = run_cli("check", "--only-manifests", "tsconfig.json", "list.json")
    assert hook.exit_code == 0, hook.output
    assert run_cli("check", "list.json").exit_code == 2  # named without the flag: an error
