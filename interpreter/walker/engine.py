"""The tree-walking interpreter: runs a ruleset's match, rounds, turns and phases.

The engine is a generator. It stops at every decision (who decides, what kind, the
legal options, what that player can see) by yielding a :class:`Decision`, and resumes
with the answer sent back. Bots, a person at the terminal, scripted tests and search
all drive it through that one API (see :class:`Game`).

Statements are generator methods (they may stop for a decision); expressions are plain
functions (they never do). Each is one short method per node type.
"""
from __future__ import annotations

import random
import weakref
from functools import partial
from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..check import resolver
from ..base.diagnostics import CglError, Diagnostic, error
from ..runtime.patterns import solve_all
from ..runtime.state import Event, Group, Match, Player, State, ZoneRef, parse_zone_key, plain
from ..base.protocol import AnswerError, Decision  # noqa: F401 (the decision API, re-exported)
from ..base.protocol import (DEFAULT_MAX_STEPS, MAX_EVENT_DEPTH, MAX_ROUNDS, MAX_TURNS, ActionChoice, _EndScope,
                             _GameOver, _TrialMoved)
from .continuous import ContinuousRules
from .forks import Forks, _weak_view
from .statements import Statements
from .trial import Trials
from .turn_order import TurnOrder
from ..runtime.values import _fresh, _hashable, _kind, _label, _num, _show, _truth

# ---------------------------------------------------------------- environments

from .compiler import Env, compiler_for  # noqa: E402
from ..check.loader import Card  # noqa: E402


# ---------------------------------------------------------------- the engine

