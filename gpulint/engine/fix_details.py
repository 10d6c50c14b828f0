"""A report's fix -> the finding's :class:`~gpulint.core.findings.FixInfo`, where it may be applied.

Only a file gpulint read as it is can be edited. Helm output never is: the text came
from a template, and the same template line serves every release and every value
(kube-linter's open question since 2020); a rendered stream mapped to its chart
(--chart-dir) neither. Kustomize output is fixed in its origin file, only where the
node came from that file unchanged (gpulint/inputs/render/origin_fix.py).
"""

from __future__ import annotations

from gpulint.core.findings import FixInfo, FixSafety
from gpulint.core.sources import Source
from gpulint.inputs.render.origin_fix import translate
from gpulint.rules.fixes.resolve import Unfixable, edits_for
from gpulint.rules.fixes.spec import Fix
from gpulint.yaml.parse import Document

NOT_FROM_A_FILE = {
    "helm": "rendered by Helm: gpulint never edits templates (the same template line serves "
    "every release and value); change the chart's template or values by hand",
    "stdin": "read from standard input: there is no file to write",
}
NO_ORIGIN = (
    "built by Kustomize from no local origin file (a generator, a remote base, or no "
    "config.kubernetes.io/origin annotation): nothing to edit"
)
PATCHED = (
    "built by Kustomize: a patch or transformer produced or changed the node, so the "
    "origin file does not hold it; fix the patch or the origin file by hand"
)
MAPPED = "mapped to a Helm template (--chart-dir): gpulint never edits templates"


def fix_info(doc: Document, prefix: tuple, fix: Fix, declared: FixSafety | None) -> FixInfo:
    """The edits of ``fix`` (paths relative to ``prefix``) in the document's file."""
    source = doc.source
    safety = fix.safety or declared or FixSafety.SAFE
    if source.origin == "kustomize":
        return _in_origin_file(doc, fix.shifted(tuple(prefix)), safety)
    reason = NOT_FROM_A_FILE.get(source.origin)
    if reason is None and source.meta.get("mapper") is not None:
        reason = MAPPED
    if reason is None:
        try:
            edits = edits_for(doc, fix.shifted(tuple(prefix)))
        except Unfixable as exc:
            return FixInfo(fix.title, safety, source.path, (), f"not fixable here: {exc}")
        return FixInfo(fix.title, safety, source.path, edits, newline=_newline(source))
    return FixInfo(fix.title, safety, source.path, (), reason)


def _in_origin_file(doc: Document, fix: Fix, safety: FixSafety) -> FixInfo:
    """Kustomize output: the same fix in the origin file, when the node came from it unchanged."""
    mapper = doc.source.meta.get("mapper")
    find = getattr(mapper, "origin_document", None)
    origin = find(doc) if find is not None else None
    if origin is None:
        return FixInfo(fix.title, safety, doc.source.path, (), NO_ORIGIN)
    translated = translate(doc.data, origin.data, fix)
    if translated is None:
        return FixInfo(fix.title, safety, origin.source.path, (), PATCHED)
    try:
        edits = edits_for(origin, translated)
    except Unfixable as exc:
        return FixInfo(fix.title, safety, origin.source.path, (), f"not fixable here: {exc}")
    newline = _newline(origin.source)
    return FixInfo(fix.title, safety, origin.source.path, edits, via="kustomize", newline=newline)


def _newline(source: Source) -> str:
    return source.meta.get("newline", "\n")
