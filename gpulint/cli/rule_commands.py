"""The commands about rules and configuration: ``gpulint rules``, ``explain``, ``config-schema``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

import click

from gpulint.cli import adoption
from gpulint.config.file import schema_text
from gpulint.report import rule_pages
from gpulint.rules.registry import Rule, builtin_rules


@click.command(name="rules")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text: aligned columns; markdown: the table README.md shows.",
)
@click.option(
    "--docs",
    "docs_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write one Markdown page per built-in rule into this folder (docs/rules).",
)
def list_rules(fmt: str, docs_dir: str | None = None) -> None:
    """List the rules: code, name, default severity and summary."""
    if docs_dir is not None:
        _write_rule_pages(docs_dir)
        return
    registry = adoption.configured_registry()
    if fmt == "markdown":
        click.echo(rules_markdown(registry), nl=False)
        return
    rows = [(r.code, r.name, str(r.severity), _fix_mark(r.fix) + r.summary) for r in registry]
    for line in rule_table(rows, _terminal_width()):
        click.echo(line)


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
        lines.append(f"| {rule.code} | `{rule.name}` | {rule.severity} | {summary} |")
    return "\n".join(lines) + "\n"


def _fix_mark(fix: str | None) -> str:
    """``gpulint rules`` marks fixable rules as ruff does: [fix] safe, [fix*] unsafe."""
    return {"safe": "[fix] ", "unsafe": "[fix*] "}.get(fix or "", "")


def _write_rule_pages(folder: str) -> None:
    written = rule_pages.write(folder, [rule.info for rule in builtin_rules()])
    click.echo(f"wrote {len(written)} rule pages to {folder}")


@click.command(name="config-schema", short_help="Print the JSON Schema of .gpulint.yaml.")
def config_schema() -> None:
    """Print the JSON Schema of .gpulint.yaml (for editor completion)."""
    click.echo(schema_text(), nl=False)


@click.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Show a rule's documentation (by code or name)."""
    found = adoption.configured_registry().get(rule)
    if found is None:
        raise click.UsageError(f"unknown rule {rule!r} (see 'gpulint rules')")
    fixes = {
        "safe": "Fix: safe, applied by `gpulint check --fix`.",
        "unsafe": "Fix: unsafe, applied by `gpulint check --fix --unsafe-fixes`.",
    }.get(found.fix or "", "Fix: none (gpulint cannot know the right change).")
    click.echo(
        f"# {found.code} {found.name} ({found.severity})\n\n{found.summary}\n\n{fixes}\n\n"
        f"{found.doc}"
    )
    if found.options:
        shown = "\n".join(f"- {o.shown()}" for o in found.options)
        click.echo(
            f"\n## Options\nSet in .gpulint.yaml under rules: {{{found.code}: {{...}}}}.\n{shown}"
        )
