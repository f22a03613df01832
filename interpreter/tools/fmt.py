"""`cgl fmt`: one canonical layout for `.cgl` files, comments kept.

The formatter works on the token stream, guided by the parse tree; it keeps the line
breaks the author chose (like gofmt) and normalises everything else:

* indentation: two spaces per open `{`; a line that continues an expression or a
  declaration begun on an earlier line keeps its offset from that line (so hand-aligned
  continuations stay aligned when the block around them moves);
* spacing inside a line: one space around operators and after `,` and `:`, none inside
  brackets, before `(` of a call, around `.` and `..`, or after a unary `-`; two spaces
  between statements that share a line (`{ set a = 0  set b = 1 }`);
* comments: every comment stays on its line; a comment on a line of its own takes the
  indentation of the code it precedes; a trailing comment keeps its column (so columns
  of aligned comments stay aligned), at least two spaces after the code;
* `else if` is written `elif`, in statements and in if-expressions alike (the two mean the
  same; `elif` is one word, what every shipped ruleset writes, and keeps a chain flat);
* blank lines: at most one in a row, none at the start or end of the file, right after
  a `{` or right before a `}`; the file ends with exactly one newline.

Formatting never changes meaning: the result is parsed again and its AST compared with
the original's (spans aside) before anything is written.
"""
from __future__ import annotations

import difflib
import re

from lark import Token, Tree
from lark.exceptions import LarkError

from cgl.grammar import parser

from ..base import ast as A
from ..parse.build import _Build, _transform, parse
from ..base.diagnostics import CglError, Diagnostic, remember_source

