"""Discovered targets -> deployable units: what a user applies together, linted together.

When a walk meets kustomizations, the units are the kustomizations that no other
kustomization of the run builds on, plus the plain files that no kustomization
names. A file a kustomization names (a resource, a base's file, a patch, a
generator's input) is linted only through the unit that renders it, so a patch
is never read as a whole object. A file named on the command line while no
kustomization of the run names it stays a standalone target (pre-commit).

Cross-file rules join facts within one unit (:func:`unit_of`): a kustomization
render, a chart render, the files named on the command line together (what
``kubectl apply -f a.yaml -f b.yaml`` deploys), or the plain files a walk found in
one folder, which is what ``kubectl apply -f FOLDER`` deploys (``units: per-folder``,
the default); ``units: per-run`` joins every file of the run, as gpulint did before.
"""

from __future__ import annotations

import os

from gpulint.core.record import field, record
from gpulint.inputs.discover import STDIN, Target, display_path
from gpulint.inputs.folders import KUSTOMIZATION_FILES, kustomization_file
from gpulint.inputs.kustomize_refs import PATCH_FIELDS, Refs, members, refs_of

PER_FOLDER = "per-folder"
PER_RUN = "per-run"
UNIT_MODES = (PER_FOLDER, PER_RUN)
GLOBAL = None  # the unit of the --cluster inventory: joined to every unit


@record
class Plan:
    """The targets a run lints, and the notices on how it splits them into units."""

    targets: list[Target]
    # How files are linted: always for a patch left out, else with --verbose when the run
    # has kustomizations.
    notices: list[str] = field(default_factory=list)


def plan(targets: list[Target], verbose: bool = False) -> Plan:
    """The units among ``targets``; files that kustomizations of the run name are dropped."""
    cache: dict[str, Refs] = {}
    kustomized: dict[str, bool] = {}  # folder -> holds a kustomization (asked once a folder)
    folders = [t for t in targets if t.kind == "kustomize"]
    units = _Kustomizations(folders, cache) if folders else None
    kept: list[Target] = []
    told: list[str] = []  # said with --verbose when the run has kustomizations
    always: list[str] = []  # a file asked for and left out is said in any case
    for target in targets:
        if target.kind == "kustomize" and units is not None:
            if target in units.roots:
                kept.append(target)
                told.append(f"{target.path}: a deployable unit (kustomization), rendered")
            else:
                told.append(
                    f"{target.path}: a kustomization other kustomizations build on; "
                    "linted through them"
                )
            continue
        if target.kind != "file":
            kept.append(target)
            continue
        said = units.file(target) if units is not None else None
        if said is None:
            outside = _outside_patch(target, cache, kustomized)
            if outside is not None:
                always.append(outside)
                continue
            kept.append(target)
            said = f"{target.path}: linted standalone"
        if said:
            told.append(said)
    return Plan(kept, always + (told if folders and verbose else []))


class _Kustomizations:
    """The kustomizations of a run: which are roots, and which files each root renders."""

    def __init__(self, folders: list[Target], cache: dict) -> None:
        absolute = {t: _absolute(t.path) for t in folders}
        named = {t.path: members(t.path, cache) for t in folders}
        built_on = {k for refs in cache.values() for k in refs.kustomizations}
        self.roots = {t for t in folders if absolute[t] not in built_on}
        # A kustomization no root reaches (a cycle) is rendered too: kustomize says why.
        reached: set[str] = set()
        stack = [absolute[t] for t in self.roots]
        while stack:
            folder = stack.pop()
            if folder not in reached:
                reached.add(folder)
                stack.extend(cache[folder].kustomizations if folder in cache else ())
        self.roots |= {t for t in folders if absolute[t] not in reached}
        self.through: dict[str, tuple[str, str, str]] = {}  # file -> (root, field, namer)
        for root in folders:  # in walk order: the first root to name a file lints it
            if root in self.roots:
                for path, (field_name, owner) in named[root.path].items():
                    self.through.setdefault(path, (root.path, field_name, owner))
        self.folders = set(absolute.values())

    def file(self, target: Target) -> str | None:
        """What becomes of a plain file: '' dropped quietly, a note when dropped, None kept."""
        path = _absolute(target.path)
        beside = os.path.dirname(path) in self.folders
        if beside and os.path.basename(path) in KUSTOMIZATION_FILES:
            return ""  # the kustomization itself, rendered as its folder
        if path in self.through:
            return _member_notice(target.path, *self.through[path])
        if beside:
            # Not named by the kustomization beside it (a patch commented out of the list, a
            # scaffold): `kubectl apply -k` of that folder does not deploy it.
            return (
                f"{target.path}: skipped: beside {display_path(os.path.dirname(path))}'s "
                "kustomization, which does not name it"
            )
        return None


def _outside_patch(target: Target, cache: dict, kustomized: dict[str, bool]) -> str | None:
    """A note when a kustomization outside the run names this file as a patch.

    With kustomize's default load restrictor a patch lies in or below the folder of the
    kustomization naming it, so the enclosing folders are the ones to ask (pre-commit
    passes a changed patch alone); ``kustomized`` keeps each folder's answer, since the
    files of a run share their enclosing folders."""
    path = _absolute(target.path)
    folder = os.path.dirname(path)
    while True:
        holds = kustomized.get(folder)
        if holds is None:
            holds = kustomized[folder] = kustomization_file(folder) is not None
        if holds:
            refs = cache.get(folder)
            if refs is None:
                refs = cache[folder] = refs_of(folder)
            field_name = refs.files.get(path)
            if field_name in PATCH_FIELDS:
                return (
                    f"{target.path}: not linted: {field_name} of {display_path(folder)}, "
                    "not an object of its own; lint the kustomization to check what it makes"
                )
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _member_notice(path: str, root: str, field_name: str, owner: str) -> str:
    owner_shown = display_path(owner)
    if field_name in PATCH_FIELDS:
        return (
            f"{path}: skipped as a standalone object ({field_name} of {owner_shown}); "
            f"applied through kustomization {root}"
        )
    via = f" ({field_name} of {owner_shown})" if owner_shown != root else ""
    return f"{path}: linted through kustomization {root}{via}"


def named_files(paths: list[str]) -> frozenset[str]:
    """The command-line paths that are files (or standard input), as targets name them."""
    return frozenset(
        p if p == STDIN else display_path(p) for p in paths if p == STDIN or os.path.isfile(p)
    )


def unit_of(
    target: Target,
    mode: str,
    inventory: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> str | None:
    """The unit whose cross-file facts a target's facts are joined with."""
    if target.path in inventory:
        return GLOBAL
    if mode == PER_RUN:
        return ""
    if target.kind == "stdin" or (target.kind == "file" and target.path in named):
        return "named"
    if target.kind == "file":
        return "folder:" + os.path.dirname(os.path.normpath(target.path))
    if target.release is not None:  # each release of a chart renders a unit of its own
        return f"{target.kind}:{target.path}:{target.release.label}"
    return f"{target.kind}:{target.path}"
