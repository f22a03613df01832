"""The `mcts` bot: information-set Monte Carlo tree search over determinised games.

    cgl run mgt --agents mcts:200,greedy,greedy,greedy
    cgl simulate unicorns -n 200 -p 2 --skill mcts:200,greedy

At each decision with more than one answer the bot runs a budget of iterations
(`mcts:200`, 200 of them; or `mcts:2s`, as many as two seconds allow, which is not
reproducible). Each iteration asks the decision for a world (`Decision.sample`: the game
as this seat may imagine it, what it cannot see dealt anew, `Game.determinised`) and
walks one tree shared by all worlds (single-observer ISMCTS, Cowling, Powley and
Whitehouse 2012): at each decision, of any player, an answer not yet tried is tried;
once all have been, the one with the best upper confidence bound (UCB1, counting only
the iterations in which that answer was available) is taken. From the new node the world
is played out by a cheap policy (`greedy`, the ruleset's `prefer` hints, or `random`
after a third colon part: `mcts:200:random`) until the game ends, the round it was in
ends, or `PLAYOUT_DECISIONS` decisions have been answered; the result is scored for every player and added up the
path, each node counting it for the player who chose its answer. The answer tried most
often at the root is given; with an iteration budget the search stops early once the
iterations left could not make another answer the one tried most (the same answer, sooner).

Scores: a finished game gives each winner 1/winners and the others 0. A cut playout is
scored from the ruleset's `estimate p: …` (how well player p stands, bigger is better)
or, without one, its `points` player variable: each player by how much more its estimate
gained since the iteration's world began than the best of the others' did, on the scale
of such leads so far in the search (their running mean), squashed into (0, 1) by tanh.
Gains, not standings: a lead of many points from earlier rounds would squash every
answer's score alike and leave the search blind to what a move gains now. A ruleset
with neither scores cut playouts as a draw.
Where the ruleset gives `prefer` hints, answers are tried best first and the hint adds a
bonus that fades as the answer is tried (progressive bias): with few iterations the bot
plays as `greedy` does, and searching moves it away only where the playouts say so.

Answers are told apart by how they read (a card's name, a player's, an action's label),
so an answer means the same in every world; identical options (two copies of a card)
are one answer. A choice of several options at once tries a handful of candidate sets.
The bot reads nothing its seat may not see: it searches only worlds `sample` gives. A
world is dealt anew where the game stands, while a rule may be running and hold a card
it looked at; a world in which that makes the rules stop with an error counts as a draw. In a
game that cannot be sampled (`Game` not `forkable`) it plays as `greedy`. Deterministic
for a seed with an iteration budget. No game-specific code: every ruleset can use it.
"""
from __future__ import annotations

import math
import random
import time
from typing import Optional

from .bots import Agent, GreedyAgent, RandomAgent
from ..base.diagnostics import CglError, Diagnostic
from ..base.protocol import AnswerError

# How the bot plays, as a number to bump whenever a change alters its answers: a kept skill
# study (benchmarks/skill.py --keep) names it, so games of two versions never mix.
# 2 (2026-11-24): cut playouts scored by gains since the world began, not by standings.
# 3 (the same day): its worlds no longer replay what others chose in a `simultaneously`
#   still open (Game.fork(unseen_by=…)): revision 2 saw the other hand at MGT's
#   rock-paper-scissors (one study game reached 2,568 three-way decisions, tie after tie).
REVISION = 3
PLAYOUT_DECISIONS = 8       # decisions a playout answers before it is cut and scored
UCB_C = 0.7                 # exploration: rewards lie in [0, 1]
BIAS_W = 3.0                # weight of the ruleset's `prefer` hints, fading as an answer is tried
MULTI_CANDIDATES = 6        # answers tried for a choice of several options at once
POLICIES = ("random", "greedy")


class _Node:
    __slots__ = ("children", "visits", "total", "avail", "player", "bias")

    def __init__(self, player: int = -1, bias: float = 0.0):
        self.children: dict = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1
        self.player = player     # who chose the answer leading here (its reward is counted)
        self.bias = bias         # the ruleset's `prefer` for this answer, in [0, 1] (progressive bias)


