"""The flow of a game, for both engines: the match, its rounds, their turns and the turns'
phases, from the start (or a scenario's prepared position, or a fork's snapshot) to the
end; a mixin of :class:`~cgl.interpreter.walker.engine.Engine`."""
from __future__ import annotations

from typing import Optional

from ..base.protocol import MAX_ROUNDS, MAX_TURNS, _EndScope, _GameOver
from ..runtime.state import Event
from ..runtime.values import _num, _truth
from .compiler import Env


class Flow:
    """`play`, `play_round`, `play_turns`, `finish` (see the module doc)."""

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
        `end of round` event; then the players knocked out of it are back in play."""
        rs = self.rs
        if rs.round and rs.round.end:
            try:
                yield from self.run_block(rs.round.end, root)
            except _EndScope as e:
                if e.scope != "round":
                    raise
        yield from self.scope_event("end", "round")
        if self.state.out_of_round:
            self._back_in_play()

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

    def _turn_begins(self, played: int, seat: int, why: str, limit: Optional[int]):
        """Turn `played` of a round begins, `seat`'s (`why`: "extra" for an extra turn):
        within MAX_TURNS, a step of the game's budget (`limit`, the engine's `max_steps`: a
        turn with nothing in it is a step too), the turn counted, the turn hooks called and
        the turn logged."""
        rs, st = self.rs, self.state
        if played > MAX_TURNS:
            raise self.fail(rs.round, f"a round ran {MAX_TURNS} turns without ending", code="E011",
                            hint="give the round an end: `until …` or `end round`")
        st.steps += 1
        if limit is not None and st.steps > limit:
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

    def _first_turn(self, first: int, why: str, phase: int, root):
        """(seat, why) of a round's first turn: extra turns given before the round's turns
        are taken first, then `first`'s turn."""
        st = self.state
        if why == "first" and st.first_extra_turns and not phase:
            st.extra_turns += st.first_extra_turns
            st.first_extra_turns.clear()
            st.next_player = first
            return self._turn_after(first, root)
        return first, why

    def play_turns(self, root, first: int, max_turns, why: str = "first", phase: int = 0, resumed: bool = False):
        """A round's turns, from seat `first` (extra turns given before them come first),
        until its `until` holds or `end round`. While they are played, `give turn to` and
        `give extra turn to` are about the turns of this round (`State.in_turns`). `why`:
        "first", or how a resumed game's first turn came (`play(resume=…)`). `resumed`: a
        fork goes on from a snapshot (`Game.fork`), its round's turns counted from the
        round's start (`turn_no`), as its game counts them; `phase` > 0 resumes the first
        turn at the start of its phase number `phase` (0-based): what came before it in that
        turn already happened in the snapshot's state. (One generator: every decision of a
        turn passes through it.)"""
        rs, st = self.rs, self.state
        until = rs.round.until if rs.round else None
        turn = rs.turn
        t_start = self.block_fn(turn.start) if turn and turn.start else None
        t_end = self.block_fn(turn.end) if turn and turn.end else None
        block_fn = self.block_fn   # (a local: the comprehension does not make `self` a closure cell)
        phases = [(ph.name, block_fn(ph.body)) for ph in turn.phases] if turn else []
        starts, ends = "start" in self._scope_kinds, "end" in self._scope_kinds
        limit = self.max_steps   # (read once a round: a property of the compiled engine)
        n = self.n
        st.in_turns = True
        try:
            seat, why = self._first_turn(first, why, phase, root)
            played = st.turn_no if resumed else 0
            asked = False   # whether `until` was asked for the coming turn (after a turn: before its order)
            while True:
                if not phase:
                    if self.snap is not None:
                        self.snap(seat, why)
                    if not asked and (until is not None and _truth(self.ev(until, root)) or len(st.out) >= n):
                        return   # (the round's turns are over: its `until` holds, or nobody is left in it)
                    if max_turns is not None and played >= max_turns:
                        st.stopped_before = seat     # (whose turn comes next: a scenario's `next:`)
                        raise _EndScope("game")
                    played += 1
                    self._turn_begins(played, seat, why, limit)
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
                # over, as above (the turn `order` is asked only for a turn to come)
                if until is not None and _truth(self.ev(until, root)) or len(st.out) >= n:
                    return
                asked = True
                seat, why = self._turn_after(seat, root)
        finally:
            st.in_turns = False
