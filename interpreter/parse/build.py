"""Parse CGL text into the typed AST (:mod:`cgl.interpreter.base.ast`).

The only place that looks at Lark trees. Parse errors become diagnostics that say,
in words, what was expected and which block is still open.
"""
from __future__ import annotations

import re
import threading

import attrs

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from cgl.grammar import parser

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic, remember_source
from ..base.protocol import MAX_DEPTH, MAX_NESTING, MAX_NUMBER
from .syntax import code_chars, syntax_error, tok_span as _tok_span


def _span(path, meta) -> A.Span:
    if meta is None or getattr(meta, "empty", True):
        return A.Span(path, 0, 0, 0, 0)
    return A.Span(path, meta.line, meta.column, meta.end_line, meta.end_column)


def _unquote(tok: str) -> str:
    body = tok[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


@attrs.frozen
class _ZoneAttr:
    """One attribute of a zone declaration: which of the things a zone says it says
    (`group`), in the designer's words, the AST field it sets, and where it is written."""
    group: str
    words: str
    field: tuple
    span: object
    also: tuple = ()   # a second field it sets (`per card per player`: per_card and per_player)


_ZONE_GROUPS = {
    "whose": "a zone is shared, one per player, one per card or one per card and player",
    "order": "a zone's cards keep an order or not",
    "sight": "one attribute says who sees a zone's cards",
    "role": "a zone has one role",
}


class _Tagged:
    """A labelled optional part of a rule (e.g. the `from` of a draw)."""

    __slots__ = ("tag", "value")

    def __init__(self, tag, value):
        self.tag, self.value = tag, value


def _tagged(children, tag, default=None):
    for c in children:
        if isinstance(c, _Tagged) and c.tag == tag:
            return c.value
    return default


def _all_tagged(children, tag):
    return [c.value for c in children if isinstance(c, _Tagged) and c.tag == tag]


def _of(children, cls):
    return [c for c in children if isinstance(c, cls)]


@v_args(meta=True)
class _Build(Transformer):
    def __init__(self, path: str, text: str):
        super().__init__()
        self.path = path
        self.text = text

    def sp(self, meta):
        return _span(self.path, meta)

    # ------------------------------------------------------------ strings
    def text_node(self, tok: Token) -> A.Text:
        raw = _unquote(str(tok))
        parts: list = []
        i, buf = 0, ""
        while i < len(raw):
            ch = raw[i]
            if ch == "{" and raw.startswith("{{", i):
                buf += "{"
                i += 2
            elif ch == "}" and raw.startswith("}}", i):
                buf += "}"
                i += 2
            elif ch == "{":
                j = raw.find("}", i)
                if j < 0:
                    raise CglError(Diagnostic("E001", "unclosed `{` in a text", _tok_span(self.path, tok),
                                              hint="write `{{` for a literal brace"))
                if buf:
                    parts.append(buf)
                    buf = ""
                parts.append(self._sub_expr(raw[i + 1:j], tok, i + 1))
                i = j + 1
            else:
                buf += ch
                i += 1
        if buf or not parts:
            parts.append(buf)
        return A.Text(tuple(parts), span=_tok_span(self.path, tok))

    def _sub_expr(self, src: str, tok: Token, offset: int) -> A.Expr:
        line, col = tok.line, tok.column + 1 + offset
        try:
            tree = parser().parse(src, start="expr")
        except UnexpectedInput:
            raise CglError(Diagnostic("E001", f"bad expression `{{{src}}}` inside a text",
                                      A.Span(self.path, line, col, line, col + len(src)))) from None
        node = _transform(_Build(self.path, src), tree, (line - 1, col - 1))
        return _shift(node, self.path, line, col - 1)

    # ------------------------------------------------------------ expressions
    def int_lit(self, meta, c):
        return A.Int(int(c[0]), span=self.sp(meta))

    def str_lit(self, meta, c):
        return self.text_node(c[0])

    def dice(self, meta, c):
        n, _, s = str(c[0]).partition("d")
        if int(s) < 1:
            raise CglError(Diagnostic("E001", f"`{c[0]}`: a die has at least one side", self.sp(meta),
                                      hint="write `d6` for a six-sided die"))
        return A.Dice(int(n) if n else 1, int(s), span=self.sp(meta))

    def true_lit(self, meta, c):
        return A.Const(True, span=self.sp(meta))

    def false_lit(self, meta, c):
        return A.Const(False, span=self.sp(meta))

    def none_lit(self, meta, c):
        return A.Const(None, span=self.sp(meta))

    def name(self, meta, c):
        return A.Name(str(c[0]), span=self.sp(meta))

    def args(self, meta, c):
        return tuple(c)

    def call(self, meta, c):
        return A.Call(str(c[0]), c[1] if len(c) > 1 and c[1] is not None else (), span=self.sp(meta))

    def possible(self, meta, c):
        call = A.Call(str(c[0]), c[1] if len(c) > 1 and c[1] is not None else (), span=self.sp(meta))
        return A.Possible(call, span=self.sp(meta))

    def list_lit(self, meta, c):
        return A.ListLit(c[0] if c and c[0] is not None else (), span=self.sp(meta))

    def comprehension(self, meta, c):
        cond = c[3] if len(c) > 3 else None
        return A.Comprehension(c[0], str(c[1]), c[2], cond, span=self.sp(meta))

    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), span=self.sp(meta))

    def _bin(op):
        def build(self, meta, c):
            return A.BinOp(op, c[0], c[1], span=self.sp(meta))
        return build

    def _cmp(op):
        def build(self, meta, c):
            return A.Compare(op, c[0], c[1], span=self.sp(meta))
        return build

    add, sub, mul, div, floordiv, mod = _bin("+"), _bin("-"), _bin("*"), _bin("/"), _bin("//"), _bin("%")
    eq, ne, lt, le, gt, ge = _cmp("="), _cmp("!="), _cmp("<"), _cmp("<="), _cmp(">"), _cmp(">=")

    def in_(self, meta, c):
        return A.In(c[0], c[1], False, span=self.sp(meta))

    def not_in(self, meta, c):
        return A.In(c[0], c[1], True, span=self.sp(meta))

    def and_(self, meta, c):
        return A.And(c[0], c[1], span=self.sp(meta))

    def or_(self, meta, c):
        return A.Or(c[0], c[1], span=self.sp(meta))

    def not_(self, meta, c):
        return A.Not(c[0], span=self.sp(meta))

    def neg(self, meta, c):
        return A.Neg(c[0], span=self.sp(meta))

    def if_expr(self, meta, c):
        return A.IfExpr(c[0], c[1], c[2], span=self.sp(meta))

    def where(self, meta, c):
        return A.Where(c[0], c[1], span=self.sp(meta))

    def group_by(self, meta, c):
        return A.GroupBy(c[0], c[1], span=self.sp(meta))

    def sort_by(self, meta, c):
        return A.SortBy(c[0], c[1], span=self.sp(meta))

    # ------------------------------------------------------------ statements
    def block(self, meta, c):
        return A.Block(tuple(c), span=self.sp(meta))

    def pos_top(self, meta, c):
        return _Tagged("pos", "top")

    def pos_bottom(self, meta, c):
        return _Tagged("pos", "bottom")

    def then_block(self, meta, c):
        return _Tagged("then", c[0])

    def move_stmt(self, meta, c):
        return A.Move(c[0], c[1], _tagged(c, "pos", "top"), _tagged(c, "then"), span=self.sp(meta))

    def swap_stmt(self, meta, c):
        return A.Swap(c[0], c[1], _tagged(c, "then"), span=self.sp(meta))

    def draw_from(self, meta, c):
        return _Tagged("from", c[0])

    def draw_to(self, meta, c):
        return _Tagged("to", c[0])

    def discard_to(self, meta, c):
        return _Tagged("to", c[0])

    def forced(self, meta, c):
        return _Tagged("forced", True)

    def draw_as(self, meta, c):
        return _Tagged("as", str(c[0]))

    def draw_stmt(self, meta, c):
        return A.Draw(c[0], _tagged(c, "from"), _tagged(c, "to"), _tagged(c, "then"), _tagged(c, "as"),
                      span=self.sp(meta))

    def deal_stmt(self, meta, c):
        zone = next(x for x in reversed(c) if isinstance(x, Token))
        return A.Deal(c[0], _tagged(c, "from"), str(zone), _tagged(c, "then"), span=self.sp(meta))

    def discard_stmt(self, meta, c):
        return A.Discard(c[0], _tagged(c, "to"), _tagged(c, "forced", False), _tagged(c, "then"), span=self.sp(meta))

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], span=self.sp(meta))

    def cut_stmt(self, meta, c):
        return A.Cut(c[0], c[1] if len(c) > 1 else None, span=self.sp(meta))

    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], c[1] if len(c) > 1 else None, span=self.sp(meta))

    def lv_name(self, meta, c):
        return A.Name(str(c[0]), span=self.sp(meta))

    def lv_attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), span=self.sp(meta))

    def op_set(self, meta, c):
        return "="

    def op_add(self, meta, c):
        return "+="

    def op_sub(self, meta, c):
        return "-="

    def set_stmt(self, meta, c):
        return A.Set(c[0], c[1], c[2], span=self.sp(meta))

    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], span=self.sp(meta))

    def may_flag(self, meta, c):
        return _Tagged("may", True)

    def count_range(self, meta, c):
        return _Tagged("count", (c[0], c[1]))

    def count_exact(self, meta, c):
        n = A.Int(int(c[0]), span=self.sp(meta))
        return _Tagged("count", (n, n))

    def opt_by(self, meta, c):
        return _Tagged("by", c[0])

    def opt_prompt(self, meta, c):
        return _Tagged("prompt", self.text_node(c[0]))

    def opt_prefer(self, meta, c):
        return _Tagged("prefer", c[0])

    def opt_tag(self, meta, c):
        return _Tagged("tag", str(c[0]))

    def else_block(self, meta, c):
        return _Tagged("else", c[0])

    def choose_stmt(self, meta, c):
        rest = [x for x in c if not isinstance(x, _Tagged)]
        name, domain, body = str(rest[0]), rest[1], rest[2]
        lo, hi = _tagged(c, "count", (None, None))
        return A.Choose(_tagged(c, "may", False), lo, hi, name, domain, _tagged(c, "by"),
                        _tagged(c, "prompt"), _tagged(c, "prefer"), _tagged(c, "tag"), body,
                        _tagged(c, "else"), span=self.sp(meta))

    def choose_targets_stmt(self, meta, c):
        return A.ChooseTargets(c[0], c[1], c[2], _tagged(c, "else"), span=self.sp(meta))

    def ask_by(self, meta, c):
        return _Tagged("by", c[0])

    def may_stmt(self, meta, c):
        prompt = next((self.text_node(x) for x in c if isinstance(x, Token)), None)
        body = _of(c, A.Block)[0]
        return A.May(_tagged(c, "by"), prompt, body, _tagged(c, "else"), span=self.sp(meta))

    def require_stmt(self, meta, c):
        return A.Require(c[0], _tagged(c, "then"), span=self.sp(meta))

    def simul_stmt(self, meta, c):
        return A.Simultaneously(c[0], span=self.sp(meta))

    def elif_clause(self, meta, c):
        return _Tagged("elif", (c[0], c[1]))

    else_if_clause = elif_clause  # `else if` is `elif` (fmt writes `elif`)

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])] + _all_tagged(c, "elif")
        return A.If(tuple(branches), _tagged(c, "else"), span=self.sp(meta))

    def for_stmt(self, meta, c):
        if len(c) == 4:
            by, prompt, prefer = c[2]
            return A.For(str(c[0]), c[1], c[3], by, prompt, prefer, span=self.sp(meta))
        return A.For(str(c[0]), c[1], c[2], span=self.sp(meta))

    def for_order(self, meta, c):
        prompt = next((self.text_node(x) for x in c[1:] if isinstance(x, Token)), None)
        prefer = next((x for x in c[1:] if not isinstance(x, Token)), None)
        return (c[0], prompt, prefer)

    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], c[1], span=self.sp(meta))

    def while_stmt(self, meta, c):
        return A.While(c[0], c[1], span=self.sp(meta))

    def end_stmt(self, meta, c):
        return A.End(str(c[0]), span=self.sp(meta))

    def win_stmt(self, meta, c):
        return A.Win(c[0], span=self.sp(meta))

    def lose_stmt(self, meta, c):
        return A.Lose(c[0], span=self.sp(meta))

    def knock_stmt(self, meta, c):
        return A.KnockOut(c[0], span=self.sp(meta))

    def say_stmt(self, meta, c):
        return A.Say(self.text_node(c[0]), c[1] if len(c) > 1 else None, span=self.sp(meta))

    def kwarg(self, meta, c):
        return (str(c[0]), c[1])

    def kwargs(self, meta, c):
        return tuple(c)

    def emit_stmt(self, meta, c):
        return A.Emit(str(c[0]), c[1] if len(c) > 1 and c[1] is not None else (), span=self.sp(meta))

    def call_stmt(self, meta, c):
        return A.CallStmt(str(c[0]), c[1] if len(c) > 1 and c[1] is not None else (), span=self.sp(meta))

    def give_stmt(self, meta, c):
        return A.Give(c[0], span=self.sp(meta))

    def give_extra_stmt(self, meta, c):
        return A.GiveExtra(c[0], span=self.sp(meta))

    def reverse_stmt(self, meta, c):
        return A.ReverseOrder(span=self.sp(meta))

    def act_stmt(self, meta, c):
        return A.Act(c[0], span=self.sp(meta))

    def pass_stmt(self, meta, c):
        return A.Pass(span=self.sp(meta))

    # ------------------------------------------------------------ declarations
    def start(self, meta, c):
        return A.Module(self.path, tuple(c), span=self.sp(meta))

    def game_version(self, meta, c):
        return _Tagged("version", _unquote(c[0]))

    def game_players(self, meta, c):
        lo = int(c[0])
        hi = int(c[1]) if len(c) > 1 and c[1] is not None else lo
        return _Tagged("players", (lo, hi))

    def game_about(self, meta, c):
        return _Tagged("about", _unquote(c[0]))

    def game_decl(self, meta, c):
        lo, hi = _tagged(c, "players", (2, 2))
        return A.Game(_unquote(c[0]), _tagged(c, "version"), lo, hi, _tagged(c, "about"), span=self.sp(meta))

    def extends_decl(self, meta, c):
        return A.Extends(_unquote(c[0]), span=self.sp(meta))

    def simple_type(self, meta, c):
        return A.TypeRef(str(c[0]), False, span=self.sp(meta))

    def list_type(self, meta, c):
        return A.TypeRef(str(c[0]), True, span=self.sp(meta))

    def option_range(self, meta, c):
        return _Tagged("range", (int(c[0]), int(c[1])))

    def option_decl(self, meta, c):
        lo, hi = _tagged(c, "range", (None, None))
        rest = [x for x in c if not isinstance(x, _Tagged)]
        doc = _unquote(rest[3]) if len(rest) > 3 else None
        return A.Option(str(rest[0]), rest[1], lo, hi, rest[2], doc, span=self.sp(meta))

    def enum_decl(self, meta, c):
        return A.Enum(str(c[0]), tuple(str(x) for x in c[1:]), span=self.sp(meta))

    def prop_decl(self, meta, c):
        return A.Prop(str(c[0]), c[1], c[2] if len(c) > 2 else None, span=self.sp(meta))

    def cards_decl(self, meta, c):
        return A.Cards(_unquote(c[0]), tuple(c[1:]), span=self.sp(meta))

    def derive_decl(self, meta, c):
        return A.Derive(str(c[0]), c[1], span=self.sp(meta))

    # A zone's attributes: each says one thing of three (whose the zone is, whether its cards
    # keep an order, who sees them) or gives its role; two that say different things of the
    # same are a contradiction (E018), never "the last one wins".
    def zone_shared(self, meta, c):
        return _ZoneAttr("whose", "shared", ("per_player", False), self.sp(meta))

    def zone_per_player(self, meta, c):
        return _ZoneAttr("whose", "per player", ("per_player", True), self.sp(meta))

    def zone_per_card(self, meta, c):
        return _ZoneAttr("whose", "per card", ("per_card", True), self.sp(meta))

    def zone_per_card_player(self, meta, c):
        return _ZoneAttr("whose", "per card per player", ("per_card", True), self.sp(meta), ("per_player", True))

    def zone_ordered(self, meta, c):
        return _ZoneAttr("order", "ordered", ("ordered", True), self.sp(meta))

    def zone_unordered(self, meta, c):
        return _ZoneAttr("order", "unordered", ("ordered", False), self.sp(meta))

    def zone_public(self, meta, c):
        return _ZoneAttr("sight", "public", ("visibility", "public"), self.sp(meta))

    def zone_owner(self, meta, c):
        return _ZoneAttr("sight", "owner", ("visibility", "owner"), self.sp(meta))

    def zone_hidden(self, meta, c):
        return _ZoneAttr("sight", "hidden", ("visibility", "hidden"), self.sp(meta))

    def zone_role(self, meta, c):
        return _ZoneAttr("role", f"as {c[0]}", ("role", str(c[0])), self.sp(meta))

    def zone_attr(self, meta, c):
        return c[0]

    def zone_decl(self, meta, c):
        said: dict = {}
        for a in c[1:]:
            first = said.setdefault(a.group, a)
            if first.words != a.words:
                raise CglError(Diagnostic(
                    "E018", f"zone `{c[0]}` is both `{first.words}` and `{a.words}`: {_ZONE_GROUPS[a.group]}",
                    a.span, hint=f"keep one of `{first.words}` and `{a.words}`"
                    + (" (`owner`: each player sees the cards of their own zone; `hidden`: nobody sees "
                       "them, only how many; `public`: everyone sees them)" if a.group == "sight" else ""),
                    related=(f"`{first.words}` is said at {first.span}",)))
        attrs_ = dict(f for a in c[1:] for f in (a.field,) + ((a.also,) if a.also else ()))
        return A.Zone(str(c[0]), attrs_.get("per_player", False), attrs_.get("ordered", True),
                      attrs_.get("visibility", "public"), attrs_.get("role"), attrs_.get("per_card", False),
                      span=self.sp(meta))

    def scope_player(self, meta, c):
        return _Tagged("scope", "player")

    def scope_card(self, meta, c):
        return _Tagged("scope", "card")

    def var_decl(self, meta, c):
        rest = [x for x in c if not isinstance(x, _Tagged)]
        return A.Var(str(rest[0]), _tagged(c, "scope", "global"), rest[1], _tagged(c, "role"),
                     _tagged(c, "sight", "public"), span=self.sp(meta))

    def sight_public(self, meta, c):
        return _Tagged("sight", "public")

    def sight_private(self, meta, c):
        return _Tagged("sight", "private")

    def sight_internal(self, meta, c):
        return _Tagged("sight", "internal")

    def var_role(self, meta, c):
        return _Tagged("role", tuple(str(x) for x in c))

    def params(self, meta, c):
        return tuple(str(x) for x in c)

    def def_decl(self, meta, c):
        params = next((x for x in c[1:] if isinstance(x, tuple)), ())
        return A.Def(str(c[0]), params, c[-1], span=self.sp(meta))

    def def_const(self, meta, c):
        return A.Def(str(c[0]), None, c[1], span=self.sp(meta))

    def proc_decl(self, meta, c):
        params = next((x for x in c[1:] if isinstance(x, tuple)), ())
        return A.Procedure(str(c[0]), params, c[-1], span=self.sp(meta))

    def table_row(self, meta, c):
        return _Tagged("row", (c[0], c[1]))

    def table_else(self, meta, c):
        return _Tagged("else", c[0])

    def table_decl(self, meta, c):
        params = next((x for x in c[1:] if isinstance(x, tuple)), ())
        return A.Table(str(c[0]), params, tuple(_all_tagged(c, "row")), _tagged(c, "else"),
                       span=self.sp(meta))

    def part_any(self, meta, c):
        return _Tagged("any", True)

    def part(self, meta, c):
        cond = next((x for x in c[1:] if isinstance(x, A.Expr)), None)
        return A.Part(int(c[0]), _tagged(c, "any", False), cond, span=self.sp(meta))

    def pattern_cards(self, meta, c):
        return _Tagged("cards", c[0])

    def pattern_labels(self, meta, c):
        return _Tagged("labels", c[0])

    def pattern_fixed(self, meta, c):
        return _Tagged("fixed", c[0])

    def pattern_shape(self, meta, c):
        return _Tagged("shape", A.Shape(str(c[0]), tuple(c[1:]), span=self.sp(meta)))

    def pattern_best(self, meta, c):
        return _Tagged("best", c[0])

    def pattern_decl(self, meta, c):
        params = next((x for x in c[1:] if isinstance(x, tuple)), ())
        for field, what in (("cards", "the cards it looks at, e.g. `cards hand(p)`"),
                            ("labels", "what each card counts as, e.g. `labels [it.suit]`")):
            if _tagged(c, field) is None:   # (an `override pattern` is whole too: it replaces the base's)
                raise CglError(Diagnostic("E001", f"pattern `{c[0]}` has no `{field}`", self.sp(meta),
                                          hint=f"a pattern names {what}"))
        return A.Pattern(str(c[0]), params, _tagged(c, "cards"), _tagged(c, "labels"),
                         _tagged(c, "fixed"), tuple(_all_tagged(c, "shape")), _tagged(c, "best"),
                         span=self.sp(meta))

    def setup_decl(self, meta, c):
        return A.Setup(c[0], span=self.sp(meta))

    def match_rounds(self, meta, c):
        return _Tagged("rounds", c[0])

    def match_start(self, meta, c):
        return _Tagged("start", c[0])

    def match_end(self, meta, c):
        return _Tagged("end", c[0])

    def match_decl(self, meta, c):
        return A.MatchDecl(_tagged(c, "rounds"), _tagged(c, "start"), _tagged(c, "end"), span=self.sp(meta))

    def round_start(self, meta, c):
        return _Tagged("start", c[0])

    def round_end(self, meta, c):
        return _Tagged("end", c[0])

    def round_first(self, meta, c):
        return _Tagged("first", c[0])

    def round_until(self, meta, c):
        return _Tagged("until", c[0])

    def round_decl(self, meta, c):
        return A.RoundDecl(_tagged(c, "start"), _tagged(c, "end"), _tagged(c, "first"), _tagged(c, "until"),
                           span=self.sp(meta))

    def turn_start(self, meta, c):
        return _Tagged("start", c[0])

    def turn_end(self, meta, c):
        return _Tagged("end", c[0])

    def turn_phase(self, meta, c):
        return _Tagged("phase", A.Phase(str(c[0]), c[1], span=self.sp(meta)))

    def turn_order(self, meta, c):
        return _Tagged("order", c[0])

    def turn_decl(self, meta, c):
        return A.TurnDecl(_tagged(c, "start"), _tagged(c, "end"), tuple(_all_tagged(c, "phase")),
                          _tagged(c, "order"), span=self.sp(meta))

    def ev_draw(self, meta, c):
        return A.EventPat("draw", span=self.sp(meta))

    def ev_discard(self, meta, c):
        return A.EventPat("discard", span=self.sp(meta))

    def ev_deal(self, meta, c):
        return A.EventPat("deal", span=self.sp(meta))

    def ev_from(self, meta, c):
        return _Tagged("from", str(c[0]))

    def ev_to(self, meta, c):
        return _Tagged("to", str(c[0]))

    def ev_move(self, meta, c):
        return A.EventPat("move", source=_tagged(c, "from"), dest=_tagged(c, "to"), span=self.sp(meta))

    def scope_turn(self, meta, c):
        return ("turn", None)

    def scope_round(self, meta, c):
        return ("round", None)

    def scope_game(self, meta, c):
        return ("game", None)

    def scope_phase(self, meta, c):
        return ("phase", str(c[0]) if c and c[0] is not None else None)

    def ev_start(self, meta, c):
        scope, phase = c[0]
        return A.EventPat("start", name=scope, phase=phase, span=self.sp(meta))

    def ev_end(self, meta, c):
        scope, phase = c[0]
        return A.EventPat("end", name=scope, phase=phase, span=self.sp(meta))

    def ev_custom(self, meta, c):
        return A.EventPat("custom", name=str(c[0]), span=self.sp(meta))

    def may_clause(self, meta, c):
        prompt = next((self.text_node(x) for x in c if isinstance(x, Token)), None)
        return _Tagged("may", (_tagged(c, "by"), prompt))

    def trigger_decl(self, meta, c):
        event = c[0]
        cond = next((x for x in c[1:] if isinstance(x, A.Expr)), None)
        name_tok = next((x for x in c[1:] if isinstance(x, Token)), None)
        may = _tagged(c, "may")
        body = c[-1]
        sp = self.sp(meta)
        name = str(name_tok) if name_tok is not None else f"on {event} (line {sp.line})"
        return A.Trigger(name, event, cond, may is not None, may[0] if may else None,
                         may[1] if may else None, body, _tagged(c, "instead", False), *_tagged(c, "order", (None, None)),
                         span=sp)

    def trigger_order(self, meta, c):
        return _Tagged("order", (c[0], c[1] if len(c) > 1 else None))

    def instead_flag(self, meta, c):
        return _Tagged("instead", True)

    def react_responders(self, meta, c):
        return _Tagged("responders", c[0])

    def react_eligible(self, meta, c):
        return _Tagged("eligible", c[0])

    def react_ask(self, meta, c):
        return _Tagged("ask", self.text_node(c[0]))

    def react_once(self, meta, c):
        return _Tagged("once", True)

    def react_do(self, meta, c):
        return _Tagged("do", c[0])

    def reaction_decl(self, meta, c):
        cond = next((x for x in c[2:] if isinstance(x, A.Expr)), None)
        body = _tagged(c, "do") or A.Block((), span=self.sp(meta))
        return A.Reaction(str(c[0]), c[1], cond, _tagged(c, "responders"), _tagged(c, "eligible"),
                          _tagged(c, "ask"), _tagged(c, "once", False), body, span=self.sp(meta))

    def action_param(self, meta, c):
        return _Tagged("param", (str(c[0]), c[1]))

    def action_when(self, meta, c):
        return _Tagged("when", c[0])

    def action_prefer(self, meta, c):
        return _Tagged("prefer", c[0])

    def action_decl(self, meta, c):
        param, domain = _tagged(c, "param", (None, None))
        label = next((self.text_node(x) for x in c[1:] if isinstance(x, Token)), None)
        return A.Action(str(c[0]), param, domain, label, _tagged(c, "when"), _tagged(c, "prefer"), c[-1],
                        span=self.sp(meta))

    def forbid_tag(self, meta, c):
        return (str(c[0]), None)

    def forbid_enter(self, meta, c):
        return ("enter", str(c[0]))

    def forbid_leave(self, meta, c):
        return ("leave", str(c[0]))

    def rule_decl(self, meta, c):
        what, zone = c[1]
        return A.Rule(str(c[0]), what, c[2] if len(c) > 2 else None, zone, span=self.sp(meta))

    def deck_default(self, meta, c):
        return _Tagged("default", c[0])

    def deck_check(self, meta, c):
        return _Tagged("rule", A.DeckRule(str(c[0]), False, c[1], _unquote(c[2]), span=self.sp(meta)))

    def deck_each(self, meta, c):
        return _Tagged("rule", A.DeckRule(str(c[0]), True, c[1], _unquote(c[2]), span=self.sp(meta)))

    def deck_decl(self, meta, c):
        return A.DeckDecl(_tagged(c, "default"), tuple(_all_tagged(c, "rule")), span=self.sp(meta))

    def check_for(self, meta, c):
        return _Tagged("for", (str(c[0]), c[1]))

    def check_decl(self, meta, c):
        var, domain = _tagged(c, "for", (None, None))
        return A.Check(str(c[0]), var, domain, c[-2], c[-1], span=self.sp(meta))

    def target_decl(self, meta, c):
        rest = [x for x in c if not isinstance(x, _Tagged)]
        cond = rest[1] if len(rest) == 4 else None
        return A.TargetDecl(str(rest[0]), cond, str(rest[-2]), rest[-1], _tagged(c, "prompt"), _tagged(c, "prefer"),
                            span=self.sp(meta))

    def invariant_decl(self, meta, c):
        return A.Invariant(str(c[0]), c[1], span=self.sp(meta))

    def estimate_decl(self, meta, c):
        return A.Estimate(str(c[0]), c[1], span=self.sp(meta))

    def show_decl(self, meta, c):
        label = _unquote(c[3]) if len(c) > 3 else None
        return A.Show(str(c[0]), str(c[1]), c[2], label, span=self.sp(meta))

    def override_decl(self, meta, c):
        return A.Override(c[0], span=self.sp(meta))

    def remove_decl(self, meta, c):
        return A.Remove(str(c[0]), span=self.sp(meta))


