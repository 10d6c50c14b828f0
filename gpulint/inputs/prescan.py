"""Which rules can decide anything in this run, judged from the raw bytes.

Some cross-file rules need a partner object somewhere in the run: GPU210 and GPU211
weigh pod templates against Nodes, and without a Node they never report. Their
facts (requirements and places to report for every GPU pod) are a large share of
the work and memory of a big run, so a rule may name a pattern its partner cannot
be written without (``Rule.collect_when``), and its collectors run only when some
input matches. The test errs one way only: an input that cannot be read here as
bytes (standard input, a chart or kustomization that renders later, UTF-16 or
UTF-32 text) counts as a match.

The same test, with a rule's ``inputs`` pattern, says which rules cannot report at all
in this run (a Pod manifest holds no containerd config): the engine then leaves a
built-in one's module unimported (start-up).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

from gpulint.core.findings import InputError
from gpulint.core.lazy_re import LazyPattern, occurs
from gpulint.core.sources import read_bytes
from gpulint.inputs.discover import Target
from gpulint.rules.registry import Rule

K = TypeVar("K", bound=Hashable)
BytesPattern = re.Pattern[bytes] | LazyPattern[bytes]
_WIDE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # also the start of UTF-32's


def quiet_rules(rules: Iterable[Rule], targets: Sequence[Target]) -> tuple[frozenset, frozenset]:
    """(idle, absent): the codes of the rules whose ``collect_when`` pattern no input of
    the run matches (their collectors need not run), and of those whose ``inputs``
    pattern none matches (they cannot report: a built-in one's module need not even be
    imported, rules/pack_index.py). One read of the inputs for both."""
    patterns: dict[tuple[str, str], BytesPattern] = {}
    for rule in rules:
        if rule.collect_when is not None:
            patterns["idle", rule.code] = rule.collect_when
        inputs = rule.input_pattern()
        if inputs is not None:
            patterns["absent", rule.code] = inputs
    quiet = unmatched(patterns, targets)
    return tuple(
        frozenset(code for kind, code in quiet if kind == want) for want in ("idle", "absent")
    )  # type: ignore[return-value]


def idle_rules(rules: Iterable[Rule], targets: Sequence[Target]) -> frozenset[str]:
    """Codes of the rules whose ``collect_when`` pattern no input of the run matches."""
    return quiet_rules(rules, targets)[0]


def unmatched(
    patterns: dict[K, re.Pattern[bytes] | LazyPattern[bytes]], targets: Sequence[Target]
) -> frozenset[K]:
    """The keys of ``patterns`` that no input matches (none, when some input cannot be
    read as bytes here: then nothing is ruled out)."""
    waiting = dict(patterns)
    for target in targets:
        if not waiting:
            break
        data = readable_bytes(target)
        if data is None:
            return frozenset()  # cannot tell: every rule collects
        for code, pattern in list(waiting.items()):
            if occurs(pattern, data):
                del waiting[code]
    return frozenset(waiting)


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
