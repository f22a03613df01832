"""What the game shows and checks, for both engines: the log (each entry with the seats
that may read it), what a seat sees at a decision (`view`), how options and cards read,
and the invariants checked when invariants are on; a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`."""
from __future__ import annotations

import re
import weakref
from bisect import bisect_left
from functools import partial
from itertools import chain
from typing import Optional

from ..base.diagnostics import CglError, Diagnostic, error
from ..base.protocol import ActionChoice
from ..check.resolver import facts
from ..runtime.state import Event, ZoneRef
from ..runtime.values import _show, _truth
from .compiler import Env
from .forks import _weak_view
from .seatview import readable, seat_view, which_copy, zone_label


class Cause(str):
    """A trigger's or reaction's name in the event chain (`State.event_chain`), with the
    seats that may know it fired (`to`): those that may see the face of the card whose event
    fired it, when it fired. A log line's `cause` is shown to them only (`seatview`)."""

    def __new__(cls, name: str, to: tuple):
        self = super().__new__(cls, name)
        self.to = to
        return self

    def __reduce__(self):
        return (Cause, (str(self[:]), self.to))


class Views:
    """`log`, `view`, `show_card`, the invariant checks (see the module doc)."""

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
                _cause(entry, self.state.event_chain[-1])
            for fn in self.listeners:
                fn(entry)
            return
        entry = {"step": len(self.state.log), "type": kind, "text": text}
        if visible_to is not None:
            entry["to"] = sorted(visible_to)
        entry.update(data)
        if self.state.event_chain:
            _cause(entry, self.state.event_chain[-1])
        self.state.log.append(entry)
        for fn in self.listeners:
            fn(entry)

    def cause(self, name: str, ev):
        """What the event chain holds while trigger (or reaction) `name` runs, fired by event
        `ev` (None: a state check): its name, or a `Cause` when some seat may not see the face
        of the event's card (a trigger's name, "loss", can tell what the card was)."""
        if ev is None or not (self.record or self.listeners):
            return name
        card = ev.card if ev.card is not None else ev.fields.get("card")
        if getattr(card, "props", None) is None:
            return name
        seers = tuple(s for s in range(self.n) if self.knows_card(card, s))
        return name if len(seers) == self.n else Cause(name, seers)

    def _log_reveal(self, cards, seats) -> None:
        """The line of a `reveal` of `cards`, to `seats` (None: to everyone)."""
        names = [c.name for c in cards]
        if seats is not None:
            self.log("reveal", f"{', '.join(f'P{x + 1}' for x in seats)} sees: {', '.join(names) or 'nothing'}",
                     visible_to=seats, cards=names)
        else:
            self.log("reveal", f"revealed: {', '.join(names) or 'nothing'}", cards=names)

    def bump(self, key: str):
        st = self.state.stats
        st[key] = st.get(key, 0) + 1

    def show_options(self, options) -> list:
        return [self.show_option(o) for o in options]

    def zone_visible(self, z: ZoneRef, seat: Optional[int]) -> bool:
        """Whether player `seat` (None: a spectator, who sees only public zones) may look at
        the cards of zone `z`."""
        if seat is None:
            return self._visibility.get(z.name, "public") == "public"
        return self.sees_zone(z, seat)

    def knows_card(self, card, seat: Optional[int]) -> bool:
        """Whether player `seat` may see this card's face now: it lies in a zone the seat may
        look into, or was shown to it (`reveal`) and has not moved since."""
        if self.zone_visible(self.zone_of_card(card), seat):
            return True
        if card.id not in self.state.shown:
            return False
        seers = self.state.shown[card.id]
        return seers is None or seat in seers

    def options_for(self, seat: int, options) -> list:
        """How each option reads to the player choosing: a card it cannot see is a blind
        pick, told by its place ("a card from hand P2, 2 of 4"), never by its name; copies it
        sees under one label say which copy each is ("Brute (damage: 2)": `which_copy`)."""
        labels = [None] * len(options)
        blind: dict = {}
        seen: dict = {}   # label -> the indices of the cards the seat sees offered under it
        where = self.state.where
        # (whether the seat sees a zone, remembered per zone key as `hidden_keys` remembers
        # it: a card in a zone it sees is known without asking `knows_card`)
        sight = self.sight_of(seat) if seat is not None else None
        for i, o in enumerate(options):
            if not hasattr(o, "props"):
                labels[i] = self.show_option(o)
                continue
            key = where[o.id]
            sees = None if sight is None or key is None else sight.get(key)
            if sees is None and sight is not None and key is not None:
                z = self.zone_ref(key)
                sees = self.sees_zone(z, seat)
                if z.card is None:
                    sight[key] = sees
            if sees or self.knows_card(o, seat):
                labels[i] = label = self.show_card(o)
                seen.setdefault(label, []).append(i)
            else:
                blind.setdefault(where[o.id], []).append(i)
        for key, at in blind.items():
            place = zone_label(self, self.zone_ref(key))
            for k, i in enumerate(at, 1):
                labels[i] = f"a card from {place}, {k} of {len(at)}" if len(at) > 1 else f"a card from {place}"
        for label, at in seen.items():
            if len(at) > 1:
                for i, mark in zip(at, which_copy(self, seat, [options[i] for i in at])):
                    if mark:
                        labels[i] = f"{label} ({mark})"
        return labels

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
        place = self.state.last_seen.get(seat, 0)
        self.state.last_seen[seat] = len(self.state.log)
        # (`since` counts the seat's own lines: worked out only when the view is read)
        return lambda decision=None: self.view(seat, bisect_left(readable(self, seat), place), decision)

    def may_read(self, var: str, seat: Optional[int], owner: Optional[int] = None) -> bool:
        """Whether player `seat` (None: a spectator) may read variable `var` (of player
        `owner`, for a player variable), as its declaration says: `public` by everyone,
        `private` by its own player only, `internal` by no one at the table."""
        decl = self.rs.vars.get(var)
        sight = decl.sight if decl is not None else "public"
        return sight == "public" or (sight == "private" and seat is not None and seat == owner)

    def view(self, seat: Optional[int], since: Optional[int] = None, decision=None) -> dict:
        """What player `seat` may know (`seatview.seat_view`: the one seat view, as data):
        its log from step `since` (else the last few entries), `decision` as it may see it."""
        return seat_view(self, seat, since, decision)

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
        """Every card is in exactly one zone, the one `where` records for it. Asked at the end
        of every turn of a game with invariants on (`--check`, the tests): the usual answer,
        that all is well, is found by C loops (a set of each zone's recorded places, one
        set of all the ids); only a broken invariant walks the cards to name them."""
        st = self.state
        place = st.where.__getitem__
        count = 0
        for key, ids in st.zones.items():
            if ids:
                count += len(ids)
                if set(map(place, ids)) != {key}:
                    return self._invariant_broken()
        if count != len(self.cards) or len(set(chain.from_iterable(st.zones.values()))) != count:
            return self._invariant_broken()

    def _invariant_broken(self):
        """Name the first card out of place, or the cards lost or duplicated."""
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