class Engine(Statements, TurnOrder, ContinuousRules, Trials, Forks):
    """Runs one game of a ruleset. Create through :class:`Game`. (Its statements are in
    statements.py, who plays next in turn_order.py, the continuous rules and state checks
    in continuous.py, snapshots, clones and what each seat knows in forks.py.)"""

    def __init__(self, rs, players: int, seed: int, check_invariants: bool = False,
                 max_steps: Optional[int] = DEFAULT_MAX_STEPS):
        self.rs = rs
        self.n = players
        self.seed = seed
        self.check = check_invariants
        self.players = [Player(i) for i in range(players)]
        # seat orders while nobody is out of the game: from each seat, and the others after it
        self._orders = [tuple((s + i) % players for i in range(players)) for s in range(players)]
        self._others = [tuple(self.players[x] for x in o[1:]) for o in self._orders]
        self.cards = rs.cards
        self.opts = rs.option_values
        self.card_var_names = set(rs.card_vars())
        self.player_var_names = set(rs.player_vars())
        self.compile = compiler_for(rs)
        facts = resolver.facts(rs)
        self.static_cache: dict = facts.static_derives  # per ruleset: "static" derives
        self.derive_kinds = facts.derive_kinds
        self.derives_reading = facts.derives_reading
        self.card_derives = [n for n, k in self.derive_kinds.items() if k in ("card", "place")]
        self.place_derives = [n for n, k in self.derive_kinds.items() if k == "place"]   # forgotten on moves
        self._card_zones = [z.name for z in rs.zones.values() if z.per_card]   # a zone under each card
        # False: no transcript is kept (`cgl simulate`); the game is the same, its log empty
        self.record = True
        # the game's budget of steps: statements run and turns played (None: no limit)
        self.max_steps: Optional[int] = max_steps
        self.decks: dict = {}                  # seat -> DeckList, when the ruleset has a `deck` block
        self.decl_order = facts.decl_order
        self._triggers_by_kind = _index_by_kind([t for t in rs.triggers if not t.instead])
        self._instead_by_kind = _index_by_kind([t for t in rs.triggers if t.instead])
        self._reactions_by_kind = _index_by_kind(rs.reactions)
        # `check …`: the state checks (they run once the game has begun: `State.checks_on`)
        self._checks = tuple(rs.checks)
        # the zone keys whose cards the checks read (None: any), and whether they read variables
        self._watched: Optional[frozenset] = None
        self._check_vars = facts.check_vars
        if self._checks and facts.check_zones is not None:
            self._watched = frozenset(k for name in facts.check_zones
                                      for k in ([f"{name}:{p}" for p in range(players)]
                                                if rs.zones[name].per_player else [name]))
        # `rule …: forbid enter|leave ZONE`: by (forbid, zone name), in declaration order
        self._zone_rules: dict = {}
        for r in rs.rules:
            if r.zone is not None:
                self._zone_rules.setdefault((r.forbid, r.zone), []).append(r)
        self._visibility = {name: z.visibility for name, z in rs.zones.items()}
        self._role_zones: dict = {}
        self._zone_refs: dict = {}
        self._key_owners: dict = {}    # zone key -> its owner (a Player or None), as found
        # "start" / "end" when some trigger or reaction waits for the start (end) of something
        self._scope_kinds = {k for k in ("start", "end") if k in self._triggers_by_kind
                             or k in self._reactions_by_kind or k in self._instead_by_kind}
        self._begin(None)
        self.state = self._initial_state(seed)

    def _begin(self, state: Optional[State]) -> None:
        """What belongs to one game besides its state: its observers and caches, made afresh
        for a new game and for a clone (`clone`); the engine's other parts belong to the
        ruleset, the seats and the game's settings, and clones share them."""
        self.state = state
        self.listeners: list = []      # called with each log entry
        self.turn_hooks: list = []     # called as each turn starts
        # called as `snap(seat, why)` where each turn of a round is about to begin (its `until`
        # not yet asked), and as `snap(seat, why, k)` where its phase number k > 0 begins (before
        # its `start of phase` event): `Game` keeps the state there, to fork the game from (see `clone`)
        self.snap = None
        self._views: dict = {}
        self._validated = None         # (decision, answer, indices) checked by Game.answer
        self.card_getters: dict = {}
        self.derive_cache: dict = {}   # "card", "place" derives, for this game's state

    # ------------------------------------------------------------ state
    def _initial_state(self, seed) -> State:
        rs = self.rs
        zones = {}
        for z in rs.zones.values():
            if z.per_player:
                for p in range(self.n):
                    zones[f"{z.name}:{p}"] = []
            elif not z.per_card:  # a card's own zone is made when a card first goes into it
                zones[z.name] = []
        deck = rs.zone_with_role("deck") or next(
            (z for z in rs.zones.values() if not z.per_player and not z.per_card), None)
        where = [None] * len(self.cards)
        if deck is not None:
            zones[deck.name] = list(range(len(self.cards)))
            where = [deck.name] * len(self.cards)
        st = State(zones=zones, where=where, card_vars=[{} for _ in self.cards],
                   player_vars=[{} for _ in range(self.n)], globals={}, rng=random.Random(seed), players=self.n)
        self.state = st
        root = Env()
        for name, v in rs.vars.items():
            if v.scope == "global":
                st.globals[name] = self.ev(v.init, root)
        for name, v in rs.vars.items():
            if v.scope == "player":
                for p in range(self.n):
                    st.player_vars[p][name] = _fresh(self.ev(v.init, root))
            elif v.scope == "card":
                init = self.ev(v.init, root)
                for c in range(len(self.cards)):
                    st.card_vars[c][name] = _fresh(init)
        return st

    def fail(self, node, message, code="E010", hint=None):
        return CglError(Diagnostic(code, message, node.span if node is not None else None, hint=hint))

    def out_of_steps(self, node):
        """The error of a game that used up its budget of steps at `node` (a statement, or the
        `turn` block when a turn was to begin): the same in both engines."""
        return self.fail(node, f"the game ran {self.max_steps} steps (statements and turns) without ending",
                         code="E011", hint="if the game really is this long, raise the budget: `--max-steps N` "
                                           "(`Game(..., max_steps=N)`); otherwise find the loop that does not end")

    def runaway(self):
        """The error of a chain of triggers nested too deep: at the trigger (or reaction) that
        fired last, naming the chain."""
        chain = " -> ".join(self.state.event_chain[-12:])
        span = None
        if self.state.event_chain:
            last = self.state.event_chain[-1]
            for d in (*self.rs.triggers, *self.rs.reactions):
                if d.name == last:
                    span = d.span
                    break
        return CglError(Diagnostic("E011", f"a chain of triggers runs away ({len(self.state.event_chain)} deep): {chain}",
                                   span, hint="give one of these triggers a condition that stops it"))

    # ------------------------------------------------------------ logging
    def log(self, kind: str, text: str, visible_to=None, **data):
        """Log an entry; one written while a trigger or reaction runs names it as its `cause`
        (the innermost one: `event_chain`, kept alike by both engines)."""
        if not self.record:
            if not self.listeners:
                return
            entry = {"step": None, "type": kind, "text": text}
            if visible_to is not None:
                entry["to"] = sorted(visible_to)
            entry.update(data)
            if self.state.event_chain:
                entry["cause"] = self.state.event_chain[-1]
            for fn in self.listeners:
                fn(entry)
            return
        entry = {"step": len(self.state.log), "type": kind, "text": text}
        if visible_to is not None:
            entry["to"] = sorted(visible_to)
        entry.update(data)
        if self.state.event_chain:
            entry["cause"] = self.state.event_chain[-1]
        self.state.log.append(entry)
        for fn in self.listeners:
            fn(entry)

    def bump(self, key: str):
        st = self.state.stats
        st[key] = st.get(key, 0) + 1

    # ------------------------------------------------------------ zones
    def cards_of(self, value, node=None) -> list:
        """Cards from a zone, a card or a list."""
        if value.__class__ is Card:
            return [value]
        if isinstance(value, ZoneRef):
            return list(map(self.cards.__getitem__, reversed(self.state.zones.get(value.key, ()))))  # top first
        if value is None:
            return []
        if isinstance(value, list):
            return value
        if hasattr(value, "props"):
            return [value]
        raise self.fail(node, f"expected cards or a zone, got {_kind(value)}")

    def as_list(self, value, node=None) -> list:
        if isinstance(value, list):
            return value
        if isinstance(value, ZoneRef):
            return self.cards_of(value)
        if isinstance(value, (tuple, set)):
            return list(value)
        raise self.fail(node, f"expected a list or a zone, got {_kind(value)}")

    def zone_of_card(self, card) -> ZoneRef:
        return self.zone_ref(self.state.where[card.id])

    def zone_ref(self, key: str) -> ZoneRef:
        """The zone (as a value) whose cards the state keeps under `key`."""
        ref = self._zone_refs.get(key)
        if ref is None:
            name, owner, host = parse_zone_key(key)
            if host is not None:
                ref = ZoneRef(name, None, host, self.cards[host].name)
            else:
                ref = ZoneRef(name, owner)
            self._zone_refs[key] = ref  # zone values never change: one per key
        return ref

    def zone_owner(self, z: ZoneRef) -> Optional[int]:
        """The seat a zone belongs to: its player, or the owner of the card it is under."""
        seen = 0
        while z.card is not None and seen < 50:  # a card under a card under …
            z = self.zone_of_card(self.cards[z.card])
            seen += 1
        return z.owner

    def _place(self, card, dest: ZoneRef, position="top"):
        st = self.state
        if st.trying:   # `possible`: a card that moves is all the trial needs to know
            raise _TrialMoved()
        cid = card.id
        where, zones = st.where, st.zones
        old = where[cid]
        if st.known is not None:
            self._learn(cid, old, dest)
        if old is not None:
            ids = zones[old]
            if ids[-1] == cid:  # the top card (a draw): no search
                ids.pop()
            else:
                ids.remove(cid)
        ids = zones.get(dest.key)
        if ids is None:
            ids = zones[dest.key] = []
        watched = self._watched
        if watched is None or old in watched or dest.key in watched:
            st.changes += 1
        if position == "bottom":
            ids.insert(0, cid)
        else:
            ids.append(cid)
        where[cid] = dest.key
        if self.place_derives:   # (they read where the card lies)
            self.forget_place(cid)

    def as_zone(self, value, node) -> ZoneRef:
        if isinstance(value, ZoneRef):
            return value
        raise self.fail(node, f"expected a zone, got {_kind(value)}",
                        hint="per-player zones take the player: `hand(p)`")

    def as_player(self, value, node) -> Player:
        if isinstance(value, Player):
            return value
        raise self.fail(node, f"expected a player, got {_kind(value)}")

    # ------------------------------------------------------------ randomness
    def roll(self, sides: int) -> int:
        if self.state.forced_dice:
            v = self.state.forced_dice.pop(0)
            if not 1 <= v <= sides:
                raise error("E013", f"the scenario scripts a roll of {v} for a d{sides}")
            return v
        return self.state.rng.randint(1, sides)

    def pick(self, items: list):
        if not items:
            return None
        if self.state.forced_random:
            want = self.state.forced_random.pop(0)
            for it in items:
                if _label(it) == want or it == want:
                    return it
            raise error("E013", f"the scenario scripts a random pick of `{want}`, which is not among "
                        + ", ".join(_label(i) for i in items))
        return items[self.state.rng.randrange(len(items))]

    # ================================================================ expressions
    def ev(self, e, env):
        """Evaluate an expression (compiled once per ruleset into a closure)."""
        try:
            return self.expr_fn(e)(self, env)
        except (CglError, _EndScope, _GameOver):
            raise
        except RecursionError:
            raise self.fail(e, "the rules call themselves without end", code="E011") from None
        # Any other Python error is a bug in cgl, not in the rules: every mistake a rule can
        # make is found by an explicit check that points at its node (`eng.fail`), and the
        # CLI reports the rest as an internal error (exit 3).

    def expr_fn(self, e):
        """The function `fn(engine, env)` evaluating expression `e`."""
        return self.compile(e)

    def attr_of(self, obj, name):
        """(found, value) for `obj.name`."""
        if type(obj) is Card:
            getter = self.card_getters.get(name)
            if getter is None:
                getter = self.card_getters[name] = self._card_getter(name)
            return getter(self, obj)
        return self._other_attr(obj, name)

    def _card_getter(self, name):
        """How to read property `name` of any card, decided once per name: a function of (engine,
        card), given the engine, not holding it (a dropped fork must be freed at once)."""
        meaning = resolver.card_attr_meaning(self.rs, name)
        if meaning == "var":   # (the state read when called: a trial, `possible`, swaps it)
            return lambda eng, c: (True, eng.state.card_vars[c.id][name])
        if meaning == "derive":
            body = self.compile(self.rs.derives[name].expr)
            kind = self.derive_kinds[name]
            if kind == "dynamic":
                return lambda eng, c: (True, body(eng, Env({"it": c})))
            cache = self.static_cache if kind == "static" else self.derive_cache

            def cached(eng, c):
                key = (c.id, name)
                if key not in cache:
                    cache[key] = body(eng, Env({"it": c}))
                return True, cache[key]
            return cached
        if name in ("owner", "zone") and not any(name in c.props for c in self.cards):   # (the commonest)
            return B.owner_of if name == "owner" else B.zone_name_of
        return lambda eng, c: eng._card_attr(c, name)

    def _card_attr(self, obj, name):
        """A card's data property or built-in attribute (name, id, zone, owner)."""
        if name in obj.props:
            return True, obj.props[name]
        if name == "name":
            return True, obj.name
        if name == "id":
            return True, obj.id
        if name == "zone":
            return True, self.zone_of_card(obj).name
        if name == "owner":
            seat = self.zone_owner(self.zone_of_card(obj))
            return True, None if seat is None else self.players[seat]
        return False, None

    def _other_attr(self, obj, name):
        if isinstance(obj, Player):
            if name in self.player_var_names:
                return True, self.state.player_vars[obj.seat][name]
            if name == "name":
                return True, obj.name
            if name == "seat":
                return True, obj.seat + 1
            return False, None
        if isinstance(obj, Event):
            try:
                return True, obj.get(name)
            except KeyError:
                return False, None
        if isinstance(obj, (Match, Group)):
            if name in ("shape", "groups", "label", "size", "cards"):
                try:
                    v = getattr(obj, name)
                except AttributeError:
                    return False, None
                return True, list(v) if isinstance(v, tuple) else v
            return False, None
        if isinstance(obj, ZoneRef):
            if name == "name":
                return True, obj.name
            if name == "owner":
                return True, None if obj.owner is None else self.players[obj.owner]
            if name == "size":
                return True, len(self.state.zones.get(obj.key, ()))
            return False, None
        if isinstance(obj, dict):
            if name in obj:
                return True, obj[name]
            return False, None
        return False, None

    # ------------------------------------------------------------ patterns
    def match_pattern(self, p: A.Pattern, args: list):
        env = Env(dict(zip(p.params, args)))
        cards = self.as_list(self.ev(p.cards, env), p.cards)
        labels, fixed = [], []
        for c in cards:
            inner = env.child({"it": c})
            labs = self.ev(p.labels, inner)
            labels.append([_hashable(x) for x in (labs if isinstance(labs, list) else [labs]) if x is not None])
            fixed.append(_hashable(self.ev(p.fixed, inner)) if p.fixed is not None else None)
        return self.best_reading(
            p, cards, labels, fixed,
            lambda i, j, part: lambda label: _truth(self.ev(part.cond, env.child({"label": label}))),
            lambda m: self.ev(p.best, env.child({"it": m})))

    def best_reading(self, p: A.Pattern, cards, labels, fixed, part_ok, score):
        """Solve pattern `p` for these cards: the first reading, or the best by `score(match)`
        when the pattern says `best by`; `part_ok(i, j, part)` makes the label test of
        part j of shape i (for parts with a condition)."""
        shapes = [(shape.name, [(part.size, part.any, part_ok(i, j, part) if part.cond is not None else None)
                                for j, part in enumerate(shape.parts)])
                  for i, shape in enumerate(p.shapes)]
        readings = solve_all(cards, labels, fixed, shapes)
        first = next(readings, None)
        if first is None:
            return None
        best = Match(first[0], tuple(Group(label, tuple(cs)) for label, cs in first[1]))
        if p.best is None:
            return best
        best_score = score(best)
        for name, groups in readings:
            m = Match(name, tuple(Group(label, tuple(cs)) for label, cs in groups))
            value = score(m)
            if value > best_score:
                best, best_score = m, value
        return best

    # ================================================================ statements
    def block_fn(self, block):
        """`run_block` for one block, as a function of the environment (the turn loop's)."""
        return partial(self.run_block, block)

    def run_block(self, block, env):
        if block is None:
            return
        inner = env.child()
        for s in block.stmts:
            yield from self.run(s, inner)

    def run(self, s, env):
        self.state.steps += 1
        if self.max_steps is not None and self.state.steps > self.max_steps:
            raise self.out_of_steps(s)
        try:
            yield from _EXEC[type(s)](self, s, env)
        except (CglError, _EndScope, _GameOver, GeneratorExit):
            raise
        except RecursionError:
            raise self.fail(s, "the rules call themselves without end", code="E011") from None
        if self._checks and s.__class__ in _CHANGES:   # the one place a statement settles the game
            yield from self.settle()

    # ================================================================ events
    def raise_event(self, ev: Event):
        hit = self.event_begin(ev)
        if hit is not None:
            yield from self.event_run(ev, hit)
        if self._checks:
            yield from self.settle()

    # An event in two steps: `event_begin` (a plain call: log it, find what waits for it)
    # and, only when something does, the generator `event_run`.
    def event_begin(self, ev: Event):
        """Log the event; the (triggers, reactions) waiting for it, or None."""
        if ev.phase is None:
            ev.phase = self.state.phase  # the phase it happened in
        if ev.card is not None and ev.kind in ("draw", "discard", "deal", "move"):
            self._log_card_event(ev)
        if self.check and ev.card is not None:
            self.check_card(ev)
        triggers = self._matching(self._triggers_by_kind, ev)
        reactions = self._matching(self._reactions_by_kind, ev)
        return (triggers, reactions) if triggers or reactions else None

    def event_run(self, ev: Event, hit):
        triggers, reactions = hit
        if len(self.state.event_chain) >= MAX_EVENT_DEPTH:
            raise self.runaway()
        env = Env({"event": ev, "card": ev.card, "player": ev.player, "it": ev.card})
        env.vars.update(ev.fields)
        for tr in triggers:
            if tr.cond is not None and not _truth(self.ev(tr.cond, env)):
                continue
            if tr.optional:
                seat = self._asker(tr.ask_by, env)
                prompt = self.ev(tr.prompt, env) if tr.prompt else f"Use {tr.name}?"
                yes = yield from self.ask_yes_no(seat, prompt, tr.span, tag=tr.name)
                if not yes:
                    continue
            yield from self._fire("trigger", tr.name, tr.body, env)
        for r in reactions:
            if r.cond is not None and not _truth(self.ev(r.cond, env)):
                continue
            yield from self.open_window(r, env)

    def _fire(self, kind: str, name: str, body, env):
        """Run a trigger's or reaction's body, counted, and named in the event chain."""
        self.bump(f"{kind}:{name}")
        self.state.event_chain.append(name)
        try:
            yield from self.run_block(body, env)
        finally:
            self.state.event_chain.pop()

    def _log_card_event(self, ev: Event, refused_by: Optional[str] = None):
        """Log a card's move so that each player reads only what they may see: a card that
        is or becomes public is named to all; one between a player's own zone and a hidden
        one is named to that player and shown as "a card" to the others; one between two
        hidden zones is bookkeeping, logged quietly for nobody. With `refused_by`, the move
        a continuous rule refused, seen by the same players."""
        if not self.record and not self.listeners:
            return
        card, player, src, dest = ev.card, ev.player, ev.source, ev.dest
        kind = ev.kind if refused_by is None else "refused"
        who = player.seat + 1 if player is not None else None

        head = "" if refused_by is None else f"rule {refused_by} refuses: "

        if self.state.quiet_moves and refused_by is None:
            self.log(kind, head + self._card_text(ev, False), visible_to=[], quiet=True, card=card.name, player=who)
            return
        seers = self.seers(src, dest)
        if seers is None:
            if ev.forced:
                self.log(kind, head + self._card_text(ev, True), card=card.name, player=who, forced=True)
            else:
                self.log(kind, head + self._card_text(ev, True), card=card.name, player=who)
            return
        if not seers:
            self.log(kind, head + self._card_text(ev, False), visible_to=[], quiet=True, card=card.name, player=who)
            return
        self.log(kind, head + self._card_text(ev, True), visible_to=seers, card=card.name, player=who)
        others = [p for p in range(self.n) if p not in seers]
        if others:
            self.log(kind, head + self._card_text(ev, False), hidden=True, visible_to=others, player=who)

    def _card_text(self, ev: Event, named: bool) -> str:
        """How a card's move reads: naming the card, or veiled ("a card")."""
        what = self.show_card(ev.card) if named else "a card"
        if ev.kind == "move":
            return f"{what} moves from {ev.source} to {ev.dest}"
        return f"{ev.player} {_VERB[ev.kind]} {what}"

    def open_window(self, r: A.Reaction, env: Env):
        """A reaction window: each responder in priority order may respond."""
        if r.responders is not None:
            resp = self.ev(r.responders, env)
            responders = resp if isinstance(resp, list) else [resp]
        else:
            actor = env.vars.get("player")
            responders = [self.players[p] for p in self.seat_order(actor.seat if actor else self.state.current)[1:]]
        for who in responders:
            local = env.child({"responder": who})
            if r.eligible is not None and not _truth(self.ev(r.eligible, local)):
                continue
            if not self.allowed(r.name, local):
                continue
            prompt = self.ev(r.ask, local) if r.ask else f"Respond with {r.name}?"
            yes = yield from self.ask_yes_no(who.seat, prompt, r.span, tag=r.name)
            if not yes:
                continue
            yield from self._fire("reaction", r.name, r.body, local)
            if r.once:
                return

    def _matching(self, index, ev: Event) -> list:
        out = []
        for decl in index.get(ev.kind, ()) + (index.get("move", ()) if ev.kind in ("draw", "discard", "deal") else ()):
            pat = decl.event
            if pat.kind in ("start", "end"):
                if pat.name != ev.name or (pat.phase and pat.phase != ev.phase):
                    continue
            elif pat.kind == "custom":
                if pat.name != ev.name:
                    continue
            elif pat.kind == "move" or pat.kind == ev.kind:
                if pat.source and (ev.source is None or ev.source.name != pat.source):
                    continue
                if pat.dest and (ev.dest is None or ev.dest.name != pat.dest):
                    continue
            else:
                continue
            out.append(decl)
        if len(out) > 1:
            order = self.decl_order
            out.sort(key=lambda d: order.get(id(d), 0))
        return out

    def scope_event(self, kind: str, scope: str, phase=None):
        if kind in self._scope_kinds:  # nothing waits for any start (or end): no event
            yield from self.raise_event(Event(kind, name=scope, phase=phase, player=self.players[self.state.current]))
        elif self._checks:
            yield from self.settle(force=True)   # (whose turn, which round: raise_event settles after the event)

    # ================================================================ flow
    def finish(self, winners: list, reason: str):
        st = self.state
        if st.finished:
            return
        st.finished = True
        st.winners = sorted(set(winners))
        st.end_reason = reason
        names = ", ".join(f"P{w + 1}" for w in st.winners) or "nobody"
        self.log("game_over", f"Game over ({reason}): winner{'s' if len(st.winners) > 1 else ''}: {names}",
                 winners=[w + 1 for w in st.winners], reason=reason)

    def play(self, start_turn: Optional[int] = None, max_turns: Optional[int] = None,
             start_round: bool = False, to_end: Optional[bool] = None, resume: Optional[tuple] = None):
        """The whole game as a generator of decisions.

        Scenarios start from a prepared position instead: with `start_turn` (a seat), at the
        start of that seat's turn in round `round_no`; with `start_round`, at the start of
        round `round_no + 1` (its `first`, its `start` block). Such a play stops after
        `max_turns` turns, or at the end of the round it began in (or began, for the whole
        game with `to_end` false), unless `to_end` (the whole game's default) plays on
        through the later rounds to the match's `end` block and the `end of game` event.

        `resume` = (seat, why, phase) goes on with a whole game from a state `snap` kept
        where a turn was about to begin (phase 0), or its phase number `phase`: the rest of
        the game, as the game it was kept from would play it (`Game.fork`).
        """
        rs, st = self.rs, self.state
        root = Env()
        whole = start_turn is None and not start_round and resume is None
        if to_end is None:
            to_end = whole or resume is not None
        try:
            try:
                if whole:
                    yield from self.scope_event("start", "game")
                    if rs.setup:
                        yield from self.run_block(rs.setup.body, root)
                    self.state.checks_on = True
                    if self._checks:
                        yield from self.settle(force=True)
                    if rs.match and rs.match.start:
                        yield from self.run_block(rs.match.start, root)
                n = 0   # the rounds of the match played so far
                if resume is not None:
                    yield from self._resumed_round(root, *resume)
                    n = st.round_no
                elif start_turn is not None:
                    yield from self.rest_of_round(root, start_turn, max_turns)
                    n = st.round_no
                elif not (whole and to_end):
                    # a scenario's first round, from its start
                    self.state.checks_on = True
                    yield from self.play_round(root, max_turns)
                    n = st.round_no
                if to_end:
                    rounds = None
                    if rs.match and rs.match.rounds is not None:
                        rounds = _num(self.ev(rs.match.rounds, root), rs.match.rounds, self)
                    while rounds is None or n < rounds:
                        n += 1
                        if n > MAX_ROUNDS:
                            raise self.fail(rs.match, f"the match ran {MAX_ROUNDS} rounds without ending",
                                            code="E011", hint="give the match an end: `rounds …` or `end game`")
                        yield from self.play_round(root)
            except _EndScope as e:
                if e.scope != "game":
                    raise
                # `end game` ends a scenario's play as it ends the game (a turn limit, the same
                # signal, does not)
                to_end = to_end or max_turns is None
            if to_end and rs.match and rs.match.end and not st.finished:
                yield from self.run_block(rs.match.end, root)
            if to_end and not st.finished:
                self.finish([], "no winner")
        except _GameOver:
            pass
        except _EndScope:
            if not st.finished:
                self.finish([], "no winner")
        if to_end or st.finished:   # a game that ended (a scenario's too) has its `end of game`
            try:
                yield from self.scope_event("end", "game")
            except (_GameOver, _EndScope):
                pass

    def rest_of_round(self, root, seat: int, max_turns: Optional[int]):
        """A scenario's round from the start of `seat`'s turn in round `round_no`: its
        turns (at most `max_turns`), then its end as a round ends."""
        st = self.state
        st.round_no = max(st.round_no, 1)
        st.current = seat
        self.state.checks_on = True
        try:
            yield from self.play_turns(root, seat, max_turns)
        except _EndScope as e:
            if e.scope != "round":
                raise
        # the round ended (by `end round` or its `until`): finish it as a round does
        st.end_reason = "the round ended"
        yield from self._round_end(root)

    def _round_end(self, root):
        """A round's end: its `end` block (where `end round` ends only the block), then the
        `end of round` event."""
        rs = self.rs
        if rs.round and rs.round.end:
            try:
                yield from self.run_block(rs.round.end, root)
            except _EndScope as e:
                if e.scope != "round":
                    raise
        yield from self.scope_event("end", "round")

    def _named_first(self, first: int) -> int:
        """The round's first player: the one a `give turn to` named since (unless out), else `first`."""
        st = self.state
        if st.first_player is not None:
            if st.first_player not in st.out:
                first = st.first_player
            st.first_player = None
        return first

    def play_round(self, root, max_turns: Optional[int] = None):
        rs, st = self.rs, self.state
        st.round_no += 1
        st.turn_no = 0
        self._turns_lapse()
        first = 0
        if rs.round and rs.round.first is not None:
            first = self.as_player(self.ev(rs.round.first, root), rs.round.first).seat
        # `give turn to` after the previous round's turns (in its end, say) or before the
        # first round (setup, the match's start) names who plays first, in place of `first`
        first = self._named_first(first)
        st.current = first
        self.log("round", f"Round {st.round_no} begins", round=st.round_no)
        self.bump("rounds")
        try:
            yield from self.scope_event("start", "round")
            if rs.round and rs.round.start:
                yield from self.run_block(rs.round.start, root)
            # `give turn to` in the round's start (after its deal, say) names who plays first
            first = self._named_first(first)
            yield from self.play_turns(root, first, max_turns)
        except _EndScope as e:
            if e.scope != "round":
                raise
        yield from self._round_end(root)

    def play_turns(self, root, first: int, max_turns, why: str = "first", phase: int = 0, resumed: bool = False):
        """A round's turns, from seat `first` (extra turns given before them come first),
        until its `until` holds or `end round`. While they are played, `give turn to` and
        `give extra turn to` are about the turns of this round (`State.in_turns`). `why`:
        "first", or how a resumed game's first turn came (`play(resume=…)`)."""
        st = self.state
        st.in_turns = True
        try:
            yield from self._turns(root, first, max_turns, why, phase, resumed)
        finally:
            st.in_turns = False

    def _turn_begins(self, played: int, seat: int, why: str):
        """Turn `played` of a round begins, `seat`'s (`why`: "extra" for an extra turn):
        within MAX_TURNS, a step of the game's budget (a turn with nothing in it, too), the
        turn counted, the turn hooks called and the turn logged."""
        rs, st = self.rs, self.state
        if played > MAX_TURNS:
            raise self.fail(rs.round, f"a round ran {MAX_TURNS} turns without ending", code="E011",
                            hint="give the round an end: `until …` or `end round`")
        st.steps += 1
        if self.max_steps is not None and st.steps > self.max_steps:
            raise self.out_of_steps(rs.turn or rs.round)
        if why == "extra":
            self._take_extra_turn()
        else:
            st.next_player = None
            st.resume_from = None
        st.current = seat
        st.turn_no += 1
        st.stats["turns"] = st.stats.get("turns", 0) + 1
        for hook in self.turn_hooks:
            hook()
        if self.record or self.listeners:
            extra = " (extra turn)" if why == "extra" else ""
            self.log("turn", f"Turn {st.turn_no}: P{seat + 1}{extra}", player=seat + 1, round=st.round_no,
                     turn=st.turn_no, **({"extra": True} if extra else {}))

    def _turns(self, root, first: int, max_turns, why: str = "first", phase: int = 0, resumed: bool = False):
        """The turns of `play_turns`. `resumed`: a fork goes on from a snapshot (`Game.fork`),
        its round's turns counted from the round's start (`turn_no`), as its game counts them;
        `phase` > 0 resumes the first turn at the start of its phase number `phase` (0-based):
        what came before it in that turn already happened in the snapshot's state."""
        rs, st = self.rs, self.state
        until = rs.round.until if rs.round else None
        turn = rs.turn
        t_start = self.block_fn(turn.start) if turn and turn.start else None
        t_end = self.block_fn(turn.end) if turn and turn.end else None
        block_fn = self.block_fn   # (a local: the comprehension does not make `self` a closure cell)
        phases = [(ph.name, block_fn(ph.body)) for ph in turn.phases] if turn else []
        starts, ends = "start" in self._scope_kinds, "end" in self._scope_kinds
        seat = first
        if why == "first" and st.first_extra_turns and not phase:
            # extra turns given before the round's turns are taken first, then `first`'s turn
            st.extra_turns += st.first_extra_turns
            st.first_extra_turns.clear()
            st.next_player = first
            seat, why = self._turn_after(first, root)
        played = st.turn_no if resumed else 0
        while True:
            if not phase:
                if self.snap is not None:
                    self.snap(seat, why)
                if until is not None and _truth(self.ev(until, root)):
                    return
                if max_turns is not None and played >= max_turns:
                    raise _EndScope("game")
                played += 1
                self._turn_begins(played, seat, why)
            try:
                if not phase:
                    if starts:
                        yield from self.scope_event("start", "turn")
                    if turn and t_start:
                        yield from t_start(root)
                if turn:
                    for k in range(phase, len(phases)):
                        name, body = phases[k]
                        st.phase = name
                        if k and k != phase and self.snap is not None:
                            # a later phase begins: forks from here on replay this phase only
                            self.snap(seat, why, k)
                        try:
                            if starts:
                                yield from self.raise_event(Event("start", name="phase", phase=name,
                                                                  player=self.players[seat]))
                            yield from body(root)
                        except _EndScope as e:
                            if e.scope != "phase":
                                raise
                        if ends:
                            yield from self.raise_event(Event("end", name="phase", phase=name,
                                                              player=self.players[seat]))
                    st.phase = None
                    if t_end:
                        yield from t_end(root)
            except _EndScope as e:
                if e.scope != "turn":
                    raise
            phase = 0
            st.phase = None
            if self.check:
                self.check_invariants()
                self.check_promises()
            if ends:
                yield from self.scope_event("end", "turn")
            seat, why = self._turn_after(seat, root)

    # ================================================================ views and checks
    def show_options(self, options) -> list:
        return [self.show_option(o) for o in options]

    def show_option(self, o) -> str:
        if hasattr(o, "props"):
            return self.show_card(o)
        if isinstance(o, ActionChoice):
            return o.label
        return _show(o)

    def show_card(self, c) -> str:
        if "display" in self.rs.derives:
            try:
                return str(self.attr_of(c, "display")[1])
            except CglError:
                pass
        return c.name

    def _viewer(self, seat: int):
        """The view function of a new decision: its log holds what happened since the
        player's previous decision."""
        if not self.record:   # no log: the same view function every time
            v = self._views.get(seat)
            if v is None:
                # (through a weak reference: the engine keeps it, and must not keep itself alive)
                v = self._views[seat] = partial(_weak_view, weakref.ref(self), seat)
            return v
        since = self.state.last_seen.get(seat, 0)
        self.state.last_seen[seat] = len(self.state.log)
        return lambda: self.view(seat, since)

    def view(self, seat: int, since: Optional[int] = None) -> dict:
        """What player `seat` may see: public zones, their own zones, counts of the rest,
        and the events they saw (since step `since`, else the last twelve)."""
        st, rs = self.state, self.rs
        zones = {}
        for key, ids in st.zones.items():
            name, owner, host = parse_zone_key(key)
            z = rs.zones[name]
            if host is not None:
                if not ids:
                    continue  # most cards have nothing under them
                owner = self.zone_owner(ZoneRef(name, None, host))
                label = f"{name} {self.cards[host].name}"
            else:
                label = name if owner is None else f"{name} P{owner + 1}"
            visible = z.visibility == "public" or (z.visibility == "owner" and owner == seat)
            zones[label] = [self.show_card(self.cards[i]) for i in reversed(ids)] if visible else len(ids)
        players = []
        for p in range(self.n):
            players.append({"player": f"P{p + 1}", **{k: plain(v) for k, v in st.player_vars[p].items()},
                            **({"out": True} if p in st.out else {})})
        log = [e for e in st.log[since or 0:] if "to" not in e or seat in e["to"]]
        if since is None:
            log = log[-12:]
        return {"you": f"P{seat + 1}", "round": st.round_no, "turn": st.turn_no, "current": f"P{st.current + 1}",
                "phase": st.phase, "zones": zones, "players": players,
                "globals": {k: plain(v) for k, v in st.globals.items()}, "log": log}

    def check_card(self, ev: Event):
        """After a card moves: it is in the zone it is recorded in, once, and not where it was."""
        st, cid = self.state, ev.card.id
        key = st.where[cid]
        if st.zones[key].count(cid) != 1:
            raise error("E012", f"invariant broken: {ev.card.name} appears {st.zones[key].count(cid)} times in {key}")
        if ev.source is not None and ev.source.key != key and cid in st.zones.get(ev.source.key, ()):
            raise error("E012", f"invariant broken: {ev.card.name} is still in {ev.source} after moving to {key}")

    def check_promises(self):
        """The ruleset's own `invariant` declarations."""
        for inv in self.rs.invariants:
            if not _truth(self.ev(inv.cond, Env())):
                st = self.state
                raise CglError(Diagnostic("E012", f"invariant `{inv.name}` broken at the end of round {st.round_no}, "
                                          f"turn {st.turn_no} (P{st.current + 1})", inv.span))

    def check_invariants(self):
        st = self.state
        seen = [0] * len(self.cards)
        for key, ids in st.zones.items():
            for i in ids:
                seen[i] += 1
                if st.where[i] != key:
                    raise error("E012", f"invariant broken: {self.cards[i].name} is in {key} "
                                f"but recorded in {st.where[i]}")
        bad = [self.cards[i].name for i, n in enumerate(seen) if n != 1]
        if bad:
            raise error("E012", f"invariant broken: cards lost or duplicated: {', '.join(bad[:5])}")





