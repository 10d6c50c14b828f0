"""Config patterns searched in linear time: re's answers, without re's backtracking."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpulint.validate import linear_re
from gpulint.validate.linear_re import LinearPattern, PatternTooCostly, UnsupportedPattern

ATOMS = [
    "a", "b", "A", ".", "[ab]", "[^a]", r"\d", r"\w", r"\W", r"\s", "[a-c]", "é", "1",
    "(?i:a)", "(?s:.)", "(?a:\\w)", "\n",
]  # fmt: skip
ANCHORS = ["^", "$", r"\A", r"\Z", r"\b", r"\B", "(?m:^)", "(?m:$)"]
QUANTIFIERS = ["", "", "*", "+", "?", "{1,2}", "{2}", "*?", "+?"]


@st.composite
def patterns(draw, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 9))
        if kind == 0 and depth < 2:
            parts.append(f"({draw(patterns(depth + 1))}){draw(st.sampled_from(QUANTIFIERS))}")
        elif kind == 1 and depth < 2:
            left, right = draw(patterns(depth + 1)), draw(patterns(depth + 1))
            parts.append(f"(?:{left}|{right}){draw(st.sampled_from(QUANTIFIERS))}")
        elif kind == 2:
            parts.append(draw(st.sampled_from(ANCHORS)))
        else:
            parts.append(draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)))
    flags = draw(st.sampled_from(["", "", "(?i)", "(?m)", "(?s)", "(?a)"]))
    return flags + "".join(parts)


@given(patterns(), st.lists(st.text(alphabet="abA1 \né_-", max_size=6), max_size=6))
def test_answers_are_res_answers(pattern, texts):
    try:
        expected = re.compile(pattern)
    except re.error:
        with pytest.raises(UnsupportedPattern):
            LinearPattern(pattern)
        return
    compiled = LinearPattern(pattern)
    for text in texts:
        assert compiled.search(text) == (expected.search(text) is not None), (pattern, text)


@pytest.mark.parametrize(
    "pattern, text, found",
    [
        ("^(a+)+$", "a" * 40 + "!", False),
        ("^(a+)+$", "a" * 40, True),
        ("(a|aa)*c", "a" * 5000, False),
        ("a*b", "a" * 100_000, False),
        (r"^(\w+\s?)*$", "word " * 2000 + "!", False),
        ("$", "x\n", True),
        ("x$", "x\n", True),
        (r"x\Z", "x\n", False),
        ("(?m)^b", "a\nb", True),
        (r"\bcat\b", "concat", False),
        (r"\B", "", False),
        ("(?i)STRASSE", "strasse", True),
        ("^[a-z][a-z0-9-]*$", "ml-team-1", True),
    ],
)
def test_backtracking_cases_are_answered_at_once(pattern, text, found):
    compiled = LinearPattern(pattern)
    assert compiled.search(text) is found
    assert compiled.search(text) is found  # from the cached steps
    # The work of building steps is the pattern's few state sets, not the text's length.
    assert compiled.spent < 2_000


def test_a_longer_text_costs_lookups_not_new_steps():
    compiled = LinearPattern("^(a+)+$")
    compiled.search("a" * 1_000 + "!")
    spent = compiled.spent
    compiled.search("a" * 100_000 + "!")
    assert compiled.spent == spent


@pytest.mark.parametrize(
    "pattern, what",
    [
        (r"(a)\1", "a backreference"),
        ("(?=a)b", "a lookahead or lookbehind"),
        ("^(?!kube-system$)", "a negative lookahead or lookbehind"),
        ("(?<=a)b", "a lookahead or lookbehind"),
        ("(a)?(?(1)b|c)", "a conditional group"),
    ],
)
def test_what_needs_backtracking_is_refused_with_the_reason(pattern, what):
    with pytest.raises(UnsupportedPattern, match=f"^{what} cannot be searched"):
        LinearPattern(pattern)


def test_an_invalid_pattern_is_refused_with_res_message():
    with pytest.raises(UnsupportedPattern, match=r"^not a regular expression: missing \)"):
        LinearPattern("(a")


def test_a_pattern_too_large_for_linear_search_is_refused():
    with pytest.raises(UnsupportedPattern, match="too large to search in linear time"):
        LinearPattern("(a{1000}){1000}")


def test_a_pattern_whose_steps_never_repeat_spends_its_budget(monkeypatch):
    """(a|b)*a(a|b){30}: each new tail of the text is a new state set (2**30 of them)."""
    monkeypatch.setattr(linear_re, "BUDGET", 200_000)
    compiled = LinearPattern("(a|b)*a(a|b){30}c")
    rng = random.Random(1)
    text = "".join(rng.choice("ab") for _ in range(50_000))
    with pytest.raises(PatternTooCostly) as raised:
        compiled.search(text)
    assert raised.value.pattern == "(a|b)*a(a|b){30}c"
    assert linear_re.BUDGET < compiled.spent < linear_re.BUDGET + 1_000
