"""Kustomize's ``config.kubernetes.io/origin`` -> the line in the file a resource came from.

The rendered resource is matched to a document of its origin file (same kind,
then the name the transformers left recognisable), and the finding's path is
followed in that document: list items by their ``name`` (patches reorder and
add containers), scalars must be equal (a value a patch changed did not come
from the origin file). Anything else falls back to the rendered stream.
"""

from __future__ import annotations

import os
from typing import Any

from gpulint.core.findings import Location
from gpulint.core.sources import Source, decode
from gpulint.inputs.discover import display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import is_remote, load_spec
from gpulint.inputs.tree import inside
from gpulint.yaml import positions
from gpulint.yaml.embedded import INSIDE, mapping_in
from gpulint.yaml.parse import Document, parse

ORIGIN = "config.kubernetes.io/origin"
# A strategic-merge patch: a file, and () or the path to an inline patch in that file
# (a kustomization's ``patches: [{patch: ...}]`` or a string of ``patchesStrategicMerge``).
Patch = tuple[str, tuple]


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
    line, else the patch that set the value, else the origin file's deepest key the
    path shares, else the kustomization.yaml of the folder that was built."""

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
        for patch, inline in self._patch_files():
            found = self._in_patch(patch, inline, doc.data, path, at)
            if found is not None:
                return found
        if target is not None:
            span, _depth = positions.resolve(target.node, _shared(doc.data, target.data, path))
            return Location(display_path(file), *span)
        return self._kustomization(location)

    def _kustomization(self, location: Location) -> Location:
        found = kustomization_file(self.folder) if self.folder else None
        return Location(display_path(found), 1, 1, 1, 1) if found else location

    def _patch_files(self) -> list[Patch]:
        """The strategic-merge patches of the folder, its components and the local bases
        it builds on."""
        if self._patches is None:
            self._patches = _patches_of(self.folder, set()) if self.folder else []
        return self._patches

    def _in_patch(
        self, file: str, inline: tuple, rendered: Any, path: tuple, at: str
    ) -> Location | None:
        """Where the patch (``file``, or the string at ``inline`` in the kustomization
        ``file``) sets the value at ``path``, if it does."""
        if not inline:
            found = self._match(file, rendered)
            translated = _translate(rendered, found.data, path) if found is not None else None
            if found is None or translated is None or not translated[1]:
                return None
            span, _depth = positions.resolve(found.node, translated[0], at, found.source.text)
            return Location(display_path(file), *span)
        docs = self._load(file)
        kustomization = docs[0] if docs else None
        text = _at(kustomization.data, inline) if kustomization is not None else None
        patch = mapping_in(text) if isinstance(text, str) else None
        if kustomization is None or patch is None or not isinstance(rendered, dict):
            return None
        if patch.get("kind") != rendered.get("kind"):
            return None
        translated = _translate(rendered, patch, path)
        if translated is None or not translated[1]:
            return None
        steps = (*inline, INSIDE, *translated[0])
        span, _depth = positions.resolve(kustomization.node, steps, at, kustomization.source.text)
        return Location(display_path(file), *span)

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
            if rendered != origin or mapping_in(rendered) is None:
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


def _patches_of(folder: str, seen: set[str]) -> list[Patch]:
    """The strategic-merge patches a build of ``folder`` applies, the last applied first:
    its own (``patches:``, applied after ``patchesStrategicMerge:``; the later entry
    first), its components' (the later one first, each with its own components' after its
    own patches), then those of what its resources and bases build on.

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
    for i, entry in reversed(list(enumerate(_list(spec.get("patches"))))):
        if isinstance(entry, dict) and isinstance(entry.get("patch"), str):
            found.append((kfile, ("patches", i, "patch")))
        elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
            found.extend(_patch_file(real, entry["path"]))
    for i, entry in reversed(list(enumerate(_list(spec.get("patchesStrategicMerge"))))):
        if isinstance(entry, str) and "\n" in entry:
            found.append((kfile, ("patchesStrategicMerge", i)))
        elif isinstance(entry, str):
            found.extend(_patch_file(real, entry))
    components = [e for e in _list(spec.get("components")) if isinstance(e, str)]
    for entry in [*reversed(components), *_list(spec.get("resources")), *_list(spec.get("bases"))]:
        sub = _local(real, entry) if isinstance(entry, str) else None
        if sub is not None and os.path.isdir(sub):
            found.extend(_patches_of(sub, seen))
    return found


def _patch_file(folder: str, entry: str) -> list[Patch]:
    path = _local(folder, entry)
    return [(path, ())] if path is not None and os.path.isfile(path) else []


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
