"""Playing games: the decision API (:class:`Game`), the built-in agents, and `play`.

    game = Game(ruleset, players=4, seed=1)
    decision = game.start()
    while decision is not None:
        decision = game.answer(agent.decide(decision))
    game.result

A game is reproducible from (ruleset, options, seed, answers): :attr:`Game.answers`
records every answer given, and :func:`replay` feeds them back.
"""
from __future__ import annotations

import random
import weakref
from functools import partial
from typing import Optional

import attrs

from ..base.diagnostics import CglError, Diagnostic
from ..walker.engine import AnswerError, Decision, Engine  # noqa: F401 (Engine: re-exported)
from ..codegen import make_engine
from ..base.protocol import DEFAULT_MAX_STEPS
from ..runtime.state import plain, seeded_random
from ..walker.seatview import readable, seat_view
from .agents import AGENTS, Agent, GreedyAgent, RandomAgent, ScriptedAgent, make_agent, needs_worlds  # noqa: F401


@attrs.define
class Result:
    """How a game ended."""

    winners: list            # 1-based seats
    reason: str
    players: list            # each player's variables at the end
    rounds: int
    turns: int
    steps: int
    log: list
    stats: dict
    decisions: int

    def summary(self) -> str:
        if not self.winners:
            return f"No winner ({self.reason})."
        who = ", ".join(f"P{w}" for w in self.winners)
        return f"Winner{'s' if len(self.winners) > 1 else ''}: {who} ({self.reason})."


#: The engines a game can be played on: the ruleset's generated code (the default; the
#: tree walker when a ruleset does not compile) and the tree walker, which defines what a
#: ruleset means and plays the same games.
ENGINES = ("compiled", "tree")
#: The engine of a game that names none (`cgl --engine`, and the tests, set it).
DEFAULT_ENGINE = "compiled"


