"""Write gpulint/catalog/catalog.json from catalog.yaml: ``python scripts/catalog_json.py``.

The YAML is the catalog as written, with the sources of its facts; the JSON is its
data, which every run reads at start-up instead of parsing the YAML (~0.3 ms, not
~5 ms). Run this after each change to catalog.yaml; tests/project/test_catalog_snapshot.py
fails while the two differ.
"""

from __future__ import annotations

import json
import sys

from gpulint import catalog


def snapshot_text(data: dict) -> str:
    """The JSON text of ``data``; raises ValueError if JSON cannot carry it unchanged."""
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if json.loads(text) != data:  # a non-string key, a tuple, a date...
        raise ValueError("catalog.yaml holds data that JSON cannot carry unchanged")
    return text


def main() -> int:
    text = snapshot_text(catalog.from_source())
    with open(catalog.SNAPSHOT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {catalog.SNAPSHOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
