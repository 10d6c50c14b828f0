"""Hostile runs (issue 13): findings never lost, exit codes that tell the truth,
nothing read or fetched beyond what the run was given, output escaped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint.cli import main as cli_main
from gpulint.core.findings import Severity
from gpulint.engine import context as engine_context
from gpulint.rules.registry import Report, Rule
from tests.helpers import KNOWN_CLUSTER, MALFORMED_LIMITS, run_cli


def _json(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.stdout)


def _known(tmp_path: Path) -> tuple[str, str]:
    """--config with the cluster facts GPU201 and GPU202 need to report (tests/helpers.py)."""
    config = tmp_path / "known-cluster.gpulint.yaml"
    config.write_text(KNOWN_CLUSTER)
    return "--config", str(config)


# --- 3. a rule crash hides the rest -------------------------------------------------------------


@pytest.mark.parametrize("limits", ["1", "true", "1.5", "[1]", "text"])
def test_malformed_limits_is_a_finding_at_the_key_and_every_rule_runs(tmp_path, limits):
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", limits))
    code, report = _json(*_known(tmp_path), str(path))
    assert report["errors"] == []
    where = {(f["code"], f["line"], f["column"]) for f in report["findings"]}
    assert ("GPU011", 11, 17) in where
    # GPU201 and GPU202 crashed on this pod before; now they report what is missing.
    assert {"GPU201", "GPU202"} <= {f["code"] for f in report["findings"]}
    assert code == 1


def test_one_rule_crash_is_that_rules_internal_error_and_the_others_run(tmp_path, monkeypatch):
    boom = Rule("GPU999", "boom", Severity.ERROR, "crashes", "")

    @boom.resource_check
    def _check(resource, ctx):
        yield Report(("metadata",), "first")
        raise TypeError("secret document text")

    real = engine_context.build_context

    def with_boom(settings, registry=None):
        ctx = real(settings, registry)
        ctx.rules.insert(0, boom)
        return ctx

    monkeypatch.setattr(cli_main, "build_context", with_boom)
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}"))
    code, report = _json(*_known(tmp_path), str(path))
    assert code == 2
    assert [(e["line"], e["message"]) for e in report["errors"]] == [
        (
            1,
            "internal error in rule GPU999 boom: TypeError; the other rules ran "
            "(run with --debug or GPULINT_DEBUG=1 for the traceback; please report it)",
        )
    ]
    codes = [f["code"] for f in report["findings"]]
    assert "GPU999" in codes and "GPU201" in codes  # its own finding kept, the others ran
    assert "secret document text" not in json.dumps(report)


def test_malformed_limits_is_one_finding_not_also_a_missing_limit(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(MALFORMED_LIMITS.replace("LIMIT", "1"))
    _, report = _json(str(path))
    assert [f["code"] for f in report["findings"] if f["code"] in ("GPU011", "GPU101")] == [
        "GPU011"
    ]


# --- 1. file names that are not UTF-8 -----------------------------------------------------------

CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


def _bad_name_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.yaml").write_text(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}"))
    bad = os.path.join(os.fsencode(tree), b"bad\xff\xfe.yaml")
    with open(bad, "wb") as handle:
        handle.write(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}").encode())
    return tree


def _gpulint(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gpulint", *args],
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        **kwargs,
    )


def test_a_non_utf8_file_name_in_json_sarif_text_and_github(tmp_path):
    tree = _bad_name_tree(tmp_path)
    code, report = _json(str(tree))
    assert code == 1
    paths = {f["path"] for f in report["findings"]}
    bad_path = os.fsdecode(os.path.join(os.fsencode(tree), b"bad\xff\xfe.yaml"))
    assert paths == {str(tree / "good.yaml"), bad_path}  # \udcff in JSON: the bytes round-trip
    assert len({f["fingerprint"] for f in report["findings"]}) == len(report["findings"])

    sarif = json.loads(run_cli("check", "--format", "sarif", "--jobs", "1", str(tree)).output)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert f"{tree}/bad%FF%FE.yaml" in uris

    for fmt in ("text", "github"):
        # Standard output that refuses anything but UTF-8 still gets every finding.
        proc = _gpulint(
            "check", "--format", fmt, str(tree), env={"PYTHONIOENCODING": "utf-8:strict"}
        )
        out = proc.stdout.decode("utf-8")  # valid UTF-8
        assert proc.returncode == 1, proc.stderr
        assert f"{tree}/bad\\xff\\xfe.yaml" in out
        assert out.count("bad\\xff\\xfe.yaml") == out.count("good.yaml")


def test_a_non_utf8_file_name_in_the_baseline(tmp_path):
    tree = _bad_name_tree(tmp_path)
    baseline = tmp_path / "baseline.json"
    assert run_cli("check", "--write-baseline", str(baseline), str(tree)).exit_code == 0
    code, report = _json("--baseline", str(baseline), str(tree))
    assert code == 0 and report["findings"] and all(f["suppressed"] for f in report["findings"])


# --- 4. output errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, reason",
    [
        ("{tmp}/missing/dir/x", "No such file or directory"),
        ("{tmp}/clean.yaml/x", "Not a directory"),
        ("/dev/full", "No space left on device"),
    ],
)
def test_an_output_that_cannot_be_written_exits_2_naming_it(tmp_path, target, reason):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    target = target.format(tmp=tmp_path)
    proc = _gpulint("check", str(tmp_path / "clean.yaml"), "--output", target)
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"gpulint: cannot write {target}: {reason}\n"


def test_a_closed_standard_output_exits_2(tmp_path):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    proc = subprocess.run(
        f"'{sys.executable}' -m gpulint check '{tmp_path}/clean.yaml' >&-",
        shell=True,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.decode() == "gpulint: cannot write standard output: it is closed\n"


# --- 2. interrupted and failed writes keep the old file -----------------------------------------


@pytest.mark.parametrize("failure, code", [(KeyboardInterrupt, 130), (OSError(28, "full"), 2)])
def test_an_interrupted_or_failed_write_leaves_the_old_output(tmp_path, monkeypatch, failure, code):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()
    out.write_text("old report\n")
    real = cli_main.write

    def half(fmt, result, stream, color=False, quiet=False):
        stream.write('{\n  "partial')
        raise failure

    monkeypatch.setattr(cli_main, "write", half)
    result = run_cli(
        "check", "--format", "json", "--output", str(out), str(tmp_path / "clean.yaml")
    )
    assert result.exit_code == code
    assert out.read_text() == "old report\n"
    assert os.listdir(out.parent) == ["report.json"]  # no temporary file left behind
    monkeypatch.setattr(cli_main, "write", real)
    clean = str(tmp_path / "clean.yaml")
    assert run_cli("check", "--format", "json", "-o", str(out), clean).exit_code == 0
    assert json.loads(out.read_text())["findings"] == []
    assert os.listdir(out.parent) == ["report.json"]


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc for the workers")
def test_sigint_with_workers_exits_130_with_one_line(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    big = MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}") + "---\n"
    for i in range(400):  # ~8 MB: enough for workers, and seconds of work
        (tree / f"f{i}.yaml").write_text(big * 70)
    out = tmp_path / "report.txt"
    out.write_text("old report\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpulint", "check", "--jobs", "2", str(tree), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a process group, like a terminal's
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    while proc.poll() is None and not _children(proc.pid):
        pass  # until the workers run
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.decode()) == (130, "gpulint: interrupted\n")
    assert out.read_text() == "old report\n"


# --- 7 and 8. process limits and --jobs ----------------------------------------------------------


def _big_tree(tmp_path: Path, files: int = 12) -> Path:
    """Over a megabyte in several files: enough for worker processes."""
    tree = tmp_path / "big"
    tree.mkdir()
    doc = MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}") + "---\n"
    for i in range(files):
        (tree / f"f{i:02d}.yaml").write_text(doc * 400)
    return tree


@pytest.mark.parametrize("forks_allowed", [0, 1])
def test_fork_failure_falls_back_to_this_process_with_one_note(
    tmp_path, monkeypatch, forks_allowed
):
    tree = _big_tree(tmp_path)
    expected = run_cli("check", "--format", "json", "--jobs", "1", str(tree)).output
    real_fork, calls = os.fork, []

    def limited_fork():  # what a process limit (ulimit -u) does to fork
        calls.append(1)
        if len(calls) > forks_allowed:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_fork()

    monkeypatch.setattr(os, "fork", limited_fork)
    monkeypatch.setattr(cli_main, "cpu_count", lambda: 2)
    result = run_cli("check", "--format", "json", "--jobs", "2", str(tree))
    assert calls  # a worker was attempted
    note = "could not start worker processes (a process limit?); linted in this process"
    assert result.output == expected + f"gpulint: note: {note}\n"  # the report, then one note
    text = run_cli("check", "--jobs", "2", str(tree)).output
    assert text.count(note) == 1 and f"\nnote: {note}\n" in text


def test_jobs_is_capped_at_the_usable_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(cli_main, "cpu_count", lambda: 2)
    seen = []
    real = cli_main.run
    monkeypatch.setattr(
        cli_main,
        "run",
        lambda targets, ctx, *more: seen.append(ctx.settings.jobs) or real(targets, ctx, *more),
    )
    (tmp_path / "clean.yaml").write_text(CLEAN)
    result = run_cli("check", "--jobs", "99999999999999999999", str(tmp_path / "clean.yaml"))
    assert result.exit_code == 0 and seen == [2]
    assert (
        "gpulint: note: --jobs 99999999999999999999 capped at 2, the cores this process may use"
        in result.output
    )
    seen.clear()
    assert run_cli("check", "--jobs", "1", str(tmp_path / "clean.yaml")).exit_code == 0
    assert seen == [1]


# --- 5. a path on the command line that cannot be read ------------------------------------------


def _deny(monkeypatch, *denied: Path) -> None:
    """What chmod 000 does for a user who is not root (the tests may run as root)."""
    names = {str(p) for p in denied}
    real_access, real_open, real_scandir = os.access, os.open, os.scandir

    def access(path, mode, *args, **kwargs):
        return False if os.fspath(path) in names else real_access(path, mode, *args, **kwargs)

    def open_(path, *args, **kwargs):
        if os.fspath(path) in names:
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    def scandir(path="."):
        if os.fspath(path) in names:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "scandir", scandir)


def test_unreadable_paths_on_the_command_line_are_located_errors_the_rest_is_linted(
    tmp_path, monkeypatch
):
    good = tmp_path / "good.yaml"
    good.write_text(MALFORMED_LIMITS.replace("LIMIT", "1"))
    secret = tmp_path / "secret.yaml"
    secret.write_text(CLEAN)
    folder = tmp_path / "locked"
    folder.mkdir()
    _deny(monkeypatch, secret, folder)
    code, report = _json(str(secret), str(folder), str(good))
    assert code == 2
    assert [(e["path"], e["line"], e["column"], e["message"]) for e in report["errors"]] == [
        (str(folder), 1, 1, "cannot read folder: Permission denied"),
        (str(secret), 1, 1, "cannot read file: Permission denied"),
    ]
    assert ("GPU011", 11, 17) in {(f["code"], f["line"], f["column"]) for f in report["findings"]}


# --- 6. a corrupt baseline ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x00\xff\xfe binary", "{path}:1:2: baseline is not UTF-8 text (byte 0xff)"),
        (b"[" * 100_000, "{path}:1:1: baseline is not a gpulint baseline (nested too deeply)"),
        (b'{"version": 1,\n  "findings": [}', "{path}:2:16: baseline is not JSON"),
        (b'{"version": 7, "findings": []}', "{path}:1:1: baseline is not a gpulint baseline"),
    ],
)
def test_a_corrupt_baseline_is_a_located_message_and_exit_2(tmp_path, content, message):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(content)
    proc = _gpulint("check", "--baseline", str(baseline), str(tmp_path / "clean.yaml"))
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith("gpulint: " + message.format(path=baseline)), err
    assert err.count("\n") == 1 and "internal error" not in err


def test_a_baseline_that_is_a_fifo_is_not_read(tmp_path):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    proc = _gpulint("check", "--baseline", str(fifo), str(tmp_path / "clean.yaml"))
    assert proc.returncode == 2
    assert "not a regular file" in proc.stderr.decode()


def test_write_baseline_replaces_the_file_only_when_complete(tmp_path):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    proc = _gpulint("check", "--write-baseline", "/dev/full", str(tmp_path / "clean.yaml"))
    assert (proc.returncode, proc.stderr.decode()) == (
        2,
        "gpulint: baseline: cannot write /dev/full: No space left on device\n",
    )


# --- 10. a custom rule's $ref fetches nothing ---------------------------------------------------

REF_RULE = """\
custom-rules:
  - code: TEAM001
    name: team-rule
    message: image checked
    target: Container
    schema:
      $defs:
        pinned: {type: string, pattern: ":v?[0-9]"}
      properties:
        image:
          $ref: "REF"
