"""What the language server offers beyond the names under the cursor: the quick fix of a
diagnostic (its `help:` as one edit).

Positions are 0-based (line, code point), as `lsp.Session` counts them; `server.py`
converts them to the editor's encoding.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from ..base.diagnostics import Diagnostic

_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")
_QUOTED = re.compile(r"`([^`]+)`")


def quick_fix(d: Diagnostic, line: Callable[[int], str]) -> Optional[tuple]:
    """(title, ((line, char), (line, char)), new text): the edit a diagnostic's help asks for,
    or None. `d.fix` where the check said it (`else if` → `elif`, a missing `{`); else a
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
