"""Which rules can decide anything in this run, judged from the raw bytes (a part of the
preparation pass, ``prepare.py``).

Some cross-file rules need a partner object somewhere in the run: GPU210 and GPU211
weigh pod templates against Nodes, and without a Node they never report. Their
facts (requirements and places to report for every GPU pod) are a large share of
the work and memory of a big run, so a rule may name its partner (``Rule.partner``,
gpulint/rules/triggers.py), and its collectors run only when some input may hold one.
The test errs one way only: an input that cannot be read here as bytes (standard input,
a chart or kustomization that renders later, UTF-16 or UTF-32 text) counts as a match.

The same test, with a rule's ``reads`` trigger, says which rules cannot report at all
in this run (a Pod manifest holds no containerd config): the engine then leaves a
built-in one's module unimported (start-up).
"""

from __future__ import annotations

import binascii
import codecs
from collections.abc import Iterable, Sequence

from gpulint.core.findings import InputError
from gpulint.core.record import record
from gpulint.core.sources import read_bytes
from gpulint.inputs.discover import Target
from gpulint.rules.registry import Rule
from gpulint.rules.triggers import Trigger, TriggerSet

_WIDE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # also the start of UTF-32's


@record(frozen=True)
class SeenText:
    """The triggers a plain file's bytes hold, found by the preparation pass, so that the
    lint pass need not search the same text again (``engine/dispatch.py``). ``size`` and
    ``crc`` name the bytes searched: text that differs (a buffer not yet saved, a file
    changed since, text decoded from UTF-16 or with its line ends normalised) is searched
    anew."""

    size: int
    crc: int
    triggers: tuple[Trigger, ...]  # every trigger searched for (one tuple for every file)
    held: frozenset[int]  # the indexes in ``triggers`` of those the bytes hold

    def describes(self, data: bytes) -> bool:
        return len(data) == self.size and binascii.crc32(data) == self.crc


class RuleTriggers:
    """Which rules the inputs seen so far can concern, fed one input at a time.

    ``unpaired``: the rules whose ``collect_when`` pattern no input matches (their
    collectors need not run); ``inapplicable``: those whose ``inputs`` pattern none
    matches (they cannot report: a built-in one's module is never imported). An input
    that cannot be read as bytes here (``None``) rules nothing out."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        waiting: dict[tuple[str, str], Trigger] = {}
        for rule in rules:
            if rule.partner is not None:
                waiting["unpaired", rule.code] = rule.partner
            reads = rule.reads_trigger()
            if reads is not None:
                waiting["inapplicable", rule.code] = reads
        # Each distinct trigger is tested once an input, and no more once an input matched it.
        self._set = TriggerSet(waiting.values())
        self._waiting = {key: self._set.index(trigger) for key, trigger in waiting.items()}
        self._pending = set(self._waiting.values())
        # path -> what its bytes hold (``see``); each distinct set of triggers kept once
        self.seen: dict[str, SeenText] = {}
        self._sets: dict[frozenset[int], frozenset[int]] = {}

    def see(self, data: bytes | None, path: str | None = None) -> None:
        """Feed one input's bytes; with its ``path`` (a plain file the lint pass reads
        again), every trigger is searched and what it holds kept in :attr:`seen`."""
        if data is None:
            self._pending.clear()  # cannot tell: every rule may have something to read
            return
        if path is None:
            if self._pending:
                self._pending -= self._set.matching(data, sorted(self._pending))
            return
        held = frozenset(self._set.matching(data))
        self._pending -= held
        held = self._sets.setdefault(held, held)
        triggers = self._set.triggers
        self.seen[path] = SeenText(len(data), binascii.crc32(data), triggers, held)

    @property
    def done(self) -> bool:
        """Every rule is matched already: nothing more to search."""
        return not self._pending

    def _still(self, wanted: str) -> frozenset[str]:
        pending = self._pending
        return frozenset(
            code for (kind, code), i in self._waiting.items() if kind == wanted and i in pending
        )

    def unpaired(self) -> frozenset[str]:
        return self._still("unpaired")

    def inapplicable(self) -> frozenset[str]:
        return self._still("inapplicable")


def unpaired_rules(rules: Iterable[Rule], targets: Sequence[Target]) -> frozenset[str]:
    """Codes of the rules whose ``collect_when`` pattern no input of the run matches."""
    triggers = RuleTriggers(rules)
    for target in targets:
        triggers.see(readable_bytes(target))
    return triggers.unpaired()


def readable_bytes(target: Target) -> bytes | None:
    """A file's bytes as a byte pattern can read them: None when it cannot tell (not a
    plain file, or UTF-16/32 text), empty when the file cannot be read (linting says why)."""
    if target.kind != "file":
        return None
    data = read_bytes(target.path)  # regular files only, size-capped
    if isinstance(data, InputError):
        return b""  # the linting pass reports the file; nothing in it can match
    if data.startswith(_WIDE_BOMS):
        return None
    return data
