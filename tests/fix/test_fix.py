"""check --fix: edits from positions, every other byte kept, re-linted, rolled back when wrong.

Files are written and read as bytes, so line breaks, tabs and quoting are compared
exactly; every run goes through the real CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gpulint.core.findings import FixSafety, Severity
from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.engine.context import build_context
from gpulint.engine.fix_details import NOT_FROM_A_FILE
from gpulint.engine.run import FileResult, lint_source
from gpulint.fix.fixer import fix_file
from gpulint.rules.fixes.spec import AddEntry, Fix
from gpulint.rules.registry import Registry, Report, Rule
from tests.helpers import run_cli, sarif_schema

RICH = (
    "# GPU jobs\t(tab in a comment)\n"
    "apiVersion: v1\n"
    "kind: List\n"
    "items:\n"
    "- apiVersion: apps/v1\n"
    "  kind: Deployment\n"
    "  metadata: {name: serve, labels: {app: serve}}  # flow style\n"
    "  spec:\n"
    "    selector:\n"
    "      matchLabels: &labels\n"
    "        app: serve\n"
    "    template:\n"
    "      metadata:\n"
    "        labels: *labels\n"
    "      spec:\n"
    "        containers:\n"
    "        - name: server\n"
    "          image: 'vllm/vllm-openai:v0.6.3'   #\tpinned\n"
    '          imagePullPolicy: "Always"\n'
    "          env:\n"
    "          - {name: BASE, value: /opt}\n"
    "          - name: PATH_EXTRA\n"
    "            value: '${BASE}/bin'\n"
    "          resources:\n"
    "            requests:\n"
    "              nvidia.com/gpu: 1   # one GPU\n"
    "\n"
    "            # trailing comment in resources\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Pod\n"
    "metadata:\n"
    "  name: train\n"
    "spec:\n"
    "  containers:\n"
    "    - name: trainer\n"
    "      image: nvcr.io/nvidia/pytorch:24.05-py3\n"
    "      command: [torchrun, --nproc-per-node=2, train.py]\n"
    "      resources:\n"
    "        limits:\n"
    "          nvidia.com/gpu: 2\n"
    "          nvidia.com/gpu: 2\n"
    "        requests: {nvidia.com/gpu: 2}\n"
)
# What --fix --unsafe-fixes changes in RICH, line by line (1-based line of the original).
RICH_CHANGED = {
    19: '          imagePullPolicy: "IfNotPresent"\n',
    23: "            value: '$(BASE)/bin'\n",
}
RICH_INSERTED = {
    26: "            limits:\n              nvidia.com/gpu: 1\n",
    43: "      volumeMounts:\n        - name: dshm\n          mountPath: /dev/shm\n"
    "  volumes:\n    - name: dshm\n      emptyDir:\n        medium: Memory\n",
}
RICH_DELETED = {42}


def expected_rich(newline: str) -> bytes:
    out = []
    for number, line in enumerate(RICH.splitlines(keepends=True), start=1):
        if number not in RICH_DELETED:
            out.append(RICH_CHANGED.get(number, line))
        out.append(RICH_INSERTED.get(number, ""))
    return "".join(out).replace("\n", newline).encode()


def fix(path: Path, *args: str):
    # GPU301 (opt-in) too: its fix is the one unsafe fix of a pull policy
    return run_cli("check", str(path), "--fix", "--extend-select", "GPU301", *args)


def test_fixes_keep_every_other_byte_crlf(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.replace("\n", "\r\n").encode())
    result = fix(path, "--unsafe-fixes")
    assert path.read_bytes() == expected_rich("\r\n")
    assert "fixed 5 finding(s)" in result.output


def test_fixes_keep_every_other_byte_lf(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    fix(path, "--unsafe-fixes")
    assert path.read_bytes() == expected_rich("\n")


def test_a_second_fix_changes_nothing(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.replace("\n", "\r\n").encode())
    fix(path, "--unsafe-fixes")
    once = path.read_bytes()
    result = fix(path, "--unsafe-fixes")
    assert path.read_bytes() == once
    assert "fixed 0 finding(s)" in result.output


def test_safe_fixes_only_without_unsafe_fixes(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    result = fix(path)
    lines = path.read_bytes().decode().splitlines(keepends=True)
    assert lines[18] == '          imagePullPolicy: "Always"\n'  # GPU301 is unsafe
    assert lines[22] == "            value: '$(BASE)/bin'\n"  # GPU706 is safe
    assert "volumeMounts" not in path.read_text()  # GPU705 is unsafe
    assert "fixed 3 finding(s)" in result.output
    assert "2 more with --unsafe-fixes" in result.output


def test_diff_prints_and_changes_nothing(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    result = run_cli("check", str(path), "--diff")
    assert result.exit_code == 1
    assert path.read_bytes() == RICH.encode()
    assert f"--- {path}\n+++ {path}\n" in result.output
    assert "-            value: '${BASE}/bin'\n+            value: '$(BASE)/bin'\n" in result.output
    assert "would fix 3 finding(s)" in result.output
    fix(path)
    again = run_cli("check", str(path), "--diff")
    assert again.exit_code == 0
    assert "would fix 0 finding(s)" in again.output


def test_fix_writes_atomically_and_keeps_the_mode(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    os.chmod(path, 0o640)
    fix(path)
    assert oct(path.stat().st_mode & 0o777) == "0o640"
    assert [p.name for p in tmp_path.iterdir()] == ["rich.yaml"]  # no temporary file left


def test_overlapping_fixes_wait_for_the_next_pass(tmp_path):
    # Both GPU101 fixes would create the same `limits:`; the second is made after a re-lint.
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
        "          amd.com/gpu: 1\n"
    )
    result = fix(path, "--select", "GPU101")
    assert path.read_text().endswith(
        "        requests:\n          nvidia.com/gpu: 1\n          amd.com/gpu: 1\n"
        "        limits:\n          nvidia.com/gpu: 1\n          amd.com/gpu: 1\n"
    )
    assert "fixed 2 finding(s); 0 remain" in result.output


def test_file_without_final_line_break(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: c\n    image: i:1\n    resources:\n      requests:\n        nvidia.com/gpu: 1"
    )
    fix(path, "--select", "GPU101")
    assert path.read_text().endswith(
        "      requests:\n        nvidia.com/gpu: 1\n      limits:\n        nvidia.com/gpu: 1"
    )


def test_shared_anchor_is_not_edited(tmp_path):
    path = tmp_path / "pods.yaml"
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: a\n    image: i:1\n    resources: &res\n      requests:\n"
        "        nvidia.com/gpu: 1\n  - name: b\n    image: i:1\n    resources: *res\n"
    )
    path.write_text(text)
    data = json.loads(run_cli("check", str(path), "--select", "GPU101", "--format", "json").output)
    reasons = {f["fix"]["reason"] for f in data["findings"]}
    assert reasons == {"not fixable here: the node is shared through an anchor and its aliases"}
    fix(path, "--select", "GPU101")
    assert path.read_text() == text


def test_duplicate_keys_with_different_values_are_not_fixed(tmp_path):
    path = tmp_path / "pod.yaml"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"
    path.write_text(text)
    data = json.loads(run_cli("check", str(path), "--select", "GPU010", "--format", "json").output)
    assert [f["fix"] for f in data["findings"]] == [None]
    fix(path)
    assert path.read_text() == text


def test_helm_output_is_never_edited():
    source = Source(
        "chart/templates/job.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: c\n    image: i:1\n    resources:\n      requests:\n        nvidia.com/gpu: 1\n",
        origin="helm",
    )
    result = FileResult()
    lint_source(build_context(Settings(select=("GPU101",))), source, result)
    [finding] = result.findings
    assert finding.fix is not None and not finding.fix.applicable
    assert finding.fix.reason == NOT_FROM_A_FILE["helm"]


def test_stdin_summary_says_why_not(tmp_path):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: c\n    image: i:1\n    resources:\n      requests:\n        nvidia.com/gpu: 1\n"
    )
    result = run_cli("check", "-", "--fix", "--select", "GPU101", input=text)
    assert "fixed 0 finding(s); 1 remain" in result.output
    assert f"1 fix(es) not applied: {NOT_FROM_A_FILE['stdin']}" in result.output


def _bad_rule(text: str) -> Rule:
    """A rule whose fix adds a key that does not clear its finding: a bug to roll back."""
    rule = Rule("TST001", "test-bad-fix", Severity.ERROR, "Test.", "", fix=FixSafety.SAFE)

    @rule.document_check
    def check(doc, ctx):
        if "marker" not in doc.data:
            yield Report(
                ("metadata",), "no marker", fix=Fix("add x", (AddEntry(("metadata",), "x", 1),))
            )

    return rule


def test_a_fix_that_does_not_clear_its_finding_is_rolled_back(tmp_path):
    path = tmp_path / "cm.yaml"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    path.write_text(text)
    rule = _bad_rule(text)
    ctx = build_context(Settings(), Registry([rule]))
    result = FileResult()
    lint_source(ctx, Source(str(path), text), result)
    [finding] = result.findings
    outcome = fix_file(str(path), [finding], ctx, unsafe=False)
    assert not outcome.changed and outcome.fixed_findings == []
    assert [(f.code, why) for f, why in outcome.rolled_back] == [
        ("TST001", "the finding is still there after the fix")
    ]


def test_sarif_fixes_apply_to_the_same_text_as_fix(tmp_path):
    import jsonschema

    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    args = ("--select", "GPU706,GPU301", "--unsafe-fixes")
    log = json.loads(run_cli("check", str(path), "--format", "sarif", *args).output)
    jsonschema.validate(log, sarif_schema())
    lines = RICH.splitlines(keepends=True)
    replacements = [
        r
        for result in log["runs"][0]["results"]
        for fix_ in result["fixes"]
        for change in fix_["artifactChanges"]
        for r in change["replacements"]
    ]
    assert len(replacements) == 2
    for r in sorted(replacements, key=lambda r: -r["deletedRegion"]["startLine"]):
        region = r["deletedRegion"]
        assert region["startLine"] == region["endLine"]
        row = lines[region["startLine"] - 1]
        start, end = region["startColumn"] - 1, region["endColumn"] - 1
        lines[region["startLine"] - 1] = row[:start] + r["insertedContent"]["text"] + row[end:]
    fix(path, *args)
    assert "".join(lines) == path.read_text()


def test_json_carries_the_edits(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.encode())
    data = json.loads(run_cli("check", str(path), "--select", "GPU706", "--format", "json").output)
    [finding] = data["findings"]
    assert finding["fix"] == {
        "title": "write the references as $(VAR)",
        "safety": "safe",
        "applicable": True,
        "reason": None,
        "path": str(path),
        "edits": [
            {"line": 23, "column": 20, "endLine": 23, "endColumn": 33, "text": "'$(BASE)/bin'"}
        ],
    }


def test_rules_and_explain_show_the_fix():
    listing = run_cli("rules").output.splitlines()
    marks = {line.split()[0]: line for line in listing}
    assert "[fix] " in marks["GPU101"] and "[fix*] " in marks["GPU102"]
    assert "[fix" not in marks["GPU103"]
    assert (
        "Fix: safe, applied by `gpulint check --fix` (see How to fix)."
        in run_cli("explain", "GPU101").output
    )
    assert "Fix: unsafe" in run_cli("explain", "GPU705").output
    assert "Fix: none" in run_cli("explain", "GPU103").output


def test_a_suppressed_finding_is_not_fixed(tmp_path):
    path = tmp_path / "pod.yaml"
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: c\n    image: i:1\n    resources:\n      requests:\n"
        "        nvidia.com/gpu: 1  # gpulint: disable=GPU101 a webhook adds the limit\n"
    )
    path.write_text(text)
    result = fix(path, "--select", "GPU101")
    assert path.read_text() == text
    assert "fixed 0 finding(s); 0 remain" in result.output


def test_json_edits_use_the_files_own_line_breaks(tmp_path):
    path = tmp_path / "rich.yaml"
    path.write_bytes(RICH.replace("\n", "\r\n").encode())
    data = json.loads(run_cli("check", str(path), "--select", "GPU101", "--format", "json").output)
    [finding] = data["findings"]
    assert finding["fix"]["edits"][0]["text"] == (
        "            limits:\r\n              nvidia.com/gpu: 1\r\n"
    )


def test_the_diff_applies_with_patch_to_what_fix_writes(tmp_path):
    import shutil
    import subprocess

    import pytest

    if shutil.which("patch") is None:
        pytest.skip("no patch(1) on this machine")
    text = RICH.rstrip("\n")  # no final line break: the diff must say so
    shown, fixed_ = tmp_path / "shown.yaml", tmp_path / "fixed.yaml"
    shown.write_text(text)
    fixed_.write_text(text)
    diff = run_cli(
        "check", str(shown), "--diff", "--unsafe-fixes", "--extend-select", "GPU301"
    ).output
    diff = diff[: diff.index("gpulint: would fix")]
    assert "\\ No newline at end of file\n" in diff
    subprocess.run(["patch", "-s", str(shown)], input=diff, text=True, check=True)
    fix(fixed_, "--unsafe-fixes")
    assert shown.read_bytes() == fixed_.read_bytes() != text.encode()


def test_mixed_line_breaks_stay_where_they_were():
    from gpulint.fix.apply import restore_breaks

    original = "a: 1\r\nb: 2\nc: 3\rd: 4"
    fixed_lf = "a: 1\nb: 20\nnew: x\nc: 3\nd: 4"
    # Unchanged lines keep their bytes; the rewritten line keeps its break; the new line
    # takes the break of the line it follows; no break is added at the end.
    assert restore_breaks(original, fixed_lf) == "a: 1\r\nb: 20\nnew: x\nc: 3\rd: 4"
