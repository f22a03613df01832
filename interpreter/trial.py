"""Trials: `possible(PROC(args))`, whether a procedure could change the game if it ran now;
a mixin of :class:`~cgl.interpreter.engine.Engine`, for both engines.

"A card whose effect is impossible cannot be played" is one precondition written once,
`action play(c in hand(actor)) when possible(card_effect(actor, c)) { … }`, instead of a
row per card. The engine runs the procedure on a copy of the state, out of sight (nothing
is logged, no listener hears it, no player is asked), answering its decisions itself: the
first option, and then, depth first, the others (yes before no), until one way through
changes the game — a card moves (the trial stops there), or it ends with a variable, who
is out or the turn order changed — or ends the turn or the game. `possible` is false when no way through changes anything (every choice
it needs has nothing to choose from, every draw finds an empty stock …). The real game is
untouched: its state, random source, scripted dice and caches are as before the trial.
Limits: `MAX_TRIALS` ways through per `possible` (past it, it counts as possible: better to
offer a card that may fizzle than to forbid one that works), and no trial inside a trial
(a `possible` met while trying counts as true).
"""
from __future__ import annotations

from .compiler import Env
from .protocol import _EndScope, _GameOver, _TrialMoved

MAX_TRIALS = 32          # ways through one procedure, before `possible` gives it the benefit of the doubt
MAX_ALTERNATIVES = 8     # other options tried at one decision


class Trials:
    """`possible` (see the module doc); the engine's `trying` is true while one runs."""

    def possible(self, e, args) -> bool:
        """`possible(P(args))`: could procedure P, run now with these arguments, change the game?"""
        if self.trying:
            return True
        proc = self.rs.procedures[e.call.name]
        if len(args) != len(proc.params):
            raise self.fail(e, f"`{proc.name}` takes {len(proc.params)} argument(s), not {len(args)}")
        base = self.state
        saved = {k: getattr(self, k) for k in _TRANSIENT}
        saved_chain = list(self.event_chain)
        self.trying, self.record, self.listeners = True, False, []
        try:
            todo = [()]
            for _ in range(MAX_TRIALS):
                if not todo:
                    return False
                done, more = self._try(proc, args, todo.pop(), base, saved, saved_chain)
                if done:
                    return True
                todo.extend(reversed(more))   # depth first: the first alternatives first
            return True
        finally:
            self.state = base
            for k, v in saved.items():
                setattr(self, k, v)
            self.event_chain = saved_chain
            self.trying = False
            self.forget_all()   # derived values cached while trying read the trial's state

    def _try(self, proc, args, path: tuple, base, saved, chain):
        """One way through: the answers of `path`, then first options. (whether it changed
        the game, the paths that answer one later decision otherwise)."""
        trial = self.state = _trial_copy(base)
        self.forced_dice, self.forced_random = list(saved["forced_dice"]), list(saved["forced_random"])
        self.event_chain = list(chain)
        self.deferred, self.holding, self.quiet_moves = None, 0, 0
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
        except (_TrialMoved, _GameOver, _EndScope):
            return True, []
        finally:
            gen.close()
        return _position(trial) != _position(base), more


#: Engine attributes a trial changes and gives back.
_TRANSIENT = ("record", "listeners", "forced_dice", "forced_random", "holding", "deferred", "secret_depth", "simul_no",
              "quiet_moves", "_validated", "changes", "_settled")


def _answers(d):
    """A decision's first answer while trying, and the other answers to try after it."""
    if d.kind == "may":
        return True, [False]
    n = len(d.options)
    if d.lo <= 1 <= d.hi:
        return 0, list(range(1, min(n, 1 + MAX_ALTERNATIVES)))
    return list(range(d.lo)), []


def _trial_copy(st):
    """A copy of the state to try things on (the log left out: a trial writes none)."""
    return st.copy(log=False)


def _position(st) -> tuple:
    """What a trial compares: where the cards are, the variables, who is out, the turn order
    (not the log, the counters or the random source)."""
    return ({k: v for k, v in st.zones.items() if v}, st.card_vars, st.player_vars, st.globals, st.out,
            st.finished, st.next_player, st.first_player, st.extra_turns, st.first_extra_turns, st.direction)
