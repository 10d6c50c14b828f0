"""``gpulint lsp`` end to end over stdio (pytest-lsp): open, diagnose, fix, hover, config."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.helpers import ROOT

pytestmark = pytest.mark.asyncio

DEFECT = (ROOT / "examples/broken/gpu-request-without-limit.yaml").read_text()
# line 24 (0-based 23): `          nvidia.com/gpu: 2` under requests, no limit
GPU101_RANGE = types.Range(
    start=types.Position(line=23, character=10), end=types.Position(line=23, character=27)
)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "gpulint", "lsp"])
)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="workspace")],
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """TextEdits (ASCII text, non-overlapping) applied as an editor does, last first."""
    lines = text.splitlines(True)

    def offset(pos: types.Position) -> int:
        return sum(len(line) for line in lines[: pos.line]) + pos.character

    ordered = sorted(edits, key=lambda e: offset(e.range.start), reverse=True)
    for edit in ordered:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def _open(client: LanguageClient, path: Path, text: str) -> list[types.Diagnostic]:
    path.write_text(text)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=path.as_uri(), language_id="yaml", version=1, text=text
            )
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


async def _change(
    client: LanguageClient, path: Path, text: str, version: int
) -> list[types.Diagnostic]:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[path.as_uri()])


async def _actions(
    client: LanguageClient, path: Path, rng: types.Range, only: list | None = None
) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=rng,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [a for a in found or () if isinstance(a, types.CodeAction)]


async def test_a_gpu101_defect_is_diagnosed_fixed_by_its_quick_fix_and_gone(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "pod.yaml"
    diagnostics = await _open(client, path, DEFECT)
    assert [(d.code, d.range, d.severity, d.source) for d in diagnostics] == [
        ("GPU101", GPU101_RANGE, types.DiagnosticSeverity.Error, "gpulint")
    ]
    assert diagnostics[0].message.startswith("nvidia.com/gpu is requested (2) but has no limit")
    assert diagnostics[0].code_description is not None
    assert diagnostics[0].code_description.href.endswith("/docs/rules/GPU101.md")

    hovered = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            position=types.Position(line=23, character=14),
        )
    )
    assert hovered is not None and isinstance(hovered.contents, types.MarkupContent)
    assert hovered.contents.value.startswith("# GPU101 gpu-limit-missing\n")
    assert "## Why it matters" in hovered.contents.value
    assert "## How to fix" in hovered.contents.value

    actions = await _actions(client, path, GPU101_RANGE)
    fixes = [a for a in actions if a.is_preferred]
    assert [a.kind for a in fixes] == [types.CodeActionKind.QuickFix]
    assert fixes[0].title.endswith("(GPU101)") and "unsafe" not in fixes[0].title
    assert fixes[0].edit is not None and fixes[0].edit.changes is not None
    fixed = _apply(DEFECT, fixes[0].edit.changes[path.as_uri()])
    assert '        limits:\n          cpu: "16"\n          memory: 64Gi\n' in fixed
    assert fixed.count("nvidia.com/gpu: 2") == 2

    started = time.monotonic()
    assert await _change(client, path, fixed, 2) == []
    assert time.monotonic() - started < 1.0  # debounced (0.3 s), then published


async def test_fix_all_and_the_suppression_comment(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    await _open(client, path, DEFECT)
    fix_all = await _actions(client, path, GPU101_RANGE, only=["source.fixAll.gpulint"])
    assert [(a.title, a.kind) for a in fix_all] == [
        ("gpulint: fix all safe fixes in this file", "source.fixAll.gpulint")
    ]
    assert fix_all[0].edit is not None and fix_all[0].edit.changes is not None
    quick = [a for a in await _actions(client, path, GPU101_RANGE) if a.is_preferred]
    assert quick[0].edit is not None and quick[0].edit.changes is not None
    uri = path.as_uri()
    assert fix_all[0].edit.changes[uri] == quick[0].edit.changes[uri]  # the one safe fix

    suppress = [a for a in await _actions(client, path, GPU101_RANGE) if "Suppress" in a.title]
    assert [a.title for a in suppress] == ["Suppress GPU101 on this line (write the reason)"]
    assert suppress[0].edit is not None and suppress[0].edit.changes is not None
    edits = suppress[0].edit.changes[uri]
    assert [(e.range.start, e.new_text) for e in edits] == [
        (types.Position(line=23, character=27), "  # gpulint: disable=GPU101 <reason>")
    ]
    assert await _change(client, path, _apply(DEFECT, edits), 2) == []  # suppressed


@pytest.mark.slow
async def test_a_document_that_does_not_parse_gets_one_diagnostic_at_the_error(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [broken\n"
    diagnostics = await _open(client, tmp_path / "broken.yaml", text)
    assert [(d.code, d.range.start.line, d.severity) for d in diagnostics] == [
        ("input", 4, types.DiagnosticSeverity.Error)
    ]
    assert "invalid YAML" in diagnostics[0].message


@pytest.mark.slow
async def test_the_workspace_config_file_is_honoured(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / ".gpulint.yaml").write_text("ignore: [GPU101]\n")
    assert await _open(client, tmp_path / "pod.yaml", DEFECT) == []
