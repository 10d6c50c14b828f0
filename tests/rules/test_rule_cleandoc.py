"""``gpulint.rules.rule.cleandoc`` gives what ``inspect.cleandoc`` gives (Rule.doc)."""

from __future__ import annotations

import inspect
import sys

import pytest

from gpulint.rules.registry import builtin_rules
from gpulint.rules.rule import cleandoc

CASES = [
    "",
    "One line.",
    "  Leading spaces on the first line.\nSecond line\n",
    "\n\nTitle\n\n## Section\n\n    indented: yaml\n  \n\t tab\n\n\n",
    "Title\n   \n## Trailing spaces-only lines stay\n   ",
    "Summary.\n\n    Indented body (a class docstring).\n      deeper\n    ",
    "Summary.\n\tTabbed body\n\t\tmore",
    "Title\n\u00a0non-breaking space first\nplain\n",
    "Title\n\u2003em space\n\x1cfile separator\nplain",
    "Title\r\nwindows line\r\nend\r\n",
    "\n\n\n",
    "x\n\n\ny\n",
]


@pytest.mark.parametrize("doc", CASES)
def test_the_same_as_inspect(doc: str) -> None:
    assert cleandoc(doc) == inspect.cleandoc(doc)


def test_every_built_in_rule_document_is_the_same_as_inspect() -> None:
    for rule in builtin_rules():
        raw = sys.modules[f"gpulint.rules.builtin.{_module_of(rule.code)}"].__doc__ or ""
        assert rule.doc == inspect.cleandoc(raw), rule.code


def _module_of(code: str) -> str:
    prefix = code.lower()
    return next(
        name.rsplit(".", 1)[1]
        for name in sys.modules
        if name.startswith("gpulint.rules.builtin.") and name.rsplit(".", 1)[1].startswith(prefix)
    )
