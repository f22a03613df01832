"""What the language server offers beyond the names under the cursor: the quick fix of a
diagnostic (its `help:` as one edit), formatting (`cgl fmt`'s, as edits), folding ranges
signature help, and what completion offers where the type is known (after `.`, where a
player is expected).

Positions are 0-based (line, code point), as `lsp.Session` counts them; `server.py`
converts them to the editor's encoding.
"""
from __future__ import annotations

import difflib
import re
from typing import Callable, Optional

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic
from ..check.about import doc_comment
from ..check.resolver import call_meaning, facts
from ..check.typecheck import Scope, TypeChecker, elem_ty
from ..parse.syntax import code_chars
from ..runtime import builtins as B
from .fmt import format_text

_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")
_QUOTED = re.compile(r"`([^`]+)`")


def quick_fix(d: Diagnostic, line: Callable[[int], str]) -> Optional[tuple]:
    """(title, ((line, char), (line, char)), new text): the edit a diagnostic's help asks for,
    or None. `d.fix` where the check said it (`elsif` → `elif`, a missing `{`); else a
    did-you-mean replaces the name the message quotes, found inside the diagnostic's span
    (`line(n)` gives the text of line n, 0-based)."""
    if d.span is None or not d.span.line:
        return None
    if d.fix is not None:
        sp, text = d.fix
        where = ((sp.line - 1, sp.column - 1), (sp.end_line - 1, sp.end_column - 1))
        title = f"insert `{text.strip()}`" if where[0] == where[1] else f"write `{text}`"
        return title, where, text
    m = _DID_YOU_MEAN.fullmatch(d.hint or "")
    quoted = _QUOTED.search(d.message)
    if m is None or quoted is None:
        return None
    wrong, right = quoted.group(1), m.group(1)
    sp = d.span
    found = []
    for n in range(sp.line, (sp.end_line or sp.line) + 1):
        text = line(n - 1)
        lo = sp.column - 1 if n == sp.line else 0
        hi = sp.end_column - 1 if n == sp.end_line and sp.end_column > sp.column else len(text)
        for w in re.finditer(r"(?<![\w])" + re.escape(wrong) + r"(?![\w])", text):
            if lo <= w.start() and w.end() <= max(hi, lo + len(wrong)):
                found.append(((n - 1, w.start()), (n - 1, w.end())))
    if len(found) != 1:   # not there, or there twice: which one is meant is not sure
        return None
    return f"write `{right}`", found[0], right


# ---------------------------------------------------------------- formatting (`cgl fmt`)

def format_edits(text: str, path: str, lines: Optional[tuple] = None) -> list:
    """((line, char), (line, char), new text) edits that give `text` the layout of `cgl fmt`
    (only the changes that touch the 0-based `lines` (first, last), when given); [] when the
    text does not parse (the formatter never guesses)."""
    try:
        new = format_text(text, path)
    except CglError:
        return []
    old_lines, new_lines = text.splitlines(keepends=True), new.splitlines(keepends=True)
    n = len(old_lines)

    def pos(i):
        if i < n or not old_lines or old_lines[-1].endswith(("\n", "\r")):
            return (i, 0)
        return (n - 1, len(old_lines[-1]))
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if lines is not None and not (i1 <= lines[1] and max(i2 - 1, i1) >= lines[0]):
            continue
        out.append((pos(i1), pos(i2), "".join(new_lines[j1:j2])))
    return out


# ---------------------------------------------------------------- folding

def folding_ranges(items: list, text: str) -> list:
    """(first line, last line, kind) of what an editor may fold: each declaration and block
    over several lines (to the line before its `}`), and each run of comment lines."""
    out = set()
    for item in items:
        for n in A.walk(item):
            sp = n.span if isinstance(n, (A.Decl, A.Block, A.Stmt)) else None
            if sp is not None and sp.line and sp.end_line and sp.end_line - 1 > sp.line:
                out.add((sp.line - 1, sp.end_line - 2, "region"))
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].lstrip().startswith("#"):
            j += 1
        if j - i >= 2:
            out.add((i, j - 1, "comment"))
        i = max(j, i + 1)
    return sorted(out)


