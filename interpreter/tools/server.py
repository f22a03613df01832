"""`cgl lsp`'s protocol side: documents in, diagnostics and answers out, in lsprotocol's types.

The analysis (:class:`lsp.Session`, `names.py`, `actions.py`) counts a line's characters
as Python does, in code points; the editor counts them in the encoding negotiated at
`initialize`: UTF-16 unless the client offers UTF-8 or UTF-32 first (pygls picks the
client's first choice it supports). `Positions` converts each way, with the text of the
line, so a diagnostic after two emoji lands where the editor draws it.

Only `cgl lsp` imports this module (and with it pygls), so no other command pays for it.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..base import ast as A
from ..base.diagnostics import Diagnostic
from . import lsp, tokens
from .actions import quick_fix
from .names import span_range


def serve(version: str, stdin=None, stdout=None) -> None:  # pragma: no cover - a subprocess of tests/test_lsp.py
    """Run the language server over stdin/stdout until the client says exit."""
    server = LanguageServer("cgl", version)
    _Server(server).register()
    server.start_io(stdin, stdout)


def units(line: str, char: int, encoding: str) -> int:
    """The code point offset `char` of a line in the units of `encoding` ("utf-8", "utf-16", "utf-32")."""
    if encoding == "utf-32" or line.isascii():
        return char
    head = line[:char]
    if encoding == "utf-8":
        return len(head.encode("utf-8")) + max(char - len(line), 0)
    return len(head.encode("utf-16-le")) // 2 + max(char - len(line), 0)


def code_points(line: str, n: int, encoding: str) -> int:
    """The code point offset of the offset `n` in the units of `encoding` (one inside a
    character counts as that character)."""
    if encoding == "utf-32" or line.isascii():
        return n
    count = 0
    for i, c in enumerate(line):
        if count >= n:
            return i
        count += len(c.encode("utf-8")) if encoding == "utf-8" else (2 if ord(c) > 0xFFFF else 1)
    return len(line) + max(n - count, 0)


class _Server:
    """Documents in, diagnostics and answers out.

    One thread, off the server's loop, runs every check and request, and converts their
    positions: the session and the loader's caches are never used by two threads at once,
    and the loop stays free to read the editor's changes while a check runs."""

    def __init__(self, server):
        self.server = server
        self.session = lsp.Session()
        self.worker = ThreadPoolExecutor(max_workers=1)
        self.generation: dict = {}     # path -> how many changes so far (a check of an older one is dropped)

    # ------------------------------------------------------------ positions (on the worker's thread)
    @property
    def encoding(self) -> str:
        return str(self.server.workspace.position_encoding or "utf-16")

    def pos(self, path: str, position) -> tuple:
        """(line, code point) of an editor's position."""
        return position.line, code_points(self.session.line(path, position.line), position.character, self.encoding)

    def position(self, path: str, line: int, char: int):
        return T.Position(line, units(self.session.line(path, line), char, self.encoding))

    def range(self, sp, path: Optional[str] = None):
        """The editor's range of a Span (of its own file, else of `path`)."""
        (l0, c0), (l1, c1) = span_range(sp)
        where = lsp._norm(sp.path) if sp is not None and sp.path else path
        return T.Range(self.position(where, l0, c0), self.position(where, l1, c1))

    def location(self, sp):
        return T.Location(uri=self.uri_of(sp.path), range=self.range(sp))

    def diagnostic(self, d: Diagnostic, path: str):
        """The editor's diagnostic; its `data` holds the quick fix of its help, if it has one
        (the code action request hands it back)."""
        msg = d.message + (f"\nhelp: {d.hint}" if d.hint else "") + "".join(f"\nnote: {r}" for r in d.related)
        fix = quick_fix(d, lambda n: self.session.line(path, n)) if d.span and lsp._norm(d.span.path or "") == path \
            else None
        data = None
        if fix is not None:
            title, ((l0, c0), (l1, c1)), text = fix
            data = {"title": title, "newText": text, "range": {
                "start": {"line": l0, "character": units(self.session.line(path, l0), c0, self.encoding)},
                "end": {"line": l1, "character": units(self.session.line(path, l1), c1, self.encoding)}}}
        return T.Diagnostic(range=self.range(d.span, path), message=msg, code=d.code, source="cgl", data=data,
                            severity=T.DiagnosticSeverity.Warning if d.level == "warning"
                            else T.DiagnosticSeverity.Error)

    @staticmethod
    def path_of(uri: str) -> Optional[str]:
        p = to_fs_path(uri)
        return lsp._norm(p) if p else None

    @staticmethod
    def uri_of(path: str) -> str:
        return from_fs_path(lsp._norm(path))

    def open_texts(self) -> dict:
        out = {}
        for uri, doc in list(self.server.workspace.text_documents.items()):
            p = self.path_of(uri)
            if p:
                out[p] = doc.source
        return out

    def log_error(self, e: Exception):
        self.server.window_log_message(T.LogMessageParams(T.MessageType.Error, f"cgl: internal error: {e!r}"))

    # ------------------------------------------------------------ work on the worker's thread
    def _run(self, fn, path, texts):
        self.session.use_texts(texts)   # (a buffer over the size limit is not read: `check` says so)
        try:
            return fn(path)
        except _Refused:
            raise
        except Exception as e:   # a bug of ours: say so in the editor's log, never die
            self.log_error(e)
            return None

    async def ask(self, uri, fn):
        """`fn(path)` on the worker's thread, with the editor's texts: its answer, or None."""
        path = self.path_of(uri)
        if not path:
            return None
        return await asyncio.get_running_loop().run_in_executor(self.worker, self._run, fn, path, self.open_texts())

    async def check_soon(self, uri: str):
        """Check a document once the typing pauses, and publish what the check found."""
        path = self.path_of(uri)
        if not path:
            return
        gen = self.generation[path] = self.generation.get(path, 0) + 1
        await asyncio.sleep(lsp.DEBOUNCE)
        if self.generation.get(path) != gen:
            return   # typed again: the newer change checks
        found = await self.ask(uri, lambda p: {where: [self.diagnostic(d, where) for d in diags]
                                               for where, diags in self.session.check(p).items()})
        if found is None or self.generation.get(path) != gen:
            return
        for p, diags in found.items():
            self.publish(self.uri_of(p), diags)

    def publish(self, uri, diagnostics):
        self.server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    # ------------------------------------------------------------ answers
    async def hover(self, params):
        text = await self.ask(params.text_document.uri,
                              lambda p: self.session.hover(p, *self.pos(p, params.position)))
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text)) if text else None

    async def definition(self, params):
        def find(p):
            sp = self.session.definition(p, *self.pos(p, params.position))
            if sp is None or not sp.path or sp.path == A.NOWHERE.path:
                return None
            return self.location(sp)
        return await self.ask(params.text_document.uri, find)

    async def references(self, params):
        return await self.ask(params.text_document.uri, lambda p: [
            self.location(sp) for sp in self.session.references(p, *self.pos(p, params.position))]) or []

    async def rename(self, params):
        def edits(p):
            spans, why = self.session.rename(p, *self.pos(p, params.position), params.new_name)
            if why is not None:
                raise _Refused(why)
            changes: dict = {}
            for sp in spans:
                changes.setdefault(self.uri_of(sp.path), []).append(
                    T.TextEdit(range=self.range(sp), new_text=params.new_name))
            return T.WorkspaceEdit(changes=changes)
        found = await self.ask(params.text_document.uri, edits)
        if found is None:
            raise _Refused("the file could not be read")
        return found

    async def completion(self, params):
        items = await self.ask(params.text_document.uri,
                               lambda p: self.session.complete(p, *self.pos(p, params.position))) or []
        return T.CompletionList(is_incomplete=False, items=[
            T.CompletionItem(label=label, kind=T.CompletionItemKind(kind), detail=detail)
            for label, kind, detail in items])

    async def symbols(self, params):
        def make(s, p):
            name, kind, sp, detail, children = s
            r = self.range(sp, p)
            head = r if r.end.line == r.start.line else T.Range(r.start, T.Position(r.start.line,
                                                                                     r.start.character + 1))
            return T.DocumentSymbol(name=name, kind=T.SymbolKind(kind), range=r, selection_range=head,
                                    detail=detail, children=[make(c, p) for c in children] or None)
        return await self.ask(params.text_document.uri,
                              lambda p: [make(s, p) for s in self.session.symbols(p)]) or []

    def code_actions(self, params):
        """The quick fixes of the diagnostics the editor hands back (each carries its own)."""
        out = []
        for diag in params.context.diagnostics:
            data = diag.data if isinstance(diag.data, dict) else None
            if diag.source != "cgl" or not data or "newText" not in data:
                continue
            r = data["range"]
            edit = T.TextEdit(range=T.Range(T.Position(r["start"]["line"], r["start"]["character"]),
                                            T.Position(r["end"]["line"], r["end"]["character"])),
                              new_text=data["newText"])
            out.append(T.CodeAction(title=data["title"], kind=T.CodeActionKind.QuickFix, diagnostics=[diag],
                                    is_preferred=True,
                                    edit=T.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
        return out

    async def highlights(self, params):
        return await self.ask(params.text_document.uri, lambda p: [
            T.DocumentHighlight(range=self.range(sp), kind=T.DocumentHighlightKind.Write if written
                                else T.DocumentHighlightKind.Read)
            for sp, written in self.session.highlights(p, *self.pos(p, params.position))]) or []

    async def folding(self, params):
        kinds = {"comment": T.FoldingRangeKind.Comment, "region": T.FoldingRangeKind.Region}
        return await self.ask(params.text_document.uri, lambda p: [
            T.FoldingRange(start_line=a, end_line=b, kind=kinds[k]) for a, b, k in self.session.folding(p)]) or []

    def edits(self, path: str, found: list) -> list:
        return [T.TextEdit(range=T.Range(self.position(path, *a), self.position(path, *b)), new_text=text)
                for a, b, text in found]

    async def formatting(self, params):
        return await self.ask(params.text_document.uri,
                              lambda p: self.edits(p, self.session.formatting(p))) or []

    async def range_formatting(self, params):
        def fmt(p):
            r = params.range
            last = r.end.line - (1 if r.end.character == 0 and r.end.line > r.start.line else 0)
            return self.edits(p, self.session.formatting(p, (r.start.line, last)))
        return await self.ask(params.text_document.uri, fmt) or []

    async def signature_help(self, params):
        found = await self.ask(params.text_document.uri,
                               lambda p: self.session.signature_help(p, *self.pos(p, params.position)))
        if not found:
            return None
        label, names, doc, active = found
        return T.SignatureHelp(signatures=[T.SignatureInformation(
            label=label, documentation=T.MarkupContent(kind=T.MarkupKind.Markdown, value=doc) if doc else None,
            parameters=[T.ParameterInformation(label=n) for n in names])],
            active_signature=0, active_parameter=min(active, max(len(names) - 1, 0)))

    async def semantic_tokens(self, params):
        def encode(p):
            data, last = [], (0, 0)
            for line, char, length, kind, mods in self.session.semantic_tokens(p):
                text = self.session.line(p, line)
                start, end = units(text, char, self.encoding), units(text, char + length, self.encoding)
                data += [line - last[0], start - (last[1] if line == last[0] else 0), end - start,
                         tokens.TYPES.index(kind), sum(1 << tokens.MODIFIERS.index(m) for m in mods)]
                last = (line, start)
            return T.SemanticTokens(data=data)
        return await self.ask(params.text_document.uri, encode) or T.SemanticTokens(data=[])

    def closed(self, params):
        path = self.path_of(params.text_document.uri)
        if path:
            self.generation[path] = self.generation.get(path, 0) + 1
        self.publish(params.text_document.uri, [])

    async def changed(self, params):
        await self.check_soon(params.text_document.uri)

    def register(self):
        """Declare what the server answers: pygls calls each handler with the request's params."""
        feature = self.server.feature
        for event in (T.TEXT_DOCUMENT_DID_OPEN, T.TEXT_DOCUMENT_DID_CHANGE, T.TEXT_DOCUMENT_DID_SAVE):
            feature(event)(_handler(self.changed))
        feature(T.TEXT_DOCUMENT_DID_CLOSE)(_handler(self.closed))
        feature(T.TEXT_DOCUMENT_HOVER)(_handler(self.hover))
        feature(T.TEXT_DOCUMENT_DEFINITION)(_handler(self.definition))
        feature(T.TEXT_DOCUMENT_COMPLETION,
                T.CompletionOptions(trigger_characters=[".", '"', " "]))(_handler(self.completion))
        feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(_handler(self.symbols))
        feature(T.TEXT_DOCUMENT_REFERENCES)(_handler(self.references))
        feature(T.TEXT_DOCUMENT_RENAME)(_handler(self.rename))
        feature(T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)(_handler(self.highlights))
        feature(T.TEXT_DOCUMENT_FOLDING_RANGE)(_handler(self.folding))
        feature(T.TEXT_DOCUMENT_FORMATTING)(_handler(self.formatting))
        feature(T.TEXT_DOCUMENT_RANGE_FORMATTING)(_handler(self.range_formatting))
        feature(T.TEXT_DOCUMENT_SIGNATURE_HELP,
                T.SignatureHelpOptions(trigger_characters=["(", ","]))(_handler(self.signature_help))
        feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                T.SemanticTokensLegend(token_types=tokens.TYPES, token_modifiers=tokens.MODIFIERS))(
            _handler(self.semantic_tokens))
        feature(T.TEXT_DOCUMENT_CODE_ACTION,
                T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))(_handler(self.code_actions))


class _Refused(Exception):
    """A request the server refuses (a rename that is not safe); its message is the reason
    the editor shows."""


def _handler(method):
    """A new plain function calling `method` (pygls marks the functions it registers)."""
    if asyncio.iscoroutinefunction(method):
        async def handle(params):
            return await method(params)
    else:
        def handle(params):
            return method(params)
    return handle
