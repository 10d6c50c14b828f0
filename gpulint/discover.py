"""Command-line paths -> the files to lint, in a deterministic order.

Folders are walked for ``*.yaml``, ``*.yml`` and ``*.json``; a file named
explicitly is read whatever its extension; ``-`` is standard input. Hidden
folders (``.git`` among them) are skipped. Symlinked folders are followed once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpulint.findings import InputError

LINTED_SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"


@dataclass(frozen=True)
class Target:
    """One input: a file to read, standard input, or a folder a renderer handles."""

    path: str  # the path as findings will name it
    kind: str = "file"  # "file", "stdin", or a renderer's name ("helm", "kustomize")


# A folder handler claims a folder (e.g. a Helm chart) and returns the targets
# it stands for; discovery then does not walk into that folder.
FolderHandler = Callable[[str], "list[Target] | None"]


def display_path(path: str) -> str:
    """Relative to the working directory when inside it, else as given."""
    if path == STDIN:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def discover(
    paths: Iterable[str],
    folder_handlers: Iterable[FolderHandler] = (),
    excluded: Callable[[str], bool] = lambda _path: False,
) -> tuple[list[Target], list[InputError]]:
    targets: list[Target] = []
    errors: list[InputError] = []
    handlers = list(folder_handlers)
    for raw in paths:
        if raw == STDIN:
            targets.append(Target(STDIN, "stdin"))
            continue
        if os.path.isdir(raw):
            _walk(raw, handlers, excluded, targets, errors)
        elif os.path.exists(raw):
            targets.append(Target(display_path(raw)))
        else:
            errors.append(InputError(display_path(raw), "no such file or directory"))
    return _dedupe(targets), errors


def _walk(
    top: str,
    handlers: list[FolderHandler],
    excluded: Callable[[str], bool],
    targets: list[Target],
    errors: list[InputError],
) -> None:
    seen: set[tuple[int, int]] = set()
    stack = [top]
    found: list[Target] = []
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
        except OSError as exc:
            errors.append(InputError(display_path(folder), f"cannot read folder: {exc.strerror}"))
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue  # a symlink loop, or a folder reached twice
        seen.add((st.st_dev, st.st_ino))
        claimed = None
        for handler in handlers:
            claimed = handler(folder)
            if claimed is not None:
                break
        if claimed is not None:
            found.extend(claimed)
            continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            # A folder that vanished or cannot be listed while walking.
            errors.append(InputError(display_path(folder), f"cannot read folder: {exc.strerror}"))
            continue
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = os.path.join(folder, entry.name)
            if excluded(display_path(path)):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                subfolders.append(path)
            elif entry.name.endswith(LINTED_SUFFIXES):
                found.append(Target(display_path(path)))
        stack.extend(reversed(subfolders))
    targets.extend(sorted(found, key=lambda t: t.path))


def _dedupe(targets: list[Target]) -> list[Target]:
    seen: set[tuple[str, str]] = set()
    unique = []
    for target in targets:
        key = (target.path, target.kind)
        if key not in seen:
            seen.add(key)
            unique.append(target)
    return unique