def _shift(node, path, line, col_offset):
    """Re-anchor the spans of an expression parsed from inside a string literal."""
    if not attrs.has(type(node)):
        if isinstance(node, tuple):
            return tuple(_shift(x, path, line, col_offset) for x in node)
        return node
    changes = {}
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        if f.name == "span":
            changes["span"] = A.Span(path, line, v.column + col_offset, line, v.end_column + col_offset)
        elif attrs.has(type(v)) or isinstance(v, tuple):
            changes[f.name] = _shift(v, path, line, col_offset)
    return attrs.evolve(node, **changes)



def parse(text: str, path: str = "<string>") -> A.Module:
    """Parse a whole CGL file, raising :class:`CglError` with a readable diagnostic.

    The same text of the same file is parsed once per process (`_PARSED`, the last
    `PARSED_KEPT` files): the AST is immutable (frozen nodes in tuples) and every table
    about it is kept per ruleset, so two loads may share it. A file read again unchanged,
    the base of each ruleset that extends it, each document the language server checks
    again after an edit elsewhere, is not parsed again. A text that fails is parsed again
    each time (its diagnostic is made afresh)."""
    remember_source(path, text)
    key = (path, text)
    with _PARSED_LOCK:
        hit = _PARSED.pop(key, None)
    if hit is None:
        hit = _parse(text, path)
    with _PARSED_LOCK:
        _PARSED[key] = hit
        while len(_PARSED) > PARSED_KEPT:
            del _PARSED[next(iter(_PARSED))]   # the least recently used
    return hit


