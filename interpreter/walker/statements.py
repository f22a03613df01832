"""The statements of the tree walker: one method per statement kind, as a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`.

Each statement is split in two: `x_…` evaluates its expressions (tree walking) and `s_…`
does the work with the values; compiled rulesets (codegen) call `s_…` directly. Statements
are generators: they may stop for a decision.
"""
from __future__ import annotations

from functools import partial
from typing import Optional

from ..base import ast as A
from .compiler import Env
from ..check.loader import Card
from ..base.protocol import (CARD_STATS, EVENT_STAT, MAX_LOOP, OTHERWISE, ActionChoice, AnswerError, Decision,
                             _EndScope, _GameOver, _TrialMoved, _TrialRequired)
from ..check.resolver import acts_hidden, asks_hidden, facts, use_of
from ..runtime.state import Event, Player, ZoneRef, custom_event
from .views import _named_cards
from ..runtime.values import _apply, _kind, _num, _show, _truth


def _index_range(n: int) -> str:
    """How the Python API numbers a decision's options: indices into `Decision.options`, from 0."""
    return f"options are numbered from 0 to {n - 1} (the index in `options`)" if n else "this decision has no options"


class Statements:
    """`x_move`, `s_move`, … (see the module doc); the engine's other methods come with it."""

    def x_move(self, s, env):
        return self._then_after(s, self.s_move(s, self.ev(s.cards, env), self.ev(s.dest, env)), env)

    # `… then { … }` runs its block when the statement moved at least one card: each card
    # statement's `s_…` returns how many it moved (not those already there, refused by a
    # rule or replaced by an `instead`). The statement and its block are one change: the
    # game settles (state checks) after the block, not between them (`holding`; the
    # statement runner settles, `Engine.run`).
    def _then_after(self, s, statement, env):
        """Run card statement `s` (its `s_…` generator), then its `then` block if it has one."""
        moved = yield from statement
        if s.then is not None:
            yield from self.then_block(s, moved, env)

    def then_block(self, s, moved, env):
        if moved:
            self.state.holding += 1
            try:
                yield from self.run_block(s.then, env)
            finally:
                self.state.holding -= 1

    # `require { … } [then { … }]`, a required part (docs/language.md, section 4.11a): its
    # block runs, and it was done in full unless something in it fell short (`short`: a
    # card statement that moved no card or fewer than asked, a choice with too few options
    # or declined). Shortfalls count at the depth of the trigger chain where the part runs
    # (`require_depth`), so what a trigger it sets off fails is not its own; a part inside
    # another at the same depth passes its shortfalls on. `then` runs only after a part
    # done in full; a trial (`possible`) ends at the first of its procedure's parts that
    # falls short, or at a last part (`Facts.last_parts`) done in full, and notes each
    # done in full (`_trial_met`).
    def x_require(self, s, env):
        token = self.require_begin()
        try:
            yield from self.run_block(s.body, env)
        finally:
            self.state.require_depth = token[0]
        last = self.state.trying and id(s) in facts(self.rs).last_parts
        if self.require_end(token, last) and s.then is not None:
            yield from self.run_block(s.then, env)

    def require_begin(self) -> tuple:
        """A required part begins: (the depth and shortfalls before it), for `require_end`."""
        st = self.state
        token = (st.require_depth, st.shortfall)
        st.require_depth = len(st.event_chain)
        return token

    def require_end(self, token, last: bool = False) -> bool:
        """A required part ended (its depth already given back): whether it was done in full.
        `last`: no other part can follow it (`Facts.last_parts`)."""
        st = self.state
        done = st.shortfall == token[1]
        level = len(st.event_chain)
        if token[0] != level:   # no part around it at this depth: its shortfalls were its own
            st.shortfall = token[1]
            if st.trying and self._trial_level == level:
                if not done or last:
                    raise _TrialRequired(done)
                self._trial_met = True
        return done

    def short(self):
        """Something in the open required part fell short (see `x_require`)."""
        st = self.state
        if st.require_depth == len(st.event_chain):
            st.shortfall += 1

    # Each statement is split in two: `x_…` evaluates its expressions (tree walking) and
    # `s_…` does the work with the values; compiled rulesets (codegen.py) call `s_…` directly.
    def s_move(self, s, cards, dest):
        cards = self.cards_of(cards, s.cards)
        dest = self.as_zone(dest, s.dest)
        zdecl = self.rs.zones[dest.name]
        if zdecl.per_card and zdecl.per_player and (dest.owner is None or dest.card is None):
            raise self.fail(s.dest, f"`{dest.name}` is a zone of each card and player: say which and whose, "
                                    f"`{dest.name}(c, p)`")
        if dest.owner is None and zdecl.per_player:
            raise self.fail(s.dest, f"`{dest.name}` is a zone of each player: say whose, `{dest.name}(p)`")
        if dest.card is None and zdecl.per_card:
            raise self.fail(s.dest, f"`{dest.name}` is a zone of each card: say which, `{dest.name}(c)`")
        cards = list(cards)
        bulk = len(cards) > 3
        if bulk and not self._zone_rules and (self.record or self.listeners):  # one line for the log, not one per card
            moved = sum(1 for c in cards if self.state.where[c.id] != dest.key)
            if moved:
                self.log("move", f"{moved} card{'s' if moved != 1 else ''} move to {dest}", count=moved)
        self.state.quiet_moves += bulk
        try:
            moved = yield from self._move_each(cards, dest, s)
        finally:
            self.state.quiet_moves -= bulk
        if bulk and self._zone_rules and moved:  # (a rule may refuse some: counted once moved)
            self.log("move", f"{moved} card{'s' if moved != 1 else ''} moved to {dest}", count=moved)
        if moved < len(cards) or not moved:
            self.short()
        return moved

    def _unheard(self, kind: str, src: ZoneRef, dest: ZoneRef) -> bool:
        """True when a card event of this kind between these zones is known to need no
        event at all: nothing waits for it, and nothing logs or checks it."""
        return False

    def _move_each(self, cards, dest, s):
        quiet = set()   # source zones a move from which nothing hears (nothing runs between such moves)
        st = self.state
        where, zones = st.where, st.zones
        ruled = self._zone_rules
        moved = 0
        dkey = dest.key
        # a quiet move is `_place` written in (when it has nothing else to do)
        plain = st.known is None and not st.shown and not st.trying and not self.place_derives and s.position != "bottom"
        watched = self._watched
        for c in cards:
            cid = c.id
            key = where[cid]
            if key == dkey:
                continue  # already there: no move, no event
            if key in quiet:
                if plain:
                    ids = zones[key]
                    if ids[-1] == cid:
                        ids.pop()
                    else:
                        ids.remove(cid)
                    if watched is None or key in watched or dkey in watched:
                        st.changes += 1
                    ids = zones.get(dkey)
                    if ids is None:
                        ids = zones[dkey] = []
                    ids.append(cid)
                    where[cid] = dkey
                    self._count_move(cid, key, dkey)
                else:
                    self._place(c, dest, s.position)
                moved += 1
                continue
            src = self._zone_refs.get(key) or self.zone_ref(key)   # (`zone_of_card`, written in)
            if not ruled and self._unheard("move", src, dest):
                quiet.add(key)
                self._place(c, dest, s.position)
                moved += 1
                continue
            who = dest.owner if dest.owner is not None else (src.owner if src.owner is not None else self.state.current)
            ev = Event("move", None, c, self.players[who], src, dest)
            if ruled and self.refused(ev):
                continue
            if self._instead_by_kind and (found := self.replacements(ev)) and (yield from self._replace(ev, found)):
                continue
            moved += 1
            hit = self._moved(ev, s.position)
            if hit is not None:
                yield from self.event_run(ev, hit)
        return moved

    def _moved(self, ev: Event, position: str, stat: Optional[str] = None):
        """Card event `ev` happens: its card goes to `ev.dest`, counted under `stat` + its
        name; the triggers and reactions waiting for it (`event_begin`), or None."""
        self._place(ev.card, ev.dest, position)
        if stat is not None:
            stats = self.state.stats
            key = stat + ev.card.name
            stats[key] = stats.get(key, 0) + 1
        return self.event_begin(ev)

    def _default_zone(self, role, node, owner=None) -> ZoneRef:
        ref = self._role_zones.get((role, owner))
        if ref is None:
            z = self.rs.zone_with_role(role)
            if z is None:
                raise self.fail(node, f"no zone is marked `as {role}`, so say which zone",
                                hint=f"declare e.g. `zone stock: shared, hidden, as {role}`")
            ref = self._role_zones[(role, owner)] = ZoneRef(z.name, owner if z.per_player else None)
        return ref

    def x_draw(self, s, env):
        drawing = self.s_draw(s, self.ev(s.count, env), self.ev(s.source, env) if s.source else None,
                              self.ev(s.dest, env) if s.dest else None)
        if s.name is None:
            return self._then_after(s, drawing, env)
        return self._draw_as(s, drawing, env)

    def _draw_as(self, s, drawing, env):
        """`draw … as NAME [then { … }]`: NAME bound to what was drawn, then the `then` block."""
        drawn = env.vars[s.name] = yield from drawing
        if s.then is not None:
            yield from self.then_block(s, drawn, env)

    def s_draw(self, s, n, src, dest):
        """Draw `n` cards one at a time; returns how many arrived, or with `as NAME` what NAME
        means: the cards that arrived, in the order drawn (a card taken by a replacement or
        kept by a rule is not drawn), or for `draw 1 as c` that card or `none`. True exactly
        when a card arrived, so a `then` block reads either."""
        n = _num(n, s.count, self)
        src = self.as_zone(src, s.source) if s.source else self._default_zone("deck", s)
        dest = (self.as_zone(dest, s.dest) if s.dest
                else self._default_zone("hand", s, self.state.current))
        who = self.players[dest.owner if dest.owner is not None else self.state.current]
        moved = 0
        drawn = None if s.name is None else []
        for _ in range(n):
            if drawn is not None:
                top = self.state.zones.get(src.key)
                top = self.cards[top[-1]] if top else None
            took = yield from self._take_top("draw", src, dest, who, CARD_STATS["draw"])
            if took is None:
                break
            moved += took
            if took and drawn is not None:
                drawn.append(top)
        if moved < n or not moved:   # (a required part falls short: `require`)
            self.short()
        if drawn is None:
            return moved
        if s.one:
            return drawn[0] if drawn else None
        return drawn

    def _take_top(self, kind, src: ZoneRef, dest: ZoneRef, who: Player, stat: str):
        """The top card of `src` goes to `dest` as a `kind` event (a draw, a deal): 1 when it
        went, 0 when a replacement ran instead, None when it cannot — `src` is empty (the
        log says so) or a continuous rule refuses it (the next card is under it): the
        statement stops there."""
        zones = self.state.zones
        ids = zones.get(src.key)
        if not ids:
            if ids is None:
                zones[src.key] = []
            self.log("empty", f"{src} is empty", zone=src.name)
            return None
        ev = Event(kind, None, self.cards[ids[-1]], who, src, dest)
        if self._zone_rules and self.refused(ev):
            return None
        if self._instead_by_kind and (found := self.replacements(ev)) and (yield from self._replace(ev, found)):
            return 0
        hit = self._moved(ev, "top", stat)
        if hit is not None:
            yield from self.event_run(ev, hit)
        return 1

    def x_deal(self, s, env):
        return self._then_after(s, self.s_deal(s, self.ev(s.count, env), self.ev(s.source, env) if s.source else None),
                                env)

    def s_deal(self, s, n, src):
        n = _num(n, s.count, self)
        src = self.as_zone(src, s.source) if s.source else self._default_zone("deck", s)
        order = self.seat_order(self.state.current)
        dests = [(self.players[p], ZoneRef(s.zone, p)) for p in order]
        moved, stopped = 0, False
        for _ in range(n):
            for who, dest in dests:
                took = yield from self._take_top("deal", src, dest, who, CARD_STATS["deal"])
                if took is None:
                    stopped = True   # the source is empty, or a rule keeps its top card
                    break
                moved += took
            if stopped:
                break
        if moved < n * len(dests) or not moved:
            self.short()
        return moved

    def x_discard(self, s, env):
        return self._then_after(s, self.s_discard(s, self.ev(s.cards, env), self.ev(s.dest, env) if s.dest else None),
                                env)

    def s_discard(self, s, cards, dest):
        cards = self.cards_of(cards, s.cards)
        dest = self.as_zone(dest, s.dest) if s.dest else self._default_zone("discard", s)
        moved = 0
        for c in list(cards):
            src = self.zone_of_card(c)
            who = src.owner if src.owner is not None else self.state.current
            ev = Event("discard", None, c, self.players[who], src, dest, s.forced)
            if self._zone_rules and self.refused(ev):
                continue
            if self._instead_by_kind and (found := self.replacements(ev)) and (yield from self._replace(ev, found)):
                continue
            moved += 1
            hit = self._moved(ev, "top", CARD_STATS["discard"])
            if hit is not None:
                yield from self.event_run(ev, hit)
        if moved < len(cards) or not moved:
            self.short()
        return moved

    def x_swap(self, s, env):
        return self._then_after(s, self.s_swap(s, self.ev(s.a, env), self.ev(s.b, env)), env)

    def s_swap(self, s, a, b):
        """`swap a with b`: the two cards trade places (zone and position) as one change: both
        halves are asked of the zone rules first (either refused: neither moves), both cards
        are placed, and only then are the two move events raised (a's, then b's), so every
        trigger sees the final position; the game settles after both."""
        a, b = self._one_card(a, s.a), self._one_card(b, s.b)
        ka, kb = (where := self.state.where)[a.id], where[b.id]
        if a.id == b.id or ka == kb:
            self.short()
            return 0   # the same zone: nothing moves
        za, zb = self.zone_of_card(a), self.zone_of_card(b)
        cur = self.state.current
        ev_a = Event("move", None, a, self.players[zb.owner if zb.owner is not None else cur], za, zb)
        ev_b = Event("move", None, b, self.players[za.owner if za.owner is not None else cur], zb, za)
        if self._zone_rules and (self.refused(ev_a) or self.refused(ev_b)):
            self.short()
            return 0
        if self.state.trying and (not self.state.trial_through or self._trial_past):
            raise _TrialMoved()
        za_ids, zb_ids = self.state.zone_store(ka), self.state.zone_store(kb)
        ia, ib = za_ids.index(a.id), zb_ids.index(b.id)
        za_ids[ia], zb_ids[ib] = b.id, a.id
        self.state.changes += 1
        if self.state.known is not None:
            self._learn(a.id, ka, zb)
            self._learn(b.id, kb, za)
        where[a.id], where[b.id] = kb, ka
        if self.state.shown:
            self.state.shown.pop(a.id, None)
            self.state.shown.pop(b.id, None)
        self._count_move(a.id, ka, kb)
        self._count_move(b.id, kb, ka)
        if self.place_derives:
            self.forget_place(a.id)
            self.forget_place(b.id)
        hits = [(ev, self.event_begin(ev)) for ev in (ev_a, ev_b)]
        for ev, hit in hits:
            if hit is not None:
                yield from self.event_run(ev, hit)
        return 2

    def _one_card(self, value, node):
        cards = self.cards_of(value, node)
        if len(cards) != 1:
            raise self.fail(node, f"`swap` trades two cards, one on each side, and this is {len(cards)} cards")
        return cards[0]

    def x_shuffle(self, s, env):
        return self.s_shuffle(s, self.ev(s.zone, env))

    def s_shuffle(self, s, z):
        z = self.as_zone(z, s.zone)
        ids = self.state.zones.get(z.key, [])[:]   # a new list: a trial's copy shares the zones' lists
        if self.state.forced_shuffles:
            ids = self.scripted_shuffle(z, ids)
        else:
            self.state.rng.shuffle(ids)
        self._reordered(z, ids)
        self.log("shuffle", f"{z} is shuffled", zone=z.name)
        return
        yield

    def _reordered(self, z, ids):
        """Zone `z`'s cards lie in a new order, `ids` (a shuffle, a cut): a new list, never the
        old one changed in place, for a trial's copy shares the zones' lists."""
        st = self.state
        st.zones[z.key] = ids
        known = st.known
        if known is not None:   # who cannot look into the zone no longer knows where its cards lie
            for seat, k in enumerate(known):
                if not self.sees_zone(z, seat):
                    k.difference_update(ids)
        if st.shown:   # nor which of them it was shown (`reveal`): their faces are hidden again
            for cid in ids:
                st.shown.pop(cid, None)
        st.changes += 1

    def x_cut(self, s, env):
        return self.s_cut(s, self.ev(s.zone, env), self.ev(s.at, env) if s.at is not None else None)

    # `cut ZONE [at N]`: the top part of an ordered zone goes under the rest, as a deck is
    # cut. Its size is N, from 0 to the zone's count (0 and the count leave the order as
    # it is), or a random pick from 1 to count - 1 (at least one card in each part; a
    # scenario scripts it as `random: [N]`). A zone of 0 or 1 cards: nothing happens, and
    # a cut that leaves the order as it is is not logged. The log says the zone is cut,
    # not where: like a shuffle, who cannot look into the zone loses the places of its cards.
    def s_cut(self, s, z, at):
        z = self.as_zone(z, s.zone)
        decl = self.rs.zones[z.name]
        if decl.per_player and z.owner is None or decl.per_card and z.card is None:
            whose = "card" if decl.per_card else "player"
            raise self.fail(s.zone, f"`cut` cuts one zone, and `{z.name}` is a zone of each {whose}",
                            hint=f"name whose: `cut {z.name}({'current' if whose == 'player' else 'c'})`")
        if not decl.ordered:
            raise self.fail(s.zone, f"`{z.name}` is unordered: its cards lie in no order, so there is nothing to cut",
                            hint=f"declare `zone {z.name}: …, ordered` to cut it, or `shuffle` it")
        ids = self.state.zones.get(z.key, [])
        n = len(ids)
        if at is None:
            if n < 2:
                return
            k = self.pick(list(range(1, n)))
        else:
            k = _num(at, s.at, self)
            if not 0 <= k <= n:
                raise self.fail(s.at, f"cannot cut {k} cards off the top of {z}: it holds {n}",
                                hint=f"cut at a number from 0 to `count({z})`")
            if k in (0, n):
                return
        ids = ids[n - k:] + ids[:n - k]     # (bottom first: the top k cards go to the bottom)
        self._reordered(z, ids)
        self.log("cut", f"{z} is cut", zone=z.name)
        return
        yield

    def x_reveal(self, s, env):
        what = self.ev(s.what, env)
        cards = self.cards_of(what, s.what)
        return self.s_reveal(s, cards, self.ev(s.to, env) if s.to is not None else None)

    def s_reveal(self, s, cards, to):
        seats = None
        if s.to is not None:
            seats = [self.as_player(p, s.to).seat for p in (to if isinstance(to, list) else [to])]
        known = self.state.known
        if known is not None:   # those shown the cards know where they are
            for seat, k in enumerate(known):
                if seats is None or seat in seats:
                    k.update(c.id for c in cards)
        shown = self.state.shown   # (what a hint of theirs may read: walker/hints.py)
        for c in cards:
            if seats is None:
                shown[c.id] = None
            else:
                old = shown.get(c.id, ())
                if old is not None:
                    shown[c.id] = tuple(sorted({*old, *seats}))
        if self.record or self.listeners:   # (no log: its line is not worded)
            self._log_reveal(cards, seats)
        return
        yield

    def x_set(self, s, env):
        value = self.ev(s.value, env)
        t = s.target
        if isinstance(t, A.Name):
            use = use_of(self.rs, t)    # a local (perhaps: "maybe"), else a global variable
            name = use.name
            found, old = env.lookup(name) if use.kind in ("local", "maybe") else (False, None)
            if not found:
                if name not in self.state.globals:
                    raise self.fail(t, f"`{name}` is not a variable")
                old = self.state.globals[name]
            new = _apply(s.op, old, value, s, self)
            if not found:
                self.state.globals[name] = new
            else:
                env.assign(name, new)
        else:
            self.s_set_attr(s, self.ev(t.obj, env), value)
        if self._checks:
            self.state.changes += self._check_vars
        return
        yield

    def s_set_attr(self, s, obj, value):
        """`set obj.name op value` for a card's or player's variable."""
        t = s.target
        card = hasattr(obj, "props") and t.name in self.card_var_names
        if card:
            store = self.state.card_store(obj.id)
        elif isinstance(obj, Player) and t.name in self.player_var_names:
            store = self.state.player_vars[obj.seat]
        else:
            raise self.fail(t, f"cannot set `{t.name}` of {_kind(obj)}",
                            hint="only variables declared with `var … per card` or `per player` can change")
        old = store[t.name]
        store[t.name] = new = _apply(s.op, old, value, s, self)
        if card and new is not old:
            self.state.count_var(t.name, old, new)
            # the derived properties that read this variable, unless it holds the very same value
            reading = self.derives_reading.get(t.name)
            if reading:
                self.forget(obj, reading)

    def x_let(self, s, env):
        env.vars[s.name] = self.ev(s.value, env)
        return
        yield

    def x_choose(self, s, env):
        options = self.c_options(s, self.ev(s.domain, env), lambda: env)
        chooser = self.as_player(self.ev(s.by, env), s.by) if s.by else self.players[self.state.current]
        count = None if s.lo is None else (self.ev(s.lo, env), self.ev(s.hi, env))
        value = yield from self.c_decide(s, options, chooser, lambda: self.ev(s.prompt, env),
                                         partial(self.choose_hints, s, env) if s.prefer is not None else None, count)
        if value is OTHERWISE:
            yield from self.run_block(s.otherwise, env)
        elif self.state.deferred is not None:  # inside `simultaneously`: the body waits for the others
            self.state.deferred.append(lambda: self.run_block(s.body, env.child({s.name: value})))
        else:
            yield from self.run_block(s.body, env.child({s.name: value}))

    def choose_hints(self, s, env, options) -> list:
        """The `prefer` value of each option of `choose` `s` (asked in `env`), evaluated by the
        tree walker with its reads watched (`hint_values`, hints.py; the compiled engine's
        generated hint: `CompiledEngine.hint_scores`)."""
        return [self.hint_ev(s.prefer, env.child({s.name: o, "it": o})) for o in options]

    def c_options(self, s, domain, env_fn) -> list:
        """The options of a `choose`: its domain, less those a rule forbids (`env_fn()` gives
        the environment the rules' conditions see)."""
        options = list(self.cards_of(domain) if isinstance(domain, ZoneRef) else self.as_list(domain, s.domain))
        if s.tag:
            env, names = env_fn(), (s.name, "it", "option")
            options = [o for o in options if self.allowed(s.tag, env.child({s.name: o, "it": o, "option": o}), o, names)]
        return options

    def c_decide(self, s, options, chooser, prompt_fn, scores_fn, count=None):
        """Ask `chooser` (a generator): the value chosen, or OTHERWISE when there are too few
        options or an optional choice is declined. `scores_fn(options)` gives `prefer` values;
        `prompt_fn()` the prompt (or `prompt_fn` is the prompt, a text); `count` the values of
        the bounds of `choose LO..HI` (None: one value). In two halves, which the generated
        code calls itself (one generator fewer between a decision and its game): `c_ask`,
        then `c_took` with the answer to the decision it made."""
        d = self.c_ask(s, options, chooser, prompt_fn, scores_fn, count)
        if d.__class__ is not Decision:
            return d
        return self.c_took(s, d, (yield d))

    def c_ask(self, s, options, chooser, prompt_fn, scores_fn, count=None):
        """The `Decision` to ask; or, when there is nothing to ask, the value chosen (OTHERWISE:
        no legal count). `count`: the bounds of `choose LO..HI`, as evaluated when the choice
        is made (None: one value, NAME not a list), for both engines:

        - each must be a number (E010 at the bound, as `repeat`'s count);
        - a bound below zero counts as zero (`choose 0..(count(hand(p)) - 7)`);
        - HI above the number of options counts as that number (all of them at most);
        - LO above the number of options, or above HI: no count is legal, so nothing is
          asked and the `else` block runs, a shortfall (as too few options always did);
        - HI of zero (or no options at all, LO zero): the empty list, unasked, `may` or not.
        """
        if count is None:
            lo = hi = 1
        else:
            lo, hi = count
            if lo.__class__ is not int:
                lo = _num(lo, s.lo, self)
            if hi.__class__ is not int:
                hi = _num(hi, s.hi, self)
            if lo < 0:
                lo = 0
            if hi < 0:
                hi = 0
        n = len(options)
        if n < lo or hi < lo:
            self.short()
            return OTHERWISE
        if hi > n:
            hi = n
        if prompt_fn.__class__ is str:
            prompt = prompt_fn
        else:
            prompt = prompt_fn() if s.prompt else f"Choose {s.name}"
        if hi == 0:
            return []   # nothing can be picked: nothing to ask (nor to decline)
        if n == lo == hi and not s.optional:
            # one legal answer: nothing to ask
            return options[0] if count is None else list(options)
        seat = chooser.seat
        if self.state.trying:   # (answered by `possible` itself, unseen: it reads the options and bounds alone)
            return Decision(seat, "choose", prompt, options, None, lo, hi, s.optional, s.tag)
        view = None if self.record else self._views.get(seat)
        # (the hint kept as its pieces, read by `Decision.scores`; `asks_hidden`, decided once per node: `hit`)
        chain, hit = self.state.event_chain, self._hidden_asks.get(id(s))
        return Decision(seat, "choose", prompt, options, None, lo, hi, s.optional, s.tag, self.state.secret_depth > 0,
                        s.span, scores_fn, view or self._viewer(seat), None, bool(chain) and chain[-1] in self._reaction_names
                        or (hit[1] if hit is not None and hit[0] is s else asks_hidden(self.rs, s)), self, s.prefer)

    def c_took(self, s, d: Decision, answer):
        """The value `answer` chooses in decision `d` (which `c_ask` made for `s`), logged;
        OTHERWISE when an optional choice is declined."""
        if self._validated is d:   # the answer Game.answer checked: one option's index
            if self.record or self.listeners:
                self._log_choice(d, self.players[d.player], [answer], d.prompt)
            return d.options[answer] if s.lo is None and s.hi is None else [d.options[answer]]
        picked = self.validate_answer(d, answer)
        if picked is None:
            if self.record or self.listeners:
                chooser = self.players[d.player]
                self.log("decision", f"{chooser} declines: {d.prompt}",
                         visible_to=[chooser.seat] if d.secret or d.private else self.decision_audience(chooser.seat, d.prompt),
                         player=chooser.seat + 1, answer=None)
            self.short()
            return OTHERWISE
        if self.record or self.listeners:
            self._log_choice(d, self.players[d.player], picked, d.prompt)
        if s.lo is None and s.hi is None:
            return d.options[picked[0]]
        return list(map(d.options.__getitem__, picked))   # (no comprehension: no closure cells here)

    def _log_choice(self, d: Decision, chooser, picked: list, prompt: str):
        options = d.options
        labels = d._labels if not callable(d._labels) else None
        if labels is None and any(hasattr(options[i], "props") and (not self.knows_card(options[i], chooser.seat)
                                                                    or _copy_offered(options, i))
                                  for i in picked):
            labels = d.labels      # (a blind pick is logged by its place, a copy as which copy, as offered)
        chosen_labels = [labels[i] if labels is not None else self.show_option(options[i]) for i in picked]
        # (who may read the line: by the cards it names, not by what tells copies apart)
        named = [self.show_option(options[i]) if hasattr(options[i], "props")
                 and self.knows_card(options[i], chooser.seat) else chosen_labels[k] for k, i in enumerate(picked)]
        private = d.secret or d.private or self._private_choice(options)
        self.log("decision", f"{chooser} chooses {', '.join(chosen_labels)} ({prompt})",
                 visible_to=[chooser.seat] if private else self.decision_audience(chooser.seat, prompt, *named),
                 player=chooser.seat + 1, answer=chosen_labels)

    def _private_choice(self, options) -> bool:
        """A choice among cards in a zone others cannot see stays private."""
        for o in options:
            if hasattr(o, "props"):
                z = self.rs.zones.get(self.zone_of_card(o).name)
                if z is not None and z.visibility != "public":
                    return True
        return False

    def decision_audience(self, chooser: int, *texts, cards=()) -> Optional[list]:
        """Who may read a decision's line, given its `texts` (the prompt, the labels of the
        answer) and the `cards` it is about: the chooser, and those who may see every card
        named, where it is now, by the rule a card's move is logged by (`sees_zone`, as
        `seers`). A text names a card by its name; where copies share the name, a seat that
        sees one of them may read it. None: everyone."""
        found = _named_cards(self.rs, texts) + [[c.id] for c in cards if c.__class__ is Card]
        if not found:
            return None
        seats = set(range(self.n))
        where = self.state.where
        for ids in found:
            seats &= {seat for seat in range(self.n)
                      if any(where[i] is not None and self.sees_zone(self.zone_ref(where[i]), seat) for i in ids)}
            if not seats:
                break
        if len(seats) == self.n:
            return None
        return sorted(seats | {chooser})

    def validate_answer(self, d: Decision, answer):
        """Indices picked, or None for a declined optional decision. Bad answers raise."""
        if answer is None:
            if d.optional:
                return None
            raise AnswerError("this decision must be answered")
        if d.kind == "may":
            return answer
        if type(answer) is int and 0 <= answer < len(d.options) and d.lo <= 1 <= d.hi:
            return [answer]   # the usual answer: one option's index
        if isinstance(answer, bool):
            raise AnswerError(f"answer with an option's index, {_index_range(len(d.options))}")
        if isinstance(answer, int):
            picked = [answer]
        elif isinstance(answer, (list, tuple)):
            picked = list(answer)
        else:
            raise AnswerError(f"cannot use `{answer}` as an answer")
        if not all(isinstance(i, int) and 0 <= i < len(d.options) for i in picked):
            raise AnswerError(f"no option {next(i for i in picked if not isinstance(i, int) or not 0 <= i < len(d.options))}:"
                              f" {_index_range(len(d.options))}")
        if len(set(picked)) != len(picked):
            raise AnswerError("the same option twice")
        if not d.lo <= len(picked) <= d.hi:
            raise AnswerError(f"choose {d.lo if d.lo == d.hi else f'{d.lo} to {d.hi}'}, not {len(picked)}")
        return sorted(picked)

    def ask_yes_no(self, seat: int, prompt: str, span, tag=None):
        """Ask `seat` yes or no (a generator): the answer. In two halves, which the generated
        code calls itself: `yes_no`, then `yes_no_took` with the answer."""
        d = self.yes_no(seat, prompt, span, tag)
        return self.yes_no_took(d, (yield d))

    def yes_no(self, seat: int, prompt: str, span, tag=None) -> Decision:
        """A yes or no question: its player's alone (`Decision.private`), as its answer's line
        is. Whether it is asked can tell what they hold (a `may by q` for those holding a
        Guard, a reaction window whose `eligible` reads the hand, an optional trigger fired by
        a hidden card); the others read what the answer does."""
        return Decision(seat, "may", prompt, [True, False], ["yes", "no"], 1, 1, False, tag,
                        self.state.secret_depth > 0, span, None, self._viewer(seat), None, True)

    def yes_no_took(self, d: Decision, answer) -> bool:
        if not isinstance(answer, bool):
            raise AnswerError("answer yes or no")
        # private: the prompt may name a card only this player has seen; others see the effect
        if self.record or self.listeners:
            seat = d.player
            self.log("decision", f"P{seat + 1} says {'yes' if answer else 'no'}: {d.prompt}", visible_to=[seat],
                     player=seat + 1, answer=answer)
        return answer

    def x_may(self, s, env):
        seat = self._asker(s.by, env)
        prompt = self.ev(s.prompt, env) if s.prompt else "Do it?"
        yes = yield from self.ask_yes_no(seat, prompt, s.span)
        yield from self.run_block(s.body if yes else s.otherwise, env)

    def _asker(self, by, env) -> int:
        if by is not None:
            return self.as_player(self.ev(by, env), by).seat
        found, p = env.lookup("player")
        if found and isinstance(p, Player):
            return p.seat
        return self.state.current

    def x_simul(self, s, env):
        """Every choice inside is made before any choice's body runs, so no answer (nor
        anything its body changes) can be seen by a player still to choose; and each answer
        stays its chooser's until the ruleset says it (`say`)."""
        self.state.secret_depth += 1
        self.state.simul_no += 1
        outer, self.state.deferred = self.state.deferred, []
        try:
            yield from self.run_block(s.body, env)
            waiting = self.state.deferred
        finally:
            self.state.deferred = outer
            self.state.secret_depth -= 1
        yield from self.s_simul_end(waiting)

    def s_simul_end(self, waiting):
        """After the choices of `simultaneously`: run the waiting bodies."""
        for body in waiting:
            yield from body()

    def x_if(self, s, env):
        for cond, body in s.branches:
            if _truth(self.ev(cond, env)):
                yield from self.run_block(body, env)
                return
        yield from self.run_block(s.otherwise, env)

    def x_for(self, s, env):
        items = list(self.as_list(self.ev(s.source, env), s.source))
        for x in (items if s.by is None else (yield from self.x_order(s, env, items))):   # (`ordered by`: events.py)
            yield from self.run_block(s.body, env.child({s.name: x}))

    def x_repeat(self, s, env):
        n = _num(self.ev(s.count, env), s.count, self)
        if n > MAX_LOOP:
            raise self.fail(s, f"`repeat {n}` is more than {MAX_LOOP} times", code="E011")
        for _ in range(n):
            yield from self.run_block(s.body, env)

    def x_while(self, s, env):
        n = 0
        while _truth(self.ev(s.cond, env)):
            n += 1
            if n > MAX_LOOP:
                raise self.fail(s, f"this `while` ran {MAX_LOOP} times without its condition turning false",
                                code="E011")
            yield from self.run_block(s.body, env)

    def x_end(self, s, env):
        raise _EndScope(s.scope)
        yield

    def x_win(self, s, env):
        return self.s_win(s, self.ev(s.who, env))

    def s_win(self, s, who):
        seats = [self.as_player(p, s.who).seat for p in (who if isinstance(who, list) else [who])]
        self.finish(seats, "win")
        raise _GameOver()
        yield

    def x_lose(self, s, env):
        return self.s_lose(s, self.ev(s.who, env))

    def s_lose(self, s, who):
        st = self.state
        for p in (who if isinstance(who, list) else [who]):
            seat = self.as_player(p, s.who).seat
            if seat in st.out_of_round:     # out of the round already: now out of the game
                st.out_of_round.remove(seat)
                st.changes += 1
                self.log("lose", f"P{seat + 1} is out", player=seat + 1)
            elif seat not in st.out:
                st.out.append(seat)
                st.changes += 1
                self.log("lose", f"P{seat + 1} is out", player=seat + 1)
        alive = [p for p in range(self.n) if p not in st.out or p in st.out_of_round]
        if len(alive) <= 1:
            self.finish(alive, "last player standing" if alive else "everyone lost")
            raise _GameOver()
        return
        yield

    def x_knock_out(self, s, env):
        self.s_knock_out(s, self.ev(s.who, env))
        return
        yield

    def s_knock_out(self, s, who):
        """`knock out P`: P is out of the current round, not of the game: in `out` (so no
        turns, not in `players` nor `others`) and in `out_of_round`: back in play when the
        round is over (`TurnOrder._back_in_play`). The turn in progress goes on; a round
        with no player left in it has no more turns (`play_turns`)."""
        st = self.state
        for p in (who if isinstance(who, list) else [who]):
            seat = self.as_player(p, s.who).seat
            if seat not in st.out:
                st.out.append(seat)
                st.out_of_round.append(seat)
                st.changes += 1
                self.log("knock_out", f"P{seat + 1} is out of the round", player=seat + 1)

    def x_say(self, s, env):
        text = self.ev(s.text, env)
        return self.s_say(s, text, self.ev(s.to, env) if s.to is not None else None)

    def s_say(self, s, text, to):
        if s.to is not None:
            seats = [self.as_player(p, s.to).seat for p in (to if isinstance(to, list) else [to])]
            self.log("say", text, visible_to=seats)
        else:
            self.log("say", text)
        return
        yield

    def x_emit(self, s, env):
        yield from self.s_emit(s, {k: self.ev(v, env) for k, v in s.fields}) or ()

    def s_emit(self, s, fields):
        """`emit NAME(fields)`, a plain call for both engines (where `simulate` watches custom
        events): the event counted and raised at once (`raised`); what is left to run, or None."""
        self.bump(EVENT_STAT + s.name)
        return self.raised(custom_event(s.name, fields, None))

    def x_call(self, s, env):
        proc = self.rs.procedures.get(s.name)
        if proc is None:
            raise self.fail(s, f"unknown procedure `{s.name}`")
        args = [self.ev(a, env) for a in s.args]
        yield from self.run_block(proc.body, Env(dict(zip(proc.params, args))))

    def x_give(self, s, env):
        self.s_give(s, self.ev(s.player, env))
        return
        yield

    def s_give(self, s, who):
        """During a round's turns, `who` plays the next turn (after any extra turns still to
        be taken) and the order goes on from them; outside them (setup, a match's start, a
        round's start or end), `who` plays the first turn of the round to come."""
        st = self.state
        seat = self.as_player(who, s.player).seat
        self.state.changes += 1
        if st.in_turns:
            st.next_player = seat
        else:
            st.first_player = seat

    def x_give_extra(self, s, env):
        self.s_give_extra(s, self.ev(s.player, env))
        return
        yield

    def s_give_extra(self, s, who):
        """`who` takes an extra turn: queued after those already given, each taken in order
        once this turn ends (a player out by then is passed over); given outside a round's
        turns, taken first in the round to come."""
        st = self.state
        p = self.as_player(who, s.player)
        self.state.changes += 1
        (st.extra_turns if st.in_turns else st.first_extra_turns).append(p.seat)
        self.log("extra_turn", f"{p} will take an extra turn", player=p.seat + 1)

    def x_reverse(self, s, env):
        self.s_reverse(s)
        return
        yield

    def s_reverse(self, s):
        """Play goes the other way round the table: `direction` changes sign."""
        st = self.state
        self.state.changes += 1
        st.direction = -st.direction
        way = "up" if st.direction > 0 else "down"
        self.log("direction", f"The turn order is reversed: play now goes {way} the seats", direction=st.direction)

    def x_act(self, s, env):
        who = self.as_player(self.ev(s.by, env), s.by)
        choices = []
        with_actor = env.child({"actor": who})
        for a in self.rs.actions:
            values = [None]
            if a.param:
                values = list(self.as_list(self.ev(a.domain, with_actor), a.domain))
            for v in values:
                local = Env({a.param: v} if a.param else {}, env)
                local.vars["actor"] = who
                if a.when is not None and not _truth(self.ev(a.when, local)):
                    continue
                if not self.allowed(a.name, local, local.vars.get(a.param), (a.param,)):
                    continue
                label = self.ev(a.label, local) if a.label else (a.name if v is None else f"{a.name} {_show(v)}")
                choices.append(ActionChoice(a, v, label))

        def run(c):
            local = Env({c.decl.param: c.value} if c.decl.param else {}, env)
            local.vars["actor"] = who
            return self.run_block(c.decl.body, local)
        yield from self.c_act(s, who, choices, lambda: env, run)

    def action_hint(self, c, who, env):
        """The `prefer` value of action choice `c` offered to `who` (asked in `env`), by the
        tree walker (see `choose_hints`; the compiled engine has its own)."""
        d = c.decl
        return self.hint_ev(d.prefer, Env({d.param: c.value, "it": c.value, "actor": who}
                                          if d.param else {"actor": who}, env))

    def c_act(self, s, who, choices, env_fn, run):
        """Offer the legal actions (`choices`) to `who`; run the one chosen. `env_fn()` gives
        the environment the actions were asked in (their `prefer` hints read it: `action_hint`),
        `run(choice)` an action's body (a generator)."""
        if not choices:
            self.log("act", f"{who} has no legal action")
            return
        if len(choices) == 1:
            idx = 0
        else:
            def scores(choices=choices):
                env = env_fn()
                return [0 if c.decl.prefer is None else
                        self.hint_values(who.seat, c.decl.prefer, self.action_hint, c, who, env) for c in choices]
            d = Decision(who.seat, "action", f"{who}: choose an action", choices, [c.label for c in choices],
                         1, 1, False, None, False, s.span, scores, self._viewer(who.seat), None, acts_hidden(self.rs))
            answer = yield d
            idx = self.validate_answer(d, answer)[0]
        c = choices[idx]
        self.bump(f"action:{c.decl.name}")
        if self.record or self.listeners:
            self.log("action", f"{who}: {c.label}", player=who.seat + 1, action=c.decl.name,
                     visible_to=self.decision_audience(who.seat, c.label, cards=(c.value,)))
        yield from run(c)

    def x_pass(self, s, env):
        return
        yield


def _copy_offered(options: list, i: int) -> bool:
    """Whether another card offered beside card option `i` has its name (a copy of it)."""
    name = options[i].name
    return any(o is not options[i] and getattr(o, "props", None) is not None and o.name == name for o in options)
