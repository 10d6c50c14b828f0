"""The commands about rules and configuration: ``gpulint rules``, ``explain``,
``config-schema``, and ``completion``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TextIO

import click

from gpulint.cli import adoption
from gpulint.cli.completion import SHELLS, complete_rules, script
from gpulint.cli.option_groups import CONTEXT, UsageError, path
from gpulint.config.file import schema_text
from gpulint.core.findings import FixSafety
from gpulint.core.outputs import OutputError, write_stdout
from gpulint.rules import pages as rule_pages
from gpulint.rules.registry import Rule, builtin_rules

_FORMATS = ("text", "markdown", "json")


def _echo(text: str) -> None:
    """To standard output (an ASCII terminal gets the text escaped); a broken pipe exits 2."""

    def fill(stream: TextIO) -> None:
        stream.write(text)

    try:
        write_stdout(fill)
    except OutputError as exc:
        sys.stderr.write(f"gpulint: {exc}\n")
        sys.exit(2)


@click.command("rules", context_settings=CONTEXT)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_FORMATS),
    default="text",
    show_default=True,
    help="text: aligned columns; markdown: the table README.md shows; json: one object "
    "per rule (code, name, severity, summary, fix, options), for scripts.",
)
@click.option(
    "--docs",
    "docs_dir",
    type=path(file_okay=False),
    metavar="DIRECTORY",
    help="Write one Markdown page per built-in rule into this folder (docs/rules).",
)
def list_rules(fmt: str, docs_dir: str | None) -> None:
    """List the rules: code, name, default severity and summary."""
    if docs_dir is not None:
        _write_rule_pages(docs_dir)
        return
    registry = adoption.configured_registry()
    if fmt == "markdown":
        _echo(rules_markdown(registry))
        return
    if fmt == "json":
        _echo(rules_json(registry))
        return
    rows = [
        (r.code, r.name, str(r.severity), _fix_mark(r.fix) + _opt_in_mark(r) + r.summary)
        for r in registry
    ]
    _echo("".join(line + "\n" for line in rule_table(rows, _terminal_width())))


def _terminal_width() -> int | None:
    """The terminal's width (COLUMNS first), or None when the output is not a terminal."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if not sys.stdout.isatty():
        return None  # a pipe or a file: one line a rule, for grep
    import shutil  # only for `gpulint rules` on a terminal (start-up: ~2 ms)

    return shutil.get_terminal_size().columns


def rule_table(rows: list[tuple[str, str, str, str]], width: int | None) -> list[str]:
    """Aligned columns; the summary wraps under itself to fit ``width``."""
    import textwrap  # only for `gpulint rules` (start-up: ~1 ms)

    widths = [max(len(row[i]) for row in rows) for i in range(3)] if rows else [0, 0, 0]
    indent = sum(widths) + 6
    room = (width or 0) - indent
    lines = []
    for code, name, severity, summary in rows:
        head = f"{code:<{widths[0]}}  {name:<{widths[1]}}  {severity:<{widths[2]}}  "
        parts = textwrap.wrap(summary, room) if width and room >= 20 else [summary]
        lines.append(head + (parts[0] if parts else ""))
        lines.extend(" " * indent + part for part in parts[1:])
    return lines


def rules_markdown(rules: Iterable[Rule]) -> str:
    """The rule table of README.md: code, name, default severity, what it finds."""
    lines = ["| code | name | severity | what it finds |", "|---|---|---|---|"]
    for rule in rules:
        summary = rule.summary.replace("|", "\\|")
        severity = f"{rule.severity}" if rule.default else f"{rule.severity} (opt-in)"
        lines.append(f"| {rule.code} | `{rule.name}` | {severity} | {summary} |")
    return "\n".join(lines) + "\n"


def rules_json(rules: Iterable[Rule]) -> str:
    """The rules as a JSON array (kube-linter's and ruff's ``--format json`` listings)."""
    import json  # only for `gpulint rules --format json`

    listed = [
        {
            "code": rule.code,
            "name": rule.name,
            "severity": str(rule.severity),
            "summary": rule.summary,
            "fix": rule.fix.value if rule.fix else None,
            "default": rule.default,
            "options": [
                {"name": o.name, "type": o.type.__name__, "default": o.default, "doc": o.doc}
                for o in rule.options
            ],
        }
        for rule in rules
    ]
    return json.dumps(listed, indent=2) + "\n"


def _opt_in_mark(rule: Rule) -> str:
    """Opt-in rules (not in the default set) say so, as ruff marks preview rules."""
    return "" if rule.default else "[opt-in] "


def _fix_mark(fix: FixSafety | None) -> str:
    """``gpulint rules`` marks fixable rules as ruff does: [fix] safe, [fix*] unsafe."""
    return {FixSafety.SAFE: "[fix] ", FixSafety.UNSAFE: "[fix*] ", None: ""}[fix]


def _write_rule_pages(folder: str) -> None:
    written = rule_pages.write(folder, [rule.info for rule in builtin_rules()])
    _echo(f"wrote {len(written)} rule pages to {folder}\n")


@click.command("config-schema", context_settings=CONTEXT)
def config_schema() -> None:
    """Print the JSON Schema of .gpulint.yaml (for editor completion)."""
    _echo(schema_text())


@click.command("explain", context_settings=CONTEXT)
@click.argument("rule", shell_complete=complete_rules)
def explain(rule: str) -> None:
    """Show a rule's documentation (by code or name)."""
    found = adoption.configured_registry().get(rule)
    if found is None:
        raise UsageError(f"unknown rule {rule!r} (see 'gpulint rules')")
    fixes = rule_pages.fix_line(found.fix).replace("**", "")
    text = (
        f"# {found.code} {found.name} ({found.severity})\n\n{found.summary}\n\n{fixes}\n\n"
        f"{found.doc}\n"
    )
    if found.options:
        shown = "\n".join(f"- {o.shown()}" for o in found.options)
        text += (
            f"\n## Options\nSet in .gpulint.yaml under rules: {{{found.code}: {{...}}}}.\n{shown}\n"
        )
    _echo(text)


@click.command("completion", context_settings=CONTEXT)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the shell completion script (bash, zsh or fish).

    \b
    bash: eval "$(gpulint completion bash)"   (in ~/.bashrc)
    zsh:  eval "$(gpulint completion zsh)"    (in ~/.zshrc)
    fish: gpulint completion fish > ~/.config/fish/completions/gpulint.fish
    """
    _echo(script(ctx.find_root().command, shell) + "\n")