class Game:
    """One game of a ruleset, driven one decision at a time."""

    _deal = None     # (`_places_to_deal`'s answer, kept for the decision pending)

    def __init__(self, ruleset, players: Optional[int] = None, seed: int = 0, check_invariants: bool = False,
                 decks: Optional[dict] = None, record: bool = True, forkable: bool = False,
                 max_steps: Optional[int] = DEFAULT_MAX_STEPS, engine: Optional[str] = None):
        """`max_steps`: the game's budget of steps (statements run and turns played; see
        docs/language.md, "Limits"); past it the game stops with E011. None: no limit.
        `engine`: "compiled" or "tree" (`ENGINES`; None: `DEFAULT_ENGINE`)."""
        engine = engine or DEFAULT_ENGINE
        if engine not in ENGINES:
            raise CglError(Diagnostic("E007", f"there is no engine `{engine}`: {' or '.join(ENGINES)}"))
        g = ruleset.game
        if players is None:
            players = g.min_players
        if not g.min_players <= players <= g.max_players:
            span = g.span
            rng = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
            raise CglError(Diagnostic("E014", f"{g.title} is for {rng} players, not {players}", span))
        self.ruleset = ruleset
        self.seed = seed
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise CglError(Diagnostic("E007", f"the budget of steps must be a whole number of at least 1, "
                                      f"not {max_steps!r}"))
        self.engine_kind = engine
        self.engine = make_engine(ruleset, players, seed, check_invariants, max_steps, engine)
        # record=False keeps no transcript (simulations): the same game, an empty log
        self.engine.record = record
        self.decks = dict(decks or {})       # seat (0-based) -> deck list file
        for seat in self.decks:
            if not 0 <= seat < players:
                raise CglError(Diagnostic("E007", f"a deck list for seat {seat + 1}, but the game has seats "
                                          f"1 to {players}"))
        if ruleset.deck is not None:
            from .decks import attach_decks
            attach_decks(self.engine, self.decks)
        elif self.decks:
            raise CglError(Diagnostic("E007", f"{g.title} takes no deck lists (its ruleset has no `deck` block)"))
        self.answers: list = []
        # per answer given inside `simultaneously`: (its seat, the block's number), else None
        self.secret_by: list = []
        # the seat that gave each answer (a seat's own count numbers its decisions: `cgl serve`)
        self.answered_by: list = []
        self.pending: Optional[Decision] = None
        self._gen = None
        self._start_args = (None, None, False, None)
        # where the current turn, or its current phase, began: (the engine's snapshot, seat,
        # why, answers given, phase), kept when `forkable` so that `fork` costs a phase of a
        # turn, not the whole game
        self._snap: Optional[tuple] = None
        self._resuming = False
        if forkable:
            self.engine.snap = _weak(self, "_snapshot")
            self.engine.state.known = [set() for _ in range(players)]

    @property
    def state(self):
        return self.engine.state

    @property
    def players(self) -> int:
        return self.engine.n

    def start(self, start_turn: Optional[int] = None, max_turns: Optional[int] = None, start_round: bool = False,
              to_end: Optional[bool] = None) -> Optional[Decision]:
        """Run until the first decision (returned) or the end of the game (None). The
        arguments start a scenario from a prepared position (see `Engine.play`)."""
        self._start_args = (start_turn, max_turns, start_round, to_end)
        self._gen = self.engine.play(start_turn, max_turns, start_round, to_end)
        return self._advance(None, first=True)

    def answer(self, answer) -> Optional[Decision]:
        """Answer the pending decision; run to the next one (returned) or the end (None).

        A bad answer raises :class:`AnswerError` and leaves the game where it was.
        """
        d = self.pending
        if d is None:
            raise AnswerError("the game is not waiting for a decision")
        if d.kind == "may":
            if not isinstance(answer, bool):
                raise AnswerError("answer yes or no")
        elif type(answer) is int and 0 <= answer < len(d.options) and d.lo <= 1 <= d.hi:
            # the usual answer, one option's index, checked here as validate_answer would, and
            # remembered, so that the engine need not check it again (`Statements.c_took`)
            self.engine._validated = d
        else:
            self.engine.validate_answer(d, answer)   # (a bad answer raises here, the game unmoved)
        self.answers.append(answer)
        self.secret_by.append((d.player, self.engine.state.simul_no) if d.secret else None)
        self.answered_by.append(d.player)
        return self._advance(answer)

    def _advance(self, answer, first=False) -> Optional[Decision]:
        try:
            d = next(self._gen) if first else self._gen.send(answer)
        except StopIteration:
            self.pending = None
            return None
        finally:
            # (read by the engine as it took the answer; kept, it would hold the decision,
            # which holds the engine: a cycle that outlives a dropped fork)
            self.engine._validated = None
        self.pending = d
        if self.engine.state.known is not None:   # (before the first turn, a fork replays the setup)
            d._sampler = partial(_sample, weakref.ref(self), d.player)
        return d

    def _snapshot(self, seat: int, why: str, phase: int = 0) -> None:
        if self._resuming:   # a fork's first turn: it began where the snapshot it came from was kept
            self._resuming = False
            return
        self._snap = (self.engine.snapshot(), seat, why, len(self.answers), phase)

    def fork(self, forkable: Optional[bool] = None, unseen_by: Optional[tuple] = None) -> "Game":
        """An independent game at the same point, ready to take a different answer; it
        goes on exactly as this game would for the same answers (its log, its dice).
        `forkable=False` makes a fork that keeps no snapshots and follows no knowledge
        (a playout's: cheaper); by default the fork is forkable as this game is.

        The engine is a running program, so a fork replays answers: in a `forkable` game,
        only those of the current phase of the turn, from a copy of the state kept where
        it began (the turn's start, or a later phase's); otherwise the whole game from its
        seed. Either is exact, because everything random comes from the seeded state.
        `unseen_by=(seat, rng)`: the answers other seats gave inside the `simultaneously`
        still open, which `seat` has not seen, are replayed as random legal answers drawn
        from `rng` (what `determinised` imagines).
        """
        return self._fork(forkable, unseen_by)

    def _fork(self, forkable: Optional[bool], unseen_by: Optional[tuple], world: bool = False,
              log: bool = True) -> "Game":
        """`fork`; `world`: for `determinised`, which deals the fork's random source anew (its
        state a world's copy, `State.world_copy`, with its log when `log`)."""
        if forkable is None:
            forkable = self.engine.snap is not None
        snap = self._snap
        if snap is None or self._start_args != (None, None, False, None):
            twin = Game(self.ruleset, self.players, self.seed, self.engine.check, self.decks, self.engine.record,
                        forkable=forkable, max_steps=self.engine.max_steps, engine=self.engine_kind)
            twin.start(*self._start_args)
            twin._replay(self.answers, self._unseen(0, unseen_by))
            return twin
        kept, seat, why, given, phase = snap
        twin = Game.__new__(Game)
        twin.ruleset, twin.seed, twin.decks, twin.engine_kind = self.ruleset, self.seed, self.decks, self.engine_kind
        eng = twin.engine = self.engine.clone(kept, world, log)
        twin._snap = snap          # never changed: a fork of the fork copies it again
        twin._resuming = not phase      # (a phase's resumed fork meets no snapshot of its own first)
        eng.snap = _weak(twin, "_snapshot") if forkable else None
        if not forkable:
            eng.state.known = None   # (a world's copy has none)
        twin._start_args = self._start_args
        twin.answers, twin.secret_by = self.answers[:given], self.secret_by[:given]
        twin.answered_by = self.answered_by[:given]
        twin.pending = None
        twin._gen = eng.play(resume=(seat, why, phase))
        twin._advance(None, first=True)
        twin._replay(self.answers[given:], self._unseen(given, unseen_by))
        if not forkable:
            twin._snap = None
        return twin

    def _unseen(self, first: int, unseen_by) -> tuple:
        """(the indices, from answer `first` on, of the answers other seats gave inside the
        `simultaneously` still open, which `unseen_by[0]` has not seen; a random agent
        drawing from `unseen_by[1]`), or ((), None)."""
        if unseen_by is None or self.pending is None or not self.pending.secret:
            return (), None
        seat, rng = unseen_by
        block, by = self.engine.state.simul_no, self.secret_by
        hidden, i = set(), len(by)
        while i > first and by[i - 1] is not None and by[i - 1][1] == block:   # the open block's answers
            i -= 1
            if by[i][0] != seat:
                hidden.add(i - first)
        guesser = RandomAgent(seat, 0)
        guesser.rng = rng
        return hidden, guesser

    def _replay(self, answers, unseen) -> None:
        hidden, guesser = unseen
        for k, a in enumerate(answers):
            self.answer(guesser.decide(self.pending) if k in hidden else a)

    def determinised(self, seat: int, rng: random.Random, record: bool = False) -> "Game":
        """A fork in which what player `seat` cannot see is dealt anew: the cards in zones
        hidden from it whose place it does not know (`State.known`) are shuffled among the
        places such cards fill (each zone keeps its size; a known card keeps its place), and
        the random source is seeded from `rng`. It reads nothing the seat may not see but
        which cards those are and where the gaps are, so two games that differ only in
        hidden cards give the same game for the same `rng`; the answers other seats gave
        inside a `simultaneously` still open are imagined anew too (`fork(unseen_by=…)`).
        The decision pending here is pending there; the cards its options name (a card
        offered, the card an action is on: `_named_cards`) keep their places. Needs a `forkable` game (that
        follows what each seat knows). The fork keeps no log unless `record`, takes no
        snapshots and follows no knowledge: a world for a search to play out."""
        if self.state.known is None:
            raise ValueError("determinised() needs a Game(..., forkable=True)")
        twin = self._fork(False, (seat, rng), world=True, log=record)
        eng, st = twin.engine, twin.state
        zones, where = st.zones, st.where
        places, pool, ordered = self._places_to_deal(eng, zones, seat)
        # (what a seat was shown at a place, `State.shown`, stays with the place: the card
        # imagined there is the one it saw)
        shown = st.shown
        marks = [shown.pop(cid, _UNSHOWN) for cid in pool] if shown else None
        pool = ordered[:]
        shuffled(pool, rng)
        at = 0
        for key, free in places:
            ids = zones[key]
            if free is None:
                n = len(ids)
                ids[:] = dealt = pool[at:at + n]
                at += n
                for cid in dealt:
                    where[cid] = key
            else:
                for i in free:
                    ids[i] = cid = pool[at]
                    at += 1
                    where[cid] = key
        if marks is not None:
            dealt_order = [cid for key, free in places
                           for cid in (zones[key] if free is None else [zones[key][i] for i in free])]
            for cid, mark in zip(dealt_order, marks):
                if mark is not _UNSHOWN:
                    shown[cid] = mark
        st.rng = seeded_random(rng.getrandbits(64))
        # (the cached derived properties hold, a card's own data and variables going with
        # it, except those that read where it lies)
        for cid in pool if eng.place_derives else ():
            eng.forget_place(cid)
        eng.record = record
        if not record:
            st.log = []
        return twin

    def _places_to_deal(self, eng, zones: dict, seat: int) -> tuple:
        """For `determinised`, on a world's `zones` (its engine `eng`): the places to fill, in
        zone key order then place order, as (key, None) for a whole zone where `seat` knows
        none of the cards, else (key, the indices of those it does not know); the cards
        there, in that order; and the same sorted. A search's worlds of one decision replay
        the same answers from the same snapshot and find the same zones: the answer is kept
        for the decision pending (`_deal`) and given again while the world's hidden zones
        hold the same cards (compared, not assumed; none kept where the replay imagines other
        seats' answers in a `simultaneously`, or a zone under a card may be hidden)."""
        d = self.pending
        kept = self._deal
        if kept is not None and kept[0] is d and kept[1] == seat and zones.keys() == kept[2]:
            for key, ids in kept[3]:
                if zones[key] != ids:
                    break
            else:
                return kept[4]
        known = self.state.known[seat]
        shown = _named_cards(d)
        places, pool, held = [], [], []
        for key in eng.hidden_keys(zones, seat):
            ids = zones[key]
            held.append((key, ids[:]))
            if known.isdisjoint(ids) and (not shown or shown.isdisjoint(ids)):
                places.append((key, None))
                pool += ids
            else:
                free = [i for i, cid in enumerate(ids) if cid not in known and cid not in shown]
                if free:
                    places.append((key, free))
                    pool += [ids[i] for i in free]
        found = (places, pool, sorted(pool))
        keep = d is not None and not d.secret and not any("@" in key for key, _ in held)
        self._deal = (d, seat, set(zones), held, found) if keep else None
        return found

    def view(self, seat: Optional[int], since: Optional[int] = None, everything: bool = False) -> dict:
        """What player `seat` (0-based; None: a spectator) may know now, as JSON data, with
        the pending decision as that seat may see it: the one seat view every table, bot
        and browser shows (`docs/view.md`). `since`: the first log step to include (None:
        the last few entries), a step as the view numbers the lines the seat reads (`log_steps`);
        `everything`: the designer's omniscient view, its log numbered over the whole log."""
        return seat_view(self.engine, seat, since, self.pending, everything)

    def log_steps(self, seat: Optional[int], everything: bool = False) -> int:
        """How many log lines `seat` may read so far (the designer, `everything`: the whole
        log's), which is the `step` its next line will have: `view(seat, since=log_steps(seat))`
        holds no line yet."""
        return len(self.state.log) if everything else len(readable(self.engine, seat))

    @property
    def over(self) -> bool:
        return self.state.finished or (self._gen is not None and self.pending is None)

    @property
    def result(self) -> Result:
        st = self.state
        return Result(
            winners=[w + 1 for w in (st.winners or [])], reason=st.end_reason or "unfinished",
            players=[{k: plain(v) for k, v in pv.items()} for pv in st.player_vars],
            rounds=st.round_no, turns=st.stats.get("turns", 0), steps=st.steps, log=st.log,
            stats=dict(st.stats), decisions=len(self.answers))


