"""SARIF ``versionControlProvenance`` read straight from ``.git`` (no git process).

The repository root, the commit checked out, the branch, and the ``origin``
remote's URL without credentials. Anything unreadable (no checkout, a packed
ref not found, a detached worktree layout we do not know) means no provenance,
never an error.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gpulint.core.record import record


@record(frozen=True)
class Provenance:
    """The checkout a SARIF run came from: root, commit, branch, remote URL."""

    root: str  # the working tree's folder
    revision: str | None
    branch: str | None
    repository_uri: str


def find(start: str = ".") -> Provenance | None:
    folder = Path(start).resolve()
    for candidate in (folder, *folder.parents):
        dot_git = candidate / ".git"
        if dot_git.exists():
            git_dir = _git_dir(dot_git)
            return _read(candidate, git_dir) if git_dir is not None else None
    return None


def _git_dir(dot_git: Path) -> Path | None:
    if dot_git.is_dir():
        return dot_git
    try:  # a worktree or submodule: `gitdir: <path>`
        text = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (dot_git.parent / target).resolve()


def _common_dir(git_dir: Path) -> Path:
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    common = Path(text)
    return common if common.is_absolute() else (git_dir / common).resolve()


def _read(root: Path, git_dir: Path) -> Provenance | None:
    common = _common_dir(git_dir)
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    branch = revision = None
    if head.startswith("ref:"):
        ref = head[4:].strip()
        branch = ref.removeprefix("refs/heads/")
        revision = _ref(git_dir, ref) or _ref(common, ref)
    elif re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", head):
        revision = head
    remote = _clean(_origin_url(common) or "")
    if "://" in remote:
        uri = remote
    elif remote and os.path.isabs(remote):
        uri = Path(remote).as_uri()  # a remote on this machine
    else:
        uri = root.as_uri()
    return Provenance(str(root), revision, branch, uri)


def _ref(git_dir: Path, ref: str) -> str | None:
    try:
        return (git_dir / ref).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        pass
    try:
        packed = (git_dir / "packed-refs").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref:
            return sha
    return None


def _origin_url(common: Path) -> str | None:
    try:
        text = (common / "config").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
            continue
        if section == '[remote "origin"]' and line.startswith("url"):
            _key, _, value = line.partition("=")
            return value.strip()
    return None


def _clean(url: str) -> str:
    """``git@host:owner/repo.git`` -> ``https://host/owner/repo``; credentials dropped."""
    scp = re.fullmatch(r"[\w.-]+@([\w.-]+):(.+?)(?:\.git)?/?", url)
    if scp and "://" not in url:
        return f"https://{scp.group(1)}/{scp.group(2)}"
    url = re.sub(r"^(\w+://)[^/@]*@", r"\1", url)  # user:token@ must never reach a report
    url = re.sub(r"^ssh://([\w.-]+)(?::\d+)?/", r"https://\1/", url)
    return url.removesuffix(".git")
