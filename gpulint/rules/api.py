"""The public rule API: everything a rule, built-in or plugin, needs to define itself.

A rule module imports the framework from here and nothing from the engine::

    from gpulint.rules.api import Context, Report, Resource, Rule, Severity

    rule = Rule("TEAM101", "gpu-pod-team-label", Severity.WARNING, "...", __doc__)

    @rule.resource_check
    def check(resource: Resource, ctx: Context) -> Iterator[Report]:
        ...

What is where (the rule for imports):

* **This module**: the rule itself (:class:`Rule`, :class:`Option`, :class:`FixSafety`,
  the triggers :func:`mentions` and :func:`kind_is`), what hooks yield
  (:class:`Report`), what they are given (:class:`Context`, :class:`Anchor`,
  :class:`Resource`, :class:`PodSpec`, :class:`Container`, :class:`Document`,
  :class:`Directive`), :class:`Severity`, and the hook types; :func:`record`, the
  dataclass for a rule's facts (``@record(frozen=True, slots=True)``, gpulint/core/record.py:
  the same behaviour as ``@dataclass``, cheaper to create at start-up).
* **Domain helpers stay in** ``gpulint.model.*`` (GPU resources, scheduling,
  MIG, DRA, NVIDIA inputs: ``from gpulint.model.values.gpu_resources import gpu_entries``), and
  cross-file facts several rules share in :mod:`gpulint.rules.facts`. Those are
  the model's public functions; re-exporting them here would make this module a
  second, drifting copy of the model.
* **Never** ``gpulint.engine``, ``gpulint.filter``, ``gpulint.report``,
  ``gpulint.cli``, ``gpulint.config`` or ``gpulint.inputs``: they run rules, they
  are not for rules to call.
"""

from __future__ import annotations

from gpulint.core.findings import FixSafety, Severity, quoted
from gpulint.core.record import record
from gpulint.model.resource import Container, PodSpec, Resource
from gpulint.rules.anchor import Anchor
from gpulint.rules.directives import Directive
from gpulint.rules.options import Option
from gpulint.rules.rule import (
    Context,
    DirectiveCheck,
    DocumentCheck,
    DocumentCollector,
    Finalizer,
    RelatedPlace,
    Report,
    Reports,
    ResourceCheck,
    ResourceCollector,
    Rule,
)
from gpulint.rules.triggers import KindIs, Mentions, kind_is, mentions
from gpulint.yaml.parse import Document

__all__ = [
    "Anchor",
    "Container",
    "Context",
    "Directive",
    "DirectiveCheck",
    "Document",
    "DocumentCheck",
    "DocumentCollector",
    "Finalizer",
    "FixSafety",
    "KindIs",
    "Mentions",
    "Option",
    "PodSpec",
    "RelatedPlace",
    "Report",
    "Reports",
    "Resource",
    "ResourceCheck",
    "ResourceCollector",
    "Rule",
    "Severity",
    "kind_is",
    "mentions",
    "quoted",  # a value from input for a message: escaped, cut short
    "record",  # the dataclass for facts, cheaper at start-up
]
