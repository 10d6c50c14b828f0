"""The console script: ``gpulint`` starts here, before any of gpulint's modules is imported.

Importing the command line builds some 100,000 objects (modules, classes, functions,
click's options) and none of them is garbage: the collections that allocation
triggers meanwhile only traverse them, again and again (~9 ms of a ~190 ms one-file
run, 2026-12-04). The collector is off while they are imported; :func:`main` freezes
what was built and turns it back on.
"""

from __future__ import annotations

import gc


def main() -> None:
    gc.disable()
    try:
        # The whole command line, imported with the collector off (LAZY in
        # tests/project/test_import_contract.py: this module exists to do it here).
        from gpulint.cli.main import main as run
    finally:
        gc.enable()
    run()
