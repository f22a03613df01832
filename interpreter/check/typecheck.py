"""The one type checker: the static type of every expression, and the E008 diagnostics
lint reports from them.

Both users read the same inference: the code generator (`codegen.py`) leaves out
run-time checks that cannot fail where a type is known, and lint (`lint.py`) reports
values of the wrong kind (arithmetic on a text, a number compared with a text, a card
where a player is needed …) before any game is played.

Types are short names: "int", "bool", "str", "str?" (a text or none), "none", "card",
"player", "event", "zone", "group", "match?" (a pattern's match, or none), and the lists
"cards", "players", "strs", "groups" and "list" (any list). None means unknown: anything
may come, and nothing is reported.

A type is what an expression *always* evaluates to: inference never guesses, so a
program the checker accepts behaves as the tree walker says, and a generated shortcut
taken on a known type means what the general code means.
"""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..base.diagnostics import Diagnostic
from .resolver import Use, bound_names, call_meaning, card_attr_meaning, facts

LISTY = frozenset(("list", "cards", "players", "groups", "strs"))
_ELEM = {"cards": "card", "zone": "card", "players": "player", "groups": "group", "strs": "str"}


def elem_ty(ty) -> Optional[str]:
    """The type of the elements of a list (or zone) of type `ty`."""
    return _ELEM.get(ty)


def _is_none(e) -> bool:
    return isinstance(e, A.Const) and e.value is None


def _is_empty_list(e) -> bool:
    return isinstance(e, A.ListLit) and not e.items


# ---------------------------------------------------------------- scopes

class Binding:
    """Where a local CGL name lives: its Python variable (for the generator), whether the
    engine may leave it unbound (`maybe`), the Python function it belongs to, whether it is
    bound inside a loop (a new one each time round, as the tree walker's environments
    are), and its static type."""

    __slots__ = ("var", "maybe", "fn", "loop", "ty", "used")

    def __init__(self, var, maybe, fn, ty=None):
        self.var, self.maybe, self.fn = var, maybe, fn
        self.loop = fn is not None and fn.loop > 0
        self.ty = ty
        self.used = False               # the generator wrote its variable into code (see CodeGen.ref)


class Scope:
    """The local names visible at a point of a rule (and, for the generator, the Python
    names they live in)."""

    def __init__(self, parent: Optional["Scope"] = None, fn=None):
        self.names: dict = {}
        self.narrow: Optional[dict] = None   # name -> its type here (TypeChecker.narrowed)
        self.parent = parent
        self.fn = fn if fn is not None else (parent.fn if parent is not None else None)

    def child(self, fn=None) -> "Scope":
        return Scope(self, fn)

    def find(self, name) -> Optional[Binding]:
        s = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def flat(self) -> dict:
        out: dict = {}
        s = self
        while s is not None:
            for k, b in s.names.items():
                out.setdefault(k, b)
            s = s.parent
        return out


# ---------------------------------------------------------------- inference

