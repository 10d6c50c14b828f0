"""Hostile and broken input: every case ends in a clear message with file, line and
column, exit code 2, and the other files' findings still reported.

Time and memory are bounded by construction (nesting is measured before the C
composer recurses, aliases are counted at the size they stand for, files are
size-capped before they are read), so nothing here is timed. The cases that
could crash the interpreter run gpulint in a child process with a memory limit.
"""

from __future__ import annotations

import codecs
import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint.core.sources import MAX_FILE_BYTES
from gpulint.yaml.parse import MAX_DEPTH
from tests.helpers import run_cli

# A pod with one GPU101 at line 11, column 11: must be reported beside every bad file.
GOOD = """\
apiVersion: v1
kind: Pod
metadata:
  name: good
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        requests:
          nvidia.com/gpu: 1
"""
GOOD_FINDING = ("GPU101", 11, 11)
SELECT = "GPU010,GPU101,GPU103"


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def lint(*paths: Path, select: str = SELECT) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", select, *map(str, paths))
    return result.exit_code, json.loads(result.output)


def found(report: dict, path: Path) -> list[tuple[str, int, int]]:
    return [
        (f["code"], f["line"], f["column"]) for f in report["findings"] if f["path"] == str(path)
    ]


def errors(report: dict) -> list[tuple[str, int, int, str]]:
    return [(e["path"], e["line"], e["column"], e["message"]) for e in report["errors"]]


def assert_bad(
    tmp_path: Path,
    bad: Path,
    line: int,
    column: int,
    words: str,
    select: str = SELECT,
) -> None:
    """``bad`` fails with one located message; the good file's finding is still there."""
    good = _write(tmp_path / "good.yaml", GOOD)
    code, report = lint(bad, good, select=select)
    assert code == 2
    ((path, got_line, got_column, message),) = errors(report)
    assert (path, got_line, got_column) == (str(bad), line, column), message
    assert words in message
    assert found(report, good) == [GOOD_FINDING]


def _limited_memory() -> None:  # pragma: no cover - runs in the child
    two_gib = 2 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (two_gib, two_gib))


def lint_in_child(*paths: Path) -> tuple[int, dict]:
    """gpulint in its own process under a 2 GiB memory limit: a crash cannot take pytest down."""
    proc = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "--format", "json", "--select", SELECT]
        + [str(p) for p in paths],
        capture_output=True,
        text=True,
        preexec_fn=_limited_memory,
    )
    assert proc.returncode in (0, 1, 2), f"gpulint died ({proc.returncode}): {proc.stderr[-500:]}"
    return proc.returncode, json.loads(proc.stdout)


# --- Alias expansion -----------------------------------------------------------------------------


def test_billion_laughs_is_refused_not_expanded(tmp_path):
    # The CVE-2019-11253 payload class: 9 levels of 9 aliases = 387 million strings.
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    bad = _write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n")
    # Refused when the aliases of `e` (line 5) push the total past 200,000 values.
    assert_bad(tmp_path, bad, 5, 4, "alias bomb")


def test_merge_key_bomb_is_refused(tmp_path):
    lines = ["x0: &x0 {" + ", ".join(f"k{i}: v" for i in range(50)) + "}"]
    for i in range(1, 8):
        refs = ", ".join(f"m{j}: *x{i - 1}" for j in range(10))
        lines.append(f"x{i}: &x{i} {{<<: *x{i - 1}, {refs}}}")
    bad = _write(tmp_path / "merge-bomb.yaml", "\n".join(lines) + "\n")
    good = _write(tmp_path / "good.yaml", GOOD)
    code, report = lint(bad, good)
    assert code == 2
    ((path, line, _column, message),) = errors(report)
    assert path == str(bad) and 1 < line <= 8 and "alias bomb" in message
    assert found(report, good) == [GOOD_FINDING]


def test_aliases_within_bounds_are_read(tmp_path):
    manifest = GOOD.replace(
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n",
        "      resources:\n        requests: &gpus\n          nvidia.com/gpu: 1\n"
        "        limits: *gpus\n",
    )
    path = _write(tmp_path / "aliases.yaml", manifest)
    code, report = lint(path)
    assert (code, report["errors"], found(report, path)) == (0, [], [])


def test_anchor_from_another_document_is_an_undefined_alias(tmp_path):
    bad = _write(tmp_path / "across.yaml", "a: &gpu 1\n---\nb: *gpu\n")
    assert_bad(tmp_path, bad, 3, 4, "undefined alias")


