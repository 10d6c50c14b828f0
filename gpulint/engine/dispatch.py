"""Which rules meet a source's documents: dispatch by what the source holds (issue 30).

A rule's ``reads`` trigger (``gpulint/rules/triggers.py``) says what an input must hold for
the rule to report on it; where a source holds none of it, the rule's checks are not called
for its documents. The answer depends only on which triggers the source's text holds,
which the preparation pass found already for a plain file (``inputs/prescan.SeenText``),
so sources that hold the same triggers share one answer, worked out once a run.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.record import record
from gpulint.core.sources import Source
from gpulint.inputs.prescan import SeenText
from gpulint.rules.rule import Context, Rule
from gpulint.rules.triggers import Trigger, TriggerSet


@record(frozen=True)
class SourceRules:
    """The rules that can use one source's documents, and which of them may report on it.

    Where the source holds nothing a rule's ``reads`` trigger names, the rule's checks
    are not called for its documents (most documents meet a few rules, not all of them);
    its collectors still are, since facts for another file's finding may come from here."""

    document: tuple[Rule, ...]
    resource: tuple[Rule, ...]
    silent: frozenset[str]  # codes whose checks this source cannot trigger
    # ``resource`` less the rules with nothing to do on a resource without pod specs
    # (``Rule.pods_only`` and no collector): most objects of a big repository hold none.
    podless: tuple[Rule, ...] = ()


class _Dispatch:
    """The run's rules indexed for :func:`source_rules`, with the answers given so far."""

    def __init__(self, rules: list[Rule], unpaired: frozenset[str]) -> None:
        self.rules, self.unpaired = rules, unpaired
        reads = [(r.code, r.reads) for r in rules if r.reads is not None]
        self.triggers = TriggerSet(trigger for _code, trigger in reads)
        self._reads = tuple((code, self.triggers.index(trigger)) for code, trigger in reads)
        self._by_silent: dict[frozenset[str], SourceRules] = {}
        # The preparation pass's triggers (one tuple a run), each read trigger's index there
        # (None: not all searched), and the silent codes of each set of held indexes.
        self._seen: tuple[tuple[Trigger, ...], tuple[tuple[str, int], ...] | None, dict] = (
            (),
            None,
            {},
        )

    def silent_where_seen(self, seen: SeenText) -> frozenset[str] | None:
        """The silent codes of a text the preparation pass searched (None: it did not
        search for every trigger the rules read)."""
        if self._seen[0] is not seen.triggers:  # another run's preparation (an editor's)
            self._seen = (seen.triggers, self._placed_in(seen.triggers), {})
        _triggers, placed, by_held = self._seen
        if placed is None:
            return None
        silent = by_held.get(seen.held)
        if silent is None:
            silent = by_held[seen.held] = frozenset(c for c, i in placed if i not in seen.held)
        return silent

    def _placed_in(self, triggers: tuple[Trigger, ...]) -> tuple[tuple[str, int], ...] | None:
        index = {trigger: i for i, trigger in enumerate(triggers)}
        ours = self.triggers.triggers
        if not all(ours[i] in index for _code, i in self._reads):
            return None
        return tuple((code, index[ours[i]]) for code, i in self._reads)

    def silent_in(self, data: bytes) -> frozenset[str]:
        """The silent codes of a text searched here."""
        held = self.triggers.matching(data)
        return frozenset(code for code, i in self._reads if i not in held)

    def rules_for(self, silent: frozenset[str]) -> SourceRules:
        found = self._by_silent.get(silent)
        if found is None:
            found = self._by_silent[silent] = self._rules_for(silent)
        return found

    def _rules_for(self, silent: frozenset[str]) -> SourceRules:
        unpaired = self.unpaired

        def hooked(check: Any, collect: Any, rule: Rule) -> bool:
            checks = check is not None and rule.code not in silent
            return checks or (collect is not None and rule.code not in unpaired)

        resource = tuple(r for r in self.rules if hooked(r.check_resource, r.collect, r))
        return SourceRules(
            tuple(r for r in self.rules if hooked(r.check_document, r.collect_document, r)),
            resource,
            silent,
            tuple(r for r in resource if not r.pods_only or r.collect is not None),
        )


# The last run's dispatch (a worker's: its run's), rebuilt when the rules change.
_LAST: list[_Dispatch] = []


def _dispatch(ctx: Context) -> _Dispatch:
    if _LAST and _LAST[0].rules is ctx.rules and _LAST[0].unpaired == ctx.unpaired:
        return _LAST[0]
    _LAST[:] = [_Dispatch(ctx.rules, ctx.unpaired)]
    return _LAST[0]


def source_rules(ctx: Context, source: Source, also: str = "") -> SourceRules:
    """The rules for ``source``'s documents (``also``: text they read from elsewhere, the
    values a GitOps release names, which the triggers search too)."""
    dispatch = _dispatch(ctx)
    # --values-for reads files that hold none of a chart's words as its values: every rule
    # may then report on any source (as inputs/prepare.py loads every rule).
    if ctx.settings.values_for:
        return dispatch.rules_for(frozenset())
    text = source.text + "\n" + also if also else source.text
    data = text.encode("utf-8", "surrogateescape")
    seen: SeenText | None = None if also else ctx.seen.get(source.path)
    silent = dispatch.silent_where_seen(seen) if seen is not None and seen.describes(data) else None
    return dispatch.rules_for(dispatch.silent_in(data) if silent is None else silent)


def with_values_read(
    ctx: Context, source: Source, rules: SourceRules, extras: tuple
) -> SourceRules:
    """``rules`` for a document whose releases read values from other files
    (model/values/joined.py): a rule whose trigger that text holds may report on it too."""
    # each text once: releases of one file often read the same values file
    text = "\n".join(dict.fromkeys(extra.text for extra in extras if extra.text))
    if not text or not rules.silent:
        return rules
    return source_rules(ctx, source, text)
