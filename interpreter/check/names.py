"""Static name resolution: every name a ruleset uses must mean something.

Runs when a ruleset is loaded, so a misspelled zone, property, option or function is
reported with its position and a did-you-mean before any game is played.
"""
from __future__ import annotations

import attrs

from ..base import ast as A
from ..runtime import builtins as B
from ..base.diagnostics import Diagnostic, did_you_mean
from .resolver import Binder, Use, it_names, local_names, name_meaning

#: Built-in names, from the one registry of built-ins (`builtins.py`).
BUILTIN_FUNCTIONS = B.FUNCTIONS
BUILTIN_VALUES = B.VALUES
BUILTIN_ATTRS = frozenset(B.ATTRS)


class _Scope:
    """The local names visible at a point of a rule: name -> (its Binder, whether the engine
    may leave it unbound there). A `dynamic` scope (an action, which sees the locals where
    `act` runs; a `forbid TAG` rule's condition, asked where the tag is offered) may see
    more locals than it declares."""

    def __init__(self, names=(), parent=None, it_ok=False, how="engine", node=None, maybe=(), dynamic=False):
        self.names = {n: (Binder(n, how, node), n in maybe) for n in names}
        self.parent = parent
        self.it_ok = it_ok or (parent.it_ok if parent else False)
        self.dynamic = dynamic or (parent.dynamic if parent else False)

    def child(self, names=(), it_ok=False, how="engine", node=None, maybe=(), dynamic=False):
        return _Scope(names, self, it_ok, how, node, maybe, dynamic)

    def bind(self, name, how, node):
        self.names[name] = (Binder(name, how, node), False)

    def find(self, name):
        s = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def has(self, name):
        return self.find(name) is not None

    def all(self):
        out, s = set(), self
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out


