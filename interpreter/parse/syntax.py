"""Syntax errors in words: what a parse error of Lark means to a person writing CGL.

What was expected (statements, not tokens), which block is still open when that is the
likely cause, and targeted messages for the common slips (`elsif`, a misspelt keyword
with did-you-mean, a string left open, `&&`, `;`). :mod:`build` calls
:func:`syntax_error` for every parse error.
"""
from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from cgl.grammar import parser

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic, did_you_mean


def tok_span(path, tok: Token) -> A.Span:
    return A.Span(path, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


_tok_span = tok_span


# ---------------------------------------------------------------- friendly errors

_TOKEN_WORDS = {
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`",
    "COLON": "`:`", "COMMA": "`,`", "DOT": "`.`", "NAME": "a name", "INT": "a number",
    "STRING": "a text in double quotes", "DICE": "dice like `2d6`", "EQUAL": "`=`",
    "STAR": "`*`", "SLASH": "`/`", "PERCENT": "`%`", "LESSTHAN": "`<`", "MORETHAN": "`>`",
    "VBAR": "`|`", "PLUS": "`+`", "MINUS": "`-`", "__ANON_0": "`..`", "$END": "the end of the file",
    "END_SCOPE": "`turn`, `round`, `game` or `phase`",
}

def _leading_keywords(origin: str) -> frozenset:
    """The keywords (as Lark names their terminals: `MOVE`) that a `origin` of the grammar
    (`_stmt`, a statement; `_item`, a declaration) can start with: read from the grammar
    itself, so a keyword added there is known here at once."""
    p = parser()
    keywords = {t.name for t in p.terminals if t.pattern.type == "str" and t.pattern.value.isalpha()}
    found, todo, seen = set(), [origin], set()
    while todo:
        name = todo.pop()
        seen.add(name)
        for r in p.rules:
            if r.origin.name == name and r.expansion:
                first = r.expansion[0]
                if first.is_term:
                    found.add(first.name)
                elif first.name not in seen:
                    todo.append(first.name)
    return frozenset(found & keywords)


_STATEMENT_WORDS = _leading_keywords("_stmt")
_DECL_WORDS = _leading_keywords("_item")


def _word(term: str) -> str:
    if term in _TOKEN_WORDS:
        return _TOKEN_WORDS[term]
    if term.startswith("__ANON"):
        return "a symbol"
    return f"`{term.lower()}`"


def _describe_expected(expected: set[str]) -> str:
    exp = set(expected)
    groups = []
    if _STATEMENT_WORDS <= exp:
        groups.append("a statement")
        exp -= _STATEMENT_WORDS
        exp.discard("NAME")
    if len(_DECL_WORDS & exp) >= 10:
        groups.append("a declaration (`game`, `zone`, `on`, `def`, …)")
        exp -= _DECL_WORDS
    if {"INT", "NAME", "STRING"} <= exp:
        groups.append("an expression")
        exp -= {"INT", "NAME", "STRING", "DICE", "LPAR", "LSQB", "MINUS", "TRUE", "FALSE", "NONE", "NOT", "IF"}
    words = groups + sorted(_word(t) for t in exp)
    if len(words) > 6:
        words = words[:6] + ["…"]
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1] if words else "something else"


def _open_block(text: str, pos: int) -> str | None:
    """Name the innermost block still open at `pos`, e.g. `phase discard` opened at line 40."""
    stack = _still_open(text, pos, "{", "}")
    if not stack:
        return None
    at = stack[-1]
    line_start = text.rfind("\n", 0, at) + 1
    head = text[line_start:at].strip() or "block"
    line = text.count("\n", 0, at) + 1
    return f"the block `{head} {{` opened at line {line} is still open"


# Words a statement or a declaration can start with, for "did you mean" on a misspelt one.
_STATEMENT_KEYWORDS = sorted(w.lower() for w in _STATEMENT_WORDS) + ["elif", "else"]
_DECL_KEYWORDS = sorted(w.lower() for w in _DECL_WORDS)
# Slips from other languages, and what CGL writes instead.
_FOREIGN = {
    "&&": "write `and` instead of `&&`", "||": "write `or` instead of `||`",
    ";": "CGL needs no `;`: a new statement simply starts with its keyword",
    "'": "texts are written in double quotes",
    "!": "write `not` instead of `!` (`!=` is fine for \"not equal\")",
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _word_before(text: str, pos: int) -> tuple[str, int] | None:
    """The word just before `pos` (skipping spaces), and where it starts."""
    i = pos
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
        j -= 1
    return (text[j:i], j) if j < i else None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _at(path: str, text: str, start: int, end: int) -> A.Span:
    line, col = _line_col(text, start)
    return A.Span(path, line, col, line, col + max(end - start, 1))


def _unknown_word(path: str, text: str, start: int, word: str, top_level: bool) -> CglError:
    """`drew 1`, `shufle deck`, `variable x = 1`: a word no statement or declaration starts with."""
    sp = _at(path, text, start, start + len(word))
    if not top_level and word in _DECL_KEYWORDS and word not in _STATEMENT_KEYWORDS:
        # a declaration inside a block: the block before it is not closed
        return CglError(Diagnostic("E001", f"`{word}` starts a declaration, but a block is still open", sp,
                                   hint=_open_block(text, start) + ": close it with `}` before this line"))
    if top_level:
        prefix = [k for k in _DECL_KEYWORDS if word.startswith(k) or k.startswith(word)]
        hint = (f"did you mean `{max(prefix, key=len)}`?" if prefix else did_you_mean(word, _DECL_KEYWORDS)) or \
            "a declaration starts with `game`, `zone`, `var`, `def`, `on`, `turn`, … (see docs/language.md)"
        return CglError(Diagnostic("E001", f"`{word}` does not start a declaration", sp, hint=hint))
    if word in ("elseif", "elsif"):
        return CglError(Diagnostic("E001", f"`{word}` does not start a statement", sp,
                                   hint="CGL writes `elif`: `if a { … } elif b { … } else { … }`", fix=(sp, "elif")))
    else:
        hint = did_you_mean(word, _STATEMENT_KEYWORDS) or \
            f"a statement starts with a keyword (`move`, `draw`, `set`, `if`, …) or calls a procedure: `{word}(…)`"
    return CglError(Diagnostic("E001", f"`{word}` does not start a statement", sp, hint=hint))


def _open_paren(text: str, pos: int) -> int | None:
    """Where the innermost `(` still open at `pos` is (outside strings and comments)."""
    stack = _still_open(text, pos, "(", ")")
    return stack[-1] if stack else None


def code_chars(text: str, end: int | None = None):
    """(index, character) of every character of CGL `text` (up to `end`) that is code: not
    inside a text "…" nor a # comment. The one scanner of brackets outside the parser."""
    i, stop = 0, len(text) if end is None else min(end, len(text))
    in_str = in_comment = False
    while i < stop:
        ch = text[i]
        if in_comment:
            in_comment = ch != "\n"
        elif in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == "#":
            in_comment = True
        elif ch == '"':
            in_str = True
        else:
            yield i, ch
        i += 1


def _still_open(text: str, pos: int, opening: str, closing: str) -> list:
    """Where the `opening` brackets still open at `pos` are, innermost last."""
    stack = []
    for i, ch in code_chars(text, pos):
        if ch == opening:
            stack.append(i)
        elif ch == closing and stack:
            stack.pop()
    return stack


def _names_a_call(text: str, start: int) -> bool:
    """Whether the word at `start` is the name after `emit`, `procedure` or `possible(`."""
    prev = _word_before(text, start)
    if prev and prev[0] in ("emit", "procedure"):
        return True
    return text[:start].rstrip().endswith("(")


def _block_slip(text: str, path: str, tok, pos: int, expected: set, before) -> CglError | None:
    """`} else if x {` after a `choose` or a `may` (only an `if` chains), and a block's `{`
    missing at the end of the line before it (with the edit that fixes it)."""
    if tok.type == "IF" and before and before[0] == "else":
        sp = _at(path, text, before[1], pos + 2)
        return CglError(Diagnostic("E001", "`else if` continues an `if` only: this `else` belongs to "
                                           "a `choose` or a `may` and takes a block", sp,
                                   hint="write `else { if condition { … } }`"))
    if "LBRACE" in expected:
        last = max((i for i, ch in code_chars(text, pos) if not ch.isspace()), default=None)
        if last is not None and "\n" in text[last:pos]:
            line, col = _line_col(text, last + 1)
            return CglError(Diagnostic("E001", f"unexpected `{tok}`: expected {_describe_expected(expected)}",
                                       _tok_span(path, tok),
                                       hint=f"a block opens with `{{`: add one at the end of line {line}",
                                       fix=(A.Span(path, line, col, line, col), " {")))
    return None


def syntax_error(text: str, path: str, e: UnexpectedInput) -> CglError:
    """The diagnostic for a parse error: a targeted message for the common slips, else what was
    expected; the block still open is named only when it is the likely cause."""
    if isinstance(e, UnexpectedCharacters):
        pos = e.pos_in_stream
        ch = text[pos] if pos < len(text) else "?"
        open_ = _open_block(text, pos)
        if ch == '"':
            # a string that is not closed on its line: the lexer stops at its opening quote
            return CglError(Diagnostic("E001", "this string is not closed", _at(path, text, pos, pos + 1),
                                       hint='end it with `"` on the same line (a string cannot span lines)'))
        m = _WORD.match(text, pos)
        if m:
            # a word the lexer cannot take here: where only keywords may come (the top level)
            return _unknown_word(path, text, pos, m.group(), open_ is None)
        two = text[pos:pos + 2]
        hint = _FOREIGN.get(two) or _FOREIGN.get(ch)
        sym = two if two in _FOREIGN else ch
        return CglError(Diagnostic("E001", f"unexpected character `{sym}`", _at(path, text, pos, pos + len(sym)),
                                   hint=hint))
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        lines = text.splitlines() or [""]
        sp = A.Span(path, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
        return CglError(Diagnostic("E001", "the file ends too early", sp, hint=_open_block(text, len(text))))
    tok = e.token
    pos = tok.start_pos if tok.start_pos is not None else len(text)
    sp = _tok_span(path, tok)
    expected = set(e.accepts or e.expected)
    before = _word_before(text, pos)
    open_ = _open_block(text, pos)
    slip = _block_slip(text, path, tok, pos, expected, before)
    if slip is not None:
        return slip
    # `drew 1`: a name at the start of a statement, taken for a call `drew(…)` (not the name
    # after `emit`, `procedure` or `possible(`, which a `(` follows too)
    if expected == {"LPAR"} and before and open_ is not None and not _names_a_call(text, before[1]):
        word, start = before
        if str(tok) in ("=", "+=", "-=", "."):
            stmt = re.split(r"[\n}#]", text[start:], maxsplit=1)[0].strip()
            return CglError(Diagnostic("E001", f"`{word}` does not start a statement",
                                       _at(path, text, start, start + len(word)),
                                       hint=f"to change a value, write `set {stmt}`"))
        return _unknown_word(path, text, start, word, False)
    # `variable x = 1` (the lexer took its `var`), `zon pot: shared`: not a declaration's first word
    line_start = text.rfind("\n", 0, pos) + 1
    first = _WORD.match(text, line_start)
    if open_ is None and first and first.group() not in _DECL_KEYWORDS and \
            (pos == line_start or any(first.group().startswith(k) for k in _DECL_KEYWORDS)):
        return _unknown_word(path, text, line_start, first.group(), True)
    # `zone pot: shared, pubic`, `end trun`: a misspelt keyword where keywords were expected
    if tok.type == "NAME" and "NAME" not in expected:
        words = [w for w in (_word(t).strip("`") for t in expected) if _WORD.fullmatch(w)]
        if tok.type == "NAME" and "END_SCOPE" in expected:
            words += ["turn", "round", "game", "phase"]
        close = did_you_mean(str(tok), words)
        if close:
            return CglError(Diagnostic("E001", f"unexpected `{tok}`: expected {_describe_expected(expected)}", sp,
                                       hint=close))
    # `if x:` (a block is in braces)
    if tok.type == "COLON" and not text[tok.end_pos:].split("\n", 1)[0].split("#")[0].strip():
        return CglError(Diagnostic("E001", "unexpected `:` at the end of the line", sp,
                                   hint="a block is written in braces: `if condition { … }`"))
    if "RPAR" in expected:
        paren = _open_paren(text, pos)
        if paren is not None and _line_col(text, paren)[0] < tok.line:
            line, col = _line_col(text, paren)
            return CglError(Diagnostic("E001", f"unexpected `{tok}`: expected {_describe_expected(expected)}", sp,
                                       hint=f"the `(` at line {line}, column {col} is not closed"))
    # `a || b` (the lexer reads a `|`, which starts a table row)
    if text[pos:pos + 2] in _FOREIGN:
        return CglError(Diagnostic("E001", f"unexpected `{text[pos:pos + 2]}`", _at(path, text, pos, pos + 2),
                                   hint=_FOREIGN[text[pos:pos + 2]]))
    if tok.type == "RBRACE" and open_ is None:
        return CglError(Diagnostic("E001", "this `}` closes nothing: there is no open `{` before it", sp,
                                   hint="remove it, or look for a block closed twice above"))
    # the open block is the likely cause when a declaration starts inside it (a `}` is missing)
    hint = open_ if tok.type in _DECL_WORDS else None
    return CglError(Diagnostic("E001", f"unexpected `{tok}`: expected {_describe_expected(expected)}", sp, hint=hint))
