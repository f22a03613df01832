"""Compile a ruleset into Python source, once per ruleset: the interpreter's fast path.

The tree walker (engine.py) keeps each local name in a chain of dictionaries and runs
every statement through a generator of its own. Here the bodies of a ruleset (setup,
rounds, turn phases, procedures, triggers, reactions, actions) and the functions they
call (`def`, `table`, derived properties, pattern pieces) become Python functions whose
CGL locals are Python locals, resolved once, when the source is generated:

- a bare name is a local (a parameter, `let`, loop or choice variable), a property of the
  innermost `it`, or a global, exactly as the tree walker looks it up, but decided here;
- `obj.name` reads a card's variable, derived property or data, or a player's variable,
  in place, falling back to the tree walker's lookup for anything else;
- a light static type inference ("card", "player", "zone", "cards", "strs" (texts),
  "list", "int", "str", "str?" (a text or none, a text in the `then` of `if x != none`), …;
  None when unknown) leaves out checks that cannot fail, and defs, procedures and
  patterns are specialised for their arguments' types; small defs called with locals are
  written in place, loops and all; a pure function (an expression's) reads its
  parameters' variables once, not each time round its loops;
- statements become Python statements; those that change cards (`move`, `draw`, …),
  ask players (`choose`, `may`, `act`) or raise events call the engine's `s_…`/`c_…`
  methods, the same ones the tree walker calls, so both do the same thing in the same
  order (`draw 1` and `discard c` by plain calls that move the card at once); triggers
  and reactions are functions of the event itself, and each kind of event gets one
  generated runner of what waits for it (`_runner`), with the conditions and the
  reaction windows written in; a loop over a zone's cards that reads only their ids and
  derived properties runs over the ids;
- rule conditions (`rule … forbid … if`) stay with the tree walker, which evaluates them
  in the environment where the check happens, and so does an `act` beside a local that
  an action reads (an action sees the locals where `act` runs); the locals are handed
  over in an `Env`.

Semantics are the tree walker's: the same ruleset, seed and answers play the same game,
byte for byte (tests/test_codegen.py plays every shipped ruleset and example both ways
and compares logs, statistics and step counts). Errors point at the same CGL source:
every expression evaluated by a body is guarded (a `try` costs nothing in Python 3.11
until it catches), and statements count towards the step budget one by one, as in the
tree walker (a game with a budget, `max_steps`, runs a second module whose statements
also check it; without one, they only count). Anything the generator cannot handle leaves the whole ruleset to the tree
walker (`compiled_for` returns None; `cgl info` says why).

`CGL_ENGINE=tree` in the environment makes `Game` use the tree walker instead.
"""
from __future__ import annotations

import os
import re
from functools import partial
from itertools import chain
from typing import Optional

from . import ast as A
from . import builtins as B
from .compiler import Env
from .diagnostics import CglError, Diagnostic
from .engine import MAX_EVENT_DEPTH, MAX_LOOP, OTHERWISE, ActionChoice, Engine, _EndScope, _GameOver, _walk
from .resolver import call_meaning, facts, name_meaning
from .typecheck import LISTY, Binding as _Binding, Scope, TypeChecker, elem_ty
from .loader import Card
from .state import Event, Group, Match, Player, ZoneRef
from attrs import evolve as attrs_evolve

from .values import _add, _apply, _attr, _arith, _eq, _explain, _hashable, _in, _kind, _num, _order, _show, _truth

PYERR = (TypeError, ValueError, KeyError, AttributeError, ZeroDivisionError, IndexError, RecursionError)
_MISSING = object()
NO_LIMIT = 1 << 62
_CARD_EVENTS = frozenset(("draw", "discard", "deal", "move"))


class Unsupported(Exception):
    """Something the generator does not compile (the ruleset then runs on the tree walker)."""


# ---------------------------------------------------------------- run-time helpers
# (called by the generated code; each does what the tree walker's closure for that node does)

def _everr(eng, node, x):
    if isinstance(x, RecursionError):
        return eng.fail(node, "the rules call themselves without end", code="E011")
    return eng.fail(node, f"cannot evaluate this: {_explain(x)}")


def _runerr(eng, node, x):
    if isinstance(x, RecursionError):
        return eng.fail(node, "the rules call themselves without end", code="E011")
    return eng.fail(node, f"cannot run this: {_explain(x)}")


def _toolong(eng, node):
    return eng.fail(node, f"the game ran {eng.max_steps} statements without ending", code="E011")


def _it_attr(eng, it, name):
    """`name` as a property of `it`, or _MISSING."""
    if it is None:
        return _MISSING
    ok, v = eng.attr_of(it, name)
    return v if ok else _MISSING


def _it_or(eng, it, name, glob):
    v = _it_attr(eng, it, name)
    return glob() if v is _MISSING else v


def _it_or_unknown(eng, it, name, node):
    v = _it_attr(eng, it, name)
    if v is _MISSING:
        raise eng.fail(node, f"unknown name `{name}`")
    return v


def _unknown(eng, node, what="name"):
    raise eng.fail(node, f"unknown {what} `{node.id if what == 'name' else node.name}`")


