"""What a batch of simulated games plays: the :class:`BatchSpec`, and the seed of each game.

Game ``i`` (1-based) of a batch with seed ``S`` is played with the seed :func:`game_seed`
``(S, i)``, by the agents :func:`seat_agents` ``(spec, i)`` names (made exactly as
``cgl run`` makes them), so :func:`rerun_command` names the ``cgl run`` that replays game
``i`` alone.

A seat-rotated tournament (``cgl simulate --skill A,B``) is the lineup ``(A, B, B, …)``
with ``rotate`` set: in game ``i`` the lineup is turned so that A sits at seat
``((i − 1) mod players) + 1``. The rotation depends on the game's index only, like its
seed, so any number of workers (or a Dask cluster) plays the same games.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Optional, Sequence

from ..base.protocol import DEFAULT_MAX_STEPS

SEED_SPACE = 1_000_000_000   # game seeds are 0 .. 999 999 999
DIRECTIONS = ("high", "low")  # which scores are better, for the leader of the score variable


@dataclass(frozen=True)
class BatchSpec:
    """Everything a worker needs to play games of a batch: plain, picklable data.

    Workers load the ruleset themselves from (`ruleset`, `options`), so a batch can be
    sent to other processes or to a Dask cluster.
    """

    ruleset: str                 # a path (absolute, so workers elsewhere find it) or a shipped name
    options: tuple               # ((name, raw value), …) as given on the command line
    players: int
    agents: tuple                # one agent spec per seat (with `rotate`: the lineup of game 1)
    seed: int
    score: Optional[str] = None  # the player variable whose leader is tracked (lead changes)
    rotate: bool = False         # turn the lineup one seat per game: agents[0] sits at seat (i - 1) mod players
    score_direction: str = "high"   # "low": the lowest score leads
    max_steps: int = DEFAULT_MAX_STEPS   # each game's budget of steps
    engine: Optional[str] = None         # "compiled" or "tree" (None: the worker's default, `Game`)

    @staticmethod
    def make(ruleset: str, options: Optional[dict], players: int, agents: Sequence[str], seed: int,
             score: Optional[str] = None, rotate: bool = False, score_direction: str = "high") -> "BatchSpec":
        agents = list(agents) or ["greedy"]
        if len(agents) == 1:
            agents = agents * players
        if score_direction not in DIRECTIONS:
            raise ValueError(f"score_direction must be one of {DIRECTIONS}, not {score_direction!r}")
        return BatchSpec(ruleset, tuple(sorted((options or {}).items())), players, tuple(agents), seed, score,
                         rotate, score_direction)


def game_seed(base: int, index: int) -> int:
    """The seed of game `index` (1-based) of a batch with seed `base`.

    The first 8 bytes of SHA-256(f"{base}:{index}") as a big-endian integer, modulo 10**9:
    stable across Python versions and processes (unlike the salted built-in `hash`).
    """
    digest = hashlib.sha256(f"{base}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_SPACE


def seat_agents(spec: BatchSpec, index: int) -> tuple:
    """The agent spec of each seat in game `index` (1-based).

    Without rotation, `spec.agents`; with it, the lineup turned by (index - 1) seats, so that
    `spec.agents[0]` sits at seat ((index - 1) mod players) + 1 (1-based)."""
    agents = spec.agents[:spec.players]
    if not spec.rotate:
        return tuple(agents)
    n = len(agents)
    shift = (index - 1) % n
    return tuple(agents[(seat - shift) % n] for seat in range(n))


def rotated_seat(spec: BatchSpec, index: int) -> Optional[int]:
    """The seat (1-based) of `spec.agents[0]` in game `index` of a rotated batch (None without rotation)."""
    return (index - 1) % spec.players + 1 if spec.rotate else None


def default_score(rs) -> Optional[str]:
    """The score variable tracked for lead changes: the one the ruleset declares
    (`Ruleset.score`: `as score`, else `points`), if any."""
    return rs.score[0] if rs.score else None


def default_direction(rs) -> str:
    """Which way the declared score leads: "high", or "low" (`as low score`)."""
    return rs.score[1] if rs.score else "high"


def rerun_command(label: str, spec: BatchSpec, seed="<seed>", index: Optional[int] = None) -> Optional[str]:
    """The `cgl run` command that replays one game: `--agent X` when every seat has the same
    bot, else `--agents` with the seats in order. With a rotating lineup the agents depend on
    the game, so `index` (1-based) must be given (None without it)."""
    if spec.rotate and index is None:
        return None
    agents = seat_agents(spec, index) if index is not None else tuple(spec.agents[:spec.players])
    who = f"--agent {agents[0]}" if len(set(agents)) == 1 else f"--agents {','.join(agents)}"
    opts = "".join(f" -o {k}={v}" for k, v in spec.options)
    steps = f" --max-steps {spec.max_steps}" if spec.max_steps != DEFAULT_MAX_STEPS else ""
    return f"cgl run {label} --players {spec.players} {who}{opts}{steps} --seed {seed}"