"""


@pytest.fixture
def no_network(monkeypatch):
    """Records every attempt to fetch or open a referenced schema; there must be none."""
    import urllib.request

    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("no network in tests")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(urllib.request.OpenerDirector, "open", refuse)
    yield attempts
    assert attempts == []


@pytest.mark.parametrize(
    "ref",
    [
        "http://attacker.invalid/schema.json",
        "file:///etc/passwd",
        "file:///dev/zero",
        "other.json#/x",
        "https://gpulint.dev/schemas/unknown.json",
    ],
)
def test_a_foreign_ref_is_a_config_error_at_its_line(tmp_path, monkeypatch, no_network, ref):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gpulint.yaml").write_text(REF_RULE.replace("REF", ref))
    (tmp_path / "pod.yaml").write_text(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}"))
    result = run_cli("check", "pod.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f".gpulint.yaml:11:17: error [config] custom-rules.0.schema.properties.image.$ref: "
        f"$ref '{ref}' is not allowed"
    )


@pytest.mark.parametrize(
    "ref", ["#/$defs/pinned", "https://gpulint.dev/schemas/device-plugin-config.schema.json"]
)
def test_local_and_shipped_refs_resolve(tmp_path, monkeypatch, no_network, ref):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gpulint.yaml").write_text(REF_RULE.replace("REF", ref))
    (tmp_path / "pod.yaml").write_text(MALFORMED_LIMITS.replace("LIMIT", "{nvidia.com/gpu: 1}"))
    code, report = _json("--select", "TEAM001", "pod.yaml")
    assert code == (0 if ref.startswith("#") else 1)  # the image is pinned; not a plugin config


def test_the_validators_registry_retrieves_nothing(no_network):
    from referencing.exceptions import Unresolvable

    from gpulint.validate.schema import make_validator

    validator = make_validator({"$ref": "http://attacker.invalid/x.json"})
    with pytest.raises(Unresolvable):
        validator.validate({})


# --- 11. symlinks out of the tree, and content in messages --------------------------------------

SECRET = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXNlY3JldC1zZWNyZXQ"


def _linked_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "token").write_text(SECRET + "\n")
    (outside / "pod.yaml").write_text(MALFORMED_LIMITS.replace("LIMIT", "1"))
    (tree / "token.yaml").symlink_to(outside / "token")
    (tree / "elsewhere").symlink_to(outside)
    (tree / "sub" / "pod.yaml").write_text(MALFORMED_LIMITS.replace("LIMIT", "1"))
    (tree / "inside").symlink_to(tree / "sub")  # inside the tree: followed
    return tree


def test_a_folder_walk_does_not_follow_links_out_of_the_tree(tmp_path):
    tree = _linked_tree(tmp_path)
    for fmt in ("json", "text", "sarif", "github"):
        result = run_cli("check", "--format", fmt, "--jobs", "1", str(tree))
        assert SECRET[:10] not in result.output
        assert f"{tree}/elsewhere" not in result.output and "token.yaml" not in result.output
    code, report = _json(str(tree))
    assert report["errors"] == []
    assert {f["path"] for f in report["findings"]} == {str(tree / "inside" / "pod.yaml")}
    text = run_cli("check", "--verbose", "--jobs", "1", str(tree)).output
    for link in ("elsewhere", "token.yaml"):
        assert (
            f"note: {tree / link}: a symbolic link out of the linted folder; not followed "
            "(--follow-symlinks lints what it points to)\n" in text
        )


def test_follow_symlinks_lints_what_they_point_to_without_echoing_it(tmp_path):
    tree = _linked_tree(tmp_path)
    code, report = _json("--follow-symlinks", str(tree))
    assert code == 1 and report["errors"] == []  # the token is not a manifest: skipped
    assert str(tree / "elsewhere" / "pod.yaml") in {f["path"] for f in report["findings"]}
    assert SECRET[:10] not in json.dumps(report)
    code, report = _json(str(tree / "token.yaml"))  # named: read, and named by type only
    assert [(e["path"], e["message"]) for e in report["errors"]] == [
        (str(tree / "token.yaml"), "document 1 is a string, not a mapping")
    ]
    assert SECRET[:10] not in json.dumps(report)


# --- 12. control characters from input never reach a terminal raw -------------------------------

CONTROL_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: "p\\n::error file=x::forged\\r\\e[31mred\\u202e"
spec:
  containers:
    - name: "c\\n::add-mask::x"
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests: {nvidia.com/gpu: 1}
"""


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_control_characters_are_escaped_in_human_readable_output(tmp_path, fmt):
    path = tmp_path / "pod\x1b[2J.yaml"
    path.write_text(CONTROL_POD)
    result = run_cli("check", "--format", fmt, "--jobs", "1", str(path))
    out = result.output
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    assert not [line for line in out.splitlines() if line.startswith(("::add-mask", "::stop"))]
    assert all(
        line.startswith(("::error", "::warning", "::notice")) for line in out.splitlines()
    ) or (fmt == "text")
    nl, cr = ("\\n", "\\r") if fmt == "text" else ("%0A", "%0D")  # GitHub's own escapes
    assert f"Pod p{nl}::error file=x::forged{cr}\\x1b[31mred\\u202e" in out
    assert "pod\\x1b[2J.yaml" in out
    if fmt == "text":
        lines = out.splitlines()  # findings, notes, the summary: one line each
        notes = [line for line in lines if line.startswith("note: ")]
        assert len(lines) == len([f for f in lines if f.startswith(str(tmp_path))]) + len(notes) + 1


