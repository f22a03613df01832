"""What a ruleset says about its declarations and its cards, read without playing: a
declaration's doc comment (the ruleset's own words for what it does), and the
declarations whose conditions single out a card by its properties. The language server's
hover shows a designer the doc comments; the table's `about` shows a player only the player
text (`##` lines), never a designer's notes."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..base.diagnostics import _source_line
from .lint import _NOT_CONST
from .lint import _const as lint_const

#: Declarations whose conditions are not rules a card meets.
_NOT_RULES = (A.Cards, A.Game, A.Derive, A.Option, A.Enum, A.Zone, A.Var)


def _comment_block(sp: A.Span) -> list:
    """The comment lines right above a declaration, top first, as written (up to a
    section's heading, `# ---` or `# ===`)."""
    above = []
    n = sp.line - 1
    while n >= 1:
        text = (_source_line(sp.path, n) or "").strip()
        if not text.startswith("#") or text.lstrip("#").strip().startswith(("---", "===")):
            break   # not a comment, or a section's heading
        above.insert(0, text)
        n -= 1
    return above


def doc_comment(sp: Optional[A.Span]) -> str:
    """The comment lines right above a declaration, and a comment ending its first line,
    as one text (what the editor's hover shows a designer)."""
    if sp is None:
        return ""
    above = [text.lstrip("#").strip() for text in _comment_block(sp)]
    first = _source_line(sp.path, sp.line) or ""
    cut = _comment_start(first)
    if cut is not None:
        above.append(first[cut + 1:].strip())
    return " ".join(a for a in above if a)


def player_text(sp: Optional[A.Span]) -> str:
    """What the table tells a player about a declaration: the `##` lines of the comment block
    right above it (docs/language.md, section 2). Plain `#` comments are the designer's notes
    and never reach a player."""
    if sp is None:
        return ""
    return " ".join(t[2:].strip() for t in _comment_block(sp) if t.startswith("##") and t[2:].strip())


def _comment_start(line: str) -> Optional[int]:
    """Where a comment begins on a line of code (a `#` outside any text), or None."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return i
    return None


def rules_about(rs, values: dict) -> list:
    """The declarations (in the ruleset's order) whose conditions single out a card with
    these property values (its data, and what it derives): `prop = value`, `prop in
    [values]`, `value in prop` (a list property)."""
    return [decl for decl in rs.items if names_card(decl, values, rs)]


def names_card(decl, values: dict, rs) -> bool:
    """Whether one declaration's conditions single out a card with these property values."""
    if isinstance(decl, _NOT_RULES):
        return False
    props = set(values)
    for n in A.walk(decl):
        if isinstance(n, A.Compare) and n.op == "=":
            for side, other in ((n.left, n.right), (n.right, n.left)):
                prop = _prop_name(side, props)
                if prop is not None and _const(other, rs) is not None and _const(other, rs) == values[prop]:
                    return True
        elif isinstance(n, A.In) and not n.negated:
            prop = _prop_name(n.left, props)
            if prop is not None and isinstance(n.right, A.ListLit) and \
                    values[prop] in [_const(i, rs) for i in n.right.items]:
                return True
            prop = _prop_name(n.right, props)
            if prop is not None and isinstance(values[prop], list) and _const(n.left, rs) in values[prop]:
                return True
    return False


def _prop_name(e, props) -> Optional[str]:
    if isinstance(e, A.Name) and e.id in props:
        return e.id
    if isinstance(e, A.Attr) and e.name in props:
        return e.name
    return None


def _const(e, rs):
    """The value of a constant expression (lint's reading of one), or None."""
    v = lint_const(e, rs)
    return None if v is _NOT_CONST else v
