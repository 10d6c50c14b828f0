"""Regular expressions from a config file, searched in time linear in the text.

A custom rule's JSON Schema comes from ``.gpulint.yaml``, which gpulint finds in the
tree it lints: a stranger's repository may hold it. Python's ``re`` backtracks, so a
``pattern`` such as ``^(a+)+$`` runs for minutes on a 40-character name, and even
``a*b`` is quadratic in a long string. A time limit would not bound it: ``re``
checks for signals only every 4,096 steps of one match attempt (on Python 3.10 the
count restarts at each start position of a search), so one search of a long string
runs for minutes between checks, and signals reach only the main thread.

So a config pattern is never run by ``re``. It is parsed by ``re``'s own parser (the
same syntax and errors), built into a Thompson automaton, and searched as a set of
states, one character at a time, with the sets' steps kept as a lazily built DFA:
each character costs one lookup once the pattern's few state sets are known. What
cannot be searched without backtracking (backreferences, lookarounds, conditionals,
atomic groups, possessive repeats) is refused when the config is read, with the
reason. What decides one character (a literal under ``(?i)``, a set, ``\\w``) is
asked of ``re`` itself, one character at a time, so the answers are ``re``'s.

Building DFA steps is the one cost that is not a lookup: each pattern has a budget
of it (:data:`BUDGET` automaton states visited over the process), so a pattern whose
steps never repeat (``(a|b)*a(a|b){40}``) ends in :class:`PatternTooCostly`, which
the caller reports at the pattern, instead of running on.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

if sys.version_info >= (3, 11):  # re's parser, where each version keeps it
    from re import _constants as sre
    from re import _parser as sre_parse
else:
    import sre_constants as sre
    import sre_parse

BUDGET = 4_000_000  # automaton states visited building steps, per pattern, per process
MAX_STATES = 20_000  # a larger automaton (a{1000}{1000}) is refused when read
_CACHE = 50_000  # cached steps per pattern before the cache starts again

_I, _M, _S, _A = (
    sre.SRE_FLAG_IGNORECASE,
    sre.SRE_FLAG_MULTILINE,
    sre.SRE_FLAG_DOTALL,
    sre.SRE_FLAG_ASCII,
)
_CATEGORIES = {
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
}
_REFUSED = {
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ASSERT": "a lookahead or lookbehind",
    "ASSERT_NOT": "a negative lookahead or lookbehind",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
}
# Zero-width assertions, by what decides them at a position.
_START, _LINE_START, _END, _DOLLAR, _LINE_END, _WORD_EDGE, _NOT_WORD_EDGE = range(7)


class UnsupportedPattern(ValueError):
    """A pattern that cannot be searched without backtracking, or not read at all."""


class PatternTooCostly(RuntimeError):
    """A pattern that spent its budget (:data:`BUDGET`)."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern


# An automaton state: (kind, detail, next states). Kinds: a character test, a split
# (several next states), an assertion (a zero-width test), the match.
_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)


