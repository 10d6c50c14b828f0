"""What a rule's inputs must hold for the rule to have anything to read.

A rule declares it in two places, both optional:

- ``Rule(reads=Mentions("io.containerd."))``: the rule reports only on inputs that hold
  one of the words (a containerd config cannot be written without ``io.containerd.``). In
  a run where no input does, the rule's module is never imported.
- ``Rule(partner=KindIs("Node"))``: the rule's collectors pair facts with a partner
  object (GPU210 weighs pods against Nodes); in a run without one they do not collect.

The preparation pass (``gpulint/inputs/prepare.py``) asks :meth:`matches` of each input's
raw bytes. A trigger errs one way only: when in doubt it matches (a missing trigger costs
time, a wrong one costs findings), and an input it cannot read as bytes matches anything.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from gpulint.core.record import record


@record(frozen=True)
class Mentions:
    """Inputs whose text holds one of ``words`` (case-insensitive with ``ignore_case``)."""

    words: tuple[str, ...]
    ignore_case: bool = False

    def matches(self, data: bytes) -> bool:
        return self.matches_text(data, data.lower() if self.ignore_case else data)

    def matches_text(self, data: bytes, lowered: bytes) -> bool:
        """:meth:`matches` with ``data.lower()`` computed once for every trigger of a file."""
        words = _encoded(self.words, self.ignore_case)
        text = lowered if self.ignore_case else data
        return any(word in text for word in words)

    def as_data(self) -> dict[str, Any]:
        return {"mentions": list(self.words), "ignore_case": self.ignore_case}


@functools.lru_cache(maxsize=256)
def _encoded(words: tuple[str, ...], ignore_case: bool) -> tuple[bytes, ...]:
    """The words as the bytes a file is searched for (once, not once a file)."""
    return tuple((word.lower() if ignore_case else word).encode() for word in words)


def mentions(*words: str, ignore_case: bool = False) -> Mentions:
    return Mentions(words, ignore_case)


# ``kind: Node`` however YAML or JSON may spell it: quoted, tagged (``!!str``), a block
# scalar, after a comment on the line, or an alias (``*``) that could name it.
_KIND_AFTER = rb"""kind["']?\s*:(?:\s|!\S*|["']|[|>][-+0-9]*|#[^\n]*)*(?:%s(?![-\w])|\*)"""


@record(frozen=True)
class KindIs:
    """Inputs that may hold an object of one of ``kinds`` (Node, RuntimeClass...)."""

    kinds: tuple[str, ...]

    def matches(self, data: bytes) -> bool:
        if b"*" not in data and not any(kind.encode() in data for kind in self.kinds):
            return False  # the cheap test first: most inputs hold neither the kind nor an alias
        alternatives = b"|".join(re.escape(kind.encode()) for kind in self.kinds)
        return re.search(_KIND_AFTER % alternatives, data) is not None

    def matches_text(self, data: bytes, lowered: bytes) -> bool:
        return self.matches(data)

    def as_data(self) -> dict[str, Any]:
        return {"kind_is": list(self.kinds)}


def kind_is(*kinds: str) -> KindIs:
    return KindIs(kinds)


Trigger = Mentions | KindIs


def trigger_from_data(data: dict[str, Any] | None) -> Trigger | None:
    """The trigger a pack index entry describes (``as_data``)."""
    if data is None:
        return None
    if "kind_is" in data:
        return KindIs(tuple(data["kind_is"]))
    return Mentions(tuple(data["mentions"]), bool(data.get("ignore_case")))


class TriggerSet:
    """Distinct triggers of a set of rules, each tested once an input.

    Rules share triggers (every MIG rule reads ``mig``), and the same input is asked of
    all of them: the set keeps each trigger once, its words encoded once, and lowers an
    input once for every case-insensitive trigger. Built once a run, not once an input.
    """

    def __init__(self, triggers: Iterable[Trigger]) -> None:
        self.triggers: tuple[Trigger, ...] = tuple(dict.fromkeys(triggers))
        self._index = {trigger: i for i, trigger in enumerate(self.triggers)}
        self._words = [
            _encoded(t.words, t.ignore_case) if type(t) is Mentions else () for t in self.triggers
        ]

    def index(self, trigger: Trigger) -> int:
        return self._index[trigger]

    def matching(self, data: bytes, among: Iterable[int] | None = None) -> set[int]:
        """Indexes of the triggers (of ``among``, else all) that ``data`` matches."""
        found: set[int] = set()
        lowered: bytes | None = None
        for i in range(len(self.triggers)) if among is None else among:
            trigger = self.triggers[i]
            if type(trigger) is Mentions:
                text = data
                if trigger.ignore_case:
                    if lowered is None:
                        lowered = data.lower()
                    text = lowered
                for word in self._words[i]:
                    if word in text:
                        found.add(i)
                        break
            elif trigger.matches(data):
                found.add(i)
        return found
