"""What is made from the rules and the catalog is as ``python scripts/generate.py`` makes it:
the pack index, README's rule table, the rule pages, catalog.json. One command regenerates
all of them; this test names it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from gpulint import catalog

ROOT = Path(__file__).resolve().parents[2]


def generate_script() -> ModuleType:  # scripts/ is not a package
    spec = importlib.util.spec_from_file_location("generate", ROOT / "scripts" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nothing_generated_is_stale() -> None:
    stale = generate_script().stale()
    assert stale == [], f"stale: {stale}: run python scripts/generate.py"


def test_the_catalog_snapshot_holds_the_yaml_data() -> None:
    with open(catalog.SNAPSHOT, encoding="utf-8") as handle:
        assert json.load(handle) == catalog.from_source()


def test_the_index_holds_no_documentation() -> None:
    """One source for a rule's documentation: its docstring."""
    index = json.loads((ROOT / "rules" / "index.json").read_text(encoding="utf-8"))
    assert all("doc" not in entry for entry in index["rules"])
