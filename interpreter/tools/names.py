"""What a name under an editor's cursor is, read from the resolver pass's record: the use
of a name there (`resolver.Use`), the uses bound to one binding, how a local is bound, and
what an event a trigger waits for is. The language server (`lsp.py`) answers hover,
definition, references and rename with these."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..check.loader import Ruleset
from ..check.resolver import facts
from ..runtime import builtins as B


def span_range(sp: Optional[A.Span]) -> tuple:
    """((line, character), (line, character)), 0-based and end-exclusive, of a Span."""
    if sp is None or not sp.line:
        return (0, 0), (0, 1)
    start = (sp.line - 1, max(sp.column - 1, 0))
    end = (sp.end_line - 1, max(sp.end_column - 1, 0)) if sp.end_line else start
    if end <= start:
        end = (start[0], start[1] + 1)
    return start, end


def _use_at(rs: Ruleset, item, line: int, char: int):
    """The recorded meaning (resolver.Use) of the bare name under the cursor (0-based line
    and character) in declaration `item`, or None when no use of a name is there."""
    uses = facts(rs).uses
    for n in A.walk(item):
        if isinstance(n, A.Name) and n.span is not None and id(n) in uses:
            (l0, c0), (l1, c1) = span_range(n.span)
            if l0 == line == l1 and c0 <= char <= c1:
                return uses[id(n)]
    return None


def _uses_in(rs: Ruleset, item):
    """The recorded uses of the names of a declaration."""
    return [u for _, u in _named_uses(rs, item)]


def _named_uses(rs: Ruleset, item):
    """(node, its resolver.Use) for each use of a name in a declaration, in source order."""
    uses = facts(rs).uses
    return [(n, uses[id(n)]) for n in A.walk(item) if isinstance(n, A.Name) and id(n) in uses and n.span]


def _event_doc(rs: Ruleset, name: str) -> str:
    """What an event a trigger or reaction waits for is (not the phase or zone of that name)."""
    binds = ", ".join(f"`{n}`" for n in B.EVENT_BINDINGS)
    if name in B.EVENTS:
        return f"```cgl\non {name}\n```\n\nthe event: {B.EVENTS[name]}. Its trigger sees {binds}."
    fields = sorted(rs.emits.get(name, ()))
    return (f"```cgl\non {name}\n```\n\nan event of this ruleset, raised by `emit {name}(…)`"
            + (f"; its fields: {', '.join(f'`{f}`' for f in fields)}" if fields else "") + f". Its trigger sees {binds}.")


def _binder_text(b, item) -> str:
    """How a local is bound, in the words of the rules: `let x`, `for x`, `f(… x …)` …"""
    if b.how in ("let", "for", "choose"):
        return f"{b.how} {b.name}"
    if b.how == "draw":
        return f"draw … as {b.name}"
    if b.how == "parameter":
        return f"{getattr(b.node, 'name', '') or getattr(item, 'name', '')}(… {b.name} …)"
    if b.how == "it":
        return "it (each card in turn)"
    if b.how == "event":
        return f"{b.name} (of the event)"
    return f"{b.name} (the engine binds it)"