# --- Nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("[" * 10_000 + "]" * 10_000, 1, MAX_DEPTH + 1),
        ("{a: " * 10_000 + "1" + "}" * 10_000, 1, 4 * MAX_DEPTH + 1),
        ("- " * 10_000 + "x\n", 1, 2 * MAX_DEPTH + 1),
        ("".join(" " * i + "k:\n" for i in range(500)) + " " * 500 + "v\n", MAX_DEPTH + 2, 402),
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences", "block-mappings-500"],
)
def test_deep_nesting_is_refused_at_a_position(tmp_path, text, line, column):
    bad = _write(tmp_path / "deep.yaml", text)
    assert_bad(tmp_path, bad, line, column, f"nesting deeper than {MAX_DEPTH} levels")


@pytest.mark.parametrize("levels", [100_000, 1_000_000])
def test_nesting_that_would_overflow_the_c_stack_never_crashes(tmp_path, levels):
    # Without the guard, libyaml's recursive composer overflows the C stack (SIGSEGV).
    bad = _write(tmp_path / "deeper.yaml", "[" * levels + "]" * levels)
    good = _write(tmp_path / "good.yaml", GOOD)
    code, report = lint_in_child(bad, good)
    assert code == 2
    assert errors(report) == [
        (str(bad), 1, MAX_DEPTH + 1, f"nesting deeper than {MAX_DEPTH} levels")
    ]
    assert found(report, good) == [GOOD_FINDING]


# --- Size -------------------------------------------------------------------------------------


def test_a_100_mb_file_is_refused_before_it_is_read(tmp_path):
    bad = tmp_path / "huge.yaml"
    with open(bad, "wb") as handle:
        handle.truncate(100 * 2**20)  # sparse: costs no disk, and is never read
    assert os.path.getsize(bad) > MAX_FILE_BYTES
    assert_bad(tmp_path, bad, 1, 1, "file is 100.0 MiB; gpulint reads files up to 32 MiB")


def test_a_10_mb_line_is_read_and_positions_stay_exact(tmp_path):
    blob = "x" * (10 * 2**20)
    manifest = (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{blob: {blob}}}\n---\n"
        + GOOD
    )
    path = _write(tmp_path / "long-line.yaml", manifest)
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [("GPU101", 16, 11)]


def test_a_10_mb_line_that_never_closes_its_quote(tmp_path):
    bad = _write(tmp_path / "open-quote.yaml", 'data: "' + "x" * (10 * 2**20) + "\n")
    assert_bad(tmp_path, bad, 2, 1, "found unexpected end of stream")


@pytest.mark.slow
def test_100000_documents_in_one_stream(tmp_path):
    path = _write(tmp_path / "many.yaml", "---\nk: v\n" * 100_000 + "---\n" + GOOD)
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [("GPU101", 200_012, 11)]


# --- Bytes and encodings --------------------------------------------------------------------