class TypeChecker:
    """Static types of a ruleset's expressions (see the module doc)."""

    LISTY = LISTY

    def __init__(self, rs):
        self.rs = rs
        f = facts(rs)
        self.it_names = f.it_names
        self.uses = f.uses      # what each use of a name means (the resolver pass's record)
        self.player_vars = set(rs.player_vars())
        self.emitted = f.emitted_fields
        # card properties every card has (others may be missing on some cards: unknown)
        self.card_props = set()
        if rs.cards_decl is not None and rs.cards:
            self.card_props = {p.name for p in rs.cards_decl.props if all(p.name in c.props for c in rs.cards)}
        self._types: dict = {}          # "derive:x" / "def:f" / "var:scope:x" -> static type
        self._sets: Optional[list] = None
        self._bound: set = set()

    def ty(self, e, sc) -> Optional[str]:
        m = getattr(self, "t_" + type(e).__name__, None)
        return m(e, sc) if m is not None else None

    def source_ty(self, e, sc) -> Optional[str]:
        """The type of `e` as a source of items (a `where`'s, a comprehension's): its type,
        but an `if` with an empty list written out as one branch has the other's even when it
        is a zone, whose items are cards as a list of cards' are (`(if has(p, "X") then []
        else stable(p)) where …`: cards)."""
        if isinstance(e, A.IfExpr):
            if _is_empty_list(e.then):
                return self.source_ty(e.otherwise, sc)
            if _is_empty_list(e.otherwise):
                return self.source_ty(e.then, self.narrowed(e, sc))
        return self.ty(e, sc)

    def card_readable(self, name) -> bool:
        """Whether `card.name` reads the card itself (a variable, derive, data every card has,
        or its name or id), rather than where it lies."""
        return card_attr_meaning(self.rs, name) != "data" or name in self.card_props or name in ("name", "id")

    def t_Possible(self, e, sc):
        return "bool"

    def t_Int(self, e, sc):
        return "int"

    t_Dice = t_Neg = t_Int

    def t_Text(self, e, sc):
        return "str"

    def t_Const(self, e, sc):
        v = e.value
        if v is None:
            return "none"
        return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "str" if isinstance(v, str) else None

    def t_Compare(self, e, sc):
        return "bool"

    t_In = t_And = t_Or = t_Not = t_Compare

    def t_ListLit(self, e, sc):
        return "strs" if all(self.ty(i, sc) == "str" for i in e.items) else "list"

    def t_Comprehension(self, e, sc):
        inner = sc.child()
        inner.names[e.name] = Binding("_", False, None, elem_ty(self.source_ty(e.source, sc)))
        return "strs" if self.ty(e.expr, inner) == "str" else "list"

    def t_GroupBy(self, e, sc):
        return "groups"

    def t_Where(self, e, sc):
        src = self.source_ty(e.source, sc)
        return "cards" if src in ("cards", "zone") else "players" if src == "players" else \
            "strs" if src == "strs" else "list"

    t_SortBy = t_Where

    def t_IfExpr(self, e, sc):
        a, b = self.ty(e.then, self.narrowed(e, sc)), self.ty(e.otherwise, sc)
        if a == b:
            return a
        # an empty list written out is a list of anything: of cards, players, texts, like the
        # other branch (`if has(p, "X") then [] else stable(p) where …`, a list of cards)
        if _is_empty_list(e.then) and b in LISTY:
            return b
        if _is_empty_list(e.otherwise) and a in LISTY:
            return a
        if {a, b} <= {"str", "str?"} or a == "str" and _is_none(e.otherwise) or b == "str" and _is_none(e.then):
            return "str?"
        if a in LISTY and b in LISTY:
            return "list"
        return None

    def narrowed(self, e, sc):
        """The scope of the `then` of `if x != none then …`: a name `x` of type "str?" is a
        text there."""
        c = e.cond
        if isinstance(c, A.Compare) and c.op == "!=":
            x = c.left if _is_none(c.right) else c.right if _is_none(c.left) else None
            if isinstance(x, A.Name) and self.ty(x, sc) == "str?":
                inner = sc.child()
                inner.narrow = {x.id: "str"}
                return inner
        return sc

    def t_BinOp(self, e, sc):
        if e.op != "+":
            return "int"
        a, b = self.ty(e.left, sc), self.ty(e.right, sc)
        if a == b == "int" or a == b == "str" or a == b == "strs":
            return a
        if a in LISTY | {"zone"} and b in LISTY | {"zone"}:
            if a in ("cards", "zone") and b in ("cards", "zone"):
                return "cards"
            return "players" if a == b == "players" else "list"
        if None not in (a, b) and ("str" in (a, b) or "str?" in (a, b)) and not {a, b} & (LISTY | {"zone"}):
            return "str"     # a text and anything but a list: the two texts joined
        return None

    def t_Name(self, e, sc):
        name = e.id
        s = sc
        while s is not None and name not in s.names:   # narrowed where no binding hides it
            if s.narrow and name in s.narrow:
                return s.narrow[name]
            if "it" in s.names:
                break   # another `it` from here in: the name may be its property, not the tested one
            s = s.parent
        u = self.uses.get(id(e)) or Use("local", name)   # (or one of the generator's own placeholders)
        b = sc.find(name) if u.kind in ("local", "maybe") else None
        if b is not None:
            return None if b.maybe else b.ty
        if u.kind == "it" or u.kind == "maybe" and u.it:
            it = sc.find("it")
            if it is not None:
                if it.maybe:
                    return None
                if it.ty == "card" and self.card_readable(name):
                    return self.card_ty(name)
                if it.ty == "player" and name in self.player_vars:
                    return self.var_ty(name, "player")
                return None
        meaning = u.meaning if u.kind != "local" else None
        rs = self.rs
        if meaning == "option":
            return self.t_Const(A.Const(rs.option_values[name]), sc)
        if meaning == "global":
            return self.var_ty(name, "global")
        if meaning == "def":
            return self.def_ty(name)
        if meaning == "zone":
            z = rs.zones[name]
            return "zone" if not z.per_player and not z.per_card else None
        if meaning == "enum":
            return "str"
        if meaning == "builtin":
            return B.VALUES[name].result
        return None

    def t_Attr(self, e, sc):
        obj = self.ty(e.obj, sc)
        if obj == "card" and self.card_readable(e.name):
            return self.card_ty(e.name)
        if obj == "group":
            return {"size": "int", "cards": "list"}.get(e.name)
        if obj == "player":
            if e.name in self.player_vars:
                return self.var_ty(e.name, "player")
            return {"seat": "int", "name": "str"}.get(e.name)
        return None

    def t_Call(self, e, sc):
        meaning = call_meaning(self.rs, e.name)
        if meaning == "def":
            return self.def_ty(e.name)
        if meaning in ("card_zone", "player_zone"):
            return "zone"
        if meaning == "builtin":
            f = B.FUNCTIONS[e.name]
            if f.keeps_texts and len(e.args) == 1 and self.ty(e.args[0], sc) == "strs":
                return "strs"
            return f.result
        return None

    # ------------------------------------------------------------ declared things
    def var_ty(self, name, scope) -> Optional[str]:
        """A variable's type when its initial value and every `set` of it agree: a number
        that is only ever set to numbers (or changed by += and -=), a list only ever set
        to lists (or grown by +=), a text or a truth value only ever set to its kind."""
        key = f"var:{scope}:{name}"
        if key in self._types:
            return self._types[key]
        self._types[key] = None
        v = self.rs.vars.get(name)
        if v is None or v.scope != scope:
            return None
        ty = self.ty(v.init, Scope())
        ty = "list" if ty in LISTY else ty
        if ty not in ("int", "list", "str", "bool"):
            return None
        if self._sets is None:   # one walk of the rules for every variable
            self._sets = []
            for item in self.rs.items:
                for n in A.walk(item):
                    if isinstance(n, A.Set):
                        self._sets.append(n)
                    elif isinstance(n, (A.Let, A.For, A.Choose, A.Comprehension)) or \
                            isinstance(n, A.Draw) and n.name is not None:
                        self._bound.add(n.name)
                    elif isinstance(n, A.Action) and n.param:
                        self._bound.add(n.param)
                    elif isinstance(n, A.Check) and n.var:
                        self._bound.add(n.var)
        if scope == "global" and name in self._bound:
            return None     # a local of the same name: `set` may mean either
        for n in self._sets:
            t = n.target
            if scope == "global" and not (isinstance(t, A.Name) and t.id == name):
                continue
            if scope != "global" and not (isinstance(t, A.Attr) and t.name == name):
                continue
            if n.op == "=":
                vt = self.ty(n.value, Scope())
                if vt is None and scope == "global" and ty in ("int", "list"):
                    vt = self._grown(n.value, name, ty)
                if (vt in LISTY and ty == "list") or vt == ty:
                    continue
                return None
            if n.op == "-=" and ty != "int" or n.op == "+=" and ty not in ("int", "list"):
                return None
        for d in [*self.rs.defs.values(), *self.rs.procedures.values(), *self.rs.patterns.values(),
                  *self.rs.table_decls.values()]:
            if scope == "global" and name in (getattr(d, "params", None) or ()):
                return None
        self._types[key] = ty
        return ty

    def _grown(self, value, name: str, ty: str) -> Optional[str]:
        """The type of `set NAME = NAME + E` (global NAME, whose first value is of type `ty`,
        "int" or "list"), as `set NAME += E` is typed: `ty` when E is of that type (a list for
        "list"), else None. (Typed in place: the variable's type is what is being found.)"""
        if not (isinstance(value, A.BinOp) and value.op == "+"):
            return None
        for mine, other in ((value.left, value.right), (value.right, value.left)):
            if isinstance(mine, A.Name) and mine.id == name:
                ot = self.ty(other, Scope())
                if ot == ty or ty == "list" and ot in LISTY:
                    return ty
        return None

    def card_ty(self, name) -> Optional[str]:
        """The type of a card's property `name` (one that `card_readable` accepts)."""
        meaning = card_attr_meaning(self.rs, name)
        if meaning == "var":
            return self.var_ty(name, "card")
        if meaning == "derive":
            return self.derive_ty(name)
        if name in self.card_props:
            values = [c.props[name] for c in self.rs.cards]
            if all(type(v) is str for v in values):
                return "str"
            if all(type(v) is int for v in values):
                return "int"
            if all(type(v) is list and all(type(x) is str for x in v) for v in values):
                return "strs"
            if all(type(v) is list for v in values):
                return "list"
            return None
        return {"name": "str", "id": "int"}.get(name)

    def derive_ty(self, name):
        key = "derive:" + name
        if key not in self._types:
            self._types[key] = None      # recursion: unknown
            sc = Scope()
            sc.names["it"] = Binding("o", False, None, "card")
            self._types[key] = self.ty(self.rs.derives[name].expr, sc)
        return self._types[key]

    def def_ty(self, name):
        key = "def:" + name
        if key not in self._types:
            self._types[key] = None
            self._types[key] = self.ty(self.rs.defs[name].expr, Scope())
        return self._types[key]


