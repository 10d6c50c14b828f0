"""The judged table: one row per finding, keyed by (repo, path, line, column, code)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HEADER = ("repo", "path", "line", "column", "code", "verdict", "reason")
VERDICTS = ("real", "wrong", "unactionable")
UNJUDGED = "?"

Key = tuple[str, str, int, int, str]


@dataclass(frozen=True)
class Row:
    key: Key
    verdict: str
    reason: str


class TableError(Exception):
    pass


def read_table(path: Path) -> dict[Key, Row]:
    if not path.exists():
        return {}
    rows: dict[Key, Row] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise TableError(f"{path}:1: the header must be: {chr(9).join(HEADER)}")
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        cells = text.split("\t")
        if len(cells) != len(HEADER):
            raise TableError(
                f"{path}:{number}: {len(cells)} tab-separated cells, expected {len(HEADER)}"
            )
        repo, file, line, column, code, verdict, reason = cells
        if verdict not in (*VERDICTS, UNJUDGED):
            raise TableError(
                f"{path}:{number}: verdict {verdict!r} is not one of {', '.join(VERDICTS)} or ?"
            )
        if not line.isdigit() or not column.isdigit():
            raise TableError(
                f"{path}:{number}: line and column must be numbers, got {line!r} and {column!r}"
            )
        key: Key = (repo, file, int(line), int(column), code)
        if key in rows:
            raise TableError(f"{path}:{number}: a second row for {format_key(key)}")
        if verdict != UNJUDGED and not reason.strip():
            raise TableError(f"{path}:{number}: a verdict needs its one-line reason")
        rows[key] = Row(key=key, verdict=verdict, reason=reason.strip())
    return rows


def write_table(path: Path, rows: dict[Key, Row]) -> None:
    out = ["\t".join(HEADER)]
    for key in sorted(rows):
        row = rows[key]
        repo, file, line, column, code = key
        reason = " ".join(row.reason.replace("\t", " ").split())
        out.append("\t".join((repo, file, str(line), str(column), code, row.verdict, reason)))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def format_key(key: Key) -> str:
    repo, file, line, column, code = key
    return f"{repo}/{file}:{line}:{column} {code}"
