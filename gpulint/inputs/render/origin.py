"""Kustomize's ``config.kubernetes.io/origin`` -> the line in the file a resource came from.

The rendered resource is matched to a document of its origin file (same kind,
then the name the transformers left recognisable), and the finding's path is
followed in that document: list items by their ``name`` (patches reorder and
add containers), scalars must be equal (a value a patch changed did not come
from the origin file). A value a patch changed is looked up in the patches the build
applies, the last applied first: a strategic-merge patch by the same walk, a JSON6902
op list by its target and the ops' JSON pointers (``json6902.py``). What no patch
claims stays in the origin file, but never on its own, different value where a JSON6902
patch may have set it (that patch's entry, else the built kustomization).
"""

from __future__ import annotations

import os
from typing import Any

from gpulint.core.findings import Location
from gpulint.core.record import record
from gpulint.core.sources import Source, decode
from gpulint.inputs.discover import display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import is_remote, load_spec
from gpulint.inputs.render.json6902 import (
    BRINGS,
    SETS,
    covered,
    ops_in,
    ops_of,
    pointer,
    related,
    selects,
)
from gpulint.inputs.tree import inside
from gpulint.yaml import positions
from gpulint.yaml.embedded import INSIDE, mapping_in
from gpulint.yaml.nodes import Node
from gpulint.yaml.parse import Document, parse

ORIGIN = "config.kubernetes.io/origin"


@record(frozen=True)
class Patch:
    """A patch a build applies, where a kustomization names it."""

    file: str  # the patch file, or the kustomization that holds it inline
    inline: tuple  # () for a file, else the path to the string in that kustomization
    kustomization: str  # the kustomization file naming it
    entry: tuple  # its entry there: ("patches", 2)
    target: Any = None  # the entry's target (what a JSON6902 patch applies to)
    json_only: bool = False  # a patchesJson6902 entry: never a strategic-merge patch
    # the object's name, namespace and labels when it applies are the rendered ones (the
    # built folder's own patch, with nothing of that folder changing them after it)
    current: bool = False


# What a kustomization applies after its ``patches`` and its ``patchesJson6902``
# (kustomize's builtin transformer order, api/internal/target/kusttarget.go
# configureBuiltinTransformers: patchesStrategicMerge, patches, namespace, namePrefix,
# nameSuffix, labels, annotations, patchesJson6902, replicas, images, replacements; the
# ``transformers:`` plugins after them) that may change what a target selects by.
_RESELECT = ("replacements", "transformers")
_AFTER = {
    "patches": (
        "namespace",
        "namePrefix",
        "nameSuffix",
        "commonLabels",
        "labels",
        "commonAnnotations",
        "patchesJson6902",
        *_RESELECT,
    ),
    "patchesJson6902": _RESELECT,
}


# An op list as placed: its ops, the node and text to resolve in, the steps to the list.
OpList = tuple[list[dict], Node, str, tuple, str]


