"""Regenerate README.md's rule table from the registry: ``python scripts/readme_rules.py``.

The table is the output of ``gpulint rules --format markdown`` (the built-in rules,
without any config file's custom rules); it is written between the two markers
below, and tests/cli/test_cli.py fails while README.md holds another table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gpulint.cli.rule_commands import rules_markdown
from gpulint.rules.registry import default_registry

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- rule table (gpulint rules --format markdown): python scripts/readme_rules.py -->\n"
END = "<!-- end of rule table -->\n"


def table_in(text: str) -> str:
    """The text between the markers ('' when they are missing)."""
    start, end = text.find(BEGIN), text.find(END)
    return text[start + len(BEGIN) : end] if 0 <= start < end else ""


def main() -> int:
    text = README.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if not 0 <= start < end:
        print(f"{README}: the rule table markers are missing", file=sys.stderr)
        return 1
    README.write_text(
        text[: start + len(BEGIN)] + rules_markdown(default_registry()) + text[end:],
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
