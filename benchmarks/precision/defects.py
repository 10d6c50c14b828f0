"""The labelled defects (recall): real GPU defects a person found by reading the corpus.

`defects.tsv` holds one row per defect: where it is, the rule code that should report it
(`-` when no rule covers it yet), a description and the evidence. A defect is *found* when
gpulint reports an error or warning of that code in that file within the same object (the
YAML document, between `---` separators, that holds the defect's line): rules anchor a
finding on different lines of one object (the container, its resources, the pod spec), so
the object, not the line, is the unit. A finding of that code in that object that is only a
note counts as *note only*: advice nobody is made to read is not a found defect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from judged import TableError

HEADER = ("repo", "path", "line", "code", "description", "evidence")
NO_RULE = "-"
FOUND, NOTE_ONLY, MISSED = "found", "note only", "missed"
CODE = re.compile(r"^GPU\d{3}$")
# A YAML document starts after a `---` line (a directive end marker, maybe with a comment).
SEPARATOR = re.compile(r"^---(\s|$)")

Hit = tuple[str, str, int, str]  # repo, path, line, code


@dataclass(frozen=True)
class Defect:
    repo: str
    path: str
    line: int
    code: str
    description: str
    evidence: str
    span: tuple[int, int]  # first and last line of the object (YAML document) holding it

    def where(self) -> str:
        return f"{self.repo}/{self.path}:{self.line} {self.code}"


def document_span(text: str, line: int) -> tuple[int, int]:
    """First and last line (1-based) of the YAML document of ``text`` that holds ``line``."""
    start, end = 1, 0
    for number, content in enumerate(text.splitlines(), start=1):
        end = number
        if SEPARATOR.match(content):
            if number > line:
                return (start, number - 1)
            start = number + 1
    return (start, max(end, start))


def read_defects(path: Path, corpus: Path) -> list[Defect]:
    """The defects table; each row's file must exist in the corpus and hold its line."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise TableError(f"{path}:1: the header must be: {chr(9).join(HEADER)}")
    found: list[Defect] = []
    seen: set[tuple[str, str, int, str]] = set()
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        cells = text.split("\t")
        if len(cells) != len(HEADER):
            raise TableError(
                f"{path}:{number}: {len(cells)} tab-separated cells, expected {len(HEADER)}"
            )
        repo, file, line, code, description, evidence = (c.strip() for c in cells)
        if not line.isdigit() or int(line) < 1:
            raise TableError(f"{path}:{number}: line must be a positive number, got {line!r}")
        if code != NO_RULE and not CODE.match(code):
            raise TableError(f"{path}:{number}: code {code!r} is not GPUnnn or {NO_RULE}")
        if not description or not evidence:
            raise TableError(f"{path}:{number}: a defect needs a description and its evidence")
        source = corpus / repo / file
        if not source.is_file():
            raise TableError(f"{path}:{number}: no file {repo}/{file} in {corpus}")
        text_of_file = source.read_text(encoding="utf-8", errors="replace")
        if int(line) > len(text_of_file.splitlines()):
            raise TableError(f"{path}:{number}: {repo}/{file} has no line {line}")
        key = (repo, file, int(line), code)
        if key in seen:
            raise TableError(f"{path}:{number}: a second row for {repo}/{file}:{line} {code}")
        seen.add(key)
        found.append(
            Defect(
                repo=repo,
                path=file,
                line=int(line),
                code=code,
                description=description,
                evidence=evidence,
                span=document_span(text_of_file, int(line)),
            )
        )
    return found


def status(defect: Defect, reported: set[Hit], as_notes: set[Hit]) -> str:
    """found, note only or missed: a finding of the defect's code in the defect's object."""

    def hit(hits: set[Hit]) -> bool:
        first, last = defect.span
        return any(
            (repo, path, code) == (defect.repo, defect.path, defect.code) and first <= line <= last
            for repo, path, line, code in hits
        )

    if defect.code != NO_RULE and hit(reported):
        return FOUND
    if defect.code != NO_RULE and hit(as_notes):
        return NOTE_ONLY
    return MISSED