def origin_of(obj: Any) -> dict[str, str]:
    """The annotation's small YAML (``path:``, ``repo:``, ``ref:``, ``configuredIn:``)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    text = notes.get(ORIGIN) if isinstance(notes, dict) else None
    found: dict[str, str] = {}
    if isinstance(text, str):
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if sep and not line.startswith(" "):
                found[key.strip()] = value.strip().strip("'\"")
    return found


class OriginMapper:
    """The rendered stream is no file: a finding always moves to one. The origin file's
    line, else the patch (or JSON6902 op) that set the value, else the origin file's
    deepest key the path shares, else the kustomization.yaml of the folder that was
    built."""

    def __init__(self, base: str, folder: str | None = None) -> None:
        self.base = base  # the folder origin paths are relative to
        self.folder = folder  # the user's kustomization folder
        self._docs: dict[str, list[Document] | None] = {}
        self._patches: list[Patch] | None = None

    def __call__(
        self, doc: Document, path: tuple, at: str, location: Location
    ) -> tuple[Location, str | None, Location | None]:
        origin = origin_of(doc.data)
        if "repo" in origin:
            remote = f"{origin['repo']}//{origin.get('path', '')}"
            template = remote + (f"?ref={origin['ref']}" if "ref" in origin else "")
            return self._kustomization(location), template, None
        relative = origin.get("path") or origin.get("configuredIn")
        if not relative:
            return self._kustomization(location), None, None
        file = os.path.normpath(os.path.join(self.base, relative))
        template = display_path(file)
        if "path" not in origin:
            # Made by a generator: the kustomization that configures it.
            if os.path.isfile(file):
                return Location(template, 1, 1, 1, 1), template, None
            return self._kustomization(location), template, None
        target = self._match(file, doc.data)
        translated = _translate(doc.data, target.data, path) if target is not None else None
        if target is None or translated is None:
            return self._elsewhere(doc, path, at, location, file, target), template, None
        steps, complete = translated
        if complete:
            # a mapping or list other than the origin's: a JSON6902 op may have written it
            # whole (list items are matched by name, mappings are not compared)
            held, made = _at(target.data, steps), _at(doc.data, path)
            written = self._in_ops(doc.data, target.data, path, at) if held != made else None
        else:
            written = self._removed(doc.data, target.data, path, steps)
        if written is not None:
            return written, template, None
        span, _depth = positions.resolve(
            target.node, steps, at if complete else "key", target.source.text
        )
        mapped = Location(template, *span)
        return mapped, template, mapped

    def origin_document(self, doc: Document) -> Document | None:
        """The document of a local origin file that ``doc`` was built from, if found."""
        origin = origin_of(doc.data)
        if "repo" in origin or "path" not in origin:
            return None
        return self._match(os.path.normpath(os.path.join(self.base, origin["path"])), doc.data)

    def generated_file(self, doc: Document, key: str) -> str | None:
        """The file a ``configMapGenerator`` read into data key ``key`` of the ConfigMap
        ``doc`` was made from (``files: [key=path]`` or ``[path]``, relative to the
        kustomization that configures it), else None."""
        origin = origin_of(doc.data)
        if "path" in origin or "repo" in origin or "configuredIn" not in origin:
            return None
        kfile = os.path.normpath(os.path.join(self.base, origin["configuredIn"]))
        spec = load_spec(kfile) if os.path.isfile(kfile) else {}
        made = _name(doc.data)
        generators = spec.get("configMapGenerator")
        for generator in generators if isinstance(generators, list) else ():
            name = generator.get("name") if isinstance(generator, dict) else None
            # the name, or the name and the hash suffix kustomize appends by default
            if not isinstance(name, str) or made not in (name, *_hashed(made, name)):
                continue
            files = generator.get("files")
            for item in files if isinstance(files, list) else ():
                if not isinstance(item, str):
                    continue
                named, _sep, path = item.rpartition("=")
                if (named or os.path.basename(path)) != key:
                    continue
                folder = os.path.dirname(kfile)
                found = os.path.normpath(os.path.join(folder, path))
                # what kustomize itself loads (LoadRestrictionsRootOnly): inside that folder
                return (
                    found if inside(os.path.realpath(found), [os.path.realpath(folder)]) else None
                )
        return None

    def _elsewhere(
        self,
        doc: Document,
        path: tuple,
        at: str,
        location: Location,
        file: str,
        target: Document | None,
    ) -> Location:
        origin = target.data if target is not None else None
        for patch in self._patch_files():
            found = self._in_patch(patch, doc.data, origin, path, at)
            if found is not None:
                return found
        if target is not None:
            shared = _shared(doc.data, target.data, path)
            # Never the origin's own, different value where a JSON6902 patch may have set
            # it: its entry, or the kustomization that was built when its target is
            # undecided. A transformer's value (``images:``...) stays on the origin's line.
            written = None
            if _differs(doc.data, target.data, path, shared):
                written = self._entry(doc.data, origin, path, location)
            if written is None:
                span, _depth = positions.resolve(target.node, shared)
                written = Location(display_path(file), *span)
            return written
        return self._entry(doc.data, origin, path, location) or self._kustomization(location)

    def _kustomization(self, location: Location) -> Location:
        found = kustomization_file(self.folder) if self.folder else None
        return Location(display_path(found), 1, 1, 1, 1) if found else location

    def _patch_files(self) -> list[Patch]:
        """The patches of the folder, its components and the local bases it builds on,
        the last applied first."""
        if self._patches is None:
            self._patches = _patches_of(self.folder, set(), top=True) if self.folder else []
        return self._patches

    def _in_patch(
        self, patch: Patch, rendered: Any, origin: Any, path: tuple, at: str
    ) -> Location | None:
        """Where the patch sets the value at ``path`` of the object rendered as
        ``rendered`` (from the origin document ``origin``), if it does."""
        ops = self._op_list(patch)
        if ops is not None:
            return self._in_op_list(patch, ops, rendered, origin, path, at)
        if patch.json_only:
            return None
        file, inline = patch.file, patch.inline
        if not inline:
            found = self._match(file, rendered)
            translated = _translate(rendered, found.data, path) if found is not None else None
            if found is None or translated is None or not translated[1]:
                return None
            span, _depth = positions.resolve(found.node, translated[0], at, found.source.text)
            return Location(display_path(file), *span)
        docs = self._load(file)
        kustomization = docs[0] if docs else None
        string = _at(kustomization.data, inline) if kustomization is not None else None
        smp = mapping_in(string) if isinstance(string, str) else None
        if kustomization is None or smp is None or not isinstance(rendered, dict):
            return None
        if smp.get("kind") != rendered.get("kind"):
            return None
        translated = _translate(rendered, smp, path)
        if translated is None or not translated[1]:
            return None
        steps = (*inline, INSIDE, *translated[0])
        span, _depth = positions.resolve(kustomization.node, steps, at, kustomization.source.text)
        return Location(display_path(file), *span)

    def _in_ops(self, rendered: Any, origin: Any, path: tuple, at: str) -> Location | None:
        """Where a JSON6902 op wrote the node at ``path``, if one did."""
        for patch in self._patch_files():
            ops = self._op_list(patch)
            found = self._in_op_list(patch, ops, rendered, origin, path, at) if ops else None
            if found is not None:
                return found
        return None

    def _in_op_list(
        self, patch: Patch, ops: OpList, rendered: Any, origin: Any, path: tuple, at: str
    ) -> Location | None:
        if selects(patch.target, rendered, origin, patch.current) is not True:
            return None  # not applied to this object, or undecided: no claim
        claimed = _claim(ops[0], rendered, path)
        if claimed is None:
            return None
        steps, complete = claimed
        _ops, node, text, prefix, shown = ops
        span, _depth = positions.resolve(node, (*prefix, *steps), at if complete else "key", text)
        return Location(shown, *span)

    def _op_list(self, patch: Patch) -> OpList | None:
        """The patch's JSON6902 ops, with the node, text and steps to place them by; None
        for a strategic-merge patch (a mapping) or what cannot be read."""
        docs = self._load(patch.file)
        if not docs:
            return None
        if not patch.inline:
            ops = ops_of(docs[0].data) if len(docs) == 1 else None
            if ops is None:
                return None
            return ops, docs[0].node, docs[0].source.text, (), display_path(patch.file)
        text = _at(docs[0].data, patch.inline)
        ops = ops_in(text) if isinstance(text, str) else None
        if ops is None:
            return None
        # inside the block scalar, as an inline strategic-merge patch is placed
        steps = (*patch.inline, INSIDE)
        return ops, docs[0].node, docs[0].source.text, steps, display_path(patch.file)

    def _removed(self, rendered: Any, origin: Any, path: tuple, steps: tuple) -> Location | None:
        """The ``remove`` op of a JSON6902 patch that took away the key at which ``path``
        leaves the rendered object, when the origin document holds that key."""
        depth = len(steps)
        held = _at(origin, steps)
        if depth >= len(path) or not isinstance(path[depth], str) or path[depth] == INSIDE:
            return None
        if not isinstance(held, dict) or path[depth] not in held:
            return None
        gone = path[: depth + 1]
        for patch in self._patch_files():
            ops = self._op_list(patch)
            if ops is None or selects(patch.target, rendered, origin, patch.current) is not True:
                continue
            for i in reversed(range(len(ops[0]))):
                op = ops[0][i]
                tokens = pointer(op.get("path"))
                if op.get("op") != "remove" or tokens is None or len(tokens) != len(gone):
                    continue
                if tokens[-1] == gone[-1] and covered(tokens[:-1], gone[:-1], rendered):
                    _ops, node, text, prefix, shown = ops
                    span, _depth = positions.resolve(node, (*prefix, i, "path"), "key", text)
                    return Location(shown, *span)
        return None

    def _entry(
        self, rendered: Any, origin: Any, path: tuple, location: Location
    ) -> Location | None:
        """The entry of the last applied JSON6902 patch that applies to the object and
        has an op on the way to ``path`` (its index may differ in the rendered list); the
        built kustomization when whether such a patch applies is undecided; else None."""
        for patch in self._patch_files():
            ops = self._op_list(patch)
            if ops is None or not any(related(pointer(op.get("path")), path) for op in ops[0]):
                continue
            applies = selects(patch.target, rendered, origin, patch.current)
            if applies is None:
                return self._kustomization(location)
            if not applies:
                continue
            docs = self._load(patch.kustomization)
            if not docs:
                continue
            steps = patch.inline or (*patch.entry, "path")
            span, _depth = positions.resolve(docs[0].node, steps, "key")
            return Location(display_path(patch.kustomization), *span)
        return None

    def _match(self, file: str, rendered: Any) -> Document | None:
        docs = self._load(file)
        if not docs or not isinstance(rendered, dict):
            return None
        kind = rendered.get("kind")
        same = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == kind]
        if len(same) <= 1:
            return same[0] if same else None
        name = str((rendered.get("metadata") or {}).get("name", ""))
        exact = [d for d in same if _name(d.data) == name]
        if len(exact) == 1:
            return exact[0]
        inside = [d for d in same if _name(d.data) and _name(d.data) in name]
        return inside[0] if len(inside) == 1 else None

    def _load(self, file: str) -> list[Document] | None:
        if file not in self._docs:
            self._docs[file] = None
            try:
                with open(file, "rb") as handle:
                    source = decode(display_path(file), handle.read())
            except OSError:
                return None
            if isinstance(source, Source):
                docs, _errors = parse(source)
                self._docs[file] = docs
        return self._docs[file]


def _hashed(made: str, name: str) -> tuple[str, ...]:
    """``made`` when it is ``name`` with a kustomize hash suffix (``-`` and 10 characters)."""
    suffix = made[len(name) :]
    return (made,) if made.startswith(name) and len(suffix) == 11 and suffix[0] == "-" else ()


def _name(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return str(meta.get("name", "")) if isinstance(meta, dict) else ""


def _translate(rendered: Any, origin: Any, path: tuple) -> tuple[tuple, bool] | None:
    """The same place in the origin document, or None when it did not come from there."""
    steps: list = []
    for step in path:
        if isinstance(rendered, str) and not isinstance(step, int):
            # YAML in a literal block (an Argo CD helm.values, a ConfigMap's values.yaml):
            # the same text in both, read inside (positions.resolve steps into it)
            if rendered != origin:
                return None  # a patch changed the text
            if mapping_in(rendered) is None:
                return tuple(steps), False
            rendered, origin = mapping_in(rendered), mapping_in(rendered)
            if step == INSIDE:
                steps.append(step)
                continue
        if isinstance(step, int):
            if not isinstance(rendered, list) or not isinstance(origin, list):
                return None
            if not 0 <= step < len(rendered):
                return tuple(steps), False
            item = rendered[step]
            name = item.get("name") if isinstance(item, dict) else None
            if name is not None:
                index = next(
                    (
                        i
                        for i, o in enumerate(origin)
                        if isinstance(o, dict) and o.get("name") == name
                    ),
                    None,
                )
            else:
                index = step if len(rendered) == len(origin) else None
            if index is None:
                return None
            steps.append(index)
            rendered, origin = item, origin[index]
            continue
        if not isinstance(rendered, dict) or step not in rendered:
            return tuple(steps), False  # the report is at the deepest node that exists
        if not isinstance(origin, dict) or step not in origin:
            return None  # added by a patch or a transformer
        steps.append(step)
        rendered, origin = rendered[step], origin[step]
    if not isinstance(rendered, dict | list) and rendered != origin:
        return None  # a patch changed the value
    return tuple(steps), True


def _shared(rendered: Any, origin: Any, path: tuple) -> tuple:
    """The longest start of ``path`` both documents hold (list items matched by name)."""
    steps: list = []
    for step in path:
        if isinstance(step, int):
            if not isinstance(rendered, list) or not isinstance(origin, list):
                break
            if not 0 <= step < len(rendered):
                break
            name = rendered[step].get("name") if isinstance(rendered[step], dict) else None
            index = next(
                (i for i, o in enumerate(origin) if isinstance(o, dict) and o.get("name") == name),
                None,
            )
            if index is None:
                break
            steps.append(index)
            rendered, origin = rendered[step], origin[index]
            continue
        if not (isinstance(rendered, dict) and isinstance(origin, dict)):
            break
        if step not in rendered or step not in origin:
            break
        steps.append(step)
        rendered, origin = rendered[step], origin[step]
    return tuple(steps)


def _patches_of(folder: str, seen: set[str], top: bool = False) -> list[Patch]:
    """The patches a build of ``folder`` applies, the last applied first: its own
    (``patchesJson6902``, applied after ``patches``, applied after
    ``patchesStrategicMerge``; the later entry first), its components' (the later one
    first, each with its own components' after its own patches), then those of what its
    resources and bases build on.

    Followed as kustomize follows them, and as the checks before the build did
    (``remote.py``, ``links.py``): from each kustomization's real place, local paths only
    (a remote reference is never read), so every file read here is one those checks passed.
    """
    real = os.path.realpath(folder)
    kfile = kustomization_file(real)
    if real in seen or kfile is None or len(seen) > 50:
        return []
    seen.add(real)
    spec = load_spec(kfile)
    found: list[Patch] = []
    for name in ("patchesJson6902", "patches"):
        json_only = name == "patchesJson6902"
        current = top and not any(spec.get(later) for later in _AFTER[name])
        for i, entry in reversed(list(enumerate(_list(spec.get(name))))):
            if not isinstance(entry, dict):
                continue
            target = entry.get("target")
            if isinstance(entry.get("patch"), str):
                inline = (name, i, "patch")
                found.append(Patch(kfile, inline, kfile, (name, i), target, json_only, current))
            elif isinstance(entry.get("path"), str):
                path = _local(real, entry["path"])
                if path is not None and os.path.isfile(path):
                    found.append(Patch(path, (), kfile, (name, i), target, json_only, current))
    for i, entry in reversed(list(enumerate(_list(spec.get("patchesStrategicMerge"))))):
        at = ("patchesStrategicMerge", i)
        if isinstance(entry, str) and "\n" in entry:
            found.append(Patch(kfile, at, kfile, at))
        elif isinstance(entry, str):
            path = _local(real, entry)
            if path is not None and os.path.isfile(path):
                found.append(Patch(path, (), kfile, at))
    components = [e for e in _list(spec.get("components")) if isinstance(e, str)]
    for entry in [*reversed(components), *_list(spec.get("resources")), *_list(spec.get("bases"))]:
        sub = _local(real, entry) if isinstance(entry, str) else None
        if sub is not None and os.path.isdir(sub):
            found.extend(_patches_of(sub, seen))
    return found


def _claim(ops: list[dict], rendered: Any, path: tuple) -> tuple[tuple, bool] | None:
    """(steps into the op list, whether the whole path was found) of the last op that
    wrote the node at ``path``: an ``add`` or ``replace`` whose ``path`` is ``path`` or
    holds it, at the node of its ``value`` the rest of the path leads to (the rendered
    node there must be what the op wrote: a later change is not the op's); a ``copy`` or
    ``move``, at its ``from``. A ``remove`` (or ``test``) writes nothing."""
    for i in reversed(range(len(ops))):
        op = ops[i]
        tokens = pointer(op.get("path"))
        if tokens is None:
            continue
        if op.get("op") in BRINGS and pointer(op.get("from")) is not None:
            if covered(tokens, path, rendered):
                return (i, "from"), True
            continue
        if op.get("op") not in SETS or "value" not in op:
            continue
        if not covered(tokens, path, rendered, op["value"]):
            continue
        depth = len(tokens)
        translated = _translate(_at(rendered, path[:depth]), op["value"], path[depth:])
        if translated is not None:
            return (i, "value", *translated[0]), translated[1]
    return None


def _differs(rendered: Any, origin: Any, path: tuple, shared: tuple) -> bool:
    """Whether the origin's node at ``shared`` (the part of ``path`` both hold) is a value
    other than the rendered one: a line that would send the reader to what is not there."""
    held = _at(origin, shared)
    return not isinstance(held, dict | list) and held != _at(rendered, path[: len(shared)])


def _local(folder: str, entry: str) -> str | None:
    """The local path ``entry`` of the kustomization in ``folder`` names; None for an
    inline patch or a remote reference (kustomize_refs.refs_of reads entries the same way)."""
    if not entry or "\n" in entry or is_remote(entry):
        return None
    return os.path.normpath(os.path.join(folder, entry))


def _at(data: Any, steps: tuple) -> Any:
    for step in steps:
        if isinstance(step, int) and isinstance(data, list) and 0 <= step < len(data):
            data = data[step]
        elif isinstance(step, str) and isinstance(data, dict):
            data = data.get(step)
        else:
            return None
    return data


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []
