"""The registry: the rules a run knows, selection by code or name, discovery of the pack.

Rules themselves are defined with :mod:`gpulint.rules.api` (``Rule``, ``Report``).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from gpulint.rules import pack_index
from gpulint.rules.options import options_schema
from gpulint.rules.pack_index import pack_modules, resolved, rules_of
from gpulint.rules.rule import EXPECT_MARK, SECTIONS, Report, Rule, doc_sections

__all__ = [
    "EXPECT_MARK",
    "SECTIONS",
    "Registry",
    "Report",
    "Rule",
    "builtin_rules",
    "default_registry",
    "doc_sections",
    "pack_modules",
    "resolved",
    "rules_of",
]


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

    def _selected(self, selector: str) -> list[Rule]:
        matched = self.matches(selector)
        if len(matched) == 1 or selector.strip().upper() == "ALL":
            return matched  # named (or ALL): opt-in rules too
        return [r for r in matched if r.default]

    def unknown(self, selectors: Iterable[str]) -> list[str]:
        return [s for s in selectors if not self.matches(s)]

    def options_schema(self) -> dict[str, Any]:
        """JSON Schema of the config file's ``rules`` section, from the rules' declared options."""
        return options_schema(self)

    def select(
        self, select: Iterable[str] = (), ignore: Iterable[str] = (), extend: Iterable[str] = ()
    ) -> list[Rule]:
        """``select`` replaces the default set (every rule but the opt-in ones), ``extend``
        adds to it, ``ignore`` takes away. An opt-in rule runs only when a selector names it
        (its code or name) or ``ALL``: a prefix such as ``GPU3`` stands for the default set's
        rules under it, as Ruff's preview rules are not selected by a prefix."""
        select, ignore = list(select), list(ignore)
        chosen = (
            {r.code for s in select for r in self._selected(s)}
            if select
            else {r.code for r in self if r.default}
        )
        chosen |= {r.code for s in extend for r in self._selected(s)}
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
    module can be forgotten (tests/rules/test_registry.py checks that every module of
    the pack defines a ``Rule`` and that the registry holds each of them). The rules
    come from the pack's index, their modules imported when a run needs their hooks
    (:mod:`gpulint.rules.pack_index`); without a current index, from the modules.
    """
    return list(_builtin_rules())


# The built-in pack sits above the rule API it imports; the registry loads it by name, as
# it loads a plugin's pack (``gpulint/rules/builtin/__init__.py`` points at ``rules/``).
BUILTIN_PACK = "gpulint.rules.builtin"


@functools.cache
def _builtin_rules() -> tuple[Rule, ...]:
    builtin = importlib.import_module(BUILTIN_PACK)
    return pack_index.read(builtin) or tuple(pack_rules(builtin))


def pack_rules(package: Any) -> list[Rule]:
    """Every rule the modules of a rule pack define at their top level."""
    return [rule for module in pack_modules(package) for rule in rules_of(module)]


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
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")) and b"[gpulint.rules]" in _read(
                os.path.join(folder or ".", name, "entry_points.txt")
            ):
                return True
    return False


def _read(path: str) -> bytes:
    """The bytes of a file, empty when it cannot be read; with the os calls alone, as
    open() adds three system calls a file (fstat, ioctl, lseek) and a run reads one a
    distribution installed (each ~10 µs where system calls are slow)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except OSError:
        return b""
    finally:
        os.close(fd)
    return b"".join(chunks)