# ---------------------------------------------------------------- signature help

def call_at(text: str) -> Optional[tuple]:
    """(the name called, which argument) of the innermost call still open at the end of
    `text` (the document up to the cursor), or None."""
    stack = []   # (bracket, its index, commas so far)
    for i, ch in code_chars(text):
        if ch in "([":
            stack.append([ch, i, 0])
        elif ch in ")]" and stack:
            stack.pop()
        elif ch == "," and stack:
            stack[-1][2] += 1
    for bracket, i, commas in reversed(stack):
        if bracket == "(":
            m = re.search(r"([A-Za-z_]\w*)\s*$", text[:i])
            return (m.group(1), commas) if m else None
        return None
    return None


def signature(rs, name: str) -> Optional[tuple]:
    """(label, its parameters, doc) of what `name(…)` calls: a procedure, a def, table or
    pattern of the ruleset (meanings by `call_meaning`), a zone of each player or card, a built-in."""
    decl = rs.procedures.get(name) if rs is not None else None
    meaning = call_meaning(rs, name) if rs is not None else ("builtin" if name in B.FUNCTIONS else None)
    if decl is None and meaning in ("def", "table", "pattern"):
        decl = {"def": rs.defs, "table": rs.table_decls, "pattern": rs.patterns}[meaning][name]
    if decl is not None:
        params = list(decl.params or ())
        what = "procedure" if isinstance(decl, A.Procedure) else meaning
        return f"{name}({', '.join(params)})", params, f"{what}. {doc_comment(decl.span)}".strip()
    if meaning == "card_zone" and rs.zones[name].per_player:   # `per card per player`
        return f"{name}(CARD, PLAYER)", ["CARD", "PLAYER"], f"the zone `{name}` of a card and a player: that player's side"
    if meaning in ("card_zone", "player_zone"):
        who = "CARD" if meaning == "card_zone" else "PLAYER"
        return f"{name}({who})", [who], f"the zone `{name}` of a {who.lower()}"
    f = B.FUNCTIONS.get(name)
    if f is None:
        return None
    inside = f.signature[f.signature.find("(") + 1:f.signature.rfind(")")]
    params = [p.strip() for p in inside.split(",") if p.strip()]
    return f.signature, params, f.doc


# ---------------------------------------------------------------- what a name before `.` is

#: What the engine binds, by type (the event's `card` and `player`, a reaction's responder …).
_ENGINE_TYPES = {**{k: v for k, v in B.EVENT_BINDINGS.items() if v}, "responder": "player", "actor": "player"}


def type_before_dot(rs, item, word: str, line: int) -> Optional[str]:
    """"card", "player" or None (not known) for the name `word` written before a `.` on
    0-based line `line` of declaration `item` of the last ruleset that loaded: a built-in
    value's type, what the engine binds, else the local of that name bound before the line,
    typed by the type checker from what binds it (`choose c in hand(p)`: a card)."""
    v = B.VALUES.get(word)
    if v is not None:
        return v.result if v.result in ("card", "player") else None
    binder = None
    if item is not None:
        for u in facts(rs).uses.values():
            b = u.binder
            if b is not None and b.name == word and b.span is not None and b.span.line - 1 <= line \
                    and item.span.line <= b.span.line <= (item.span.end_line or item.span.line):
                if binder is None or b.span.line >= binder.span.line:
                    binder = b
    if binder is None:
        return _ENGINE_TYPES.get(word)
    node = binder.node
    if binder.how in ("event", "engine", "it"):
        return _ENGINE_TYPES.get(word, "card" if binder.how == "it" else None)
    checker = TypeChecker(rs)
    if isinstance(node, A.Let):
        ty = checker.ty(node.value, Scope())
    elif isinstance(node, A.Draw):
        ty = "card" if node.one else None     # `draw 1 as c`: a card; else a list of them
    else:
        source = getattr(node, "domain", None) or getattr(node, "source", None)
        ty = elem_ty(checker.ty(source, Scope())) if source is not None else None
    return ty if ty in ("card", "player") else None


