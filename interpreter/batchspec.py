"""What a batch of simulated games plays: the :class:`BatchSpec`, and the seed of each game.

Game ``i`` (1-based) of a batch with seed ``S`` is played with the seed :func:`game_seed`
``(S, i)``, and its agents are made exactly as ``cgl run`` makes them, so
:func:`rerun_command` names the ``cgl run`` that replays game ``i`` alone.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Optional, Sequence

SEED_SPACE = 1_000_000_000   # game seeds are 0 .. 999 999 999


@dataclass(frozen=True)
class BatchSpec:
    """Everything a worker needs to play games of a batch: plain, picklable data.

    Workers load the ruleset themselves from (`ruleset`, `options`), so a batch can be
    sent to other processes or to a Dask cluster.
    """

    ruleset: str                 # a path (absolute, so workers elsewhere find it) or a shipped name
    options: tuple               # ((name, raw value), …) as given on the command line
    players: int
    agents: tuple                # one agent name per seat
    seed: int
    score: Optional[str] = None  # the player variable whose leader is tracked (lead changes)

    @staticmethod
    def make(ruleset: str, options: Optional[dict], players: int, agents: Sequence[str], seed: int,
             score: Optional[str] = None) -> "BatchSpec":
        agents = list(agents) or ["random"]
        if len(agents) == 1:
            agents = agents * players
        return BatchSpec(ruleset, tuple(sorted((options or {}).items())), players, tuple(agents), seed, score)


def game_seed(base: int, index: int) -> int:
    """The seed of game `index` (1-based) of a batch with seed `base`.

    The first 8 bytes of SHA-256(f"{base}:{index}") as a big-endian integer, modulo 10**9:
    stable across Python versions and processes (unlike the salted built-in `hash`).
    """
    digest = hashlib.sha256(f"{base}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_SPACE


def default_score(rs) -> Optional[str]:
    """The score variable tracked for lead changes: `points` if the ruleset has it."""
    return "points" if "points" in rs.player_vars() else None


def rerun_command(label: str, spec: BatchSpec, seed="<seed>") -> Optional[str]:
    """The `cgl run` command that replays one game, or None when `cgl run` cannot (mixed agents)."""
    if len(set(spec.agents)) != 1:
        return None
    opts = "".join(f" -o {k}={v}" for k, v in spec.options)
    return f"cgl run {label} --players {spec.players} --agent {spec.agents[0]}{opts} --seed {seed}"
