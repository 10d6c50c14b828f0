"""How --fix writes a file back (issue 23, item 11): through a symbolic link (the link stays
a link), with the file's mode, owner and group, atomically; a link out of the linted folders,
a hard-linked file, a read-only file and an owner that cannot be kept are refused with a
message naming the file (exit 2), the file left as it was, byte for byte and inode."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import gpulint.fix.write as write_module
from tests.helpers import run_cli

BROKEN = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""
FIXED = BROKEN + "        limits:\n          nvidia.com/gpu: 1\n"  # GPU101's safe fix


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory: a folder ``repo`` to lint and, beside it, ``outside``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path


def _fix(*args: str):
    return run_cli("check", "--no-config", "--fix", *args)


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _not_fixed(result, path: str, reason: str) -> None:
    assert result.exit_code == 2, result.output
    assert f"gpulint: {path}: {reason}\n" in result.stderr, result.stderr
    assert "gpulint: fixed 0 finding(s)" in result.stderr


# --- symbolic links: written through, the link kept ---------------------------------------------


@pytest.mark.parametrize("named", ["repo/link.yaml", "repo"])
def test_a_symlink_inside_the_tree_is_written_through(work, named):
    Path("repo/real.yaml").write_text(BROKEN)
    Path("repo/link.yaml").symlink_to("real.yaml")
    result = _fix(named)
    assert result.exit_code == 1, result.output  # GPU106 remains
    assert Path("repo/link.yaml").is_symlink()
    assert os.readlink("repo/link.yaml") == "real.yaml"
    assert Path("repo/real.yaml").read_text() == FIXED
    assert _listing(work / "repo") == ["link.yaml", "real.yaml"]


def test_a_chain_of_links_through_a_linked_folder_keeps_every_link(work):
    Path("repo/data").mkdir()
    Path("repo/data/real.yaml").write_text(BROKEN)
    Path("repo/view").symlink_to("data")
    Path("repo/first.yaml").symlink_to("view/second.yaml")
    Path("repo/data/second.yaml").symlink_to("real.yaml")
    result = _fix("repo/first.yaml")
    assert result.exit_code == 1, result.output
    assert Path("repo/first.yaml").is_symlink() and Path("repo/data/second.yaml").is_symlink()
    assert Path("repo/view").is_symlink()
    assert Path("repo/data/real.yaml").read_text() == FIXED


def test_a_symlink_out_of_the_tree_is_refused(work):
    Path("outside/secret.yaml").write_text(BROKEN)
    Path("repo/deploy.yaml").symlink_to("../outside/secret.yaml")
    before = os.stat("outside/secret.yaml")
    result = _fix("repo/deploy.yaml")
    _not_fixed(
        result,
        "repo/deploy.yaml",
        f"a symbolic link to {work}/outside/secret.yaml, outside the linted folders: not fixed "
        "(--follow-symlinks writes through it)",
    )
    assert Path("outside/secret.yaml").read_text() == BROKEN
    assert os.stat("outside/secret.yaml").st_ino == before.st_ino
    assert Path("repo/deploy.yaml").is_symlink()


@pytest.mark.parametrize("named", ["repo/deploy.yaml", "repo"])
def test_follow_symlinks_writes_through_a_link_out_of_the_tree(work, named):
    Path("outside/secret.yaml").write_text(BROKEN)
    Path("repo/deploy.yaml").symlink_to("../outside/secret.yaml")
    result = _fix("--follow-symlinks", named)
    assert result.exit_code == 1, result.output
    assert Path("repo/deploy.yaml").is_symlink()
    assert Path("outside/secret.yaml").read_text() == FIXED
    assert _listing(work / "outside") == ["secret.yaml"]


def test_a_walk_never_reaches_a_link_out_of_the_tree_so_nothing_is_written(work):
    Path("outside/secret.yaml").write_text(BROKEN)
    Path("repo/deploy.yaml").symlink_to("../outside/secret.yaml")
    result = _fix("repo")
    assert result.exit_code == 0, result.output
    assert Path("outside/secret.yaml").read_text() == BROKEN


# --- hard links: refused --------------------------------------------------------------------


def test_a_hard_linked_file_is_not_fixed_and_both_names_stay(work):
    Path("repo/a.yaml").write_text(BROKEN)
    os.link("repo/a.yaml", "outside/backup.yaml")
    inode = os.stat("repo/a.yaml").st_ino
    result = _fix("repo/a.yaml")
    _not_fixed(
        result,
        "repo/a.yaml",
        "2 hard links name this file: not fixed (replacing it would split them, writing into "
        "it would change the other names too; --diff shows the fix)",
    )
    for name in ("repo/a.yaml", "outside/backup.yaml"):
        assert os.stat(name).st_ino == inode and os.stat(name).st_nlink == 2
    assert Path("repo/a.yaml").read_text() == BROKEN
    diff = run_cli("check", "--no-config", "--diff", "repo/a.yaml")
    assert diff.exit_code == 1 and "+        limits:\n" in diff.stdout


# --- mode and owner --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o640, 0o600, 0o755, 0o2775])
def test_the_mode_is_kept(work, mode):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    os.chmod(path, mode)
    result = _fix(str(path))
    assert result.exit_code == 1, result.output
    assert path.read_text() == FIXED
    assert oct(path.stat().st_mode & 0o7777) == oct(mode)
    assert _listing(work / "repo") == ["a.yaml"]


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
def test_a_read_only_file_is_not_fixed(work, mode):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    os.chmod(path, mode)
    result = _fix(str(path))
    _not_fixed(
        result,
        "repo/a.yaml",
        f"read-only (mode {mode:04o}): not fixed (make it writable to let --fix change it; "
        "--diff shows the fix)",
    )
    assert path.read_text() == BROKEN
    assert path.stat().st_mode & 0o7777 == mode


def test_a_file_this_user_cannot_write_is_not_fixed(work, monkeypatch):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    os.chmod(path, 0o644)
    real_access = os.access
    monkeypatch.setattr(
        write_module.os,
        "access",
        lambda p, m, **kw: False if m == os.W_OK else real_access(p, m, **kw),
    )
    result = _fix(str(path))
    _not_fixed(
        result,
        "repo/a.yaml",
        f"not writable by this user (mode 0644, owner {os.getuid()}): not fixed "
        "(--diff shows the fix)",
    )
    assert path.read_text() == BROKEN


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_the_owner_and_group_are_kept(work):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    os.chown(path, 4321, 8765)
    os.chmod(path, 0o664)
    result = _fix(str(path))
    assert result.exit_code == 1, result.output
    found = path.stat()
    assert (found.st_uid, found.st_gid, found.st_mode & 0o7777) == (4321, 8765, 0o664)
    assert path.read_text() == FIXED


def test_an_owner_this_user_cannot_give_is_not_fixed(work, monkeypatch):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    found = path.stat()
    real_stat = os.stat

    def other_owner(p, *args, **kwargs):  # the file seems to belong to someone else
        result = real_stat(p, *args, **kwargs)
        if os.path.basename(str(p)) == "a.yaml":
            fields = list(result)
            fields[4], fields[5] = found.st_uid + 1, found.st_gid + 1
            return os.stat_result(fields)
        return result

    def refuse(*args):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(write_module.os, "stat", other_owner)
    monkeypatch.setattr(write_module.os, "chown", refuse)
    result = _fix(str(path))
    _not_fixed(
        result,
        "repo/a.yaml",
        f"owned by {found.st_uid + 1}:{found.st_gid + 1}, which this user cannot give a new "
        "file: not fixed (--diff shows the fix)",
    )
    assert path.read_text() == BROKEN
    assert _listing(work / "repo") == ["a.yaml"]  # the temporary file removed


# --- atomic replacement ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failure", "code", "said"),
    [
        (KeyboardInterrupt(), 130, "gpulint: interrupted\n"),
        (
            OSError(errno.EROFS, "Read-only file system"),
            2,
            "gpulint: repo/a.yaml: cannot write: Read-only file system: not fixed\n",
        ),
    ],
)
def test_a_failed_or_interrupted_write_leaves_the_file(work, monkeypatch, failure, code, said):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)

    def fail(*args):
        raise failure

    monkeypatch.setattr(write_module.os, "replace", fail)
    result = _fix(str(path))
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert path.read_text() == BROKEN
    assert _listing(work / "repo") == ["a.yaml"]


def test_a_stale_temporary_name_does_not_block_the_fix(work):
    path = Path("repo/a.yaml")
    path.write_text(BROKEN)
    # The name the fixer used to take (pid-based, O_EXCL), left by a killed run.
    stale = Path(f"repo/.a.yaml.gpulint-fix-{os.getpid()}")
    stale.write_text("left over\n")
    result = _fix(str(path))
    assert result.exit_code == 1, result.output
    assert path.read_text() == FIXED


def test_the_other_files_are_still_fixed(work):
    Path("repo/a.yaml").write_text(BROKEN)
    Path("repo/b.yaml").write_text(BROKEN)
    os.chmod("repo/a.yaml", 0o444)
    result = _fix("repo")
    assert result.exit_code == 2
    assert Path("repo/a.yaml").read_text() == BROKEN
    assert Path("repo/b.yaml").read_text() == FIXED
    assert "gpulint: fixed 1 finding(s)" in result.stderr
