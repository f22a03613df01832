"""The engine with the ruleset's bodies and expressions compiled: `CompiledEngine`, and
`make_engine`, which chooses between it and the tree walker."""
from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import Optional

from ..base import ast as A
from ..walker.compiler import Env, event_env
from ..base.diagnostics import CglError
from ..walker.engine import Engine
from ..base.protocol import CARD_STATS, DEFAULT_MAX_STEPS, EVENT_STAT, MAX_EVENT_DEPTH, ActionChoice
from ..check.loader import Card
from ..check.resolver import facts
from ..runtime.state import Event, Player, ZoneRef
from ..runtime.values import _hashable, _num, _show, _truth
from .module import _strict, compiled_for
from .runners import _runner
from .runtime import _CARD_EVENTS, _MISSING, _UNSET, NO_LIMIT, PYERR, Unsupported

# ---------------------------------------------------------------- the engine

class CompiledEngine(Engine):
    """The engine with the ruleset's bodies and expressions compiled (see the module doc)."""

    def __init__(self, rs, players: int, seed: int, check_invariants: bool = False, compiled=None,
                 max_steps: Optional[int] = DEFAULT_MAX_STEPS):
        self.cx = compiled or compiled_for(rs, budget=max_steps is not None)
        self.step_limit = NO_LIMIT
        super().__init__(rs, players, seed, check_invariants, max_steps)
        self.dcache = {name: [_UNSET] * len(self.cards) for name in self.card_derives}
        self._use(self.cx)
        self.hint_plain_derives = frozenset(self.cx.derives) - self.card_var_names
        self._forbidden = {r.tag for r in rs.rules} - {None}
        # the zones of the roles `draw 1` and `discard c` use, found once (see s_draw1)
        self._deck = self._pile = None
        self._hands = [None] * self.n
        # what `draw 1` and `discard c` count, by card id (`CARD_STATS`)
        self._drawn_stats = [CARD_STATS["draw"] + c.name for c in self.cards]
        self._discarded_stats = [CARD_STATS["discard"] + c.name for c in self.cards]
        # no replacement, zone rule or state check to ask: `draw 1` and `discard c` go the short way
        self._plain_cards = not (self._instead_by_kind or self._zone_rules or self._checks)

    def _derived_copy(self):
        return {name: values[:] for name, values in self.dcache.items()}

    def _derived_restore(self, kept) -> None:
        Engine._derived_restore(self, {})
        self.dcache = {name: values[:] for name, values in kept.items()}

    def derived_found(self, name: str, cid: int, value) -> None:
        home_vars, home = self.derived_home
        if self.state.card_vars[cid] is home_vars[cid]:
            home[name][cid] = value

    def derived_put_back(self, kept) -> None:
        Engine.forget_all(self)   # (what `_derived_copy` does not keep)
        for name, values in self.dcache.items():
            values[:] = kept[name]   # in place: generated code holds these lists while it runs

    def forget(self, card, derives) -> None:
        for name in derives:
            self.dcache[name][card.id] = _UNSET

    def forget_all(self) -> None:
        Engine.forget_all(self)
        for values in self.dcache.values():
            values[:] = [_UNSET] * len(values)

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
            if self._ordering and any(tr.order_by is not None for tr, _ in triggers):
                hit = self._dispatch[key] = partial(CompiledEngine._ordered_run, triggers=triggers,
                                                    then=self._runner_of([], reactions, key) if reactions else None)
            else:
                hit = self._dispatch[key] = self._runner_of(triggers, reactions, key) if triggers or reactions else None
        return hit

    def _runner_of(self, triggers: list, reactions: list, key: tuple):
        """The runner of these triggers and reactions, written once for every kind of event
        they wait for (`key`, the first: kinds that differ only in their phase, say, share
        it; writing a runner costs more than a few rounds of the game)."""
        runners = self.cx.runners
        which = (tuple(id(tr) for tr, _ in triggers), tuple(id(r) for r, _ in reactions))
        run = runners.get(which)
        if run is None:
            # its name in tracebacks and profiles, one per runner (a profile keys a function
            # by file, line and name: runners named alike are counted as one)
            what = f" {key[0]} {key[2]}>{key[3]}" if key[1] is None else f" {key[0]} {key[1]}"
            what += "" if key[4] is None else f" in {key[4]}"
            run = runners[which] = _runner(triggers, reactions, self.cx.ns, what)
        return run

    def _ordered_run(self, ev: Event, triggers: list, then):
        """The triggers of an event some of which are `ordered by` a player (`trigger_order`
        orders them, as `Engine.event_run`), with their compiled pieces; then the reaction
        windows (`then`, the runner of the reactions alone)."""
        if len(self.state.event_chain) >= MAX_EVENT_DEPTH:
            raise self.runaway()
        run, fired = yield from self.trigger_order(triggers, ev, itemgetter(0),
                                                   lambda p: p[1].cond is None or p[1].cond(self, ev),
                                                   lambda p: p[1].order_by(self, ev),
                                                   lambda p: p[1].prefer(self, ev))
        st = self.state
        for tr, c in run:
            if c.cond is not None and id(tr) not in fired and not c.cond(self, ev):
                continue
            if tr.optional:
                d = self._may(tr, c, ev)
                if not self.yes_no_took(d, (yield d)):
                    continue
            key = "trigger:" + tr.name
            st.stats[key] = st.stats.get(key, 0) + 1
            st.event_chain.append(self.cause(tr.name, ev))
            try:
                yield from c.body(self, ev)
            finally:
                st.event_chain.pop()
        if then is not None:
            yield from then(self, ev)

    def _moved(self, ev: Event, position: str, stat: Optional[str] = None):
        """`Engine._moved` (place the card, count it, `event_begin`) with `event_begin` and
        the dispatch written in: a card event is the commonest thing a game does."""
        st = self.state
        card, dest = ev.card, ev.dest
        self._place(card, dest, position)   # (the one place a card changes zone)
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
        if not self._plain_cards:
            return self.s_draw(s, 1, None, dest)
        st = self.state
        src = self._deck or self._default_zone("deck", s)
        ids = st.zones.get(src.key)
        if not ids:
            return self.s_draw(s, 1, None, dest)  # the stock is empty: logged there
        self._deck = src
        if s.dest:
            if dest.__class__ is not ZoneRef:
                dest = self.as_zone(dest, s.dest)   # (an error)
        else:
            cur = st.current
            dest = self._hands[cur] or self._default_zone("hand", s, cur)
            self._hands[cur] = dest
        return self._card_event("draw", self.cards[ids[-1]], st.current if dest.owner is None else dest.owner,
                                src, dest, self._drawn_stats, False)

    def s_discard1(self, s, card):
        """`s_discard(s, card, None)`."""
        if card.__class__ is not Card or not self._plain_cards:
            return self.s_discard(s, card, None)
        src = self._zone_refs.get(self.state.where[card.id]) or self.zone_of_card(card)
        dest = self._pile = self._pile or self._default_zone("discard", s)
        return self._card_event("discard", card, self.state.current if src.owner is None else src.owner,
                                src, dest, self._discarded_stats, s.forced)

    def _card_event(self, kind, card, seat, src, dest, stats_by_card, forced):
        """`draw 1`'s and `discard c`'s move, of `card` from `src` to the top of `dest` by
        `seat`, as `_moved` makes it (written in: the one call a move costs), counted under
        `stats_by_card[card.id]`; the runner of what waits for it, started, or None. The
        event is made only when something reads it."""
        st = self.state
        stats = st.stats
        cid = card.id
        self._place(card, dest, "top")   # (the one place a card changes zone)
        key = stats_by_card[cid]
        stats[key] = stats.get(key, 0) + 1
        phase = st.phase  # the phase it happened in
        hit = self._dispatch.get((kind, None, src.name, dest.name, phase), _MISSING)
        logged = self.record or self.listeners
        if hit is None and not logged and not self.check:
            return None
        ev = Event(kind, None, card, self.players[seat], src, dest, forced, phase)
        if logged:
            self._log_card_event(ev)
        if self.check:
            self.check_card(ev)
        if hit is _MISSING:
            hit = self._handlers(ev)
        return None if hit is None else hit(self, ev)

    def s_emit(self, s, fields):
        """`Engine.s_emit` with the dispatch written in: the event is made only when something
        waits for it, and what waits is returned as its runner, started (None: nothing does)."""
        if self._checks or self.check:
            return Engine.s_emit(self, s, fields)
        st = self.state
        stats = st.stats
        key = EVENT_STAT + s.name
        stats[key] = stats.get(key, 0) + 1
        phase = st.phase  # the phase it happened in
        hit = self._dispatch.get(("custom", s.name, None, None, phase), _MISSING)
        if hit is None:
            return None
        player = fields.get("player")   # (`custom_event`, written in)
        ev = Event("custom", s.name, fields.get("card"), player if player.__class__ is Player else None,
                   None, None, False, phase, fields)
        if hit is _MISSING:
            hit = self._handlers(ev)
            if hit is None:
                return None
        return hit(self, ev)

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

    def _may(self, tr, c, ev: Event):
        """The question whether an optional (`may`) trigger is used (its answer goes to
        `yes_no_took`)."""
        if c.ask_by is not None:
            seat = self.as_player(c.ask_by(self, ev), tr.ask_by).seat
        else:
            p = self._event_player(ev)
            seat = p.seat if isinstance(p, Player) else self.state.current
        prompt = c.prompt(self, ev) if c.prompt is not None else f"Use {tr.name}?"
        return self.yes_no(seat, prompt, tr.span, tag=tr.name)

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
                if a.name in self._forbidden and (v.__class__ is not Card or self.tag_rules_for(a.name, (a.param,), v)):
                    # (a card that no `forbid` rule may hold for is allowed: no environment to make)
                    local = Env({a.param: v} if a.param else {}, env_fn())
                    local.vars["actor"] = who
                    if not self.allowed(a.name, local, local.vars.get(a.param), (a.param,)):
                        continue
                label = c.label(self, who, v) if c.label else (a.name if v is None else f"{a.name} {_show(v)}")
                choices.append(ActionChoice(a, v, label))
        pieces = self.cx.actions
        yield from self.c_act(s, who, choices, env_fn, lambda ch: pieces[id(ch.decl)].body(self, who, ch.value))

    def _event_env(self, ev: Event) -> Env:
        """The tree walker's environment of an event (for rule conditions, which it evaluates)."""
        return event_env(ev)

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
        self._index_rules()

    def trigger_test(self, tr):
        """The trigger's condition as the generator wrote it, a function of the event."""
        fn = self.cx.triggers[id(tr)].cond if id(tr) in self.cx.triggers else None
        return Engine.trigger_test(self, tr) if fn is None else fn

    def check_value(self, chk, e, *x):
        fn = self.cx.direct.get(id(e))
        return Engine.check_value(self, chk, e, *x) if fn is None else fn(self, *x)

    def estimate_value(self, est, p):
        fn = self.cx.direct.get(id(est.value))
        return Engine.estimate_value(self, est, p) if fn is None else fn(self, p)

    def estimates(self) -> Optional[list]:
        """`Forks.estimates` with the generated estimate found once and called for each
        player in turn, each value checked to be a number as it comes (a search asks twice
        an iteration)."""
        est = self.rs.estimate
        fn = None if est is None else self.cx.direct.get(id(est.value))
        if fn is None:
            return Engine.estimates(self)
        out = []
        for p in self.players:
            v = fn(self, p)
            out.append(v if v.__class__ is int else _num(v, est.value, self))
        return out

    def target_value(self, e, card, player):
        fn = self.cx.direct.get(id(e))
        return Engine.target_value(self, e, card, player) if fn is None else fn(self, card, player)

    def legal_value(self, e, names, values):
        fn = self.cx.legal.get(id(e))
        return Engine.legal_value(self, e, names, values) if fn is None else fn(self, *values)

    def zone_rule_test(self, r):
        """The zone rule's condition as the generator wrote it, a function of the card event."""
        fn = self.cx.zone_rules.get(id(r))
        return Engine.zone_rule_test(self, r) if fn is None else fn

    def block_fn(self, block):
        fn = self.cx.blocks.get(id(block)) if block is not None else None
        return Engine.block_fn(self, block) if fn is None else partial(fn, self)

    def run_block(self, block, env):
        fn = self.cx.blocks.get(id(block)) if block is not None else None
        if fn is None:
            return Engine.run_block(self, block, env)
        return fn(self, env)

    def run_procedure(self, proc, args):
        fn = self.cx.procs.get(id(proc.body))
        return Engine.run_procedure(self, proc, args) if fn is None else fn(self, *args)

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
        return lambda eng, c: (True, fn(eng, c))

    def target_scores(self, t, ask, env):
        """A target's `prefer` values, by its generated hint (Engine.target_scores)."""
        fn = self.cx.target_hints[t.name]
        card, player = env.vars["card"], env.vars["player"]
        return lambda options: self.hint_scores(t.prefer, lambda o: fn(self, card, player, o), options)

    def action_hint(self, c, who, env):
        """The `prefer` value of action choice `c` offered to `who`: its generated hint."""
        return self.cx.actions[id(c.decl)].prefer(self, who, c.value)

    def hint_scores(self, node, hint, options) -> list:
        """The `prefer` values (generated `hint`, its reads watched) of a choice's options."""
        try:
            return [hint(o) for o in options]
        except PYERR:
            raise self.fail(node, "the rules call themselves without end", code="E011") from None

    def hint_scores_of(self, node, scores, options) -> list:
        """`hint_scores` by a generated function of all the options at once (`scores`:
        Statements.def_over_options); none asked of no options."""
        if not options:
            return []
        try:
            return scores(options)
        except PYERR:
            raise self.fail(node, "the rules call themselves without end", code="E011") from None

    def match_pattern(self, p: A.Pattern, args: list):
        fns = self.cx.patterns.get(p.name)
        if fns is None or self.hint_seat is not None:   # (a hint's reads are watched by the tree walker)
            return Engine.match_pattern(self, p, args)
        return self.match_compiled(p, fns, args)

    def match_compiled(self, p: A.Pattern, fns: dict, args: list, scanned=None):
        """Pattern `p` matched by its generated pieces `fns` (`scanned`: what its scan gave,
        when the generated code called it itself)."""
        if scanned is None:
            scanned = fns["scan"](self, *args)
        if scanned is None:  # no shape can fit (the scan's quick rejection)
            return None
        cards, raw, _ = scanned
        fixed_fn = fns.get("fixed")
        labels = [[_hashable(x) for x in (labs if isinstance(labs, list) else [labs]) if x is not None]
                  for labs in raw]
        fixed = [_hashable(fixed_fn(self, *args, c)) if fixed_fn is not None else None for c in cards]
        best_fn = fns.get("best")
        return self.best_reading(
            p, cards, labels, fixed,
            lambda i, j, part: (lambda cond: lambda label: _truth(cond(self, *args, label)))(fns[f"cond_{i}_{j}"]),
            lambda m: best_fn(self, *args, m))


def make_engine(rs, players: int, seed: int, check_invariants: bool = False,
                max_steps: Optional[int] = DEFAULT_MAX_STEPS, engine: str = "compiled") -> Engine:
    """The engine a game is played on: `engine` "compiled" (the ruleset's generated code,
    or the tree walker when the ruleset does not compile) or "tree" (the tree walker, the
    definition of what a ruleset means); `max_steps` is the game's budget of steps (None:
    no limit)."""
    if engine == "compiled":
        cx = compiled_for(rs, budget=max_steps is not None)
        if cx is not None:
            return CompiledEngine(rs, players, seed, check_invariants, cx, max_steps)
        if _strict():   # a fall back remembered from before the variable was set
            raise Unsupported(f"{facts(rs).compiled_why} (CGL_STRICT_COMPILE=1 forbids the tree walker's fall back)")
    elif engine != "tree":
        raise ValueError(f"unknown engine {engine!r}: compiled or tree")
    return Engine(rs, players, seed, check_invariants, max_steps)
