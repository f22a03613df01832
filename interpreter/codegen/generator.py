"""The code generator: the bodies of a ruleset (setup, rounds, phases, procedures,
triggers, reactions, actions) as one Python module's source."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..check.resolver import card_attr_meaning, facts
from ..check.statics import statics_of
from ..check.typecheck import Binding as _Binding
from ..check.typecheck import Scope, TypeChecker
from .expressions import Expressions
from .held import Held
from .runtime import _CARD_EVENTS, _MISSING
from .statements import Statements
from .switch import Switches
from .as_statements import AsStatements, ByValue
from .patterns import Patterns
from .writer import Var, _Fn
from ..walker.trial import legal_plan

# ---------------------------------------------------------------- the generator

MAX_LITERAL = 64   # items of a def's list of constants written in place (`literal_def`)


class CodeGen(Expressions, Patterns, Held, AsStatements, Statements, Switches, ByValue):
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
        self.runner_src: dict = {}      # function name -> its pieces as a runner takes them in (for_runner)
        self.facts = facts(rs)
        self.types = TypeChecker(rs)    # the one type checker (lint reads it too)
        self.it_names = self.facts.it_names
        self.card_vars = set(rs.card_vars())
        self.player_vars = set(rs.player_vars())
        self.derive_kinds, self.static_defs = self.facts.derive_kinds, self.facts.static_defs
        self.card_props = self.types.card_props
        self.zone_in_data = any("zone" in c.props for c in rs.cards)   # (else `zone` is where a card lies)
        # `owner(c)` is where c lies (`builtins.owner_of`), unless a card variable, derived
        # property or card data of that name says otherwise (`Engine._card_getter`)
        self.builtin_owner = card_attr_meaning(rs, "owner") == "data" and not any("owner" in c.props for c in rs.cards)
        self.simultaneous = any(isinstance(n, A.Simultaneously) for item in rs.items for n in A.walk(item))
        self.done: set = set()          # module-level functions already generated
        self.blocks: dict = {}          # id(block) -> python name of its entry function
        self.procs: dict = {}           # id(a procedure's body) -> its function of the arguments
        self.exprs: dict = {}           # id(expr) -> python name of its entry function
        self.direct: dict = {}          # id(expr) -> python name of its function of the names bound (args_expr)
        self.legal: dict = {}           # id(expr) -> the same, for a step of a target's `legal_plan`
        self.patterns: dict = {}        # pattern name -> dict of python names
        self._inlining: list = []       # defs being written in place (no recursion)
        self._inlined = 0               # nodes written in place for the outermost of them (INLINE_NODES)
        self._sizes: dict = {}          # def -> nodes in its body (small ones are written in place)
        self._loops: dict = {}          # id(expr) -> whether it holds a comprehension
        self._static_caches: dict = {}  # static derive -> module constant of its per-card values
        self._static_full: set = set()  # static derives whose list holds every card's value (static_values)
        self._id_vars: set = set()      # variables of loops over card ids (see AsStatements.loop_into)
        self.triggers: dict = {}        # id(trigger) -> {piece: python name or None}
        self.actions: dict = {}         # id(action) -> {piece: python name or None}
        self.target_hints: dict = {}    # target declaration's name -> its `prefer` as a generated hint
        self.reactions: dict = {}       # id(reaction) -> {piece: python name or None}
        self.zone_rules: dict = {}      # id(zone rule) -> python name of its condition, a function of the event
        # Writing a hint (`prefer`): every read of a card's face or of a variable goes through
        # the engine's watch (walker/hints.py), as the tree walker reads it (Expressions.hint)
        self.hinting = False

    # ------------------------------------------------------------ names
    def fresh(self, base="t") -> str:
        self.n += 1
        return Var(f"_{base}{self.n}")

    def k(self, obj) -> str:
        """A module constant holding `obj` (an AST node, a table, …)."""
        name = self.const_ids.get(id(obj))
        if name is None:
            name = self.const_ids[id(obj)] = f"K{len(self.consts)}"
            self.consts[name] = obj
        return Var(name)

    # ------------------------------------------------------------ derived properties' caches
    def cached(self, cache, dv, oid, card, fn, name=None) -> str:
        """A derived property of a card (its id `oid`) read from its cache list, computed when
        missing (a game's cache of derive `name`, whose missing entries are false, is read
        with `or` when its values are seldom false: `falsy`). Inside a comprehension's
        iterable, where Python forbids `:=`, the cache is read twice."""
        w = self.fresh("w")
        read = f"{cache}[{oid}]"
        unset = "_MISSING" if name is None else self.unset(name)
        if name is not None and not self.falsy(name):
            return f"({read} or {dv}(eng, {card}))"
        if fn is not None and fn.iterable:
            return f"({read} if {read} is not {unset} else {dv}(eng, {card}))"
        return f"({w} if ({w} := {read}) is not {unset} else {dv}(eng, {card}))"

    def unset(self, name) -> str:
        """What derived property `name`'s cache holds for a value not worked out."""
        return "_MISSING" if self.derive_kinds[name] == "static" else "_UNSET"

    def falsy(self, name) -> bool:
        """Whether derived property `name` may often be false (a number, a truth value, none
        or a value that may be none, by its static type: `TypeChecker.derive_ty`): its cache
        is then read with a test, not `or` (which would call its getter for each false value;
        a list, a text or a value of no known type is read with `or`)."""
        ty = self.types.derive_ty(name)
        return ty is not None and (ty in ("int", "bool", "none") or ty.endswith("?"))

    def static_values(self, name) -> list:
        """The list of static derive `name`'s values, by card id: each card's value as
        `check/statics.py` works it out from the card data (`_static_full`, read with no
        test), or all `_MISSING` (each worked out when first read) when one of them is not
        known so (it fails, or reads what it may not) or is not a plain text, number, truth
        value or none (a list is made anew by each read of the rules' own)."""
        statics = statics_of(self.rs)
        values = [statics.attr(c, name) for c in self.rs.cards]
        if any(v is not None and v.__class__ not in (str, int, bool) for v in values):   # (UNKNOWN too)
            return [_MISSING] * len(self.rs.cards)
        self._static_full.add(name)
        return values

    def literal_def(self, name) -> Optional[str]:
        """Def `name` of no parameters whose body is a list of constants (texts, numbers,
        truth values, enumeration values: `def ukinds = [baby, basic, magical]`), written in
        place as that list (a new one each time, as a call makes it); None for any other def.
        Its value cannot change, and a call per card of a loop is most of what it costs."""
        d = self.rs.defs[name]
        if d.params is not None or not isinstance(d.expr, A.ListLit) or len(d.expr.items) > MAX_LITERAL:
            return None
        for item in d.expr.items:
            if not (isinstance(item, (A.Int, A.Const)) or isinstance(item, A.Text) and item.constant is not None
                    or isinstance(item, A.Name) and self.meaning(item).meaning == "enum"):
                return None
        return self.x(d.expr, Scope(), None)

    # ------------------------------------------------------------ bodies
    def procedure(self, proc: A.Procedure, types=()) -> str:
        types = tuple(types) if len(types) == len(proc.params) else (None,) * len(proc.params)
        fname = "P_" + proc.name + self.variant(types)
        if fname in self.done:
            return fname
        self.done.add(fname)
        f = _Fn.function(self, fname, ["v_" + p for p in proc.params])
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
        self.procs[id(proc.body)] = fname   # (called with the arguments themselves: `run_procedure`)
        return fname

    def body(self, blk, sure=(), maybe=()) -> str:
        """Compile a block the engine runs with `run_block(blk, env)`; `sure` names are always
        in `env`, `maybe` names sometimes."""
        if blk is None:
            return None
        fname = self.fresh("B")
        f = _Fn.function(self, fname, ["env"])
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

    def env_entry(self, f, sc, sure, maybe, types=None):
        for name in list(sure) + [m for m in maybe if m not in sure]:
            v = "e_" + name
            sc.names[name] = _Binding(v, name not in sure, f, (types or {}).get(name))
            f.emit(f"{v} = _entry(env, {name!r})")

    def entry_expr(self, e, sure=(), maybe=(), types=None) -> Optional[str]:
        """Compile an expression the engine evaluates with `ev(e, env)`; `types`: the static
        types of the names it is sure to be given, where the engine always binds that type."""
        if e is None:
            return None
        fname = self.fresh("X")
        f = _Fn.function(self, fname, ["env"])
        sc = Scope(fn=f)
        self.env_entry(f, sc, sure, maybe, types)
        f.emit(f"return {self.x(e, sc, f)}")
        self.defs += f.source() + [""]
        self.exprs[id(e)] = fname
        return fname

    def args_expr(self, e, names: dict, table: dict, prefix: str = "Y") -> Optional[str]:
        """Compile an expression the engine evaluates often with the same names bound, as a
        function of their values (no environment to build, no name looked up): `names`
        maps each name to its parameter (names sharing one take the same value) and its
        static type; `table[id(e)]` gets the function's name. An error is located at the
        expression, as `Engine.ev` has it."""
        if e is None:
            return None
        params = list(dict.fromkeys(var for var, _ in names.values()))
        fname = self.fresh(prefix)
        f = _Fn.function(self, fname, params)
        f.pure = True   # (an expression's: its parameters' reads may be hoisted out of its loops)
        sc = Scope(fn=f)
        for name, (var, ty) in names.items():
            sc.names[name] = _Binding(var, False, f, ty)
        f.emit("try:")
        f.ind += 1
        f.emit(f"return {self.ev_into(f, e, sc)}")   # (its loops as statements)
        f.ind -= 1
        f.emit(f"except _PE as _x: raise _everr(eng, {self.k(e)}, _x) from None")
        self.defs += f.source() + [""]
        table[id(e)] = fname
        return fname

    def legal_plan_fns(self, t) -> None:
        """The functions `Targets.target_legal` runs for target `t`'s `legal_plan`: each
        step's expressions of the names bound there, in their order (`legal_value`), under
        `legal[id(node)]` (a def's steps are shared by the targets that call it: a node is
        always bound the same names)."""
        for kind, node, names, own in legal_plan(self.rs, t.domain):
            # (a target's own names are typed as its other expressions' are; `it` is the
            # card there, but the value tested in a condition)
            types = {"card": "card", "player": "player", "it": None if kind == "cond" else "card"} if own else {}
            for e in (node if kind == "bind" else (node,)):
                if id(e) not in self.legal:
                    bound = {n: (f"e{i}_{n}", types.get(n)) for i, n in enumerate(names)}
                    self.args_expr(e, bound, self.legal)

    # Triggers and reactions: their pieces take the event itself (and the responder), and
    # bind what the tree walker's event environment binds: event, card, player, it, and
    # the fields of a custom event (which may rename any of them).
    def event_entry(self, f, sc, custom, fields, responder, kind_of_event=None, card_typed=False) -> list:
        """Bind the event's names in `sc`; their entry lines, as (line, binding or None, reads
        the custom fields `_F`), for the caller to write in (`entry_lines`). With
        `card_typed`, `card` is taken to be a card (for code run only when it is one)."""
        names = tuple(B.EVENT_BINDINGS)
        lines = [("_F = ev.fields", None, False)] if custom else []
        defaults = {name: "ev" if attr is None else f"ev.{attr}" for name, attr in B.EVENT_BINDINGS.items()}
        card_event = not custom and kind_of_event in _CARD_EVENTS
        tys = {"event": "event", "card": "card" if card_event or card_typed else None,
               "it": "card" if card_event else None,
               "player": "player" if not custom else None}
        for name in names:
            b = sc.names[name] = _Binding("e_" + name, False, f, tys[name])
            d = defaults[name]
            from_fields = custom and name in fields
            lines.append((f"e_{name} = _F[{name!r}] if {name!r} in _F else {d}" if from_fields else f"e_{name} = {d}",
                          b, from_fields))
        for name in sorted(fields) if custom else ():
            if name not in names and name != "responder":
                b = sc.names[name] = _Binding("e_" + name, True, f)
                lines.append((f"e_{name} = _F.get({name!r}, _MISSING)", b, True))
        if responder:
            sc.names["responder"] = _Binding("e_responder", False, f, "player" if responder == "player" else None)
        return lines

    @staticmethod
    def entry_lines(entries: list) -> list:
        """The entry lines of the names the function's code uses (and `_F` when one of them
        reads it), as (the name it binds, the line)."""
        kept = [(b.var, line) for line, b, _ in entries if b is not None and b.used]
        if any(reads for _, b, reads in entries if b is not None and b.used):
            kept.insert(0, ("_F", "_F = ev.fields"))
        return kept

    def event_fn(self, kind, node, custom, fields, responder=False, env_adapter=True, event=None,
                 card_typed=False) -> Optional[str]:
        """A trigger's or reaction's condition, prompt or body as a function of the event
        (with `card_typed`, the variant for a custom event whose `card` is a card)."""
        if node is None:
            return None
        fname = self.fresh("E")
        f = _Fn.function(self, fname, ["ev", "e_responder"] if responder else ["ev"])
        f.pure = kind != "body"
        sc = Scope(fn=f)
        entries = self.event_entry(f, sc, custom, fields, responder, event, card_typed)
        if kind == "body":
            self.block(f, node, sc)
        else:  # errors point at the expression, as `Engine.ev` has them
            f.emit("try:")
            f.ind += 1
            value = self.ev_into(f, node, sc)
            ret = len(f.lines)
            f.emit(f"return {value}")
            f.ind -= 1
            f.emit(f"except _PE as _x: raise _everr(eng, {self.k(node)}, _x) from None")
        entry = self.entry_lines(entries)
        head = [line for _, line in entry]
        if kind == "body":
            head = ["st = eng.state"] + (["_lim = eng.step_limit"] if f.limited else []) + ["if 0: yield"] + head
        else:
            self.runner_src[fname] = self.for_runner(f, entry, ret, value)
        f.lines[:0] = ["    " + line for line in head]
        self.defs += f.source() + [""]
        if env_adapter:  # for the engine's `run_block(body, env)` / `ev(expr, env)`
            adapter = self.fresh("A")
            extra = ", _entry(env, 'responder')" if responder else ""
            self.defs += [f"def {adapter}(eng, env):", f"    return {fname}(eng, _entry(env, 'event'){extra})", ""]
            (self.blocks if kind == "body" else self.exprs)[id(node)] = adapter
        return fname

    @staticmethod
    def for_runner(f, entry, ret, value):
        """A condition's function as a runner writes it in place of calling it: (its entry
        lines, which read only the event and the engine and so are read once at the runner's
        start, as (name, line); the rest, its `return X` as `_ok = X`), or None when it
        cannot be taken in (it assigns a variable of an enclosing function)."""
        if f.nonlocals:
            return None
        first = f.prologue() + [(name, "    " + line) for name, line in entry]
        lines = list(f.lines)
        lines[ret] = "    " * (f.ind + 1) + f"_ok = {value}"
        return first, f.hoist_lines() + lines

    def reaction_pieces(self, r, fields: set) -> dict:
        """A reaction's compiled pieces: its condition and responders, its eligibility, question
        and body (and, for a custom event, an eligibility for a `card` that is a card)."""
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
        if custom and r.eligible is not None and any(
                isinstance(n, A.Name) and n.id == "card" for n in A.walk(r.eligible)):
            # a custom event's `card` may be any value, so the eligibility is written for
            # any; its runner uses this variant when the event's `card` is a card (the
            # usual case), as fast as a card event's (`runners._runner`)
            pieces["eligible_card"] = self.event_fn("expr", r.eligible, custom, fields, resp, env_adapter=False,
                                                    event=r.event.kind, card_typed=True)
        return pieces

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
        for inv in rs.invariants:   # (Engine.check_promises, each turn's end with invariants on)
            self.entry_expr(inv.cond)
        for tr in rs.triggers:
            custom = tr.event.kind == "custom" and not tr.instead
            pieces = {k: self.event_fn("body" if k == "body" else "expr", getattr(tr, k), custom, fields,
                                       event=tr.event.kind)
                      for k in ("cond", "prompt", "ask_by", "body", "order_by")}
            with self.hint_mode(True):   # (`ordered by P prefer E`: a hint, its reads watched)
                pieces["prefer"] = self.event_fn("expr", tr.prefer, custom, fields, event=tr.event.kind,
                                                 env_adapter=False)
            self.triggers[id(tr)] = pieces
        for r in rs.reactions:
            self.reactions[id(r)] = self.reaction_pieces(r, fields)
        for t in rs.targets:    # (Engine.target_value runs the args_expr functions)
            self.entry_expr(t.cond, sure=["card", "player", "it"])
            self.entry_expr(t.domain, sure=["card", "player", "it"])
            self.entry_expr(t.prompt, sure=["card", "player", "it"])
            # (what Targets.target_value runs: the card and its chooser, no environment)
            names = {"card": ("e_card", "card"), "it": ("e_card", "card"), "player": ("e_player", "player")}
            for e in (t.cond, t.domain, t.prompt):
                self.args_expr(e, names, self.direct)
            self.legal_plan_fns(t)
            if t.prefer is not None:
                self.target_hints[t.name] = self.target_hint(t)
        for chk in rs.checks:   # (Engine.settle: check_value runs the args_expr functions)
            self.entry_expr(chk.domain)
            self.entry_expr(chk.cond, sure=[chk.var] if chk.var else [])
            self.body(chk.body, sure=[chk.var] if chk.var else [])
            # (what ContinuousRules._check_applies runs: the element, no environment)
            self.args_expr(chk.domain, {}, self.direct)
            var_ty = self.elem_ty(self.ty(chk.domain, Scope())) if chk.var else None
            self.args_expr(chk.cond, {chk.var: ("e_" + chk.var, var_ty)} if chk.var else {}, self.direct)
        # an estimate's and a show's variable is a player (Engine.estimates and seatview.shown
        # bind each of the players; the type checker types it so too)
        if rs.estimate is not None:   # (Engine.estimates: estimate_value runs the args_expr function)
            self.entry_expr(rs.estimate.value, sure=[rs.estimate.var], types={rs.estimate.var: "player"})
            self.args_expr(rs.estimate.value, {rs.estimate.var: ("e_" + rs.estimate.var, "player")}, self.direct)
        for show in rs.shows:        # (the seat view evaluates them with `ev`)
            self.entry_expr(show.value, sure=[show.var], types={show.var: "player"})
        for r in rs.rules:
            if r.zone is not None:   # a zone rule's condition, of a card event (Engine.refusing_rule)
                self.zone_rules[id(r)] = self.event_fn("expr", r.cond, False, fields, event="move")
            elif r.cond is not None:
                # a `forbid TAG` rule's (Engine.allowed), asked where the tag is offered: what
                # is bound there differs by site (an action's parameter, `option`, `responder`
                # …), and a local there named like a global shadows it, so every name it reads
                # that can be local is looked up there first
                maybe = {n.id for n in A.walk(r.cond) if isinstance(n, A.Name)} & self.facts.local_names
                self.entry_expr(r.cond, maybe=["it", *sorted(maybe - {"it"})])
        for a in rs.actions:
            self.actions[id(a)] = self.action_pieces(a)
        for proc in rs.procedures.values():
            self.procedure(proc)
        for name in rs.derives:
            self.derive_fn(name)
        for p in rs.patterns.values():
            self.pattern(p)
        return "\n".join(self.defs) + "\n"
