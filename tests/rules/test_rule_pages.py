"""docs/rules/GPUNNN.md, SARIF's helpUri and versionControlProvenance, the SARIF Multitool."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from gpulint.rules import pages as rule_pages
from gpulint.rules.registry import builtin_rules
from tests.helpers import ROOT, run_cli, sarif_schema

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


def test_rule_pages_are_current():
    stale = rule_pages.stale(str(ROOT / "docs" / "rules"), [r.info for r in builtin_rules()])
    assert stale == [], f"stale rule pages {stale}: run `{rule_pages.REGENERATE}`"


def test_write_makes_a_page_per_rule_and_removes_pages_of_no_rule(tmp_path):
    (tmp_path / "GPU999.md").write_text("# gone\n")
    result = run_cli("rules", "--docs", str(tmp_path))
    assert result.output == f"wrote {len(builtin_rules())} rule pages to {tmp_path}\n"
    assert not (tmp_path / "GPU999.md").exists()
    page = (tmp_path / "GPU101.md").read_text()
    assert page.startswith("# GPU101 gpu-limit-missing\n\nDefault severity: **error**\n")
    assert "## Failing example" in page and "# <- GPU101" in page
    rules = [r.info for r in builtin_rules()]
    assert rule_pages.stale(str(tmp_path), rules) == []
    (tmp_path / "GPU101.md").write_text(page + "edited\n")
    assert rule_pages.stale(str(tmp_path), rules) == ["GPU101.md"]


def _sarif(tmp_path: Path) -> dict:
    (tmp_path / "pod.yaml").write_text(POD)
    result = run_cli("check", "--format", "sarif", "pod.yaml")
    log = json.loads(result.output)
    jsonschema.validate(log, sarif_schema())
    return log


def test_every_rule_has_a_help_uri_to_its_page(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules = _sarif(tmp_path)["runs"][0]["tool"]["driver"]["rules"]
    # the rules of the run: the default set (opt-in rules only when selected)
    assert len(rules) == len([r for r in builtin_rules() if r.default])
    prefix = "https://github.com/gpulint/gpulint/blob/main/docs/rules/"
    for rule in rules:
        assert rule["helpUri"] == f"{prefix}{rule['id']}.md"
        assert (ROOT / "docs" / "rules" / f"{rule['id']}.md").is_file()


def _git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t")
    env["GIT_COMMITTER_EMAIL"] = "t@e"
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@needs_git
def test_provenance_of_a_checkout_without_credentials(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "trunk")
    _git(repo, "remote", "add", "origin", "https://bot:s3cret@github.com/acme/infra.git")
    (repo / "pod.yaml").write_text(POD)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    monkeypatch.chdir(repo)
    log = _sarif(repo)
    assert "s3cret" not in json.dumps(log)
    (details,) = log["runs"][0]["versionControlProvenance"]
    assert details == {
        "repositoryUri": "https://github.com/acme/infra",
        "revisionId": _git(repo, "rev-parse", "HEAD"),
        "branch": "trunk",
        "mappedTo": {"uriBaseId": "%SRCROOT%"},
    }
    # Packed refs and a subfolder: the same commit; paths are written from the subfolder,
    # which %SRCROOT% names below REPOROOT, the checkout's root the provenance maps to.
    _git(repo, "pack-refs", "--all")
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")
    run = _sarif(repo / "sub")["runs"][0]
    (details,) = run["versionControlProvenance"]
    assert details["revisionId"] == _git(repo, "rev-parse", "HEAD")
    assert details["mappedTo"] == {"uriBaseId": "REPOROOT"}
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": "sub/", "uriBaseId": "REPOROOT"}}


@needs_git
def test_provenance_of_a_worktree_and_none_outside_a_checkout(tmp_path, monkeypatch):
    from gpulint.report import provenance

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/infra.git")
    (repo / "a").write_text("a")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    _git(repo, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    found = provenance.find(str(tmp_path / "wt"))
    assert (found.branch, found.revision) == ("feature", _git(repo, "rev-parse", "HEAD"))
    assert found.repository_uri == "https://github.com/acme/infra"
    outside = tmp_path / "plain"
    outside.mkdir()
    if provenance.find(str(tmp_path)) is None:  # the test's temp folder is no checkout
        monkeypatch.chdir(outside)
        assert "versionControlProvenance" not in _sarif(outside)["runs"][0]


def _multitool() -> str | None:
    return os.environ.get("SARIF_MULTITOOL") or shutil.which("Sarif.Multitool")


@pytest.mark.slow
@pytest.mark.skipif(
    _multitool() is None,
    reason="Sarif.Multitool absent (npm install @microsoft/sarif-multitool-linux; "
    "SARIF_MULTITOOL=path/to/Sarif.Multitool)",
)
@pytest.mark.parametrize("where", [".", "deploy"])
def test_sarif_multitool_finds_no_error_and_no_warning(tmp_path, monkeypatch, where):
    # a git checkout, linted from its root and from a subfolder (issue 29: SARIF2007)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    folder = tmp_path / where
    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    Path("pod.yaml").write_text(POD)
    Path("broken.yaml").write_text("kind: [\n")
    run_cli("check", "--format", "sarif", "-o", "gpulint.sarif", "pod.yaml", "broken.yaml")
    out = tmp_path / "validation.sarif"
    done = subprocess.run(
        [_multitool(), "validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning"]
        + ["-o", str(out), str(Path("gpulint.sarif").resolve())],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert [(r["ruleId"], r["message"]) for r in results] == []
