"""``.gpulint.yaml``: found from the working directory upward, validated, read.

The file is parsed with gpulint's own parser, so every mistake (a schema
violation, an unknown rule, a bad custom rule) is an :class:`InputError` at the
key's line and column; the CLI exits with code 2 on any of them.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from gpulint.core.findings import InputError, Severity
from gpulint.core.record import field, record
from gpulint.core.settings import Exemption
from gpulint.core.sources import decode
from gpulint.rules.registry import Registry, Rule
from gpulint.yaml import positions
from gpulint.yaml.parse import Document, parse

CONFIG_NAMES = (".gpulint.yaml", ".gpulint.yml")
SCHEMA_NAME = "config.schema.json"


class ConfigError(Exception):
    def __init__(self, errors: list[InputError]) -> None:
        super().__init__("; ".join(e.message for e in errors))
        self.errors = errors


@record
class Config:
    """A validated config file: its values, custom rules and exemptions."""

    path: str
    values: dict = field(default_factory=dict)  # the validated file, keys as written
    custom_rules: list[Rule] = field(default_factory=list)
    exemptions: tuple[Exemption, ...] = ()

    @property
    def root(self) -> str:
        """Folder the file's relative paths (``exclude``) start from."""
        return os.path.dirname(os.path.abspath(self.path))


def find_config(start: str | None = None) -> str | None:
    """The nearest ``.gpulint.yaml`` (or ``.yml``) in ``start`` or a folder above it."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def schema_text() -> str:
    from gpulint.validate import schema as schema_check  # LAZY: see load_config

    with open(schema_check.schema_path(SCHEMA_NAME), encoding="utf-8") as handle:
        return handle.read()


def load_config(path: str, registry: Registry) -> Config:
    """Read, validate and interpret a config file; raises ConfigError with positions."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError([InputError(path, f"cannot read config file: {exc.strerror}")]) from None
    source = decode(path, data)
    if isinstance(source, InputError):
        raise ConfigError([source])
    documents, errors = parse(source)
    if errors:
        raise ConfigError(errors)
    if not documents:
        return Config(path)  # only comments: every default applies
    if len(documents) > 1:
        raise ConfigError([InputError(path, "one YAML document expected", documents[1].line, 1)])
    doc = documents[0]
    locate = _Locator(path, doc)
    # The schema layer only when there is a config file to validate (LAZY in
    # tests/project/test_import_contract.py); jsonschema only when the quick check
    # cannot vouch for the file.
    from gpulint.validate import schema as schema_check

    problems = schema_check.check(doc.data, SCHEMA_NAME)
    if problems:
        found = [locate(p.path, p.message, p.at) for p in problems]
        raise ConfigError(sorted(found, key=InputError.sort_key))
    values: dict = doc.data
    config = Config(path, values)
    errors = []
    config.custom_rules, rule_errors = _custom_rules(values, registry, locate)
    errors.extend(rule_errors)
    known = Registry(list(registry) + config.custom_rules) if not rule_errors else registry
    errors.extend(_unknown_rules(values, known, locate))
    errors.extend(_rule_option_errors(values, known, locate))
    errors.extend(_exclude_errors(values, locate))
    if errors:
        raise ConfigError(sorted(errors, key=InputError.sort_key))
    config.exemptions = tuple(_exemption(e, known) for e in values.get("exemptions", ()))
    return config


class _Locator:
    """Schema or semantic problems -> InputErrors at the key's line and column."""

    def __init__(self, path: str, doc: Document) -> None:
        self.path, self.doc = path, doc

    def __call__(self, path: tuple, message: str, at: str = "key") -> InputError:
        (line, column, _, _), _depth = positions.resolve(self.doc.node, tuple(path), at)
        where = ".".join(str(p) for p in path)
        return InputError(self.path, f"{where}: {message}" if where else message, line, column)


