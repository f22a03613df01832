"""The generator's statements: each CGL statement as Python statements."""
from __future__ import annotations


from ..base import ast as A
from ..check.typecheck import Binding as _Binding
from ..check.typecheck import Scope
from ..check.resolver import call_meaning, deterministic_expr
from ..base.protocol import MAX_NUMBER
from .runtime import Unsupported
from .writer import _Fn


class Statements:
    """`s_<Node>` for every statement node (a mixin of CodeGen)."""

    def call(self, fn: _Fn, s, line, gen=True):
        """A call into the engine, with errors pointing at statement `s` (as `Engine.run` does);
        `line` may be a list of lines, written as they are (the decision's halves, say)."""
        fn.emit("try:")
        if isinstance(line, list):
            for ln in line:
                fn.emit("    " + ln)
        else:
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
        held = fn.held_store
        fn.held_store = None   # (kept only from one `set` of a card's variable to the next: `held_set`)
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None or isinstance(s, A.CallStmt) and not self._callable(s):
            self.fallback(fn, s, sc)  # the tree walker's `run` counts the step
            return
        ks = self.k(s)
        mine = self.held_set(s, sc)
        if held is not None and mine is held[0]:
            fn.held_store = held
        fn.emit("st.steps += 1")
        if self.budget:
            fn.emit(f"if st.steps > _lim: raise _toolong(eng, {ks})")
            f = fn
            while f is not None:        # it reads the budget of the function it is written in
                f.limited = True
                f = f.parent
        if id(s) in self.facts.past_parts:   # as `Engine.run` (Trials.trial_past_parts)
            fn.emit("if st.trying: eng.trial_past_parts()")
        method(fn, s, sc, ks)
        if mine is None:   # (a statement with blocks of its own: a store kept inside them stays there)
            fn.held_store = None
        if self.rs.checks and s.__class__ in A.CHANGES:
            fn.held_store = None
            if isinstance(s, A.Set) and self.facts.check_vars:   # as `Engine.x_set` does
                fn.emit("st.changes += 1")
            # as `Engine.run`: the one place a statement settles the game
            fn.emit("if st.changes != st.settled: yield from eng.settle()")

    def _callable(self, s) -> bool:
        proc = self.rs.procedures.get(s.name)
        return proc is not None and len(proc.params) == len(s.args)

    def assign(self, fn: _Fn, sc: Scope, name: str, value: str):
        """Assign a local CGL name (which is bound)."""
        b = sc.find(name)
        if b.fn is not fn:
            fn.nonlocals.add(b.var)
        fn.emit(f"{self.ref(b)} = {value}")

    def fallback(self, fn: _Fn, s, sc: Scope):
        """Run one statement on the tree walker, with the locals handed over and back."""
        flat = sc.flat()
        env = self.fresh("env")
        items = ", ".join(f"{k!r}: {self.ref(b)}" for k, b in flat.items())
        fn.emit(f"{env} = _mkenv({{{items}}})")
        fn.emit(f"yield from eng.run({self.k(s)}, {env})")
        assigned = {n.target.id for n in A.walk(s) if isinstance(n, A.Set) and isinstance(n.target, A.Name)}
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
        fn.emit(f"{self.ref(b)} = {v}")

    # static types whose values are never a number or a list: `set … = ` them needs no `_big`
    _SMALL = frozenset(("card", "player", "bool", "zone"))   # (a text may be too long: MAX_TEXT)

    @staticmethod
    def small_constant(e) -> bool:
        """A literal within the limits of values (`none`, a text, a number up to 10^18, the
        empty list)."""
        if isinstance(e, A.Int):
            return -MAX_NUMBER <= e.value <= MAX_NUMBER
        if isinstance(e, A.ListLit):
            return not e.items
        return isinstance(e, A.Const) and (e.value is None or isinstance(e.value, (bool, str)))

    def joined_lists(self, e, sc) -> bool:
        """`LIST + LIST`, written as `_cat` (x_BinOp), which keeps its list within MAX_LIST."""
        listy = self.LISTY | {"zone"}
        return isinstance(e, A.BinOp) and e.op == "+" and self.ty(e.left, sc) in listy and self.ty(e.right, sc) in listy

    def held_set(self, s, sc):
        """The binding of the local card `c` when `s` is `set c.VAR = CONSTANT`, a card's
        variable set to a value that runs nothing: consecutive such statements on the same
        local share the store `State.card_store` gave the first (nothing between them can
        change which dict that is). None otherwise."""
        t = s.target if isinstance(s, A.Set) else None
        if not (isinstance(t, A.Attr) and s.op == "=" and isinstance(t.obj, A.Name) and t.name in self.card_vars
                and self.small_constant(s.value) and self.ty(t.obj, sc) == "card"):
            return None
        b = self.local_of(t.obj, sc)
        return b if b is not None and not b.maybe else None

    def s_Set(self, fn, s, sc, ks):
        v = self.guard(fn, s.value, sc)
        if s.op == "=" and self.ty(s.value, sc) not in self._SMALL and not self.small_constant(s.value) \
                and not self.joined_lists(s.value, sc):
            v = f"_big(eng, {v}, {ks})"   # (as `_apply` does for `=`: the limits of values)
        t = s.target
        if isinstance(t, A.Name):
            b = self.local_of(t, sc)
            if b is not None and not b.maybe:
                if s.op == "=":
                    self.assign(fn, sc, t.id, v)
                else:
                    new = self.fresh()
                    fn.emit(f"{new} = _apply({s.op!r}, {self.ref(b)}, {v}, {ks}, eng)")
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
                store = self.fresh("store")
            else:
                sure = oty == "player"
                if not sure:
                    fn.emit(f"if {o}.__class__ is Player:")
                store = f"st.player_vars[{o}.seat]"
            fn.ind += not sure
            held = self.held_set(s, sc) if sure else None
            if held is not None and fn.held_store is not None:
                store = fn.held_store[1]   # (the previous statement's: `held_set`)
            elif name in self.card_vars:   # (`State.card_store`: the one way card variables are written;
                # a state that owns all its cards' variables, as a game's does, hands them out as they are)
                fn.emit(f"{store} = st.card_vars[{o}.id] if st.own_cards is None else st.card_store({o}.id)")
                if held is not None:
                    fn.held_store = (held, store)
            if name not in self.card_vars and s.op != "=":   # (the player's variables, looked up once)
                vars_of = self.fresh("vs")
                fn.emit(f"{vars_of} = {store}")
                store = vars_of
            new = v if s.op == "=" else f"_apply({s.op!r}, {store}[{name!r}], {v}, {ks}, eng)"
            self.write_var(fn, store, name, f"{o}.id", lambda: self.call(fn, s, f"{store}[{name!r}] = {new}", gen=False))
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
        self.if_chain(fn, s.branches, s.otherwise, sc)

    def if_chain(self, fn, branches, otherwise, sc):
        """`if … elif … else …`: each condition in turn, but a run of conditions that compare
        one value with texts is one look-up (`text_switch`)."""
        depth = 0
        for i, (cond, body) in enumerate(branches):
            switch = self.text_switch(branches[i:], sc)
            if switch is not None:
                self.write_switch(fn, switch, branches[i + len(switch[2]):], otherwise, sc)
                fn.ind -= depth
                return
            c = self.guard(fn, cond, sc)
            fn.emit(f"if {c}:")
            fn.ind += 1
            self.block(fn, body, sc)
            fn.ind -= 1
            fn.emit("else:")
            fn.ind += 1
            depth += 1
        self.block(fn, otherwise, sc)
        fn.ind -= depth

    def s_For(self, fn, s, sc, ks):
        src = self.guard(fn, s.source, sc)
        items = self.fresh()
        src_ty = self.ty(s.source, sc)
        if src_ty in self.LISTY:
            self.call(fn, s, f"{items} = list({src})", gen=False)
        else:
            self.call(fn, s, f"{items} = list(_aslist(eng, {src}, {self.k(s.source)}))", gen=False)
        if s.by is not None:   # `ordered by P`: P orders the items first (Engine.s_order)
            by = self.guard(fn, s.by, sc)
            chooser = self.fresh()
            self.call(fn, s, f"{chooser} = eng.as_player({by}, {self.k(s.by)})", gen=False)
            prompt = self.guard(fn, s.prompt, sc) if s.prompt is not None else "None"
            scores = self.item_scores(fn, s, sc, src_ty)   # (`prefer E`: each item's score)
            self.call(fn, s, f"{items} = yield from eng.s_order({ks}, {items}, {chooser}, {prompt}, {scores})",
                      gen=False)
        inner = sc.child()
        v = self.fresh("v_" + s.name + "_")
        fn.loop += 1
        # the loop variable has its items' type unless the body sets it to something else
        set_in_body = any(isinstance(n, A.Set) and isinstance(n.target, A.Name) and n.target.id == s.name
                          for n in A.walk(s.body))
        inner.names[s.name] = _Binding(v, False, fn, None if set_in_body else self.elem_ty(src_ty))
        fn.loop -= 1
        sets = self.constant_card_sets(fn, s, inner) if s.by is None else None
        if sets is not None:
            self.quiet_sets_loop(fn, v, items, sets)
            fn.emit("else:")
            fn.ind += 1
        fn.emit(f"for {v} in {items}:")
        self.loop_body(fn, s.body, inner)
        if sets is not None:
            fn.ind -= 1

    def constant_card_sets(self, fn, s, sc):
        """[(variable, value's source)] when the body of `for c in CARDS` is only `set c.VAR =
        CONSTANT` statements (the round's start resetting every card), which can neither fail
        nor run anything: None otherwise (as when state checks settle after each `set`, or a
        trial's way through may end at one)."""
        stmts = s.body.stmts if s.body is not None else []
        if not stmts or self.rs.checks:
            return None
        sets = []
        for one in stmts:
            t = one.target if isinstance(one, A.Set) else None
            if not (isinstance(t, A.Attr) and isinstance(t.obj, A.Name) and t.obj.id == s.name
                    and self.held_set(one, sc) is not None) or id(one) in self.facts.past_parts:
                return None
            sets.append((t.name, self.x(one.value, sc, fn)))
        return sets

    def quiet_sets_loop(self, fn, v, items, sets):
        """`for` over cards whose body is only constant `set`s of their variables
        (`constant_card_sets`): the variables written directly, card after card, the steps
        counted all at once. Only when the budget holds for all of them and the state owns its
        cards' variables (a game's, not a trial's copy); else (the `else:` the caller writes)
        the loop as it is, statement by statement, to stop at the very statement the budget
        runs out at. The steps, the values and the derived properties forgotten are the same."""
        n = len(sets)
        cond = "st.own_cards is None" + (f" and st.steps + {n} * len({items}) <= _lim" if self.budget else "")
        fn.emit(f"if {cond}:")
        fn.ind += 1
        cv, store = self.fresh("cv"), self.fresh("store")
        fn.emit(f"{cv} = st.card_vars")
        caches = {}
        for name, _ in sets:
            for d in self.facts.derives_reading.get(name, ()):
                if d not in caches:
                    caches[d] = self.fresh("dc")
                    fn.emit(f"{caches[d]} = eng.dcache[{d!r}]")
        fn.emit(f"for {v} in {items}:")
        fn.ind += 1
        fn.emit(f"{store} = {cv}[{v}.id]")
        for name, value in sets:
            self.write_var(fn, store, name, f"{v}.id", lambda: fn.emit(f"{store}[{name!r}] = {value}"), caches.get)
        fn.ind -= 1
        fn.emit(f"st.steps += {n} * len({items})")
        fn.ind -= 1

    def write_var(self, fn, store, name, oid, write, cache=None) -> None:
        """`write()`, writing variable `name` into `store` (card `oid`'s or a player's), then
        the cached derived properties that read the variable forgotten for the card, unless
        it holds the very same value as before (`cache(d)`: a local holding derive `d`'s
        cache list, else `eng.dcache[d]`)."""
        reading = self.facts.derives_reading.get(name, ())
        counted = name in self.facts.counted_vars   # (a card's: `State.count_var`)
        if reading or counted:
            old = self.fresh("old")
            fn.emit(f"{old} = {store}[{name!r}]")
        write()
        if counted:
            fn.emit(f"if ({old} is None) is not ({store}[{name!r}] is None): st.count_var({name!r}, {old}, {store}[{name!r}])")
        if reading:
            fn.emit(f"if {store}[{name!r}] is not {old}:")
            for d in reading:
                fn.emit(f"    {(cache and cache(d)) or f'eng.dcache[{d!r}]'}[{oid}] = _UNSET")

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
        self.call_then(fn, s, sc, f"eng.s_move({ks}, {a}, {b})")

    def s_Swap(self, fn, s, sc, ks):
        a = self.guard(fn, s.a, sc)
        b = self.guard(fn, s.b, sc)
        self.call_then(fn, s, sc, f"eng.s_swap({ks}, {a}, {b})")

    def call_then(self, fn, s, sc, line: str, into: str | None = None):
        """A card statement's call (as `call`), and its `then { … }` block when it moved a
        card (each `s_…` returns how many it moved, or with `draw … as NAME` what it drew,
        kept in `into`; see Engine.x_move)."""
        if s.then is None and into is None:
            self.call(fn, s, line)
            return
        moved = into or self.fresh("moved")
        if s.then is None:
            self.call(fn, s, f"{moved} = yield from {line}", gen=False)
            return
        self.call(fn, s, f"{moved} = yield from {line}", gen=False)
        fn.emit(f"if {moved}:")   # as Engine.then_block: one change, settled after the block
        fn.emit("    st.holding += 1")
        fn.emit("    try:")
        fn.ind += 2
        self.block(fn, s.then, sc)
        fn.ind -= 2
        fn.emit("    finally:")
        fn.emit("        st.holding -= 1")

    def s_Draw(self, fn, s, sc, ks):
        n = self.guard(fn, s.count, sc)
        src = self.guard(fn, s.source, sc) if s.source else "None"
        dest = self.guard(fn, s.dest, sc) if s.dest else "None"
        if s.one and s.source is None and s.then is None and s.name is None:
            # the commonest draw: see CompiledEngine.s_draw1
            self.run_moved(fn, s, f"eng.s_draw1({ks}, {dest})")
        elif s.name is not None:   # `as NAME`: bound to what s_draw returns, read by `then` and after
            b = sc.names.get(s.name)
            if b is None:
                b = sc.names[s.name] = _Binding(self.fresh("v_" + s.name + "_"), False, fn)
            self.call_then(fn, s, sc, f"eng.s_draw({ks}, {n}, {src}, {dest})", into=str(self.ref(b)))
        else:
            self.call_then(fn, s, sc, f"eng.s_draw({ks}, {n}, {src}, {dest})")

    def run_moved(self, fn, s, line):
        """Call a one-card move or an `emit` that runs at once (`s_draw1`, `s_discard1`,
        `s_emit`), then what waits for it, if anything, with errors pointing at statement `s`."""
        g = self.fresh("g")
        fn.emit("try:")
        fn.emit(f"    {g} = {line}")
        fn.emit(f"    if {g} is not None: yield from {g}")
        fn.emit(f"except _PE as _x: raise _runerr(eng, {self.k(s)}, _x) from None")

    def s_Deal(self, fn, s, sc, ks):
        n = self.guard(fn, s.count, sc)
        src = self.guard(fn, s.source, sc) if s.source else "None"
        self.call_then(fn, s, sc, f"eng.s_deal({ks}, {n}, {src})")

    def s_Discard(self, fn, s, sc, ks):
        a = self.guard(fn, s.cards, sc)
        if s.dest is None and s.then is None:
            self.run_moved(fn, s, f"eng.s_discard1({ks}, {a})")
        else:
            dest = self.guard(fn, s.dest, sc) if s.dest is not None else "None"
            self.call_then(fn, s, sc, f"eng.s_discard({ks}, {a}, {dest})")

    def s_Shuffle(self, fn, s, sc, ks):
        z = self.guard(fn, s.zone, sc)
        self.call(fn, s, f"eng.s_shuffle({ks}, {z})")

    def s_Cut(self, fn, s, sc, ks):
        z = self.guard(fn, s.zone, sc)
        at = self.guard(fn, s.at, sc) if s.at is not None else "None"
        self.call(fn, s, f"eng.s_cut({ks}, {z}, {at})")

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

    def s_KnockOut(self, fn, s, sc, ks):
        w = self.guard(fn, s.who, sc)
        self.call(fn, s, f"eng.s_knock_out({ks}, {w})", gen=False)

    def s_Give(self, fn, s, sc, ks):
        w = self.guard(fn, s.player, sc)
        self.call(fn, s, f"eng.s_give({ks}, {w})", gen=False)

    def s_GiveExtra(self, fn, s, sc, ks):
        w = self.guard(fn, s.player, sc)
        self.call(fn, s, f"eng.s_give_extra({ks}, {w})", gen=False)

    def s_ReverseOrder(self, fn, s, sc, ks):
        self.call(fn, s, f"eng.s_reverse({ks})", gen=False)

    def s_Emit(self, fn, s, sc, ks):
        vals = [(k, self.guard(fn, v, sc)) for k, v in s.fields]
        d = "{" + ", ".join(f"{k!r}: {v}" for k, v in vals) + "}"
        self.run_moved(fn, s, f"eng.s_emit({ks}, {d})")

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
        env_fn = "lambda: _mkenv({" + ", ".join(f"{k!r}: {self.ref(b)}" for k, b in flat.items()) + "})"
        self.call(fn, s, f"eng.s_act({ks}, {by}, {env_fn})")

    def action_names(self) -> set:
        """Every name the actions' rules mention (other than their own parameter and `actor`)."""
        if not hasattr(self, "_action_names"):
            names = set()
            for a in self.rs.actions:
                names |= {n.id for n in A.walk(a) if isinstance(n, A.Name)} - {a.param, "actor", "it"}
            self._action_names = names
        return self._action_names

    def target_hint(self, t: A.TargetDecl) -> str:
        """A `target` declaration's `prefer` as a generated hint: a function of the card, its
        player and the option (Engine.target_scores)."""
        fname = self.fresh("TH")
        f = _Fn.function(self, fname, ["e_card", "e_player", "e_value"])
        sc = Scope(fn=f)
        sc.names["card"] = _Binding("e_card", False, f, "card")
        sc.names["player"] = _Binding("e_player", False, f, "player")
        dsc = Scope()
        dsc.names["card"], dsc.names["player"] = sc.names["card"], sc.names["player"]
        sc.names[t.var] = sc.names["it"] = _Binding("e_value", False, f, self.elem_ty(self.ty(t.domain, dsc)))
        with self.hint_mode(True):   # (a hint: its reads watched, Expressions.hint_mode)
            f.emit("try:")
            f.emit(f"    return {self.x(t.prefer, sc, f)}")
            f.emit(f"except _PE as _x: raise _everr(eng, {self.k(t.prefer)}, _x) from None")
        self.defs += f.source() + [""]
        return fname

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
            f = _Fn.function(self, fname, ["e_actor"] if key == "domain" else ["e_actor", "e_value"])
            sc = Scope(fn=f)
            sc.names["actor"] = _Binding("e_actor", False, f, "player")
            if key != "domain" and a.param:
                sc.names[a.param] = _Binding("e_value", False, f, dom_ty)
                if key == "prefer":   # (the tree walker's `action_hint` binds `it` too)
                    sc.names["it"] = sc.names[a.param]
            if key == "body":
                f.emit("st = eng.state")
                if self.budget:
                    f.emit("_lim = eng.step_limit")
                f.emit("if 0: yield")
                self.block(f, node, sc)
            else:
                with self.hint_mode(key == "prefer"):   # (a hint: its reads watched, Expressions.hint_mode)
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
                pv = self.ref(b) if not b.maybe else f"({self.ref(b)} if {b.var} is not _MISSING else None)"
                fn.emit(f"{seat} = _asker_seat(eng, {pv})")
        prompt = self.guard(fn, s.prompt, sc) if s.prompt else repr("Do it?")
        yes = self.fresh()
        self.call(fn, s, [f"{yes} = eng.yes_no({seat}, {prompt}, {self.k(s.span)})",  # (ask_yes_no's halves)
                          f"{yes} = eng.yes_no_took({yes}, (yield {yes}))"])
        fn.emit(f"if {yes}:")
        fn.ind += 1
        self.block(fn, s.body, sc)
        fn.ind -= 1
        if s.otherwise is not None:
            fn.emit("else:")
            fn.ind += 1
            self.block(fn, s.otherwise, sc)
            fn.ind -= 1

    def choose_count(self, fn, s, sc) -> str:
        """`c_ask`'s last argument for `choose LO..HI`: its bounds, evaluated now, LO first
        (as the tree walker's `x_choose`; each in a temporary, so a die rolls in that order);
        nothing without a count."""
        if s.lo is None:
            return ""
        if isinstance(s.lo, A.Int) and isinstance(s.hi, A.Int):
            return f", ({s.lo.value}, {s.hi.value})"
        bounds = []
        for e in (s.lo, s.hi):
            t = self.fresh("n")
            fn.emit(f"{t} = {self.guard(fn, e, sc)}")
            bounds.append(t)
        return f", ({bounds[0]}, {bounds[1]})"

    def item_scores(self, fn, s, sc, list_ty) -> str:
        """The scores of `s.prefer` (`choose … prefer E`, `for … ordered by P prefer E`) as a
        function of the options: E with `s.name` and `it` bound to each, written as a hint
        (its reads watched: walker/hints.py, Expressions.hint_mode); "None" without one."""
        if s.prefer is None:
            return "None"
        h = self.fresh("h")
        inner = sc.child()
        b = inner.names[s.name] = inner.names["it"] = _Binding(h, False, fn, self.elem_ty(list_ty))
        with self.hint_mode(True):
            over = self.def_over_options(s.prefer, inner, b, fn)
            if over is not None:
                return f"lambda _o: eng.hint_scores_of({self.k(s.prefer)}, {over}, _o)"
            hint = self.lambda_of(h, s.prefer, inner, fn)
        return f"lambda _o: eng.hint_scores({self.k(s.prefer)}, {hint}, _o)"

    def def_over_options(self, e, sc, b, fn):
        """For `prefer E` where E is `f(…)` or `-f(…)`, a def called with the option (binding
        `b`) as one argument and, as the others, what reads nothing of it and rolls no dice
        (the greedy discard's `prefer -usefulness(p, c)`): Python for a function of the
        options list giving all their values (`hint_def_over`: the def's hint variant written
        as a loop over them, its setup read once, not once per option), the other arguments
        evaluated once, before it (the same values each time: nothing changes while a hint
        is evaluated); else None."""
        call = e.operand if isinstance(e, A.Neg) else e
        if not (isinstance(call, A.Call) and call_meaning(self.rs, call.name) == "def"):
            return None
        d = self.rs.defs[call.name]
        if not d.params or len(call.args) != len(d.params):
            return None
        at = [i for i, a in enumerate(call.args) if isinstance(a, A.Name) and self.local_of(a, sc) is b]
        if len(at) != 1:
            return None
        others = [a for i, a in enumerate(call.args) if i != at[0]]
        for a in others:
            if not deterministic_expr(self.rs, a):
                return None
            for n in A.walk(a):
                if isinstance(n, A.Name) and (self.meaning(n).kind in ("it", "maybe") or self.local_of(n, sc) is b):
                    return None
        types = [self.ty(a, sc) for a in call.args]
        with self.hint_mode(True):   # (restored after, whatever the body writes)
            negated = None if call is e else "" if self.ty(call, sc) == "int" or self.surely_int(call) else self.k(call)
            over = self.hint_def_over(call.name, types, at[0], negated)
        fn.lambdas += 1   # (written inside a lambda: nothing kept in the function's variables)
        try:
            args = "".join(", " + self.x(a, sc, fn) for a in others)
        finally:
            fn.lambdas -= 1
        return f"lambda _o: {over}(eng{args}, _o)"

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
                env_fn = "lambda: _mkenv({" + ", ".join(f"{k!r}: {self.ref(b)}" for k, b in flat.items()) + "})"
            self.call(fn, s, f"{opts} = eng.c_options({ks}, {dom}, {env_fn})", gen=False)
        if s.by and self.ty(s.by, sc) == "player":
            chooser = self.guard(fn, s.by, sc)
        elif s.by:
            by = self.guard(fn, s.by, sc)
            chooser = self.fresh()
            self.call(fn, s, f"{chooser} = eng.as_player({by}, {self.k(s.by)})", gen=False)
        else:
            chooser = "eng.players[st.current]"
        count = self.choose_count(fn, s, sc)
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
            fn.nest(f2)
            prompt = pf
        scores = self.item_scores(fn, s, sc, self.ty(s.domain, sc)) if s.prefer is not None else "None"
        val = self.fresh("c")
        self.call(fn, s, [f"{val} = eng.c_ask({ks}, {opts}, {chooser}, {prompt}, {scores}{count})",  # (c_decide's
                          f"if {val}.__class__ is Decision: {val} = eng.c_took({ks}, {val}, (yield {val}))"])  # halves)
        fn.emit(f"if {val} is OTHERWISE:")
        fn.ind += 1
        self.block(fn, s.otherwise, sc)
        fn.ind -= 1
        if self.simultaneous:
            fn.emit("elif st.deferred is not None:")
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
            fn.nest(f2)
            fn.emit(f"st.deferred.append({df})")
            fn.ind -= 1
        fn.emit("else:")
        fn.ind += 1
        inner = sc.child()
        v = self.fresh("v_" + s.name + "_")
        inner.names[s.name] = _Binding(v, False, fn)
        fn.emit(f"{v} = {val}")
        self.block(fn, s.body, inner)
        fn.ind -= 1

    def block_then(self, fn, body, sc, finally_line: str):
        """`body` as a `try` whose `finally` runs `finally_line`, however the block ends (an
        answer awaited, a shortfall, the game over)."""
        fn.emit("try:")
        fn.ind += 1
        self.block(fn, body, sc)
        fn.ind -= 1
        fn.emit("finally:")
        fn.emit(f"    {finally_line}")

    def s_Require(self, fn, s, sc, ks):
        """As `Engine.x_require`: the block between `require_begin` and `require_end`, whose
        answer runs the `then` block."""
        tok = self.fresh("rq")
        last = ", True" if id(s) in self.facts.last_parts else ""
        fn.emit(f"{tok} = eng.require_begin()")
        self.block_then(fn, s.body, sc, f"eng.state.require_depth = {tok}[0]")
        if s.then is None:
            fn.emit(f"eng.require_end({tok}{last})")
            return
        fn.emit(f"if eng.require_end({tok}{last}):")
        fn.ind += 1
        self.block(fn, s.then, sc)
        fn.ind -= 1

    def s_ChooseTargets(self, fn, s, sc, ks):
        """As `Engine.x_choose_targets`: the targets named (`s_choose_targets`), the block,
        and the targets it named forgotten (`targets_end`)."""
        card = self.guard(fn, s.card, sc)
        by = self.guard(fn, s.by, sc)
        cv, who, added = self.fresh(), self.fresh(), self.fresh("tg")
        fn.emit(f"{cv} = {card}")
        self.call(fn, s, f"{who} = eng.as_player({by}, {self.k(s.by)})", gen=False)
        self.call(fn, s, f"{added} = yield from eng.s_choose_targets({ks}, {cv}, {who})", gen=False)
        fn.emit(f"if {added} is not None:")
        fn.ind += 1
        self.block_then(fn, s.body, sc, f"eng.targets_end({cv}, {added})")
        fn.ind -= 1
        if s.otherwise is not None:
            fn.emit("else:")
            fn.ind += 1
            self.block(fn, s.otherwise, sc)
            fn.ind -= 1

    def s_Simultaneously(self, fn, s, sc, ks):
        outer, waiting = self.fresh(), self.fresh()
        fn.emit("st.secret_depth += 1")
        fn.emit("st.simul_no += 1")
        fn.emit(f"{outer} = st.deferred")
        fn.emit("st.deferred = []")
        fn.emit("try:")
        fn.ind += 1
        self.block(fn, s.body, sc)
        fn.emit(f"{waiting} = st.deferred")
        fn.ind -= 1
        fn.emit("finally:")
        fn.emit(f"    st.deferred = {outer}")
        fn.emit("    st.secret_depth -= 1")
        self.call(fn, s, f"eng.s_simul_end({waiting})")
