"""gitignore-style path patterns, for the ``exclude`` setting.

Same rules as ``.gitignore``: a pattern without a slash (other than a trailing
one) matches a name at any depth; a leading ``/`` or a slash inside anchors it to
the base folder; a trailing ``/`` matches folders only; ``*`` and ``?`` stay in
one path segment, ``**`` crosses segments; ``!`` re-includes; the last matching
pattern wins. A file inside an excluded folder is excluded.

Patterns come from the config file of the tree being linted, so matching must
stay linear whatever they say. A pattern is read as a row of tokens (one
character; ``*``, any run of characters of one segment; ``**``, any run at all;
``**/``, any run of whole folders); each path is matched against them by a
set-of-states automaton (no backtracking: time is the path's length times the
pattern's), its steps kept per pattern as a lazily built DFA. Python's ``re``, a
backtracking engine, is used only for patterns that cannot backtrack more than
once per character: at most one run token (``vendor/``, ``/manifests/``), or a
pattern without a slash and without ``**`` with at most one ``*``, matched
against the last path segment alone (``*.yaml``).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable

from gpulint.core.record import record

# Token kinds: one character; a run (``*``: within a segment, ``**``: anything); ``**/``.
_CHAR, _RUN, _DIRS = "char", "run", "dirs"
_ANY_RUN = ".*"
_DFA_LIMIT = 4096  # cached steps per pattern before the cache starts again


class GlobError(ValueError):
    """A pattern that cannot be read (an invalid ``[...]`` set)."""


@record(frozen=True)
class _Token:
    """One piece of a pattern: a character, a run of them, or ``**/``."""

    kind: str
    test: Callable[[str], bool]  # the characters it (or its run) matches
    text: str  # the regular expression it stands for


_DIRS_TOKEN = _Token(_DIRS, lambda c: True, "(?:.*/)?")


def _tokens(glob: str) -> list[_Token]:
    """The pattern's tokens, in the regular expressions' terms of earlier releases."""
    out: list[_Token] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            token, i = _DIRS_TOKEN, i + 3
        elif glob.startswith("**", i):
            token, i = _Token(_RUN, _any, _ANY_RUN), i + 2
        elif c == "*":
            token, i = _Token(_RUN, _not_slash, "[^/]*"), i + 1
        elif c == "?":
            token, i = _Token(_CHAR, _not_slash, "[^/]"), i + 1
        elif c == "[" and glob.find("]", i + 1) != -1:
            end = glob.find("]", i + 1)
            body = glob[i + 1 : end].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            try:
                one = _compiled(f"[{body}]")  # one character: nothing to backtrack
            except re.error as exc:
                raise GlobError(f"invalid set {glob[i : end + 1]!r} ({exc})") from None
            token, i = _Token(_CHAR, _set_test(one), f"[{body}]"), end + 1
        elif c == "\\" and i + 1 < len(glob):
            token, i = _Token(_CHAR, glob[i + 1].__eq__, re.escape(glob[i + 1])), i + 2
        else:
            token, i = _Token(_CHAR, c.__eq__, re.escape(c)), i + 1
        out.append(token)
    return out


def _any(c: str) -> bool:
    return True


def _never(c: str) -> bool:
    return False


def _not_slash(c: str) -> bool:
    return c != "/"


def _set_test(one: re.Pattern) -> Callable[[str], bool]:
    return lambda c: one.fullmatch(c) is not None


def _collapsed(tokens: list[_Token]) -> list[_Token]:
    """Neighbouring runs that match what one of them matches, as that one: ``**/**/`` is
    ``**/``; ``**`` beside ``*``, ``**`` or ``**/`` is ``**`` (nested runs are what a
    backtracking engine would try in every combination)."""
    out: list[_Token] = []
    for token in tokens:
        last = out[-1] if out else None
        if last is not None and token.kind != _CHAR and last.kind != _CHAR:
            if last.kind == token.kind == _DIRS:
                continue
            if _ANY_RUN in (last.text, token.text):
                out[-1] = _Token(_RUN, _any, _ANY_RUN)
                continue
        out.append(token)
    return out


class _Automaton:
    """The tokens as states, stepped as a set (a bit per state), never backtracking.

    State i: token i is next; the last state: matched. ``**/`` takes three states: its
    entry (which may skip it whole), a run of anything, then a slash.
    """

    def __init__(self, tokens: list[_Token]) -> None:
        self.states: list[tuple[str, Callable[[str], bool]]] = []
        self.runs = self.skips = 0  # states that may match nothing: to the next; past ``**/``
        for token in tokens:
            bit = 1 << len(self.states)
            if token.kind == _DIRS:
                self.runs |= bit | bit << 1
                self.skips |= bit
                self.states += [(_DIRS, _never), (_RUN, _any), (_CHAR, "/".__eq__)]
            else:
                self.runs |= bit if token.kind == _RUN else 0
                self.states.append((token.kind, token.test))
        self.accept = 1 << len(self.states)
        self.start = self._closure(1)
        self._steps: dict[tuple[int, str], int] = {}

    def _closure(self, states: int) -> int:
        while True:
            grown = states | ((states & self.runs) << 1) | ((states & self.skips) << 3)
            if grown == states:
                return states
            states = grown

    def _step(self, states: int, c: str) -> int:
        moved = 0
        for i, (kind, test) in enumerate(self.states):
            bit = 1 << i
            if states & bit and test(c):
                moved |= bit << 1 if kind == _CHAR else bit
        return self._closure(moved)

    def fullmatch(self, text: str) -> bool:
        states, steps = self.start, self._steps
        for c in text:
            found = steps.get((states, c))
            if found is None:
                if len(steps) >= _DFA_LIMIT:
                    steps.clear()
                found = steps[(states, c)] = self._step(states, c)
            states = found
            if not states:
                return False
        return bool(states & self.accept)


@record(frozen=True)
class _Pattern:
    """One gitignore-style line, compiled."""

    match: Callable[[str], bool]  # the path relative to the base, with ``/``
    negate: bool
    dir_only: bool


def compile_pattern(text: str) -> _Pattern | None:
    """A pattern line, or None for a blank line or comment; raises :class:`GlobError`."""
    line = text.strip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    tokens = _tokens(line.lstrip("/"))
    if not anchored:
        tokens = [_DIRS_TOKEN, *tokens]  # at any depth
    return _Pattern(_matcher(_collapsed(tokens)), negate, dir_only)


def _regex(tokens: list[_Token]) -> Callable[[str], object]:
    return _compiled("".join(t.text for t in tokens) + r"\Z").match


def _compiled(text: str) -> re.Pattern:
    # A set such as ``[[a]`` is read as it always was; re's warning about nested sets
    # in some future Python says nothing to a gpulint user.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(text, re.DOTALL)


def _matcher(tokens: list[_Token]) -> Callable[[str], bool]:
    if sum(t.kind != _CHAR for t in tokens) <= 1:
        regex = _regex(tokens)  # one run: each character is tried once per start
        return lambda path: regex(path) is not None
    rest = tokens[1:]
    if (
        tokens[0].kind == _DIRS
        and sum(t.kind != _CHAR for t in rest) <= 1
        and all(t.kind != _CHAR or not t.test("/") for t in rest)
        and all(t.kind == _CHAR or t.test is _not_slash for t in rest)
    ):
        # Any folders, then what cannot hold a slash: the last segment alone decides.
        last = _regex(rest)
        return lambda path: last(path[path.rfind("/") + 1 :]) is not None
    return _Automaton(tokens).fullmatch


class PathFilter:
    """Decides whether a path is excluded; patterns are relative to ``base``."""

    def __init__(self, patterns: list[str] | tuple[str, ...], base: str) -> None:
        self.base = os.path.abspath(base)
        self._patterns = [p for p in map(compile_pattern, patterns) if p is not None]
        self._folders: dict[str, bool] = {}  # a folder's verdict, asked by each file in it

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def excluded(self, path: str) -> bool:
        rel = os.path.relpath(os.path.abspath(path), self.base).replace(os.sep, "/")
        if rel.startswith("../") or rel == "..":
            return False  # outside the configured tree: the patterns do not speak for it
        # A folder excluded excludes what is inside it (git does not descend).
        cut = rel.rfind("/")
        if cut != -1 and self._folder_excluded(rel[:cut]):
            return True
        return self._decide(rel, is_dir=os.path.isdir(path))

    def _folder_excluded(self, folder: str) -> bool:
        known = self._folders.get(folder)
        if known is None:
            cut = folder.rfind("/")
            known = (cut != -1 and self._folder_excluded(folder[:cut])) or self._decide(
                folder, is_dir=True
            )
            self._folders[folder] = known
        return known

    def _decide(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for pattern in self._patterns:
            if pattern.dir_only and not is_dir:
                continue
            if pattern.match(rel):
                verdict = not pattern.negate
        return verdict