class _Builder:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.kinds: list[int] = []
        self.details: list[Any] = []
        self.outs: list[list[int]] = []
        self.tests: dict[str, Callable[[str], bool]] = {}
        self.used_assertions = 0  # bit set of the assertion kinds used

    def state(self, kind: int, detail: Any, outs: list[int]) -> int:
        if len(self.kinds) >= MAX_STATES:
            raise UnsupportedPattern(
                f"the pattern is too large to search in linear time (over {MAX_STATES} states)"
            )
        self.kinds.append(kind)
        self.details.append(detail)
        self.outs.append(outs)
        return len(self.kinds) - 1

    def sequence(self, items: Any, flags: int, after: int) -> int:
        for op, av in reversed(list(items)):
            after = self.item(op, av, flags, after)
        return after

    def item(self, op: Any, av: Any, flags: int, after: int) -> int:
        name = str(op)
        if name in _REFUSED:
            raise UnsupportedPattern(
                f"{_REFUSED[name]} cannot be searched without backtracking; "
                "gpulint runs config patterns in linear time (JSON Schema's 'not' can "
                "often say what a lookahead says)"
            )
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            return self.state(_CHAR, self.test(name, av, flags), [after])
        if name == "AT":
            return self.state(_ASSERT, self.assertion(str(av), flags), [after])
        if name == "SUBPATTERN":
            _group, add, remove, items = av
            return self.sequence(items, (flags | add) & ~remove, after)
        if name == "BRANCH":
            return self.state(_SPLIT, None, [self.sequence(b, flags, after) for b in av[1]])
        if name in ("MAX_REPEAT", "MIN_REPEAT"):  # greedy or lazy: the same for a search
            low, high, items = av
            return self.repeat(low, high, items, flags, after)
        raise UnsupportedPattern(f"{name.lower()} is not supported in a config pattern")

    def repeat(self, low: int, high: int, items: Any, flags: int, after: int) -> int:
        if high == sre.MAXREPEAT:
            loop = self.state(_SPLIT, None, [])
            self.outs[loop] += [self.sequence(items, flags, loop), after]
            current = loop
        else:
            current = after
            for _ in range(high - low):
                current = self.state(_SPLIT, None, [self.sequence(items, flags, current), after])
        for _ in range(low):
            current = self.sequence(items, flags, current)
        return current

    def test(self, name: str, av: Any, flags: int) -> Callable[[str], bool]:
        """One character's test, as ``re`` decides it (case folding, Unicode classes)."""
        if name == "LITERAL":
            body = re.escape(chr(av))
        elif name == "NOT_LITERAL":
            body = f"[^{re.escape(chr(av))}]"
        elif name == "ANY":
            body = "."
        else:
            parts: list[str] = []
            for op, value in av:
                kind = str(op)
                if kind == "NEGATE":
                    parts.insert(0, "^")
                elif kind == "LITERAL":
                    parts.append(re.escape(chr(value)))
                elif kind == "RANGE":
                    parts.append(f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}")
                elif kind == "CATEGORY":
                    parts.append(_CATEGORIES[value])
                else:
                    raise UnsupportedPattern(f"{kind.lower()} in a set is not supported")
            body = f"[{''.join(parts)}]"
        letters = "".join(c for f, c in ((_I, "i"), (_S, "s"), (_A, "a")) if flags & f)
        text = f"(?{letters}:{body})" if letters else body
        found = self.tests.get(text)
        if found is None:
            match = re.compile(text).match  # one character: nothing to backtrack
            found = self.tests[text] = lambda c: match(c) is not None
        return found

    def assertion(self, code: str, flags: int) -> tuple[int, bool]:
        ascii_words = bool(flags & _A)
        kind = {
            "AT_BEGINNING": _LINE_START if flags & _M else _START,
            "AT_BEGINNING_STRING": _START,
            "AT_END": _LINE_END if flags & _M else _DOLLAR,
            "AT_END_STRING": _END,
            "AT_BOUNDARY": _WORD_EDGE,
            "AT_NON_BOUNDARY": _NOT_WORD_EDGE,
        }.get(code)
        if kind is None:
            raise UnsupportedPattern(f"{code.lower()} is not supported in a config pattern")
        self.used_assertions |= 1 << kind
        return kind, ascii_words


def _members(states: int) -> list[int]:
    found = []
    while states:
        low = states & -states
        found.append(low.bit_length() - 1)
        states ^= low
    return found


_WORD = re.compile(r"\w").match
_ASCII_WORD = re.compile(r"(?a:\w)").match


def _holds(kind: int, ascii_words: bool, text: str, pos: int) -> bool:
    n = len(text)
    if kind == _START:
        return pos == 0
    if kind == _LINE_START:
        return pos == 0 or text[pos - 1] == "\n"
    if kind == _END:
        return pos == n
    if kind == _DOLLAR:
        return pos == n or (pos == n - 1 and text[pos] == "\n")
    if kind == _LINE_END:
        return pos == n or text[pos] == "\n"
    if n == 0:
        return False  # re: \b and \B never match an empty string
    word = _ASCII_WORD if ascii_words else _WORD
    before = pos > 0 and word(text[pos - 1]) is not None
    after = pos < n and word(text[pos]) is not None
    return (before != after) if kind == _WORD_EDGE else (before == after)