# ---------------------------------------------------------------- checks (E008)

_DESCRIBE = {"int": "a number", "bool": "true/false", "str": "a text", "str?": "a text", "none": "none",
             "card": "a card", "player": "a player", "event": "an event", "zone": "a zone", "group": "a group",
             "match?": "a pattern match", "cards": "a list", "players": "a list", "strs": "a list",
             "groups": "a list", "list": "a list"}
_UNORDERED = frozenset(("zone", "card", "player", "bool", "match?", "group", "event")) | LISTY
_ARG_KINDS = {"player": ("player",), "card": ("card",), "int": ("int",), "list": tuple(LISTY | {"zone"}),
              "countable": tuple(LISTY | {"zone", "str", "str?"}), "str": ("str", "str?")}


def describe(ty) -> str:
    """A type as an error message names it."""
    return _DESCRIBE.get(ty, "a value")


def _coarse(ty):
    return "list" if ty in LISTY else "str" if ty == "str?" else ty


class Checks:
    """Walks a ruleset's rules with scopes and reports values of the wrong kind (E008)."""

    def __init__(self, rs, types: Optional[TypeChecker] = None):
        self.rs = rs
        self.types = types or TypeChecker(rs)
        self.found: list = []

    def report(self, node, message, hint=None):
        self.found.append(Diagnostic("E008", message, node.span, hint=hint))

    def ty(self, e, sc):
        return self.types.ty(e, sc)

    # ------------------------------------------------------------ declarations
    def item(self, item):
        """Check one declaration."""
        sc = Scope()
        rebound = _rebound(item)
        for name in bound_names(item) | B.BOUND_BY_ENGINE:
            sc.names[name] = Binding(name, False, None)
        if isinstance(item, A.Derive):
            sc.names["it"] = Binding("it", False, None, "card")
        elif isinstance(item, (A.Trigger, A.Reaction)):
            self._event_entry(item, sc.child(), rebound)
            return
        elif isinstance(item, A.Pattern):
            sc.names["it"] = Binding("it", True, None)
        elif isinstance(item, (A.Estimate, A.Show)):
            sc.names[item.var] = Binding(item.var, False, None, "player")
        self.visit(item, sc)

    def _event_entry(self, item, sc, rebound):
        ev = item.event
        custom = ev.kind == "custom"
        card_event = ev.kind in ("draw", "discard", "deal", "move")
        tys = {"event": "event", "card": "card" if card_event else None, "it": "card" if card_event else None,
               "player": "player" if not custom else None}
        for name, ty in tys.items():
            sc.names[name] = Binding(name, custom, None, None if name in rebound else ty)
        self.visit(item, sc)

    # ------------------------------------------------------------ the walk
    def visit(self, n, sc):
        if isinstance(n, tuple):
            for x in n:
                self.visit(x, sc)
            return
        if n is None or isinstance(n, (str, int, bool, float)) or not hasattr(n, "span"):
            return
        special = getattr(self, "v_" + type(n).__name__, None)
        if special is not None:
            special(n, sc)
        else:
            for f in n.__attrs_attrs__:
                if f.name != "span":
                    self.visit(getattr(n, f.name), sc)
        check = getattr(self, "c_" + type(n).__name__, None)
        if check is not None:
            check(n, sc)

    def _it_child(self, source, sc, name="it"):
        inner = sc.child()
        inner.names[name] = Binding(name, False, None, elem_ty(self.types.source_ty(source, sc)))
        return inner

    def v_Possible(self, e, sc):
        self.visit(e.call.args, sc)   # (its call names a procedure: no value to check)

    def v_Where(self, e, sc):
        self.visit(e.source, sc)
        self.visit(e.cond, self._it_child(e.source, sc))

    def v_GroupBy(self, e, sc):
        self.visit(e.source, sc)
        self.visit(e.key, self._it_child(e.source, sc))

    v_SortBy = v_GroupBy

    def v_Comprehension(self, e, sc):
        self.visit(e.source, sc)
        inner = self._it_child(e.source, sc, e.name)
        self.visit(e.expr, inner)
        self.visit(e.cond, inner)

    def v_IfExpr(self, e, sc):
        self.visit(e.cond, sc)
        self.visit(e.then, self.types.narrowed(e, sc))
        self.visit(e.otherwise, sc)

    def v_For(self, s, sc):
        self.visit(s.source, sc)
        self.visit(s.by, sc)
        self.visit(s.prompt, sc)
        if s.prefer is not None:   # (`ordered by P prefer E`: E scores each item, NAME and `it`)
            self.visit(s.prefer, self._it_child(s.source, self._it_child(s.source, sc, s.name)))
        inner = self._it_child(s.source, sc, s.name)
        if s.name in _rebound(s.body):
            inner.names[s.name].ty = None
        self.visit(s.body, inner)

    # ------------------------------------------------------------ expressions
    def c_BinOp(self, e, sc):
        a, b = self.ty(e.left, sc), self.ty(e.right, sc)
        if e.op == "+":
            listy = LISTY | {"zone"}
            for side, t, other in ((e.right, b, a), (e.left, a, b)):
                if other in listy and t is not None and t not in listy:
                    self.report(side, f"cannot add {describe(t)} to a list: `+` joins lists and zones")
                    return
            if a in ("str", "str?") or b in ("str", "str?") or a in listy or b in listy:
                return
        for side, t in ((e.left, a), (e.right, b)):
            if t is not None and t != "int":
                self.report(side, f"`{e.op}` needs numbers, and this is {describe(t)}")
                return

    def c_Compare(self, e, sc):
        a, b = self.ty(e.left, sc), self.ty(e.right, sc)
        if e.op in ("<", "<=", ">", ">="):
            for side, t in ((e.left, a), (e.right, b)):
                if t in _UNORDERED:
                    self.report(side, f"`{e.op}` compares numbers, and this is {describe(t)}",
                                hint="count it with `count(…)`" if t in LISTY or t == "zone" else None)
                    return
            if {_coarse(a), _coarse(b)} == {"int", "str"}:
                self.report(e, f"cannot compare {describe(a)} with {describe(b)}",
                            hint="write the number without quotes" if "str" in (a, b) else None)
            return
        ca, cb = _coarse(a), _coarse(b)
        if None not in (a, b) and "none" not in (a, b) and ca != cb and {ca, cb} != {"zone", "list"}:
            self.report(e, f"comparing {describe(a)} with {describe(b)}: this is never "
                           f"{'true' if e.op == '=' else 'false'}")

    def c_In(self, e, sc):
        b = self.ty(e.right, sc)
        if b in ("int", "bool", "card", "player", "none"):
            self.report(e.right, f"`in` needs a list or a zone on its right, and this is {describe(b)}")

    def c_Neg(self, e, sc):
        t = self.ty(e.operand, sc)
        if t is not None and t != "int":
            self.report(e.operand, f"`-` needs a number, and this is {describe(t)}")

    def c_Where(self, e, sc):
        t = self.ty(e.source, sc)
        if t in ("int", "bool", "card", "player", "str", "none"):
            self.report(e.source, f"`where` filters a list or a zone, and this is {describe(t)}")
        self.condition(e.cond, self._it_child(e.source, sc))

    def c_Call(self, e, sc):
        meaning = call_meaning(self.rs, e.name)
        if meaning in ("card_zone", "player_zone") and e.args:
            want = "card" if meaning == "card_zone" else "player"
            t = self.ty(e.args[0], sc)
            if t is not None and t != want and t != "none":
                self.report(e.args[0], f"`{e.name}(…)` is a zone of each {want}, and this is {describe(t)}")
            if meaning == "card_zone" and self.rs.zones[e.name].per_player and len(e.args) > 1:
                t = self.ty(e.args[1], sc)   # `squad(c, p)`: a zone of each card and player
                if t is not None and t != "player" and t != "none":
                    self.report(e.args[1], f"`{e.name}(c, p)` is a zone of each card and player, and this is "
                                           f"{describe(t)}", hint=f"name the player after the card: "
                                                                  f"`{e.name}(c, owner(c))`")
        elif meaning == "builtin":
            f = B.FUNCTIONS[e.name]
            for arg, kind in zip(e.args, f.args):
                t = self.ty(arg, sc)
                if kind in _ARG_KINDS and t is not None and t != "none" and t not in _ARG_KINDS[kind]:
                    self.report(arg, f"`{e.name}` needs {_KIND_TEXT[kind]}, and this is {describe(t)}")

    # ------------------------------------------------------------ conditions
    def condition(self, cond, sc):
        """A condition that is a list, a zone, a card… is true whenever it is not empty or
        none: almost always a slip (`xs sort by it = ys` sorts by the comparison)."""
        t = self.ty(cond, sc) if cond is not None else None
        if t in LISTY or t in ("zone", "card", "player", "group", "event"):
            self.report(cond, f"a condition must be true or false, and this is {describe(t)}",
                        hint="test it with `exists(…)` or compare it: `(xs sort by k) = ys` needs its brackets"
                        if t in LISTY or t == "zone" else "compare it with something")

    def c_If(self, s, sc):
        for cond, _ in s.branches:
            self.condition(cond, sc)

    def c_While(self, s, sc):
        self.condition(s.cond, sc)

    def c_IfExpr(self, e, sc):
        self.condition(e.cond, sc)

    def c_DeckRule(self, r, sc):
        self.condition(r.cond, sc)

    c_Invariant = c_Rule = c_Check = c_DeckRule

    def c_Trigger(self, tr, sc):
        self.condition(tr.cond, sc)
        if tr.order_by is None:
            return
        if tr.instead:
            self.report(tr.order_by, "an `instead` trigger replaces a move, one at a time: it is not ordered "
                                     "with others", hint="leave out `ordered by`")
            return
        t = self.ty(tr.order_by, sc)
        if t is not None and t != "player":
            self.report(tr.order_by, f"`ordered by` names the player who orders the triggers, and this is "
                                     f"{describe(t)}", hint="write the player, e.g. `ordered by player`")

    def c_Reaction(self, r, sc):
        self.condition(r.cond, sc)
        self.condition(r.eligible, sc)

    def c_Action(self, a, sc):
        self.condition(a.when, sc)

    def c_RoundDecl(self, r, sc):
        self.condition(r.until, sc)

    def c_Estimate(self, e, sc):
        t = self.ty(e.value, sc)
        if t is not None and t != "int":
            self.report(e.value, f"an estimate must be a number (bigger is better), and this is {describe(t)}")

    def c_Show(self, e, sc):
        self.ty(e.value, sc)

    # ------------------------------------------------------------ statements
    def _count(self, s, sc):
        t = self.ty(s.count, sc)
        if t is not None and t != "int":
            self.report(s.count, f"this must be a number of cards or times, and it is {describe(t)}")

    c_Repeat = c_Deal = _count

    def c_Draw(self, s, sc):
        self._count(s, sc)
        self.c_Move(s, sc)

    def c_GiveExtra(self, s, sc):
        t = self.ty(s.player, sc)
        if t is not None and t != "player":
            self.report(s.player, f"an extra turn goes to a player, and this is {describe(t)}")

    def c_ChooseTargets(self, s, sc):
        t = self.ty(s.card, sc)
        if t is not None and t != "card":
            self.report(s.card, f"`choose targets of` names the targets of a card's effect, and this is {describe(t)}")
        t = self.ty(s.by, sc)
        if t is not None and t != "player":
            self.report(s.by, f"a player names the targets, and this is {describe(t)}")

    def c_Choose(self, s, sc):
        if s.lo is None or s.lo is s.hi:   # (`choose 2 cs`: a literal)
            return
        for bound, which in ((s.lo, "LO"), (s.hi, "HI")):
            t = self.ty(bound, sc)
            if t is not None and t != "int":
                self.report(bound, f"the bounds of `choose LO..HI` are numbers of options, and {which} here is "
                                   f"{describe(t)}",
                            hint="write a number, e.g. `choose 1..count(hand(current)) cs in hand(current)`")

    def c_For(self, s, sc):
        t = None if s.by is None else self.ty(s.by, sc)
        if t is not None and t != "player":
            self.report(s.by, f"`ordered by` names the player who orders the items, and this is {describe(t)}",
                        hint="write the player, e.g. `ordered by current`")

    def c_Swap(self, s, sc):
        for side in (s.a, s.b):
            t = self.ty(side, sc)
            if t is not None and t != "card":
                self.report(side, f"`swap` trades one card for another, and this is {describe(t)}")

    def c_Cut(self, s, sc):
        if s.at is not None:
            t = self.ty(s.at, sc)
            if t is not None and t != "int":
                self.report(s.at, f"`cut … at` takes a number of cards off the top, and this is {describe(t)}")
        e, decl = s.zone, None
        if isinstance(e, A.Name):
            u = self.types.uses.get(id(e))
            if u is not None and u.kind == "global" and u.meaning == "zone":
                decl = self.rs.zones[e.id]
                if decl.per_player or decl.per_card:
                    whose = "card" if decl.per_card else "player"
                    self.report(e, f"`cut` cuts one zone, and `{e.id}` is a zone of each {whose}",
                                hint=f"name whose: `cut {e.id}({'current' if whose == 'player' else 'c'})`")
                    return
        elif isinstance(e, A.Call) and call_meaning(self.rs, e.name) in ("player_zone", "card_zone"):
            decl = self.rs.zones[e.name]
        if decl is not None and not decl.ordered:
            self.report(e, f"`{decl.name}` is unordered: its cards lie in no order, so there is nothing to cut",
                        hint=f"declare `zone {decl.name}: …, ordered` to cut it, or `shuffle` it")
            return
        t = self.ty(e, sc)
        if t is not None and t != "zone":
            self.report(e, f"`cut` cuts a zone, and this is {describe(t)}")

    def c_Move(self, s, sc):
        dest = getattr(s, "dest", None)
        t = self.ty(dest, sc) if dest is not None else None
        if t is not None and t != "zone":
            self.report(dest, f"cards move to a zone, and this is {describe(t)}")

    def c_Set(self, s, sc):
        if s.op == "=":
            return
        target, value = self.ty(s.target, sc), self.ty(s.value, sc)
        if target == "int" and value is not None and value != "int":
            self.report(s.value, f"`{s.op}` changes a number by a number, and this is {describe(value)}")
        elif target == "list" and s.op == "-=":
            self.report(s, "`-=` subtracts from a number, and this is a list",
                        hint="build the list without the items: `[x for x in xs if x != y]`")


_KIND_TEXT = {"player": "a player", "card": "a card", "int": "a number", "list": "a list or a zone",
              "countable": "a list or a zone", "str": "a text"}


def _rebound(node) -> set:
    """Names a rule binds or assigns anew (their type may change)."""
    out = set()
    for n in A.walk(node):
        if isinstance(n, (A.Let, A.Choose)) or isinstance(n, A.Draw) and n.name is not None:
            out.add(n.name)
        elif isinstance(n, A.Set) and isinstance(n.target, A.Name):
            out.add(n.target.id)
    return out


def check_types(rs, items) -> list:
    """E008 diagnostics for the given declarations of a ruleset, each place once."""
    checks = Checks(rs)
    for item in items:
        checks.item(item)
    seen, out = set(), []
    for d in checks.found:
        key = (d.span.line, d.span.column, d.message) if d.span else d.message
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
