"""Run gpulint on each repository folder of the corpus, as its owners would.

Owners lint their git checkout: by default each folder is linted as a copy with the
``.git/config`` of a clone of its source repository (INDEX.tsv's ``source_repo``), the
one fact of a checkout the corpus does not carry (``run.py --as-folders``: the bare
folders).
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from judged import Key

JUDGED_SEVERITIES = ("error", "warning")
REPO_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    column: int
    code: str
    severity: str
    message: str
    # Where a rendered chart's finding says the value came from (its values file and line):
    # a defect labelled at the value is found by a finding at the template that names it.
    value_at: tuple[str, int] | None = None

    @property
    def key(self) -> Key:
        return (self.repo, self.path, self.line, self.column, self.code)


@dataclass
class RepoRun:
    repo: str
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    input_errors: list[str] = field(default_factory=list)
    failure: str | None = None  # gpulint crashed or printed no JSON
    tool_version: str = "?"
    as_clone: bool = False  # linted as a copy with its source repository's git remote


def default_gpulint() -> str:
    """The gpulint beside this interpreter (the project's venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "gpulint"
    if beside.exists():
        return str(beside)
    return shutil.which("gpulint") or "gpulint"


def repositories(corpus: Path) -> list[Path]:
    """Repository folders; `_rendered` and other `_`/`.` folders belong to the corpus itself."""
    return sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def clean_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def origins(corpus: Path) -> dict[str, str]:
    """Each repository folder's GitHub ``owner/repo``, from the corpus's INDEX.tsv."""
    index = corpus / "INDEX.tsv"
    if not index.is_file():
        return {}
    found: dict[str, str] = {}
    with index.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            folder = row["path"].split("/", 1)[0]
            found.setdefault(folder, row["source_repo"])
    return found


def as_clone(repo_dir: Path, origin: str, work: Path) -> Path:
    """A copy of ``repo_dir`` with the ``.git/config`` of a clone of ``origin``: what the
    owners lint is their checkout, whose remote says which images are their own (GPU302;
    gpulint/inputs/project_scan.py). The corpus itself holds the files only."""
    copy = work / repo_dir.name
    shutil.copytree(repo_dir, copy, symlinks=True)
    git = copy / ".git"
    git.mkdir()
    (git / "config").write_text(
        f'[remote "origin"]\n\turl = https://github.com/{origin}.git\n'
        "\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
        encoding="utf-8",
    )
    return copy


def lint(
    gpulint: str,
    repo_dir: Path,
    origin: str | None = None,
    env: dict[str, str] | None = None,
) -> RepoRun:
    """Lint one repository folder; with ``origin``, a copy of it as a clone of that repository.
    ``env`` is gpulint's environment (its PATH says which renderers it finds)."""
    if origin is not None:
        with tempfile.TemporaryDirectory() as work:
            run = lint(gpulint, as_clone(repo_dir, origin, Path(work)), env=env)
        run.as_clone = True
        return run
    started = time.perf_counter()
    run = RepoRun(repo=repo_dir.name, seconds=0.0)
    try:
        done = subprocess.run(
            [gpulint, "check", "--format", "json", "."],
            cwd=repo_dir,
            capture_output=True,
            text=True,
            timeout=REPO_TIMEOUT_SECONDS,
            check=False,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        run.failure = f"could not run {gpulint}: {exc}"
        run.seconds = time.perf_counter() - started
        return run
    run.seconds = time.perf_counter() - started
    # Exit 0, 1 (findings) and 2 (input errors) all print the report; anything else is a crash.
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        run.failure = f"exit {done.returncode}, no JSON report: {tail}"
        return run
    if done.returncode not in (0, 1, 2):
        run.failure = f"exit {done.returncode}"
    run.tool_version = str(report.get("tool", {}).get("version", "?"))
    for item in report.get("findings", []):
        if item.get("suppressed"):
            continue  # the owners silenced it on purpose: gpulint does not report it
        finding = Finding(
            repo=run.repo,
            path=clean_path(item["path"]),
            line=int(item["line"]),
            column=int(item["column"]),
            code=item["code"],
            severity=item["severity"],
            message=" ".join(item["message"].split()),
            value_at=_value_at(item),
        )
        (run.findings if finding.severity in JUDGED_SEVERITIES else run.notes).append(finding)
    for error in report.get("errors", []):
        place = ":".join(
            str(error[k]) for k in ("path", "line", "column") if error.get(k) is not None
        )
        run.input_errors.append(
            f"{clean_path(place)}: {' '.join(str(error.get('message', '')).split())}"
        )
    return run


def _value_at(item: dict) -> tuple[str, int] | None:
    source = item.get("valueSource") or {}
    location = source.get("location") if isinstance(source, dict) else None
    if not isinstance(location, dict) or "path" not in location or "line" not in location:
        return None
    return clean_path(location["path"]), int(location["line"])
