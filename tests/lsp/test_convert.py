"""Findings and fixes -> LSP ranges, diagnostics and edits; hover text from the catalog."""

from __future__ import annotations

from lsprotocol import types

from gpulint.core.findings import (
    Edit,
    Finding,
    FixInfo,
    FixSafety,
    InputError,
    Location,
    Related,
    Severity,
)
from gpulint.lsp import actions, convert, hover


def _range(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(
        start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)
    )


def test_a_span_is_zero_based_with_the_exclusive_end_kept() -> None:
    assert convert.span(24, 11, 24, 28) == _range(23, 10, 23, 27)
    assert convert.span(3, 5, 4, 1) == _range(2, 4, 3, 0)  # up to the next line's start
    assert convert.span(2, 5, 2, 5) == _range(1, 4, 1, 4)  # zero width stays zero width
    assert convert.span(2, 5, 1, 1) == _range(1, 4, 1, 4)  # never an end before the start


def _finding(severity: Severity = Severity.ERROR, code: str = "GPU101") -> Finding:
    other = Related(Location("/w/other.yaml", 3, 1, 3, 9), "the other deploys v0.17.0")
    return Finding(
        code,
        "gpu-limit-missing",
        severity,
        "no limit",
        Location("/w/pod.yaml", 24, 11, 24, 28),
        related=(other,),
    )


def test_a_finding_is_a_diagnostic_with_code_severity_page_and_related_places() -> None:
    found = convert.diagnostic(_finding(), builtin={"GPU101"})
    assert (found.code, found.range, found.source, found.message) == (
        "GPU101",
        _range(23, 10, 23, 27),
        "gpulint",
        "no limit",
    )
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.code_description is not None
    assert found.code_description.href == (
        "https://github.com/gpulint/gpulint/blob/main/docs/rules/GPU101.md"
    )
    assert found.related_information is not None
    assert [(r.location.uri, r.location.range, r.message) for r in found.related_information] == [
        ("file:///w/other.yaml", _range(2, 0, 2, 8), "the other deploys v0.17.0")
    ]
    custom = convert.diagnostic(_finding(Severity.NOTE, "TEAM001"), builtin={"GPU101"})
    assert custom.code_description is None  # a custom rule has no page
    assert custom.severity == types.DiagnosticSeverity.Information
    warning = convert.diagnostic(_finding(Severity.WARNING))
    assert warning.severity == types.DiagnosticSeverity.Warning


def test_an_input_error_spans_from_the_error_to_the_end_of_its_line() -> None:
    error = InputError("/w/x.yaml", "invalid YAML: ...", 5, 3)
    found = convert.error_diagnostic(error, "  name: [broken")
    assert (found.code, found.range) == ("input", _range(4, 2, 4, 15))


def test_fix_edits_become_text_edits_and_unsafe_fixes_say_so() -> None:
    edit = Edit(199, 199, "        limits:\n", 12, 1, 12, 1)
    fix = FixInfo("Add the limit", FixSafety.UNSAFE, "/w/pod.yaml", (edit,))
    assert convert.text_edits(fix) == [
        types.TextEdit(range=_range(11, 0, 11, 0), new_text="        limits:\n")
    ]
    assert convert.fix_title(fix) == "Add the limit (unsafe fix)"
    finding = _finding()
    finding.fix = fix
    (action,) = actions.quick_fixes("file:///w/pod.yaml", [finding], frozenset(), lambda r: r)
    assert (action.is_preferred, action.kind) == (False, types.CodeActionKind.QuickFix)
    assert actions.fix_all("file:///w/pod.yaml", [finding], lambda r: r) is None  # safe only


def test_hover_knows_products_mig_profiles_and_resource_names() -> None:
    product = hover.catalog_text("NVIDIA-A100-SXM4-80GB")
    assert product is not None and "81920 MiB" in product and "`1g.10gb`" in product
    mig = hover.catalog_text("nvidia.com/mig-1g.10gb")
    assert mig is not None and "NVIDIA-A100-SXM4-80GB" in mig
    assert hover.catalog_text("nvidia.com/gpu") == (
        "`nvidia.com/gpu`: a GPU resource the device plugin advertises"
    )
    assert hover.catalog_text("memory") is None
    line = "    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB"
    assert hover.word_at(line, 34) == "NVIDIA-A100-SXM4-80GB"
