"""Regenerate everything made from the rules and the catalog: ``python scripts/generate.py``.

One command after adding or changing a rule (or the catalog), so that a new rule is its
module, its tests and this command. It writes:

- ``rules/index.json``: each built-in rule's metadata (code, name, severity, summary, fix
  safety, options, triggers), read at start-up instead of importing every rule module
  (gpulint/rules/pack_index.py); the documentation stays in the module's docstring;
- the rule table of README.md (the output of ``gpulint rules --format markdown``);
- ``docs/rules/GPUNNN.md``: one page per rule, from its docstring (SARIF's ``helpUri``);
- ``gpulint/catalog/catalog.json``: the data of catalog.yaml, read at run time.

``--check`` writes nothing and exits 1 naming what is stale; the tests fail the same way
(tests/rules/test_pack_index.py, test_rule_pages.py, tests/cli/test_cli.py,
tests/project/test_catalog_snapshot.py).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from gpulint import catalog
from gpulint.cli.rule_commands import rules_markdown
from gpulint.rules import pack_index, pages
from gpulint.rules.registry import BUILTIN_PACK, builtin_rules, default_registry

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BEGIN = "<!-- rule table (gpulint rules --format markdown): python scripts/generate.py -->\n"
END = "<!-- end of rule table -->\n"


def index_file() -> tuple[Path, str]:
    pack = importlib.import_module(BUILTIN_PACK)
    path = pack_index.index_path(pack) or f"{pack.__path__[-1]}/{pack_index.INDEX}"
    return Path(path), pack_index.index_text(pack)


def readme_file() -> tuple[Path, str]:
    text = README.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if not 0 <= start < end:
        raise SystemExit(f"{README}: the rule table markers are missing")
    table = rules_markdown(default_registry())
    return README, text[: start + len(BEGIN)] + table + text[end:]


def catalog_file() -> tuple[Path, str]:
    data = catalog.from_source()
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if json.loads(text) != data:  # a non-string key, a tuple, a date...
        raise SystemExit("catalog.yaml holds data that JSON cannot carry unchanged")
    return Path(catalog.SNAPSHOT), text


FILES: tuple[Callable[[], tuple[Path, str]], ...] = (index_file, readme_file, catalog_file)


def stale() -> list[str]:
    """What is not as this script would write it."""
    found = []
    for make in FILES:
        path, text = make()
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            found.append(str(path.relative_to(ROOT)))
    infos = [rule.info for rule in builtin_rules()]
    found += [f"{pages.DOCS_DIR}/{name}" for name in pages.stale(str(ROOT / pages.DOCS_DIR), infos)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for name in found:
            print(f"stale: {name}")
        return 1 if found else 0
    for make in FILES:
        path, text = make()
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    # The index first: the pages read the rules it describes.
    written = pages.write(str(ROOT / pages.DOCS_DIR), [rule.info for rule in builtin_rules()])
    print(f"wrote {len(written)} rule pages to {pages.DOCS_DIR}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
