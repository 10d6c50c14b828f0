"""A rule: its metadata, its documentation, its typed hooks, what they are given
(:class:`Context`) and what they yield (:class:`Report`).

A rule is a small module in the rule pack (``rules/``, shipped as
``gpulint.rules.builtin``) whose docstring is its documentation, in one fixed shape::

    ## What it checks
    ## Why it matters
    ## Failing example   (a ```yaml block; `# <- GPU101` marks each reported line)
    ## Passing example   (a ```yaml block)
    ## How to fix

The module creates a :class:`Rule` and registers its hooks with the decorators
(each at most once). Every hook yields :class:`Report`: checks give a path into
the object, and the engine resolves it; finalizers give an :class:`Anchor`
resolved when the facts were collected.
"""

from __future__ import annotations

import datetime
import importlib.util
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from gpulint.core.findings import (
    Finding,
    FixInfo,
    FixSafety,
    InputError,
    Related,
    RuleInfo,
    Severity,
    bounded,
)
from gpulint.core.lazy_re import lazy
from gpulint.core.record import field, record
from gpulint.core.settings import Settings
from gpulint.model.cluster_profile import ClusterProfile
from gpulint.model.project import Project
from gpulint.model.resource import Resource
from gpulint.rules.anchor import Anchor
from gpulint.rules.directives import Directive
from gpulint.rules.options import Option
from gpulint.rules.triggers import Trigger
from gpulint.yaml.parse import Document
from gpulint.yaml.positions import place

