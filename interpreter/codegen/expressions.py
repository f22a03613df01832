"""The generator's expressions: each CGL expression node as a Python expression."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..check.resolver import Use, call_meaning, card_attr_meaning, deterministic
from ..runtime.state import ZoneRef
from ..check.typecheck import LISTY, Scope, elem_ty
from ..check.typecheck import Binding as _Binding
from .as_statements import WHETHER_ANY
from .runtime import Unsupported
from .writer import Lit, Var, _Fn

_O = Var("o")   # the parameter of a module function reading a property of a value

INLINE_NODES = 400   # nodes of defs written in place for one call (the shipped rulesets write at most 250)


class Expressions:
    """`x_<Node>` for every expression node (a mixin of CodeGen)."""

    # ------------------------------------------------------------ hints
    # A hint (the `prefer` of a `choose` or an action) is the player's own judgement: it may
    # read only what its seat sees (walker/hints.py). Written with `hinting` on, every read
    # of a card's face goes through `eng.hint_sees`, every read of a variable that is not
    # public through `eng.hint_reads`, and what the generator cannot see through (a card
    # read by its id, a pattern's compiled scan, a static def's remembered value) is not
    # used, so that the generated hint reads, refuses and answers as the tree walker's.
    # Module-level functions (defs, tables) get a hint variant of their own (`DH_`, `TH_`);
    # the rules' functions are always written with `hinting` off.
    @contextmanager
    def hint_mode(self, on: bool):
        outer, self.hinting = self.hinting, on
        try:
            yield
        finally:
            self.hinting = outer

    def hint_card_getter(self, name) -> str:
        """The module function reading property `name` of a card inside a hint: refused
        (E019) when the hint's seat may not see the card, else as the rules read it."""
        fname = "HC_" + name
        if fname not in self.done:
            self.done.add(fname)
            with self.hint_mode(False):
                plain = self.card_branch(name, _O)
            kind = self.derive_kinds.get(name) if card_attr_meaning(self.rs, name) == "derive" else None
            if kind in ("card", "place", "static"):   # the cache read here, its getter called only when missing
                cache = self._static_caches[name] if kind == "static" else f"eng.dcache[{name!r}]"
                tail = ([f"    return {cache}[o.id]"] if name in self._static_full else   # (all known: `static_values`)
                        ["    v = " + cache + "[o.id]",
                         f"    return v if v is not {self.unset(name)} else {self.derive_fn(name)}(eng, o)"])
            else:
                tail = [f"    return {plain}"]
            self.defs += [f"def {fname}(eng, o):",
                          "    if eng.hint_zones.get(eng.state.where[o.id]) is not True:   # (not known to be seen)",
                          f"        eng.hint_sees(o, {name!r})", *tail, ""]
        return fname

    def hint_var(self, name, read: str, owner: Optional[str] = None) -> str:
        """`read` (of variable `name`, of player `owner`) inside a hint: refused (E019) when
        the hint's seat may not read it."""
        if not self.hinting or self.rs.vars[name].sight == "public":
            return read
        return f"(eng.hint_reads({name!r}{'' if owner is None else ', ' + owner}) or {read})"

    # ------------------------------------------------------------ expressions
    def x(self, e, sc: Scope, fn: _Fn) -> str:
        if fn is None or fn.memo is not None or fn.iterable or fn.lambdas:
            return getattr(self, "x_" + type(e).__name__)(e, sc, fn)
        if fn.stmt_memo is not None:   # part of the statements of one expression (`ev_into`)
            fn.memo = fn.stmt_memo
            try:
                return getattr(self, "x_" + type(e).__name__)(e, sc, fn)
            finally:
                fn.memo = None
        # One Python expression: a def written in place twice in it with the same
        # arguments is worked out once, on first use (`memo_def`). Written twice: the first
        # time finds which calls come more than once.
        write = getattr(self, "x_" + type(e).__name__)
        fn.memo, fn.memo_keep = {}, None
        try:
            src = write(e, sc, fn)
            if not fn.memo:
                return src
            fn.memo_keep = {key for key, (_, n) in fn.memo.items() if n > 1}
            if len(fn.memo_keep) != len(fn.memo):
                fn.memo = {}
                src = write(e, sc, fn)
            memo = fn.memo
        finally:
            fn.memo = fn.memo_keep = None
        if not memo:
            return src
        return "(" + " and ".join([f"(({m} := {self.memo_init(key)}) is not None)" for key, (m, _) in memo.items()]
                                  + [src]) + ")"

    def deterministic(self, name) -> bool:
        """Whether def `name` gives the same value for the same arguments while the game does
        not change (`resolver.deterministic`)."""
        return deterministic(self.rs, name)

    def memo_def(self, d, e, sc, fn, src) -> str:
        """`src`, a def written in place, remembered for the rest of the expression being
        written when the same call may come again in it (same def, same variables)."""
        m = self.memo_var(d, e, sc, fn, None if fn is None else fn.memo)
        if m is None:
            return src
        return f"({m} if {m} is not _MISSING else ({m} := {src}))"

    def memo_var(self, d, e, sc, fn, memo) -> Optional[str]:
        """The variable remembering def `d` written in place for call `e` in `memo` (the
        expression's being written), or None: not remembered."""
        if memo is None or fn.iterable or fn.lambdas or not self.deterministic(d.name):
            return None
        args = tuple(self.local_of(a, sc).var for a in e.args)
        if any(v in fn.comp_vars for v in args):
            return None   # (a comprehension's or loop's variable: another value each time round)
        key = (d.name, args)
        if fn.memo_keep is not None and key not in fn.memo_keep:
            return None   # (it comes once)
        m, n = memo.get(key) or (self.fresh("m"), 0)
        memo[key] = m, n + 1
        return m

    def x_Int(self, e, sc, fn):
        return repr(e.value)

    def x_Const(self, e, sc, fn):
        v = e.value
        if v is None or isinstance(v, bool):
            return Var(repr(v))
        if isinstance(v, (int, str)):
            return repr(v)
        return self.k(v)

    def x_Text(self, e, sc, fn):
        if e.constant is not None:
            return repr(e.constant)
        show = "_show(eng.hint_sees({}))" if self.hinting else "_show({})"   # (a card is named only if seen)
        parts = [repr(p) if isinstance(p, str) else show.format(self.x(p, sc, fn)) for p in e.parts]
        return '_text(eng, "".join((' + ", ".join(parts) + f",)), {self.k(e)})"

    def x_Dice(self, e, sc, fn):
        if e.count <= 0:
            return "0"
        if e.count > 4:   # (the same rolls, in the same order, and the limit on dice: values._dice)
            return f"_dice(eng, {self.k(e)})"
        return "(" + " + ".join([f"eng.roll({e.sides})"] * e.count) + ")"

    def meaning(self, e):
        """What this use of a bare name means: the resolver pass's record (`resolver.Use`).
        (The generator's own placeholder names, `\0left` …, are locals.)"""
        u = self.facts.uses.get(id(e))
        return u if u is not None else Use("local", e.id)

    def local_of(self, e, sc):
        """The binding of the local this name reads (None: it reads no local here)."""
        u = self.meaning(e)
        if u.kind not in ("local", "maybe"):
            return None
        b = sc.find(u.name)
        if b is None and u.kind == "local":
            raise AssertionError(f"cgl bug: the resolver says `{u.name}` is a local at {e.span}, "
                                 "and the generator has not bound it there")
        return b

    def x_Name(self, e, sc, fn):
        b = self.local_of(e, sc)
        if b is not None:
            self.use(b, fn)
            v = self.ref(b)
            if not b.maybe:
                return v
            return f"({v} if {v} is not _MISSING else {self.it_or_global(e, sc, fn)})"
        return self.it_or_global(e, sc, fn)

    @staticmethod
    def state(fn, part: str) -> str:
        """Python for `eng.state.<part>` written in function `fn` (None: in a function
        written without one, which reads it in full)."""
        return fn.state(part) if fn is not None else f"eng.state.{part}"

    @staticmethod
    def ref(b: _Binding) -> str:
        """The Python variable of a local, noted as written into the code (an event function
        binds only the names its code uses)."""
        b.used = True
        return b.var if isinstance(b.var, Lit) else Var(b.var)

    def use(self, b: _Binding, fn: _Fn):
        """Note a read of a loop-bound variable of an enclosing function: a waiting choice
        body (`simultaneously`) must see the value of its own time round the loop."""
        if b.loop and b.fn is not fn:
            f = fn
            while f is not None and f is not b.fn:
                f.captures.add(b.var)
                f = f.parent

    def it_or_global(self, e, sc, fn):
        u = self.meaning(e)
        name = u.name
        glob = self.glob(e, sc, fn)
        if u.kind == "it" or u.kind == "maybe" and u.it:
            b = sc.find("it")
            if b is not None:
                v = self.ref(b)
                it = v if not b.maybe else f"({v} if {v} is not _MISSING else None)"
                if glob is None:
                    slow = f"_it_or_unknown(eng, {it}, {name!r}, {self.k(e)})"
                else:
                    slow = f"_it_or(eng, {it}, {name!r}, lambda: {glob})"
                if b.maybe:
                    return slow
                return self.fast_attr(v, name, slow, b.ty, fn)
        return glob if glob is not None else f"_unknown(eng, {self.k(e)})"

    def fast_attr(self, var, name, slow, ty=None, fn=None) -> str:
        """`var.name` for a variable: the card's (or player's, or event's) own property
        read in place, else `slow` (the general lookup)."""
        card = self.card_branch(name, var, fn)
        if card is not None and ty == "card":
            return card
        player = f"{self.state(fn, 'player_vars')}[{var}.seat][{name!r}]" if name in self.player_vars else None
        if player is not None:
            checked = self.hint_var(name, player, f"{var}.seat")
            hoist = checked == player
            player = checked
        if player is not None and ty == "player":
            if hoist and fn is not None and fn.pure and var in fn.params:
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
        u = self.meaning(e)
        name, meaning = u.name, u.meaning
        rs = self.rs
        if meaning == "option":
            v = rs.option_values[name]   # fixed once the ruleset is loaded
            return repr(v) if v is None or isinstance(v, (bool, int, str)) else f"eng.opts[{name!r}]"
        if meaning == "global":
            return self.hint_var(name, f"eng.state.globals[{name!r}]")
        if meaning == "def":
            return self.literal_def(name) or f"{self.def_fn(name)}(eng)"
        if meaning == "data":
            return self.k(rs.tables[name])
        if meaning == "zone":
            return self.k(ZoneRef(name, None))
        if meaning == "enum":
            return repr(name)
        if meaning == "builtin":
            return self.value_kept(name, B.VALUES[name].emit, fn)
        return None

    def x_Attr(self, e, sc, fn):
        obj = self.x(e.obj, sc, fn)
        ty = self.ty(e.obj, sc)
        # (inside a hint, the general lookup is the engine's, watched while a hint is evaluated)
        slow = f"_attr(eng, {{}}, {e.name!r}, {self.k(e)})" if self.hinting else \
            f"{self.getter(e.name)}(eng, {{}}, {self.k(e)})"
        if isinstance(obj, Var):
            return self.fast_attr(obj, e.name, slow.format(obj), ty, fn)
        if ty == "card" and self.hinting:   # (a face through `HC_`, where the card lies as it is: card_branch)
            read = self.card_branch(e.name, obj)
            if read is not None:
                return read
        elif ty == "card" and self.card_branch(e.name, _O) is not None:
            return f"{self.card_getter(e.name)}(eng, {obj})"
        if ty == "player" and e.name in self.player_vars and not self.hinting:
            return f"{self.state(fn, 'player_vars')}[{obj}.seat][{e.name!r}]"
        return slow.format(obj)

    def card_getter(self, name) -> str:
        """The module function reading property `name` of a value that is always a card."""
        fname = "GC_" + name
        if fname not in self.done:
            self.done.add(fname)
            with self.hint_mode(False):
                self.defs += [f"def {fname}(eng, o):", f"    return {self.card_branch(name, _O)}", ""]
        return fname

    # ------------------------------------------------------------ static types
    # What an expression always evaluates to, from the one type checker (typecheck.py).
    # Used only to leave out checks that cannot fail, never to change what a rule means.
    LISTY = LISTY

    def ty(self, e, sc) -> Optional[str]:
        return self.types.ty(e, sc)

    def item_ty(self, source, sc) -> Optional[str]:
        """The type of the items of `source` (`TypeChecker.source_ty`)."""
        return elem_ty(self.types.source_ty(source, sc))

    def _narrowed(self, e, sc):
        return self.types.narrowed(e, sc)

    @staticmethod
    def elem_ty(ty) -> Optional[str]:
        return elem_ty(ty)

    def cards_src(self, e, sc, fn, lazy=False) -> Optional[str]:
        """Python for the cards of a zone expression, top first, without making a zone value
        (a shared zone, a player's zone, or a sum of them); None for anything else. `lazy`:
        an iterator over the zone itself is enough (read at once, by a comprehension)."""
        if lazy:
            ids = self.zone_ids(e, sc, fn)
            if ids is not None:
                return f"map(eng.cards.__getitem__, {ids})"
        if self.zone_named(e, sc):
            return f"_cards_at(eng, {e.id!r})"
        if self.player_zone_call(e):
            if self.ty(e.args[0], sc) == "player":
                return f"list(map(eng.cards.__getitem__, {self.zone_ids(e, sc, fn)}))"
            keys, who = self.zone_keys(e.name), self.x(e.args[0], sc, fn)
            return f"_pz_cards(eng, {keys}, {who}, {self.k(e.args[0])})"
        if isinstance(e, A.BinOp) and e.op == "+" and self.ty(e, sc) == "cards":
            a, b = self.cards_src(e.left, sc, fn, lazy), self.cards_src(e.right, sc, fn, lazy)
            if a is not None and b is not None:
                return f"_chain({a}, {b})" if lazy else f"({a} + {b})"
        if isinstance(e, A.IfExpr):
            return self.cards_or_none(e, sc, fn, lazy)
        return None

    def cards_or_none(self, e, sc, fn, lazy) -> Optional[str]:
        """`if C then [] else ZONE` (or `if C then ZONE else []`) as `cards_src` writes it: no
        list, or the zone's cards read at once, without making a zone value and listing it
        (Unstable Unicorns' `unicorns(p)`, `if has(p, "HORSE SHIT") then [] else stable(p)`)."""
        for empty, other, osc in ((e.then, e.otherwise, sc), (e.otherwise, e.then, self._narrowed(e, sc))):
            if isinstance(empty, A.ListLit) and not empty.items:
                cards = self.cards_src(other, osc, fn, lazy)
                if cards is None:
                    return None
                cond = self.x(e.cond, sc, fn)
                return f"([] if {cond} else {cards})" if empty is e.then else f"({cards} if {cond} else [])"
        return None

    def zone_ids(self, e, sc, fn) -> Optional[str]:
        """Python iterating over the ids of the cards of a zone expression, top first (a
        shared zone or a player's zone); None for anything else."""
        ids = self.zone_list(e, sc, fn)
        return None if ids is None else f"reversed({ids})"

    def zone_list(self, e, sc, fn) -> Optional[str]:
        """Python for the list of ids the state keeps for a zone expression, bottom first (a
        shared zone or a player's zone; not to be changed); None for anything else."""
        if self.zone_named(e, sc):
            return self.zone_at(fn, repr(e.id), not self.rs.zones[e.id].per_card)
        if self.player_zone_call(e):
            keys, who = self.zone_keys(e.name), self.x(e.args[0], sc, fn)
            if self.ty(e.args[0], sc) == "player":
                return self.player_zone_at(fn, e.name, who)
            return f"_pz_ids(eng, {keys}, {who}, {self.k(e.args[0])})"
        return None

    def zone_at(self, fn, key: str, made: bool) -> str:
        """Python for the state's list of the zone under `key` (Python); `made`: the state
        holds a list for it from the game's start (a shared zone, a player's zone of a
        seat in play: `Engine._initial_state`), else it may have none yet (a card's zone)."""
        zones = self.state(fn, "zones")
        return f"{zones}[{key}]" if made else f"{zones}.get({key}, ())"

    def player_zone_at(self, fn, name: str, who: str) -> str:
        """The state's list of player `who`'s zone `name`; read once as a pure function starts
        when `who` is its parameter (`_Fn.hoists`: an expression changes neither)."""
        at = self.zone_at(fn, f"{self.zone_keys(name)}[{who}.seat]", True)
        if fn is not None and fn.pure and who in fn.params and not self.hinting:
            fn.hoists[f"_hz_{name}_{who}"] = at
            return f"_hz_{name}_{who}"
        return at

    def zone_named(self, e, sc) -> bool:
        """`stock`: a name that means a declared zone (not a local, such as a def's parameter,
        holding a zone: that is read as any value is), whose cards the state keeps under it."""
        return isinstance(e, A.Name) and self.local_of(e, sc) is None and self.meaning(e).meaning == "zone" \
            and self.ty(e, sc) == "zone"

    def player_zone_call(self, e) -> bool:
        """`hand(p)`: a call that means a zone of each player, with its one argument."""
        return isinstance(e, A.Call) and len(e.args) == 1 and call_meaning(self.rs, e.name) == "player_zone"

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
        with self.hint_mode(False):
            card = self.card_branch(name, _O)
        if card is not None:
            lines += ["    if o.__class__ is Card:", f"        return {card}"]
        if name in self.player_vars:
            lines += ["    if o.__class__ is Player:", f"        return eng.state.player_vars[o.seat][{name!r}]"]
        lines += [f"    return _attr(eng, o, {name!r}, node)"]
        self.defs += lines + [""]
        return fname

    def card_branch(self, name, o, fn=None) -> Optional[str]:
        """How property `name` of card `o` is read, in the tree walker's order of precedence.
        (`o` may be a variable holding the card's id, of a loop over ids: see `loop_into`.)"""
        oid, card = (o, f"eng.cards[{o}]") if o in self._id_vars else (f"{o}.id", o)
        if self.hinting:   # a card's face, read where the hint's seat sees the card (where it lies is public)
            with self.hint_mode(False):
                plain = self.card_branch(name, o)
            if plain is None or name == "zone" and not self.zone_in_data:
                return plain
            getter = f"{self.hint_card_getter(name)}(eng, {card})"
            if not isinstance(o, Var) or fn is None:
                return getter
            # the getter's quick test written in: a card where the seat is known to see it read
            # as the rules read it, else through the getter (which asks `hint_sees`)
            with self.hint_mode(False):
                plain = self.card_branch(name, o, fn)
            return f"({plain} if eng.hint_zones.get({self.state(fn, 'where')}[{oid}]) is True else {getter})"
        meaning = card_attr_meaning(self.rs, name)
        if meaning == "var":
            return f"{self.state(fn, 'card_vars')}[{oid}][{name!r}]"
        if meaning == "derive":
            dv = self.derive_fn(name)
            if isinstance(o, Var) and self.derive_kinds[name] == "static":
                cache = self._static_caches[name]   # (holding every card's value: read it; `static_values`)
                return f"{cache}[{oid}]" if name in self._static_full else self.cached(cache, dv, oid, card, fn)
            if isinstance(o, Var) and self.derive_kinds[name] in ("card", "place") and fn is not None:
                fn.caches.add(name)  # the game's list of values, fetched as the function starts
                return self.cached("_dc_" + name, dv, oid, card, fn, name)
            return f"{dv}(eng, {card})"
        if name in self.card_props:
            return f"{o}.props[{name!r}]"
        if name == "name":
            return f"{o}.name"
        if name == "id":
            return oid
        if name == "zone" and not self.zone_in_data:
            return f"_ZONE_NAMES[{self.state(fn, 'where')}[{oid}]]"   # (B.zone_name_of, in place)
        return None

    def iterable(self, e, sc, fn) -> str:
        """Python for what a comprehension iterates over (`seq`, lazily, without `:=`)."""
        with fn.in_iterable():
            return self.seq(e, sc, fn, lazy=True)

    def derive_fn(self, name) -> str:
        """The module function giving derived property `name` of a card (cached as the tree walker caches)."""
        fname = "DV_" + name
        if fname in self.done:
            return fname
        self.done.add(fname)
        with self.hint_mode(False):   # (the rules' value: a hint checks it may see the card first)
            self._derive_fn(name, fname)
        return fname

    def _derive_fn(self, name, fname):
        body = "DB_" + name
        sc = Scope(fn=None)
        f = _Fn.function(self, body, ["v_it"])
        sc.fn = f
        sc.names["it"] = _Binding("v_it", False, f, "card")
        f.emit(f"return {self.x(self.rs.derives[name].expr, sc, f)}")
        self.defs += f.source() + [""]
        kind = self.derive_kinds[name]
        if kind == "dynamic":
            self.defs += [f"{fname} = {body}", ""]
        else:
            # "card", "place": one list per game, entries forgotten when the card's variables
            # change, and for "place" when it moves (CompiledEngine.forget); "static": one
            # list per ruleset. A world gives a "card" value back to its snapshot (`Forks.derived_found`)
            cache = f"eng.dcache[{name!r}]" if kind != "static" else self.k(self.static_values(name))
            if kind == "static":
                self._static_caches[name] = cache
            give = f"        if eng.derived_home is not None: eng.derived_found({name!r}, o.id, v)"
            self.defs += [f"def {fname}(eng, o):", f"    c = {cache}", "    v = c[o.id]", f"    if v is {self.unset(name)}:",
                          f"        v = c[o.id] = {body}(eng, o)", *([give] if kind == "card" else []),
                          "    return v", ""]

    @staticmethod
    def variant(types) -> str:
        """The name suffix of a function specialised for its arguments' static types."""
        if not types or not any(types):
            return ""
        return "__" + "_".join(t or "x" for t in types)

    def def_fn(self, name, types=()) -> str:
        """The module function of def `name` (for arguments of static `types`); inside a hint,
        its hint variant, which remembers no value (a static def's memo would skip the
        reads a hint must have watched)."""
        d = self.rs.defs[name]
        params = list(d.params or ())
        types = tuple(types) if len(types) == len(params) else (None,) * len(params)
        fname = ("DH_" if self.hinting else "D_") + name + self.variant(types)
        if fname in self.done:
            return fname
        self.done.add(fname)
        with self.hint_mode(self.hinting):   # (restored after, whatever the body writes)
            self._def_fn(d, name, params, types, fname)
        return fname

    def _def_fn(self, d, name, params, types, fname):
        sc = Scope()
        static = name in self.static_defs and not self.hinting
        body = "DB_" + name + self.variant(types) if static else fname
        f = _Fn.function(self, body, ["v_" + p for p in params])
        f.pure = True
        sc.fn = f
        for p, ty in zip(params, types):
            sc.names[p] = _Binding("v_" + p, False, f, ty)
        count = ["eng.calls += 1", f"if eng.calls > eng.call_limit: eng.calls_out({self.k(d)})"]   # as the tree walker's
        if not static:
            for line in count:
                f.emit(line)
        f.emit(f"return {self.ev_into(f, d.expr, sc)}")
        self.defs += f.source() + [""]
        if static:
            memo = self.k(self.facts.memo(name))
            self.defs += [f"def {fname}(eng, *args):", *("    " + line for line in count),
                          f"    return _static_call({memo}, {body}, eng, args)", ""]

    def hint_def_over(self, name, types, at: int, negated) -> str:
        """The module function giving def `name`'s hint values (`def_fn`'s hint variant, for
        arguments of static `types`) for a list of options, the argument at `at`
        (`def_over_options`): `(eng, *the other arguments, options)`, its body the hint
        variant's written in a loop over the options, each counted as a call; `negated`
        (the call's node, or "" where its value is surely a whole number): each value negated
        as `x_Neg` negates it."""
        d = self.rs.defs[name]
        params = list(d.params)
        fname = f"DHO{at}{'' if negated is None else 'N'}_{name}{self.variant(types)}"
        if negated:
            fname += f"_{negated}"
        if fname in self.done:
            return fname
        self.done.add(fname)
        fixed = ["v_" + p for i, p in enumerate(params) if i != at]
        sc = Scope()
        f = _Fn.function(self, fname, [*fixed, "_opts"])
        f.pure = True
        f.params = set(fixed)   # (read once as it starts: not the option's, which changes)
        sc.fn = f
        for p, ty in zip(params, types):
            sc.names[p] = _Binding("v_" + p, False, f, ty)
        f.emit("_out = []")
        f.outside, f.outside_at = set(), (len(f.lines), f.ind)   # (set before the loop: ev_into)
        f.emit(f"for v_{params[at]} in _opts:")
        f.ind += 1
        f.emit("eng.calls += 1")   # (each option a call, as the tree walker's)
        f.emit(f"if eng.calls > eng.call_limit: eng.calls_out({self.k(d)})")
        v = self.ev_into(f, d.expr, sc)
        f.emit(f"_out.append({v if negated is None else f'(-_num({v}, {negated}, eng))' if negated else f'(-{v})'})")
        f.ind -= 1
        f.emit("return _out")
        self.defs += f.source() + [""]
        return fname

    def table_fn(self, name) -> str:
        t = self.rs.table_decls[name]
        fname = ("TH_" if self.hinting else "T_") + name   # (its hint variant: see def_fn)
        if fname in self.done:
            return fname
        self.done.add(fname)
        sc = Scope()
        f = _Fn.function(self, fname, ["v_" + p for p in t.params])
        sc.fn = f
        for p in t.params:
            sc.names[p] = _Binding("v_" + p, False, f)
        f.emit("eng.calls += 1")   # as the tree walker's
        f.emit(f"if eng.calls > eng.call_limit: eng.calls_out({self.k(t)})")
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
        if meaning == "builtin" and B.FUNCTIONS[e.name].loop == "count" and len(e.args) == 1 \
                and isinstance(e.args[0], A.Where):
            f = B.FUNCTIONS[e.name]
            if f.on_count == WHETHER_ANY and (found := self.data_count(f, e.args[0], sc, fn)) is not None:
                return found
            n = (self.label_count(e.args[0], sc, fn) if e.name == "count" else None) or \
                self.count_over_ids(e.args[0], sc, fn) or (self.count_by_value(e, sc, fn) if e.name == "count" else None) \
                or self.count_by_data(e.args[0], sc, fn)
            if n is not None:
                on_count = B.FUNCTIONS[e.name].on_count
                return n if on_count is None else on_count.format(n)
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
        fname = self.def_fn(e.name, types)
        m = self.call_memo(d, fname, args, fn)
        if m is not None:
            return f"_memo_call{len(args)}({m}, {fname}, eng{''.join(', ' + a for a in args)})"
        return f"{fname}(eng{''.join(', ' + a for a in args)})"

    def call_table(self, e, args, sc, fn):
        t = self.rs.table_decls[e.name]
        if len(args) != len(t.params):
            raise Unsupported(f"`{e.name}` called with {len(args)} arguments")
        return f"{self.table_fn(e.name)}(eng{''.join(', ' + a for a in args)})"

    def call_pattern(self, e, args, sc, fn):
        p = self.rs.patterns[e.name]
        with self.hint_mode(False):
            self.pattern(p)
        types = tuple(self.ty(a, sc) for a in e.args)
        if any(types) and len(types) == len(p.params) and not self.hinting:   # (in a hint: the tree walker's, watched)
            with self.hint_mode(False):
                fns = self.pattern(p, types)
            if all(isinstance(a, Var) for a in args):   # the scan called here: no call further when no shape fits
                s = self.fresh("s")
                scan = f"PT_{fns[3:]}_scan(eng{''.join(', ' + a for a in args)})"
                return f"(None if ({s} := {scan}) is None else eng.match_compiled({self.k(p)}, {fns}, [{', '.join(args)}], {s}))"
            return f"eng.match_compiled({self.k(p)}, {fns}, [{', '.join(args)}])"
        return f"eng.match_pattern({self.k(p)}, [{', '.join(args)}])"

    def call_card_zone(self, e, args, sc, fn):
        if not args:
            raise Unsupported("zone of a card without a card")
        if self.rs.zones[e.name].per_player:   # `per card per player`: `squad(c, p)`
            if len(args) != 2:
                raise Unsupported("zone of a card and player without both")
            return (f"_zone_of_card(eng, {e.name!r}, {args[0]}, {self.k(e.args[0])}, {args[1]}, "
                    f"{self.k(e.args[1])})")
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
        f = B.FUNCTIONS[name]
        if f.on_list is not None and len(args) == 1 and self.ty(e.args[0], sc) in self.LISTY:
            return f.on_list.format(args[0], node=self.k(e) if "{node}" in f.on_list else None)
        if f.on_card is not None and len(args) == 1 and isinstance(args[0], Var) and args[0] not in self._id_vars \
                and self.ty(e.args[0], sc) == "card":
            return f.on_card.format(args[0], where=self.state(fn, "where"))
        if f.on_player is not None and len(args) == 1:   # (it checks its argument: no list made for it)
            return f.on_player.format(args[0], node=self.k(e))
        if name == "count" and len(args) == 1:
            return f"_count(eng, {args[0]}, {self.k(e)})"
        if name == "owner" and len(args) == 1 and self.builtin_owner and not self.hinting:
            return f"_owner_card(eng, {args[0]}, {self.k(e)})"
        return f"_BUILTIN[{name!r}](eng, {self.k(e)}, [{', '.join(args)}])"

    def count_of_zone(self, arg, sc, fn) -> Optional[str]:
        """`count(hand(p))`, `count(stock)`: the length of the zone's list in the state."""
        if self.player_zone_call(arg):
            who = self.x(arg.args[0], sc, fn)
            if self.ty(arg.args[0], sc) == "player":
                return f"len({self.player_zone_at(fn, arg.name, who)})"
            return f"_pz_count(eng, {self.zone_keys(arg.name)}, {who}, {self.k(arg.args[0])})"
        if self.zone_named(arg, sc):
            return f"len({self.zone_at(fn, repr(arg.id), not self.rs.zones[arg.id].per_card)})"
        return None

    def _inlinable(self, e, sc) -> bool:
        """A call of a small def with local variables (not itself being written in place)."""
        d = self.rs.defs.get(e.name)
        if d is None or d.params is None or d.name in self.static_defs or d.name in self._inlining:
            return False
        size = self._sizes.get(d.name)
        if size is None:
            size = self._sizes[d.name] = sum(1 for _ in A.walk(d.expr))
        if size > 40 or len(e.args) != len(d.params):
            return False
        for arg in e.args:
            b = self.local_of(arg, sc) if isinstance(arg, A.Name) else None
            if b is None or b.maybe:
                return False
        return True

    def _inline_scope(self, d, e, sc, fn) -> Scope:
        """A new scope holding just the def's parameters, as the tree walker evaluates a def."""
        inner = Scope()
        inner.fn = fn
        for param, arg in zip(d.params, e.args):
            inner.names[param] = self.local_of(arg, sc)
        return inner

    def inline_def(self, d, e, sc, fn) -> Optional[str]:
        """A small function called with local variables: its body, written in place."""
        if not self._inlinable(e, sc):
            return None
        # At most INLINE_NODES nodes written in place for one call written in place, with the
        # calls written in place inside it: a chain of defs each calling the next twice
        # (`def a2(x) = a1(x) + a1(x)` …) would double the source at each link.
        if not self._inlining:
            self._inlined = 0
        self._inlined += self._sizes[d.name]
        if self._inlined > INLINE_NODES:
            return None
        inner = self._inline_scope(d, e, sc, fn)
        self._inlining.append(d.name)
        try:
            src = self.x(d.expr, inner, fn)
        finally:
            self._inlining.pop()
        return self.memo_def(d, e, sc, fn, src)

    def x_Possible(self, e, sc, fn):
        args = ", ".join(self.x(a, sc, fn) for a in e.call.args)
        return f"eng.possible({self.k(e)}, [{args}])"

    def x_ListLit(self, e, sc, fn):
        return "[" + ", ".join(self.x(i, sc, fn) for i in e.items) + "]"

    def x_Comprehension(self, e, sc, fn):
        v = self.fresh("c")
        inner = sc.child()
        inner.names[e.name] = _Binding(v, False, fn, self.item_ty(e.source, sc))
        held = self.held_source(e.source, sc, fn)
        src = held[0] if held else self.iterable(e.source, sc, fn)
        with fn.looping(v):
            body = self.x(e.expr, inner, fn)
            cond = f" if {self.x(e.cond, inner, fn)}" if e.cond is not None else ""
        return self.over_held(held, f"[{body} for {v} in {src}{cond}]")

    def x_BinOp(self, e, sc, fn):
        ta, tb = self.ty(e.left, sc), self.ty(e.right, sc)
        if e.op == "+" and ta in self.LISTY | {"zone"} and tb in self.LISTY | {"zone"}:
            return f"_cat(eng, {self.seq(e.left, sc, fn)}, {self.seq(e.right, sc, fn)}, {self.k(e)})"
        a, b = self.x(e.left, sc, fn), self.x(e.right, sc, fn)
        if ta == tb == "int" and e.op in ("+", "-"):
            return f"({a} {e.op} {b})"
        if ta == tb == "int" and e.op == "*":   # (`_arith`'s product, its operands known numbers)
            return f"_big(eng, {a} * {b}, {self.k(e)})"
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
        if ta == "card" and self.zone_named(e.right, sc):
            test = f"({self.state(fn, 'where')}[{a}.id] == {e.right.id!r})"
        elif ta is None and isinstance(a, Var) and self.zone_named(e.right, sc):
            # (a card most often: where it lies, read at once; anything else as `_in` reads it)
            test = (f"({self.state(fn, 'where')}[{a}.id] == {e.right.id!r} if {a}.__class__ is Card "
                    f"else _in(eng, {a}, {self.x(e.right, sc, fn)}, {self.k(e)}))")
        elif tb in self.LISTY and ta == "str" or self.all_texts(e.right, sc):
            # (`_in_list` is Python's `in` for a text, and for anything in a list of texts)
            test = f"({a} in {self.x(e.right, sc, fn)})"
        elif tb in self.LISTY and isinstance(a, Var):
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
        if self.ty(e.operand, sc) == "int" or self.surely_int(e.operand):   # (no check it is a number)
            return f"(-{self.x(e.operand, sc, fn)})"
        return f"(-_num({self.x(e.operand, sc, fn)}, {self.k(e.operand)}, eng))"

    def x_IfExpr(self, e, sc, fn):
        then = self.x(e.then, self._narrowed(e, sc), fn)
        return f"({then} if {self.x(e.cond, sc, fn)} else {self.x(e.otherwise, sc, fn)})"

    def _it_scope(self, e, sc, fn):
        v = self.fresh("i")
        inner = sc.child()
        inner.names["it"] = _Binding(v, False, fn, self.item_ty(e.source, sc))
        return v, inner

    def x_Where(self, e, sc, fn):
        held = self.held_source(e.source, sc, fn)
        zone = None if held else self.all_cards_in_zone(e, sc)
        src = held[0] if held else self.all_cards_by_value(e, sc, fn) or (
            f"_cards_in_zones(eng, {zone!r})" if zone is not None else
            self.all_cards_with_var(e, sc) or self.iterable(e.source, sc, fn))
        v, inner = self._it_scope(e, sc, fn)
        with fn.looping(v):
            cond = self.x(e.cond, inner, fn)
        return self.over_held(held, f"[{v} for {v} in {src} if {cond}]")

    def all_cards_in_zone(self, e, sc) -> Optional[str]:
        """Zone name Z of `all_cards where zone = "Z" and …` (its first test, where `zone` is
        where a card lies): the cards it can keep are those of the zones named Z, so only
        they are looked at (`_cards_in_zones`, in the same order); None for any other `where`."""
        if not (isinstance(e.source, A.Name) and e.source.id == B.EVERY_CARD and self.local_of(e.source, sc) is None
                and self.meaning(e.source).meaning == "builtin") or self.zone_in_data \
                or card_attr_meaning(self.rs, "zone") != "data":
            return None
        first = e.cond
        while isinstance(first, A.And):
            first = first.left
        if not (isinstance(first, A.Compare) and first.op == "=" and isinstance(first.left, A.Name)
                and first.left.id == "zone" and self.meaning(first.left).kind == "it"
                and isinstance(first.right, A.Text) and first.right.constant is not None):
            return None
        return first.right.constant

    def all_cards_with_var(self, e, sc) -> Optional[str]:
        """Python for the cards `all_cards where VAR != none and …` can keep (its first test,
        VAR a card variable, read as `card_branch` reads one): those whose VAR is not none,
        in id order, picked at C speed (`_cards_with_var`); the whole test still runs on each.
        The cards left out would fail the first test, which cannot fail nor change anything.
        None for any other `where` (and in a hint, whose reads of a card are watched)."""
        if self.hinting or not (isinstance(e.source, A.Name) and e.source.id == B.EVERY_CARD
                                and self.local_of(e.source, sc) is None and self.meaning(e.source).meaning == "builtin"):
            return None
        first = e.cond
        while isinstance(first, A.And):
            first = first.left
        if not (isinstance(first, A.Compare) and first.op == "!=" and isinstance(first.left, A.Name)
                and self.meaning(first.left).kind == "it" and card_attr_meaning(self.rs, first.left.id) == "var"
                and isinstance(first.right, A.Const) and first.right.value is None):
            return None
        return f"_cards_with_var(eng, {first.left.id!r})"

    def lambda_of(self, v, e, sc, fn) -> str:
        """`lambda v: e` (nothing remembered across it: `:=` would bind in the lambda)."""
        if fn is None:
            return f"lambda {v}: {self.x(e, sc, fn)}"
        fn.lambdas += 1
        try:
            return f"lambda {v}: {self.x(e, sc, fn)}"
        finally:
            fn.lambdas -= 1

    def count_over_ids(self, e, sc, fn) -> Optional[str]:
        """`count(ZONE where COND)` as a count over the zone's card ids, when COND reads
        nothing of a card but its id and derived properties (see `only_id_reads`); else None."""
        if fn is None or self.hinting or self.item_ty(e.source, sc) != "card":
            return None   # (in a hint, each card is read as a card: its reads are watched)
        with fn.in_iterable():
            ids = self.zone_ids(e.source, sc, fn)
        if ids is None:
            return None
        v, inner = self._it_scope(e, sc, fn)
        b = inner.names["it"]
        if not self.only_id_reads([e.cond], inner, b):
            return None
        self._id_vars.add(v)
        with fn.looping(v):
            cond = self.x(e.cond, inner, fn)
        return f"len([1 for {v} in {ids} if {cond}])"

    def x_GroupBy(self, e, sc, fn):
        grouped = self.group_by_var(e, sc, fn)
        if grouped is None:
            src = self.seq(e.source, sc, fn, lazy=True)
            v, inner = self._it_scope(e, sc, fn)
            grouped = f"_group_by(eng, {src}, {self.lambda_of(v, e.key, inner, fn)})"
        if fn is not None and self.ty(e.source, sc) == "zone" and self.player_zone_call(e.source) \
                and self.ty(e.source.args[0], sc) == "player" and e.source.args[0].__class__ is A.Name:
            # a player's zone, often empty: no groups, without making any
            return f"({grouped} if {self.zone_list(e.source, sc, fn)} else [])"
        return grouped

    def group_by_var(self, e, sc, fn) -> Optional[str]:
        """`ZONE group by VAR` (a zone's cards, VAR a card variable) as `_group_by_var` over
        the zone's ids; None for any other `group by` (in a hint, each card is read as a
        card: its reads are watched)."""
        key = e.key
        if fn is None or self.hinting or self.item_ty(e.source, sc) != "card" \
                or not isinstance(key, A.Name) or self.local_of(key, sc) is not None \
                or self.meaning(key).kind != "it" or card_attr_meaning(self.rs, key.id) != "var":
            return None
        with fn.in_iterable():
            ids = self.zone_ids(e.source, sc, fn)
        return None if ids is None else f"_group_by_var(eng, {ids}, {key.id!r})"

    def x_SortBy(self, e, sc, fn):
        src = self.seq(e.source, sc, fn)
        v, inner = self._it_scope(e, sc, fn)
        return f"_sort_by(eng, {src}, {self.lambda_of(v, e.key, inner, fn)}, {self.k(e)})"

    def ids_of(self, e, sc, fn) -> Optional[str]:
        """Python for a new list of the ids of the cards of a zone expression, top first (a
        shared zone, a player's zone, or a sum of them); None for anything else."""
        if isinstance(e, A.BinOp) and e.op == "+" and self.ty(e, sc) == "cards":
            a, b = self.zone_ids(e.left, sc, fn), self.zone_ids(e.right, sc, fn)
            return None if a is None or b is None else f"[*{a}, *{b}]"
        ids = self.zone_ids(e, sc, fn)
        return None if ids is None else f"list({ids})"