_UNSHOWN = object()   # (a place whose card no seat was shown: `determinised`)


def shuffled(ids: list, rng: random.Random) -> None:
    """`rng.shuffle(ids)`: the same order from the same draws (Fisher-Yates from the top,
    each place's pick drawn as `Random._randbelow` draws it: the fewest bits that hold it,
    drawn again while too large), in one loop without a call per card: a world's hidden
    cards (about 160 in MGT) are shuffled once per search iteration."""
    getrandbits = rng.getrandbits
    for i in range(len(ids) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        ids[i], ids[j] = ids[j], ids[i]


def _named_cards(d) -> set:
    """The ids of the cards decision `d`'s options name: a card offered, or the card an
    action is on ("Play Guard"). The suspended rules hold them, and act on them when
    answered: `determinised` keeps them where they lie (an empty set when nothing is pending)."""
    if d is None:
        return set()
    out = set()
    for o in d.options:
        if not hasattr(o, "props"):
            o = getattr(o, "value", None)   # an action on a card
        if hasattr(o, "props"):
            out.add(o.id)
    return out


def _weak(obj, method: str):
    """`obj.method`, called through a weak reference: an engine calls its game back (`snap`)
    without the two holding each other alive, so a dropped fork is freed at once."""
    ref = weakref.ref(obj)
    return lambda *args: getattr(ref(), method)(*args)


def _sample(ref, seat: int, rng):
    """`Decision.sample` of a forkable game's decision: the game is held weakly (it holds the
    decision), so a dropped game and its decision are freed at once."""
    game = ref()
    if game is None:
        raise ValueError("this decision's game is gone: keep the Game to sample worlds from its decisions")
    return game.determinised(seat, rng)


def play(ruleset, players: Optional[int] = None, seed: int = 0, agents=None, check_invariants: bool = False,
         max_decisions: int = 1_000_000, listener=None, decks: Optional[dict] = None, record: bool = True,
         max_steps: Optional[int] = DEFAULT_MAX_STEPS, engine: Optional[str] = None) -> Game:
    """Play a whole game. `agents` is a list (one per seat) of agents or agent names;
    `record=False` keeps no transcript (the game is the same; its log stays empty);
    `max_steps` is the game's budget of steps, `engine` the engine it is played on (see `Game`)."""
    n = ruleset.game.min_players if players is None else players
    if agents is None:
        agents = ["random"] * n
    elif len(agents) < n:
        agents = list(agents) + [agents[-1]] * (n - len(agents))
    game = Game(ruleset, players, seed, check_invariants, decks, record, forkable=needs_worlds(agents),
                max_steps=max_steps, engine=engine)
    made = [make_agent(a, i, seed) if isinstance(a, str) else a for i, a in enumerate(agents)]
    if listener is not None:
        game.engine.listeners.append(listener)
    d = game.start()
    count = 0
    while d is not None:
        count += 1
        if count > max_decisions:
            raise CglError(Diagnostic("E011", f"the game asked more than {max_decisions} decisions without ending"))
        d = game.answer(made[d.player].decide(d))
    return game
