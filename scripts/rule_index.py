"""Write the built-in pack's index, rules/index.json: ``python scripts/rule_index.py``.

The modules of rules/ are the rules as written; the index is what the registry reads
at start-up instead of importing them all (gpulint/rules/pack_index.py). Run this after
adding, removing or changing a rule (its code, name, severity, summary, documentation,
fix safety, options or input patterns); tests/rules/test_pack_index.py fails while the
index differs from the modules.
"""

from __future__ import annotations

import sys

from gpulint.rules import builtin, pack_index


def main() -> int:
    path = pack_index.index_path(builtin) or f"{builtin.__path__[-1]}/{pack_index.INDEX}"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(pack_index.index_text(builtin))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
