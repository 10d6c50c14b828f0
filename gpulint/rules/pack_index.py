"""The pack index: what the registry knows of each built-in rule without importing it.

Importing the whole pack (every rule module and the model modules they import) would be
about a third of a one-file run, though a Pod manifest can only ever meet the rules that
read pods. ``index.json``, beside the pack's modules, holds each rule's code, name,
severity, summary, fix safety, options and triggers (gpulint/rules/triggers.py); the
registry builds its rules from it. The documentation is not copied there: it stays in
the module's docstring, read from the source when a command asks for it (``Rule.doc``).
Such a rule names its ``module``; :func:`resolved` imports that module (and so its
hooks) when a run needs them: the rules whose trigger some input of the run holds, and
the rules without one.

The index is generated (``python scripts/generate.py``) and checked: a test fails while
it differs from the modules. A pack folder whose modules are not the ones the index
lists (a module added, removed or renamed) is imported whole instead, so an index left
stale by a new rule costs time, never the rule.
"""

from __future__ import annotations

import importlib
import json
import os
from types import ModuleType
from typing import Any

from gpulint.core.findings import FixSafety, Severity
from gpulint.rules.options import Option
from gpulint.rules.rule import Rule
from gpulint.rules.triggers import Trigger, trigger_from_data

INDEX = "index.json"
_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str, "list": list}


def module_names(package: ModuleType) -> list[str]:
    """The module names of a pack (a package), sorted, without importing them: its
    ``.py`` files and its folders with an ``__init__.py``. (``pkgutil.iter_modules``
    would import :mod:`inspect`, with ``ast``, ``dis`` and ``tokenize``: ~6 ms.)"""
    names: set[str] = set()
    for folder in package.__path__:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            stem, dot, suffix = entry.name.partition(".")
            if not stem.isidentifier():
                continue
            if entry.is_file() and dot and suffix == "py" and stem != "__init__":
                names.add(stem)
            elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                names.add(entry.name)
    return sorted(names)


def pack_modules(package: ModuleType) -> list[ModuleType]:
    """The modules of a rule pack, imported, in name order."""
    return [importlib.import_module(f"{package.__name__}.{name}") for name in module_names(package)]


def rules_of(module: ModuleType) -> list[Rule]:
    """The rules a module defines at its top level, in definition order."""
    return [value for value in vars(module).values() if isinstance(value, Rule)]


def index_text(package: ModuleType) -> str:
    """The index of ``package`` as ``index.json`` holds it (its modules imported)."""
    entries = [
        _entry(rule, module.__name__.rsplit(".", 1)[-1])
        for module in pack_modules(package)
        for rule in rules_of(module)
    ]
    data = {"modules": module_names(package), "rules": entries}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def index_path(package: ModuleType) -> str | None:
    """Where the pack's index is (the first folder of the package holding one)."""
    for folder in package.__path__:
        path = os.path.join(folder, INDEX)
        if os.path.isfile(path):
            return path
    return None


def read(package: ModuleType) -> tuple[Rule, ...] | None:
    """The pack's rules from its index, each naming its module; None when there is no
    index or it lists other modules than the pack holds (then import the pack)."""
    path = index_path(package)
    if path is None:
        return None
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if data.get("modules") != module_names(package):
        return None
    return tuple(_rule(entry, package.__name__) for entry in data["rules"])


def resolved(rule: Rule) -> Rule:
    """The rule itself, hooks and all: for a rule read from the index, the one its module
    defines (the module imported now, once)."""
    if rule.module is None:
        return rule
    for real in rules_of(importlib.import_module(rule.module)):
        if real.code == rule.code:
            return real
    raise LookupError(
        f"{rule.module} defines no rule {rule.code}: the pack index is stale "
        "(run python scripts/generate.py)"
    )


def _entry(rule: Rule, module: str) -> dict[str, Any]:
    return {
        "module": module,
        "code": rule.code,
        "name": rule.name,
        "severity": str(rule.severity),
        "summary": rule.summary,
        "fix": None if rule.fix is None else str(rule.fix),
        "default": rule.default,
        "partner": _trigger_entry(rule.partner),
        "reads": _trigger_entry(rule.reads_trigger()),
        "options": [
            {
                "name": o.name,
                "type": o.type.__name__,
                "default": list(o.default) if isinstance(o.default, tuple) else o.default,
                "tuple": isinstance(o.default, tuple),
                "doc": o.doc,
                "constraints": o.constraints,
            }
            for o in rule.options
        ],
    }


def _rule(entry: dict[str, Any], package: str) -> Rule:
    return Rule(
        entry["code"],
        entry["name"],
        Severity.parse(entry["severity"]),
        entry["summary"],
        "",  # the documentation stays in the module's docstring: Rule.doc reads it there
        partner=trigger_from_data(entry["partner"]),
        options=tuple(_option(o) for o in entry["options"]),
        fix=None if entry["fix"] is None else FixSafety(entry["fix"]),
        reads=trigger_from_data(entry["reads"]),
        default=entry.get("default", True),
        module=f"{package}.{entry['module']}",
    )


def _option(entry: dict[str, Any]) -> Option:
    default = tuple(entry["default"]) if entry["tuple"] else entry["default"]
    return Option(entry["name"], _TYPES[entry["type"]], default, entry["doc"], entry["constraints"])


def _trigger_entry(trigger: Trigger | None) -> dict[str, Any] | None:
    return None if trigger is None else trigger.as_data()
