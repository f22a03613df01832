"""Semantic tokens: what each name of a ruleset file is, for an editor's colours, read from
the resolver (a bare name's recorded `Use`, a call's `call_meaning`) and the
declarations, never guessed from the text. The TextMate grammar colours the keywords,
strings, numbers and comments; these tokens say which names are locals, parameters,
properties, functions, zones, enum members and events.
"""
from __future__ import annotations

from ..base import ast as A
from ..check.loader import Ruleset
from ..check.resolver import call_meaning, facts
from .rename import KINDS, Lines, _find

#: The legend the server announces: token types and modifiers, by their LSP names.
TYPES = ["variable", "parameter", "property", "function", "struct", "enumMember", "event"]
MODIFIERS = ["declaration", "readonly", "defaultLibrary"]

_DECLARED = {"def": "function", "variable": "variable", "zone": "struct", "procedure": "function",
             "pattern": "function", "table": "function"}
_GLOBAL = {"option": ("variable", ("readonly",)), "global": ("variable", ()), "def": ("function", ()),
           "data": ("variable", ("readonly",)), "zone": ("struct", ()), "enum": ("enumMember", ()),
           "builtin": ("variable", ("defaultLibrary",))}
_CALLED = {"def": ("function", ()), "table": ("function", ()), "pattern": ("function", ()),
           "card_zone": ("struct", ()), "player_zone": ("struct", ()), "builtin": ("function", ("defaultLibrary",))}


def _of_use(use):
    if use.kind in ("local", "maybe") and use.binder is not None:
        return ("parameter" if use.binder.how == "parameter" else "variable"), ()
    if use.kind in ("it", "maybe"):
        return "property", ()
    return _GLOBAL.get(use.meaning)


def semantic_tokens(rs: Ruleset, path: str, line: Lines, norm) -> list:
    """(line, char, length, type, modifiers) of each name of the file `path`, 0-based, in
    code points, sorted, none overlapping another."""
    uses = facts(rs).uses
    found = []

    def add(sp, what):
        if sp is not None and what is not None and sp.line == sp.end_line:
            found.append((sp.line - 1, sp.column - 1, sp.end_column - sp.column, what[0], what[1]))
    for item in rs.items:
        if item is None or norm(item.span.path) != path:
            continue
        if type(item) in KINDS:
            add(_find(line, item.span, item.name, r"\b(?:def|var|zone|procedure|pattern|table)\s+"),
                (_DECLARED[KINDS[type(item)]], ("declaration",)))
        for n in A.walk(item):
            t = type(n)
            if t is A.Name and id(n) in uses:
                add(n.span, _of_use(uses[id(n)]))
            elif t is A.Call:
                add(_find(line, n.span, n.name), _CALLED.get(call_meaning(rs, n.name)))
            elif t is A.CallStmt:
                add(_find(line, n.span, n.name), ("function", ()))
            elif t is A.Attr:
                add(_find(line, n.span, n.name, r"\.\s*", last=True), ("property", ()))
            elif t is A.Emit:
                add(_find(line, n.span, n.name, r"\bemit\s+"), ("event", ()))
            elif t is A.EventPat and n.kind == "custom":
                add(_find(line, n.span, n.name), ("event", ()))
    out, end = [], (-1, -1)
    for tok in sorted(found):
        if (tok[0], tok[1]) >= end:
            out.append(tok)
            end = (tok[0], tok[1] + tok[2])
    return out
