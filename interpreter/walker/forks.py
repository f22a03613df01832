"""Forks: what lets a game be copied at a decision and imagined from one seat; a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`, for both engines.

- `snapshot` / `clone`: the game apart from its running program, kept where a turn begins
  (`Engine.snap`), and a new engine made from it without evaluating the ruleset again;
  `_resumed_round` plays the rest of the round from there (`Game.fork` replays the answers
  given since). A snapshot is kept where each turn begins and where each later phase of it
  begins, so a fork replays at most one phase of one turn.
- what each seat knows (`State.known`): who sees a card move (`seers`, the one rule the log
  uses too), who may look into a zone (`sees_zone`; the keys of those it may not,
  `hidden_keys`), followed as cards move (`_learn`); `Game.determinised` deals the rest anew.
- the cached derived properties of cards: copied with a snapshot, forgotten when what
  they read changes (`forget`, `forget_all`, and `forget_place` when a card moves).
- `estimates`: how well each player stands, for search bots that cut a game short.
"""
from __future__ import annotations

from typing import Optional

from .compiler import Env
from ..base.protocol import _EndScope
from ..runtime.state import ZoneRef
from ..runtime.values import _num


# a class -> ({the name of an attribute of an instance: whether the class has the name too},
# [those it has]), as `clone` has found (a class's names do not change as games are played)
_CLASS_NAMES: dict = {}


def _weak_view(ref, seat: int, decision=None) -> dict:
    """A decision's view in a game that keeps no log, its engine held weakly (see `_viewer`)."""
    eng = ref()
    if eng is None:
        raise ValueError("this decision's game is gone: keep the Game to view its decisions")
    return eng.view(seat, 0, decision)


