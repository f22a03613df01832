"""Who plays next: the order of play round the table (its direction, the seats still in
the game), `give turn to`, extra turns; a mixin of :class:`~cgl.interpreter.walker.engine.Engine`.

The state keeps all of it (`State.direction`, `next_player`, `first_player`,
`extra_turns`, `first_extra_turns`, `resume_from`), so a copy of the state carries the order with it. The
statements that change it are in statements.py (`s_give`, `s_give_extra`, `s_reverse`);
the round and turn flow that reads it is `Engine.play_round` and `Engine.play_turns`.
"""
from __future__ import annotations

from typing import Optional

from .compiler import Env


class TurnOrder:
    """`seat_order`, `next_seat`, `following_seat` and the bookkeeping of extra turns."""

    def seat_order(self, start: int, direction: Optional[int] = None) -> list:
        """Seats still in play, starting at `start` and going round the table in the
        direction of play (`direction`: 1 up the seats, -1 down; default the state's)."""
        st = self.state
        d = st.direction if direction is None else direction
        if d == 1 and not st.out:
            return list(self._orders[start])
        n, out = self.n, st.out
        return [s for s in ((start + d * i) % n for i in range(n)) if s not in out]

    def next_seat(self, seat: int, direction: Optional[int] = None) -> int:
        """The next seat still in play after `seat` in the direction of play (or in
        `direction`: -1 gives the previous one)."""
        st = self.state
        d = st.direction if direction is None else direction
        if not st.out:
            return (seat + d) % self.n
        for i in range(1, self.n + 1):
            s = (seat + d * i) % self.n
            if s not in st.out:
                return s
        return seat

    def following_seat(self, seat: int, root=None) -> int:
        """Whose turn comes after seat `seat`'s (the current player's): the first extra turn
        still owed to a player in the game, else the one a `give turn to` named, else the
        turn `order`, else the next seat still in play in the direction of play. Asking
        changes nothing."""
        return self._turn_after(seat, root)[0]

    def _turn_after(self, seat: int, root=None):
        """(the seat of the next turn, why: "extra", "given" or "order"); see `following_seat`.
        After extra turns the order goes on from the seat whose turn they followed."""
        st = self.state
        out = st.out
        for s in st.extra_turns:
            if s not in out:
                return s, "extra"
        nxt = st.next_player
        if nxt is not None and nxt not in out:
            return nxt, "given"
        base = seat if st.resume_from is None else st.resume_from
        order = self.rs.turn.order if self.rs.turn else None
        if order is None:
            return self.next_seat(base), "order"
        env = root if root is not None else Env()
        if base == st.current:
            p = self.ev(order, env)
        else:
            cur, st.current = st.current, base   # the order reads `current` as the seat it goes on from
            try:
                p = self.ev(order, env)
            finally:
                st.current = cur
        if p is None:   # the order names no one: round the table, as with no `order`
            return self.next_seat(base), "order"
        return self.as_player(p, order).seat, "order"

    def _take_extra_turn(self):
        """The next turn is the first extra turn owed (passing over players out by now); the
        order will go on from the seat whose turn the extra turns follow."""
        st = self.state
        q = st.extra_turns
        while q[0] in st.out:
            q.pop(0)
        q.pop(0)
        if st.resume_from is None:
            st.resume_from = st.current

    def _turns_lapse(self):
        """A new round starts afresh: the extra turns still owed and a `give turn to` that
        no turn took when the previous round's turns ended are dropped (they stay in the
        state until then, where `following_seat` still sees them: a scenario's `next:`)."""
        st = self.state
        st.next_player = None
        st.extra_turns.clear()
        st.resume_from = None

    def _back_in_play(self):
        """The round is over (after its `end` block and `end of round` event): the players
        knocked out of it (`knock out`) are back in play, for the match's end and the next
        round."""
        st = self.state
        st.out[:] = [s for s in st.out if s not in st.out_of_round]
        st.out_of_round.clear()
        st.changes += 1
