"""Compile expressions into Python closures, once per ruleset.

The tree-walking interpreter spent most of its time re-deciding, at every visit of a
node, what the node is and what a name means. Here each expression node becomes a
closure `fn(engine, env) -> value` the first time it is evaluated; the closure is kept
on the ruleset and shared by every game played with it. Semantics are the tree
walker's: the same seed plays the same game.

What is decided once instead of at every visit:
- the evaluation function of each node (no dispatch on type);
- for a bare name: whether it can ever be a local (it is one of the names the ruleset
  binds anywhere), whether it can be a property of `it`, and what it means globally;
- constants (numbers, texts without `{…}`, options, enum members) become constants.
"""
from __future__ import annotations

import operator

from ..runtime import builtins as B
from ..check.resolver import call_meaning, facts, use_of
from ..runtime.state import Group, Player, ZoneRef
from ..base.protocol import MAX_TEXT
from ..runtime.values import (_add, _arith, _dice, _attr, _eq, _hashable, _in, _kind, _long_text, _num, _order,
                              _rememberable, _show)


class Env:
    """Local names: a chain of dicts (parameters, `let`, `choose`, loop variables)."""

    __slots__ = ("vars", "parent")

    def __init__(self, vars=None, parent=None):
        self.vars = vars if vars is not None else {}
        self.parent = parent

    def lookup(self, name):
        e = self
        while e is not None:
            v = e.vars
            if name in v:
                return True, v[name]
            e = e.parent
        return False, None

    def assign(self, name, value) -> bool:
        e = self
        while e is not None:
            if name in e.vars:
                e.vars[name] = value
                return True
            e = e.parent
        return False

    def child(self, vars=None):
        return Env(vars if vars is not None else {}, self)


def event_env(ev) -> Env:
    """What a trigger, reaction, replacement or zone rule sees of its event: `event`, `card`,
    `player`, `it` (the card) and a custom event's own fields (`emit hit(amount: 3)`). The
    one place this is said, for both engines (the generator binds the same names,
    `CodeGen.event_function`)."""
    env = Env({"event": ev, "card": ev.card, "player": ev.player, "it": ev.card})
    if ev.fields:
        env.vars.update(ev.fields)
    return env


_MISSING = object()