PARSED_KEPT = 32
_PARSED: dict = {}   # (path, text) -> Module, least recently used first
_PARSED_LOCK = threading.Lock()   # (`cgl serve` and the language server load from threads)


def _parse(text: str, path: str) -> A.Module:
    _check_nesting(text, path)
    try:
        tree = parser().parse(text, start="start")
    except UnexpectedInput as e:
        raise syntax_error(text, path, e) from None
    return _transform(_Build(path, text), tree)


def _check_nesting(text: str, path: str) -> None:
    """No more than MAX_NESTING blocks and brackets open at once (outside texts and comments):
    the parser, the checks and both engines then never run out of Python's stack. A linear
    scan before Lark sees the text, so a file nested 10,000 deep is refused at once."""
    if text.count("{") + text.count("(") + text.count("[") <= MAX_NESTING:
        return
    depth = 0
    for i, ch in code_chars(text):
        if ch in "{([":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, i) + 1
                col = i - (text.rfind("\n", 0, i) + 1) + 1
                raise CglError(Diagnostic(
                    "E017", f"blocks and brackets nested more than {MAX_NESTING} deep", A.Span(path, line, col, line, col + 1),
                    hint="move the inner part into a `procedure` or a `def` of its own"))
        elif ch in "})]" and depth:
            depth -= 1


