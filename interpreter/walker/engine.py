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
from functools import partial
from typing import Optional

from ..base import ast as A
from ..runtime import builtins as B
from ..check import resolver
from ..base.diagnostics import CglError, Diagnostic, error
from ..runtime.patterns import solve_all
from ..runtime.state import Event, Group, Match, Player, State, ZoneRef, parse_zone_key
from ..base.protocol import AnswerError, Decision  # noqa: F401 (the decision API, re-exported)
from ..base.protocol import (CARD_STATS, DEFAULT_MAX_STEPS, MAX_CALLS, _EndScope,
                             _GameOver, _TrialMoved)
from .continuous import ContinuousRules
from .events import Events
from .flow import Flow
from .forks import Forks
from .hints import Hints
from .statements import Statements
from .trial import Targets, Trials
from .turn_order import TurnOrder
from .views import Views
from ..runtime.values import _fresh, _hashable, _kind, _label, _truth, _value_attr

# ---------------------------------------------------------------- environments

from .compiler import Env, compiler_for  # noqa: E402
from ..check.loader import Card  # noqa: E402


# ---------------------------------------------------------------- the engine

class Engine(Statements, Events, Flow, Views, TurnOrder, ContinuousRules, Trials, Targets, Forks, Hints):
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
        # a zone under each card (whose owner is the card's: not a zone per card per player)
        self._card_zones = [z.name for z in rs.zones.values() if z.per_card and not z.per_player]
        # False: no transcript is kept (`cgl simulate`); the game is the same, its log empty
        self.record = True
        # the game's budget of steps: statements run and turns played (None: no limit)
        self.max_steps: Optional[int] = max_steps
        self.decks: dict = {}                  # seat -> DeckList, when the ruleset has a `deck` block
        self.decl_order = facts.decl_order
        self._triggers_by_kind = _index_by_kind([t for t in rs.triggers if not t.instead])
        self._instead_by_kind = _index_by_kind([t for t in rs.triggers if t.instead])
        self._instead_found: dict = {}   # (kind, name, from, to, phase) -> its `Facts.instead_of`
        self._instead_tests: dict = {}   # id(instead trigger) -> the test of its condition (`trigger_test`)
        # some trigger is `ordered by` a player (Events.trigger_order)
        self._ordering = any(t.order_by is not None for t in rs.triggers if not t.instead)
        self._reactions_by_kind = _index_by_kind(rs.reactions)
        # a question asked while one of these runs is its responder's alone (`Decision.private`)
        self._reaction_names = frozenset(r.name for r in rs.reactions)
        # whether a choice's options read what some seat cannot see, by question (`asks_hidden`)
        self._hidden_asks = facts.hidden_asks
        # `check …`: the state checks (they run once the game has begun: `State.checks_on`)
        self._checks = tuple(rs.checks)
        # the zone keys whose cards the checks read (None: any), and whether they read variables
        self._watched: Optional[frozenset] = None
        self._check_vars = facts.check_vars
        if self._checks and facts.check_zones is not None:
            self._watched = frozenset(k for name in facts.check_zones
                                      for k in ([f"{name}:{p}" for p in range(players)]
                                                if rs.zones[name].per_player and not rs.zones[name].per_card
                                                else [name]))
        self._index_rules()   # `rule …: forbid …` (continuous.py)
        self._visibility = {name: z.visibility for name, z in rs.zones.items()}
        self._role_zones: dict = {}
        self._zone_refs: dict = {}
        # what a change of zone counts (`_count_move`): by card id, and by (from key, to key)
        self._moved_stats = [CARD_STATS["move"] + c.name for c in self.cards]
        self._flow_stats: dict = {}
        self._key_owners: dict = {}    # zone key -> its owner (a Player or None), as found
        self._sight: dict = {}         # seat -> {zone key: whether that seat sees the zone} (`hidden_keys`, hints)
        self._hint_how: dict = {}      # a card property -> how a hint's read of it is watched (hints.py)
        self._twins: Optional[dict] = None   # card id -> the ids of its identical copies (`twins`)
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
        self.move_hooks: list = []     # called as `hook(card id, from key, to key)` at each change of zone
        # called as `snap(seat, why)` where each turn of a round is about to begin (its `until`
        # not yet asked), and as `snap(seat, why, k)` where its phase number k > 0 begins (before
        # its `start of phase` event): `Game` keeps the state there, to fork the game from (see `clone`)
        self.snap = None
        self._views: dict = {}
        self._validated = None         # the decision whose answer, one option's index, Game.answer checked
        self.card_getters: dict = {}
        self.derive_cache: dict = {}   # "card", "place" derives, for this game's state
        # a world's (`clone(world=True)`): the snapshot it was copied from, as (its card
        # variables, its cached derived properties), which the "card" derived properties
        # the world works out are given back to (`derived_found`); None in any other game
        self.derived_home = None
        # calls of defs and tables, counted by both engines' calls (`calls_out`, past `call_limit`)
        self.calls = 0
        self.call_limit = 0
        self._calls_at = -1            # the step whose calls are being counted

    # ------------------------------------------------------------ state
    def _initial_state(self, seed) -> State:
        rs = self.rs
        zones = {}
        for z in rs.zones.values():
            if z.per_card:   # a card's own zone is made when a card first goes into it
                continue
            if z.per_player:
                for p in range(self.n):
                    zones[f"{z.name}:{p}"] = []
            else:
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
                if isinstance(init, list):
                    for d in st.card_vars:
                        d[name] = list(init)   # (`_fresh`: a list of each card's own)
                else:
                    for d in st.card_vars:
                        d[name] = init
        st.var_counts = {name: sum(d[name] is not None for d in st.card_vars) for name in resolver.facts(rs).counted_vars}
        return st

    def fail(self, node, message, code="E010", hint=None):
        return CglError(Diagnostic(code, message, node.span if node is not None else None, hint=hint))

    def out_of_steps(self, node):
        """The error of a game that used up its budget of steps at `node` (a statement, or the
        `turn` block when a turn was to begin): the same in both engines."""
        return self.fail(node, f"the game ran {self.max_steps} steps (statements and turns) without ending",
                         code="E011", hint="if the game really is this long, raise the budget: `--max-steps N` "
                                           "(`Game(..., max_steps=N)`); otherwise find the loop that does not end")

    def calls_out(self, decl):
        """Called when `calls` passes `call_limit` in a call of def or table `decl`: the count
        begins again if a step has run since it began, else the error of a step that calls
        defs and tables more than MAX_CALLS times (a doubling recursion runs no statement,
        so the budget of steps alone would not stop it). The count is the engine's: the
        compiled engine writes small defs in place and counts those calls not."""
        steps = self.state.steps
        if steps != self._calls_at:
            self._calls_at = steps
            self.call_limit = self.calls + MAX_CALLS
            return
        kind = "table" if isinstance(decl, A.Table) else "def"
        raise self.fail(decl, f"more than {MAX_CALLS:,} calls of defs and tables in one step, the last of "
                              f"{kind} `{decl.name}`", code="E017",
                        hint="does it call itself twice or more each time (`f(n - 1) + f(n - 1)`)? "
                             "Count down once, or keep the value in a variable")

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
                ref = ZoneRef(name, owner, host, self.cards[host].name)
            else:
                ref = ZoneRef(name, owner)
            self._zone_refs[key] = ref  # zone values never change: one per key
        return ref

    def zone_owner(self, z: ZoneRef) -> Optional[int]:
        """The seat a zone belongs to: its player (of a zone per card per player too), or the
        owner of the card it is under."""
        seen = 0
        while z.card is not None and z.owner is None and seen < 50:  # a card under a card under …
            z = self.zone_of_card(self.cards[z.card])
            seen += 1
        return z.owner

    def _place(self, card, dest: ZoneRef, position="top"):
        """The one place a card changes zone (`_move_each` writes in its quiet moves)."""
        st = self.state
        if st.trying and (not st.trial_through or self._trial_past):   # `possible`: a card that moves is all the trial needs to know
            raise _TrialMoved()
        cid = card.id
        dkey = dest.key
        where, zones = st.where, st.zones
        old = where[cid]
        if st.known is not None:
            self._learn(cid, old, dest)
        if st.shown:
            st.shown.pop(cid, None)
        own = st.own_zones   # (a trial's copy: the zones' lists it shares with the game are copied first)
        if old is not None:
            ids = zones[old] if own is None or old in own else st.zone_store(old)
            if ids[-1] == cid:  # the top card (a draw): no search
                ids.pop()
            else:
                ids.remove(cid)
            if old != dkey:   # a change of zone: `_count_move`, written in (every move comes here)
                stats = st.stats
                key = self._moved_stats[cid]
                stats[key] = stats.get(key, 0) + 1
                key = self._flow_stats.get((old, dkey)) or self._flow_stat(old, dkey)
                stats[key] = stats.get(key, 0) + 1
                if self.move_hooks and not st.trying:
                    for hook in self.move_hooks:
                        hook(cid, old, dkey)
        ids = zones.get(dkey) if own is None or dkey in own else st.zone_store(dkey)
        if ids is None:
            ids = zones[dkey] = []
        watched = self._watched
        if watched is None or old in watched or dkey in watched:
            st.changes += 1
        if position == "bottom":
            ids.insert(0, cid)
        else:
            ids.append(cid)
        where[cid] = dkey
        if self.place_derives:   # (they read where the card lies)
            self.forget_place(cid)

    def _count_move(self, cid: int, old: str, new: str) -> None:
        """Card `cid` went from zone key `old` to another, `new`: counted by its name and by
        the two zones' names (`CARD_STATS` "move" and "flow"). Every change of zone is
        counted so: `_place` (which writes this in: most moves go there), and the two moves
        that write `_place` in (`_move_each`'s quiet moves, `swap`) call it."""
        stats = self.state.stats
        key = self._moved_stats[cid]
        stats[key] = stats.get(key, 0) + 1
        key = self._flow_stats.get((old, new)) or self._flow_stat(old, new)
        stats[key] = stats.get(key, 0) + 1
        if self.move_hooks and not self.state.trying:   # (a trial's moves are not the game's)
            for hook in self.move_hooks:
                hook(cid, old, new)

    def _flow_stat(self, old: str, new: str) -> str:
        """The stat of a card's move from zone key `old` to `new`: `cards moved:FROM>TO`, by the zones' names."""
        key = self._flow_stats[(old, new)] = f"{CARD_STATS['flow']}{self.zone_ref(old).name}>{self.zone_ref(new).name}"
        return key

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

    def scripted_shuffle(self, z, ids: list) -> list:
        """The order a scenario's `shuffles:` gives the next shuffle, of zone `z` (`ids`:
        its cards, bottom first): the cards it names on top, in its order, and the rest
        below them as they lay. The random source is not used."""
        key, label, names = self.state.forced_shuffles.pop(0)
        if key != z.key:
            raise error("E013", f"the scenario scripts a shuffle of `{label}`, but the game shuffles {z}")
        rest = list(reversed(ids))   # top first
        top = []
        for name in names:
            found = next((cid for cid in rest if self.cards[cid].name == name), None)
            if found is None:
                held = sum(1 for cid in ids if self.cards[cid].name == name)
                raise error("E013", f"the scenario's shuffle of `{label}` puts {names.count(name)} {name} on top, "
                            f"but {z} holds {held}")
            rest.remove(found)
            top.append(found)
        return list(reversed(top + rest))

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
                    v = cache[key] = body(eng, Env({"it": c}))
                    if kind == "card" and eng.derived_home is not None:
                        eng.derived_found(name, c.id, v)
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
        if name == "size" and isinstance(obj, ZoneRef):
            return True, len(self.state.zones.get(obj.key, ()))
        return _value_attr(obj, name, self.players)

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
        st = self.state
        st.steps += 1
        if self.max_steps is not None and st.steps > self.max_steps:
            raise self.out_of_steps(s)
        if st.trying and id(s) in resolver.facts(self.rs).past_parts:   # (see Trials.trial_past_parts)
            self.trial_past_parts()
        try:
            yield from _EXEC[type(s)](self, s, env)
        except (CglError, _EndScope, _GameOver, GeneratorExit):
            raise
        except RecursionError:
            raise self.fail(s, "the rules call themselves without end", code="E011") from None
        if self._checks and s.__class__ in _CHANGES:   # the one place a statement settles the game
            yield from self.settle()



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
    A.Shuffle: Engine.x_shuffle, A.Cut: Engine.x_cut, A.Reveal: Engine.x_reveal, A.Set: Engine.x_set, A.Let: Engine.x_let,
    A.Choose: Engine.x_choose, A.May: Engine.x_may, A.Simultaneously: Engine.x_simul, A.If: Engine.x_if,
    A.For: Engine.x_for, A.Repeat: Engine.x_repeat, A.While: Engine.x_while, A.End: Engine.x_end,
    A.Win: Engine.x_win, A.Lose: Engine.x_lose, A.KnockOut: Engine.x_knock_out, A.Say: Engine.x_say, A.Emit: Engine.x_emit,
    A.CallStmt: Engine.x_call, A.Give: Engine.x_give, A.Act: Engine.x_act, A.Pass: Engine.x_pass,
    A.GiveExtra: Engine.x_give_extra, A.ReverseOrder: Engine.x_reverse,
    A.Require: Engine.x_require, A.ChooseTargets: Engine.x_choose_targets,
}
