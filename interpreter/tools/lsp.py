"""`cgl lsp`: a language server for CGL, spoken over stdin/stdout.

What an editor gets, for `.cgl` rulesets, their card data (YAML) and scenario files:

- diagnostics as you type: those of `cgl lint` for a ruleset (its unsaved text, not the
  file on disk); a change of a card file checks again the rulesets that read it; a
  scenario file is checked by the scenario reader;
- hover: a card's data and the rules that name it, a built-in's signature and doc, a
  declaration's source and the comment above it, a statement's keyword what its AST
  class's docstring says;
- go to definition: defs, procedures, tables, patterns, zones, variables, options,
  derived and card properties, enum members, locals; a card name to its line of the
  card file;
- completion of names, events, zones, card properties and card names, and of the
  statements' keywords (the grammar's) where a statement may start;
- document symbols: the top-level declarations.

:class:`Session` is the analysis, plain Python over the loader's Ruleset and the parser's
AST (the tests call it too); only `server.py` imports pygls, so no other command pays
for it. Positions here are 0-based (line, code point); CGL's Spans are 1-based,
`span_range` turns one into the other; `server.py` converts code points to and from the
encoding the editor negotiated.
"""
from __future__ import annotations

import os
import re
from types import SimpleNamespace
from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..play import scenario
from ..parse.build import parse, parse_expr
from ..parse.syntax import _DECL_KEYWORDS, _STATEMENT_KEYWORDS
from ..base.diagnostics import CglError, Diagnostic, _source_line
from ..base.files import MAX_SOURCE_BYTES, read_text
from ..walker.engine import Engine
from ..check.about import doc_comment, rules_about
from ..check.lint import lint_ruleset
from ..check.resolver import bound_names
from .actions import (call_at, expects_player, folding_ranges, format_edits, players_at, properties, signature,
                      type_before_dot)
from .rename import _HEAD, KINDS, Family, _find, declaration_at, occurrences, rename_problem
from .tokens import semantic_tokens
from .names import _binder_text, _event_doc, _named_uses, _use_at, _uses_in, span_range
from ..check.statics import UNKNOWN, Statics
from ..check.loader import MarkedDict, Ruleset, load, read_yaml, ruleset_files, unsaved_text, unsaved_texts

#: How long after the last keystroke a document is checked (seconds): typing a word is
#: one check, and the diagnostics still come well within a second.
DEBOUNCE = 0.15

# LSP's numbers for kinds of symbols and completions (lsprotocol's SymbolKind and
# CompletionItemKind), so that the analysis needs no import of the protocol's types.
SK = {"module": 2, "namespace": 3, "method": 6, "property": 7, "field": 8, "enum": 10, "function": 12,
      "variable": 13, "constant": 14, "boolean": 17, "array": 18, "member": 22, "struct": 23, "event": 24}
CK = {"function": 3, "field": 5, "variable": 6, "module": 9, "property": 10, "value": 12, "enum": 13,
      "keyword": 14, "member": 20, "constant": 21, "struct": 22, "event": 23, "text": 1}

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CARDS_FROM = re.compile(r'^\s*(?:override\s+)?cards\s+from\s+"([^"]+)"', re.M)
_EXTENDS = re.compile(r'^\s*extends\s+"([^"]+)"', re.M)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")



def file_kind(path: str, text: str) -> Optional[str]:
    """"ruleset", "cards" (card data), "scenario", or None (a file we say nothing about)."""
    if path.endswith(".cgl"):
        return "ruleset"
    if path.endswith((".yaml", ".yml")):
        if re.search(r"^scenarios?\s*:", text, re.M):
            return "scenario"
        if re.search(r"^(cards|tables)\s*:", text, re.M):
            return "cards"
    return None


