"""Every rule's documentation has the fixed shape, and its examples run.

The failing example must produce the rule's findings exactly on the lines
marked ``# <- CODE``; the passing example must produce none of that rule.
"""

from __future__ import annotations

import pytest

from gpulint.rules.registry import EXPECT_MARK, SECTIONS
from tests.helpers import RULES, example_name, lint


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_documentation_has_every_section(rule):
    sections = rule.sections()
    assert list(sections) == list(SECTIONS), f"{rule.code} sections: {list(sections)}"
    assert all(sections.values())
    failing, passing = rule.examples()
    assert failing.strip() and passing.strip()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_failing_example_fires_on_marked_lines(rule, tmp_path):
    failing, _ = rule.examples()
    expected = sorted(
        i + 1
        for i, line in enumerate(failing.splitlines())
        for code in EXPECT_MARK.findall(line)
        if code == rule.code
    )
    assert expected, f"{rule.code}: mark the reported lines with '# <- {rule.code}'"
    found = lint(tmp_path, failing, "--select", rule.code, name=example_name(rule))
    assert sorted(f["line"] for f in found if f["code"] == rule.code) == expected


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_passing_example_is_clean(rule, tmp_path):
    _, passing = rule.examples()
    found = lint(tmp_path, passing, "--select", rule.code, name=example_name(rule))
    assert [f for f in found if f["code"] == rule.code] == []
