"""gitignore-style path patterns, for the ``exclude`` setting.

Same rules as ``.gitignore``: a pattern without a slash (other than a trailing
one) matches a name at any depth; a leading ``/`` or a slash inside anchors it to
the base folder; a trailing ``/`` matches folders only; ``*`` and ``?`` stay in
one path segment, ``**`` crosses segments; ``!`` re-includes; the last matching
pattern wins. A file inside an excluded folder is excluded.
"""

from __future__ import annotations

import os
import re

from gpulint.record import record


@record(frozen=True)
class _Pattern:
    """One gitignore-style line, compiled."""

    regex: re.Pattern
    negate: bool
    dir_only: bool


def _translate(glob: str) -> str:
    out, i = [], 0
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
        elif c == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_pattern(text: str) -> _Pattern | None:
    line = text.strip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    body = _translate(line)
    regex = body if anchored else f"(?:.*/)?{body}"
    return _Pattern(re.compile(f"^{regex}$"), negate, dir_only)


class PathFilter:
    """Decides whether a path is excluded; patterns are relative to ``base``."""

    def __init__(self, patterns: list[str] | tuple[str, ...], base: str) -> None:
        self.base = os.path.abspath(base)
        self._patterns = [p for p in map(compile_pattern, patterns) if p is not None]

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def excluded(self, path: str) -> bool:
        rel = os.path.relpath(os.path.abspath(path), self.base).replace(os.sep, "/")
        if rel.startswith("../") or rel == "..":
            return False  # outside the configured tree: the patterns do not speak for it
        parts = rel.split("/")
        # A folder excluded excludes what is inside it (git does not descend).
        for depth in range(1, len(parts)):
            if self._decide("/".join(parts[:depth]), is_dir=True):
                return True
        return self._decide(rel, is_dir=os.path.isdir(path))

    def _decide(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for pattern in self._patterns:
            if pattern.dir_only and not is_dir:
                continue
            if pattern.regex.match(rel):
                verdict = not pattern.negate
        return verdict