class LinearPattern:
    """A compiled config pattern: :meth:`search` says whether it matches anywhere."""

    def __init__(self, pattern: str) -> None:
        try:
            parsed = sre_parse.parse(pattern, 0)
        except re.error as exc:
            raise UnsupportedPattern(f"not a regular expression: {exc}") from None
        state = parsed.state
        builder = _Builder(pattern)
        match = builder.state(_MATCH, None, [])
        self.start = builder.sequence(parsed, state.flags, match)
        self.pattern = pattern
        self.kinds, self.details, self.outs = builder.kinds, builder.details, builder.outs
        self.assertions = builder.used_assertions
        self._used = [k for k in range(7) if self.assertions >> k & 1]
        # ^, $, \A, \Z alone hold nowhere but at the ends: the middle needs no context
        self._ends_only = (
            not self._used or max(self._used) <= _DOLLAR and _LINE_START not in self._used
        )
        self.match_bit = 1 << match
        self.spent = 0
        self._closures: dict[tuple[int, int], int] = {}
        self._steps: dict[tuple[int, str], int] = {}

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text`` (as ``re.search``)."""
        start = 1 << self.start
        states = 0
        closures, steps = self._closures, self._steps
        last = len(text)
        ends_only = self._ends_only
        for pos in range(last + 1):
            if ends_only and 0 < pos < last - 1:
                context = 0
            else:
                context = self._context(text, pos) if self.assertions else 0
            key = (states | start, context)
            current = closures.get(key)
            if current is None:
                current = self._closure(key[0], context)
            if current & self.match_bit:
                return True
            if pos == last:
                return False
            char = text[pos]
            states = steps.get((current, char), -1)
            if states == -1:
                states = self._step(current, char)
        return False

    def _context(self, text: str, pos: int) -> int:
        """Which assertions hold at ``pos``: two bits a kind (Unicode and ASCII words)."""
        found = 0
        for kind in self._used:
            if kind < _WORD_EDGE:
                if _holds(kind, False, text, pos):
                    found |= 3 << (kind * 2)
            else:
                for ascii_words in (False, True):
                    if _holds(kind, ascii_words, text, pos):
                        found |= 1 << (kind * 2 + ascii_words)
        return found

    def _charge(self, work: int) -> None:
        self.spent += work
        if self.spent > BUDGET:
            raise PatternTooCostly(self.pattern)

    def _closure(self, states: int, context: int) -> int:
        """The states reachable from ``states`` without reading a character, where
        ``context`` says which assertions hold."""
        seen = 0
        stack = list(_members(states))
        kinds, details, outs = self.kinds, self.details, self.outs
        visited = 0
        while stack:
            i = stack.pop()
            if seen >> i & 1:
                continue
            seen |= 1 << i
            visited += 1
            kind = kinds[i]
            if kind == _SPLIT:
                stack.extend(outs[i])
            elif kind == _ASSERT:
                assertion, ascii_words = details[i]
                if context >> (assertion * 2 + ascii_words) & 1:
                    stack.extend(outs[i])
        self._charge(visited)
        if len(self._closures) >= _CACHE:
            self._closures.clear()
        self._closures[(states, context)] = seen
        return seen

    def _step(self, current: int, char: str) -> int:
        """The states after reading ``char`` from ``current``."""
        moved = 0
        visited = 0
        kinds, details, outs = self.kinds, self.details, self.outs
        for i in _members(current):
            if kinds[i] == _CHAR:
                visited += 1
                if details[i](char):
                    moved |= 1 << outs[i][0]
        self._charge(visited + 1)
        if len(self._steps) >= _CACHE:
            self._steps.clear()
        self._steps[(current, char)] = moved
        return moved
