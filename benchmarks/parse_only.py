"""The parse-only baseline: compose every manifest with ruamel.yaml's C parser.

Walks the folders as gpulint does (sorted; ``*.yaml``, ``*.yml``, ``*.json``;
hidden folders skipped), reads each file and composes all its documents with
``YAML(typ="safe", pure=False).compose_all`` (libyaml via ruamel.yaml.clib,
node marks kept). Nothing is checked and nothing is reported.

    python benchmarks/parse_only.py DIR...
"""

from __future__ import annotations

import os
import sys

from ruamel.yaml import YAML


def files(top: str) -> list[str]:
    found = []
    for root, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.join(root, n) for n in names if n.endswith((".yaml", ".yml", ".json"))]
    return sorted(found)


def main() -> None:
    yaml = YAML(typ="safe", pure=False)
    documents = 0
    for top in sys.argv[1:]:
        for path in files(top):
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
            for _node in yaml.compose_all(text):
                documents += 1
    print(documents)


if __name__ == "__main__":
    main()
