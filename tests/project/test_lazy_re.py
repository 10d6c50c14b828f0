"""``gpulint.core.lazy_re.lazy``: the same answers as ``re.compile``, compiled only when used."""

from __future__ import annotations

import re
import subprocess
import sys

from gpulint.core.lazy_re import lazy


def test_a_lazy_pattern_answers_as_the_compiled_one():
    source, flags = r"(?P<n>[a-z]+)-(\d+)", re.I
    made, plain = lazy(source, flags), re.compile(source, flags)
    for text in ("gpu-1 MIG-7", "none", "x-2"):
        assert bool(made.search(text)) == bool(plain.search(text))
        assert [m.group("n") for m in made.finditer(text)] == [
            m.group("n") for m in plain.finditer(text)
        ]
        assert made.findall(text) == plain.findall(text)
        assert made.split(text) == plain.split(text)
        assert made.sub("_", text) == plain.sub("_", text)
        assert (made.match(text) is None) == (plain.match(text) is None)
        assert (made.fullmatch(text) is None) == (plain.fullmatch(text) is None)
    assert made.search("a-1 b-2", 3).group(0) == "b-2"
    assert made.pattern == source and made.compiled is made.compiled


def test_a_lazy_pattern_is_not_compiled_until_used():
    made = lazy(r"[")  # invalid: compiling it would raise
    assert made.pattern == "["
    try:
        made.search("x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern compiles on first use, and raises there")


def test_importing_the_model_compiles_none_of_its_lazy_patterns():
    code = (
        "import re, gpulint.model.values.placeholders as p, gpulint.inputs.project_scan as i\n"
        "print(p._ANY._compiled, i._SECTION._compiled)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["None", "None"]


def test_a_pattern_of_literals_is_decided_by_substrings_without_compiling():
    from gpulint.core.lazy_re import occurs

    cases = [
        (rb"io\.containerd\.|SET_AS_DEFAULT", b'[plugins."io.containerd.grpc"]', True),
        (rb"io\.containerd\.|SET_AS_DEFAULT", b"io-containerd", False),  # \. is a dot
        (rb"(?i)shar", b"nvidia.com/gpu.SHARED", True),
        (rb"(?i)shar", b"nvidia.com/gpu", False),
        (rb"\$", b"value: ${X}", True),
    ]
    for source, data, expected in cases:
        made = lazy(source)
        assert occurs(made, data) is expected, source
        assert made._compiled is None  # decided without re
        assert occurs(re.compile(source), data) is expected  # what re says


def test_a_real_regular_expression_is_compiled_and_searched():
    from gpulint.core.lazy_re import occurs

    word = lazy(rb"RuntimeClass\b")
    assert occurs(word, b"kind: RuntimeClass\n") and not occurs(word, b"runtimeClassName")
    assert word._compiled is not None
    assert occurs(lazy(rb"kind:\s*Node"), b"kind:   Node")
