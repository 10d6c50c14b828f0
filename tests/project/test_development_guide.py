"""docs/development.md's map names every package and module of ``gpulint/``."""

from __future__ import annotations

from tests.helpers import ROOT


def test_the_map_matches_the_tree():
    guide = (ROOT / "docs" / "development.md").read_text()
    rows = [line for line in guide.splitlines() if line.startswith("| `")]
    named = {line.split("`")[1] for line in rows}
    entries = sorted(
        f"{p.name}/" if p.is_dir() else p.name
        for p in (ROOT / "gpulint").iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
    )
    missing = [e for e in entries if e not in named]
    assert not missing, f"docs/development.md's map does not name: {missing}"