def _custom_rules(
    values: dict, registry: Registry, locate: _Locator
) -> tuple[list[Rule], list[InputError]]:
    rules: list[Rule] = []
    errors: list[InputError] = []
    if not values.get("custom-rules"):
        return rules, errors
    # Only when the config file declares custom rules.
    from gpulint.rules import custom as custom_rules

    seen_codes = {r.code for r in registry}
    seen_names = {r.name for r in registry}
    for i, spec in enumerate(values.get("custom-rules", ())):
        base = ("custom-rules", i)
        code, name = spec["code"], spec["name"]
        if code.startswith("GPU"):
            errors.append(locate(base + ("code",), f"{code}: GPU codes are reserved for gpulint"))
            continue
        if code in seen_codes:
            errors.append(locate(base + ("code",), f"rule code {code} is already taken"))
            continue
        if name in seen_names:
            errors.append(locate(base + ("name",), f"rule name {name} is already taken"))
            continue
        rule, problem = custom_rules.build_rule(spec, partial(_site, locate, base))
        if rule is None:
            subpath, message, at = problem or ((), "invalid custom rule", "value")
            errors.append(locate(base + subpath, message, at))
            continue
        seen_codes.add(code)
        seen_names.add(name)
        rules.append(rule)
    return rules, errors


def _exclude_errors(values: dict, locate: _Locator) -> list[InputError]:
    from gpulint.config import globs  # a config file's patterns (LAZY, as the schema layer)

    errors = []
    for i, pattern in enumerate(values.get("exclude", ())):
        try:
            globs.compile_pattern(pattern)
        except globs.GlobError as exc:
            errors.append(locate(("exclude", i), f"invalid pattern: {exc}", "value"))
    return errors


def _site(locate: _Locator, base: tuple, path: tuple, at: str) -> tuple[str, int, int]:
    """Where a part of a custom rule is written, for errors raised while linting."""
    found = locate(base + path, "", at)
    return found.file, found.line, found.column


def _unknown_rules(values: dict, registry: Registry, locate: _Locator) -> list[InputError]:
    errors = []
    for key in ("select", "extend-select", "ignore"):
        for i, selector in enumerate(values.get(key, ())):
            if not registry.matches(selector):
                errors.append(locate((key, i), f"unknown rule {selector!r}", "value"))
    for selector in values.get("severity", {}):
        if registry.get(selector) is None:
            errors.append(locate(("severity", selector), f"unknown rule {selector!r}"))
    for i, exemption in enumerate(values.get("exemptions", ())):
        for j, selector in enumerate(exemption.get("rules", ())):
            if not registry.matches(selector):
                path = ("exemptions", i, "rules", j)
                errors.append(locate(path, f"unknown rule {selector!r}", "value"))
    return errors


def _rule_option_errors(values: dict, registry: Registry, locate: _Locator) -> list[InputError]:
    """The ``rules`` section against the options the rules declare."""
    section = values.get("rules") or {}
    errors: list[InputError] = []
    seen: dict[str, str] = {}  # rule code -> the key that configured it
    for key in section:
        rule = registry.get(key)
        if rule is None:
            errors.append(locate(("rules", key), f"unknown rule {key!r}"))
        elif not rule.options:
            errors.append(locate(("rules", key), f"{rule.code} has no options"))
        elif rule.code in seen:
            errors.append(
                locate(
                    ("rules", key),
                    f"{rule.code} is configured twice ({seen[rule.code]!r} and {key!r})",
                )
            )
        else:
            seen[rule.code] = key
    if errors or not section:
        return errors
    schema = registry.options_schema()
    from gpulint.validate import quick  # LAZY: see load_config
    from gpulint.validate import schema as schema_check

    if quick.certainly_valid(section, schema):
        return []  # jsonschema is imported only when the quick check cannot vouch
    problems = schema_check.check(section, schema_check.make_validator(schema))
    return [locate(("rules",) + p.path, p.message, p.at) for p in problems]


def rule_options(values: dict, registry: Registry) -> dict[str, dict[str, Any]]:
    """Rule code -> option -> value, from the ``rules`` section (keyed by code or name)."""
    found: dict[str, dict[str, Any]] = {}
    for key, options in (values.get("rules") or {}).items():
        rule = registry.get(key)
        if rule is not None:
            found.setdefault(rule.code, {}).update(options)
    return found


def _exemption(entry: dict, registry: Registry) -> Exemption:
    codes = frozenset(r.code for s in entry.get("rules", ()) for r in registry.matches(s))
    return Exemption(
        reason=entry["reason"],
        rules=codes,
        namespaces=tuple(entry.get("namespaces", ())),
        kinds=tuple(entry.get("kinds", ())),
        names=tuple(entry.get("names", ())),
        containers=tuple(entry.get("containers", ())),
    )


def severity_map(values: dict, registry: Registry) -> dict[str, Severity]:
    """Severity per rule code (the file may name rules by code or by name)."""
    found = {}
    for key, value in values.get("severity", {}).items():
        rule = registry.get(key)
        if rule is not None:
            found[rule.code] = Severity.parse(value)
    return found