SECTIONS = ("What it checks", "Why it matters", "Failing example", "Passing example", "How to fix")
_CODE = lazy(r"^[A-Z]+[0-9]{3}$")
_NAME = lazy(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_HEADING = lazy(r"^## (.+?)\s*$", re.MULTILINE)
_YAML_BLOCK = lazy(r"```(?:ya?ml|toml)\n(.*?)```", re.DOTALL)  # toml: containerd configs
EXPECT_MARK = lazy(r"#\s*<-\s*([A-Z]+[0-9]{3})")

RelatedPlace = tuple[Anchor, str]
_NOTHING_KNOWN = ClusterProfile()  # another place the finding concerns, and what is there


@record(frozen=True)
class Report:
    """What every hook yields: where, what is wrong, and the other places it concerns."""

    path: tuple  # relative to the resource object (or to the document, for document rules)
    message: str
    container: str | None = None
    at: str = "key"  # "key": the mapping entry; "value": the value alone
    anchor: Anchor | None = None  # a place resolved earlier; then ``path`` is unused
    related: tuple[RelatedPlace, ...] = ()
    severity: Severity | None = None  # this finding's tier, when the rule has two
    # The tier wins over the config file's severity too (GPU002 under --require-reason).
    final: bool = False
    # Cluster facts the finding depends on (model/profile.py): without them it is held back.
    needs: tuple[str, ...] = ()
    fix: Any = None  # a gpulint.rules.fixes.spec.Fix: what --fix may change (paths, as above)

    @classmethod
    def placed(
        cls,
        anchor: Anchor,
        message: str,
        related: Iterable[RelatedPlace] = (),
        severity: Severity | None = None,
        final: bool = False,
    ) -> Report:
        """A report at a place resolved earlier (finalizers, directive checks)."""
        return cls(
            (),
            message,
            anchor.container,
            anchor=anchor,
            related=tuple(related),
            severity=severity,
            final=final,
        )


@record
class Context:
    """The run as a rule sees it: settings, the rules that run, the cluster profile."""

    settings: Settings
    rules: list[Rule]
    unpaired: frozenset[str] = frozenset()  # rules whose collectors have nothing to pair with
    # rules that cannot report on the run's inputs (Rule.inputs): left without hooks
    inapplicable: frozenset[str] = frozenset()
    profile: ClusterProfile = field(default_factory=ClusterProfile)  # what the run knows
    # The linted repository's identity (model/project.py): which images it publishes.
    project: Project = field(default_factory=Project)
    # What Flux HelmReleases of plain files read from other files of their unit
    # (inputs/gitops_values.py): source path -> document index -> model.values.joined.Extra
    gitops: dict = field(default_factory=dict)
    # The rule triggers each plain file's bytes hold, from the preparation pass
    # (inputs/prescan.SeenText): file path -> SeenText
    seen: dict = field(default_factory=dict)
    # The values files a Helmfile, kustomize or Argo CD release of the run names: judged
    # through those releases, not again by their content alone.
    release_values: frozenset[str] = frozenset()
    # Every rule the run knows, selected or not, custom rules included (plain strings:
    # the context travels to worker processes).
    known_codes: frozenset[str] = frozenset()
    known_names: frozenset[str] = frozenset()

    def anchor(
        self, resource: Resource, path: tuple, container: str | None = None, at: str = "key"
    ) -> Anchor:
        """The place of ``path`` (relative to ``resource``), to report once all files are read."""
        location, pointer, template, at_template = place(
            resource.doc, resource.prefix + resource.real_path(tuple(path)), at
        )
        if container is not None:
            container = resource.container_label(container, tuple(path))
        return Anchor(location, pointer, resource.ref, container, template, at_template)

    def document_anchor(self, doc: Document, path: tuple, at: str = "key") -> Anchor:
        """A place in a document that is not a resource (a values or config file)."""
        location, pointer, template, at_template = place(doc, tuple(path), at)
        return Anchor(location, pointer, None, None, template, at_template)

    def knows(self, selector: str) -> bool:
        """Whether ``selector`` names a rule of the run (a code, any case, or a name)."""
        key = selector.strip()
        return key.upper() in self.known_codes or key.lower() in self.known_names

    def option(self, rule: Rule, name: str) -> Any:
        """The value of one of ``rule``'s declared options: the config file's, else the default."""
        declared = rule.option_named(name)
        return self.settings.rule_options.get(rule.code, {}).get(name, declared.default)


Reports = Iterable[Report] | None
Facts = list[Any] | None  # small picklable values; they travel back from worker processes
ResourceCheck = Callable[[Resource, Context], Reports]
DocumentCheck = Callable[[Document, Context], Reports]
ResourceCollector = Callable[[Resource, Context], Facts]
DocumentCollector = Callable[[Document, Context], Facts]
Finalizer = Callable[[list[Any], Context], Reports]
# Called by the filter stage once all files are read, with every directive found.
DirectiveCheck = Callable[[list[Directive], Context, datetime.date], Reports]

Hook = TypeVar("Hook", bound=Callable[..., Any])


class RuleError(Exception):
    """A rule that cannot go on as configured (a custom rule's pattern spent its budget):
    reported as ``error``, at the configuration, instead of as an internal error."""

    def __init__(self, error: InputError) -> None:
        super().__init__(error.message)
        self.error = error


@record
class Rule:
    """A rule: its code, name, severity and documentation, and the hooks it registers."""

    code: str
    name: str
    severity: Severity
    summary: str
    # The documentation (the module's docstring). A rule read from the pack index has none
    # here; ``doc`` reads it from its module's source when first asked (pack_index.py).
    doc_text: str
    check_resource: ResourceCheck | None = None
    check_document: DocumentCheck | None = None
    # Analysis across files: collect small facts per resource, then decide once.
    collect: ResourceCollector | None = None
    # Facts from whole documents (values and config files are not resources).
    collect_document: DocumentCollector | None = None
    finalize: Finalizer | None = None
    check_directives: DirectiveCheck | None = None
    # Collect only in a run where some input may hold the partner object the decision
    # needs (a Node, a RuntimeClass: gpulint/rules/triggers.py). None: always collect.
    partner: Trigger | None = None
    options: tuple[Option, ...] = ()
    # Whether its reports carry fixes, and how safely they apply (None: no fix).
    fix: FixSafety | None = None
    # The rule reports only in a run where some input holds what it reads cannot be
    # written without (a containerd config, a Node, a DRA object: triggers.py); other runs
    # never import a built-in rule's module. None: any input.
    reads: Trigger | None = None
    # On in a run that selects nothing (the default set), or only when selected: a rule whose
    # findings' worth depends on what the team wants (advice judged rarely worth reading on
    # repositories nobody tuned it on) is opt-in: --select/--extend-select it by code or name.
    default: bool = True
    # Its resource check reads pod specs only (``for pod in resource.pod_specs``): a resource
    # without one (a Service, a ConfigMap, a CRD) never meets it. Collectors still run.
    pods_only: bool = False
    # For a rule read from the pack index: the module that defines it, imported (with
    # the rule's hooks) only when a run needs them (pack_index.resolved). None: the rule
    # itself, hooks and all.
    module: str | None = None

    def __post_init__(self) -> None:
        if not _CODE.match(self.code):
            raise ValueError(f"rule code {self.code!r} must look like GPU101")
        if not _NAME.match(self.name):
            raise ValueError(f"rule name {self.name!r} must be kebab-case")
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.code}: an option is declared twice ({', '.join(names)})")
        self.doc_text = cleandoc(self.doc_text) if self.doc_text else ""  # index rules: ""

    @property
    def doc(self) -> str:
        if not self.doc_text and self.module is not None:
            self.doc_text = cleandoc(module_docstring(self.module))
        return self.doc_text

    def reads_trigger(self) -> Trigger | None:
        """``reads``; else, for a rule that only collects (no check hooks), its
        ``partner``: where nothing matches it collects nothing, so it reports nothing."""
        if self.reads is not None:
            return self.reads
        checks = (self.check_resource, self.check_document, self.check_directives)
        collects = self.collect is not None or self.collect_document is not None
        if self.partner is not None and collects and all(c is None for c in checks):
            return self.partner
        return None

    def _register(self, slot: str, fn: Hook) -> Hook:
        """Set one hook; a second function for the same hook would silently replace the first."""
        if getattr(self, slot) is not None:
            raise ValueError(
                f"{self.code}: {slot} is already registered ({_name(getattr(self, slot))}); "
                f"a rule has one {slot} hook, so {_name(fn)} would replace it"
            )
        setattr(self, slot, fn)
        return fn

    # Decorators used by rule modules.
    def resource_check(self, fn: ResourceCheck) -> ResourceCheck:
        return self._register("check_resource", fn)

    def document_check(self, fn: DocumentCheck) -> DocumentCheck:
        return self._register("check_document", fn)

    def collector(self, fn: ResourceCollector) -> ResourceCollector:
        return self._register("collect", fn)

    def document_collector(self, fn: DocumentCollector) -> DocumentCollector:
        return self._register("collect_document", fn)

    def finalizer(self, fn: Finalizer) -> Finalizer:
        return self._register("finalize", fn)

    def directive_check(self, fn: DirectiveCheck) -> DirectiveCheck:
        return self._register("check_directives", fn)

    def option_named(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(f"{self.code} declares no option {name!r}")

    def effective_severity(self, settings: Settings, report: Report | None = None) -> Severity:
        """The config file's severity for the rule, else the finding's own tier, else the
        rule's; a final tier wins over the config file."""
        own = report.severity if report is not None else None
        if own is not None and report is not None and report.final:
            return own
        configured = settings.severity.get(self.code) or settings.severity.get(self.name)
        return configured or own or self.severity

    def placed_finding(
        self,
        report: Report,
        settings: Settings,
        anchor: Anchor | None = None,
        profile: ClusterProfile | None = None,
        fix: FixInfo | None = None,
    ) -> Finding:
        """The finding of a report at its place: ``anchor`` (a check's path, resolved by the
        engine) or the report's own (finalizers, directive checks). The one place a
        built-in, plugin or custom rule's finding is made."""
        if not isinstance(report, Report):  # a finalizer written for the old (anchor, message)
            raise TypeError(
                f"{self.code}: hooks yield Report (Report.placed(anchor, message) from a "
                f"finalizer), not {type(report).__name__}"
            )
        anchor = anchor or report.anchor
        if anchor is None:
            raise ValueError(f"{self.code}: this hook's reports need a place (Report.placed)")
        return Finding(
            code=self.code,
            name=self.name,
            severity=self.effective_severity(settings, report),
            message=bounded(report.message),  # never grows with a quoted value (issue 13)
            location=anchor.location,
            pointer=anchor.pointer,
            resource=anchor.resource,
            container=report.container,
            template=anchor.template,
            template_location=anchor.template_location,
            related=related_of(report),
            held=tuple(f for f in report.needs if not (profile or _NOTHING_KNOWN).knows(f)),
            fix=fix,
        )

    @property
    def info(self) -> RuleInfo:
        return self.described()

    @property
    def brief_info(self) -> RuleInfo:
        """``info`` without the documentation (which a pack rule reads from its source)."""
        return self.described(with_doc=False)

    def described(self, with_doc: bool = True, help_uri: str | None = None) -> RuleInfo:
        """``info`` (``brief_info`` without ``with_doc``) with its documentation page."""
        return RuleInfo(
            self.code,
            self.name,
            self.severity,
            self.summary,
            self.doc if with_doc else "",
            help_uri,
            self.fix,
            self.default,
        )

    def sections(self) -> dict[str, str]:
        return doc_sections(self.doc)

    def examples(self) -> tuple[str, str]:
        """(failing, passing) YAML examples from the documentation."""
        sections = self.sections()
        return _yaml_block(sections.get("Failing example", "")), _yaml_block(
            sections.get("Passing example", "")
        )


_UNINDENTED_LINE = lazy(r"\n\S")


def cleandoc(doc: str) -> str:
    """:func:`inspect.cleandoc` (the same text), without importing :mod:`inspect` (with its
    ``ast``, ``dis`` and ``tokenize``: ~8 ms of start-up, issue 12): the first line
    stripped, the common margin of the others removed, blank lines at both ends dropped.
    A line after the first that starts in column 0 (a module docstring, as every rule's
    documentation is) means no margin: the line-by-line pass is skipped (~2 ms a run)."""
    lines = doc.expandtabs().split("\n")
    if _UNINDENTED_LINE.search(doc) is None:
        margins = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
        margin = min(margins, default=0)
        if margin:
            lines[1:] = [line[margin:] for line in lines[1:]]
    lines[0] = lines[0].lstrip()
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def module_docstring(module: str) -> str:
    """A module's docstring, read from its source without importing it (the pack index's
    rules: their modules are imported only when a run needs their hooks). Only the
    docstring literal is parsed, not the module: a rule's docstring opens its file."""
    import ast  # only when a rule's documentation is asked for (explain, SARIF, pages)

    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return ""
    with open(spec.origin, encoding="utf-8") as handle:
        source = handle.read()
    found = _DOCSTRING.match(source)
    if found is None:  # not the usual shape: read it the long way
        return ast.get_docstring(ast.parse(source), clean=False) or ""
    value = ast.literal_eval(found.group("literal"))
    return value if isinstance(value, str) else ""


# A module that opens with its docstring (after comment lines): a triple-quoted literal.
_DOCSTRING = lazy(r'(?:\s*#[^\n]*\n)*\s*(?P<literal>[rR]?(?:"""(?:[^"\\]|\\.|"(?!""))*"""))')


def related_of(report: Report) -> tuple[Related, ...]:
    return tuple(Related(anchor.location, text) for anchor, text in report.related)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def doc_sections(doc: str) -> dict[str, str]:
    parts = _HEADING.split(doc)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _yaml_block(section: str) -> str:
    match = _YAML_BLOCK.search(section)
    return match.group(1) if match else ""