# --- 13. suppression comments parsed with a grammar ---------------------------------------------

SUPPRESSED_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1  # gpulint: disable=DIRECTIVE
"""


def _suppressed(tmp_path: Path, directive: str, *args: str) -> tuple[int, dict]:
    path = tmp_path / "pod.yaml"
    path.write_text(SUPPRESSED_POD.replace("DIRECTIVE", directive))
    return _json("--select", "GPU101,GPU001,GPU002,GPU003", *args, str(path))


def _active(report: dict) -> list[tuple[str, int, str]]:
    return [(f["code"], f["line"], f["message"]) for f in report["findings"] if not f["suppressed"]]


@pytest.mark.parametrize(
    "directive",
    ["GPU101, until=2020-01-01", "GPU101,until=2020-01-01", "GPU101 ,  until = 2020-01-01"],
)
def test_an_expiry_after_a_comma_expires(tmp_path, directive):
    code, report = _suppressed(tmp_path, directive, "--require-reason")
    found = _active(report)
    assert [c for c, _, _ in found] == ["GPU101", "GPU003"]  # reported again, and why
    assert any(c == "GPU003" and "expired on 2020-01-01" in m for c, _, m in found)
    assert not any("until" in m and c == "GPU001" for c, _, m in found)  # not a rule name


def test_selectors_options_and_reason_with_spaces(tmp_path):
    _, report = _suppressed(
        tmp_path, " GPU101 , gpu-limit-missing until = 2999-01-01 - webhook adds the limit"
    )
    [finding] = [f for f in report["findings"] if f["code"] == "GPU101"]
    assert finding["suppression"] == {"kind": "comment", "reason": "webhook adds the limit"}


def test_an_unknown_option_is_a_located_error(tmp_path):
    code, report = _suppressed(tmp_path, "GPU101, expires=2020-01-01")
    assert code == 2
    assert [(e["line"], e["column"], e["message"]) for e in report["errors"]] == [
        (11, 57, "suppression option 'expires' is unknown: options are until")
    ]
    assert [c for c, _, _ in _active(report)] == ["GPU101"]  # not silenced


def test_an_unknown_rule_name_is_a_finding_not_silence(tmp_path):
    _, report = _suppressed(tmp_path, "GPU1O1 typo")
    assert [(c, line) for c, line, _ in _active(report)] == [("GPU101", 11), ("GPU001", 11)]
    assert "there is no rule 'GPU1O1'" in _active(report)[1][2]


# --- 9. scalar aliases and long values ----------------------------------------------------------


def _env_pod(value: str, aliases: int) -> str:
    head = f"""\
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:v0.6.3
      env:
        - name: A
          value: &v "{value}"
