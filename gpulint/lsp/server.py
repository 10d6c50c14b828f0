"""``gpulint lsp``: diagnostics, code actions and hover over stdio (pygls).

Linting runs in a worker thread, one document at a time (the engine keeps per-run state
in its context, and rule modules load once); typing is debounced, so a burst of changes
costs one lint, ~300 ms after the last key.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from gpulint import __version__
from gpulint.core.findings import Finding
from gpulint.core.record import record
from gpulint.lsp import actions, convert, hover
from gpulint.lsp.linting import Linted, builtin_codes, lint_document

DEBOUNCE = 0.3  # seconds after the last change


@record
class Published:
    """The last lint of a document: for the version it read, with the lines it read."""

    version: int | None
    lines: list[str]
    linted: Linted


def _encoder(doc: TextDocument, lines: list[str]) -> convert.Encode:
    """Code-point ranges -> the client's units (UTF-16 unless negotiated otherwise)."""

    def encode(rng: types.Range) -> types.Range:
        start = ServerTextPosition(rng.start.line, rng.start.character)
        end = ServerTextPosition(rng.end.line, rng.end.character)
        return doc.position_codec.range_to_client_units(lines, ServerTextRange(start, end))

    return encode


class GpulintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("gpulint", __version__)
        self.published: dict[str, Published] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.lock = asyncio.Lock()
        self.builtin = builtin_codes()

    async def lint(self, uri: str, on_save: bool) -> None:
        doc = self.workspace.get_text_document(uri)
        if doc.path is None:
            return  # an untitled buffer has no folder or config to lint it in
        version, text = doc.version, doc.source
        async with self.lock:
            linted = await asyncio.to_thread(lint_document, doc.path, text, on_save)
        if linted.deferred:
            return  # a chart's or kustomization's file: its diagnostics wait for the save
        lines = list(doc.lines) if linted.unit else text.splitlines(True)
        self.published[uri] = Published(version, lines, linted)
        encode = _encoder(doc, lines)
        diagnostics = [convert.diagnostic(f, self.builtin, encode) for f in linted.findings]
        diagnostics += [
            convert.error_diagnostic(e, _line(lines, e.line), encode) for e in linted.errors
        ]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def later(self, uri: str) -> None:
        """Lint once typing pauses: each change restarts the wait."""
        self.cancel(uri)
        self.pending[uri] = asyncio.ensure_future(self._after_pause(uri))

    async def _after_pause(self, uri: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        self.pending.pop(uri, None)
        await self.lint(uri, on_save=False)

    def cancel(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()

    def current(self, uri: str) -> tuple[TextDocument, Published] | None:
        """The document and its last lint, when that lint read this very version."""
        doc = self.workspace.get_text_document(uri)
        published = self.published.get(uri)
        if published is None or published.version != doc.version:
            return None
        return doc, published


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1].rstrip("\r\n") if 0 < number <= len(lines) else ""


server = GpulintServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: GpulintServer, params: types.DidOpenTextDocumentParams) -> None:
    await ls.lint(params.text_document.uri, on_save=True)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GpulintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.later(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: GpulintServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.cancel(params.text_document.uri)
    await ls.lint(params.text_document.uri, on_save=True)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GpulintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.cancel(uri)
    ls.published.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _at(findings: list[Finding], rng: types.Range) -> list[Finding]:
    return [f for f in findings if actions.overlaps(convert.location_range(f.location), rng)]


def _server_range(doc: TextDocument, lines: list[str], rng: types.Range) -> types.Range:
    found = doc.position_codec.range_from_client_units(lines, rng)
    return convert.span(
        found.start.line + 1, found.start.character + 1, found.end.line + 1, found.end.character + 1
    )


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=actions.KINDS)
)
def code_action(ls: GpulintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    found = ls.current(uri)
    if found is None:
        return []
    doc, published = found
    encode = _encoder(doc, published.lines)
    findings = published.linted.findings
    only = params.context.only
    result: list[types.CodeAction] = []
    if not only or types.CodeActionKind.QuickFix in only:
        here = _at(findings, _server_range(doc, published.lines, params.range))
        result += actions.quick_fixes(uri, here, ls.builtin, encode)
        result += actions.suppressions(uri, here, published.lines, encode)
    kinds = [k for k in (only or [actions.FIX_ALL]) if k.startswith(types.CodeActionKind.Source)]
    if kinds:
        everything = actions.fix_all(uri, findings, encode, kinds[0])
        result += [everything] if everything is not None else []
    return result


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: GpulintServer, params: types.HoverParams) -> types.Hover | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    at = doc.position_from_client_units(params.position)
    point = types.Range(
        start=types.Position(line=at.line, character=at.character),
        end=types.Position(line=at.line, character=at.character),
    )
    published = ls.published.get(params.text_document.uri)
    texts: list[str] = []
    if published is not None and published.linted.registry is not None:
        for code in dict.fromkeys(f.code for f in _at(published.linted.findings, point)):
            page = hover.rule_page(code, published.linted.registry)
            texts += [page] if page else []
    if not texts:
        lines = doc.lines
        line = lines[at.line] if at.line < len(lines) else ""
        known = hover.catalog_text(hover.word_at(line, at.character))
        texts += [known] if known else []
    if not texts:
        return None
    value = "\n\n---\n\n".join(texts)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


def serve() -> None:
    """Serve one client over standard input and output until it says exit."""
    server.start_io()