INDENT = "  "

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"([^"\\\n]|\\.)*")
  | (?P<dice>[0-9]*d[0-9]+(?![A-Za-z0-9_]))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<int>[0-9]+)
  | (?P<op>\.\.|->|\+=|-=|==|!=|<=|>=|//|[{}()\[\],:.=<>+\-*/%|])
""", re.VERBOSE)

# Parents whose children each begin a line of their own kind (a statement, a field, an
# `else`): such a line is indented by its depth in braces, not as a continuation.
_LAYOUT_PARENTS = {"start", "block", "game_decl", "cards_decl", "table_decl", "pattern_decl", "match_decl",
                   "round_decl", "turn_decl", "reaction_decl", "deck_decl"}
_CLAUSES = {"elif_clause", "else_if_clause", "else_block", "then_block"}
# The children of a braced declaration that are its fields (not its name, parameters or event).
_FIELD_PREFIXES = ("game_", "prop_decl", "table_row", "table_else", "pattern_", "match_", "round_", "turn_",
                   "react_", "deck_")
_OPERAND_WORDS = {"true", "false", "none"}
_NO_SPACE_AFTER = {"(", "[", ".", ".."}
_NO_SPACE_BEFORE = {")", "]", ",", ".", "..", ":"}


class _Tok:
    __slots__ = ("kind", "text", "pos", "line", "col")

    def __init__(self, kind, text, pos, line, col):
        self.kind, self.text, self.pos, self.line, self.col = kind, text, pos, line, col


def _tokens(text: str) -> list:
    out, pos, line, line_start = [], 0, 1, 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:  # cannot happen for text that parsed; keep the character as it is
            out.append(_Tok("op", text[pos], pos, line, pos - line_start))
            pos += 1
            continue
        kind = m.lastgroup
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind != "ws":
            out.append(_Tok(kind, m.group(), pos, line, pos - line_start))
        pos = m.end()
    return out


def _canonical_elif(toks: list) -> list:
    """`else if` (two code tokens with no comment between) as the one token `elif`: in a
    parsed file `else` followed by `if` only ever continues an if-chain."""
    out = []
    for t in toks:
        prev = out[-1] if out else None
        if t.kind == "name" and t.text == "if" and prev is not None and prev.kind == "name" and prev.text == "else":
            prev.text = "elif"
            continue
        out.append(t)
    return out


def _tree_marks(tree) -> tuple[set, set, set]:
    """Start offsets of named tokens, of line-starting nodes, and of statements/fields."""
    named, heads, stmts = set(), set(), set()
    stack = [tree]
    while stack:
        t = stack.pop()
        for c in t.children:
            if isinstance(c, Token):
                if not c.type.startswith("__") and c.start_pos is not None:
                    named.add(c.start_pos)
            elif isinstance(c, Tree):
                stack.append(c)
                if c.meta.empty:
                    continue
                if t.data in _LAYOUT_PARENTS and (t.data in ("start", "block")
                                                  or c.data.startswith(_FIELD_PREFIXES)):
                    heads.add(c.meta.start_pos)
                    if t.data != "start":
                        stmts.add(c.meta.start_pos)
                elif c.data in _CLAUSES:
                    heads.add(c.meta.start_pos)
    return named, heads, stmts


def _indent_width(raw: str) -> int:
    return len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip(" "))


def _operand_end(prev, named) -> bool:
    """Whether a `-` after `prev` is binary (`a - b`), not unary (`prefer -x`)."""
    if prev is None:
        return False
    if prev.kind in ("int", "string", "dice") or prev.text in (")", "]"):
        return True
    return prev.kind == "name" and (prev.pos in named or prev.text in _OPERAND_WORDS)


def _join(toks, named, stmts, before=None) -> str:
    """One line's code tokens, spaced canonically; `before` is the code token before the line."""
    out = []
    prev = None
    unary = False  # the previous token was a unary minus
    for t in toks:
        x = t.text
        if prev is None:
            sep = ""
        elif unary or prev.text in _NO_SPACE_AFTER or x in _NO_SPACE_BEFORE:
            sep = ""
        elif x == "(" and ((prev.kind == "name" and prev.pos in named) or prev.text == "possible"):
            sep = ""
        elif prev.text == "{" and x == "}":
            sep = " "
        elif t.pos in stmts and prev.text != "{":
            sep = "  "
        else:
            sep = " "
        unary = x == "-" and t.kind == "op" and not _operand_end(prev or before, named)
        out.append(sep + x)
        prev = t
    return "".join(out)


def format_text(text: str, path: str = "<string>") -> str:
    """The canonical layout of a CGL file. Raises :class:`CglError` if it does not parse."""
    remember_source(path, text)
    try:
        tree = parser().parse(text, start="start")
    except LarkError:
        parse(text, path)  # raises the located, worded error
        raise
    before = _transform(_Build(path, text), tree)
    named, heads, stmts = _tree_marks(tree)
    src_lines = text.split("\n")

    lines = _rows(text, src_lines)
    indent_of, depth = _indents(lines, src_lines, heads)
    result = _emit(lines, indent_of, _top_level_gaps(lines, depth, heads), named, stmts)

    after = parse(result, f"{path} (formatted)")
    if after.items != before.items or _comments(result) != _comments(text):  # pragma: no cover - a formatter bug
        raise CglError(Diagnostic("E001", "cgl fmt would change what this file means (a bug in cgl fmt): "
                                          "the file was left as it is", A.Span(path, 1, 1, 1, 2)))
    return result


def _rows(text: str, src_lines: list) -> list:
    """The tokens grouped by source line: [(line_no, code_tokens, comment_token_or_None)]."""
    rows: dict[int, list] = {}
    for t in _canonical_elif(_tokens(text)):
        rows.setdefault(t.line, []).append(t)
    lines = []
    for n in range(1, len(src_lines) + 1):
        toks = rows.get(n, [])
        comment = toks[-1] if toks and toks[-1].kind == "comment" else None
        code = toks[:-1] if comment else toks
        lines.append((n, code, comment))

    return lines


def _indents(lines: list, src_lines: list, heads) -> tuple[dict, dict]:
    """The indentation of every code line, and the brace depth at its start and its end."""
    brace = paren = 0
    indent_of: dict[int, int] = {}
    head_old = head_new = 0
    depth: dict[int, tuple] = {}  # brace depth at the start and at the end of each code line
    for n, code, _ in lines:
        if not code:
            continue
        start_depth = brace
        first = code[0]
        old = _indent_width(src_lines[n - 1])
        if paren == 0 and (first.text == "}" or first.pos in heads):
            level = brace - 1 if first.text == "}" else brace
            new = len(INDENT) * max(level, 0)
            head_old, head_new = old, new
        else:  # a continuation: keep its offset from the line it continues
            new = max(old + head_new - head_old, head_new + len(INDENT))
        indent_of[n] = new
        for t in code:
            if t.text == "{":
                brace += 1
            elif t.text == "}":
                brace -= 1
            elif t.text in "([":
                paren += 1
            elif t.text in ")]":
                paren -= 1
        depth[n] = (start_depth, brace)
    return indent_of, depth


def _emit(lines: list, indent_of: dict, blank_before: set, named, stmts) -> str:
    """The formatted text: each line re-indented and re-spaced, comments kept, blank lines
    at most one in a row and none just inside a block."""
    out: list[str] = []
    pending_blank = opened = False
    last = None
    for i, (n, code, comment) in enumerate(lines):
        if not code and not comment:
            pending_blank = True
            continue
        if code:
            body = " " * indent_of[n] + _join(code, named, stmts, last)
            last = code[-1]
            starts_with_close = code[0].text == "}"
        else:
            body = " " * _comment_indent(lines, i, indent_of)
            starts_with_close = False
        if (pending_blank or i in blank_before) and out and not opened and not starts_with_close:
            out.append("")
        pending_blank = False
        if code:
            opened = code[-1].text == "{"
        if comment is not None:
            ctext = comment.text.rstrip()
            if code:
                col = max(comment.col, len(body) + 2)
                body = body + " " * (col - len(body)) + ctext
            else:
                body += ctext
        out.append(body)
    return "\n".join(out) + "\n" if out else ""


def _top_level_gaps(lines, depth, heads) -> set:
    """Lines that get a blank line before them: a top-level declaration whose block takes
    several lines (with the comments just above it) is set apart from its neighbours."""
    gaps = set()
    code_rows = [i for i, (_, code, _) in enumerate(lines) if code]
    for k, i in enumerate(code_rows):
        n, code, _ = lines[i]
        if depth[n] == (1, 0) and code[0].text == "}":  # closes a top-level block
            j = i + 1
            while j < len(lines) and not lines[j][1] and lines[j][2] is None:
                j += 1
            gaps.add(j)
        elif depth[n][0] == 0 and code[0].pos in heads:
            block = False  # does a block of this declaration go on below its first line?
            for m in code_rows[k + 1:]:
                m_n, m_code, _ = lines[m]
                if depth[m_n][0] > 0:
                    block = True
                    break
                if m_code[0].pos in heads:
                    break
            if block:
                j = i
                while j > 0 and not lines[j - 1][1] and lines[j - 1][2] is not None:
                    j -= 1
                gaps.add(j)
    return gaps


def _comment_indent(lines, i, indent_of) -> int:
    """A comment on a line of its own is indented like the code line after it."""
    for n, code, _ in lines[i + 1:]:
        if code:
            return indent_of[n] + (len(INDENT) if code[0].text == "}" else 0)
    return 0


def _comments(text: str) -> list:
    return [t.text.rstrip() for t in _tokens(text) if t.kind == "comment"]


def diff(old: str, new: str, path: str) -> str:
    """A unified diff from `old` to `new`, as `cgl fmt --diff` prints it."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=path, tofile=path))