class Forks:
    """Snapshots and clones, knowledge, estimates (see the module doc)."""

    def snapshot(self) -> dict:
        """What this game is now, apart from the running program: a copy of the state (which
        holds everything that changes) and of the derived values cached for it. Taken where a
        turn is about to begin, or a later phase of it (see `snap`); `clone` makes a game of it."""
        return {"state": self.state.copy(), "derived": self._derived_copy()}

    def clone(self, snap: dict, world: bool = False, log: bool = True) -> "Forks":
        """An engine for a game of the same ruleset and seats at snapshot `snap`, with
        nothing running: what `Game.fork` resumes from a turn's start. Made without
        evaluating the ruleset again: it shares this engine's parts (what belongs to the
        ruleset, the seats and the game's settings) and makes its own observers and caches
        afresh, as a new game does (`_begin`), on a copy of the snapshot's state. An
        attribute that stands in for one of the class's methods (a tool wrapping a method of
        this engine) is not carried over: the clone acts on its own game only. `world`: the
        state copied as a world's (`State.world_copy`: what it does not change shared with
        the snapshot, no knowledge followed); `log`: the log copied too."""
        cls = type(self)
        twin = object.__new__(cls)
        own = self.__dict__
        names = _CLASS_NAMES.get(cls)
        if names is None:
            names = _CLASS_NAMES[cls] = ({}, [])
        found, shadowing = names
        if not found.keys() >= own.keys():
            for k in own.keys() - found.keys():
                found[k] = hasattr(cls, k)
                if found[k]:
                    shadowing.append(k)
        # (copied whole, in C, then those the class has taken out)
        mine = own.copy()
        for k in shadowing:
            if k in mine:
                del mine[k]
        twin.__dict__ = mine
        st = snap["state"]
        twin._begin(st.world_copy(log) if world else st.copy(log))
        twin._derived_restore(snap["derived"])
        if world:
            twin.derived_home = (st.card_vars, snap["derived"])
        return twin

    def derived_found(self, name: str, cid: int, value) -> None:
        """A world's "card" derived property `name` of card `cid`, just worked out, given back
        to the snapshot the world was copied from (`derived_home`) while the card's variables
        are still that snapshot's (`State.world_copy` shares them until written): a "card"
        derived property reads nothing else, so the value holds there too, and the worlds
        copied from it after this one find it cached (each world deals the stock anew: in MGT
        it drew about 20 cards whose labels and nature every world worked out again)."""
        home_vars, home = self.derived_home
        if self.state.card_vars[cid] is home_vars[cid]:
            home[(cid, name)] = value

    def _derived_copy(self):
        """The cached derived properties of cards (they hold for the state they were read from)."""
        return dict(self.derive_cache)

    def _derived_restore(self, kept) -> None:
        self.derive_cache = dict(kept)

    def forget(self, card, derives) -> None:
        """Forget the cached derived properties `derives` of `card` (what they read changed)."""
        for name in derives:
            self.derive_cache.pop((card.id, name), None)

    def forget_all(self) -> None:
        """Forget every cached derived property of every card (the state was swapped)."""
        self.derive_cache.clear()

    def derived_put_back(self, kept) -> None:
        """The cached derived properties as `_derived_copy` kept them, put back in place
        (code that is running may hold the cache): `possible` gives the game's back after a
        trial, and each way through starts from them."""
        self.derive_cache.clear()
        self.derive_cache.update(kept)

    def forget_place(self, cid: int) -> None:
        """Forget the "place" derived properties (which read where a card lies) of card `cid`,
        which moved, and of the cards lying under it, at any depth (their owner is its owner)."""
        zones, under = self.state.zones, self._card_zones
        todo = [cid]
        while todo:
            c = todo.pop()
            self.forget(self.cards[c], self.place_derives)
            for z in under:
                todo.extend(zones.get(f"{z}@{c}", ()))

    def seers(self, src: Optional[ZoneRef], dest: Optional[ZoneRef]):
        """Who sees which card moves from `src` to `dest`: None when everybody does (either
        zone is public), else the seats that own a zone of the two they may look into."""
        vis = self._visibility
        sv = "public" if src is None else vis.get(src.name, "public")
        dv = "public" if dest is None else vis.get(dest.name, "public")
        if sv == "public" or dv == "public":
            return None
        return sorted({self.zone_owner(z) for z, v in ((src, sv), (dest, dv)) if z is not None and v == "owner"}
                      - {None})

    def sees_zone(self, z: ZoneRef, seat: int) -> bool:
        """Whether player `seat` may look at the cards of zone `z`."""
        v = self._visibility.get(z.name, "public")
        return v == "public" or (v == "owner" and self.zone_owner(z) == seat)

    def sight_of(self, seat: int) -> dict:
        """What `seat` is known to see: zone key -> whether it may look at its cards (a zone
        under a card is never remembered: its owner is where its card lies)."""
        sight = self._sight.get(seat)
        return sight if sight is not None else self._sight.setdefault(seat, {})

    def hidden_keys(self, zones: dict, seat: int) -> list:
        """The keys of `zones` whose cards player `seat` may not look at, in key order.
        Whether a seat sees a zone is remembered per zone key, as it never changes (save for a
        zone under a card, whose owner is where its card lies: asked each time)."""
        sight = self.sight_of(seat)
        out = []
        for key in sorted(zones):
            seen = sight.get(key)
            if seen is None:
                z = self.zone_ref(key)
                seen = self.sees_zone(z, seat)
                if z.card is None:
                    sight[key] = seen
            if not seen:
                out.append(key)
        return out

    def _learn(self, cid: int, old: Optional[str], dest: ZoneRef) -> None:
        """Follow what each seat knows (`State.known`) as card `cid` moves from `old` to `dest`.
        Copies a seat cannot tell apart are one for what it knows: a seat that sees a card
        leave a zone it cannot look into, where it knew of a copy of it, cannot tell which of
        the two left, so it knows that copy's place no longer (`determinised` deals it anew)."""
        src = None if old is None else self.zone_ref(old)
        seers = self.seers(src, dest)
        twins = self.twins(cid) if src is not None else ()
        where = self.state.where
        for seat, known in enumerate(self.state.known):
            if seers is None or seat in seers:
                known.add(cid)
                if twins and not self.sees_zone(src, seat):
                    for t in twins:
                        if t in known and where[t] == old:
                            known.discard(t)
            else:
                known.discard(cid)

    def twins(self, cid: int) -> tuple:
        """The other cards identical to card `cid` (the same name and printed properties), which
        no player can tell from it by looking."""
        found = self._twins
        if found is None:
            groups: dict = {}
            for c in self.cards:
                groups.setdefault((c.name, repr(sorted(c.props.items()))), []).append(c.id)
            found = self._twins = {i: tuple(x for x in ids if x != i)
                                   for ids in groups.values() if len(ids) > 1 for i in ids}
        return found.get(cid, ())

    def _resumed_round(self, root, seat: int, why: str, phase: int = 0):
        """The rest of a round from a turn's start (or the start of its phase number
        `phase`), as `play_round` plays it: its turns from `seat`'s, then its end
        (`play(resume=…)` goes on with the later rounds)."""
        try:
            yield from self.play_turns(root, seat, None, why, phase, resumed=True)
        except _EndScope as e:
            if e.scope != "round":
                raise
        yield from self._round_end(root)

    def estimate_value(self, est, p):
        """The ruleset's `estimate` for player `p` (the compiled engine runs the generator's
        function of the player)."""
        return self.ev(est.value, Env({est.var: p}))

    def estimates(self) -> Optional[list]:
        """How well each player stands, bigger is better, for bots that cut a game short:
        the ruleset's `estimate p: …`, else its score (`Ruleset.score`: a `low score` counts
        down); None without either."""
        est = self.rs.estimate
        if est is not None:
            return [_num(self.estimate_value(est, p), est.value, self) for p in self.players]
        score = self.rs.score
        if score is not None:
            name, way = score
            vals = [pv.get(name) for pv in self.state.player_vars]
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                return vals if way == "high" else [-v for v in vals]
        return None
