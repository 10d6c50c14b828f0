"""gitignore-style ``exclude`` patterns: the same answers as the regular expressions of
earlier releases, in time linear in the path whatever the pattern."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpulint.config import globs
from gpulint.config.globs import GlobError, PathFilter, compile_pattern
from tests.helpers import run_cli


def _reference(text: str) -> re.Pattern | None:
    """The translation gpulint used before (backtracking; exponential on nested ``**``)."""
    line = text.strip()
    if not line or line.startswith("#"):
        return None
    line = line[1:] if line.startswith("!") else line
    line = line.rstrip("/")
    anchored = "/" in line
    out, i, glob = [], 0, line.lstrip("/")
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and glob.find("]", i + 1) != -1:
            end = glob.find("]", i + 1)
            body = glob[i + 1 : end].replace("\\", "\\\\")
            out.append(f"[{'^' + body[1:] if body.startswith('!') else body}]")
            i = end
        elif c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    body = "".join(out)
    return re.compile(f"^{body if anchored else '(?:.*/)?' + body}$")


PATTERNS = st.text(alphabet="ab/*?[]!\\", min_size=1, max_size=12).filter(
    lambda p: "[]" not in p and "[!]" not in p  # an empty set: now an error, was nonsense
)
PATHS = st.text(alphabet="ab/", max_size=16)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # the reference's nested sets
@given(PATTERNS, st.lists(PATHS, max_size=8))
def test_patterns_answer_as_the_regular_expressions_did(pattern, paths):
    try:
        reference = _reference(pattern)
    except re.error:
        with pytest.raises(GlobError):
            compile_pattern(pattern)
        return
    compiled = compile_pattern(pattern)
    if reference is None:
        assert compiled is None
        return
    assert compiled is not None
    for path in paths:
        assert compiled.match(path) == bool(reference.match(path)), (pattern, path)


@given(PATTERNS)
def test_no_pattern_reaches_the_backtracking_engine_with_two_runs(pattern):
    """A regular expression is compiled only for a row with at most one run: nested
    runs are what makes a backtracking engine try every combination."""
    compiled_rows: list[list] = []
    real = globs._regex

    def recording(tokens):
        compiled_rows.append(tokens)
        return real(tokens)

    globs._regex = recording
    try:
        compile_pattern(pattern)
    except GlobError:
        pass
    finally:
        globs._regex = real
    for row in compiled_rows:
        assert sum(t.kind != "char" for t in row) <= 1, pattern


HOSTILE = [
    "**/**/**/**/**/**/x",
    "*a*a*a*a*a*a*a*a*b",
    "a/**/a**/a**/a**/a**/a**/b",
    "**/a*/**/a*/**/a*/**/a*/**/a*/b",
    "a**a**a**a**a**a**a**b",
    "[!b]*[!b]*[!b]*[!b]*[!b]*x",
]


@pytest.mark.parametrize("pattern", HOSTILE)
def test_hostile_patterns_take_steps_linear_in_the_path(pattern, monkeypatch):
    steps = 0
    real = globs._Automaton._step

    def counting(self, states, c):
        nonlocal steps
        steps += 1
        return real(self, states, c)

    monkeypatch.setattr(globs._Automaton, "_step", counting)
    compiled = compile_pattern(pattern)
    assert compiled is not None
    for path in ("/".join(["a"] * 3000) + "/y", "a" * 4000, "a/" * 1500 + "a" * 255):
        assert compiled.match(path) is False
    # Each (states, character) step is worked out once, then looked up: at most one
    # per character of the paths read (11,255 here), far fewer in practice.
    assert steps <= 11_255


def test_a_folder_verdict_is_decided_once_for_all_its_files(tmp_path, monkeypatch):
    decided: list[str] = []
    path_filter = PathFilter(["vendor/"], str(tmp_path))
    real = path_filter._decide

    def recording(rel: str, is_dir: bool) -> bool:
        decided.append(rel)
        return real(rel, is_dir)

    monkeypatch.setattr(path_filter, "_decide", recording)
    for i in range(50):
        assert not path_filter.excluded(str(tmp_path / "a" / "b" / f"f{i}.yaml"))
    assert path_filter.excluded(str(tmp_path / "a" / "vendor" / "x.yaml"))
    assert decided.count("a") == 1 and decided.count("a/b") == 1


def test_hostile_excludes_from_the_config_file_on_a_deep_tree(tmp_path, monkeypatch):
    deep = tmp_path.joinpath(*(["d"] * 60))
    deep.mkdir(parents=True)
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
    )
    (deep / ("a" * 200 + ".yaml")).write_text(pod)
    (deep / "x").mkdir()
    (deep / "x" / "skip.yaml").write_text(pod)
    (tmp_path / ".gpulint.yaml").write_text("exclude:\n" + "".join(f"  - {p!r}\n" for p in HOSTILE))
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--select", "GPU101", "--format", "json", ".")
    paths = {f["path"] for f in json.loads(result.stdout)["findings"]}
    assert paths == {"/".join(["d"] * 60) + "/" + "a" * 200 + ".yaml"}


def test_an_invalid_set_is_a_located_config_error(tmp_path, monkeypatch):
    (tmp_path / ".gpulint.yaml").write_text("exclude:\n  - ok/\n  - '[z-a]'\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        ".gpulint.yaml:3:5: error [config] exclude.1: invalid pattern: invalid set '[z-a]'"
    )


def test_an_invalid_set_on_the_command_line_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--exclude", "[z-a]", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("gpulint: --exclude: invalid set '[z-a]'")


def test_exemption_and_custom_rule_globs_stay_linear(tmp_path, monkeypatch):
    """Shell-style globs (exemptions' names, custom rules' kinds and namespaces) go through
    fnmatch, whose translation cannot backtrack between stars (atomic groups)."""
    hostile = "*a*a*a*a*a*a*a*a*a*a*a*a*b"
    (tmp_path / ".gpulint.yaml").write_text(
        "exemptions:\n"
        f"  - {{names: ['{hostile}'], namespaces: ['{hostile}'], reason: r}}\n"
        "custom-rules:\n"
        "  - {code: TEAM001, name: t, message: m, target: Pod,\n"
        f"     match: {{kinds: ['{hostile}']}}, schema: {{}}}}\n"
    )
    name = "a" * 20_000
    (tmp_path / "pod.yaml").write_text(
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {name}\n"
        "spec:\n  containers:\n    - name: c\n      image: nvcr.io/nvidia/cuda:12.4.1-base\n"
        "      resources:\n        requests:\n          nvidia.com/gpu: 1\n"
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--select", "GPU101", "--format", "json", "pod.yaml")
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["GPU101"]
