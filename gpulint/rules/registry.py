"""Rules: metadata, registration, documentation and selection by code or name.

A rule is a small module in the rule pack (``rules/``, shipped as
``gpulint.rules.builtin``) whose docstring is its documentation, in one fixed shape::

    ## What it checks
    ## Why it matters
    ## Failing example   (a ```yaml block; `# <- GPU101` marks each reported line)
    ## Passing example   (a ```yaml block)
    ## How to fix

The module creates a :class:`Rule` and decorates its check function. Rules
report paths into the document, never positions; the engine resolves them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from gpulint.findings import RuleInfo, Severity

SECTIONS = ("What it checks", "Why it matters", "Failing example", "Passing example", "How to fix")
_CODE = re.compile(r"^[A-Z]+[0-9]{3}$")
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_HEADING = re.compile(r"^## (.+?)\s*$", re.MULTILINE)
_YAML_BLOCK = re.compile(r"```(?:ya?ml|toml)\n(.*?)```", re.DOTALL)  # toml: containerd configs
EXPECT_MARK = re.compile(r"#\s*<-\s*([A-Z]+[0-9]{3})")


@dataclass(frozen=True)
class Report:
    """What a rule yields: a path to the offending node and a message."""

    path: tuple  # relative to the resource object (or to the document, for document rules)
    message: str
    container: str | None = None
    at: str = "key"  # "key": the mapping entry; "value": the value alone
    # Cluster facts the finding depends on (model/profile.py): without them it is held back.
    needs: tuple[str, ...] = ()
    severity: Severity | None = None  # this finding's tier, when the rule has two
    fix: Any = None  # a gpulint.fix.spec.Fix: what --fix may change (paths, as above)


@dataclass
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    doc: str
    check_resource: Callable | None = None
    check_document: Callable | None = None
    # Analysis across files: collect small facts per resource, then decide once.
    collect: Callable | None = None
    # Facts from whole documents (values and config files are not resources).
    collect_document: Callable | None = None
    finalize: Callable | None = None
    # Collect only when some input of the run matches (the partner objects the
    # decision needs, such as Nodes; see prescan.py). None: always collect.
    collect_when: re.Pattern[bytes] | None = None
    # Whether its reports carry fixes: "safe" (--fix), "unsafe" (--unsafe-fixes) or None.
    fix: str | None = None

    def __post_init__(self) -> None:
        if self.fix not in (None, "safe", "unsafe"):
            raise ValueError(f"rule {self.code} fix must be 'safe', 'unsafe' or None")
        if not _CODE.match(self.code):
            raise ValueError(f"rule code {self.code!r} must look like GPU101")
        if not _NAME.match(self.name):
            raise ValueError(f"rule name {self.name!r} must be kebab-case")
        self.doc = _dedent(self.doc or "")

    # Decorators used by rule modules.
    def resource_check(self, fn: Callable) -> Callable:
        self.check_resource = fn
        return fn

    def document_check(self, fn: Callable) -> Callable:
        self.check_document = fn
        return fn

    def collector(self, fn: Callable) -> Callable:
        self.collect = fn
        return fn

    def document_collector(self, fn: Callable) -> Callable:
        self.collect_document = fn
        return fn

    def finalizer(self, fn: Callable) -> Callable:
        self.finalize = fn
        return fn

    @property
    def info(self) -> RuleInfo:
        return RuleInfo(self.code, self.name, self.severity, self.summary, self.doc)

    def sections(self) -> dict[str, str]:
        return doc_sections(self.doc)

    def examples(self) -> tuple[str, str]:
        """(failing, passing) YAML examples from the documentation."""
        sections = self.sections()
        return _yaml_block(sections.get("Failing example", "")), _yaml_block(
            sections.get("Passing example", "")
        )


def _dedent(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)


def doc_sections(doc: str) -> dict[str, str]:
    parts = _HEADING.split(doc)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _yaml_block(section: str) -> str:
    match = _YAML_BLOCK.search(section)
    return match.group(1) if match else ""


class Registry:
    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self._rules: dict[str, Rule] = {}
        self._names: dict[str, str] = {}
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> None:
        if rule.code in self._rules:
            raise ValueError(f"duplicate rule code {rule.code}")
        if rule.name in self._names:
            raise ValueError(f"duplicate rule name {rule.name}")
        self._rules[rule.code] = rule
        self._names[rule.name] = rule.code

    def __iter__(self) -> Iterator[Rule]:
        return iter(sorted(self._rules.values(), key=lambda r: r.code))

    def __len__(self) -> int:
        return len(self._rules)

    def get(self, code_or_name: str) -> Rule | None:
        key = code_or_name.strip()
        code = self._names.get(key.lower(), key.upper())
        return self._rules.get(code)

    def matches(self, selector: str) -> list[Rule]:
        """A code, a code prefix (``GPU1``), a name, or ``ALL``."""
        key = selector.strip()
        if key.upper() == "ALL":
            return list(self)
        rule = self.get(key)
        if rule is not None:
            return [rule]
        return [r for r in self if r.code.startswith(key.upper())] if key else []

    def unknown(self, selectors: Iterable[str]) -> list[str]:
        return [s for s in selectors if not self.matches(s)]

    def select(self, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Rule]:
        select, ignore = list(select), list(ignore)
        chosen = {r.code for s in select for r in self.matches(s)} if select else set(self._rules)
        for s in ignore:
            chosen -= {r.code for r in self.matches(s)}
        return [r for r in self if r.code in chosen]


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """The built-in rule pack plus rule packs of installed plugins."""
    global _DEFAULT
    if _DEFAULT is None:
        registry = Registry(builtin_rules())
        for rule in _plugin_rules():
            registry.add(rule)
        _DEFAULT = registry
    return _DEFAULT


def builtin_rules() -> list[Rule]:
    """Every rule defined by a module of the built-in pack, found by listing the pack.

    Discovery instead of a hand-kept list: a new rule is one new module, and no
    module can be forgotten (tests/test_registry.py checks that every ``Rule`` a
    pack module defines is registered).
    """
    import importlib
    import pkgutil

    from gpulint.rules import builtin

    found: list[Rule] = []
    for info in sorted(pkgutil.iter_modules(builtin.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{builtin.__name__}.{info.name}")
        found.extend(rules_of(module))
    return found


def rules_of(module: Any) -> list[Rule]:
    """The rules a module defines at its top level, in definition order."""
    return [value for value in vars(module).values() if isinstance(value, Rule)]


def _plugin_rules() -> list[Rule]:
    """Rules from the ``gpulint.rules`` entry point group (each entry: a Rule or a list)."""
    if not _any_plugin_declared():
        return []
    from importlib.metadata import entry_points

    found: list[Rule] = []
    for entry in entry_points(group="gpulint.rules"):
        loaded: Any = entry.load()
        if callable(loaded) and not isinstance(loaded, Rule):
            loaded = loaded()
        found.extend(loaded if isinstance(loaded, list | tuple) else [loaded])
    return found


def _any_plugin_declared() -> bool:
    """Whether any installed distribution declares ``[gpulint.rules]`` entry points.

    A plain scan of the metadata files: importing importlib.metadata costs more
    start-up time than the whole pre-commit run has to spare, so it is imported
    only when a plugin exists.
    """
    import os
    import sys

    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(folder or ".", name, "entry_points.txt"), "rb") as f:
                        if b"[gpulint.rules]" in f.read():
                            return True
                except OSError:
                    continue
    return False