def _cause(entry: dict, c) -> None:
    """Name `c`, the innermost rule running, as the entry's `cause` (and `cause_to`, the seats
    that may read it, when not every seat may)."""
    if c.__class__ is Cause:
        entry["cause"] = str(c[:])
        entry["cause_to"] = list(c.to)
    else:
        entry["cause"] = c


# ---------------------------------------------------------------- cards named in a text

def _named_cards(rs, texts) -> list:
    """The cards `texts` name: for each card name found in them (not inside a longer word or
    a longer card name), the ids of the cards with that name. What one text names is worked
    out once (`_names_in`): a game's prompts and labels come back again and again."""
    f = facts(rs)
    if f.card_names is None:
        by_name: dict = {}
        for c in rs.cards:
            by_name.setdefault(c.name, []).append(c.id)
        names = [(n, re.compile(rf"(?<!\w){re.escape(n)}(?!\w)"))   # the longest first: "Arch-Imp", "Imp"
                 for n in sorted((n for n in by_name if n), key=len, reverse=True)]
        f.card_names = (names, by_name, {})
    names, by_name, memo = f.card_names
    found = []
    for text in texts:
        if not isinstance(text, str):
            continue
        named = memo.get(text)
        if named is None:
            if len(memo) >= _NAMED_MEMO:
                memo.clear()
            named = memo[text] = _names_in(text, names, by_name)
        for ids in named:
            if ids not in found:
                found.append(ids)
    return found


_NAMED_MEMO = 8192   # texts whose named cards are remembered (per ruleset), at most


def _names_in(text: str, names: list, by_name: dict) -> tuple:
    """The id lists of the card names `text` holds, in the order `_named_cards` finds them."""
    named = []
    for name, pattern in names:
        if name in text and pattern.search(text):
            named.append(by_name[name])
            text = pattern.sub(" " * len(name), text)
    return tuple(named)
