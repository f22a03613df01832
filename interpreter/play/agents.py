"""The bots: agents that answer decisions, and the agent specs that name them.

An agent spec is a name, optionally with a budget after a colon: `random`, `greedy`,
`mcts:200` (200 iterations per decision). `cgl run --agents`, `cgl simulate --agents`
and batch specs all take specs, so one text names the same bot everywhere, and a bot is
made the same way for a seat and a game seed wherever it plays (the same games on any
number of workers).
"""
from __future__ import annotations

from .bots import Agent, GreedyAgent, RandomAgent, ScriptedAgent  # noqa: F401 (the agents, named here)
from ..base.diagnostics import CglError, Diagnostic
from .mcts import MctsAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MctsAgent}
AGENT_HELP = {
    "random": "picks uniformly among the legal answers",
    "greedy": "follows the ruleset's `prefer` hints",
    "mcts": ("searches imagined games (ISMCTS): mcts:N iterations per decision (default 200) "
             "or mcts:Ns seconds; greedy playouts, mcts:N:random for random ones"),
}


def needs_worlds(specs) -> bool:
    """Whether any of these agent specs searches imagined games (`Decision.sample`): the
    game must then be made `forkable`."""
    return any(getattr(AGENTS[parse_agent(s)[0]], "needs_worlds", False) for s in specs if isinstance(s, str)) \
        or any(getattr(s, "needs_worlds", False) for s in specs if not isinstance(s, str))


def parse_agent(spec: str) -> tuple:
    """(name, budget or None) of an agent spec; a CglError that says what is wrong."""
    text = spec.strip()
    name, sep, budget = text.partition(":")
    name = name.strip().lower()
    if name not in AGENTS:
        from ..base.diagnostics import did_you_mean
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