"""
    return head + "".join(f"        - {{name: B{i}, value: *v}}\n" for i in range(aliases))


def test_aliases_of_a_long_scalar_count_toward_the_expansion_limit(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_env_pod("x$HOME" * 16_000, 20_000))  # ~800 KB, 2 GB expanded
    result = run_cli("check", "--format", "json", str(path))
    report = json.loads(result.output)
    assert result.exit_code == 2 and report["findings"] == []
    assert [(e["line"], e["column"]) for e in report["errors"]] == [(10, 18)]
    assert "alias bomb" in report["errors"][0]["message"]
    assert len(result.output) < 2_000


def test_a_few_aliases_of_a_long_value_are_read_and_quoted_short(tmp_path):
    path = tmp_path / "env.yaml"
    path.write_text(_env_pod("x$HOME" * 2_000, 3))  # 12 KB, 4 times
    code, report = _json("--select", "GPU706", str(path))
    messages = [f["message"] for f in report["findings"]]
    assert len(messages) == 4 and report["errors"] == []
    expected = "the container gets the literal text 'x$HOMEx$HOMEx$HOME"
    assert all(expected in m and m.endswith("...'") and len(m) < 250 for m in messages)


def test_no_message_outgrows_the_bound(tmp_path, monkeypatch):
    long_rule = Rule("GPU998", "long", Severity.WARNING, "long", "")

    @long_rule.resource_check
    def _check(resource, ctx):
        yield Report(("metadata",), "value " + "v" * 100_000 + " end")

    real = engine_context.build_context
    monkeypatch.setattr(
        cli_main,
        "build_context",
        lambda settings, registry=None: _with(real(settings, registry), long_rule),
    )
    path = tmp_path / "pod.yaml"
    path.write_text(CLEAN)
    _, report = _json(str(path))
    [message] = [f["message"] for f in report["findings"] if f["code"] == "GPU998"]
    from gpulint.core.findings import MAX_MESSAGE

    assert len(message) <= MAX_MESSAGE
    assert message.endswith(f"({100_010 - MAX_MESSAGE + 40} characters cut)")


def _with(ctx, rule):
    ctx.rules.append(rule)
    return ctx


# 14. GPU resource names the API server sees differently: GPU109's own tests, in
# tests/rules/gpu1xx/test_resource_names.py.