class MctsAgent(Agent):
    """Information-set MCTS (see the module doc)."""

    name = "mcts"
    budgeted = True
    needs_worlds = True
    stop_when_settled = True     # end a search that more iterations could not change (see `_settled`)

    def __init__(self, seat: int, seed: int, budget=None):
        super().__init__(seat, seed)
        kind, amount, policy = budget or ("iterations", 200, "greedy")
        self.kind, self.amount, self.policy = kind, amount, policy
        self.fallback = GreedyAgent(seat, seed)
        self.fallback.rng = self.rng        # one random source: `state` saves it all
        self.playout_agents: dict = {}
        self.iterations = 0      # done so far, over all decisions (for reports)
        self._leads = [0.0, 0]
        self.broken = 0          # of them, in worlds that stopped with a rules error

    # ------------------------------------------------------------ specs
    @staticmethod
    def parse_budget(text: str, spec: str):
        """`200` iterations, `2s` / `0.5s` seconds; then `:greedy` (the default) or `:random` playouts."""
        budget, _, policy = text.partition(":")
        policy = (policy or "greedy").strip().lower()
        if policy not in POLICIES:
            raise CglError(Diagnostic("E007", f"`{policy}` is not a playout policy (`{spec}`)",
                                      hint="write mcts:N:random or mcts:N:greedy"))
        budget = budget.strip().lower()
        try:
            if budget.endswith("s"):
                seconds = float(budget[:-1])
                if not 0 < seconds <= 3600:
                    raise ValueError
                return ("seconds", seconds, policy)
            n = int(budget)
            if not 1 <= n <= 1_000_000:
                raise ValueError
            return ("iterations", n, policy)
        except ValueError:
            raise CglError(Diagnostic("E007", f"`{budget}` is not a budget (`{spec}`)",
                                      hint="iterations per decision, 1 to 1000000 (mcts:200), "
                                           "or seconds (mcts:2s)")) from None

    @staticmethod
    def show_budget(budget) -> str:
        kind, amount, policy = budget
        text = f"{amount:g}s" if kind == "seconds" else str(amount)
        return text if policy == "greedy" else f"{text}:{policy}"

    # ------------------------------------------------------------ deciding
    def decide(self, d):
        actions = _actions(d, self.rng)
        if len(actions) == 1:
            return actions[0][1]
        world = d.sample(self.rng)
        if world is None:
            return self.fallback.decide(d)
        root = _Node()
        self._leads = [0.0, 0]       # the cut playouts' leads so far in this search: sum, count
        deadline = time.perf_counter() + self.amount if self.kind == "seconds" else None
        n = 0
        while True:
            self._iterate(root, world)
            n += 1
            if deadline is None:
                if n >= self.amount or (self.stop_when_settled and _settled(root, self.amount - n)):
                    break
            elif time.perf_counter() >= deadline:
                break
            world = d.sample(self.rng)
        self.iterations += n
        best = max(actions, key=lambda a: _rank(root.children.get(a[0])))
        return best[1]

    def _iterate(self, root: _Node, game) -> None:
        path: list = []
        try:
            rewards = self._walk(root, game, path, game.engine.estimates())
        except (CglError, AnswerError):
            # An imagined world can be one the rules never reach (a card the running rule
            # holds was dealt elsewhere) and stop with a rules error: it counts as a draw.
            self.broken += 1
            rewards = [0.5] * game.players
        for n in path:
            n.visits += 1
            n.total += rewards[n.player]

    def _walk(self, root: _Node, game, path: list, base) -> list:
        """Down the tree (choosing and adding nodes to `path`), then the playout: the rewards
        (`base`: the estimates where this world began)."""
        rng = self.rng
        node = root
        d = game.pending
        expanded = False
        while d is not None:
            actions = _actions(d, rng)
            if len(actions) == 1:
                d = game.answer(actions[0][1])
                continue
            children = node.children
            untried = []
            for key, answer in actions:
                child = children.get(key)
                if child is None:
                    untried.append((key, answer))
                else:
                    child.avail += 1
            if untried:
                # the answer the ruleset prefers first (`prefer`), else one at random
                bias = _biases(d, actions)
                if bias is None:
                    key, answer = untried[rng.randrange(len(untried))]
                    child = children[key] = _Node(d.player)
                else:
                    key, answer = max(untried, key=lambda a: bias[a[0]])
                    child = children[key] = _Node(d.player, bias[key])
                expanded = True
            else:
                key, answer = max(actions, key=lambda a: _ucb(children[a[0]]))
                child = children[key]
            path.append(child)
            node = child
            d = game.answer(answer)
            if expanded:
                break
        return self._playout(game, base)

    def _playout(self, game, base) -> list:
        """Play `game` on with the playout policy; each player's reward in [0, 1]."""
        st = game.state
        start_round = st.round_no
        agents = self.playout_agents.get(game.players)
        if agents is None:
            cls = GreedyAgent if self.policy == "greedy" else RandomAgent
            agents = self.playout_agents[game.players] = [cls(s, 0) for s in range(game.players)]
            for a in agents:
                a.rng = self.rng        # one random source: the bot's, deterministic
        d = game.pending
        left = PLAYOUT_DECISIONS
        while d is not None and left > 0 and st.round_no == start_round:
            d = game.answer(agents[d.player].decide(d))
            left -= 1
        return self._rewards(game, base)

    def _rewards(self, game, base) -> list:
        """Each player's reward in [0, 1]: a finished game's result (`game_rewards`); for a
        cut playout, how much more each player's estimate gained since the world began
        (`base`) than the best of the others' did, on the scale of such leads so far in this
        search (their running mean), squashed by tanh. (Gains, not standings: a lead of
        many points from earlier rounds would squash every answer alike.)"""
        st = game.state
        values = None if st.finished or game.pending is None or base is None else game.engine.estimates()
        if values is None or game.players < 2:
            return game_rewards(game)
        n = game.players
        gains = [v - b for v, b in zip(values, base)]
        # each player's gain less the best of the others': the best gain, or for the (first)
        # player who made it, the best of the rest
        best = max(gains)
        first = gains.index(best)
        rest = max(gains[:first] + gains[first + 1:])
        leads = [g - (rest if p == first else best) for p, g in enumerate(gains)]
        self._leads[0] += sum(map(abs, leads)) / n
        self._leads[1] += 1
        scale = max(1.0, self._leads[0] / self._leads[1])
        out = [0.5 + 0.5 * math.tanh(lead / scale) for lead in leads]
        for p in st.out:
            if p not in st.out_of_round:   # lost, not only out of this round
                out[p] = 0.0
        return out