def _check_tree(tree, path: str, shift=(0, 0)) -> None:
    """Lark's tree within MAX_DEPTH levels (a chain of thousands of `+` is as deep as it is
    long), and every number written in it within MAX_NUMBER; iteratively, before the
    (recursive) transformer and everything after it walks the tree. `shift`: (lines, columns)
    to add to the positions of an expression parsed from inside a text."""
    def span(tok) -> A.Span:
        line = tok.line + shift[0]
        col = tok.column + (shift[1] if tok.line == 1 else 0)
        return A.Span(path, line, col, line, col + len(tok))
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Token):
            if node.type in ("INT", "DICE"):
                digits = str(node).split("d")[-1] if node.type == "DICE" else str(node)
                if len(digits.lstrip("0")) > 19 or (digits and int(digits) > MAX_NUMBER):
                    shown = node if len(node) <= 24 else f"{node[:10]}…{node[-6:]} ({len(node)} characters)"
                    raise CglError(Diagnostic("E017", f"the number `{shown}` is larger than {MAX_NUMBER:,}",
                                              span(node), hint="numbers in the rules are at most 10^18"))
            continue
        if depth > MAX_DEPTH:
            meta = node.meta
            where = None
            if not getattr(meta, "empty", True):
                line = meta.line + shift[0]
                col = meta.column + (shift[1] if meta.line == 1 else 0)
                where = A.Span(path, line, col, line, col + 1)
            raise CglError(Diagnostic("E017", f"the rules nest more than {MAX_DEPTH} levels deep here (a block "
                                      "inside a block is about two levels, each operator of a chain like "
                                      "`1 + 1 + … + 1` one)", where,
                                      hint="split it: compute parts with `let` or a `def`, or move inner blocks "
                                           "into a `procedure`"))
        for child in node.children:
            if child is not None:
                stack.append((child, depth + 1))


def _transform(builder, tree, shift=(0, 0)):
    """Run the transformer, letting our own diagnostics through Lark's wrapper."""
    _check_tree(tree, builder.path, shift)
    try:
        return builder.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, CglError):
            raise e.orig_exc from None
        raise


def parse_expr(text: str, path: str = "<expr>") -> A.Expr:
    """Parse a lone expression (used by scenarios and the REPL-like helpers)."""
    remember_source(path, text)
    _check_nesting(text, path)
    try:
        tree = parser().parse(text, start="expr")
    except UnexpectedInput as e:
        line = getattr(e, "line", 1) or 1
        col = getattr(e, "column", 1) or 1
        raise CglError(Diagnostic("E001", f"cannot read the expression `{text}`",
                                  A.Span(path, line, col, line, col + 1))) from None
    return _transform(_Build(path, text), tree)
