"""Honest hints, for both engines: a `prefer` is a player's own judgement, so it reads only
what that player may see; a mixin of :class:`~cgl.interpreter.walker.engine.Engine`.

Rules read the whole state; a hint (the `prefer` of a `choose` or an `action`) is evaluated
for the seat that decides, its reads watched here (the tree walker's closures call
`attr_of`, which is `_hint_attr` meanwhile; the compiled engine's generated hints call
`hint_sees` and `hint_reads` where they read: codegen `Expressions.hint_mode`), and stops
with E019, located at the hint, where it reads:

- a card's face (its name, id, data, variables, derived properties) while the card lies in
  a zone that seat may not look into (`sees_zone`: another player's `owner` zone, a `hidden`
  one); where a card lies (`zone`, `owner`) and how many cards a zone holds are public;
- a variable the seat may not read (`may_read`): another player's `private` one, an
  `internal` one.

What a seat knows beyond its zones is what the rules record for it (a `private var`, as
examples/priest.cgl does), so the same hint reads the same things on every game, forkable
or not. A `possible(…)` inside a hint tries its procedure as rules (unwatched), and a
derived property of a card the seat sees is the rules' value (cached as the rules cache
it). `estimate` is not watched: a search bot reads it only in worlds sampled from its own
seat's view (`Game.determinised`), where what it cannot see has been dealt anew. Lint
(`check/lint.py`, E019) refuses what is known without playing: a hint reading an
`internal` variable or the cards of a `hidden` zone.
"""
from __future__ import annotations

from typing import Optional

from ..base.diagnostics import CglError, Diagnostic
from ..check.loader import Card
from ..check.resolver import card_attr_meaning
from ..runtime.state import Player

HELP = ("a hint may read only what its player sees: its own zones, the public ones, how many cards the "
        "others hold, and the variables it may read (record what a player learns in a `private var`)")


class Hints:
    """`hint_values` and the reads it watches (see the module doc)."""

    hint_seat: Optional[int] = None   # the seat whose hint is being evaluated (None: rules run)
    _hint_node = None
    # what the hint's seat is known to see (`sight_of`): the generated hints' quick test
    # before they call `hint_sees` (Expressions.hint_card_getter)
    hint_zones: dict = {}
    # what the compiled engine's generated hints keep while one hint is evaluated (all the
    # options of a choice: codegen `Held.label_count`), None otherwise: nothing changes
    # meanwhile, and a `possible` inside the hint runs without it (`unwatched`)
    eval_memo: Optional[dict] = None

    def hint_values(self, seat: int, node, fn, *args):
        """`fn(*args)`, the values of hint `node` for player `seat`, with its reads watched."""
        outer = self.hint_seat, self._hint_node, self.hint_zones, self.eval_memo
        self.hint_seat, self._hint_node = seat, node
        self.hint_zones, self.eval_memo = self.sight_of(seat), {}
        self.attr_of = self._hint_attr        # (an instance attribute: `clone` leaves it behind)
        try:
            return fn(*args)
        finally:
            self.hint_seat, self._hint_node, self.hint_zones, self.eval_memo = outer
            if outer[0] is None:
                del self.attr_of

    def hint_ev(self, e, env):
        """Expression `e` of a hint, by the tree walker's closure (the compiled engine generates its own)."""
        try:
            return self.compile(e)(self, env)
        except RecursionError:
            raise self.fail(e, "the rules call themselves without end", code="E011") from None

    def unwatched(self, fn, *args):
        """`fn(*args)` as rules (a `possible` trial inside a hint, a derived property)."""
        if self.hint_seat is None:
            return fn(*args)
        seat, node, memo = self.hint_seat, self._hint_node, self.eval_memo
        self.hint_seat = self._hint_node = self.eval_memo = None
        del self.attr_of
        try:
            return fn(*args)
        finally:
            self.hint_seat, self._hint_node, self.eval_memo = seat, node, memo
            self.attr_of = self._hint_attr

    def _hint_attr(self, obj, name):
        """`attr_of` while a hint is evaluated."""
        cls = type(self)
        if type(obj) is Card:
            how = self._hint_how.get(name)
            if how is None:
                meaning = card_attr_meaning(self.rs, name)
                how = self._hint_how[name] = ("derive" if meaning == "derive" else "place"
                                             if meaning == "data" and name in ("zone", "owner")
                                             and not any(name in c.props for c in self.cards) else "face")
            if how != "place":
                self.hint_sees(obj, name)
            if how == "derive" and name not in self.hint_plain_derives:
                return self.unwatched(cls.attr_of, self, obj, name)
            return cls.attr_of(self, obj, name)
        if type(obj) is Player and name in self.player_var_names:
            self.hint_reads(name, obj.seat)
        return cls.attr_of(self, obj, name)

    # the derived properties whose getter evaluates no tree-walker closure (the compiled
    # engine's): read as they are, with nothing to unwatch
    hint_plain_derives: frozenset = frozenset()

    def hint_sees(self, card, what: str = "name"):
        """Refuse (E019) a hint's read of `card`'s `what` when its seat may not see the card."""
        seat = self.hint_seat
        if seat is None or card.__class__ is not Card:
            return card
        key = self.state.where[card.id]
        if key is None:
            return card
        sight = self.sight_of(seat)
        seen = sight.get(key)   # (as `hidden_keys` remembers it)
        if seen is None:
            z = self.zone_ref(key)
            seen = self.sees_zone(z, seat)
            if z.card is None:
                sight[key] = seen
        if not seen:
            z = self.zone_ref(key)
            seers = self.state.shown.get(card.id, ())
            if seers is None or seat in seers:   # shown to it (`reveal`), and not moved since
                return card
            raise self._hint_error(f"reads the `{what}` of a card in {z}, which P{seat + 1} cannot see")
        return card

    def hint_reads(self, var: str, owner: Optional[int] = None):
        """Refuse (E019) a hint's read of variable `var` (of player `owner`) its seat may not read."""
        seat = self.hint_seat
        if seat is None or self.may_read(var, seat, owner):
            return
        whose = "" if owner is None else f"P{owner + 1}'s "
        sight = self.rs.vars[var].sight
        raise self._hint_error(f"reads {whose}`{var}`, which is {sight}: P{seat + 1} may not read it")

    def _hint_error(self, what: str) -> CglError:
        node = self._hint_node
        return CglError(Diagnostic("E019", f"a hint of P{self.hint_seat + 1} {what}",
                                   node.span if node is not None else None, hint=HELP))
