"""What an expression is worth without playing: the static evaluator lint and the
language server judge with.

:class:`Statics` evaluates an expression of a checked `Ruleset` from what is known before
any game: constants, options, the card data (`all_cards`, card properties, `where`,
`count`, `sum` …), data tables, enum members, defs and tables called with known
arguments, derived properties. Whatever reads a game being played (a zone's cards, a
variable, dice, `random`, the current player, a pattern, `possible` …) is "not known":
:data:`UNKNOWN`.

With `start=True` it also knows the start of a game for the fewest players, as lint
assumes of a pattern's labels and the language server of a card's derived properties:
the variables hold their initial values, and the players are the seats of
`game.min_players`. Where the cards lie stays unknown.

It means exactly what the engines mean, because it is made of the same parts: a name
and a call resolve as the resolver pass recorded (`resolver.Use`), `call_meaning` and `card_attr_meaning`;
the operators are those of `runtime/values.py`; a built-in is its entry's `run` of
`runtime/builtins.py`, given a read-only :class:`_Context` in place of an engine. What
is its own is the walk over the expression's nodes (the tree walker's `Compiler` turns
the same nodes into closures over a game). `tests/test_statics.py` holds the two
against each other on every shipped ruleset.
"""
from __future__ import annotations

import operator
from typing import Optional

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic
from ..base.protocol import MAX_CALLS
from ..runtime import builtins as B
from ..runtime.state import Group, Player, ZoneRef
from ..runtime.values import (_add, _arith, _attr, _dice, _eq, _hashable, _in, _kind, _num, _order, _rememberable, _show,
                              _text, _value_attr)
from .loader import Card
from .resolver import call_meaning, card_attr_meaning, facts, use_of


class NotStatic(Exception):
    """Raised inside the evaluator where a value needs a game being played."""


class _Unknown:
    def __repr__(self):
        return "UNKNOWN"


#: What :meth:`Statics.value` answers for an expression it cannot know without playing.
UNKNOWN = _Unknown()

_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class _Context:
    """What the built-ins and the operations of `values.py` are given instead of an
    engine: the ruleset's cards, options and seats, read-only. Anything else an engine
    has (its `state`, its dice, the zones' contents, who plays next …) belongs to a game
    being played: asking for it raises NotStatic."""

    def __init__(self, statics: "Statics"):
        self._statics = statics
        rs = statics.rs
        self.cards = rs.cards
        self.opts = rs.option_values
        self.hint_seat = None   # (no hint is evaluated here: interpreter/walker/hints.py)
        if statics.start:   # (the seats of a game for the fewest players)
            self.n = max(rs.game.min_players, 1)
            self.players = [Player(i) for i in range(self.n)]

    def __getattr__(self, name):   # (only for what __init__ did not set: a game's parts)
        if name.startswith("__"):   # (Python's own questions: copy, pickle, a debugger)
            raise AttributeError(name)
        raise NotStatic(name)

    def fail(self, node, message, code="E010", hint=None):
        return CglError(Diagnostic(code, message, node.span if node is not None else None, hint=hint))

    def as_list(self, value, node=None) -> list:
        if isinstance(value, list):
            return value
        if isinstance(value, (tuple, set)):
            return list(value)
        if isinstance(value, ZoneRef):
            raise NotStatic("the cards of a zone")
        raise self.fail(node, f"expected a list or a zone, got {_kind(value)}")

    def cards_of(self, value, node=None) -> list:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        if hasattr(value, "props"):
            return [value]
        if isinstance(value, ZoneRef):
            raise NotStatic("the cards of a zone")
        raise self.fail(node, f"expected cards or a zone, got {_kind(value)}")

    def as_player(self, value, node) -> Player:
        if isinstance(value, Player):
            return value
        raise self.fail(node, f"expected a player, got {_kind(value)}")

    def attr_of(self, obj, name):
        """(found, value) for `obj.name`, as `Engine.attr_of` reads it. (A card's is the
        evaluator's `card_attr`; a player's reads the variables' first values; the rest is
        `values._value_attr`, which the engine reads too; a zone's size is NotStatic.)"""
        if type(obj) is Card:
            return self._statics.card_attr(obj, name)
        if isinstance(obj, Player):
            if name in self._statics.player_vars:
                return True, self._statics.initial(name)
            if name == "name":
                return True, obj.name
            if name == "seat":
                return True, obj.seat + 1
            return False, None
        if name == "size" and isinstance(obj, ZoneRef):
            raise NotStatic("the cards of a zone")
        return _value_attr(obj, name, self.players)