def game_rewards(game) -> list:
    """Each player's reward in [0, 1] where no estimate says more (see `_rewards`): the
    winners' share of a finished game; a draw, or a game cut short, 0.5 each (0 for a
    player out of a finished game)."""
    st = game.state
    n = game.players
    if st.finished or game.pending is None:
        winners = st.winners or []
        if winners:
            share = 1.0 / len(winners)
            return [share if p in winners else 0.0 for p in range(n)]
        return [0.0 if p in st.out and p not in st.out_of_round else 0.5 for p in range(n)]
    return [0.5] * n


def _ucb(child: _Node) -> float:
    if child.visits == 0:
        return math.inf
    return (child.total / child.visits + UCB_C * math.sqrt(math.log(child.avail) / child.visits)
            + BIAS_W * child.bias / (child.visits + 1))


def _biases(d, actions):
    """Each answer's `prefer` value scaled to [0, 1] (the best 1), or None without hints."""
    if d.kind == "may" or d.hi > 1 or d.lo > 1:
        return None
    scores = d.scores()
    if scores is None:
        return None
    labels = d.labels
    vals = {}
    for i, s in enumerate(scores):
        v = float(s) if isinstance(s, (int, float)) else 0.0
        key = labels[i]
        vals[key] = max(vals.get(key, v), v)
    lo, hi = min(vals.values()), max(vals.values())
    span = hi - lo
    out = {k: (v - lo) / span if span else 1.0 for k, v in vals.items()}
    out.setdefault(None, 0.0)    # declining an optional choice
    return out


def _settled(root: _Node, left: int) -> bool:
    """True when `left` more iterations cannot change the answer: each adds at most one
    visit to one answer at the root, and the answer tried most leads the next by more."""
    first = second = 0
    for child in root.children.values():
        v = child.visits
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > left


def _rank(child: Optional[_Node]):
    if child is None:
        return (-1, 0.0)
    return (child.visits, child.total / child.visits if child.visits else 0.0)


def _actions(d, rng: random.Random) -> list:
    """The answers worth telling apart at decision `d`: (key, answer) pairs, the key the
    same in every world (how the answer reads)."""
    if d.kind == "may":
        return [(True, True), (False, False)]
    n = len(d.options)
    if d.hi <= 1 and d.lo <= 1:
        seen: dict = {}
        labels = d.labels
        for i in range(n):
            seen.setdefault(labels[i], i)
        out = [(k, i) for k, i in seen.items()]
        if d.optional:
            out.append((None, None))
        return out
    # several options at once: a few candidate sets (the first `lo`, then random ones)
    labels = d.labels
    k = max(d.lo, 1)
    cands = {}
    first = list(range(min(k, n)))
    cands[tuple(sorted(labels[i] for i in first))] = first
    for _ in range(4 * MULTI_CANDIDATES):
        if len(cands) >= MULTI_CANDIDATES:
            break
        pick = sorted(rng.sample(range(n), min(k, n)))
        cands.setdefault(tuple(sorted(labels[i] for i in pick)), pick)
    out = list(cands.items())
    if d.optional:
        out.append((None, None))
    return out