class Compiler:
    """Per-ruleset: turns expression nodes into closures and remembers them."""

    def __init__(self, rs):
        self.rs = rs
        self.cache: dict = {}
        self.facts = facts(rs)

    def __call__(self, e):
        entry = self.cache.get(id(e))
        if entry is None:
            fn = getattr(self, "c_" + type(e).__name__)(e)
            self.cache[id(e)] = (e, fn)  # the node is kept so its id is never reused
            return fn
        return entry[1]

    # ------------------------------------------------------------ leaves
    def c_Int(self, e):
        v = e.value
        return lambda eng, env: v

    def c_Const(self, e):
        v = e.value
        return lambda eng, env: v

    def c_Text(self, e):
        c = e.constant
        if c is not None:
            return lambda eng, env: c
        parts = [p if isinstance(p, str) else self(p) for p in e.parts]

        def text(eng, env):
            if eng.hint_seat is not None:   # inside a hint, a card is named only if its seat sees it
                s = "".join(p if isinstance(p, str) else _show(eng.hint_sees(p(eng, env))) for p in parts)
            else:
                s = "".join(p if isinstance(p, str) else _show(p(eng, env)) for p in parts)
            if len(s) > MAX_TEXT:   # (a def doubling a text builds it without any `set`)
                raise _long_text(eng, e, len(s))
            return s
        return text

    def c_Dice(self, e):
        return lambda eng, env: _dice(eng, e)

    def c_Name(self, e):
        """A bare name, as the resolver pass decided once (`resolver.Use`): a local, the
        property of the nearest `it`, or its global meaning. Only a local is looked up in
        the environment, by the name it was bound with."""
        use = use_of(self.rs, e)
        kind, name = use.kind, use.name
        glob = self.global_name(e, use)
        if kind == "global":
            return glob
        if kind == "local":
            def local(eng, env):
                while env is not None:
                    v = env.vars
                    if name in v:
                        return v[name]
                    env = env.parent
                # (never in play, where the resolver pass saw it bound: an expression read out of its place)
                raise eng.fail(e, f"`{name}` has no value here: it is bound by {use.binder.how} "
                               f"at {use.binder.span}" if use.binder and use.binder.span else
                               f"`{name}` has no value here")
            return local

        def it_or_global(eng, env):
            while env is not None:
                v = env.vars
                if "it" in v:
                    it = v["it"]
                    if it is not None:
                        ok, val = eng.attr_of(it, name)
                        if ok:
                            return val
                    break
                env = env.parent
            return glob(eng, None)
        if kind == "it":
            return it_or_global
        if not use.it:
            def maybe_local(eng, env):
                while env is not None:
                    v = env.vars
                    if name in v:
                        return v[name]
                    env = env.parent
                return glob(eng, None)
            return maybe_local

        def maybe_local_or_it(eng, env):
            it = _MISSING
            e2 = env
            while e2 is not None:
                v = e2.vars
                if name in v:
                    return v[name]
                if it is _MISSING and "it" in v:
                    it = v["it"]
                e2 = e2.parent
            if it is not _MISSING and it is not None:
                ok, val = eng.attr_of(it, name)
                if ok:
                    return val
            return glob(eng, None)
        return maybe_local_or_it

    def global_name(self, e, use):
        """What a bare name means when it is neither a local nor a property of `it`."""
        name = use.name
        rs = self.rs
        meaning = use.meaning
        if meaning == "option":
            return lambda eng, env: eng.opts[name]
        if meaning == "global":
            if rs.vars[name].sight != "public":
                def watched(eng, env):
                    if eng.hint_seat is not None:   # (inside a hint: walker/hints.py)
                        eng.hint_reads(name)
                    return eng.state.globals[name]
                return watched
            return lambda eng, env: eng.state.globals[name]
        if meaning == "def":
            body = self(rs.defs[name].expr)
            return lambda eng, env: body(eng, Env())
        if meaning == "data":
            t = rs.tables[name]
            return lambda eng, env: t
        if meaning == "zone":
            z = ZoneRef(name, None)
            return lambda eng, env: z
        if meaning == "enum":
            return lambda eng, env: name
        if meaning == "builtin":
            run = B.VALUES[name].run
            return lambda eng, env: run(eng)

        def unknown(eng, env):
            raise eng.fail(e, f"unknown name `{name}`")
        return unknown

    # ------------------------------------------------------------ compound
    def c_Attr(self, e):
        obj = self(e.obj)
        name = e.name

        return lambda eng, env: _attr(eng, obj(eng, env), name, e)

    def c_Call(self, e):
        meaning = call_meaning(self.rs, e.name)
        if meaning is None:
            def unknown(eng, env):
                raise eng.fail(e, f"unknown function `{e.name}`")
            return unknown
        return getattr(self, "call_" + meaning)(e, [self(a) for a in e.args])

    def call_def(self, e, args):
        name = e.name
        d = self.rs.defs[name]
        params = d.params
        # the body is compiled on first call: a def may call itself
        body_box = []
        if name in self.facts.static_defs:
            memo = self.facts.memo(name)

            def call_static_def(eng, env):
                eng.calls += 1
                if eng.calls > eng.call_limit:
                    eng.calls_out(d)
                values = tuple(a(eng, env) for a in args)
                if not _rememberable(values) or eng.hint_seat is not None:
                    # (inside a hint the body is read, its reads watched: walker/hints.py)
                    return self(d.expr)(eng, Env(dict(zip(params, values))))
                try:
                    return memo[values]
                except KeyError:
                    pass
                except TypeError:  # a list argument: nothing to remember it by
                    return self(d.expr)(eng, Env(dict(zip(params, values))))
                if not body_box:
                    body_box.append(self(d.expr))
                memo[values] = result = body_box[0](eng, Env(dict(zip(params, values))))
                return result
            return call_static_def

        def call_def(eng, env):
            eng.calls += 1   # (a doubling recursion runs no statement: Engine.calls_out)
            if eng.calls > eng.call_limit:
                eng.calls_out(d)
            if not body_box:
                body_box.append(self(d.expr))
            return body_box[0](eng, Env(dict(zip(params, [a(eng, env) for a in args]))))
        return call_def

    def call_table(self, e, args):
        name = e.name
        t = self.rs.table_decls[name]
        params = t.params
        # the rows are compiled on first call, as a def's body: a table may call itself
        compiled: list = []

        def call_table(eng, env):
            eng.calls += 1
            if eng.calls > eng.call_limit:
                eng.calls_out(t)
            if not compiled:
                compiled.append(([(self(c), self(v)) for c, v in t.rows],
                                 self(t.default) if t.default is not None else None))
            rows, default = compiled[0]
            local = Env(dict(zip(params, [a(eng, env) for a in args])))
            for cond, val in rows:
                if cond(eng, local):
                    return val(eng, local)
            if default is not None:
                return default(eng, local)
            raise eng.fail(e, f"no row of table `{name}` holds, and it has no `| else ->` row")
        return call_table

    def call_pattern(self, e, args):
        p = self.rs.patterns[e.name]
        return lambda eng, env: eng.match_pattern(p, [a(eng, env) for a in args])

    def call_card_zone(self, e, args):
        name = e.name
        if not args:
            def no_card(eng, env):
                raise eng.fail(e, f"`{name}` is a zone of each card: say which, `{name}(c)`")
            return no_card
        which = args[0]
        if self.rs.zones[name].per_player:   # `per card per player`: `squad(c, p)`
            if len(args) != 2:
                def no_player(eng, env):
                    raise eng.fail(e, f"`{name}` is a zone of each card and player: say whose, `{name}(c, p)`")
                return no_player
            who = args[1]

            def side_of_a_card(eng, env):
                c, p = which(eng, env), who(eng, env)
                if not hasattr(c, "props"):
                    raise eng.fail(e.args[0], f"`{name}(…)` takes a card, got {_kind(c)}")
                if not isinstance(p, Player):
                    raise eng.fail(e.args[1], f"`{name}(c, p)` takes a player after the card, got {_kind(p)}")
                return ZoneRef(name, p.seat, c.id, c.name)
            return side_of_a_card

        def zone_of_a_card(eng, env):
            c = which(eng, env)
            if not hasattr(c, "props"):
                raise eng.fail(e.args[0], f"`{name}(…)` takes a card, got {_kind(c)}")
            return ZoneRef(name, None, c.id, c.name)
        return zone_of_a_card

    def call_player_zone(self, e, args):
        name = e.name
        if not args:
            def no_owner(eng, env):
                raise eng.fail(e, f"`{name}` is a zone of each player: say whose, `{name}(p)`")
            return no_owner
        who = args[0]

        def zone_of_player(eng, env):
            p = who(eng, env)
            if not isinstance(p, Player):
                raise eng.fail(e.args[0], f"expected a player, got {_kind(p)}")
            return ZoneRef(name, p.seat)
        return zone_of_player

    def call_builtin(self, e, args):
        fn = B.FUNCTIONS[e.name].run
        if len(args) == 1:
            a0 = args[0]
            return lambda eng, env: fn(eng, e, [a0(eng, env)])
        return lambda eng, env: fn(eng, e, [a(eng, env) for a in args])

    def c_Possible(self, e):
        args = [self(a) for a in e.call.args]
        return lambda eng, env: eng.possible(e, [a(eng, env) for a in args])

    def c_ListLit(self, e):
        items = [self(i) for i in e.items]
        return lambda eng, env: [i(eng, env) for i in items]

    def c_Comprehension(self, e):
        src, body = self(e.source), self(e.expr)
        cond = self(e.cond) if e.cond is not None else None
        name = e.name

        def comprehension(eng, env):
            out = []
            inner = Env({}, env)
            vars_ = inner.vars
            for x in eng.as_list(src(eng, env), e.source):
                vars_.clear()
                vars_[name] = x
                if cond is None or cond(eng, inner):
                    out.append(body(eng, inner))
            return out
        return comprehension

    def c_BinOp(self, e):
        left, right = self(e.left), self(e.right)
        op = e.op
        if op == "+":
            def add(eng, env):
                a, b = left(eng, env), right(eng, env)
                if type(a) is int and type(b) is int:
                    return a + b
                return _add(eng, a, b, e)
            return add
        return lambda eng, env: _arith(eng, left(eng, env), right(eng, env), e)

    def c_Compare(self, e):
        left, right = self(e.left), self(e.right)
        op = e.op
        if op == "=":
            def eq(eng, env):
                a, b = left(eng, env), right(eng, env)
                if type(a) is str and type(b) is str:
                    return a == b
                return _eq(a, b)
            return eq
        if op == "!=":
            def ne(eng, env):
                a, b = left(eng, env), right(eng, env)
                if type(a) is str and type(b) is str:
                    return a != b
                return not _eq(a, b)
            return ne
        fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        return lambda eng, env: _order(eng, left(eng, env), right(eng, env), e, fn)

    def c_In(self, e):
        left, right = self(e.left), self(e.right)
        if e.negated:
            return lambda eng, env: not _in(eng, left(eng, env), right(eng, env), e)
        return lambda eng, env: _in(eng, left(eng, env), right(eng, env), e)

    def c_And(self, e):
        left, right = self(e.left), self(e.right)
        return lambda eng, env: bool(left(eng, env)) and bool(right(eng, env))

    def c_Or(self, e):
        left, right = self(e.left), self(e.right)
        return lambda eng, env: bool(left(eng, env)) or bool(right(eng, env))

    def c_Not(self, e):
        operand = self(e.operand)
        return lambda eng, env: not operand(eng, env)

    def c_Neg(self, e):
        operand = self(e.operand)
        return lambda eng, env: -_num(operand(eng, env), e.operand, eng)

    def c_IfExpr(self, e):
        cond, then, other = self(e.cond), self(e.then), self(e.otherwise)
        return lambda eng, env: then(eng, env) if cond(eng, env) else other(eng, env)

    def c_Where(self, e):
        src, cond = self(e.source), self(e.cond)

        def where(eng, env):
            out = []
            inner = Env({"it": None}, env)
            vars_ = inner.vars
            for x in eng.as_list(src(eng, env), e.source):
                vars_["it"] = x
                if cond(eng, inner):
                    out.append(x)
            return out
        return where

    def c_GroupBy(self, e):
        src, key = self(e.source), self(e.key)

        def group_by(eng, env):
            groups: dict = {}
            inner = Env({"it": None}, env)
            for x in eng.as_list(src(eng, env), e.source):
                inner.vars["it"] = x
                k = key(eng, inner)
                hk = _hashable(k)
                if hk not in groups:
                    groups[hk] = (k, [])
                groups[hk][1].append(x)
            return [Group(k, tuple(xs)) for k, xs in groups.values()]
        return group_by

    def c_SortBy(self, e):
        src, key = self(e.source), self(e.key)

        def sort_by(eng, env):
            items = eng.as_list(src(eng, env), e.source)
            inner = Env({"it": None}, env)
            keyed = []
            for i, x in enumerate(items):
                inner.vars["it"] = x
                keyed.append((key(eng, inner), i, x))
            try:
                keyed.sort(key=lambda t: (t[0] is None, t[0] if t[0] is not None else 0, t[1]))
            except TypeError:
                raise eng.fail(e, "these values cannot be put in order") from None
            return [x for _, _, x in keyed]
        return sort_by


def compiler_for(rs) -> Compiler:
    f = facts(rs)
    if f.compiler is None:
        f.compiler = Compiler(rs)
    return f.compiler