_VERB = {"draw": "draws", "discard": "discards", "deal": "is dealt", "move": "moves"}


# ---------------------------------------------------------------- helpers

def _index_by_kind(decls) -> dict:
    """Triggers (or reactions) by the kind of event they wait for, in declaration order."""
    out: dict = {}
    for d in decls:
        out.setdefault(d.event.kind, []).append(d)
    return {k: tuple(v) for k, v in out.items()}




_CHANGES = A.CHANGES

_EXEC = {
    A.Move: Engine.x_move, A.Swap: Engine.x_swap, A.Draw: Engine.x_draw, A.Deal: Engine.x_deal, A.Discard: Engine.x_discard,
    A.Shuffle: Engine.x_shuffle, A.Reveal: Engine.x_reveal, A.Set: Engine.x_set, A.Let: Engine.x_let,
    A.Choose: Engine.x_choose, A.May: Engine.x_may, A.Simultaneously: Engine.x_simul, A.If: Engine.x_if,
    A.For: Engine.x_for, A.Repeat: Engine.x_repeat, A.While: Engine.x_while, A.End: Engine.x_end,
    A.Win: Engine.x_win, A.Lose: Engine.x_lose, A.Say: Engine.x_say, A.Emit: Engine.x_emit,
    A.CallStmt: Engine.x_call, A.Give: Engine.x_give, A.Act: Engine.x_act, A.Pass: Engine.x_pass,
    A.GiveExtra: Engine.x_give_extra, A.ReverseOrder: Engine.x_reverse,
}