def _norm(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


class Session:
    """What the server knows: the last ruleset of each file that loaded (for hover,
    definitions and completion while the text is broken) and the editor's unsaved texts."""

    def __init__(self):
        self.texts: dict = {}          # path -> unsaved text of the open documents
        self.too_big: dict = {}        # path -> bytes, of open documents over the size limit (not read)
        self.good: dict = {}           # .cgl path -> the last Ruleset that loaded from it
        self._statics: dict = {}       # id(Ruleset) -> (Ruleset, Statics)
        self._loaded: dict = {}        # (path, options) -> (its files' texts, Ruleset): for scenarios
        self._lines: dict = {}         # path -> (its text, its lines)

    # ------------------------------------------------------------ text
    def text(self, path: str) -> str:
        t = self.texts.get(path)
        if t is None:
            t = unsaved_text(path)
        if t is None:   # (through the reading layer: a FIFO, a device or a huge file is not read)
            try:
                t = read_text(path, "file", remember=False, limit=MAX_SOURCE_BYTES)
            except CglError:
                t = ""
        return t

    def line(self, path: str, n: int) -> str:
        """Line `n` (0-based) of a file, as an editor counts lines (split at \\n, \\r\\n or \\r only)."""
        text = self.text(path)
        got = self._lines.get(path)
        if got is None or got[0] != text:
            got = self._lines[path] = (text, _LINE_BREAK.split(text))
        lines = got[1]
        return lines[n] if 0 <= n < len(lines) else ""

    # ------------------------------------------------------------ diagnostics
    def use_texts(self, texts: dict) -> None:
        """The editor's unsaved texts (path -> text). A buffer over the size limit of a file is
        not read (it would stall the server): `check` reports it instead."""
        self.texts, self.too_big = {}, {}
        for p, t in texts.items():
            n = len(t.encode("utf-8")) if len(t) * 4 > MAX_SOURCE_BYTES else len(t)
            if n > MAX_SOURCE_BYTES:
                self.too_big[p] = n
            else:
                self.texts[p] = t

    def check(self, path: str, texts: Optional[dict] = None) -> dict:
        """The diagnostics of a document and of the files checked with it: path -> list
        (an empty list clears a file's earlier diagnostics)."""
        if texts is not None:
            self.use_texts(texts)
        size = self.too_big.get(path, self.too_big.get(_norm(path)))
        if size is not None:
            return {_norm(path): [Diagnostic(
                "E002", f"this document has {size:,} bytes: more than the limit of "
                f"{MAX_SOURCE_BYTES:,} for a ruleset, card data or scenario, so it is not checked",
                A.Span(_norm(path), 1, 1, 1, 2), hint="README, \"Security and limits\", lists the limits")]}
        path = _norm(path)
        kind = file_kind(path, self.text(path))
        with unsaved_texts(self.texts):
            if kind == "ruleset":
                return self._check_ruleset(path)
            if kind == "cards":
                return self._check_cards(path)
            if kind == "scenario":
                return {path: self._check_scenario(path)}
        return {}

    def _check_ruleset(self, path: str) -> dict:
        try:
            rs = load(path)
        except CglError as e:
            found = list(e.diagnostics)
        else:
            self.good[path] = rs
            found = lint_ruleset(rs)
        cards = self._cards_path(path)
        out: dict = {path: []}
        if cards:
            out[cards] = []
        for d in found:
            where = _norm(d.span.path) if d.span and d.span.path else path
            if where not in out:   # in a file it extends: shown at the `extends` line
                m = _EXTENDS.search(self.text(path))
                line = self.text(path)[:m.start(1)].count("\n") + 1 if m else 1
                d = Diagnostic(d.code, f"{d.span}: {d.message}", A.Span(path, line, 1, line, 2), d.severity,
                               d.hint, d.related)
                where = path
            out[where].append(d)
        return out

    def _cards_path(self, path: str) -> Optional[str]:
        """The card file a ruleset reads (from its text: it need not load)."""
        rs = self.good.get(path)
        m = _CARDS_FROM.search(self.text(path))
        if m:
            return _norm(os.path.join(os.path.dirname(path), m.group(1)))
        if rs is not None and rs.cards_decl is not None:
            return _norm(os.path.join(os.path.dirname(rs.cards_decl.span.path), rs.cards_decl.path))
        return None

    def rulesets_reading(self, cards: str) -> list:
        """The rulesets (open ones, and those of the card file's folder) that read a card file."""
        folder = os.path.dirname(cards)
        candidates = {p for p in self.texts if p.endswith(".cgl")}
        try:
            candidates |= {_norm(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(".cgl")}
        except OSError:
            pass
        return sorted(p for p in candidates if self._cards_path(p) == cards)

    def _check_cards(self, path: str) -> dict:
        users = self.rulesets_reading(path)
        if not users:
            try:
                read_yaml(path, "E003", "the card data")
                return {path: []}
            except CglError as e:
                return {path: list(e.diagnostics)}
        out: dict = {path: []}
        for rs_path in users:
            for where, found in self._check_ruleset(rs_path).items():
                if where == path:
                    out[path] += [d for d in found if d not in out[path]]
                elif where in self.texts:   # the open rulesets' own findings are refreshed too
                    out[where] = found
        return out

    def _check_scenario(self, path: str) -> list:
        try:
            items = scenario.read(path)
        except CglError as e:
            return list(e.diagnostics)
        found = []
        for item in items:
            try:
                rs_path, ref = self._scenario_ruleset(path, item)
            except CglError as e:   # (outside the project, missing: as `cgl test` says it)
                found += e.diagnostics
                continue
            options = {str(k): (str(v).lower() if isinstance(v, bool) else str(v))
                       for k, v in (item.get("options") or {}).items()}
            try:
                rs = self._load_for_scenario(rs_path, options)
            except CglError as e:
                d = e.diagnostics[0]
                found.append(Diagnostic(d.code, f"the ruleset `{ref}` does not load: {d.message}"
                                        + (f" (at {d.span})" if d.span and d.span.line else ""),
                                        item.span(path, "ruleset", value=True) if "ruleset" in item
                                        else item.span(path), hint=d.hint))
                continue
            if not options:
                self.good[_norm(rs_path)] = rs
            try:
                _place_setup(path, item, rs)
            except CglError as e:
                found += e.diagnostics
        return found

    def _load_for_scenario(self, rs_path: str, options: dict) -> Ruleset:
        """`load`, remembered while the texts of the ruleset's files stay the same (a file of
        scenarios names its ruleset again and again)."""
        key = (_norm(rs_path), tuple(sorted(options.items())))
        hit = self._loaded.get(key)
        if hit is not None and hit[0] == tuple(self.text(f) for f in ruleset_files(hit[1])):
            return hit[1]
        rs = load(rs_path, options)
        self._loaded[key] = (tuple(self.text(f) for f in ruleset_files(rs)), rs)
        return rs

    @staticmethod
    def _scenario_ruleset(path: str, item) -> tuple:
        """(the ruleset file a scenario names, as written): the one rule `cgl test` follows
        (`scenario.ruleset_path`: inside the scenario's project, the working folder or the
        shipped rulesets, else an E002 that never reads the file), and a ruleset of the project
        the editor holds unsaved, not yet on disk."""
        ref = str(item.get("ruleset", ""))
        candidate = os.path.join(os.path.dirname(path), ref)
        try:
            return scenario.ruleset_path(path, item), ref
        except CglError:
            if unsaved_text(candidate) is not None and os.path.isdir(os.path.dirname(candidate) or "."):
                return scenario.ruleset_path_unsaved(path, item), ref
            raise

    # ------------------------------------------------------------ the ruleset of a document
    def ruleset(self, path: str) -> Optional[Ruleset]:
        """The ruleset a document belongs to (loaded now if it was not yet)."""
        path = _norm(path)
        kind = file_kind(path, self.text(path))
        if kind == "ruleset":
            if path not in self.good:
                self.check(path)
            if path not in self.good:   # broken since it was opened: what the disk holds, if that loads
                try:
                    self.good[path] = load(path)
                except CglError:
                    pass
            return self.good.get(path)
        if kind == "cards":
            for p in self.rulesets_reading(path):
                if p not in self.good:
                    self.check(p)
                if p in self.good:
                    return self.good[p]
            return None
        if kind == "scenario":
            with unsaved_texts(self.texts):
                try:
                    data = read_yaml(path, "E013", "the scenario file")
                except CglError:
                    return None
                items = data.get("scenarios") if isinstance(data, dict) and "scenarios" in data else [data]
                for item in items or ():
                    if isinstance(item, MarkedDict) and "ruleset" in item:
                        try:
                            rs_path = _norm(self._scenario_ruleset(path, item)[0])
                        except CglError:   # (outside the project: never read)
                            continue
                        if rs_path not in self.good:
                            try:
                                self.good[rs_path] = load(rs_path)
                            except CglError:
                                continue
                        return self.good[rs_path]
        return None

    def statics(self, rs: Ruleset) -> Statics:
        """What the ruleset's expressions are worth at the start of a game, to work out the
        cards' derived properties (those that need a game being played are not shown)."""
        got = self._statics.get(id(rs))
        if got is None or got[0] is not rs:
            if len(self._statics) > 16:
                self._statics.clear()
            got = self._statics[id(rs)] = (rs, Statics(rs, start=True))
        return got[1]

    # ------------------------------------------------------------ what is under the cursor
    def word_at(self, path: str, line: int, char: int) -> Optional[str]:
        for m in _WORD.finditer(self.line(path, line)):
            if m.start() <= char <= m.end():
                return m.group()
        return None

    def card_at(self, path: str, line: int, char: int, rs: Ruleset) -> Optional[str]:
        """The name of a card under the cursor: a whole "quoted" text in a ruleset, a card
        name standing alone in a YAML file."""
        text = self.line(path, line)
        names = {c.name for c in rs.cards}
        if path.endswith(".cgl"):
            for m in re.finditer(r'"([^"{}]*)"', text):
                if m.start() <= char <= m.end() and m.group(1) in names:
                    return m.group(1)
            return None
        best = None
        for name in names:
            for m in re.finditer(re.escape(name), text):
                before = text[m.start() - 1] if m.start() else " "
                after = text[m.end()] if m.end() < len(text) else " "
                if m.start() <= char <= m.end() and not (before.isalnum() or after.isalnum()):
                    if best is None or len(name) > len(best):
                        best = name
        return best

    def _enclosing(self, rs: Ruleset, path: str, line: int):
        for item in rs.items:
            sp = item.span
            if _norm(sp.path) == path and sp.line - 1 <= line <= (sp.end_line or sp.line) - 1:
                return item
        return None

    # ------------------------------------------------------------ hover
    def hover(self, path: str, line: int, char: int) -> Optional[str]:
        """Markdown about what is under the cursor, or None."""
        path = _norm(path)
        rs = self.ruleset(path)
        if rs is None:
            word = self.word_at(path, line, char)
            return _builtin_doc(word) if word else None
        if path.endswith(".cgl"):
            stmt = self._statement_at(rs, path, line, char)
            if stmt is not None:
                return _statement_doc(stmt.__class__)
        kind, what = self._target(rs, path, line, char)
        if kind == "card":
            return self.card_doc(rs, what)
        if kind == "local":
            return f"```cgl\n{what[0]}\n```\n(local name)"
        if kind == "event":
            return _event_doc(rs, what)
        return self.name_doc(rs, what) if kind == "name" else None

    def _statement_at(self, rs: Ruleset, path: str, line: int, char: int):
        """The statement whose first word is under the cursor, or None."""
        item = self._enclosing(rs, path, line)
        word = next((m for m in _WORD.finditer(self.line(path, line)) if m.start() <= char <= m.end()), None)
        if item is None or word is None:
            return None
        for n in A.walk(item):
            if isinstance(n, A.Stmt) and not isinstance(n, A.CallStmt) and n.span is not None \
                    and span_range(n.span)[0] == (line, word.start()):
                return n
        return None

    def _target(self, rs: Ruleset, path: str, line: int, char: int) -> tuple:
        """What is under the cursor: ("card", its name), ("local", (source, span)) for a name
        local to the declaration around it, ("name", the word) for any other name, or
        (None, None)."""
        card = self.card_at(path, line, char, rs)
        if card is not None:
            return "card", card
        word = self.word_at(path, line, char)
        if word is None:
            return None, None
        if path.endswith(".cgl"):
            item = self._enclosing(rs, path, line)
            if item is None:
                return "name", word
            ev = getattr(item, "event", None)
            if isinstance(ev, A.EventPat) and ev.span is not None and word in (ev.kind, ev.name) \
                    and span_range(ev.span)[0] <= (line, char) <= span_range(ev.span)[1] \
                    and not (ev.kind in ("start", "end") and word == ev.name):
                return "event", (ev.kind if word == ev.kind and ev.kind != "custom" else ev.name)
            use = _use_at(rs, item, line, char)
            if use is not None:   # a use of a name: what the resolver pass recorded for it
                if use.kind in ("local", "maybe") and use.binder is not None:
                    return "local", (_binder_text(use.binder, item), use.binder.span)
                return "name", use.name
            local = self._local(item, word)   # (the name where it is bound)
            if local is not None:
                return "local", local
        return "name", word

    def name_doc(self, rs: Ruleset, word: str) -> Optional[str]:
        """What a name of the ruleset or a built-in means."""
        decl, what = _find_decl(rs, word)
        if decl is not None:
            src = _source(decl, 8 if isinstance(decl, (A.Def, A.Derive, A.Option, A.Var, A.Zone, A.Enum)) else 1)
            doc = doc_comment(decl.span)
            parts = [f"```cgl\n{src}\n```", what]
            if isinstance(decl, (A.Def, A.Procedure, A.Table, A.Pattern)) and decl.params:
                parts.append("parameters: " + ", ".join(f"`{p}`" for p in decl.params))
            if doc:
                parts.append(doc)
            return "\n\n".join(parts)
        if rs.cards_decl is not None:
            for p in rs.cards_decl.props:
                if p.name == word:
                    return f"```cgl\n{p.name}: {p.type}\n```\n\ncard property (from `{rs.cards_decl.path}`)"
        if word in rs.enum_members:
            return f"`{word}`: a member of enum `{rs.enum_members[word]}`"
        return _builtin_doc(word)

    def card_doc(self, rs: Ruleset, name: str) -> str:
        """A card's data, its derived properties and the declarations whose conditions name it."""
        copies = [c for c in rs.cards if c.name == name]
        card = copies[0]
        head = f"**{name}**: card" + (f" ({len(copies)} copies)" if len(copies) > 1 else "")
        rows = [f"- `{k}`: {v!r}" if isinstance(v, str) else f"- `{k}`: {v}"
                for k, v in card.props.items() if k != "name"]
        statics = self.statics(rs)
        values = dict(card.props)
        for d in rs.derives:
            v = statics.attr(card, d)
            if v is UNKNOWN:   # a property that needs a game in play: not shown
                continue
            values[d] = v
            if d != "display":
                rows.append(f"- `{d}` (derived): {v!r}" if isinstance(v, str) else f"- `{d}` (derived): {v}")
        parts = [head, "\n".join(rows)]
        rules = rules_about(rs, values)
        if rules:
            lines = ["Rules for this card:"]
            for decl in rules[:8]:
                doc = doc_comment(decl.span)
                head = _source(decl, 1).splitlines()[0].strip().rstrip("{").strip()
                doc = doc if len(doc) <= 240 else doc[:239] + "…"
                lines.append(f"- `{head}` ({os.path.basename(decl.span.path)}:{decl.span.line})"
                             + (f": {doc}" if doc else ""))
            if len(rules) > 8:
                lines.append(f"- … and {len(rules) - 8} more")
            parts.append("\n".join(lines))
        return "\n\n".join(p for p in parts if p)

    # ------------------------------------------------------------ definition
    def definition(self, path: str, line: int, char: int) -> Optional[A.Span]:
        """Where the name (or card) under the cursor is defined, or None."""
        path = _norm(path)
        rs = self.ruleset(path)
        if rs is None:
            return None
        kind, word = self._target(rs, path, line, char)
        if kind == "card":
            return self.card_span(rs, word)
        if kind == "local":
            return word[1]
        if kind is None:
            return None
        decl, _ = _find_decl(rs, word)
        if decl is not None:
            return decl.span
        if rs.cards_decl is not None:
            for p in rs.cards_decl.props:
                if p.name == word:
                    return p.span
        if word in rs.enum_members:
            return next((e.span for e in rs.items if isinstance(e, A.Enum) and word in e.members), None)
        return None

    def card_span(self, rs: Ruleset, name: str) -> Optional[A.Span]:
        """The line of the card file where the card named `name` is written."""
        if rs.cards_decl is None:
            return None
        cards = os.path.join(os.path.dirname(rs.cards_decl.span.path), rs.cards_decl.path)
        with unsaved_texts(self.texts):
            try:
                data = read_yaml(cards, "E003", "the card data")
            except CglError:
                return None
        for entry in (data or {}).get("cards") or ():
            if isinstance(entry, MarkedDict) and str(entry.get("name")) == name:
                return entry.span(_norm(cards), "name", value=True)
        return None

    @staticmethod
    def _local(item, word: str):
        """(how it is bound, where) of a local name of a declaration, or None."""
        for n in A.walk(item):
            if isinstance(n, (A.Let, A.For, A.Choose, A.Comprehension)) and n.name == word:
                kind = {A.Let: "let", A.For: "for", A.Choose: "choose", A.Comprehension: "for"}[type(n)]
                return f"{kind} {word}", n.span
            if isinstance(n, A.Draw) and n.name == word:
                return f"draw … as {word}", n.span
        params = getattr(item, "params", None) or ()
        if word in params or word == getattr(item, "param", None) or word == getattr(item, "var", None):
            return f"{getattr(item, 'name', '')}(… {word} …)", item.span
        return None

    # ------------------------------------------------------------ references and rename
    def _local_at(self, path: str, line: int, char: int):
        """(the ruleset, the declaration, the Binder) of the local name under the cursor, where it is used
        or where it is bound, as the resolver pass recorded it; (None, None) otherwise."""
        path = _norm(path)
        rs = self.ruleset(path)
        if rs is None or not path.endswith(".cgl"):
            return None, None, None
        item = self._enclosing(rs, path, line)
        if item is None:
            return rs, None, None
        use = _use_at(rs, item, line, char)
        if use is not None:
            return rs, item, use.binder if use.kind in ("local", "maybe") else None
        word = self.word_at(path, line, char)
        for u in _uses_in(rs, item):   # the cursor on the name where it is bound
            b = u.binder
            if b is not None and b.name == word and self._name_span(b) is not None \
                    and span_range(self._name_span(b))[0] <= (line, char) <= span_range(self._name_span(b))[1]:
                return rs, item, b
        return rs, item, None

    def _name_span(self, b) -> Optional[A.Span]:
        """The span of a local's name where it is bound (`let x`, `for x in`, `f(a, x)` …)."""
        sp = b.span
        if sp is None or not sp.path:
            return None
        first, last = sp.line, sp.end_line or sp.line
        for n in range(first, last + 1):
            text = self.line(_norm(sp.path), n - 1)
            start = sp.column - 1 if n == first else 0
            m = re.compile(r"\b" + re.escape(b.name) + r"\b").search(text, start)
            if m:
                return A.Span(sp.path, n, m.start() + 1, n, m.end() + 1)
        return None

    def _declaration(self, path: str, line: int, char: int) -> tuple:
        """(family, kind, name, [(span, declaration)]) of the declaration named under the
        cursor, across the `extends` family; (None, None, None, []) when none is."""
        path = _norm(path)
        rs = self.ruleset(path)
        item = self._enclosing(rs, path, line) if rs is not None and path.endswith(".cgl") else None
        found = declaration_at(rs, item, self._line_of, (line, char)) if item is not None else None
        if found is None:
            return None, None, None, []
        kind, name = found
        fam = Family(path, self.texts, self.text, self._line_of, _norm)
        return fam, kind, name, fam.places(name, kind)

    def _line_of(self, path: str, n: int) -> str:
        return self.line(_norm(path), n)

    def references(self, path: str, line: int, char: int) -> list:
        """The spans of the local or declaration under the cursor: where it is bound or
        declared, then each use, in source order (a declaration's across its `extends`
        family); [] for anything else."""
        rs, item, b = self._local_at(path, line, char)
        if b is None:
            fam, kind, name, places = self._declaration(path, line, char)
            spans = {sp for sp, _ in places} | set(fam.yaml_places(name, kind) if fam is not None else ())
            return sorted(spans, key=lambda sp: (sp.path, sp.line, sp.column))
        out = [sp for sp in (self._name_span(b),) if sp is not None]
        for n, u in _named_uses(rs, item):
            if u.binder is not None and u.binder.node is b.node and u.binder.name == b.name:
                out.append(n.span)
        return sorted(set(out), key=lambda sp: (sp.path, sp.line, sp.column))

    def rename(self, path: str, line: int, char: int, new: str) -> tuple:
        """(spans to replace with `new`, None) to rename the local under the cursor, or
        ([], why not) when it cannot be renamed safely."""
        rs, item, b = self._local_at(path, line, char)
        if b is not None and b.how in ("event", "engine", "it"):
            return [], f"`{b.name}` is bound by the engine, not by the rules: it keeps its name"
        if not _WORD.fullmatch(new or ""):
            return [], f"`{new}` is not a name: a letter or `_`, then letters, digits or `_`"
        try:
            parsed = parse_expr(new)
        except CglError:
            parsed = None
        if not isinstance(parsed, A.Name) or parsed.id != new or new in _STATEMENT_KEYWORDS or new in _DECL_KEYWORDS:
            return [], f"`{new}` is a word of the language"
        if b is None:
            fam, kind, name, places = self._declaration(path, line, char)
            if fam is None:
                return [], ("only a local name or a declaration (def, variable, zone, procedure, pattern, "
                            "table, an event the rules emit, a property of the card data) can be renamed")
            why = rename_problem(fam, name, kind, new, places)
            if why:
                return [], why
            spans = {sp for sp, _ in places} | set(fam.yaml_places(name, kind))   # the scenarios, the card data
            return sorted(spans, key=lambda sp: (sp.path, sp.line, sp.column)), None
        taken = {n.id for n in A.walk(item) if isinstance(n, A.Name)} | bound_names(item)
        if new in taken:
            return [], f"`{new}` is already a name in this declaration: renaming to it would change what a name means"
        return self.references(path, line, char), None

    # ------------------------------------------------------------ completion
    def complete(self, path: str, line: int, char: int) -> list:
        """(label, kind, detail) of what may be written at the cursor."""
        path = _norm(path)
        rs = self.ruleset(path)
        before = self.line(path, line)[:char]
        kind = file_kind(path, self.text(path))
        card_names = sorted({c.name for c in rs.cards}) if rs is not None else []
        if kind in ("scenario", "cards"):
            out = [(n, CK["value"], "card") for n in card_names]
            if rs is not None:
                out += [(z, CK["struct"], "zone") for z in rs.zones]
                if kind == "cards" and rs.cards_decl is not None:
                    out += [(p.name, CK["property"], f"card property: {p.type}") for p in rs.cards_decl.props]
            return out
        in_text = before.count('"') % 2 == 1
        if in_text and before.rsplit('"', 1)[1].count("{") <= before.rsplit('"', 1)[1].count("}"):
            return [(n, CK["value"], "card") for n in card_names]   # inside a text, not in its `{…}`: card names
        if re.search(r"\b(start|end)\s+of\s+\w*$", before):
            return [(s, CK["keyword"], f"the {s}'s {'start' if 'start' in before else 'end'}")
                    for s in ("game", "round", "turn", "phase")]
        if re.search(r"(^|\s)(on|after)\s+\w*$", before):
            out = [(e, CK["event"], doc) for e, doc in B.EVENTS.items()]
            if rs is not None:
                emitted = list(rs.emits)
                out += [(e, CK["event"], "an event of this ruleset (`emit`)") for e in emitted]
            return out
        dot = re.search(r"([A-Za-z_]\w*)\s*\.\w*$", before) or re.search(r"\.\w*$", before)
        if dot:   # a property: of a card, or of a player, when the type of what is before `.` is known
            ty = None
            if dot.re.groups and rs is not None:
                ty = type_before_dot(rs, self._enclosing(rs, path, line), dot.group(1), line)
            return _unique([(label, CK[k], detail) for label, k, detail in properties(rs, ty)])
        lines = _LINE_BREAK.split(self.text(path))
        upto = "\n".join(lines[:line] + [before])
        wanted = expects_player(rs, upto) if rs is not None else None
        if wanted:   # `by `, `others(`, `win `: the players in reach
            return _unique([(label, CK[k], detail) for label, k, detail in
                            players_at(rs, self._enclosing(rs, path, line), line, lists=wanted == "players")])
        out = []
        if re.search(r"(^|[{}])\s*\w*$", before):   # where a statement may start: its keywords first
            out += [(k, CK["keyword"], " ".join(_statement_doc(c) for c in cs))
                    for k, cs in statement_classes().items()]
        out += [(f.name, CK["function"], f"{f.signature}: {f.doc}") for f in B.FUNCTIONS.values()]
        out += [(v.name, CK["value"], v.doc) for v in B.VALUES.values()]
        if rs is not None:
            for table, kind_, what in ((rs.defs, "function", "def"), (rs.procedures, "function", "procedure"),
                                       (rs.table_decls, "function", "table"), (rs.patterns, "function", "pattern"),
                                       (rs.zones, "struct", "zone"), (rs.vars, "variable", "variable"),
                                       (rs.options, "constant", "option"), (rs.derives, "property", "derived property"),
                                       (rs.tables, "struct", "data table")):
                out += [(n, CK[kind_], what) for n in table]
            out += [(m, CK["member"], f"member of enum {e}") for m, e in rs.enum_members.items()]
            if rs.cards_decl is not None:
                out += [(p.name, CK["property"], f"card property: {p.type}") for p in rs.cards_decl.props]
        return _unique(out)

    # ------------------------------------------------------------ highlights, folding, formatting, signatures, tokens
    def highlights(self, path: str, line: int, char: int) -> list:
        """(span, whether it is written there) of each place in this file that names what
        the cursor is on: a local, or a declaration (this file's, read from its own ruleset)."""
        path = _norm(path)
        rs, item, b = self._local_at(path, line, char)
        if b is not None:
            return [(sp, sp == self._name_span(b)) for sp in self.references(path, line, char)]
        found = declaration_at(rs, item, self._line_of, (line, char)) if item is not None else None
        if found is None:
            return []
        out, heads = set(), set()
        for it in rs.items:
            if it is not None and _norm(it.span.path) == path:
                out |= {sp for sp, k, n in occurrences(rs, it, self._line_of) if (k, n) == found}
                if type(it) in KINDS and it.name == found[1]:   # the declaration itself: "written" there
                    heads.add(_find(self._line_of, it.span, it.name, _HEAD))
        return sorted(((sp, sp in heads) for sp in out), key=lambda h: (h[0].line, h[0].column))

    def folding(self, path: str) -> list:
        path = _norm(path)
        if not path.endswith(".cgl"):
            return []
        return folding_ranges(self._items(path), self.text(path))

    def formatting(self, path: str, lines: Optional[tuple] = None) -> list:
        path = _norm(path)
        return format_edits(self.text(path), path, lines) if path.endswith(".cgl") else []

    def signature_help(self, path: str, line: int, char: int) -> Optional[tuple]:
        """(label, parameters, doc, the argument the cursor is in) of the call around the cursor."""
        path = _norm(path)
        if not path.endswith(".cgl"):
            return None
        lines = _LINE_BREAK.split(self.text(path))
        before = "\n".join(lines[:line] + [lines[line][:char] if line < len(lines) else ""])
        call = call_at(before)
        if call is None:
            return None
        sig = signature(self.ruleset(path), call[0])
        return None if sig is None else (*sig, call[1])

    def semantic_tokens(self, path: str) -> list:
        path = _norm(path)
        rs = self.ruleset(path) if path.endswith(".cgl") else None
        return semantic_tokens(rs, path, self._line_of, _norm) if rs is not None else []

    def _items(self, path: str) -> list:
        """The declarations of a ruleset file: as parsed now, else those of its last good ruleset."""
        try:
            return list(parse(self.text(path), path).items)
        except CglError:
            rs = self.good.get(path)
            return [i for i in rs.items if i is not None and _norm(i.span.path) == path] if rs is not None else []

    # ------------------------------------------------------------ symbols
    def symbols(self, path: str) -> list:
        """The top-level declarations of a ruleset file: (name, kind, span, detail, children)."""
        path = _norm(path)
        if not path.endswith(".cgl"):
            return []
        return [s for s in (_symbol(i) for i in self._items(path)) if s is not None]


# ---------------------------------------------------------------- helpers

def _place_setup(path: str, item, rs: Ruleset) -> None:
    """Place a scenario's cards and variables as `cgl test` does, without playing: a zone,
    card or variable the ruleset does not have is an E013 at its line. (On the tree walker,
    which costs nothing to make: `setup_position` reads only the game's engine.)"""
    g = rs.game
    players = item.get("players") or g.min_players
    if not g.min_players <= players <= g.max_players:
        raise scenario._bad(path, item, "players", f"{g.title} is for {g.min_players} to {g.max_players} "
                            f"players, not {players}", value=True)
    eng = Engine(rs, players, int(item.get("seed") or 0))
    scenario.setup_position(SimpleNamespace(engine=eng), path, item.get("setup") or MarkedDict())







def _unique(items: list) -> list:
    seen, out = set(), []
    for it in items:
        if it[0] not in seen:
            seen.add(it[0])
            out.append(it)
    return out


#: The declarations a name can stand for, in the order `_find_decl` looks.
_NAMED = ((A.Def, "def"), (A.Procedure, "procedure"), (A.Table, "table"), (A.Pattern, "pattern"),
          (A.Zone, "zone"), (A.Var, "variable"), (A.Option, "option"), (A.Derive, "derived card property"),
          (A.Enum, "enum"), (A.Action, "action"), (A.Trigger, "trigger"), (A.Reaction, "reaction"),
          (A.Rule, "continuous rule"), (A.Invariant, "invariant"), (A.Check, "state check"),
          (A.TargetDecl, "target"))


def _find_decl(rs: Ruleset, word: str) -> tuple:
    for item in rs.items:
        for cls, what in _NAMED:
            if type(item) is cls and item.name == word:
                if isinstance(item, A.Var):
                    what = f"variable ({'global' if item.scope == 'global' else 'per ' + item.scope})"
                return item, what
    if rs.turn is not None:
        for ph in rs.turn.phases:
            if ph.name == word:
                return ph, "phase"
    return None, None


def statement_classes() -> dict:
    """Each statement keyword of the grammar and the AST classes of the statements it
    begins: those whose docstring's first example starts with it (`ast.Cut`: "`cut stock`…")."""
    out: dict = {}
    for cls in _subclasses(A.Stmt):
        m = re.match(r"`(\w+)", (cls.__doc__ or "").strip())
        if m and m.group(1) in _STATEMENT_KEYWORDS:
            out.setdefault(m.group(1), []).append(cls)
    return {k: sorted(out[k], key=lambda c: c.__name__) for k in _STATEMENT_KEYWORDS if k in out}


def _subclasses(cls) -> list:
    return [c for sub in cls.__subclasses__() for c in [sub] + _subclasses(sub)]


def _statement_doc(cls) -> str:
    """What hover shows for a statement: its AST class's docstring, as one paragraph."""
    return " ".join((cls.__doc__ or "").split())


def _builtin_doc(word: str) -> Optional[str]:
    f = B.FUNCTIONS.get(word)
    if f is not None:
        return f"```cgl\n{f.signature}\n```\n\nbuilt-in function: {f.doc}"
    v = B.VALUES.get(word)
    if v is not None:
        return f"```cgl\n{v.name}\n```\n\nbuilt-in value: {v.doc}"
    if word in B.ATTRS:
        kinds, doc = B.ATTRS[word]
        return f"`.{word}`, an attribute of: {kinds}. {doc}"
    if word in B.EVENTS:
        return f"event `{word}`: {B.EVENTS[word]}"
    return None


def _source(node, max_lines: int) -> str:
    """The source text of a node's first lines."""
    sp = node.span
    last = min(sp.end_line or sp.line, sp.line + max_lines - 1)
    lines = [_source_line(sp.path, n) or "" for n in range(sp.line, last + 1)]
    if lines and sp.end_line == last and sp.end_line > sp.line:
        lines[-1] = lines[-1][:max(sp.end_column - 1, 0)]
    if (sp.end_line or sp.line) > last:
        lines.append("…")
    return "\n".join(lines).rstrip()


def _symbol(item) -> Optional[tuple]:
    """(name, kind, span, detail, children) of a top-level declaration."""
    if isinstance(item, A.Override):
        s = _symbol(item.item)
        return (s[0], s[1], item.span, "override " + s[3], s[4]) if s else None
    t = type(item)
    if t is A.Game:
        return (f'game "{item.title}"', SK["module"], item.span, f"{item.min_players}..{item.max_players} players", [])
    if t is A.Cards:
        props = [(p.name, SK["field"], p.span, str(p.type), []) for p in item.props]
        return (f'cards from "{item.path}"', SK["struct"], item.span, "card data", props)
    if t is A.TurnDecl:
        phases = [(f"phase {p.name}", SK["event"], p.span, "phase", []) for p in item.phases]
        return ("turn", SK["namespace"], item.span, "a turn", phases)
    blocks = {A.Setup: "setup", A.MatchDecl: "match", A.RoundDecl: "round", A.DeckDecl: "deck"}
    if t in blocks:
        return (blocks[t], SK["namespace"], item.span, blocks[t], [])
    if t is A.Estimate:
        return ("estimate", SK["function"], item.span, f"estimate {item.var}", [])
    if t is A.Show:
        return (f"show {item.name}", SK["property"], item.span, item.label or f"shown for {item.var}", [])
    if t in (A.Extends, A.Remove):
        return None
    kinds = {A.Option: ("constant", "option"), A.Enum: ("enum", "enum"), A.Derive: ("property", "derive"),
             A.Zone: ("array", "zone"), A.Var: ("variable", "var"), A.Def: ("function", "def"),
             A.Procedure: ("function", "procedure"), A.Table: ("function", "table"),
             A.Pattern: ("function", "pattern"), A.Trigger: ("event", "on"), A.Reaction: ("event", "reaction"),
             A.Action: ("method", "action"), A.Rule: ("boolean", "rule"), A.Invariant: ("boolean", "invariant"),
             A.Check: ("boolean", "check"), A.TargetDecl: ("field", "target")}
    if t not in kinds:
        return None
    kind, word = kinds[t]
    detail = word
    if t is A.Trigger:
        detail = f"on {item.event}"
    elif t is A.Reaction:
        detail = f"reaction after {item.event}"
    elif getattr(item, "params", None):
        detail = f"{word} ({', '.join(item.params)})"
    children = [(m, SK["member"], item.span, "member", []) for m in item.members] if t is A.Enum else []
    return (item.name, SK[kind], item.span, detail, children)
