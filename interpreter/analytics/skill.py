"""The skill gap of a seat-rotated tournament (``--skill A,B``): does the stronger agent win
more than its fair share, and does it more in one version than in another.

Agent A plays one seat and B every other seat; in game ``i`` A sits at seat
``((i − 1) mod P) + 1`` (:func:`cgl.interpreter.analytics.batchspec.seat_agents`), so every seat has
A equally often and the seats' own advantages cancel out of A's win rate.

- :func:`skill_gap`: A's wins (a win shared by k players counts 1/k; a game without a winner
  counts as no win), its win rate against the fair 1/P, the **gap** (win rate − 1/P) with
  a 95% interval (the Wilson score interval of the win rate, shifted by 1/P) and a
  two-sided binomial test; the same among decided games only; and A's and B's win rates at
  each seat;
- :func:`compare_skill`: the gaps of two versions, the difference B − A with Newcombe's
  interval and the two-proportion z-test, and a sentence that answers the designer.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Optional

from .batchspec import BatchSpec, rotated_seat
from .stats import ALPHA, newcombe, normal_two_sided, share_test, two_prop_z, wilson


def _gap(x: float, n: int, fair: float) -> Optional[dict]:
    """x wins in n games against the fair share: the rate, the gap, their intervals and the test."""
    if not n:
        return None
    lo, hi = wilson(x, n)
    p, exact = share_test(x, n, fair)
    rate = x / n
    test = ("exact binomial test against the fair share, two-sided" if exact else
            "binomial test against the fair share, normal approximation (shared wins make A's count "
            "fractional), two-sided")
    return {"wins": x, "games": n, "win_rate": rate, "ci95": [lo, hi], "fair": fair, "gap": rate - fair,
            "gap_ci95": [lo - fair, hi - fair], "test": test, "p": p, "significant": p < ALPHA}


def skill_gap(spec: BatchSpec, records: list) -> Optional[dict]:
    """The skill gap of agent `spec.agents[0]` (A) in a rotated batch (None without rotation).

    `records` are the games' records (failed games are left out); only their `game` (the
    index, which says where A sat) and `winners` (1-based seats) are read."""
    if not spec.rotate:
        return None
    P = spec.players
    fair = 1 / P
    ok = [r for r in records if not r.get("error")]
    wins = 0.0
    a_games, a_wins = [0] * P, [0.0] * P       # by seat: games with A there, A's wins there
    b_games, b_wins = [0] * P, [0.0] * P       # by seat: games with B there, B's wins there
    undecided: Counter = Counter()
    for r in ok:
        a = rotated_seat(spec, r["game"])
        w = r["winners"]
        if not w:
            undecided[r.get("reason") or "no winner"] += 1
        each = 1 / len(w) if w else 0.0
        for s in range(1, P + 1):
            mine = each if s in w else 0.0
            if s == a:
                a_games[s - 1] += 1
                a_wins[s - 1] += mine
                wins += mine
            else:
                b_games[s - 1] += 1
                b_wins[s - 1] += mine
    n = len(ok)
    n_undecided = sum(undecided.values())
    decided = n - n_undecided
    seats = []
    for s in range(P):
        lo, hi = wilson(a_wins[s], a_games[s])
        seats.append({"seat": s + 1, "a_games": a_games[s], "a_wins": a_wins[s],
                      "a_win_rate": a_wins[s] / a_games[s] if a_games[s] else None,
                      "ci95": [lo, hi] if a_games[s] else None,
                      "b_games": b_games[s], "b_win_rate": b_wins[s] / b_games[s] if b_games[s] else None})
    balanced = len(set(a_games)) == 1
    note = None
    if not balanced:
        counts = ", ".join(f"P{s + 1} {a_games[s]}" for s in range(P))
        why = (f"{len(records)} games is not a multiple of {P} players" if len(records) % P
               else "failed games are left out")
        note = f"{why}: A sat at the seats unequally ({counts} games)"
    others = list(dict.fromkeys(spec.agents[1:P]))
    return {
        "a": spec.agents[0], "b": ",".join(others), "players": P, "fair": fair,
        "rotation": "in game i (1-based) A sits at seat ((i - 1) mod players) + 1, B at every other seat",
        "counting": "a win shared by k players counts 1/k; a game without a winner counts as no win",
        "interval": "Wilson score interval of A's win rate, shifted by the fair share 1/players",
        "games": n, "undecided": n_undecided, "undecided_reasons": dict(undecided.most_common()),
        "decided": decided, "all": _gap(wins, n, fair), "among_decided": _gap(wins, decided, fair),
        "seats": seats, "balanced": balanced, "note": note,
    }


# ---------------------------------------------------------------- two versions

def _gap_row(metric: str, ga: dict, gb: dict) -> dict:
    """The difference B − A of two gaps: Newcombe's interval for the difference of the win
    rates (shifted when the fair shares differ), and its test."""
    xa, na, xb, nb = ga["wins"], ga["games"], gb["wins"], gb["games"]
    shift = gb["fair"] - ga["fair"]        # 0 when both versions have as many players
    lo, hi = newcombe(xb, nb, xa, na)
    diff = gb["gap"] - ga["gap"]
    if shift == 0:
        p = two_prop_z(xb, nb, xa, na)[1]
        test = "two-proportion z-test (pooled) of the win rates; CI: Newcombe hybrid score"
    else:
        ra, rb = xa / na, xb / nb
        se = math.sqrt(ra * (1 - ra) / na + rb * (1 - rb) / nb)
        p = normal_two_sided(diff / se) if se else (1.0 if diff == 0 else 0.0)
        test = ("z-test of the difference of the gaps (unpooled: the fair shares differ); "
                "CI: Newcombe hybrid score, shifted by the difference of the fair shares")
    return {"metric": metric, "kind": "gap", "a": ga["gap"], "b": gb["gap"], "diff": diff,
            "ci95": [lo - shift, hi - shift], "p": p, "significant": p < ALPHA, "test": test}


def compare_skill(ska: Optional[dict], skb: Optional[dict]) -> Optional[dict]:
    """The skill gaps of two versions side by side (None unless both are rotated batches)."""
    if not ska or not skb or not ska["all"] or not skb["all"]:
        return None
    who = f"{ska['a']} vs {ska['b']}"
    rows = [_gap_row(f"skill gap ({who})", ska["all"], skb["all"])]
    if ska["among_decided"] and skb["among_decided"]:
        rows.append(_gap_row("skill gap among decided games", ska["among_decided"], skb["among_decided"]))
    undecided = {"a": ska["undecided"], "b": skb["undecided"]}
    return {"a": ska["a"], "b": ska["b"], "gap_a": ska["all"], "gap_b": skb["all"], "undecided": undecided,
            "note": ska["note"] or skb["note"],
            "rows": rows, "verdict": verdict(rows[0], ska["a"], ska["b"], rows[1] if len(rows) > 1 else None,
                                             undecided)}


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _figures(row: dict) -> str:
    lo, hi = row["ci95"]
    p = row["p"]
    return f"difference {_pts(row['diff'])}, 95% CI [{_pts(lo)}, {_pts(hi)}], " + (
        "p < 0.001" if p < 0.001 else f"p = {p:.3f}")


def _verdict(row: dict, a_agent: str, b_agent: str) -> str:
    ga, gb = row["a"], row["b"]
    figures = _figures(row)
    if not row["significant"]:
        return (f"no clear difference in how much skill matters: {a_agent}'s gap over {b_agent} is "
                f"{_pts(ga)} points in A and {_pts(gb)} in B ({figures}); more games (-n) narrow the interval")
    if ga * gb < 0:
        ahead, behind = ("B", "A") if gb > 0 else ("A", "B")
        return (f"{a_agent} wins more than its fair share in {ahead} and less in {behind} "
                f"(gap {_pts(ga)} points in A, {_pts(gb)} in B, {figures})")
    more, less = ("B", "A") if abs(gb) > abs(ga) else ("A", "B")
    g_more, g_less = (gb, ga) if more == "B" else (ga, gb)
    return (f"skill matters more in {more} (gap {_pts(g_more)} points vs {_pts(g_less)} in {less}, {figures})")


def verdict(row: dict, a_agent: str, b_agent: str, decided_row: Optional[dict] = None,
            undecided: Optional[dict] = None) -> str:
    """The answer to "does skill matter more in one version?", with its figures. When the gaps
    among decided games tell another story (games without a winner count as no win, so a
    version with more of them shows a smaller gap), it says so."""
    text = _verdict(row, a_agent, b_agent)
    if decided_row is None:
        return text
    same_story = decided_row["significant"] == row["significant"] and (
        not row["significant"] or (decided_row["diff"] > 0) == (row["diff"] > 0))
    if same_story:
        return text
    und = f" (A {undecided['a']}, B {undecided['b']})" if undecided else ""
    return (f"{text}; but among decided games only the {_figures(decided_row)}: the games without a winner{und}, "
            f"which count as no win, account for the gap between the two figures")


# ---------------------------------------------------------------- the skill trace

def trace_budgets(text: str) -> tuple:
    """`NAME:LO..HI` (e.g. `mcts:25..400`): the agent and its budgets LO, 2·LO, 4·LO, … up to
    HI (HI last even when it is not LO times a power of two). ValueError says what is wrong."""
    from ..base.diagnostics import CglError
    from ..play.agents import agent_spec, parse_agent
    name, sep, span = text.strip().partition(":")
    lo, dots, hi = span.partition("..")
    if not sep or not dots or not lo.strip().isdigit() or not hi.strip().isdigit():
        raise ValueError(f"`{text}` is not NAME:LO..HI, e.g. mcts:25..400 (the budgets LO, 2·LO, … up to HI)")
    lo_n, hi_n = int(lo), int(hi)
    if not 1 <= lo_n < hi_n:
        raise ValueError(f"`{text}`: the budgets go from LO up to a larger HI, e.g. mcts:25..400")
    budgets = [lo_n]
    while budgets[-1] * 2 <= hi_n:
        budgets.append(budgets[-1] * 2)
    if budgets[-1] != hi_n:
        budgets.append(hi_n)
    try:
        specs = [agent_spec(f"{name}:{b}") for b in budgets]
        parse_agent(specs[0])
    except CglError as e:
        d = e.diagnostics[0]
        raise ValueError(d.message + (f" ({d.hint})" if d.hint else "")) from None
    return name.strip().lower(), specs


def trace_spec(spec: BatchSpec, strong: str, weak: str) -> BatchSpec:
    """The batch of one step of the trace: `strong` at one seat, `weak` at every other, rotated."""
    import dataclasses
    return dataclasses.replace(spec, agents=(strong,) + (weak,) * (spec.players - 1), rotate=True)


def skill_trace(agent: str, specs: list, steps: list) -> dict:
    """The skill trace (as Ludii's SkillTrace): for each budget, the agent with it against the
    agent with the previous budget, seat-rotated. `steps`: one (spec, records) per step.
    Each step's win rate and gap get the Wilson interval and the binomial test of
    :func:`skill_gap`; the p-values are corrected by Holm's method over the steps."""
    from .stats import _r, holm
    rows = []
    for (spec, records), strong, weak in zip(steps, specs[1:], specs[:-1]):
        g = skill_gap(spec, records)
        rows.append({"a": strong, "b": weak, "games": g["games"], "undecided": g["undecided"],
                     "note": g["note"], **{k: g["all"][k] for k in ("wins", "win_rate", "ci95", "fair", "gap",
                                                                     "gap_ci95", "p", "test")}})
    for r, q in zip(rows, holm([r["p"] for r in rows])):
        r["p_holm"] = q
        r["significant"] = q < ALPHA
    return _r({"agent": agent, "budgets": [s.partition(":")[2] for s in specs], "steps": rows,
            "games_per_step": rows[0]["games"] if rows else 0,
            "meaning": "each budget against the previous one, seat-rotated: the stronger agent's win rate (a win "
                       "shared by k counts 1/k; no winner counts as no win) against the fair share 1/players",
            "interval": "Wilson score interval (95%)",
            "correction": f"Holm (family-wise error 5% over the {len(rows)} steps)"})
