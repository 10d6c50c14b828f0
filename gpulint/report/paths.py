"""Paths as the CI system resolves them: from the repository root, not the working folder.

GitHub places annotations and code-scanning alerts by paths from
``GITHUB_WORKSPACE``; GitLab reads Code Quality paths from ``CI_PROJECT_DIR``.
gpulint names files from the folder it runs in, which a workflow's
``working-directory`` may have moved below the root (``k8s/x.yaml`` run in
``deploy/`` is ``deploy/k8s/x.yaml`` to GitHub). Outside those CI systems, and
for paths outside the repository, a path is left as it is.
"""

from __future__ import annotations

import functools
import os

_ROOTS = {
    "github": ("GITHUB_ACTIONS", "GITHUB_WORKSPACE"),
    "gitlab": ("GITLAB_CI", "CI_PROJECT_DIR"),
}


def from_root(path: str, system: str) -> str:
    flag, root_var = _ROOTS[system]
    if os.environ.get(flag) != "true" or not os.environ.get(root_var) or path.startswith("<"):
        return path
    return _rebase(path, os.environ[root_var], os.getcwd())


@functools.lru_cache(maxsize=4096)
def _rebase(path: str, root: str, cwd: str) -> str:
    absolute = os.path.realpath(os.path.join(cwd, path))
    real_root = os.path.realpath(root)
    if os.path.commonpath([absolute, real_root]) != real_root:
        return path  # outside the repository: nothing better to say
    return os.path.relpath(absolute, real_root).replace(os.sep, "/")