# ---------------------------------------------------------------- where a player is expected

#: The words after which a player is written: `win p`, `give turn to p`, `choose … by p`,
#: `say "…" to p`, `reveal c to p`.
_PLAYER_AFTER = re.compile(r"(?:\b(?:win|lose|by)|\bgive\s+(?:extra\s+)?turn\s+to|\"\s+to"
                           r"|\breveal\b[^{}\n]*?\bto)\s+\w*$")


def expects_player(rs, before: str) -> Optional[str]:
    """"player" where a player is written at the end of `before` (the document up to the
    cursor): after `by`, `give turn to`, `say "…" to`, `reveal … to`, or as an argument
    whose kind is a player (`others(`, `hand(` of a zone of each player); "players" after
    `win` and `lose` (one player, or a list of them); else None. (`group by`, `sort by`
    and a pattern's `best by` take any expression.)"""
    m = _PLAYER_AFTER.search(before)
    if m and not re.search(r"\b(?:group|sort|best)\s+by\s+\w*$", before):
        return "players" if re.match(r"win|lose", m.group()) else "player"
    call = call_at(before)
    if call is None or not re.search(r"(?:^|[(,])\s*\w*$", before):
        return None
    name, index = call
    if rs is not None and index == 0 and call_meaning(rs, name) == "player_zone":
        return "player"
    if rs is not None and index == 1 and call_meaning(rs, name) == "card_zone" and rs.zones[name].per_player:
        return "player"   # `squad(c, |)`: the players in reach
    f = B.FUNCTIONS.get(name)
    builtin = f is not None and (rs is None or call_meaning(rs, name) == "builtin")
    return "player" if builtin and index < len(f.args) and f.args[index] == "player" else None


def players_at(rs, item, line: int, lists: bool = False) -> list:
    """(label, kind word, detail) of what names a player on 0-based line `line` of `item`:
    the locals bound there before it that are players (`for p in players`) or whose type
    is not known (a parameter), never a card; the built-in values that are a player
    (`current`, and with `lists` those that are players: `players`); the ruleset's
    constants that are one; the functions that give one."""
    out, seen = [], set()
    if item is not None:
        for u in facts(rs).uses.values():
            b = u.binder
            if b is None or b.name in seen or b.span is None or not (
                    item.span.line <= b.span.line <= min(line + 1, item.span.end_line or item.span.line)):
                continue
            seen.add(b.name)
            ty = type_before_dot(rs, item, b.name, line)
            if ty == "player":
                out.insert(0, (b.name, "variable", "a player"))
            elif ty is None and b.how not in ("it",):
                out.append((b.name, "variable", "a local"))
    out += [(v.name, "value", v.doc) for v in B.VALUES.values()
            if v.result == "player" or (lists and v.result == "players")]
    checker = TypeChecker(rs)
    out += [(d.name, "function", "def: a player") for d in rs.defs.values()
            if d.params is None and checker.ty(d.expr, Scope()) == "player"]
    out += [(f.name, "function", f"{f.signature}: {f.doc}") for f in B.FUNCTIONS.values() if f.result == "player"]
    return out


def properties(rs, ty: Optional[str]) -> list:
    """(label, kind word, detail) of what may follow `.` on a value of type `ty` (None: any)."""
    out = []
    if ty in ("card", None) and rs is not None:
        if rs.cards_decl is not None:
            out += [(p.name, "property", f"card property: {p.type}") for p in rs.cards_decl.props]
        out += [(d, "property", "derived card property") for d in rs.derives]
    if rs is not None:
        out += [(v.name, "variable", f"variable per {v.scope}") for v in rs.vars.values()
                if v.scope != "global" and (ty is None or v.scope == ty)]
    out += [(a, "field", f"{kinds}: {doc}") for a, (kinds, doc) in B.ATTRS.items()
            if ty is None or ty in [k.strip() for k in kinds.split(",")]]
    return out
