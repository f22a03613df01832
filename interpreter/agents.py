"""The bots: agents that answer decisions, and the agent specs that name them.

An agent spec is a name, optionally with a budget after a colon: `random`, `greedy`,
`mcts:200` (200 iterations per decision). `cgl run --agents`, `cgl simulate --agents`
and batch specs all take specs, so one text names the same bot everywhere, and a bot is
made the same way for a seat and a game seed wherever it plays (the same games on any
number of workers).
"""
from __future__ import annotations

import random
from typing import Callable, Optional, Sequence

from .diagnostics import CglError, Diagnostic
from .protocol import AnswerError, Decision


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
        keyed = sorted(range(n), key=lambda i: (-_score(scores[i]), self.rng.random()))
        if d.hi == 1:
            return keyed[0]
        return sorted(keyed[:max(d.lo, 1)])


def _score(v) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    return 0.0




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


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent}
AGENT_HELP = {
    "random": "picks uniformly among the legal answers",
    "greedy": "follows the ruleset's `prefer` hints",
}


def parse_agent(spec: str) -> tuple:
    """(name, budget or None) of an agent spec; a CglError that says what is wrong."""
    text = spec.strip()
    name, sep, budget = text.partition(":")
    name = name.strip().lower()
    if name not in AGENTS:
        from .diagnostics import did_you_mean
        hint = did_you_mean(name, AGENTS) or f"the agents are {', '.join(sorted(AGENTS))}"
        raise CglError(Diagnostic("E007", f"unknown agent `{text}`", hint=hint))
    cls = AGENTS[name]
    if not sep:
        return name, None
    if not getattr(cls, "budgeted", False):
        raise CglError(Diagnostic("E007", f"the agent `{name}` takes no budget (`{text}`)",
                                  hint=f"write `{name}`"))
    return name, cls.parse_budget(budget.strip(), text)


def agent_spec(spec: str) -> str:
    """The spec in its one canonical spelling (`MCTS: 200` -> `mcts:200`), checked."""
    name, budget = parse_agent(spec)
    return name if budget is None else f"{name}:{AGENTS[name].show_budget(budget)}"


def make_agent(spec: str, seat: int, seed: int) -> Agent:
    """The bot a spec names, for `seat` (0-based) in the game of `seed`."""
    name, budget = parse_agent(spec)
    cls = AGENTS[name]
    return cls(seat, seed) if budget is None else cls(seat, seed, budget)