def test_binary_file(tmp_path):
    bad = _write(tmp_path / "image.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert_bad(tmp_path, bad, 3, 1, "binary file (NUL byte)")


def test_invalid_utf8(tmp_path):
    bad = _write(tmp_path / "latin1.yaml", "a: 1\nname: caf\xe9\n".encode("latin-1"))
    assert_bad(tmp_path, bad, 2, 10, "not valid UTF-8")


def test_nul_byte_after_the_first_block(tmp_path):
    text = "a: " + "x" * 10_000 + "\nb: \x00\n"
    bad = _write(tmp_path / "nul.yaml", text.encode())
    assert_bad(tmp_path, bad, 2, 4, "control characters are not allowed")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_read(tmp_path, codec):
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    path = _write(tmp_path / "utf16.yaml", bom + GOOD.encode(codec))
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [GOOD_FINDING]


def test_utf8_bom_is_read(tmp_path):
    path = _write(tmp_path / "bom.yaml", codecs.BOM_UTF8 + GOOD.encode())
    code, report = lint(path)
    assert (code, found(report, path)) == (1, [GOOD_FINDING])


@pytest.mark.parametrize("ending", ["\r\n", "\r", "mixed"], ids=["crlf", "cr", "mixed"])
def test_line_endings_keep_positions(tmp_path, ending):
    lines = GOOD.splitlines()
    if ending == "mixed":
        text = "".join(line + ("\r\n" if i % 2 else "\n") for i, line in enumerate(lines))
    else:
        text = ending.join(lines) + ending
    path = _write(tmp_path / "endings.yaml", text.encode())
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [GOOD_FINDING]


def test_tabs_in_indentation(tmp_path):
    bad = _write(tmp_path / "tabs.yaml", GOOD.replace("    - name: c", "\t- name: c"))
    assert_bad(tmp_path, bad, 7, 1, "a tab: YAML indents with spaces only")


# --- YAML features where strings are expected ---------------------------------------------


def test_duplicate_keys_are_findings(tmp_path):
    manifest = GOOD.replace(
        "        requests:\n          nvidia.com/gpu: 1\n",
        "        limits:\n          nvidia.com/gpu: 1\n          nvidia.com/gpu: 4\n",
    )
    path = _write(tmp_path / "dup.yaml", manifest)
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [("GPU010", 12, 11)]
    (finding,) = report["findings"]
    assert "appears 2 times" in finding["message"] and "the value kept is 4" in finding["message"]


def test_merge_keys_apply_and_positions_point_at_the_merged_key(tmp_path):
    manifest = "defaults: &gpu {nvidia.com/gpu: 1}\n---\n" + GOOD.replace(
        "        requests:\n", "        requests:\n          <<: {cpu: 1}\n"
    )
    path = _write(tmp_path / "merge.yaml", manifest)
    code, report = lint(path)
    assert code == 1 and report["errors"] == []
    assert found(report, path) == [("GPU101", 14, 11)]


def test_non_string_keys(tmp_path):
    manifest = GOOD + "  1: one\n  true: yes\n  null: nothing\n  2001-12-14: day\n"
    path = _write(tmp_path / "keys.yaml", manifest)
    code, report = lint(path)
    assert (code, report["errors"], found(report, path)) == (1, [], [GOOD_FINDING])


def test_a_collection_as_a_key_is_an_error(tmp_path):
    bad = _write(tmp_path / "complex-key.yaml", "? {a: 1}\n: b\n")
    assert_bad(tmp_path, bad, 1, 3, "a mapping key must be a scalar, not a mapping")


def test_python_tags_never_construct_anything(tmp_path):
    marker = tmp_path / "pwned"
    manifest = GOOD.replace(
        "          nvidia.com/gpu: 1\n",
        f'          nvidia.com/gpu: !!python/object/apply:os.system ["touch {marker}"]\n'
        "        limits:\n"
        f"          nvidia.com/gpu: !!python/object/new:os.system [touch {marker}]\n"
        "          cpu: !custom {x: 1}\n"
        "          memory: !!binary aGVsbG8=\n",
    )
    path = _write(tmp_path / "tags.yaml", manifest)
    code, report = lint(path)
    assert not marker.exists()
    assert code == 1 and report["errors"] == []
    # The tagged sequences are read as plain data: not a GPU count.
    assert found(report, path) == [("GPU103", 11, 27), ("GPU103", 13, 27)]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1" * 5000, [("GPU103", 11, 27)]),  # more digits than Python converts
        ("1" * 200, [("GPU103", 11, 27)]),  # an integer, but no such GPU count
        ("1e3", []),  # YAML 1.1 float 1000.0: a whole number of GPUs
        ("2001-12-14", [("GPU103", 11, 27)]),  # a timestamp where a count is expected
        (".inf", [("GPU103", 11, 27)]),
        (".nan", [("GPU103", 11, 27)]),
        ("yes", [("GPU103", 11, 27)]),  # YAML 1.1 boolean
    ],
)
def test_huge_and_implicitly_typed_quantities(tmp_path, value, expected):
    manifest = GOOD.replace(
        "          nvidia.com/gpu: 1\n",
        f"          nvidia.com/gpu: {value}\n        limits:\n          nvidia.com/gpu: {value}\n",
    )
    path = _write(tmp_path / "typed.yaml", manifest)
    code, report = lint(path, select="GPU101,GPU103")
    assert report["errors"] == []
    assert [f for f in found(report, path) if f[1] == 11] == expected
    assert code == (1 if expected else 0)


def test_implicit_types_where_strings_are_expected(tmp_path):
    manifest = GOOD.replace("  name: good\n", "  name: 1.10\n  labels: {version: 1.10, on: on}\n")
    path = _write(tmp_path / "implicit.yaml", manifest)
    code, report = lint(path)
    assert report["errors"] == []
    assert (code, found(report, path)) == (1, [("GPU101", 12, 11)])


# --- Unrendered templates -------------------------------------------------------------------


def test_unrendered_helm_template_is_one_message(tmp_path):
    template = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n"
        '  labels:\n    {{- include "chart.labels" . | nindent 4 }}\nspec:\n'
        "  containers:\n    - name: c\n      resources:\n        limits:\n"
        "          nvidia.com/gpu: {{ .Values.gpus }}\n"
    )
    bad = _write(tmp_path / "templates" / "pod.yaml", template)
    assert_bad(tmp_path, bad, 4, 9, "render it first")


def test_a_quoted_placeholder_in_valid_yaml_is_a_value_not_a_template(tmp_path):
    # issue 27: a Flux HelmRelease's values hold "{{ .Release.Name }}" for the chart to fill
    # in; the file is valid YAML. The placeholder is no count to judge (GPU103 is silent),
    # and what does not depend on it is still found (the limit is missing whatever it is).
    template = GOOD.replace("nvidia.com/gpu: 1", 'nvidia.com/gpu: "{{ .Values.gpus }}"')
    quoted = _write(tmp_path / "quoted.yaml", template)
    good = _write(tmp_path / "good.yaml", GOOD)
    code, report = lint(quoted, good)
    assert (code, report["errors"]) == (1, [])
    assert found(report, quoted) == [GOOD_FINDING] and found(report, good) == [GOOD_FINDING]