class NameChecker:
    """The resolver pass: walks a merged ruleset with its scopes, records what each use of a
    bare name means (`uses`: id(node) -> resolver.Use, read by both engines, lint and the
    language server), and reports every unknown name and wrong call."""

    def __init__(self, rs):
        self.rs = rs
        self.found: list = []
        self.uses: dict = {}
        self.it_names = it_names(rs)
        self.local_names = local_names(rs)
        self.card_attrs = set(rs.derives) | {n for n, v in rs.vars.items() if v.scope == "card"}
        if rs.cards_decl:
            self.card_attrs |= {p.name for p in rs.cards_decl.props}
        self.player_attrs = {n for n, v in rs.vars.items() if v.scope == "player"}
        self.event_fields = set().union(*rs.emits.values())
        self.emitted = set(rs.emits)    # the ruleset's own events: what `emit` raises
        self.choice_tags = set()        # the `as TAG` of every `choose`
        for item in rs.items:
            for node in _walk(item):
                if isinstance(node, A.Choose) and node.tag:
                    self.choice_tags.add(node.tag)
        self.values = (set(rs.options) | {n for n, v in rs.vars.items() if v.scope == "global"}
                       | {n for n, d in rs.defs.items() if d.params is None} | set(rs.tables)
                       | set(rs.enum_members) | {n for n, z in rs.zones.items() if not z.per_player and not z.per_card}
                       | set(BUILTIN_VALUES))
        self.callables = ({n for n, d in rs.defs.items() if d.params is not None} | set(rs.table_decls)
                          | set(rs.patterns) | {n for n, z in rs.zones.items() if z.per_player or z.per_card}
                          | set(BUILTIN_FUNCTIONS))
        self.attrs = self.card_attrs | self.player_attrs | BUILTIN_ATTRS | self.event_fields

    # ------------------------------------------------------------ reporting
    def fail(self, message, span, name, candidates):
        self.report(Diagnostic("E004", message, span, hint=did_you_mean(name, candidates)))

    def report(self, diag: Diagnostic):
        self.found.append(diag)

    # ------------------------------------------------------------ what a name means
    def record(self, node, name, scope: _Scope):
        """Decide what this use of `name` means, once (see resolver.Use)."""
        found = scope.find(name)
        meaning = name_meaning(self.rs, name)
        it_here = name in self.it_names and (scope.dynamic or scope.find("it") is not None)
        if found is not None and not found[1]:
            use = Use("local", name, meaning, found[0])
        elif found is not None or (scope.dynamic and name in self.local_names):
            use = Use("maybe", name, meaning, found[0] if found else None, it_here)
        elif it_here:
            use = Use("it", name, meaning)
        else:
            use = Use("global", name, meaning)
        self.uses[id(node)] = use

    # ------------------------------------------------------------ expressions
    def expr(self, e, scope: _Scope):
        if e is None:
            return
        t = type(e)
        if t is A.Name:
            self.record(e, e.id, scope)
            if scope.has(e.id) or e.id in self.values:
                return
            if scope.it_ok and (e.id in self.card_attrs or e.id in self.player_attrs or e.id in self.event_fields
                                or e.id in ("name", "id", "zone", "owner", "seat")):
                return
            if e.id in self.callables:
                return  # a per-player zone name used bare, e.g. in `deal 8 to hand`
            cands = scope.all() | self.values | (self.card_attrs | self.player_attrs if scope.it_ok else set())
            self.fail(f"unknown name `{e.id}`", e.span, e.id, cands)
        elif t is A.Call:
            if e.name in self.callables:
                if e.name in BUILTIN_FUNCTIONS:
                    f = BUILTIN_FUNCTIONS[e.name]
                    lo, hi = f.lo, f.hi
                    if not lo <= len(e.args) <= hi:
                        self.report(Diagnostic("E009", f"`{e.name}` takes {lo if lo == hi else f'{lo} to {hi}'} "
                                                  f"argument{'s' if hi > 1 else ''}, not {len(e.args)}", e.span))
                    elif e.name == "target" and len(e.args) == 2:
                        self.target_name(e.args[1])
                elif e.name in self.rs.zones and self.rs.zones[e.name].per_card and self.rs.zones[e.name].per_player:
                    if len(e.args) != 2:   # `squad(c, p)`: a zone of each card and player
                        self.report(Diagnostic("E009", f"`{e.name}` is a zone of each card and player: it takes "
                                                  f"2 arguments, the card and the player (`{e.name}(c, p)`), "
                                                  f"not {len(e.args)}", e.span,
                                               related=(f"`{e.name}` is declared at {self.rs.zones[e.name].span}",)))
                elif e.name in self.rs.defs or e.name in self.rs.table_decls or e.name in self.rs.patterns:
                    decl = self.rs.defs.get(e.name) or self.rs.table_decls.get(e.name) or self.rs.patterns.get(e.name)
                    if len(decl.params) != len(e.args):
                        self.report(Diagnostic("E009", f"`{e.name}` takes {len(decl.params)} argument(s), "
                                                  f"not {len(e.args)}", e.span,
                                                  related=(f"`{e.name}` is defined at {decl.span}",)))
            elif e.name in self.rs.procedures:
                self.report(Diagnostic("E008", f"`{e.name}` is a procedure: call it as a statement, "
                                          "it gives no value", e.span))
            else:
                self.fail(f"unknown function `{e.name}`", _name_span(e.span, e.name), e.name, self.callables)
            for a in e.args:
                self.expr(a, scope)
        elif t is A.Possible:   # possible(PROC(args)): a procedure, tried (interpreter/walker/trial.py)
            c = e.call
            proc = self.rs.procedures.get(c.name)
            if proc is None:
                self.fail(f"`possible` tries a procedure, and `{c.name}` is not one", _name_span(c.span, c.name),
                          c.name, self.rs.procedures)
            elif len(proc.params) != len(c.args):
                self.report(Diagnostic("E009", f"`{c.name}` takes {len(proc.params)} argument(s), "
                                          f"not {len(c.args)}", c.span))
            for a in c.args:
                self.expr(a, scope)
        elif t is A.Attr:
            self.expr(e.obj, scope)
            if e.name not in self.attrs:
                self.fail(f"no card, player or event has a property `{e.name}`", e.span, e.name, self.attrs)
        elif t is A.Comprehension:
            self.expr(e.source, scope)
            inner = scope.child([e.name], how="for", node=e)
            self.expr(e.expr, inner)
            self.expr(e.cond, inner)
        elif t in (A.Where, A.GroupBy, A.SortBy):
            self.expr(e.source, scope)
            self.expr(e.cond if t is A.Where else e.key, scope.child(["it"], it_ok=True, how="it", node=e))
        elif t is A.Text:
            for p in e.parts:
                if not isinstance(p, str):
                    self.expr(p, scope)
        else:
            for f in ("left", "right", "operand", "cond", "then", "otherwise", "obj"):
                sub = getattr(e, f, None)
                if isinstance(sub, A.Expr):
                    self.expr(sub, scope)
            if t is A.ListLit:
                for i in e.items:
                    self.expr(i, scope)

    def target_name(self, arg):
        """`target(c, "NAME")`: NAME is a `target` declaration's (section 4.11b)."""
        name = arg.constant if isinstance(arg, A.Text) else None
        declared = [t.name for t in self.rs.targets]
        if name is not None and name not in declared:
            hint = did_you_mean(name, declared) or (
                f"the targets declared: {', '.join(declared)}" if declared else
                "declare it: `target NAME if COND: x in LIST`")
            self.report(Diagnostic("E004", f"unknown target `{name}`: no `target {name} …` declaration",
                                   arg.span, hint=hint))

    # ------------------------------------------------------------ statements
    def block(self, b, scope):
        if b is None:
            return
        scope = scope.child()
        for s in b.stmts:
            self.stmt(s, scope)

    def stmt(self, s, scope: _Scope):
        t = type(s)
        if t is A.Let:
            self.expr(s.value, scope)
            scope.bind(s.name, "let", s)
        elif t is A.Choose:
            self.expr(s.lo, scope)      # (`choose LO..HI`: counted before the pick)
            self.expr(s.hi, scope)
            self.expr(s.domain, scope)
            self.expr(s.by, scope)
            self.expr(s.prompt, scope)
            inner = scope.child([s.name, "it"], how="choose", node=s)
            self.expr(s.prefer, scope.child([s.name, "it"], it_ok=True, how="choose", node=s))
            self.block(s.body, inner)
            self.block(s.otherwise, scope)
        elif t is A.For:
            self.expr(s.source, scope)
            self.expr(s.by, scope)        # (`ordered by P "prompt"`: asked before the first item)
            self.expr(s.prompt, scope)
            self.expr(s.prefer, scope.child([s.name, "it"], it_ok=True, how="for", node=s))  # (each item's score)
            self.block(s.body, scope.child([s.name], how="for", node=s))
        elif t is A.CallStmt:
            if s.name not in self.rs.procedures:
                hint_names = set(self.rs.procedures)
                msg = (f"`{s.name}` is not a procedure" if s.name in self.callables
                       else f"unknown procedure `{s.name}`")
                self.fail(msg, _name_span(s.span, s.name), s.name, hint_names)
            proc = self.rs.procedures.get(s.name)
            if proc is not None and len(proc.params) != len(s.args):
                self.report(Diagnostic("E009", f"`{s.name}` takes {len(proc.params)} argument(s), "
                                          f"not {len(s.args)}", s.span))
            for a in s.args:
                self.expr(a, scope)
        elif t is A.Set:
            if isinstance(s.target, A.Name):
                self.record(s.target, s.target.id, scope)
                if not (scope.has(s.target.id) or s.target.id in self.rs.vars):
                    if s.target.id in self.rs.options or s.target.id in self.rs.defs:
                        self.report(Diagnostic("E008", f"`{s.target.id}` cannot be changed: declare a `var` "
                                                  "for a value that changes", s.target.span))
                    else:
                        self.fail(f"unknown variable `{s.target.id}`", s.target.span, s.target.id,
                                  scope.all() | set(self.rs.vars))
            else:
                self.expr(s.target, scope)
            self.expr(s.value, scope)
        elif t is A.Draw and s.name is not None:
            # `draw N as d`: `d` is bound after the cards are drawn, for `then` and the rest of the block
            for e in (s.count, s.source, s.dest):
                self.expr(e, scope)
            scope.bind(s.name, "draw", s)
            self.block(s.then, scope)
        elif t is A.Deal:
            self.expr(s.count, scope)
            self.expr(s.source, scope)
            z = self.rs.zones.get(s.zone)
            if z is None or not z.per_player or z.per_card:
                self.fail(f"`deal` needs a per-player zone, and `{s.zone}` is not one", s.span, s.zone,
                          [n for n, z in self.rs.zones.items() if z.per_player and not z.per_card])
            self.block(s.then, scope)
        elif t is A.Emit:
            for _, e in s.fields:
                self.expr(e, scope)
        else:
            for f in attrs_fields(s):
                v = getattr(s, f)
                if isinstance(v, A.Expr):
                    self.expr(v, scope)
                elif isinstance(v, A.Block):
                    self.block(v, scope)
            if t is A.If:
                for cond, body in s.branches:
                    self.expr(cond, scope)
                    self.block(body, scope)
                self.block(s.otherwise, scope)

    # ------------------------------------------------------------ declarations
    def check(self):
        root = _Scope()
        self.check_functions(root)
        self.check_flow(root)
        self.check_events(root)
        self.check_rest(root)

    def check_functions(self, root):
        """Derived properties, defs, tables, patterns and the variables' first values."""
        rs = self.rs
        for d in rs.derives.values():
            self.expr(d.expr, root.child(["it"], it_ok=True, how="it", node=d))
        for d in rs.defs.values():
            self.expr(d.expr, root.child(d.params or (), how="parameter", node=d))
        for t in rs.table_decls.values():
            sc = root.child(t.params, how="parameter", node=t)
            for c, v in t.rows:
                self.expr(c, sc)
                self.expr(v, sc)
            self.expr(t.default, sc)
        for p in rs.patterns.values():
            sc = root.child(p.params, how="parameter", node=p)
            self.expr(p.cards, sc)
            self.expr(p.labels, sc.child(["it"], it_ok=True, how="it", node=p))
            self.expr(p.fixed, sc.child(["it"], it_ok=True, how="it", node=p))
            for shape in p.shapes:
                for part in shape.parts:
                    self.expr(part.cond, sc.child(["label"], node=p))
            self.expr(p.best, sc.child(["it"], how="it", node=p))
        for v in rs.vars.values():
            self.expr(v.init, root)

    def check_flow(self, root):
        """Procedures, set-up, the match, rounds, turns and phases."""
        rs = self.rs
        for pr in rs.procedures.values():
            self.block(pr.body, root.child(pr.params, how="parameter", node=pr))
        if rs.setup:
            self.block(rs.setup.body, root)
        if rs.match:
            self.expr(rs.match.rounds, root)
            self.block(rs.match.start, root)
            self.block(rs.match.end, root)
        if rs.round:
            self.expr(rs.round.first, root)
            self.expr(rs.round.until, root)
            self.block(rs.round.start, root)
            self.block(rs.round.end, root)
        if rs.turn:
            self.expr(rs.turn.order, root)
            self.block(rs.turn.start, root)
            self.block(rs.turn.end, root)
            for ph in rs.turn.phases:
                self.block(ph.body, root)

    def event_names(self) -> list:
        return list(B.EVENT_BINDINGS) + sorted(self.event_fields)

    def event_scope(self, root, decl):
        """What a trigger's, reaction's or zone rule's pieces see: the event's names (always
        bound), and the custom events' fields (bound when the event carries them)."""
        return root.child(self.event_names(), it_ok=True, how="event", node=decl,
                          maybe=self.event_fields - set(B.EVENT_BINDINGS))

    def check_events(self, root):
        """Triggers and reactions: their events, conditions and bodies."""
        rs = self.rs
        for tr in rs.triggers:
            self._check_event(tr.event)
            if tr.instead and tr.event.kind not in ("move", "draw", "discard", "deal"):
                self.report(Diagnostic("E008", f"`instead` replaces a card's move: `{tr.event}` moves no card",
                                       tr.event.span, hint="use it with move, draw, discard or deal"))
            sc = self.event_scope(root, tr)
            self.expr(tr.cond, sc)
            self.expr(tr.ask_by, sc)
            self.expr(tr.prompt, sc)
            self.expr(tr.order_by, sc)
            self.expr(tr.prefer, sc)      # (`ordered by P prefer E`: read as the condition is)
            self.block(tr.body, sc)
        for r in rs.reactions:
            self._check_event(r.event)
            sc = self.event_scope(root, r)
            self.expr(r.cond, sc)
            self.expr(r.responders, sc)
            rsc = sc.child(["responder"], node=r)
            self.expr(r.eligible, rsc)
            self.expr(r.ask, rsc)
            self.block(r.body, rsc)

    def check_rest(self, root):
        """Actions, continuous rules, invariants and deck-building rules."""
        rs = self.rs
        for a in rs.actions:
            # an action sees the locals where `act` runs (dynamic), and its own first
            dyn = root.child(dynamic=True)
            sc = dyn.child(["actor"], node=a).child([a.param] if a.param else [], how="parameter", node=a)
            self.expr(a.domain, dyn.child(["actor"], node=a))
            self.expr(a.label, sc)
            self.expr(a.when, sc)
            self.expr(a.prefer, sc.child(["it"], it_ok=True, how="parameter", node=a))
            self.block(a.body, sc)
        tags = {a.name for a in rs.actions} | {r.name for r in rs.reactions} | self.choice_tags
        for rule in rs.rules:
            if rule.zone is not None:  # forbid enter|leave ZONE: the card event's names
                if rule.zone not in rs.zones:
                    self.fail(f"unknown zone `{rule.zone}`", rule.span, rule.zone, rs.zones)
                self.expr(rule.cond, self.event_scope(root, rule))
                continue
            if rule.forbid not in tags:
                self.report(Diagnostic(
                    "E004", f"rule `{rule.name}` forbids `{rule.forbid}`, which is no action, reaction or "
                    f"choice tag (`choose … as {rule.forbid}`), so it would forbid nothing", rule.span,
                    hint=did_you_mean(rule.forbid, sorted(tags | {"enter", "leave"}))
                    or "name an action, a reaction, a `choose … as TAG`, or say `forbid enter ZONE` / "
                       "`forbid leave ZONE`"))
            params = [a.param for a in rs.actions if a.name == rule.forbid and a.param]
            names = self.event_names() + ["responder", "actor", "option"] + params
            sc = root.child(names, it_ok=True, node=rule, maybe=names, dynamic=True)
            self.expr(rule.cond, sc)
        for inv in rs.invariants:
            self.expr(inv.cond, root)
        if rs.estimate is not None:
            self.expr(rs.estimate.value, root.child([rs.estimate.var], how="parameter", node=rs.estimate))
        for show in rs.shows:
            self.expr(show.value, root.child([show.var], how="parameter", node=show))
        for t in rs.targets:
            # a target's pieces: the card whose effect it is (`card`, and `it` in the
            # condition, whose bare names are the card's properties) and who plays it (`player`)
            sc = root.child(["card", "player"], how="parameter", node=t)
            self.expr(t.cond, sc.child(["it"], it_ok=True, how="parameter", node=t))
            self.expr(t.domain, sc)
            self.expr(t.prompt, sc.child([t.var], how="choose", node=t))
            self.expr(t.prefer, sc.child([t.var, "it"], it_ok=True, how="choose", node=t))
        for chk in rs.checks:
            sc = root
            if chk.var is not None:
                self.expr(chk.domain, root)
                sc = root.child([chk.var], how="for", node=chk)
            self.expr(chk.cond, sc)
            self.block(chk.body, sc)
        if rs.deck is not None:
            self.expr(rs.deck.default, root.child(["player"], node=rs.deck))
            for r in rs.deck.rules:
                names = ["cards", "decklist"] + (["card", "copies", "it"] if r.per_entry else [])
                self.expr(r.cond, root.child(names, it_ok=r.per_entry, node=r))

    def _check_event(self, ev: A.EventPat):
        if ev.kind == "custom" and ev.name not in self.emitted:
            near = did_you_mean(ev.name, [*B.EVENTS, *self.emitted])
            self.report(Diagnostic("E004", f"unknown event `{ev.name}`: it is not one the engine raises "
                                   f"({', '.join(B.EVENTS)}), and no `emit {ev.name}(…)` raises it", ev.span,
                                   hint=near or f"raise it with `emit {ev.name}(…)`, or wait for one of "
                                                f"{', '.join(B.EVENTS)}"))
        for zname in (ev.source, ev.dest):
            if zname and zname not in self.rs.zones:
                self.fail(f"unknown zone `{zname}`", ev.span, zname, self.rs.zones)
        if ev.phase and self.rs.turn and ev.phase not in {p.name for p in self.rs.turn.phases}:
            self.fail(f"unknown phase `{ev.phase}`", ev.span, ev.phase, [p.name for p in self.rs.turn.phases])


def attrs_fields(node):
    import attrs
    return [f.name for f in attrs.fields(type(node)) if f.name != "span"]


_walk = A.walk


def _name_span(span, name):
    """The span of just the name at the start of a call."""
    return attrs.evolve(span, end_line=span.line, end_column=span.column + len(name))


def check_names(rs) -> list:
    """Every unknown name and wrong call of the ruleset, as diagnostics (in source order)."""
    checker = NameChecker(rs)
    checker.check()
    rs.uses = checker.uses
    return sorted(checker.found, key=lambda d: (d.span.path, d.span.line, d.span.column) if d.span else ("", 0, 0))
