"""Events, for the tree walker (and, through `event_begin`, `_log_card_event` and
`open_window`, the compiled engine): an event logged so that each seat reads only what it
may see, the triggers and reactions waiting for it found in declaration order and run,
reaction windows, the start and end of scopes; a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..base.protocol import MAX_EVENT_DEPTH
from ..runtime.state import Event
from ..runtime.values import _truth
from .compiler import Env, event_env


_VERB = {"draw": "draws", "discard": "discards", "deal": "is dealt", "move": "moves"}


class Events:
    """`raise_event`, `event_begin`, `event_run`, `open_window`, `scope_event` (see the module doc)."""

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
        env = event_env(ev)
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
