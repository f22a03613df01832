"""Command-line options several commands share: the bots (`--agent`, `--agents`)."""
from __future__ import annotations

from typing import Optional

import click

from cgl.interpreter.play.agents import AGENT_HELP, AGENTS, agent_spec
from cgl.interpreter.base.diagnostics import CglError

AGENT_METAVAR = "NAME[:BUDGET]"


def agents_help() -> str:
    """One line per bot, for `--help`."""
    return "; ".join(f"{name}: {AGENT_HELP.get(name, '')}".rstrip(": ") for name in sorted(AGENTS))


def _spec(text: str, hint: Optional[str] = None, param=None) -> str:
    try:
        return agent_spec(text)
    except CglError as e:
        d = e.diagnostics[0]
        raise click.BadParameter(d.message + (f" ({d.hint})" if d.hint else ""), param=param, param_hint=hint)


def check_agent(ctx, param, value: Optional[str]) -> Optional[str]:
    """Click callback of `--agent`: the spec, checked and in its canonical spelling."""
    return None if value is None else _spec(value, param=param)


def check_skill(ctx, param, value: Optional[str]) -> Optional[tuple]:
    """Click callback of `--skill A,B`: the two agent specs, checked."""
    if value is None:
        return None
    parts = value.split(",")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise click.BadParameter(f"`{value}` is not two agents A,B: A plays one seat (the one whose skill is "
                                 f"measured), B every other seat, e.g. --skill greedy,random", param=param)
    return tuple(_spec(p, param=param) for p in parts)


def agent_specs(agent: Optional[str], agents_csv: Optional[str], players: int, default: str,
                skip: tuple = ()) -> list:
    """One agent spec per seat from `--agent` (every seat) or `--agents` (one per seat).
    `skip`: 1-based seats played by people (their entry in `--agents` is ignored)."""
    if not agents_csv:
        return [agent or default] * players
    names = [_spec(a, "--agents") for a in agents_csv.split(",")]
    if len(names) != players:
        example = ",".join(["greedy"] + ["random"] * (players - 1))
        raise click.BadParameter(f"{len(names)} agent{'s' if len(names) != 1 else ''} for {players} players: "
                                 f"give one per seat, e.g. --agents {example}", param_hint="--agents")
    return names
