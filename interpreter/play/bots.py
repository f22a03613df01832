"""The simple bots: the agent base class, `random`, `greedy`, and scripted answers (the
search bot is in mcts.py; agents.py names them all by spec)."""
from __future__ import annotations

import random
from typing import Callable, Optional, Sequence

from ..base.protocol import AnswerError, Decision


class Agent:
    """Something that answers decisions. Agents see only `decision.view()`."""

    name = "agent"

    def __init__(self, seat: int, seed: int):
        self.seat = seat
        self.rng = random.Random(f"cgl-agent:{self.name}:{seed}:{seat}")

    def decide(self, d: Decision):
        raise NotImplementedError

    def state(self) -> dict:
        """What this bot needs to go on as if never stopped, as JSON-ready data (a saved game
        keeps it). A bot that remembers more than its random generator adds its own keys."""
        version, internal, gauss = self.rng.getstate()
        return {"rng": [version, list(internal), gauss]}

    def restore(self, state: dict) -> None:
        """Take back a :meth:`state`; a state of the wrong shape raises ValueError."""
        try:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"not the state of a `{self.name}` bot ({e.__class__.__name__}: {e})") from None


class RandomAgent(Agent):
    """Picks uniformly among the legal answers; says yes to a `may` half the time."""

    name = "random"

    def decide(self, d: Decision):
        if d.kind == "may":
            return self.rng.random() < 0.5
        if d.optional and self.rng.random() < 0.25:
            return None
        n = len(d.options)
        if d.hi == 1 and d.lo <= 1 and n > 0:
            # randrange(n) is _randbelow(n) after checking its argument: the same numbers
            return self.rng._randbelow(n)
        k = self.rng.randint(max(d.lo, 1), d.hi) if d.hi > 1 else 1
        return sorted(self.rng.sample(range(n), k))


class GreedyAgent(Agent):
    """Follows the ruleset's `prefer` hints: takes the best-scored options, says yes to
    every `may`, accepts optional choices, and falls back to random where no hint is given."""

    name = "greedy"

    def decide(self, d: Decision):
        if d.kind == "may":
            return True
        scores = d.scores()
        n = len(d.options)
        if scores is None:
            if d.hi == 1:
                return self.rng.randrange(n)
            return list(range(max(d.lo, 1)))
        # each option's key: its score, best first, then a random draw (one per option, in
        # order); the first of equal keys wins, as a stable sort would pick it
        rand = self.rng.random
        # (a score is a number, a bool too, as a float; anything else is 0)
        keys = [(-float(s) if isinstance(s := scores[i], (int, float)) else -0.0, rand()) for i in range(n)]
        if d.hi == 1:
            return keys.index(min(keys))
        return sorted(sorted(range(n), key=keys.__getitem__)[:max(d.lo, 1)])




class ScriptedAgent:
    """Answers from a list (used by scenarios and replays); falls back to `fallback` when out."""

    def __init__(self, answers: Sequence, fallback: Optional[Callable] = None):
        self.answers = list(answers)
        self.fallback = fallback

    def decide(self, d: Decision):
        if self.answers:
            return self.answers.pop(0)
        if self.fallback:
            return self.fallback(d)
        raise AnswerError(f"the script has no answer left for: {d.describe()}")