class Statics:
    """The static evaluator of one ruleset (strict, or at the start of a game: `start`)."""

    def __init__(self, rs, start: bool = False, _data: Optional[dict] = None):
        self.rs = rs
        self.start = start
        f = facts(rs)
        self.static_defs = f.static_defs
        self.derive_kinds = f.derive_kinds
        self.player_vars = set(rs.player_vars())
        self.context = _Context(self)
        self._known: dict = {}       # (card id, derive), ("def"|"var", name) -> value, or _NOT
        # what the card data alone decides: "static" derives ((card id, name) -> value, or _NOT)
        # and static defs (name -> {arguments: value}); the same in every game and at its start
        self._data: dict = {} if _data is None else _data
        self._meanings: dict = {of: {} for of in (call_meaning, card_attr_meaning)}
        self._calls = 0   # calls of defs and tables for the answer being worked out (`_called`)

    def at_start(self) -> "Statics":
        """The evaluator of the start of a game, sharing what the card data alone decides."""
        return Statics(self.rs, start=True, _data=self._data)

    # ------------------------------------------------------------ the answers
    def value(self, expr, env: Optional[dict] = None):
        """The value of `expr` with these locals, or UNKNOWN (it needs a game being played,
        or it fails: a rule's mistake, which the engines report when it is played)."""
        self._calls = 0
        try:
            return self.evaluate(expr, env or {})
        except (NotStatic, CglError, RecursionError):
            return UNKNOWN

    def attr(self, card, name):
        """`card.name` (a data or derived property), or UNKNOWN."""
        self._calls = 0
        try:
            found, v = self.card_attr(card, name)
        except (NotStatic, CglError, RecursionError):
            return UNKNOWN
        return v if found else UNKNOWN

    def evaluate(self, e, env: dict):
        """The value of `e`; raises NotStatic, or the CglError the engines would raise."""
        return _EVALUATE[type(e)](self, e, env)

    def _meaning(self, of, name: str):
        """What the resolver's `of(rs, name)` says of a name, asked once."""
        known = self._meanings[of]
        try:
            return known[name]
        except KeyError:
            meaning = known[name] = of(self.rs, name)
            return meaning

    # ------------------------------------------------------------ what cards, players and variables hold
    def card_attr(self, c, name):
        """(found, value) for `c.name`, as the engines read it (`card_attr_meaning`)."""
        meaning = self._meaning(card_attr_meaning, name)
        if meaning == "data":
            if name in c.props:
                return True, c.props[name]
            if name == "name":
                return True, c.name
            if name == "id":
                return True, c.id
            if name in ("zone", "owner"):
                raise NotStatic("where a card lies")
            return False, None
        if meaning == "derive":
            known = self._data if self.derive_kinds[name] == "static" else self._known
            v = known.get((c.id, name), _NOT)
            if v is _NOT:
                v = self._once(known, (c.id, name), lambda: self.evaluate(self.rs.derives[name].expr, {"it": c}))
            return True, v
        return True, self.initial(name)

    def initial(self, var: str):
        """A variable's value at the start of a game (known only with `start`)."""
        if not self.start:
            raise NotStatic("a variable")
        v = self._known.get(("var", var), _NOT)
        if v is _NOT:
            v = self._once(self._known, ("var", var), lambda: self.evaluate(self.rs.vars[var].init, {}))
        return v

    @staticmethod
    def _once(known: dict, key, compute):
        """A value worked out once (a derive of a card, a constant def, a variable's
        initial value): each is the same wherever it is read."""
        v = known.get(key, _MISSING)
        if v is _MISSING:
            try:
                v = compute()
            except NotStatic:
                v = _NOT
            known[key] = v
        if v is _NOT:
            raise NotStatic(key)
        return v

    # ------------------------------------------------------------ leaves
    def v_Int(self, e, env):
        return e.value

    def v_Const(self, e, env):
        return e.value

    def v_Text(self, e, env):
        parts = e.parts
        if len(parts) == 1 and type(parts[0]) is str:   # (the commonest: a constant)
            return parts[0]
        return _text(self.context, "".join(p if isinstance(p, str) else _show(self.evaluate(p, env)) for p in parts), e)

    def v_Dice(self, e, env):
        return _dice(self.context, e)

    def v_Possible(self, e, env):
        raise NotStatic("possible")

    def v_Name(self, e, env):
        """A bare name, as the resolver pass recorded it (`resolver.Use`), as the engines read it."""
        u = use_of(self.rs, e)
        name = u.name
        if u.kind in ("local", "maybe") and name in env:
            return env[name]
        if u.kind == "local":
            raise NotStatic(f"`{name}`, a local with no value here")
        if u.kind == "it" or u.kind == "maybe" and u.it:
            it = env.get("it")
            if it is not None:
                found, v = self.card_attr(it, name) if type(it) is Card else self.context.attr_of(it, name)
                if found:
                    return v
        return self.global_name(e, u)

    def global_name(self, e, u):
        """A bare name that is neither a local nor a property of `it` (its `meaning`)."""
        name, meaning = u.name, u.meaning
        if meaning == "option":
            return self.rs.option_values[name]
        if meaning == "global":
            return self.initial(name)
        if meaning == "def":
            return self._once(self._known, ("def", name), lambda: self.evaluate(self.rs.defs[name].expr, {}))
        if meaning == "data":
            return self.rs.tables[name]
        if meaning == "zone":
            return ZoneRef(name, None)
        if meaning == "enum":
            return name
        if meaning == "builtin":
            return B.VALUES[name].run(self.context)
        raise self.context.fail(e, f"unknown name `{name}`")

    # ------------------------------------------------------------ calls
    def v_Call(self, e, env):
        meaning = self._meaning(call_meaning, e.name)
        if meaning is None:
            raise self.context.fail(e, f"unknown function `{e.name}`")
        if meaning == "pattern":
            raise NotStatic("a pattern")
        args = [self.evaluate(a, env) for a in e.args]
        return getattr(self, "call_" + meaning)(e, args)

    def _called(self):
        """One more call of a def or table for this answer: past MAX_CALLS, as the engines stop
        a step (`Engine.calls_out`), the answer is unknown (lint and the language server work
        out defs called with known arguments: a doubling recursion must not hang them)."""
        self._calls += 1
        if self._calls > MAX_CALLS:
            raise NotStatic(f"more than {MAX_CALLS} calls")

    def call_def(self, e, args):
        self._called()
        d = self.rs.defs[e.name]
        values = tuple(args)
        if e.name not in self.static_defs or not _rememberable(values):
            return self.evaluate(d.expr, dict(zip(d.params, values)))
        memo = self._data.setdefault(e.name, {})   # (remembered as the engines remember it)
        try:
            return memo[values]
        except KeyError:
            pass
        except TypeError:   # a list argument: nothing to remember it by
            return self.evaluate(d.expr, dict(zip(d.params, values)))
        memo[values] = v = self.evaluate(d.expr, dict(zip(d.params, values)))
        return v

    def call_table(self, e, args):
        self._called()
        t = self.rs.table_decls[e.name]
        local = dict(zip(t.params, args))
        for cond, val in t.rows:
            if self.evaluate(cond, local):
                return self.evaluate(val, local)
        if t.default is not None:
            return self.evaluate(t.default, local)
        raise self.context.fail(e, f"no row of table `{e.name}` holds, and it has no `| else ->` row")

    def call_card_zone(self, e, args):
        if not args:
            raise self.context.fail(e, f"`{e.name}` is a zone of each card: say which, `{e.name}(c)`")
        c = args[0]
        if not hasattr(c, "props"):
            raise self.context.fail(e.args[0], f"`{e.name}(…)` takes a card, got {_kind(c)}")
        if self.rs.zones[e.name].per_player:   # `per card per player`: `squad(c, p)`
            if len(args) != 2:
                raise self.context.fail(e, f"`{e.name}` is a zone of each card and player: say whose, "
                                           f"`{e.name}(c, p)`")
            if not isinstance(args[1], Player):
                raise self.context.fail(e.args[1], f"`{e.name}(c, p)` takes a player after the card, got "
                                                   f"{_kind(args[1])}")
            return ZoneRef(e.name, args[1].seat, c.id, c.name)
        return ZoneRef(e.name, None, c.id, c.name)

    def call_player_zone(self, e, args):
        if not args:
            raise self.context.fail(e, f"`{e.name}` is a zone of each player: say whose, `{e.name}(p)`")
        if not isinstance(args[0], Player):
            raise self.context.fail(e.args[0], f"expected a player, got {_kind(args[0])}")
        return ZoneRef(e.name, args[0].seat)

    def call_builtin(self, e, args):
        return B.FUNCTIONS[e.name].run(self.context, e, args)

    # ------------------------------------------------------------ operators
    def v_Attr(self, e, env):
        return _attr(self.context, self.evaluate(e.obj, env), e.name, e)

    def v_ListLit(self, e, env):
        return [self.evaluate(i, env) for i in e.items]

    def v_BinOp(self, e, env):
        a, b = self.evaluate(e.left, env), self.evaluate(e.right, env)
        if e.op == "+":
            return _add(self.context, a, b, e)
        return _arith(self.context, a, b, e)

    def v_Compare(self, e, env):
        a, b = self.evaluate(e.left, env), self.evaluate(e.right, env)
        if e.op == "=":
            return a == b if type(a) is str and type(b) is str else _eq(a, b)
        if e.op == "!=":
            return a != b if type(a) is str and type(b) is str else not _eq(a, b)
        return _order(self.context, a, b, e, _ORDER[e.op])

    def v_In(self, e, env):
        found = _in(self.context, self.evaluate(e.left, env), self.evaluate(e.right, env), e)
        return not found if e.negated else found

    def v_And(self, e, env):
        return bool(self.evaluate(e.left, env)) and bool(self.evaluate(e.right, env))

    def v_Or(self, e, env):
        return bool(self.evaluate(e.left, env)) or bool(self.evaluate(e.right, env))

    def v_Not(self, e, env):
        return not self.evaluate(e.operand, env)

    def v_Neg(self, e, env):
        return -_num(self.evaluate(e.operand, env), e.operand, self.context)

    def v_IfExpr(self, e, env):
        return self.evaluate(e.then if self.evaluate(e.cond, env) else e.otherwise, env)

    # ------------------------------------------------------------ over lists
    def _each(self, e, env, name="it"):
        """Each item of `e.source`, with the locals that name it (one dict, bound anew to each:
        nothing keeps the locals of an evaluation)."""
        inner = dict(env)
        for x in self.context.as_list(self.evaluate(e.source, env), e.source):
            inner[name] = x
            yield x, inner

    def v_Comprehension(self, e, env):
        return [self.evaluate(e.expr, inner) for _, inner in self._each(e, env, e.name)
                if e.cond is None or self.evaluate(e.cond, inner)]

    def v_Where(self, e, env):
        cond, holds = e.cond, _EVALUATE[type(e.cond)]   # (found once for all the items)
        return [x for x, inner in self._each(e, env) if holds(self, cond, inner)]

    def v_GroupBy(self, e, env):
        groups: dict = {}
        for x, inner in self._each(e, env):
            k = self.evaluate(e.key, inner)
            groups.setdefault(_hashable(k), (k, []))[1].append(x)
        return [Group(k, tuple(xs)) for k, xs in groups.values()]

    def v_SortBy(self, e, env):
        keyed = [(self.evaluate(e.key, inner), i, x) for i, (x, inner) in enumerate(self._each(e, env))]
        try:
            keyed.sort(key=lambda t: (t[0] is None, t[0] if t[0] is not None else 0, t[1]))
        except TypeError:
            raise self.context.fail(e, "these values cannot be put in order") from None
        return [x for _, _, x in keyed]


_MISSING = object()
_NOT = object()   # (remembered: it is not known)
#: node class -> its `Statics.v_…` method
_EVALUATE = {getattr(A, name[2:]): fn for name, fn in vars(Statics).items() if name.startswith("v_")}


def statics_of(rs) -> Statics:
    """The ruleset's strict static evaluator, one per ruleset (kept in its facts,
    `Facts.statics`), so that what the card data decides is worked out once for the
    generator, the engines' continuous rules and the seat view alike."""
    f = facts(rs)
    if f.statics is None:
        f.statics = Statics(rs)
    return f.statics
