"""Renderers: Helm chart folders and Kustomize folders become rendered sources.

This package is the only place gpulint starts processes (see ``process.py``).
Discovery asks the handlers in ``targets.py`` whether a folder is a chart or a
kustomization; the run reads such a target through the reader ``targets.py``
gives for its kind (the command line composes the readers; the engine knows no
kind by name). The options come from ``Settings.render``. The Helm and Kustomize
modules are imported only when a folder of theirs is read, so a run over plain
files pays nothing for them.
"""

from __future__ import annotations


class Terminated(KeyboardInterrupt):
    """SIGTERM ended the run once the renderers and workers it had started were killed
    (``process.py``); the command line exits 143. A ``KeyboardInterrupt``, so every path
    that stops cleanly on Ctrl-C (worker pools, output files) stops cleanly on it too."""