def test_other_placeholders_in_an_invalid_file_are_named_once(tmp_path):
    bad = _write(tmp_path / "argo.yaml", "a: 1\nimage: {{inputs.parameters.image}}\n")
    assert_bad(tmp_path, bad, 2, 8, "unrendered template")


def test_go_template_strings_in_valid_yaml_are_ordinary_values(tmp_path):
    # Prometheus alert text: valid YAML whose strings hold {{ }}; not a template to render.
    manifest = GOOD.replace(
        "  name: good\n",
        '  name: good\n  annotations:\n    summary: "GPU {{ $labels.gpu }} is hot"\n',
    )
    path = _write(tmp_path / "alert.yaml", manifest)
    code, report = lint(path)
    assert (code, report["errors"], found(report, path)) == (1, [], [("GPU101", 13, 11)])


# --- Folders and files ----------------------------------------------------------------------


def test_symlink_loop_in_a_folder(tmp_path):
    tree = tmp_path / "tree"
    _write(tree / "sub" / "good.yaml", GOOD)
    os.symlink("..", tree / "sub" / "up")
    os.symlink("self.yaml", tree / "self.yaml")
    result = run_cli("check", "--format", "json", "--select", SELECT, str(tree))
    report = json.loads(result.output)
    assert result.exit_code == 2
    assert [(p, line, col) for p, line, col, _m in errors(report)] == [
        (str(tree / "self.yaml"), 1, 1),
        (str(tree / "sub" / "up"), 1, 1),
    ]
    assert "symbolic link loop" in errors(report)[0][3]
    assert "links back to a folder that contains it" in errors(report)[1][3]
    assert found(report, tree / "sub" / "good.yaml") == [GOOD_FINDING]


def test_unreadable_file(tmp_path, monkeypatch):
    bad = _write(tmp_path / "secret.yaml", GOOD)
    real_open = os.open

    def deny(path, *args, **kwargs):
        if os.fspath(path) == str(bad):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    assert_bad(tmp_path, bad, 1, 1, "cannot read file: Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission(tmp_path):
    bad = _write(tmp_path / "mode000.yaml", GOOD)
    bad.chmod(0)
    assert_bad(tmp_path, bad, 1, 1, "cannot read file")


def test_fifo_is_not_read(tmp_path):
    bad = tmp_path / "pipe.yaml"
    os.mkfifo(bad)  # opening it for reading would wait for a writer forever
    assert stat.S_ISFIFO(os.stat(bad).st_mode)
    assert_bad(tmp_path, bad, 1, 1, "not a regular file")


def test_fifo_named_toml_in_a_walk_is_not_peeked(tmp_path):
    # A walk peeks into .toml files for a containerd config; a FIFO must not block it.
    _write(tmp_path / "tree" / "good.yaml", GOOD)
    os.mkfifo(tmp_path / "tree" / "config.toml")
    done = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "--format", "json", str(tmp_path / "tree")],
        capture_output=True,
        text=True,
        timeout=60,  # the old peek waited for a writer forever
    )
    data = json.loads(done.stdout)
    assert [f["path"] for f in data["findings"]] == [str(tmp_path / "tree" / "good.yaml")] * len(
        data["findings"]
    )
    assert data["findings"]


def test_folder_vanishing_while_walking(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    _write(tree / "a" / "good.yaml", GOOD)
    _write(tree / "b" / "gone.yaml", GOOD)
    real_scandir = os.scandir

    def vanish(path):
        if os.fspath(path) == str(tree / "b"):
            raise FileNotFoundError(2, "No such file or directory")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", vanish)
    result = run_cli("check", "--format", "json", "--select", SELECT, str(tree))
    report = json.loads(result.output)
    assert result.exit_code == 2
    assert errors(report) == [
        (str(tree / "b"), 1, 1, "cannot read folder: no such file or directory")
    ]
    assert found(report, tree / "a" / "good.yaml") == [GOOD_FINDING]


def test_file_vanishing_before_it_is_read(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    good = _write(tree / "a.yaml", GOOD)
    gone = _write(tree / "b.yaml", GOOD)
    from gpulint.inputs import discover

    real = discover.discover

    def discover_then_delete(*args, **kwargs):
        found_targets = real(*args, **kwargs)
        gone.unlink()
        return found_targets

    monkeypatch.setattr(discover, "discover", discover_then_delete)
    result = run_cli("check", "--format", "json", "--select", SELECT, str(tree))
    report = json.loads(result.output)
    assert result.exit_code == 2
    assert errors(report) == [(str(gone), 1, 1, "cannot read file: No such file or directory")]
    assert found(report, good) == [GOOD_FINDING]
