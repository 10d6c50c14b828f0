"""A report's fix -> the finding's :class:`~gpulint.findings.FixInfo`, where it may be applied.

Only a file gpulint read as it is can be edited. Helm output never is: the text came
from a template, and the same template line serves every release and every value
(kube-linter's open question since 2020); a rendered stream mapped to its chart
(--chart-dir) neither. Kustomize output is not edited either: the origin file is
fixed by hand (its node may have been changed by a patch).
"""

from __future__ import annotations

from gpulint.findings import FixInfo
from gpulint.fix.resolve import Unfixable, edits_for
from gpulint.fix.spec import SAFE, Fix
from gpulint.yaml.parse import Document

NOT_FROM_A_FILE = {
    "helm": "rendered by Helm: gpulint never edits templates (the same template line serves "
    "every release and value); change the chart's template or values by hand",
    "kustomize": "built by Kustomize: the origin file is not edited (a patch or transformer "
    "may have produced the node); fix the origin file by hand",
    "stdin": "read from standard input: there is no file to write",
}
MAPPED = "mapped to a Helm template (--chart-dir): gpulint never edits templates"


def fix_info(doc: Document, prefix: tuple, fix: Fix, declared: str | None) -> FixInfo:
    """The edits of ``fix`` (paths relative to ``prefix``) in the document's file."""
    source = doc.source
    safety = fix.safety or declared or SAFE
    reason = NOT_FROM_A_FILE.get(source.origin)
    if reason is None and source.meta.get("mapper") is not None:
        reason = MAPPED
    if reason is None:
        try:
            edits = edits_for(doc, fix.shifted(tuple(prefix)))
        except Unfixable as exc:
            return FixInfo(fix.title, safety, source.path, (), f"not fixable here: {exc}")
        return FixInfo(fix.title, safety, source.path, edits)
    return FixInfo(fix.title, safety, source.path, (), reason)
