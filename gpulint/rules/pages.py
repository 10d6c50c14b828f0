"""One Markdown page per rule (docs/rules/GPUNNN.md), generated from the rule's docstring.

SARIF's ``helpUri`` points at these pages, so they must match the rules:
``python scripts/generate.py`` writes them (with everything else made from the rules),
tests/rules/test_rule_pages.py fails with that command when one is stale. Each page says,
as Ruff's do, whether a fix is available and how safe it is (the rule's metadata).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from gpulint.core.findings import FixSafety, RuleInfo

DOCS_DIR = "docs/rules"
PAGES_URI = "https://github.com/gpulint/gpulint/blob/main/docs/rules"
REGENERATE = "python scripts/generate.py"


def help_uri(code: str) -> str:
    return f"{PAGES_URI}/{code}.md"


FIX_LINES = {
    FixSafety.SAFE: "Fix: **safe**, applied by `gpulint check --fix` (see How to fix).",
    FixSafety.UNSAFE: "Fix: **unsafe**, applied only by `gpulint check --fix --unsafe-fixes` "
    "(see How to fix).",
    None: "Fix: none; gpulint cannot know the right change.",
}


OPT_IN_LINE = (
    "**Opt-in**: not in the default set; run it with `--select` or `--extend-select` (or "
    "`extend-select:` in `.gpulint.yaml`) naming its code or name.\n\n"
)


def fix_line(fix: FixSafety | None) -> str:
    return FIX_LINES[fix]


def page(rule: RuleInfo) -> str:
    header = (
        f"# {rule.code} {rule.name}\n\n"
        f"Default severity: **{rule.severity}**\n\n"
        f"{rule.summary}\n\n"
        f"{fix_line(rule.fix)}\n\n"
        f"{'' if rule.default else OPT_IN_LINE}"
        f"<!-- Generated from the rule's docstring by `{REGENERATE}`; do not edit. -->\n\n"
    )
    return header + rule.doc.strip() + "\n"


def expected(rules: Iterable[RuleInfo]) -> dict[str, str]:
    """File name -> text, for every rule."""
    return {f"{rule.code}.md": page(rule) for rule in rules}


def write(folder: str, rules: Iterable[RuleInfo]) -> list[str]:
    """Write the pages, remove pages of rules that no longer exist; the files written."""
    wanted = expected(rules)
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".md") and name not in wanted:
            os.remove(os.path.join(folder, name))
    written = []
    for name, text in sorted(wanted.items()):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        written.append(path)
    return written


def stale(folder: str, rules: Iterable[RuleInfo]) -> list[str]:
    """Pages that are missing, different, or of no rule."""
    wanted = expected(rules)
    present = set(os.listdir(folder)) if os.path.isdir(folder) else set()
    wrong = [name for name in present if name.endswith(".md") and name not in wanted]
    for name, text in wanted.items():
        path = os.path.join(folder, name)
        if name not in present:
            wrong.append(name)
            continue
        with open(path, encoding="utf-8") as handle:
            if handle.read() != text:
                wrong.append(name)
    return sorted(wrong)
