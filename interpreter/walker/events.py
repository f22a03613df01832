"""Events, for the tree walker (and, through `event_begin`, `_log_card_event`,
`trigger_order` and `open_window`, the compiled engine): an event logged so that each seat
reads only what it may see, the triggers and reactions waiting for it found in declaration
order (the triggers `ordered by` a player in the order that player chooses) and run,
reaction windows, the start and end of scopes; a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`."""
from __future__ import annotations

from functools import partial
from typing import Optional

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic
from ..base.protocol import MAX_EVENT_DEPTH
from ..check.resolver import facts
from ..runtime.state import Event
from ..runtime.values import _truth
from .compiler import Env, event_env
from .continuous import settle_waits


class _OrderAsk:
    """What `c_ask`/`c_took` read of a `choose` for `s_order`'s questions: one item, no rule;
    `prefer`, the hint that scores the items (where an error in it is located)."""
    __slots__ = ("name", "span", "prefer")
    lo = hi = tag = None
    optional = False
    prompt = True

    def __init__(self, name, span, prefer=None):
        self.name, self.span, self.prefer = name, span, prefer


_MISSING = object()


def _same(x):
    return x


_VERB = {"draw": "draws", "discard": "discards", "deal": "is dealt", "move": "moves"}


class Events:
    """`raise_event`, `event_begin`, `event_run`, `trigger_order`, `s_order`, `open_window`,
    `scope_event`, and `_replace` (a move an `instead` trigger replaces; see the module doc)."""

    def replacements(self, ev: Event) -> tuple:
        """The `instead` triggers that may replace this card move, in order: those waiting for
        its kind, name, zones and phase (`_matching`), less those whose condition is false for
        its card whatever the game (`on move to pile if kind = baby instead`: its value from
        the card data alone, `check/statics.py`). Worked out once per ruleset, event key and
        card (`Facts.instead_of`): most moves have none, and make no `_replace` to run."""
        ev.phase = ev.phase or self.state.phase
        src, dest = ev.source, ev.dest
        key = (ev.kind, ev.name, None if src is None else src.name, None if dest is None else dest.name, ev.phase)
        known = self._instead_found.get(key)
        if known is None:
            known = facts(self.rs).instead_of.get(key)
            if known is None:   # (per ruleset: all that `_matching` reads is in the key)
                known = facts(self.rs).instead_of[key] = (tuple(self._matching(self._instead_by_kind, ev)), {})
            self._instead_found[key] = known
        waiting, by_card = known
        if not waiting:
            return ()   # (most moves: none waits for their kind, zones and phase)
        card = ev.card
        found = by_card.get(card.id)
        if found is None:
            found = by_card[card.id] = tuple(tr for tr in waiting if self.may_hold(tr.cond, card))
        return found

    def _replace(self, ev: Event, found: tuple):
        """Run the first `instead` trigger of `found` (`replacements`) that replaces this card
        move; True if one did. An optional one (`instead … may`) asks first: declined, the next
        one is looked at, and with none the move happens."""
        tests = self._instead_tests
        for tr in found:
            holds = tests.get(id(tr), _MISSING)
            if holds is _MISSING:
                holds = tests[id(tr)] = self.trigger_test(tr)
            if holds is not None and not _truth(holds(self, ev)):
                continue
            env = event_env(ev)
            if tr.optional:
                seat = self._asker(tr.ask_by, env)
                prompt = self.ev(tr.prompt, env) if tr.prompt else f"Use {tr.name}?"
                if not (yield from self.ask_yes_no(seat, prompt, tr.span, tag=tr.name)):
                    continue
            if len(self.state.event_chain) >= MAX_EVENT_DEPTH:
                chain = " -> ".join(self.state.event_chain[-12:])
                raise CglError(Diagnostic("E011", f"replacements run away ({len(self.state.event_chain)} deep): {chain}",
                                          tr.span, hint="a replacement must not make the move it replaces"))
            # a replaced move is a step of the budget: `draw 1000000000` replaced by an empty
            # `instead` runs no statement, and would otherwise never end
            st = self.state
            st.steps += 1
            if self.max_steps is not None and st.steps > self.max_steps:
                raise self.out_of_steps(tr)
            yield from self._fire("instead", tr.name, tr.body, env, ev)
            return True
        return False

    def raise_event(self, ev: Event):
        rest = self.raised(ev)
        if rest is not None:
            yield from rest

    def raised(self, ev: Event):
        """`raise_event` as a plain call: the event logged and what waits for it found at once
        (`event_begin`); what is left to run, what waits for it then settling (when the
        ruleset has state checks), returned as a generator, or None when nothing is."""
        hit = self.event_begin(ev)
        if self._checks:
            st = self.state
            if hit is None and (st.changes == st.settled or settle_waits(st)):
                return None   # (nothing waits, and settling would find nothing to do: the caller runs it at once)
            return self._run_and_settle(ev, hit)
        return None if hit is None else self.event_run(ev, hit)

    def _run_and_settle(self, ev: Event, hit):
        if hit is not None:
            yield from self.event_run(ev, hit)
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
        env = event_env(ev)
        fired = ()
        if self._ordering:
            triggers, fired = yield from self.trigger_order(
                triggers, ev, _same, lambda tr: tr.cond is None or _truth(self.ev(tr.cond, env)),
                lambda tr: self.ev(tr.order_by, env), lambda tr: self.hint_ev(tr.prefer, env))
        for tr in triggers:
            if tr.cond is not None and id(tr) not in fired and not _truth(self.ev(tr.cond, env)):
                continue
            if tr.optional:
                seat = self._asker(tr.ask_by, env)
                prompt = self.ev(tr.prompt, env) if tr.prompt else f"Use {tr.name}?"
                yes = yield from self.ask_yes_no(seat, prompt, tr.span, tag=tr.name)
                if not yes:
                    continue
            yield from self._fire("trigger", tr.name, tr.body, env, ev)
        for r in reactions:
            if r.cond is not None and not _truth(self.ev(r.cond, env)):
                continue
            yield from self.open_window(r, env)

    def trigger_order(self, items: list, ev: Event, decl, fires, by, prefer):
        """The order the triggers `items` of event `ev` run in, for both engines: the list,
        and the ids of the declarations whose conditions were already found true. A trigger with
        `ordered by P` (`decl(item).order_by`) happens at the event, so its condition is
        asked now (`fires(item)`); those that fire and name the same player (`by(item)`)
        happen at once, and when there are two or more that player orders them, as Magic's
        APNAP (`s_order`: one question for each place but the last, each trigger by its
        name; `prefer(item)`, a trigger's `ordered by P prefer E`, its score for the bots,
        evaluated as that player's hint, 0 for one of the group without). They run in the
        places the group's triggers hold in the written order; the other triggers keep
        theirs, their conditions asked when their turn comes."""
        groups: dict = {}
        for i, item in enumerate(items):
            tr = decl(item)
            if tr.order_by is not None and fires(item):
                seat = self.as_player(by(item), tr.order_by).seat
                groups.setdefault(seat, []).append(i)
        places: dict = {}
        for seat, idxs in groups.items():
            if len(idxs) > 1:
                names = [decl(items[i]).name for i in idxs]
                hints = [decl(items[i]).prefer for i in idxs if decl(items[i]).prefer is not None]
                ask = _OrderAsk("trigger", decl(items[idxs[0]]).span, hints[0] if hints else None)
                prompt = f"These happen at once ({ev.kind}): which first?"
                idxs_by_name = {decl(items[i]).name: i for i in idxs}
                scores = None if not hints else partial(self._trigger_scores, seat, prefer, decl,
                                                        {n: items[i] for n, i in idxs_by_name.items()})
                chosen = yield from self.s_order(ask, names, self.players[seat], prompt, scores, private=True)
                for place, name in zip(idxs, chosen):
                    places[place] = items[idxs_by_name[name]]
            else:
                places[idxs[0]] = items[idxs[0]]
        run = [places.get(i, item) for i, item in enumerate(items) if decl(item).order_by is None or i in places]
        return run, {id(decl(item)) for item in places.values()}

    def _trigger_scores(self, seat: int, prefer, decl, by_name: dict, names: list) -> list:
        """The scores of the triggers named `names` for the seat ordering them: each its own
        hint (`hint_values`: its reads watched, an error located at it), 0 without one."""
        out = []
        for name in names:
            item = by_name[name]
            node = decl(item).prefer
            out.append(0 if node is None else self.hint_values(seat, node, prefer, item))
        return out

    def x_order(self, s, env, items: list):
        """`for … ordered by P ["prompt"] [prefer E]` in the tree walker: P and the prompt,
        then `s_order` (E scores each item as a `choose`'s `prefer` does: `choose_hints`)."""
        prompt = self.ev(s.prompt, env) if s.prompt is not None else None
        return (yield from self.s_order(s, items, self.as_player(self.ev(s.by, env), s.by), prompt,
                                        partial(self.choose_hints, s, env) if s.prefer is not None else None))

    def s_order(self, s, items: list, chooser, prompt, scores_fn=None, private: bool = False):
        """`for x in LIST ordered by P ["prompt"] [prefer E]`: the items happen at once, and P
        puts them in the order they run (Magic's APNAP: the player orders their own
        simultaneous triggers), all before the first runs: which comes first, then which
        next, one question for each place but the last. Asked whenever two or more items are
        left, whether or not their order matters: that depends on the game's state and the
        choices still to come, which no rule can foresee without playing each order.
        `scores_fn(items)`, the hint `s.prefer` (each item's score, as that player's own
        judgement), is asked at each question for the items left: a bot puts the best first.
        `private`: the questions are the chooser's alone (`Decision.private`: triggers, whose
        names tell what fired them)."""
        if len(items) < 2:
            return items
        ask = _OrderAsk(s.name, s.span, s.prefer)
        text = prompt if prompt is not None else f"Which {s.name} comes first? (they happen at once)"
        left, order = list(items), []
        while len(left) > 1:
            d = self.c_ask(ask, left, chooser, text, scores_fn)
            if private:
                d.private = True
            picked = self.c_took(ask, d, (yield d))
            order.append(picked)
            i = next(i for i, o in enumerate(left) if o is picked)
            left = left[:i] + left[i + 1:]    # (a new list: the decision keeps its options)
            if prompt is None:
                text = f"Which {s.name} comes next? (they happen at once)"
        order.append(left[0])
        return order

    def _fire(self, kind: str, name: str, body, env, ev=None):
        """Run a trigger's or reaction's body, counted, and named in the event chain (with the
        seats that may know it fired, `Views.cause`: `ev` is its event)."""
        self.bump(f"{kind}:{name}")
        self.state.event_chain.append(self.cause(name, ev))
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
            return f"{what} moves from {self._zone_text(ev.source)} to {self._zone_text(ev.dest)}"
        return f"{ev.player} {_VERB[ev.kind]} {what}"

    def _zone_text(self, z) -> str:
        """A zone in a move's log line: `hand(P1)`; a side of a card as the card is shown at the
        table, `squad(Gold Mine of P2, P1)`, so the sides of two copies read apart."""
        if z is None or z.card is None or z.owner is None:
            return str(z)
        return f"{z.name}({self.show_card(self.cards[z.card])}, P{z.owner + 1})"

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
            # (a yes or no is its player's alone: whom a window asks can tell what they hold,
            # `eligible` reads their hand)
            yes = yield from self.ask_yes_no(who.seat, prompt, r.span, tag=r.name)
            if not yes:
                continue
            yield from self._fire("reaction", r.name, r.body, local, env.lookup("event")[1])
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
