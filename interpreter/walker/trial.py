"""Trials: `possible(PROC(args))`, whether a procedure could change the game if it ran now;
a mixin of :class:`~cgl.interpreter.walker.engine.Engine`, for both engines.

"A card whose effect is impossible cannot be played" is one precondition written once,
`action play(c in hand(actor)) when possible(card_effect(actor, c)) { … }`, instead of a
row per card. The engine runs the procedure on a copy of the state, out of sight (nothing
is logged, no listener hears it, no player is asked), answering its decisions itself: the
first option, and then, depth first, the others (yes before no), until one way through
changes the game — a card moves (the trial stops there), or it ends with a variable, who
is out or the turn order changed — or ends the turn or the game. `possible` is false when no way through changes anything (every choice
it needs has nothing to choose from, every draw finds an empty stock …). The real game is
untouched: its state (random source and scripted dice included) is never tried on, only
copies of it (`State.trial_copy`, which shares with it what a trial does not change), and
the caches are as before the trial.
A procedure that may run a required part (`require { … }`, itself or through the
procedures it calls: `Facts.requiring`) is asked about that part instead: a way through
goes on past moves, on its own zones' lists, to the end of the first required part it
meets, and counts when that part was done in full; a way through that meets none counts
when it changed the game, as above.
Limits: `MAX_TRIALS` ways through per `possible` (past it, it counts as possible: better to
offer a card that may fizzle than to forbid one that works), and no trial inside a trial
(a `possible` met while trying counts as true).
"""
from __future__ import annotations

from .compiler import Env
from ..base.protocol import _EndScope, _GameOver, _TrialMoved, _TrialRequired
from ..check.resolver import facts

MAX_TRIALS = 32          # ways through one procedure, before `possible` gives it the benefit of the doubt
MAX_ALTERNATIVES = 8     # other options tried at one decision


class Trials:
    """`possible` (see the module doc); a trial's state is marked `trying`."""

    _trial_level = -1   # the event chain's length where the procedure tried runs (its required part ends there)

    def possible(self, e, args) -> bool:
        """`possible(P(args))`: could procedure P, run now with these arguments, change the game?"""
        if self.state.trying:
            return True
        if self.hint_seat is not None:   # inside a hint: the procedure is tried as rules
            return self.unwatched(self.possible, e, args)
        proc = self.rs.procedures[e.call.name]
        if len(args) != len(proc.params):
            raise self.fail(e, f"`{proc.name}` takes {len(proc.params)} argument(s), not {len(args)}")
        base = self.state
        # the observers: nothing of a trial is logged or heard
        record, listeners = self.record, self.listeners
        self.record, self.listeners = False, []
        # the derived values cached for the game's state: each way through starts from them
        # (they hold for its copy), and the game gets them back
        kept = self._derived_copy()
        try:
            todo = [()]
            through = proc.name in facts(self.rs).requiring
            for k in range(MAX_TRIALS):
                if not todo:
                    return False
                if k:
                    self.derived_put_back(kept)   # (the last way through cached what its state made)
                done, more = self._try(proc, args, todo.pop(), base, through)
                if done:
                    return True
                todo.extend(reversed(more))   # depth first: the first alternatives first
            return True
        finally:
            self.state = base   # the game's own state, untouched: everything tried was on copies
            self._trial_level = -1
            self.record, self.listeners = record, listeners
            self.derived_put_back(kept)   # those cached while trying read a trial's state

    def _try(self, proc, args, path: tuple, base, through: bool = False):
        """One way through: the answers of `path`, then first options. (whether it changed
        the game, or did its required part in full when `through`; the paths that answer
        one later decision otherwise)."""
        trial = self.state = _trial_copy(base)
        self._trial_level = -1
        if through:   # past moves: the trial's own zones' lists
            trial.trial_through = True
            trial.zones = {k: v[:] for k, v in trial.zones.items()}
            self._trial_level = len(trial.event_chain)
        gen = self.run_block(proc.body, Env(dict(zip(proc.params, args))))
        answers: list = []
        more: list = []
        try:
            d = next(gen)
            while True:
                if len(answers) < len(path):
                    a = path[len(answers)]
                else:
                    a, others = _answers(d)
                    more += [tuple(answers) + (x,) for x in others]
                answers.append(a)
                d = gen.send(a)
        except StopIteration:
            pass
        except _TrialRequired as r:
            return r.done, more
        except (_TrialMoved, _GameOver, _EndScope):
            return True, []
        finally:
            gen.close()
        return _position(trial) != _position(base), more


def _answers(d):
    """A decision's first answer while trying, and the other answers to try after it."""
    if d.kind == "may":
        return True, [False]
    n = len(d.options)
    if d.lo <= 1 <= d.hi:
        return 0, list(range(1, min(n, 1 + MAX_ALTERNATIVES)))
    return list(range(d.lo)), []


def _trial_copy(st):
    """A copy of the state to try things on (`State.trial_copy`: the log left out, what a
    trial does not change shared), marked `trying`, with no `then` block, bulk move or
    `simultaneously` or required part open (the procedure runs on its own)."""
    trial = st.trial_copy()
    trial.trying = True
    trial.deferred, trial.holding, trial.quiet_moves = None, 0, 0
    trial.require_depth = -1   # (a required part open in the game is not the trial's)
    return trial


def _position(st) -> tuple:
    """What a trial compares: where the cards are, the variables, who is out, the turn order
    (not the log, the counters or the random source)."""
    return ({k: v for k, v in st.zones.items() if v}, st.card_vars, st.player_vars, st.globals, st.out,
            st.finished, st.next_player, st.first_player, st.extra_turns, st.first_extra_turns, st.direction)