def _sub(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a - b
    return _arith(eng, a, b, node)


def _ne(a, b):
    if type(a) is str and type(b) is str:
        return a != b
    return not _eq(a, b)


def _eqs(a, b):
    if type(a) is str and type(b) is str:
        return a == b
    return _eq(a, b)


def _lt(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a < b
    return _order(eng, a, b, node, lambda x, y: x < y)


def _le(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a <= b
    return _order(eng, a, b, node, lambda x, y: x <= y)


def _gt(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a > b
    return _order(eng, a, b, node, lambda x, y: x > y)


def _ge(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a >= b
    return _order(eng, a, b, node, lambda x, y: x >= y)


def _aslist(eng, v, node):
    if v.__class__ is list:
        return v
    return eng.as_list(v, node)


_COUNT = B.FUNCTIONS["count"].run


def _count(eng, v, node):
    if v.__class__ is list:
        return len(v)
    if v.__class__ is ZoneRef:
        return len(eng.state.zones.get(v.key, ()))
    return _COUNT(eng, node, [v])


def _group_by(eng, items, key):
    groups: dict = {}
    for x in items:
        k = key(x)
        hk = _hashable(k)
        if hk not in groups:
            groups[hk] = (k, [])
        groups[hk][1].append(x)
    if not groups:
        return []   # (an empty zone, often: no comprehension to run)
    return [Group(k, tuple(xs)) for k, xs in groups.values()]


def _sort_by(eng, items, key, node):
    keyed = [(key(x), i, x) for i, x in enumerate(items)]
    try:
        keyed.sort(key=lambda t: (t[0] is None, t[0] if t[0] is not None else 0, t[1]))
    except TypeError:
        raise eng.fail(node, "these values cannot be put in order") from None
    return [x for _, _, x in keyed]


def _zone_of_player(eng, name, p, node, cache):
    if p.__class__ is Player:
        z = cache.get(p.seat)
        if z is None:
            z = cache[p.seat] = ZoneRef(name, p.seat)
        return z
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _cards_at(eng, key):
    """The cards of a zone, top first (`Engine.cards_of`)."""
    return list(map(eng.cards.__getitem__, reversed(eng.state.zones.get(key, ()))))


def _pz_cards(eng, keys, p, node):
    """The cards of a player's zone (`hand(p)`), top first."""
    if p.__class__ is Player:
        return list(map(eng.cards.__getitem__, reversed(eng.state.zones.get(keys[p.seat], ()))))
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _pz_ids(eng, keys, p, node):
    """The card ids of a player's zone, bottom first (the state's own list: read, never kept)."""
    if p.__class__ is Player:
        return eng.state.zones.get(keys[p.seat], ())
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _first(items):
    return items[0] if items else None


def _last(items):
    return items[-1] if items else None


def _in_list(a, b):
    if a.__class__ is str:
        return a in b
    return any(_eq(a, x) for x in b)


def _pz_count(eng, keys, p, node):
    return len(_pz_ids(eng, keys, p, node))


def _zone_of_card(eng, name, c, node):
    if not hasattr(c, "props"):
        raise eng.fail(node, f"`{name}(…)` takes a card, got {_kind(c)}")
    return ZoneRef(name, None, c.id, c.name)


def _seat_of(eng, p, node):
    if p.__class__ is Player:
        return p.seat
    return eng.as_player(p, node).seat


def _asker_seat(eng, player):
    return player.seat if isinstance(player, Player) else eng.state.current


def _mkenv(d):
    return Env({k: v for k, v in d.items() if v is not _MISSING})


def _static_call(memo, body, eng, args):
    try:
        return memo[args]
    except KeyError:
        pass
    except TypeError:  # a list argument: nothing to remember it by
        return body(eng, *args)
    memo[args] = result = body(eng, *args)
    return result


def _entry(env, name):
    """A name the engine bound before running a body (event, card, parameters, …)."""
    found, value = env.lookup(name)
    return value if found else _MISSING


RUNTIME = {
    "_everr": _everr, "_runerr": _runerr, "_toolong": _toolong, "_attr": _attr, "_it_attr": _it_attr,
    "_it_or": _it_or, "_it_or_unknown": _it_or_unknown, "_unknown": _unknown, "_add": _add, "_arith": _arith,
    "_sub": _sub, "_ne": _ne, "_eqs": _eqs, "_eq": _eq, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge,
    "_in": _in, "_aslist": _aslist, "_count": _count, "_group_by": _group_by, "_sort_by": _sort_by,
    "_zone_of_player": _zone_of_player, "_cards_at": _cards_at, "_pz_cards": _pz_cards, "_pz_count": _pz_count,
    "_pz_ids": _pz_ids, "_first": _first, "_last": _last, "_in_list": _in_list, "_chain": chain, "_zone_of_card": _zone_of_card, "_seat_of": _seat_of,
    "_asker_seat": _asker_seat, "_mkenv": _mkenv, "_static_call": _static_call, "_entry": _entry,
    "_num": _num, "_show": _show, "_truth": _truth, "_apply": _apply, "_MISSING": _MISSING, "_PE": PYERR,
    "_EndScope": _EndScope, "_GameOver": _GameOver, "Env": Env, "Card": Card, "Player": Player,
    "ZoneRef": ZoneRef, "Event": Event, "OTHERWISE": OTHERWISE, "MAX_LOOP": MAX_LOOP, "_BUILTIN": {name: f.run for name, f in B.FUNCTIONS.items()},
    "_Match": Match, "_Group": Group, "_hashable": _hashable,
}


# ---------------------------------------------------------------- functions being written

class _Fn:
    """One Python function being written."""

    def __init__(self, gen, header, indent=0):
        self.gen = gen
        self.header = header
        self.lines: list = []
        self.base = indent
        self.ind = indent + 1
        self.nonlocals: set = set()
        self.captures: set = set()      # loop-bound variables of enclosing functions it reads
        self.caches: set = set()        # "card" derived properties whose cache lists it reads
        self.loop = 0                   # loops open at the point being written
        self.parent: Optional[_Fn] = None
        # A pure function (an expression's: it changes nothing) may read its parameters'
        # variables once, as it starts, instead of each time round a loop of the expression.
        self.pure = False
        self.inloop = 0                 # comprehensions open at the point being written
        self.hoists: dict = {}          # local name -> what it reads, as the function starts
        m = re.match(r"def \w+\(eng((?:, \w+)*)\):", header)
        self.params = set(m.group(1).split(", ")[1:]) if m else set()

    def emit(self, line):
        self.lines.append("    " * self.ind + line)

    # The parts of the state a module-level function reads often, fetched once as it
    # starts (functions nested in it read them from there).
    FETCH = (("eng.state.card_vars", "_cv"), ("eng.state.player_vars", "_pv"), ("eng.state.zones", "_zs"))

    def source(self) -> list:
        pad = "    " * self.base
        out = [pad + self.header]
        if self.nonlocals:
            out.append(pad + "    nonlocal " + ", ".join(sorted(self.nonlocals)))
        out += [f"{pad}    _dc_{name} = eng.dcache[{name!r}]" for name in sorted(self.caches)]
        lines = [f"{pad}    {h} = {src}" for h, src in sorted(self.hoists.items())] + self.lines
        if self.base == 0 and self.header.startswith("def ") and "(eng" in self.header:
            text = "\n".join(lines)
            for long, short in self.FETCH:
                if long in text:
                    out.append(f"    {short} = {long}")
                    text = text.replace(long, short)
            lines = text.split("\n") if lines else []
        return out + lines


# ---------------------------------------------------------------- the generator

class CodeGen:
    """Generates and compiles the Python module of one ruleset."""

    def __init__(self, rs, budget: bool = False):
        self.rs = rs
        # With `budget`, each statement checks the engine's step budget (`max_steps`); without,
        # it only counts its step (the module a game without a budget runs: see compiled_for).
        self.budget = budget
        self.n = 0
        self.consts: dict = {}          # python name -> object
        self.const_ids: dict = {}       # id(object) -> python name
        self.defs: list = []            # source lines of module-level functions
        self.runner_src: dict = {}      # function name -> its body as lines a runner can take in (_body_for_runner)
        self.facts = facts(rs)
        self.types = TypeChecker(rs)    # the one type checker (lint reads it too)
        self.it_names = self.facts.it_names
        self.card_vars = set(rs.card_vars())
        self.player_vars = set(rs.player_vars())
        self.derive_kinds, self.static_defs = self.facts.derive_kinds, self.facts.static_defs
        self.card_props = self.types.card_props
        self.simultaneous = any(isinstance(n, A.Simultaneously) for item in rs.items for n in _walk(item))
        self.done: set = set()          # module-level functions already generated
        self.blocks: dict = {}          # id(block) -> python name of its entry function
        self.exprs: dict = {}           # id(expr) -> python name of its entry function
        self.patterns: dict = {}        # pattern name -> dict of python names
        self._inlining: list = []       # defs being written in place (no recursion)
        self._sizes: dict = {}          # def -> nodes in its body (small ones are written in place)
        self._loops: dict = {}          # id(expr) -> whether it holds a comprehension
        self._static_caches: dict = {}  # static derive -> module constant of its per-card values
        self.triggers: dict = {}        # id(trigger) -> {piece: python name or None}
        self.actions: dict = {}         # id(action) -> {piece: python name or None}
        self.reactions: dict = {}       # id(reaction) -> {piece: python name or None}

    # ------------------------------------------------------------ names
    def fresh(self, base="t") -> str:
        self.n += 1
        return f"_{base}{self.n}"

    def k(self, obj) -> str:
        """A module constant holding `obj` (an AST node, a table, …)."""
        name = self.const_ids.get(id(obj))
        if name is None:
            name = self.const_ids[id(obj)] = f"K{len(self.consts)}"
            self.consts[name] = obj
        return name

    # ------------------------------------------------------------ expressions
    def x(self, e, sc: Scope, fn: _Fn) -> str:
        return getattr(self, "x_" + type(e).__name__)(e, sc, fn)

    def x_Int(self, e, sc, fn):
        return repr(e.value)

    def x_Const(self, e, sc, fn):
        v = e.value
        if v is None or isinstance(v, (bool, int, str)):
            return repr(v)
        return self.k(v)

    def x_Text(self, e, sc, fn):
        if e.constant is not None:
            return repr(e.constant)
        parts = [repr(p) if isinstance(p, str) else f"_show({self.x(p, sc, fn)})" for p in e.parts]
        return '"".join((' + ", ".join(parts) + ",))"

    def x_Dice(self, e, sc, fn):
        if e.count <= 0:
            return "0"
        return "(" + " + ".join([f"eng.roll({e.sides})"] * e.count) + ")"

    def x_Name(self, e, sc, fn):
        name = e.id
        b = sc.find(name)
        if b is not None:
            self.use(b, fn)
            if not b.maybe:
                return b.var
            return f"({b.var} if {b.var} is not _MISSING else {self.it_or_global(e, sc, fn)})"
        return self.it_or_global(e, sc, fn)

    def use(self, b: _Binding, fn: _Fn):
        """Note a read of a loop-bound variable of an enclosing function: a waiting choice
        body (`simultaneously`) must see the value of its own time round the loop."""
        if b.loop and b.fn is not fn:
            f = fn
            while f is not None and f is not b.fn:
                f.captures.add(b.var)
                f = f.parent

    def it_or_global(self, e, sc, fn):
        name = e.id
        glob = self.glob(e, sc, fn)
        if name in self.it_names:
            b = sc.find("it")
            if b is not None:
                it = b.var if not b.maybe else f"({b.var} if {b.var} is not _MISSING else None)"
                if glob is None:
                    slow = f"_it_or_unknown(eng, {it}, {name!r}, {self.k(e)})"
                else:
                    slow = f"_it_or(eng, {it}, {name!r}, lambda: {glob})"
                if b.maybe:
                    return slow
                return self.fast_attr(b.var, name, slow, b.ty, fn)
        return glob if glob is not None else f"_unknown(eng, {self.k(e)})"

    def fast_attr(self, var, name, slow, ty=None, fn=None) -> str:
        """`var.name` for a variable: the card's (or player's, or event's) own property
        read in place, else `slow` (the general lookup)."""
        card = self.card_branch(name, var, fn)
        if card is not None and ty == "card":
            return card
        player = f"eng.state.player_vars[{var}.seat][{name!r}]" if name in self.player_vars else None
        if player is not None and ty == "player":
            if fn is not None and fn.pure and fn.inloop and var in fn.params:
                h = f"_h_{var}_{name}"    # read once (a pure function's parameter: it cannot change)
                fn.hoists[h] = player
                return h
            return player
        if ty == "event" and name in ("card", "player", "forced", "kind", "phase", "name"):
            return f"{var}.{name}"
        if ty == "group" and name in ("label", "size", "cards"):
            return {"label": f"{var}.label", "size": f"len({var}.cards)", "cards": f"list({var}.cards)"}[name]
        if player is not None:
            slow = f"({player} if {var}.__class__ is Player else {slow})"
        if card is not None:
            return f"({card} if {var}.__class__ is Card else {slow})"
        return slow

    def glob(self, e, sc, fn) -> Optional[str]:
        """What a bare name means globally (None: nothing)."""
        name = e.id
        rs = self.rs
        meaning = name_meaning(rs, name)
        if meaning == "option":
            v = rs.option_values[name]   # fixed once the ruleset is loaded
            return repr(v) if v is None or isinstance(v, (bool, int, str)) else f"eng.opts[{name!r}]"
        if meaning == "global":
            return f"eng.state.globals[{name!r}]"
        if meaning == "def":
            return f"{self.def_fn(name)}(eng)"
        if meaning == "data":
            return self.k(rs.tables[name])
        if meaning == "zone":
            return self.k(ZoneRef(name, None))
        if meaning == "enum":
            return repr(name)
        if meaning == "builtin":
            return B.VALUES[name].emit
        return None

    def x_Attr(self, e, sc, fn):
        obj = self.x(e.obj, sc, fn)
        ty = self.ty(e.obj, sc)
        if obj.isidentifier():
            return self.fast_attr(obj, e.name, f"{self.getter(e.name)}(eng, {obj}, {self.k(e)})", ty, fn)
        if ty == "card" and self.card_branch(e.name, "o") is not None:
            return f"{self.card_getter(e.name)}(eng, {obj})"
        if ty == "player" and e.name in self.player_vars:
            return f"eng.state.player_vars[{obj}.seat][{e.name!r}]"
        return f"{self.getter(e.name)}(eng, {obj}, {self.k(e)})"

    def card_getter(self, name) -> str:
        """The module function reading property `name` of a value that is always a card."""
        fname = "GC_" + name
        if fname not in self.done:
            self.done.add(fname)
            self.defs += [f"def {fname}(eng, o):", f"    return {self.card_branch(name, 'o')}", ""]
        return fname

    # ------------------------------------------------------------ static types
    # What an expression always evaluates to, from the one type checker (typecheck.py).
    # Used only to leave out checks that cannot fail, never to change what a rule means.
    LISTY = LISTY

    def ty(self, e, sc) -> Optional[str]:
        return self.types.ty(e, sc)

    def _narrowed(self, e, sc):
        return self.types.narrowed(e, sc)

    @staticmethod
    def elem_ty(ty) -> Optional[str]:
        return elem_ty(ty)

    def cards_src(self, e, sc, fn, lazy=False) -> Optional[str]:
        """Python for the cards of a zone expression, top first, without making a zone value
        (a shared zone, a player's zone, or a sum of them); None for anything else. `lazy`:
        an iterator over the zone itself is enough (read at once, by a comprehension)."""
        if isinstance(e, A.Name) and self.ty(e, sc) == "zone":
            if lazy:
                return f"map(eng.cards.__getitem__, reversed(eng.state.zones.get({e.id!r}, ())))"
            return f"_cards_at(eng, {e.id!r})"
        if isinstance(e, A.Call) and len(e.args) == 1:
            z = self.rs.zones.get(e.name)
            if z is not None and z.per_player and not (e.name in self.rs.defs or e.name in self.rs.table_decls):
                keys, who = self.zone_keys(e.name), self.x(e.args[0], sc, fn)
                if lazy:
                    if self.ty(e.args[0], sc) == "player":
                        ids = f"eng.state.zones.get({keys}[{who}.seat], ())"
                    else:
                        ids = f"_pz_ids(eng, {keys}, {who}, {self.k(e.args[0])})"
                    return f"map(eng.cards.__getitem__, reversed({ids}))"
                if self.ty(e.args[0], sc) == "player":
                    return f"list(map(eng.cards.__getitem__, reversed(eng.state.zones.get({keys}[{who}.seat], ()))))"
                return f"_pz_cards(eng, {keys}, {who}, {self.k(e.args[0])})"
        if isinstance(e, A.BinOp) and e.op == "+" and self.ty(e, sc) == "cards":
            a, b = self.cards_src(e.left, sc, fn, lazy), self.cards_src(e.right, sc, fn, lazy)
            if a is not None and b is not None:
                return f"_chain({a}, {b})" if lazy else f"({a} + {b})"
        return None

    def zone_keys(self, name) -> str:
        """A module constant: the state keys of per-player zone `name`, by seat."""
        return self.k([f"{name}:{p}" for p in range(max(self.rs.game.max_players, 1))])

    def seq(self, e, sc, fn, lazy=False) -> str:
        """Python for `e` as a list to iterate over (the tree walker's `as_list`); with `lazy`,
        anything to iterate over once, at once."""
        cards = self.cards_src(e, sc, fn, lazy)
        if cards is not None:
            return cards
        src = self.x(e, sc, fn)
        if self.ty(e, sc) in self.LISTY:
            return src
        return f"_aslist(eng, {src}, {self.k(e)})"

    def getter(self, name) -> str:
        """The module function reading property `name` of any value."""
        fname = "GA_" + name
        if fname in self.done:
            return fname
        self.done.add(fname)
        lines = [f"def {fname}(eng, o, node):"]
        card = self.card_branch(name, "o")
        if card is not None:
            lines += ["    if o.__class__ is Card:", f"        return {card}"]
        if name in self.player_vars:
            lines += ["    if o.__class__ is Player:", f"        return eng.state.player_vars[o.seat][{name!r}]"]
        lines += [f"    return _attr(eng, o, {name!r}, node)"]
        self.defs += lines + [""]
        return fname

    def card_branch(self, name, o, fn=None) -> Optional[str]:
        """How property `name` of card `o` is read, in the tree walker's order of precedence."""
        if name in self.card_vars:
            return f"eng.state.card_vars[{o}.id][{name!r}]"
        if name in self.rs.derives:
            dv = self.derive_fn(name)
            if o.isidentifier() and self.derive_kinds[name] == "static":
                cache = self._static_caches[name]
                w = self.fresh("w")
                return f"({w} if ({w} := {cache}[{o}.id]) is not _MISSING else {dv}(eng, {o}))"
            if o.isidentifier() and self.derive_kinds[name] == "card" and fn is not None:
                fn.caches.add(name)  # the game's list of values, fetched as the function starts
                cache, w = "_dc_" + name, self.fresh("w")
                return f"({w} if ({w} := {cache}[{o}.id]) is not _MISSING else {dv}(eng, {o}))"
            return f"{dv}(eng, {o})"
        if name in self.card_props:
            return f"{o}.props[{name!r}]"
        if name == "name":
            return f"{o}.name"
        if name == "id":
            return f"{o}.id"
        return None

    def derive_fn(self, name) -> str:
        """The module function giving derived property `name` of a card (cached as the tree walker caches)."""
        fname = "DV_" + name
        if fname in self.done:
            return fname
        self.done.add(fname)
        body = "DB_" + name
        sc = Scope(fn=None)
        f = _Fn(self, f"def {body}(eng, v_it):")
        sc.fn = f
        sc.names["it"] = _Binding("v_it", False, f, "card")
        f.emit(f"return {self.x(self.rs.derives[name].expr, sc, f)}")
        self.defs += f.source() + [""]
        kind = self.derive_kinds[name]
        if kind == "dynamic":
            self.defs += [f"{fname} = {body}", ""]
        else:
            # "card": one list per game, entries forgotten when the card's variables change
            # (CompiledEngine.forget); "static": one list per ruleset
            cache = f"eng.dcache[{name!r}]" if kind == "card" else self.k([_MISSING] * len(self.rs.cards))
            if kind == "static":
                self._static_caches[name] = cache
            self.defs += [f"def {fname}(eng, o):",
                          f"    c = {cache}",
                          "    v = c[o.id]",
                          "    if v is _MISSING:",
                          f"        v = c[o.id] = {body}(eng, o)",
                          "    return v", ""]
        return fname

    @staticmethod
    def variant(types) -> str:
        """The name suffix of a function specialised for its arguments' static types."""
        if not types or not any(types):
            return ""
        return "__" + "_".join(t or "x" for t in types)

    def def_fn(self, name, types=()) -> str:
        d = self.rs.defs[name]
        params = list(d.params or ())
        types = tuple(types) if len(types) == len(params) else (None,) * len(params)
        fname = "D_" + name + self.variant(types)
        if fname in self.done:
            return fname
        self.done.add(fname)
        sc = Scope()
        body = "DB_" + name + self.variant(types) if name in self.static_defs else fname
        f = _Fn(self, f"def {body}(eng{''.join(', v_' + p for p in params)}):")
        f.pure = True
        sc.fn = f
        for p, ty in zip(params, types):
            sc.names[p] = _Binding("v_" + p, False, f, ty)
        f.emit(f"return {self.ev_into(f, d.expr, sc)}")
        self.defs += f.source() + [""]
        if name in self.static_defs:
            memo = self.k(self.facts.memo(name))
            self.defs += [f"def {fname}(eng, *args):", f"    return _static_call({memo}, {body}, eng, args)", ""]
        return fname

    def table_fn(self, name) -> str:
        t = self.rs.table_decls[name]
        fname = "T_" + name
        if fname in self.done:
            return fname
        self.done.add(fname)
        sc = Scope()
        f = _Fn(self, f"def {fname}(eng{''.join(', v_' + p for p in t.params)}):")
        sc.fn = f
        for p in t.params:
            sc.names[p] = _Binding("v_" + p, False, f)
        for cond, val in t.rows:
            f.emit(f"if {self.x(cond, sc, f)}:")
            f.emit(f"    return {self.x(val, sc, f)}")
        if t.default is not None:
            f.emit(f"return {self.x(t.default, sc, f)}")
        else:
            f.emit(f"raise eng.fail({self.k(t)}, {'no row of table `' + name + '` holds, and it has no `| else ->` row'!r})")
        self.defs += f.source() + [""]
        return fname

    def x_Call(self, e, sc, fn):
        meaning = call_meaning(self.rs, e.name)
        args = [self.x(a, sc, fn) for a in e.args]
        if meaning is None:
            return f"_unknown(eng, {self.k(e)}, 'function')"
        return getattr(self, "call_" + meaning)(e, args, sc, fn)

    def call_def(self, e, args, sc, fn):
        d = self.rs.defs[e.name]
        if len(args) != len(d.params):
            raise Unsupported(f"`{e.name}` called with {len(args)} arguments")
        inline = self.inline_def(d, e, sc, fn)
        if inline is not None:
            return inline
        types = [self.ty(a, sc) for a in e.args]
        return f"{self.def_fn(e.name, types)}(eng{''.join(', ' + a for a in args)})"

    def call_table(self, e, args, sc, fn):
        t = self.rs.table_decls[e.name]
        if len(args) != len(t.params):
            raise Unsupported(f"`{e.name}` called with {len(args)} arguments")
        return f"{self.table_fn(e.name)}(eng{''.join(', ' + a for a in args)})"

    def call_pattern(self, e, args, sc, fn):
        p = self.rs.patterns[e.name]
        self.pattern(p)
        types = tuple(self.ty(a, sc) for a in e.args)
        if any(types) and len(types) == len(p.params):
            fns = self.pattern(p, types)
            return f"eng.match_compiled({self.k(p)}, {fns}, [{', '.join(args)}])"
        return f"eng.match_pattern({self.k(p)}, [{', '.join(args)}])"

    def call_card_zone(self, e, args, sc, fn):
        if not args:
            raise Unsupported("zone of a card without a card")
        return f"_zone_of_card(eng, {e.name!r}, {args[0]}, {self.k(e.args[0])})"

    def call_player_zone(self, e, args, sc, fn):
        if not args:
            raise Unsupported("zone of a player without a player")
        cache = self.k({})
        if self.ty(e.args[0], sc) == "player":
            return f"({cache}.get({args[0]}.seat) or _zone_of_player(eng, {e.name!r}, {args[0]}, None, {cache}))"
        return f"_zone_of_player(eng, {e.name!r}, {args[0]}, {self.k(e.args[0])}, {cache})"

    def call_builtin(self, e, args, sc, fn):
        name = e.name
        if name == "count" and len(args) == 1:
            count = self.count_of_zone(e.args[0], sc, fn)
            if count is not None:
                return count
        on_list = B.FUNCTIONS[name].on_list
        if on_list is not None and len(args) == 1 and self.ty(e.args[0], sc) in self.LISTY:
            return on_list.format(args[0])
        if name == "count" and len(args) == 1:
            return f"_count(eng, {args[0]}, {self.k(e)})"
        return f"_BUILTIN[{name!r}](eng, {self.k(e)}, [{', '.join(args)}])"

    def count_of_zone(self, arg, sc, fn) -> Optional[str]:
        """`count(hand(p))`, `count(stock)`: the length of the zone's list in the state."""
        if isinstance(arg, A.Call) and call_meaning(self.rs, arg.name) == "player_zone" and len(arg.args) == 1:
            who = self.x(arg.args[0], sc, fn)
            if self.ty(arg.args[0], sc) == "player":
                return f"len(eng.state.zones.get({self.zone_keys(arg.name)}[{who}.seat], ()))"
            return f"_pz_count(eng, {self.zone_keys(arg.name)}, {who}, {self.k(arg.args[0])})"
        if isinstance(arg, A.Name) and self.ty(arg, sc) == "zone":
            return f"len(eng.state.zones.get({arg.id!r}, ()))"
        return None

    def _inlinable(self, e, sc) -> bool:
        """A call of a small def with local variables (not itself being written in place)."""
        d = self.rs.defs.get(e.name)
        if d is None or d.params is None or d.name in self.static_defs or d.name in self._inlining:
            return False
        size = self._sizes.get(d.name)
        if size is None:
            size = self._sizes[d.name] = sum(1 for _ in _walk(d.expr))
        if size > 40 or len(e.args) != len(d.params):
            return False
        for arg in e.args:
            b = sc.find(arg.id) if isinstance(arg, A.Name) else None
            if b is None or b.maybe:
                return False
        return True

    def _inline_scope(self, d, e, sc, fn) -> Scope:
        """A new scope holding just the def's parameters, as the tree walker evaluates a def."""
        inner = Scope()
        inner.fn = fn
        for param, arg in zip(d.params, e.args):
            inner.names[param] = sc.find(arg.id)
        return inner

    def inline_def(self, d, e, sc, fn) -> Optional[str]:
        """A small function called with local variables: its body, written in place."""
        if not self._inlinable(e, sc):
            return None
        inner = self._inline_scope(d, e, sc, fn)
        self._inlining.append(d.name)
        try:
            return self.x(d.expr, inner, fn)
        finally:
            self._inlining.pop()

    def x_ListLit(self, e, sc, fn):
        return "[" + ", ".join(self.x(i, sc, fn) for i in e.items) + "]"

    def x_Comprehension(self, e, sc, fn):
        v = self.fresh("c")
        inner = sc.child()
        inner.names[e.name] = _Binding(v, False, fn, self.elem_ty(self.ty(e.source, sc)))
        src = _no_walrus(self.seq(e.source, sc, fn, lazy=True))
        fn.inloop += 1
        body = self.x(e.expr, inner, fn)
        cond = f" if {self.x(e.cond, inner, fn)}" if e.cond is not None else ""
        fn.inloop -= 1
        return f"[{body} for {v} in {src}{cond}]"

    def x_BinOp(self, e, sc, fn):
        ta, tb = self.ty(e.left, sc), self.ty(e.right, sc)
        if e.op == "+" and ta in self.LISTY | {"zone"} and tb in self.LISTY | {"zone"}:
            return f"({self.seq(e.left, sc, fn)} + {self.seq(e.right, sc, fn)})"
        a, b = self.x(e.left, sc, fn), self.x(e.right, sc, fn)
        if ta == tb == "int" and e.op in ("+", "-", "*"):
            return f"({a} {e.op} {b})"
        if e.op == "+":
            return f"_add(eng, {a}, {b}, {self.k(e)})"
        if e.op == "-":
            return f"_sub(eng, {a}, {b}, {self.k(e)})"
        return f"_arith(eng, {a}, {b}, {self.k(e)})"

    def x_Compare(self, e, sc, fn):
        a, b = self.x(e.left, sc, fn), self.x(e.right, sc, fn)
        op = e.op
        if op in ("=", "!="):
            const = None
            if isinstance(e.right, A.Const) and isinstance(e.right.value, str) or (
                    isinstance(e.right, A.Text) and e.right.constant is not None):
                const = b
            elif isinstance(e.right, A.Name) and e.right.id in self.rs.enum_members and \
                    self.x(e.right, sc, fn) == repr(e.right.id):
                const = b
            if const is not None:  # `x = "text"`: `_eq` is `==` when one side is a text
                return f"({a} {'==' if op == '=' else '!='} {const})"
            if isinstance(e.right, A.Const) and e.right.value is None:
                return f"({a} {'is' if op == '=' else 'is not'} None)"
            ta, tb = self.ty(e.left, sc), self.ty(e.right, sc)
            if "str" in (ta, tb) or ta == tb == "int":
                return f"({a} {'==' if op == '=' else '!='} {b})"
            return f"{'_eqs' if op == '=' else '_ne'}({a}, {b})"
        if self.ty(e.left, sc) == self.ty(e.right, sc) == "int":
            return f"({a} {op} {b})"
        fname = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}[op]
        return f"{fname}(eng, {a}, {b}, {self.k(e)})"

    def x_In(self, e, sc, fn):
        a = self.x(e.left, sc, fn)
        ta, tb = self.ty(e.left, sc), self.ty(e.right, sc)
        if tb == "zone" and isinstance(e.right, A.Name) and ta == "card":
            test = f"(eng.state.where[{a}.id] == {e.right.id!r})"
        elif tb in self.LISTY and ta == "str":
            test = f"({a} in {self.x(e.right, sc, fn)})"
        elif tb in self.LISTY and a.isidentifier():
            b = self.x(e.right, sc, fn)   # (written twice, evaluated once)
            test = f"({a} in {b} if {a}.__class__ is str else _in_list({a}, {b}))"
        elif tb in self.LISTY:
            test = f"_in_list({a}, {self.x(e.right, sc, fn)})"
        else:
            test = f"_in(eng, {a}, {self.x(e.right, sc, fn)}, {self.k(e)})"
        return f"(not {test})" if e.negated else test

    def _bool(self, e, sc, fn):
        src = self.x(e, sc, fn)
        return src if self.ty(e, sc) == "bool" else f"bool({src})"

    def x_And(self, e, sc, fn):
        return f"({self._bool(e.left, sc, fn)} and {self._bool(e.right, sc, fn)})"

    def x_Or(self, e, sc, fn):
        return f"({self._bool(e.left, sc, fn)} or {self._bool(e.right, sc, fn)})"

    def x_Not(self, e, sc, fn):
        return f"(not {self.x(e.operand, sc, fn)})"

    def x_Neg(self, e, sc, fn):
        if self.ty(e.operand, sc) == "int":
            return f"(-{self.x(e.operand, sc, fn)})"
        return f"(-_num({self.x(e.operand, sc, fn)}, {self.k(e.operand)}, eng))"

    def x_IfExpr(self, e, sc, fn):
        then = self.x(e.then, self._narrowed(e, sc), fn)
        return f"({then} if {self.x(e.cond, sc, fn)} else {self.x(e.otherwise, sc, fn)})"

    def _it_scope(self, e, sc, fn):
        v = self.fresh("i")
        inner = sc.child()
        inner.names["it"] = _Binding(v, False, fn, self.elem_ty(self.ty(e.source, sc)))
        return v, inner

    def x_Where(self, e, sc, fn):
        src = _no_walrus(self.seq(e.source, sc, fn, lazy=True))
        v, inner = self._it_scope(e, sc, fn)
        fn.inloop += 1
        cond = self.x(e.cond, inner, fn)
        fn.inloop -= 1
        return f"[{v} for {v} in {src} if {cond}]"

    def x_GroupBy(self, e, sc, fn):
        src = self.seq(e.source, sc, fn, lazy=True)
        v, inner = self._it_scope(e, sc, fn)
        return f"_group_by(eng, {src}, lambda {v}: {self.x(e.key, inner, fn)})"

    def x_SortBy(self, e, sc, fn):
        src = self.seq(e.source, sc, fn)
        v, inner = self._it_scope(e, sc, fn)
        return f"_sort_by(eng, {src}, lambda {v}: {self.x(e.key, inner, fn)}, {self.k(e)})"

    # ------------------------------------------------------------ patterns
    def pattern(self, p: A.Pattern, types=None):
        """Compile a pattern's pieces: each is a function of the pattern's parameters.
        With `types` (of the arguments), a specialised set, named by the module dict returned."""
        suffix = self.variant(types)
        key = p.name + suffix
        if key in self.patterns:
            return "PV_" + key
        names = self.patterns[key] = {}
        params = list(p.params)
        types = types or (None,) * len(params)
        psc = Scope()
        for q, ty in zip(params, types):
            psc.names[q] = _Binding("v_" + q, False, None, ty)
        it_ty = self.elem_ty(self.ty(p.cards, psc))
        extra_ty = {"it": it_ty}

        def piece(key, expr, extra):
            fname = f"PT_{p.name}{suffix}_{key}"
            sc = Scope()
            args = "".join(", v_" + q for q in params) + "".join(", " + v for _, v in extra)
            f = _Fn(self, f"def {fname}(eng{args}):")
            f.pure = True
            sc.fn = f
            for q, ty in zip(params, types):
                sc.names[q] = _Binding("v_" + q, False, f, ty)
            for name, v in extra:
                sc.names[name] = _Binding(v, False, f, extra_ty.get(name) if key in ("labels", "fixed") else None)
            f.emit("try:")
            f.emit(f"    return {self.x(expr, sc, f)}")
            f.emit(f"except _PE as _x: raise _everr(eng, {self.k(expr)}, _x) from None")
            self.defs += f.source() + [""]
            names[key] = fname

        piece("cards", p.cards, [])
        piece("labels", p.labels, [("it", "v_it")])
        if p.fixed is not None:
            piece("fixed", p.fixed, [("it", "v_it")])
        for i, shape in enumerate(p.shapes):
            for j, part in enumerate(shape.parts):
                if part.cond is not None:
                    piece(f"cond_{i}_{j}", part.cond, [("label", "v_label")])
        if p.best is not None:
            piece("best", p.best, [("it", "v_it")])
        self.pattern_scan(p, suffix, params, types, it_ty, names)
        self.defs += [f"PV_{p.name}{suffix} = {{" + ", ".join(f"{k!r}: {v}" for k, v in names.items()) + "}", ""]
        return "PV_" + p.name + suffix

    def pattern_scan(self, p, suffix, params, types, it_ty, names):
        """One function for the first pass of a match: the cards, each card's labels, and how
        many cards carry each label, the labels expression written inline in the loop."""
        fname = f"PT_{p.name}{suffix}_scan"
        f = _Fn(self, f"def {fname}(eng{''.join(', v_' + q for q in params)}):")
        f.pure = True
        sc = Scope(fn=f)
        for q, ty in zip(params, types):
            sc.names[q] = _Binding("v_" + q, False, f, ty)
        cards = self.cards_src(p.cards, sc, f)
        if cards is None:
            cards = f"eng.as_list({self.x(p.cards, sc, f)}, {self.k(p.cards)})"
        f.emit("try:")
        f.emit(f"    _cards = {cards}")
        f.emit(f"except _PE as _x: raise _everr(eng, {self.k(p.cards)}, _x) from None")
        f.emit("_labels = []")
        f.emit("_counts = {}")
        f.emit("_get = _counts.get")
        inner = sc.child()
        inner.names["it"] = _Binding("v_it", False, f, it_ty)
        f.emit("try:")
        f.emit("    for v_it in _cards:")
        f.ind += 2
        f.inloop += 1
        f.emit(f"_labs = {self.ev_into(f, p.labels, inner)}")
        f.inloop -= 1
        f.ind -= 2
        f.emit("        _labels.append(_labs)")   # as given: cleaned only if a shape may fit
        listy = self.ty(p.labels, inner) in self.LISTY   # a list for sure: no test of what it is
        f.ind += 2
        if not listy:
            f.emit("if _labs.__class__ is list:")
            f.ind += 1
        f.emit("for _l in _labs:")
        f.emit("    if _l.__class__ is str:")
        f.emit("        _counts[_l] = _get(_l, 0) + 1")
        f.emit("    elif _l is not None:")
        f.emit("        _l = _hashable(_l)")
        f.emit("        _counts[_l] = _get(_l, 0) + 1")
        if not listy:
            f.ind -= 1
            f.emit("elif _labs is not None:")
            f.emit("    _l = _hashable(_labs)")
            f.emit("    _counts[_l] = _get(_l, 0) + 1")
        f.ind -= 2
        f.emit(f"except _PE as _x: raise _everr(eng, {self.k(p.labels)}, _x) from None")
        # The first cut of the solver's quick rejection (`match_compiled` makes the rest): a
        # shape can fit only if it takes this many cards and some label is on enough of them.
        fits = []
        for shape in p.shapes:
            total = sum(part.size for part in shape.parts)
            need = sorted((part.size for part in shape.parts if not part.any), reverse=True)
            test = f"_n == {total}"
            if need:
                test += f" and _top >= {need[0]} and len(_counts) >= {len(need)}"
            if test not in fits:
                fits.append(test)
        f.emit("_n = len(_cards)")
        f.emit("_top = max(_counts.values()) if _counts else 0")
        f.emit(f"if not ({' or '.join(f'({t})' for t in fits) or 'False'}):")
        f.emit("    return None")
        f.emit("return _cards, _labels, _counts")
        self.defs += f.source() + [""]
        names["scan"] = fname

    # ------------------------------------------------------------ expressions as statements
    # Python 3.11 runs each list comprehension in a frame of its own; where an expression is
    # evaluated by a statement anyway, its comprehensions are written as loops instead. The
    # order of evaluation and the short-circuits stay those of the expression.
    def has_loop(self, e) -> bool:
        key = id(e)
        v = self._loops.get(key)
        if v is None:
            self._loops[key] = False   # a def calling itself: no loop found through the cycle
            v = self._loops[key] = any(
                isinstance(n, (A.Comprehension, A.Where))
                # a def written in place (`inline_def`) brings its loops with it
                or isinstance(n, A.Call) and n.name in self.rs.defs and self.rs.defs[n.name].params is not None
                and self.has_loop(self.rs.defs[n.name].expr)
                for n in _walk(e))
        return v

    def ev_into(self, fn: _Fn, e, sc) -> str:
        """Write statements computing `e` (at fn's indent); a Python expression for its value."""
        if not self.has_loop(e) and not (isinstance(e, A.Call) and self._inlinable(e, sc)):
            return self.x(e, sc, fn)
        if isinstance(e, (A.Comprehension, A.Where)):
            return self.loop_into(fn, e, sc)
        if isinstance(e, A.IfExpr):
            t = self.fresh()
            fn.emit(f"if {self.ev_into(fn, e.cond, sc)}:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e.then, self._narrowed(e, sc))}")
            fn.ind -= 1
            fn.emit("else:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e.otherwise, sc)}")
            fn.ind -= 1
            return t
        if isinstance(e, (A.And, A.Or)):
            t = self.fresh()
            fn.emit(f"{t} = {self._bool_src(self.ev_into(fn, e.left, sc), e.left, sc)}")
            fn.emit(f"if {t}:" if isinstance(e, A.And) else f"if not {t}:")
            fn.ind += 1
            fn.emit(f"{t} = {self._bool_src(self.ev_into(fn, e.right, sc), e.right, sc)}")
            fn.ind -= 1
            return t
        if isinstance(e, A.Not):
            return f"(not {self.ev_into(fn, e.operand, sc)})"
        if isinstance(e, (A.Compare, A.In)) and not self.has_loop(e.right):
            left = self.ev_into(fn, e.left, sc)
            if not left.isidentifier():
                t = self.fresh()
                fn.emit(f"{t} = {left}")
                left = t
            b = _Binding(left, False, fn, self.ty(e.left, sc))
            inner = sc.child()
            inner.names["\0left"] = b
            return self.x(attrs_evolve(e, left=A.Name("\0left")), inner, fn)
        if isinstance(e, A.Call):
            d = self.rs.defs.get(e.name)
            if d is not None and d.params is not None and self._inlinable(e, sc):
                inner = self._inline_scope(d, e, sc, fn)
                self._inlining.append(d.name)
                try:
                    return self.ev_into(fn, d.expr, inner)
                finally:
                    self._inlining.pop()
            if e.name in ("first", "last", "count") and len(e.args) == 1 and e.name not in self.rs.defs \
                    and isinstance(e.args[0], (A.Comprehension, A.Where)):
                items = self.loop_into(fn, e.args[0], sc, count=e.name == "count")
                return items if e.name == "count" else f"_{e.name}({items})"
        return self.x(e, sc, fn)

    def _bool_src(self, src, e, sc):
        return src if self.ty(e, sc) == "bool" else f"bool({src})"

    def loop_into(self, fn: _Fn, e, sc, count=False) -> str:
        """A comprehension or filter as a loop; the name of the list it makes (with `count`,
        of the number of its items)."""
        out, v = self.fresh("r"), self.fresh("c")
        inner = sc.child()
        ty = self.elem_ty(self.ty(e.source, sc))
        inner.names[e.name if isinstance(e, A.Comprehension) else "it"] = _Binding(v, False, fn, ty)
        src = self.seq(e.source, sc, fn, lazy=True)
        fn.emit(f"{out} = 0" if count else f"{out} = []")
        fn.emit(f"for {v} in {src}:")
        start = len(fn.lines)
        fn.ind += 1
        fn.inloop += 1
        cond = e.cond
        if cond is not None:
            fn.emit(f"if {self.ev_into(fn, cond, inner)}:")
            fn.ind += 1
        value = v if isinstance(e, A.Where) else self.ev_into(fn, e.expr, inner)
        if count and value != v and not value.isidentifier():
            fn.emit(value)   # evaluated all the same (it may fail), then counted
        fn.emit(f"{out} += 1" if count else f"{out}.append({value})")
        fn.inloop -= 1
        fn.ind -= 2 if cond is not None else 1
        _by_ids(fn, start, v, src)
        return out

    # ------------------------------------------------------------ statements
    def guard(self, fn: _Fn, e, sc, what="t") -> str:
        """Evaluate `e` into a temporary, with errors pointing at `e` (as `Engine.ev` does)."""
        if self.has_loop(e):
            t = self.fresh(what)
            fn.emit("try:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e, sc)}")
            fn.ind -= 1
            fn.emit(f"except _PE as _x: raise _everr(eng, {self.k(e)}, _x) from None")
            return t
        src = self.x(e, sc, fn)
        if src.isidentifier() or _is_literal(src):
            return src
        t = self.fresh(what)
        fn.emit("try:")
        fn.emit(f"    {t} = {src}")
        fn.emit(f"except _PE as _x: raise _everr(eng, {self.k(e)}, _x) from None")
        return t

    def call(self, fn: _Fn, s, line: str, gen=True):
        """A call into the engine, with errors pointing at statement `s` (as `Engine.run` does)."""
        fn.emit("try:")
        fn.emit(("    yield from " if gen else "    ") + line)
        fn.emit(f"except _PE as _x: raise _runerr(eng, {self.k(s)}, _x) from None")

    def block(self, fn: _Fn, blk, sc: Scope):
        inner = sc.child()
        if blk is None or not blk.stmts:
            fn.emit("pass")
            return
        for s in blk.stmts:
            self.stmt(fn, s, inner)

    def stmt(self, fn: _Fn, s, sc: Scope):
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None or isinstance(s, A.CallStmt) and not self._callable(s):
            self.fallback(fn, s, sc)  # the tree walker's `run` counts the step
            return
        ks = self.k(s)
        fn.emit("st.steps += 1")
        if self.budget:
            fn.emit(f"if st.steps > _lim: raise _toolong(eng, {ks})")
        method(fn, s, sc, ks)

    def _callable(self, s) -> bool:
        proc = self.rs.procedures.get(s.name)
        return proc is not None and len(proc.params) == len(s.args)

    def assign(self, fn: _Fn, sc: Scope, name: str, value: str):
        """Assign a local CGL name (which is bound)."""
        b = sc.find(name)
        if b.fn is not fn:
            fn.nonlocals.add(b.var)
        fn.emit(f"{b.var} = {value}")

    def fallback(self, fn: _Fn, s, sc: Scope):
        """Run one statement on the tree walker, with the locals handed over and back."""
        flat = sc.flat()
        env = self.fresh("env")
        items = ", ".join(f"{k!r}: {b.var}" for k, b in flat.items())
        fn.emit(f"{env} = _mkenv({{{items}}})")
        fn.emit(f"yield from eng.run({self.k(s)}, {env})")
        assigned = {n.target.id for n in _walk(s) if isinstance(n, A.Set) and isinstance(n.target, A.Name)}
        for name in sorted(assigned & set(flat)):
            self.assign(fn, sc, name, f"{env}.vars.get({name!r}, _MISSING)" if flat[name].maybe
                        else f"{env}.vars[{name!r}]")

    def s_Pass(self, fn, s, sc, ks):
        pass

    def s_Let(self, fn, s, sc, ks):
        v = self.guard(fn, s.value, sc)
        b = sc.names.get(s.name)
        if b is None:
            b = sc.names[s.name] = _Binding(self.fresh("v_" + s.name + "_"), False, fn)
        fn.emit(f"{b.var} = {v}")

    def s_Set(self, fn, s, sc, ks):
        v = self.guard(fn, s.value, sc)
        t = s.target
        if isinstance(t, A.Name):
            b = sc.find(t.id)
            if b is not None and not b.maybe:
                if s.op == "=":
                    self.assign(fn, sc, t.id, v)
                else:
                    new = self.fresh()
                    fn.emit(f"{new} = _apply({s.op!r}, {b.var}, {v}, {ks}, eng)")
                    self.assign(fn, sc, t.id, new)
                return
            if b is not None or t.id not in self.rs.vars or self.rs.vars[t.id].scope != "global":
                self.fallback_set(fn, s, sc)
                return
            g = f"st.globals[{t.id!r}]"
            fn.emit(f"{g} = {v}" if s.op == "=" else f"{g} = _apply({s.op!r}, {g}, {v}, {ks}, eng)")
            return
        o = self.guard(fn, t.obj, sc)
        name = t.name
        general = f"eng.s_set_attr({ks}, {o}, {v})"
        if name in self.card_vars or name in self.player_vars:
            # a card's or player's variable, set in place (what `s_set_attr` does)
            oty = self.ty(t.obj, sc)
            if name in self.card_vars:
                sure = oty == "card"
                if not sure:
                    fn.emit(f"if {o}.__class__ is Card:")
                store = f"st.card_vars[{o}.id]"
            else:
                sure = oty == "player"
                if not sure:
                    fn.emit(f"if {o}.__class__ is Player:")
                store = f"st.player_vars[{o}.seat]"
            fn.ind += not sure
            new = v if s.op == "=" else f"_apply({s.op!r}, {store}[{name!r}], {v}, {ks}, eng)"
            reading = self.facts.derives_reading.get(name, ())
            if reading:
                old_v = self.fresh("old")
                fn.emit(f"{old_v} = {store}[{name!r}]")
            self.call(fn, s, f"{store}[{name!r}] = {new}", gen=False)
            if reading:
                # forget the cached derived properties that read this variable, unless it
                # holds the very same value as before
                fn.emit(f"if {store}[{name!r}] is not {old_v}:")
                for d in reading:
                    fn.emit(f"    eng.dcache[{d!r}][{o}.id] = _MISSING")
            if sure:
                return
            fn.ind -= 1
            fn.emit("else:")
            fn.ind += 1
            self.call(fn, s, general, gen=False)
            fn.ind -= 1
            return
        self.call(fn, s, general, gen=False)

    def fallback_set(self, fn, s, sc):
        raise Unsupported("`set` of a name that may or may not be local")

    def s_If(self, fn, s, sc, ks):
        depth = 0
        for cond, body in s.branches:
            c = self.guard(fn, cond, sc)
            fn.emit(f"if {c}:")
            fn.ind += 1
            self.block(fn, body, sc)
            fn.ind -= 1
            fn.emit("else:")
            fn.ind += 1
            depth += 1
        self.block(fn, s.otherwise, sc)
        fn.ind -= depth

    def s_For(self, fn, s, sc, ks):
        src = self.guard(fn, s.source, sc)
        items = self.fresh()
        src_ty = self.ty(s.source, sc)
        if src_ty in self.LISTY:
            self.call(fn, s, f"{items} = list({src})", gen=False)
        else:
            self.call(fn, s, f"{items} = list(_aslist(eng, {src}, {self.k(s.source)}))", gen=False)
        inner = sc.child()
        v = self.fresh("v_" + s.name + "_")
        fn.loop += 1
        # the loop variable has its items' type unless the body sets it to something else
        set_in_body = any(isinstance(n, A.Set) and isinstance(n.target, A.Name) and n.target.id == s.name
                          for n in _walk(s.body))
        inner.names[s.name] = _Binding(v, False, fn, None if set_in_body else self.elem_ty(src_ty))
        fn.loop -= 1
        fn.emit(f"for {v} in {items}:")
        self.loop_body(fn, s.body, inner)

    def loop_body(self, fn, body, sc):
        """The body of a loop: indented, its bindings marked as new each time round."""
        fn.ind += 1
        fn.loop += 1
        self.block(fn, body, sc)
        fn.loop -= 1
        fn.ind -= 1

    def s_Repeat(self, fn, s, sc, ks):
        c = self.guard(fn, s.count, sc)
        n = self.fresh()
        self.call(fn, s, f"{n} = _num({c}, {self.k(s.count)}, eng)", gen=False)
        fn.emit(f"if {n} > MAX_LOOP: raise eng.fail({ks}, f'`repeat {{{n}}}` is more than {{MAX_LOOP}} times', code='E011')")
        fn.emit(f"for _ in range({n}):")
        self.loop_body(fn, s.body, sc)

    def s_While(self, fn, s, sc, ks):
        n = self.fresh()
        fn.emit(f"{n} = 0")
        fn.emit("while True:")
        fn.ind += 1
        c = self.guard(fn, s.cond, sc)
        fn.emit(f"if not {c}: break")
        fn.emit(f"{n} += 1")
        fn.emit(f"if {n} > MAX_LOOP: raise eng.fail({ks}, f'this `while` ran {{MAX_LOOP}} times without its "
                "condition turning false', code='E011')")
        fn.ind -= 1
        self.loop_body(fn, s.body, sc)

    def s_End(self, fn, s, sc, ks):
        fn.emit(f"raise _EndScope({s.scope!r})")

    def s_Move(self, fn, s, sc, ks):
        a = self.guard(fn, s.cards, sc)
        b = self.guard(fn, s.dest, sc)
        self.call(fn, s, f"eng.s_move({ks}, {a}, {b})")

    def s_Draw(self, fn, s, sc, ks):
        n = self.guard(fn, s.count, sc)
        src = self.guard(fn, s.source, sc) if s.source else "None"
        dest = self.guard(fn, s.dest, sc) if s.dest else "None"
        if n == "1" and src == "None":  # the commonest draw: see CompiledEngine.s_draw1
            self.run_moved(fn, s, f"eng.s_draw1({ks}, {dest})")
        else:
            self.call(fn, s, f"eng.s_draw({ks}, {n}, {src}, {dest})")

    def run_moved(self, fn, s, line):
        """Call a one-card move that runs at once (`s_draw1`, `s_discard1`), then what waits
        for it, if anything, with errors pointing at statement `s`."""
        g = self.fresh("g")
        fn.emit("try:")
        fn.emit(f"    {g} = {line}")
        fn.emit(f"    if {g} is not None: yield from {g}")
        fn.emit(f"except _PE as _x: raise _runerr(eng, {self.k(s)}, _x) from None")

    def s_Deal(self, fn, s, sc, ks):
        n = self.guard(fn, s.count, sc)
        src = self.guard(fn, s.source, sc) if s.source else "None"
        self.call(fn, s, f"eng.s_deal({ks}, {n}, {src})")

    def s_Discard(self, fn, s, sc, ks):
        a = self.guard(fn, s.cards, sc)
        if s.dest is None:
            self.run_moved(fn, s, f"eng.s_discard1({ks}, {a})")
        else:
            self.call(fn, s, f"eng.s_discard({ks}, {a}, {self.guard(fn, s.dest, sc)})")

    def s_Shuffle(self, fn, s, sc, ks):
        z = self.guard(fn, s.zone, sc)
        self.call(fn, s, f"eng.s_shuffle({ks}, {z})")

    def s_Reveal(self, fn, s, sc, ks):
        w = self.guard(fn, s.what, sc)
        cards = self.fresh()
        self.call(fn, s, f"{cards} = eng.cards_of({w}, {self.k(s.what)})", gen=False)
        to = self.guard(fn, s.to, sc) if s.to is not None else "None"
        self.call(fn, s, f"eng.s_reveal({ks}, {cards}, {to})")

    def s_Say(self, fn, s, sc, ks):
        text = self.guard(fn, s.text, sc)
        to = self.guard(fn, s.to, sc) if s.to is not None else "None"
        self.call(fn, s, f"eng.s_say({ks}, {text}, {to})")

    def s_Win(self, fn, s, sc, ks):
        w = self.guard(fn, s.who, sc)
        self.call(fn, s, f"eng.s_win({ks}, {w})")

    def s_Lose(self, fn, s, sc, ks):
        w = self.guard(fn, s.who, sc)
        self.call(fn, s, f"eng.s_lose({ks}, {w})")

    def s_Give(self, fn, s, sc, ks):
        w = self.guard(fn, s.player, sc)
        self.call(fn, s, f"eng.s_give({ks}, {w})", gen=False)

    def s_Emit(self, fn, s, sc, ks):
        vals = [(k, self.guard(fn, v, sc)) for k, v in s.fields]
        d = "{" + ", ".join(f"{k!r}: {v}" for k, v in vals) + "}"
        self.call(fn, s, f"eng.s_emit({ks}, {d})")

    def s_CallStmt(self, fn, s, sc, ks):
        proc = self.rs.procedures[s.name]
        args = [self.guard(fn, a, sc) for a in s.args]
        pname = self.procedure(proc, [self.ty(a, sc) for a in s.args])
        self.call(fn, s, f"{pname}(eng{''.join(', ' + a for a in args)})")

    def s_Act(self, fn, s, sc, ks):
        """`act by p`: the actions compiled on their own (see `action_pieces`), unless this
        place has a local variable that an action's rules read (the tree walker lets an
        action see the locals where `act` runs): then the tree walker runs it."""
        flat = sc.flat()
        if set(flat) & self.action_names():
            self.fallback(fn, s, sc)
            return
        by = self.guard(fn, s.by, sc)
        env_fn = "lambda: _mkenv({" + ", ".join(f"{k!r}: {b.var}" for k, b in flat.items()) + "})"
        self.call(fn, s, f"eng.s_act({ks}, {by}, {env_fn})")

    def action_names(self) -> set:
        """Every name the actions' rules mention (other than their own parameter and `actor`)."""
        if not hasattr(self, "_action_names"):
            names = set()
            for a in self.rs.actions:
                names |= {n.id for n in _walk(a) if isinstance(n, A.Name)} - {a.param, "actor", "it"}
            self._action_names = names
        return self._action_names

    def action_pieces(self, a: A.Action) -> dict:
        """An action's domain, condition, label, preference and body as functions of the
        actor (and the value of its parameter)."""
        out = {}
        dom_ty = None
        if a.domain is not None:
            dsc = Scope()
            dsc.names["actor"] = _Binding("e_actor", False, None, "player")
            dom_ty = self.elem_ty(self.ty(a.domain, dsc))
        for key in ("domain", "when", "label", "prefer", "body"):
            node = getattr(a, key)
            if node is None:
                out[key] = None
                continue
            fname = self.fresh("AC")
            args = "eng, e_actor" if key == "domain" else "eng, e_actor, e_value"
            f = _Fn(self, f"def {fname}({args}):")
            sc = Scope(fn=f)
            sc.names["actor"] = _Binding("e_actor", False, f, "player")
            if key != "domain" and a.param:
                sc.names[a.param] = _Binding("e_value", False, f, dom_ty)
                if key == "prefer":
                    sc.names["it"] = _Binding("e_value", False, f, dom_ty)
            if key == "body":
                f.emit("st = eng.state")
                if self.budget:
                    f.emit("_lim = eng.step_limit")
                f.emit("if 0: yield")
                self.block(f, node, sc)
            else:
                f.emit("try:")
                f.emit(f"    return {self.x(node, sc, f)}")
                f.emit(f"except _PE as _x: raise _everr(eng, {self.k(node)}, _x) from None")
            self.defs += f.source() + [""]
            out[key] = fname
        return out

    def s_May(self, fn, s, sc, ks):
        if s.by is not None:
            by = self.guard(fn, s.by, sc)
            seat = self.fresh()
            self.call(fn, s, f"{seat} = _seat_of(eng, {by}, {self.k(s.by)})", gen=False)
        else:
            b = sc.find("player")
            if b is None:
                seat = "st.current"
            else:
                seat = self.fresh()
                pv = b.var if not b.maybe else f"({b.var} if {b.var} is not _MISSING else None)"
                fn.emit(f"{seat} = _asker_seat(eng, {pv})")
        prompt = self.guard(fn, s.prompt, sc) if s.prompt else repr("Do it?")
        yes = self.fresh()
        self.call(fn, s, f"{yes} = yield from eng.ask_yes_no({seat}, {prompt}, {self.k(s.span)})", gen=False)
        fn.emit(f"if {yes}:")
        fn.ind += 1
        self.block(fn, s.body, sc)
        fn.ind -= 1
        if s.otherwise is not None:
            fn.emit("else:")
            fn.ind += 1
            self.block(fn, s.otherwise, sc)
            fn.ind -= 1

    def s_Choose(self, fn, s, sc, ks):
        opts = self.fresh("o")
        cards = None if s.tag else self.cards_src(s.domain, sc, fn, lazy=True)
        if cards is not None:  # the cards of a zone, no rule to ask: `c_options` is `list(…)`
            fn.emit("try:")
            fn.emit(f"    {opts} = list({cards})")
            fn.emit(f"except _PE as _x: raise _everr(eng, {self.k(s.domain)}, _x) from None")
        else:
            dom = self.guard(fn, s.domain, sc)
            env_fn = "None"
            if s.tag:
                flat = sc.flat()
                env_fn = "lambda: _mkenv({" + ", ".join(f"{k!r}: {b.var}" for k, b in flat.items()) + "})"
            self.call(fn, s, f"{opts} = eng.c_options({ks}, {dom}, {env_fn})", gen=False)
        if s.by and self.ty(s.by, sc) == "player":
            chooser = self.guard(fn, s.by, sc)
        elif s.by:
            by = self.guard(fn, s.by, sc)
            chooser = self.fresh()
            self.call(fn, s, f"{chooser} = eng.as_player({by}, {self.k(s.by)})", gen=False)
        else:
            chooser = "eng.players[st.current]"
        prompt = "None"
        if isinstance(s.prompt, A.Text) and s.prompt.constant is not None:
            prompt = repr(s.prompt.constant)   # `c_decide` takes a text as it is
        elif s.prompt:
            pf = self.fresh("p")
            f2 = _Fn(self, f"def {pf}():", fn.ind)
            f2.parent = fn
            f2.emit("try:")
            f2.emit(f"    return {self.x(s.prompt, sc, f2)}")
            f2.emit(f"except _PE as _x: raise _everr(eng, {self.k(s.prompt)}, _x) from None")
            fn.lines += f2.source()
            prompt = pf
        scores = "None"
        if s.prefer is not None:
            sf = self.fresh("s")
            f2 = _Fn(self, f"def {sf}(_opts):", fn.ind)
            f2.parent = fn
            v = self.fresh("v_" + s.name + "_")
            inner = sc.child()
            inner.names[s.name] = _Binding(v, False, f2)
            inner.names["it"] = _Binding(v, False, f2)
            f2.emit("try:")
            f2.emit(f"    return [{self.x(s.prefer, inner, f2)} for {v} in _opts]")
            f2.emit(f"except _PE as _x: raise _everr(eng, {self.k(s.prefer)}, _x) from None")
            fn.lines += f2.source()
            scores = sf
        val = self.fresh("c")
        self.call(fn, s, f"{val} = yield from eng.c_decide({ks}, {opts}, {chooser}, {prompt}, {scores})", gen=False)
        fn.emit(f"if {val} is OTHERWISE:")
        fn.ind += 1
        self.block(fn, s.otherwise, sc)
        fn.ind -= 1
        if self.simultaneous:
            fn.emit("elif eng.deferred is not None:")
            fn.ind += 1
            df = self.fresh("d")
            v = self.fresh("v_" + s.name + "_")
            f2 = _Fn(self, f"def {df}({v}={val}):", fn.ind)
            f2.parent = fn
            f2.emit("if 0: yield")
            inner = sc.child()
            inner.names[s.name] = _Binding(v, False, f2)
            self.block(f2, s.body, inner)
            # values of this time round the loop are taken now (default arguments)
            captured = sorted(f2.captures - f2.nonlocals)
            f2.header = f"def {df}({v}={val}{''.join(f', {c}={c}' for c in captured)}):"
            fn.lines += f2.source()
            fn.emit(f"eng.deferred.append({df})")
            fn.ind -= 1
        fn.emit("else:")
        fn.ind += 1
        inner = sc.child()
        v = self.fresh("v_" + s.name + "_")
        inner.names[s.name] = _Binding(v, False, fn)
        fn.emit(f"{v} = {val}")
        self.block(fn, s.body, inner)
        fn.ind -= 1

    def s_Simultaneously(self, fn, s, sc, ks):
        mark, outer, waiting = self.fresh(), self.fresh(), self.fresh()
        fn.emit(f"{mark} = len(st.log)")
        fn.emit("eng.secret_depth += 1")
        fn.emit(f"{outer} = eng.deferred")
        fn.emit("eng.deferred = []")
        fn.emit("try:")
        fn.ind += 1
        self.block(fn, s.body, sc)
        fn.emit(f"{waiting} = eng.deferred")
        fn.ind -= 1
        fn.emit("finally:")
        fn.emit(f"    eng.deferred = {outer}")
        fn.emit("    eng.secret_depth -= 1")
        self.call(fn, s, f"eng.s_simul_end({mark}, {waiting})")

    # ------------------------------------------------------------ bodies
    def procedure(self, proc: A.Procedure, types=()) -> str:
        types = tuple(types) if len(types) == len(proc.params) else (None,) * len(proc.params)
        fname = "P_" + proc.name + self.variant(types)
        if fname in self.done:
            return fname
        self.done.add(fname)
        f = _Fn(self, f"def {fname}(eng{''.join(', v_' + p for p in proc.params)}):")
        sc = Scope(fn=f)
        for p, ty in zip(proc.params, types):
            sc.names[p] = _Binding("v_" + p, False, f, ty)
        f.emit("st = eng.state")
        if self.budget:
            f.emit("_lim = eng.step_limit")
        f.emit("if 0: yield")
        self.block(f, proc.body, sc)
        self.defs += f.source() + [""]
        if any(types):
            return fname
        # the entry the engine uses (`run_block(body, Env(params))`)
        entry = "B_" + proc.name
        self.defs += [f"def {entry}(eng, env):",
                      f"    return {fname}(eng{''.join(f', _entry(env, {p!r})' for p in proc.params)})", ""]
        self.blocks[id(proc.body)] = entry
        return fname

    def body(self, blk, sure=(), maybe=()) -> str:
        """Compile a block the engine runs with `run_block(blk, env)`; `sure` names are always
        in `env`, `maybe` names sometimes."""
        if blk is None:
            return None
        fname = self.fresh("B")
        f = _Fn(self, f"def {fname}(eng, env):")
        sc = Scope(fn=f)
        f.emit("st = eng.state")
        if self.budget:
            f.emit("_lim = eng.step_limit")
        f.emit("if 0: yield")
        self.env_entry(f, sc, sure, maybe)
        self.block(f, blk, sc)
        self.defs += f.source() + [""]
        self.blocks[id(blk)] = fname
        return fname

    def env_entry(self, f, sc, sure, maybe):
        for name in list(sure) + [m for m in maybe if m not in sure]:
            v = "e_" + name
            sc.names[name] = _Binding(v, name not in sure, f)
            f.emit(f"{v} = _entry(env, {name!r})")

    def entry_expr(self, e, sure=(), maybe=()) -> Optional[str]:
        """Compile an expression the engine evaluates with `ev(e, env)`."""
        if e is None:
            return None
        fname = self.fresh("X")
        f = _Fn(self, f"def {fname}(eng, env):")
        sc = Scope(fn=f)
        self.env_entry(f, sc, sure, maybe)
        f.emit(f"return {self.x(e, sc, f)}")
        self.defs += f.source() + [""]
        self.exprs[id(e)] = fname
        return fname

    # Triggers and reactions: their pieces take the event itself (and the responder), and
    # bind what the tree walker's event environment binds: event, card, player, it, and
    # the fields of a custom event (which may rename any of them).
    def event_entry(self, f, sc, custom, fields, responder, kind_of_event=None):
        names = ("event", "card", "player", "it")
        if custom:
            f.emit("_F = ev.fields")
        defaults = {"event": "ev", "card": "ev.card", "player": "ev.player", "it": "ev.card"}
        card_event = not custom and kind_of_event in _CARD_EVENTS
        tys = {"event": "event", "card": "card" if card_event else None, "it": "card" if card_event else None,
               "player": "player" if not custom else None}
        for name in names:
            sc.names[name] = _Binding("e_" + name, False, f, tys[name])
            d = defaults[name]
            f.emit(f"e_{name} = _F[{name!r}] if {name!r} in _F else {d}" if custom and name in fields
                   else f"e_{name} = {d}")
        for name in fields if custom else ():
            if name not in names and name != "responder":
                sc.names[name] = _Binding("e_" + name, True, f)
                f.emit(f"e_{name} = _F.get({name!r}, _MISSING)")
        if responder:
            sc.names["responder"] = _Binding("e_responder", False, f, "player" if responder == "player" else None)

    def event_fn(self, kind, node, custom, fields, responder=False, env_adapter=True, event=None) -> Optional[str]:
        """A trigger's or reaction's condition, prompt or body as a function of the event."""
        if node is None:
            return None
        fname = self.fresh("E")
        args = "eng, ev, e_responder" if responder else "eng, ev"
        f = _Fn(self, f"def {fname}({args}):")
        f.pure = kind != "body"
        sc = Scope(fn=f)
        if kind == "body":
            f.emit("st = eng.state")
            if self.budget:
                f.emit("_lim = eng.step_limit")
            f.emit("if 0: yield")
        self.event_entry(f, sc, custom, fields, responder, event)
        entries = len(f.lines)
        if kind == "body":
            self.block(f, node, sc)
        else:  # errors point at the expression, as `Engine.ev` has them
            f.emit("try:")
            f.ind += 1
            f.emit(f"return {self.ev_into(f, node, sc)}")
            f.ind -= 1
            f.emit(f"except _PE as _x: raise _everr(eng, {self.k(node)}, _x) from None")
        _drop_unused(f, entries)
        src = f.source()
        self.defs += src + [""]
        if kind != "body":
            self.runner_src[fname] = _body_for_runner(src)
        if env_adapter:  # for the engine's `run_block(body, env)` / `ev(expr, env)`
            adapter = self.fresh("A")
            extra = ", _entry(env, 'responder')" if responder else ""
            self.defs += [f"def {adapter}(eng, env):", f"    return {fname}(eng, _entry(env, 'event'){extra})", ""]
            (self.blocks if kind == "body" else self.exprs)[id(node)] = adapter
        return fname

    def generate(self) -> str:
        rs = self.rs
        fields = set(self.facts.emitted_fields)
        for blk in [rs.setup.body if rs.setup else None,
                    rs.match.start if rs.match else None, rs.match.end if rs.match else None,
                    rs.round.start if rs.round else None, rs.round.end if rs.round else None,
                    rs.turn.start if rs.turn else None, rs.turn.end if rs.turn else None]:
            self.body(blk)
        if rs.turn:
            for ph in rs.turn.phases:
                self.body(ph.body)
        for e in [rs.match.rounds if rs.match else None, rs.round.first if rs.round else None,
                  rs.round.until if rs.round else None, rs.turn.order if rs.turn else None]:
            self.entry_expr(e)
        for tr in rs.triggers:
            custom = tr.event.kind == "custom" and not tr.instead
            self.triggers[id(tr)] = {k: self.event_fn("body" if k == "body" else "expr", getattr(tr, k), custom, fields,
                                                      event=tr.event.kind)
                                     for k in ("cond", "prompt", "ask_by", "body")}
        for r in rs.reactions:
            custom = r.event.kind == "custom"
            pieces = {k: self.event_fn("expr", getattr(r, k), custom, fields, event=r.event.kind)
                      for k in ("cond", "responders")}
            # responders are players when the engine picks them, or when the rules say so
            resp = True
            if r.responders is None:
                resp = "player"
            else:
                rsc = Scope()
                self.event_entry(_Fn(self, ""), rsc, custom, fields, False, r.event.kind)
                if self.ty(r.responders, rsc) == "players":
                    resp = "player"
            pieces.update({k: self.event_fn("body" if k == "body" else "expr", getattr(r, k), custom, fields, resp,
                                            event=r.event.kind)
                           for k in ("eligible", "ask", "body")})
            self.reactions[id(r)] = pieces
        for a in rs.actions:
            self.actions[id(a)] = self.action_pieces(a)
        for proc in rs.procedures.values():
            self.procedure(proc)
        for name in rs.derives:
            self.derive_fn(name)
        for p in rs.patterns.values():
            self.pattern(p)
        return "\n".join(self.defs) + "\n"


_ZONE_MAP = re.compile(r"map\(eng\.cards\.__getitem__, (reversed\(.*\))\)")


def _by_ids(fn: _Fn, start: int, v: str, src: str):
    """A loop over a zone's cards (`for v in map(eng.cards.__getitem__, reversed(ids))`,
    its body the lines from `start`) that reads nothing of a card but its id and its
    derived properties is made a loop over the ids: no card fetched for each."""
    m = _ZONE_MAP.fullmatch(src)
    if m is None:
        return
    body = "\n".join(fn.lines[start:])
    uses = len(re.findall(rf"\b{v}\b", body))
    ids = len(re.findall(rf"\b{v}\.id\b", body))
    derived = len(re.findall(rf"\bDV_\w+\(eng, {v}\)", body))
    if uses == 0 or uses != ids + derived:
        return
    i = "_i" + v[2:]
    fn.lines[start - 1] = fn.lines[start - 1].replace(f"for {v} in {src}:", f"for {i} in {m.group(1)}:")
    for n in range(start, len(fn.lines)):
        line = re.sub(rf"\b{v}\.id\b", i, fn.lines[n])
        fn.lines[n] = re.sub(rf"\b(DV_\w+)\(eng, {v}\)", rf"\1(eng, eng.cards[{i}])", line)


def _drop_unused(f: _Fn, entries: int):
    """Leave out the entry lines (`e_card = ev.card`, …) of names the function never reads."""
    import re
    head, body = f.lines[:entries], f.lines[entries:]
    text = "\n".join(body)
    kept = []
    for line in reversed(head):
        var = line.strip().split(" = ", 1)[0]
        if var.isidentifier() and var not in ("st",) and not re.search(rf"\b{var}\b", text):
            continue
        kept.append(line)
        text += "\n" + line
    f.lines = list(reversed(kept)) + body


_LITERAL = __import__("re").compile(r"-?\d+|'[^'\\]*'|\"[^\"\\]*\"|None|True|False")


_WALRUS = re.compile(r"\((_w\d+) if \(\1 := ([\w.]+\[[\w.]+\])\) is not _MISSING else ")


def _no_walrus(src: str) -> str:
    """A cached property read without `:=`, which Python forbids in a comprehension's iterable."""
    return _WALRUS.sub(lambda m: f"({m.group(2)} if {m.group(2)} is not _MISSING else ", src)


def _is_literal(src: str) -> bool:
    """A number, a plain text, none, true or false: nothing to evaluate, nothing to fail."""
    return _LITERAL.fullmatch(src) is not None


_CODE: dict = {}    # (path, generated source) -> code object, for this process


class Compiled:
    """The generated module of a ruleset."""

    def __init__(self, rs, budget: bool = False):
        gen = CodeGen(rs, budget)
        self.budget = budget
        self.source = gen.generate()
        ns = dict(RUNTIME)
        ns.update(gen.consts)
        key = (rs.path, self.source)
        code = _CODE.get(key)
        if code is None:  # the same rules loaded again make the same source: compiled once
            if len(_CODE) >= 64:
                _CODE.clear()
            code = _CODE[key] = compile(self.source, f"<cgl compiled {os.path.basename(rs.path)}>", "exec")
        exec(code, ns)
        self.ns = ns
        self.blocks = {k: ns[v] for k, v in gen.blocks.items()}
        self.exprs = {k: ns[v] for k, v in gen.exprs.items()}
        self.derives = {name: ns["DV_" + name] for name in rs.derives}
        self.patterns = {name: {k: ns[v] for k, v in d.items()} for name, d in gen.patterns.items() if name in rs.patterns}
        self.triggers = {k: _Pieces(d, ns, gen.runner_src) for k, d in gen.triggers.items()}
        self.shape_needs: dict = {}
        self.dispatch: dict = {}        # see CompiledEngine._handlers
        self.reactions = {k: _Pieces(d, ns, gen.runner_src) for k, d in gen.reactions.items()}
        self.actions = {k: _Pieces(d, ns) for k, d in gen.actions.items()}


class _Pieces:
    """The compiled pieces of one trigger or reaction (None where it has none)."""

    __slots__ = ("cond", "prompt", "ask_by", "body", "responders", "eligible", "ask", "domain", "when", "label",
                 "prefer", "cond_src", "eligible_src")

    def __init__(self, names: dict, ns: dict, inline: Optional[dict] = None):
        for k in self.__slots__[:-2]:
            setattr(self, k, ns[names[k]] if names.get(k) else None)
        # the condition's (eligibility's) body, for a runner to write in place of a call (None: call it)
        self.cond_src = inline.get(names.get("cond")) if inline else None
        self.eligible_src = inline.get(names.get("eligible")) if inline else None


def compiled_for(rs, budget: bool = False) -> Optional[Compiled]:
    """The compiled module of a ruleset (made once), or None when it cannot be compiled.
    With `budget`, the module whose statements check a step budget (made when a game sets
    `max_steps`; simulations run without one, and so without the check).
    Only `Unsupported` (a known gap of the generator) falls back to the tree walker, and the
    reason is kept (`cgl info` shows it); with CGL_STRICT_COMPILE=1 in the environment (the
    tests set it) it is raised instead. Any other exception is a bug in cgl and propagates."""
    f = facts(rs)
    strict = os.environ.get("CGL_STRICT_COMPILE", "") == "1"
    if budget not in f.compiled:
        try:
            f.compiled[budget] = Compiled(rs, budget)
        except Unsupported as x:
            if strict:
                raise Unsupported(f"{rs.path}: the generator cannot compile this ruleset ({x}), and "
                                  "CGL_STRICT_COMPILE=1 forbids playing it on the tree walker instead") from x
            f.compiled[budget], f.compiled_why = None, str(x)
    cx = f.compiled[budget]
    if cx is None and strict:   # a fall back decided before the variable was set
        raise Unsupported(f"{rs.path}: the generator cannot compile this ruleset ({f.compiled_why}), and "
                          "CGL_STRICT_COMPILE=1 forbids playing it on the tree walker instead")
    return cx


# ---------------------------------------------------------------- the engine

class CompiledEngine(Engine):
    """The engine with the ruleset's bodies and expressions compiled (see the module doc)."""

    def __init__(self, rs, players: int, seed: int, check_invariants: bool = False, compiled=None):
        self.cx = compiled or compiled_for(rs)
        self.step_limit = NO_LIMIT
        super().__init__(rs, players, seed, check_invariants)
        self.dcache = {name: [_MISSING] * len(self.cards) for name in self.card_derives}
        self._use(self.cx)
        self._forbidden = {r.forbid for r in rs.rules}
        # the zones of the roles `draw 1` and `discard c` use, found once (see s_draw1)
        self._deck = self._pile = None
        self._hands = [None] * self.n

    def forget(self, card, derives) -> None:
        for name in derives:
            self.dcache[name][card.id] = _MISSING

    # ------------------------------------------------------------ events
    def _handlers(self, ev: Event):
        """The triggers and reactions waiting for this kind of event, each with its compiled
        pieces; remembered per (kind, name, from, to, phase), which is all `_matching` reads."""
        src, dest = ev.source, ev.dest
        key = (ev.kind, ev.name, None if src is None else src.name, None if dest is None else dest.name, ev.phase)
        hit = self._dispatch.get(key, _MISSING)
        if hit is _MISSING:
            triggers = [(tr, self.cx.triggers[id(tr)]) for tr in self._matching(self._triggers_by_kind, ev)]
            reactions = [(r, self.cx.reactions[id(r)]) for r in self._matching(self._reactions_by_kind, ev)]
            what = f" {ev.kind} {key[2]}>{key[3]}"   # its name in tracebacks and profiles
            hit = self._dispatch[key] = (_runner(triggers, reactions, self.cx.ns, what) if triggers or reactions
                                              else None)
        return hit

    def _moved(self, ev: Event, position: str, stat: Optional[str] = None):
        """`Engine._moved` (place the card, count it, `event_begin`) with `event_begin` and
        the dispatch written in: a card event is the commonest thing a game does."""
        st = self.state
        card, dest = ev.card, ev.dest
        self._place(card, dest, position)
        if stat is not None:
            stats = st.stats
            key = stat + card.name
            stats[key] = stats.get(key, 0) + 1
        phase = ev.phase
        if phase is None:
            phase = ev.phase = st.phase  # the phase it happened in
        if self.record or self.listeners:
            self._log_card_event(ev)
        if self.check:
            self.check_card(ev)
        src = ev.source
        hit = self._dispatch.get((ev.kind, ev.name, None if src is None else src.name, dest.name, phase), _MISSING)
        return self._handlers(ev) if hit is _MISSING else hit

    # The commonest moves, `draw 1` and `discard c` (one card, to the discard zone), as
    # plain calls: the card moves at once, and what waits for the event is returned, as a
    # generator to run (None: nothing does). Anything else goes the general way, unstarted.
    def s_draw1(self, s, dest):
        """`s_draw(s, 1, None, dest)`."""
        if self._instead_by_kind:
            return self.s_draw(s, 1, None, dest)
        st = self.state
        src = self._deck or self._default_zone("deck", s)
        ids = st.zones.get(src.key)
        if not ids:
            return self.s_draw(s, 1, None, dest)  # the stock is empty: logged there
        self._deck = src
        if s.dest:
            dest = self.as_zone(dest, s.dest)
        else:
            dest = self._hands[st.current] or self._default_zone("hand", s, st.current)
            self._hands[st.current] = dest
        ev = Event("draw", None, self.cards[ids[-1]], self.players[st.current if dest.owner is None else dest.owner],
                   src, dest)
        hit = self._moved(ev, "top", "card drawn:")
        return None if hit is None else hit(self, ev)

    def s_discard1(self, s, card):
        """`s_discard(s, card, None)`."""
        if card.__class__ is not Card or self._instead_by_kind:
            return self.s_discard(s, card, None)
        src = self._zone_refs.get(self.state.where[card.id]) or self.zone_of_card(card)
        dest = self._pile = self._pile or self._default_zone("discard", s)
        ev = Event("discard", None, card, self.players[self.state.current if src.owner is None else src.owner],
                   src, dest, s.forced)
        hit = self._moved(ev, "top", "card discarded:")
        return None if hit is None else hit(self, ev)

    def _unheard(self, kind: str, src: ZoneRef, dest: ZoneRef) -> bool:
        if self.record or self.listeners or self.check or self._instead_by_kind:
            return False
        return self._dispatch.get((kind, None, src.name, dest.name, self.state.phase), _MISSING) is None

    def _event_player(self, ev: Event):
        """What `player` means to a trigger of this event (a custom event's field wins)."""
        if ev.kind == "custom" and "player" in ev.fields:
            return ev.fields["player"]
        return ev.player

    def event_begin(self, ev: Event):
        if ev.phase is None:
            ev.phase = self.state.phase  # the phase it happened in
        if ev.card is not None and (self.record or self.listeners) and ev.kind in _CARD_EVENTS:
            self._log_card_event(ev)
        if self.check and ev.card is not None:
            self.check_card(ev)
        return self._handlers(ev)

    def event_run(self, ev: Event, hit):
        return hit(self, ev)   # the runner `_runner` made for this kind of event

    def _runaway(self):
        chain = " -> ".join(self.event_chain[-12:])
        return CglError(Diagnostic("E011", f"a chain of triggers runs away ({len(self.event_chain)} deep): {chain}",
                                   None, hint="give one of these triggers a condition that stops it"))

    def _may(self, tr, c, ev: Event):
        """Ask whether an optional (`may`) trigger is used."""
        if c.ask_by is not None:
            seat = self.as_player(c.ask_by(self, ev), tr.ask_by).seat
        else:
            p = self._event_player(ev)
            seat = p.seat if isinstance(p, Player) else self.state.current
        prompt = c.prompt(self, ev) if c.prompt is not None else f"Use {tr.name}?"
        return (yield from self.ask_yes_no(seat, prompt, tr.span, tag=tr.name))

    def _fire_compiled(self, key, name, body):
        stats = self.state.stats
        stats[key] = stats.get(key, 0) + 1
        self.event_chain.append(name)
        try:
            yield from body
        finally:
            self.event_chain.pop()

    def _responders(self, c, ev: Event) -> list:
        """Who may respond to `ev` with the reaction `c`, in order (as `open_window`)."""
        if c.responders is not None:
            resp = c.responders(self, ev)
            return resp if isinstance(resp, list) else [resp]
        actor = self._event_player(ev)
        return [self.players[p] for p in self.seat_order(actor.seat if actor else self.state.current)[1:]]

    def s_act(self, s, who, env_fn):
        """`act by who` with the actions compiled (as `x_act` does it)."""
        who = self.as_player(who, s.by)
        choices = []
        for a in self.rs.actions:
            c = self.cx.actions[id(a)]
            values = [None]
            if a.param:
                values = list(self.as_list(c.domain(self, who), a.domain))
            for v in values:
                if c.when is not None and not c.when(self, who, v):
                    continue
                if a.name in self._forbidden:
                    local = Env({a.param: v} if a.param else {}, env_fn())
                    local.vars["actor"] = who
                    if not self.allowed(a.name, local):
                        continue
                label = c.label(self, who, v) if c.label else (a.name if v is None else f"{a.name} {_show(v)}")
                choices.append(ActionChoice(a, v, label))
        pieces = self.cx.actions
        yield from self.c_act(s, who, choices, lambda ch: pieces[id(ch.decl)].prefer(self, who, ch.value),
                              lambda ch: pieces[id(ch.decl)].body(self, who, ch.value))

    def _event_env(self, ev: Event) -> Env:
        """The tree walker's environment of an event (for rule conditions, which it evaluates)."""
        env = Env({"event": ev, "card": ev.card, "player": ev.player, "it": ev.card})
        env.vars.update(ev.fields)
        return env

    @property
    def max_steps(self):
        return None if self.step_limit == NO_LIMIT else self.step_limit

    @max_steps.setter
    def max_steps(self, value):
        """A budget of statements. Set it before the game starts: the module that checks it
        takes over from then on (code already running keeps counting without checking)."""
        self.step_limit = NO_LIMIT if value is None else value
        if value is not None and not self.cx.budget:
            cx = compiled_for(self.rs, budget=True)
            if cx is not None:
                self._use(cx)

    def _use(self, cx):
        """Play with compiled module `cx`."""
        self.cx = cx
        # (kind, name, from, to, phase) -> the event's runner (None: nothing waits for it);
        # the same for every game of the ruleset
        self._dispatch = cx.dispatch
        self._display = cx.derives.get("display") if "display" not in self.card_var_names else None

    def block_fn(self, block):
        fn = self.cx.blocks.get(id(block)) if block is not None else None
        return Engine.block_fn(self, block) if fn is None else partial(fn, self)

    def run_block(self, block, env):
        fn = self.cx.blocks.get(id(block)) if block is not None else None
        if fn is None:
            return Engine.run_block(self, block, env)
        return fn(self, env)

    def expr_fn(self, e):
        return self.cx.exprs.get(id(e)) or self.compile(e)

    def show_card(self, c) -> str:
        fn = self._display
        if fn is None:
            return Engine.show_card(self, c)
        try:
            return str(fn(self, c))
        except CglError:
            return c.name

    def _card_getter(self, name):
        fn = self.cx.derives.get(name) if name not in self.card_var_names else None
        if fn is None:
            return Engine._card_getter(self, name)
        return lambda c: (True, fn(self, c))

    def _shape_needs(self, p: A.Pattern) -> list:
        needs = self.cx.shape_needs.get(p.name)
        if needs is None:
            needs = self.cx.shape_needs[p.name] = [
                (sum(part.size for part in shape.parts),
                 sorted((part.size for part in shape.parts if not part.any), reverse=True)) for shape in p.shapes]
        return needs

    def match_pattern(self, p: A.Pattern, args: list):
        fns = self.cx.patterns.get(p.name)
        if fns is None:
            return Engine.match_pattern(self, p, args)
        return self.match_compiled(p, fns, args)

    def match_compiled(self, p: A.Pattern, fns: dict, args: list):
        scanned = fns["scan"](self, *args)
        if scanned is None:  # no shape can fit (the scan's own first cut)
            return None
        cards, raw, counts = scanned
        fixed_fn = fns.get("fixed")
        # The solver's quick rejection, before anything else is computed: each shape's
        # largest groups need as many different labels with enough cards (card by card,
        # the counts can only be larger than the solver's, so nothing it finds is lost;
        # a label twice on one card counts twice: still an upper bound).
        largest = sorted(counts.values(), reverse=True)
        n = len(cards)
        for total, need in self._shape_needs(p):
            if total != n or len(need) > len(largest):
                continue
            for want, have in zip(need, largest):
                if want > have:
                    break
            else:
                break   # this shape may fit: solve
        else:
            return None
        labels = [[_hashable(x) for x in (labs if isinstance(labs, list) else [labs]) if x is not None]
                  for labs in raw]
        fixed = [_hashable(fixed_fn(self, *args, c)) if fixed_fn is not None else None for c in cards]
        best_fn = fns.get("best")
        return self.best_reading(
            p, cards, labels, fixed,
            lambda i, j, part: (lambda cond: lambda label: _truth(cond(self, *args, label)))(fns[f"cond_{i}_{j}"]),
            lambda m: best_fn(self, *args, m))


_HOISTABLE = re.compile(r"    (_F = ev\.fields|e_\w+ = (ev(\.\w+)?|_F\b.*)|_dc_\w+ = eng\.dcache\[[^\]]+\]"
                        r"|(_cv|_pv|_zs) = eng\.state\.(card_vars|player_vars|zones))")


def _body_for_runner(src: list):
    """An event condition's function (`def _E…(eng, ev):` and its lines) as a runner can
    write it in place of calling it: (entry lines, which read only the event and the
    engine and so can be read once at the runner's start; the rest, with its `return X`
    turned into `_ok = X`), or None when it cannot be taken in (a nested function, more
    than one return)."""
    if not re.fullmatch(r"def \w+\(eng, ev(, e_responder)?\):", src[0]):
        return None
    body = src[1:]
    text = "\n".join(body)
    if len(re.findall(r"\breturn\b", text)) != 1 or re.search(r"\b(def|yield|nonlocal|global|class)\b", text):
        return None
    entry, rest, opened = [], [], False
    for line in body:
        if not opened and line == "    try:":
            opened = True
        if not opened and _HOISTABLE.fullmatch(line):
            entry.append(line)
            continue
        m = re.fullmatch(r"(\s+)return (.*)", line)
        rest.append(f"{m.group(1)}_ok = {m.group(2)}" if m else line)
    return entry, rest


def _runner(triggers: list, reactions: list, module: dict, what: str = ""):
    """One generator function running the triggers and reactions that wait for one kind of
    event, in order (what `Engine.event_run` does with the lists): each condition, then the
    question of a `may`, the body, the reaction windows. Conditions are written in (their
    entry lines once, at the start), not called; `module` is the ruleset's generated module,
    whose names they read."""
    ns: dict = dict(module)
    ns["MAX_EVENT_DEPTH"] = MAX_EVENT_DEPTH
    head = ["def run(eng, ev):",
            "    if len(eng.event_chain) >= MAX_EVENT_DEPTH: raise eng._runaway()",
            "    if 0: yield"]
    entry: dict = {}      # name -> its entry line, read once at the start
    lines: list = []

    def test(src, call):
        """Lines computing the condition into `_ok` ([] and `call` when it is called instead)."""
        if src is None:
            return [], call
        first, rest = src
        targets = {ln.split(" = ", 1)[0].strip(): ln for ln in first}
        if any(entry.get(t, ln) != ln for t, ln in targets.items()):
            return [], call  # the same name read another way (never seen): call it
        entry.update(targets)
        return rest, "_ok"

    for i, (tr, c) in enumerate(triggers):
        ns.update({f"_rT{i}": tr, f"_rP{i}": c, f"_rC{i}": c.cond, f"_rB{i}": c.body,
                   f"_rK{i}": "trigger:" + tr.name, f"_rN{i}": tr.name})
        conds = []
        if c.cond is not None:
            pre, cond = test(c.cond_src, f"_rC{i}(eng, ev)")
            lines += pre
            conds.append(cond)
        if tr.optional:
            conds.append(f"(yield from eng._may(_rT{i}, _rP{i}, ev))")
        lines.append(f"    if {' and '.join(conds) or 'True'}:")
        lines += ["        stats = eng.state.stats",                     # as `_fire_compiled`
                  f"        stats[_rK{i}] = stats.get(_rK{i}, 0) + 1",
                  f"        eng.event_chain.append(_rN{i})",
                  "        try:",
                  f"            yield from _rB{i}(eng, ev)",
                  "        finally:",
                  "            eng.event_chain.pop()"]
    for i, (r, c) in enumerate(reactions):
        ns.update({f"_rR{i}": r, f"_rQ{i}": c, f"_rD{i}": c.cond, f"_rE{i}": c.eligible, f"_rA{i}": c.ask,
                   f"_rW{i}": c.body, f"_rRK{i}": "reaction:" + r.name, f"_rRN{i}": r.name,
                   f"_rS{i}": f"Respond with {r.name}?"})
        cond = "True"
        if c.cond is not None:
            pre, cond = test(c.cond_src, f"_rD{i}(eng, ev)")
            lines += pre
        lines.append(f"    if {cond}:")       # the window, as `Engine.open_window`
        lines.append(f"        _ruled = _rRN{i} in eng._forbidden")
        lines.append(f"        for e_responder in eng._responders(_rQ{i}, ev):")
        if c.eligible is not None:
            pre, ok = test(c.eligible_src, f"_rE{i}(eng, ev, e_responder)")
            lines += ["        " + ln for ln in pre]
            lines.append(f"            if not {ok}: continue")
        lines += [f"            if _ruled and not eng.allowed(_rRN{i}, eng._event_env(ev).child({{'responder': e_responder}})):",
                  "                continue",
                  f"            _yes = yield from eng.ask_yes_no(e_responder.seat, "
                  f"{f'_rA{i}(eng, ev, e_responder)' if c.ask is not None else f'_rS{i}'}, _rR{i}.span, tag=_rRN{i})",
                  "            if not _yes: continue",
                  f"            yield from eng._fire_compiled(_rRK{i}, _rRN{i}, _rW{i}(eng, ev, e_responder))"]
        if r.once:
            lines.append("            break")
    source = "\n".join(head + list(entry.values()) + lines)
    exec(compile(source, f"<cgl event runner{what}>", "exec"), ns)
    return ns["run"]


def make_engine(rs, players: int, seed: int, check_invariants: bool = False) -> Engine:
    """The compiled engine when the ruleset compiles (and CGL_ENGINE is not "tree"), else the tree walker."""
    if os.environ.get("CGL_ENGINE", "").lower() != "tree":
        cx = compiled_for(rs)
        if cx is not None:
            return CompiledEngine(rs, players, seed, check_invariants, cx)
    return Engine(rs, players, seed, check_invariants)

