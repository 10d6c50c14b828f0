"""Questions about a whole source's text, answered once per source.

A rule or model function that looks at ``doc.source.text`` runs once per document,
and a file of many small documents would pay for a scan of the whole file each
time (quadratic in the documents: 200,000 documents, 200,000 scans of megabytes).
Here each question is asked of a source's text once and the answer is kept in the
source's ``meta``, which lives as long as the source does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gpulint.core.sources import Source

T = TypeVar("T")
_KEY = "text_answers"


def once(source: Source, question: Callable[[str], T]) -> T:
    """``question(source.text)``, computed once per source; ``question`` must be a
    module-level function (it is the key)."""
    answers = source.meta.get(_KEY)
    if answers is None:
        answers = source.meta[_KEY] = {}
    if question in answers:
        return answers[question]
    answer = answers[question] = question(source.text)
    return answer


def mentions(source: Source, needle: str) -> bool:
    """Whether ``needle`` occurs anywhere in the source's text (searched once per needle)."""
    answers = source.meta.get(_KEY)
    if answers is None:
        answers = source.meta[_KEY] = {}
    key = ("in", needle)
    found = answers.get(key)
    if found is None:
        found = answers[key] = needle in source.text
    return bool(found)
