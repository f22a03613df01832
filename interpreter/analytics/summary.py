"""The metrics of a batch of simulated games: from the per-game records of
:func:`cgl.interpreter.analytics.simulate.run_batch` to one JSON-ready summary (:func:`summarize`),
and to one CSV row per game (:func:`csv_rows`).

Each section of the summary (results by seat, warnings, length, endings, scores, what
fired, cards, decisions, lead changes, decisiveness, drama) is computed by its own function
below, from the games that did not fail; the skill gap of a seat-rotated batch by
:mod:`.skill`. ``docs/analytics.md`` says what every metric means.
"""
from __future__ import annotations

import os
import statistics
from collections import Counter
from typing import Optional

import attrs

from .batchspec import BatchSpec, rerun_command, seat_agents
from .skill import skill_gap
from ..base.protocol import CARD_STATS
from .stats import (ALPHA, _r, chi2_uniform, describe, histogram, holm, percentile, share_test, t_quantile,
                    wilson)

KINDS = (("triggers", "trigger"), ("reactions", "reaction"), ("rules", "rule"), ("actions", "action"))


def _walk(node):
    """Every AST node under `node` (attrs classes, tuples and lists)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif attrs.has(type(x)):
            yield x
            stack.extend(getattr(x, f.name) for f in attrs.fields(type(x)))


def declared_events(rs) -> list:
    """Names of the custom events the ruleset can `emit`."""
    return list(rs.emits)


def _where(decl) -> Optional[str]:
    sp = getattr(decl, "span", None)
    if sp is None or not getattr(sp, "line", None):
        return None
    return f"{os.path.relpath(sp.path) if os.path.isabs(sp.path) else sp.path}:{sp.line}"


def summarize(rs, spec: BatchSpec, records: list, label: Optional[str] = None) -> dict:
    """Every metric of a batch, as JSON-ready data in a stable order."""
    failed = [r for r in records if r["error"]]
    ok = [r for r in records if not r["error"]]
    label = label or spec.ruleset
    out = _heading(rs, spec, records, label)
    out["results"] = _results(spec, ok, len(failed))
    out["warnings"] = _warnings(spec, out["results"], len(ok))
    out["skill"] = skill_gap(spec, records)
    out["length"] = _length(ok)
    events_declared = declared_events(rs)
    events = _events(ok, events_declared)
    out["endings"] = {"reasons": _by_count(Counter(r["reason"] for r in ok)), "events": events}
    out["scores"] = _scores(ok, spec.players)
    totals, games_with = _stat_totals(ok)
    fired, never = _fired_and_never(rs, totals, games_with, events, events_declared)
    out["fired"] = fired
    out["cards"] = _cards(rs, totals, never)
    out["never"] = never
    out["card_impact"] = _card_impact(spec, ok)
    out["decisions"] = _decisions(ok)
    out["lead_changes"] = _lead_changes(spec, ok)
    out["decisiveness"] = _decisiveness(spec, ok)
    out["drama"] = _drama(spec, ok)
    out["trajectory"] = _trajectory(spec, ok)
    out["failed"] = [{"game": r["game"], "seed": r["seed"], "error": r["error"],
                      "rerun": rerun_command(label, spec, r["seed"], r["game"])} for r in failed]
    out["verdict"], out["correction"] = verdict(out, len(ok), [r["turns"] for r in ok])
    order = ["ruleset", "players", "games", "seed", "agents", "verdict", "correction", "seat_rotation", "seeds",
             "warnings", "results", "skill"]
    return _r({k: out[k] for k in order + [k for k in out if k not in order]})


def _pct1(x: float) -> str:
    return f"{x * 100:.1f}%"


def verdict(s: dict, n_ok: int, turns: list) -> tuple:
    """A few plain sentences first, each with its figure and 95% interval, and the p-values
    of its tests corrected by Holm's method over the tests the verdict makes: seat balance
    (the first seat's share of decided games; all seats alike), how often a game is decided,
    length, and with `--skill` the skill gap. (sentences, the correction named)"""
    res, sk = s["results"], s.get("skill")
    tests = [("first", res["first_seat"]), ("equal", res["seats_equal"]), ("skill", sk["all"] if sk else None)]
    tested = [(k, t) for k, t in tests if t and t.get("p") is not None]
    adj = dict(zip([k for k, _ in tested], holm([t["p"] for _, t in tested])))

    def said(k, t):
        q = adj.get(k)
        return f"p = {t['p']:.3g}, Holm {q:.3g}" if q is not None else "no test"
    out = []
    fs, eq = res["first_seat"], res["seats_equal"]
    if fs:
        fair = all((adj.get(k) is None or adj[k] >= ALPHA) for k in ("first", "equal"))
        out.append(f"Seat balance: {'fair' if fair else 'not fair'} — P1 wins {_pct1(fs['share'])} of decided games "
                   f"[{_pct1(fs['ci95'][0])}, {_pct1(fs['ci95'][1])}] against a fair {_pct1(fs['fair'])} "
                   f"({said('first', fs)})" + (f"; all seats alike: {said('equal', eq)}" if eq else "") + ".")
    if n_ok:
        lo, hi = wilson(res["decided"], n_ok)
        out.append(f"Decided games: {_pct1(res['decided'] / n_ok)} [{_pct1(lo)}, {_pct1(hi)}] have a winner.")
    if len(turns) >= 2:
        m, sd = statistics.fmean(turns), statistics.stdev(turns)
        half = 1.96 * sd / len(turns) ** 0.5
        out.append(f"Length: {m:.3g} turns a game on average [{m - half:.3g}, {m + half:.3g}], "
                   f"from {min(turns)} to {max(turns)}.")
    if sk and sk["all"].get("gap") is not None:
        g = sk["all"]
        matters = adj.get("skill") is not None and adj["skill"] < ALPHA
        out.append(f"Skill {'matters' if matters else 'shows no clear effect'}: {sk['a']} wins "
                   f"{_pct1(g['win_rate'])} against a fair {_pct1(g['fair'])}, a gap of {g['gap'] * 100:+.1f} pts "
                   f"[{g['gap_ci95'][0] * 100:+.1f}, {g['gap_ci95'][1] * 100:+.1f}] ({said('skill', g)}).")
    return out, (f"Holm (family-wise error 5% over the verdict's {len(tested)} tests)" if tested else None)


def _heading(rs, spec: BatchSpec, records: list, label: str) -> dict:
    """What was played: the ruleset, the players, the agents and the seeds."""
    opts = {k: rs.option_values[k] for k in sorted(rs.option_values)}
    g = rs.game
    return {
        "ruleset": {"title": g.title, "version": g.version, "file": label, "options": _plainv(opts),
                    "set_options": dict(spec.options)},
        "players": spec.players,
        "games": len(records),
        "seed": spec.seed,
        "agents": list(spec.agents),
        "seat_rotation": spec.rotate,
        "seeds": {"rule": "game i (1-based) is played with int.from_bytes(sha256(f'{seed}:{i}')[:8], 'big') % 10**9",
                  "rerun": rerun_command(label, spec),
                  "first": [{"game": r["game"], "seed": r["seed"], "agents": list(seat_agents(spec, r["game"])),
                             "rerun": rerun_command(label, spec, r["seed"], r["game"])} for r in records[:3]]},
    }


# ---------------------------------------------------------------- results by seat

def _tally_wins(ok: list, n_players: int) -> dict:
    """Wins by seat (a win shared by k players counts 1/k to each) and how games were decided."""
    t = {"wins": [0.0] * n_players, "alone": [0] * n_players, "shared": [0] * n_players,
         "single": 0, "shared_games": 0, "all_share": 0, "no_winner": 0, "everyone_lost": 0}
    for r in ok:
        w = r["winners"]
        if not w:
            if len(r["out"]) >= n_players:
                t["everyone_lost"] += 1
            else:
                t["no_winner"] += 1
            continue
        if len(w) == 1:
            t["single"] += 1
        else:
            t["shared_games"] += 1
            if len(w) == n_players:
                t["all_share"] += 1
        for s in w:
            t["wins"][s - 1] += 1 / len(w)
            if len(w) == 1:
                t["alone"][s - 1] += 1
            else:
                t["shared"][s - 1] += 1
    return t


def _seats(spec: BatchSpec, t: dict, n: int, decided: int) -> list:
    seats = []
    wins = t["wins"]
    for i in range(spec.players):
        lo, hi = wilson(wins[i], n)
        seats.append({"seat": i + 1, "agent": "rotated" if spec.rotate else spec.agents[i], "wins": wins[i],
                      "won_alone": t["alone"][i],
                      "shared": t["shared"][i], "win_rate": wins[i] / n if n else 0.0, "ci95": [lo, hi],
                      "share_of_decided": wins[i] / decided if decided else None})
    return seats


def _first_seat(spec: BatchSpec, w1: float, decided: int) -> dict:
    """Seat 1's share of the decided games, tested against a fair 1/players."""
    fair = 1 / spec.players
    p, exact = share_test(w1, decided, fair)
    if exact:
        test = "exact binomial test, two-sided"
    else:
        test = "binomial test, normal approximation (shared wins make seat 1's count fractional), two-sided"
    if spec.rotate:
        note = (f"the agents rotate: {spec.agents[0]} sat at P1 in every {_ordinal(spec.players)} game, "
                f"so this measures the seat")
    elif len(set(spec.agents)) > 1:
        note = "the seats have different agents: this measures seat and agent together"
    else:
        note = None
    lo, hi = wilson(w1, decided)
    return {"share": w1 / decided, "fair": fair, "advantage": w1 / decided - fair, "ci95": [lo, hi],
            "decided_games": decided, "test": test, "p": p, "significant": p < ALPHA, "note": note}


def _ordinal(n: int) -> str:
    return {2: "second", 3: "third"}.get(n, f"{n}th")


def _results(spec: BatchSpec, ok: list, failed: int) -> dict:
    t = _tally_wins(ok, spec.players)
    decided = t["single"] + t["shared_games"]
    eq = chi2_uniform(t["wins"]) if decided else None
    return {
        "counting": "a win shared by k players counts 1/k to each; rates are of all games, shares of decided games",
        "seats": _seats(spec, t, len(ok), decided),
        "decided": decided, "single_winner": t["single"], "shared_win": t["shared_games"],
        "draw_all_share": t["all_share"], "no_winner": t["no_winner"], "everyone_lost": t["everyone_lost"],
        "failed": failed, "undecided": _undecided(ok),
        "first_seat": _first_seat(spec, t["wins"][0], decided) if decided else None,
        "seats_equal": dict(eq, test="chi-square goodness of fit of the seats' wins against equal shares")
        if eq else None,
    }


# ---------------------------------------------------------------- games without a winner

UNDECIDED_WARNING = 0.5     # warn when more than this share of the games ends without a winner


def _undecided(ok: list) -> dict:
    """The games without a winner, by the reason they ended."""
    reasons = Counter(r["reason"] for r in ok if not r["winners"])
    n = sum(reasons.values())
    return {"games": n, "share": n / len(ok) if ok else None, "reasons": _by_count(reasons)}


def _warnings(spec: BatchSpec, res: dict, n_ok: int) -> list:
    """What the designer should know before reading the figures: most games undecided."""
    und = res["undecided"]
    if not n_ok or und["games"] <= UNDECIDED_WARNING * n_ok:
        return []
    names = {a.split(":", 1)[0] for a in spec.agents}
    tips = []
    if "random" in names:
        tips.append("bots that play to win (`--agent greedy` follows the ruleset's `prefer` hints)")
    if "greedy" in names:
        tips.append("`prefer` hints on the choices that lead to a win (greedy bots pick at random where a "
                    "choice has none)")
    tips.append("a longer game, or an end that names a winner when time runs out (`cgl info RULESET` lists "
                "the options)")
    reasons = ", ".join(f"{k} {v}" for k, v in und["reasons"].items())
    return [{"kind": "undecided", "games": und["games"], "share": und["share"],
             "text": f"{100 * und['share']:.0f}% of the games ({und['games']} of {n_ok}) ended without a winner "
                     f"({reasons}), so win rates, the first-seat test and the skill gap say little (they rest "
                     f"on the {n_ok - und['games']} decided games). Try " + "; or ".join(tips) + "."}]


# ---------------------------------------------------------------- length, endings, scores

def _length(ok: list) -> dict:
    def lengths(key):
        vals = [r[key] for r in ok]
        return dict(describe(vals), histogram=histogram(vals))
    out = {"turns": lengths("turns"), "rounds": lengths("rounds"), "decisions": lengths("decisions")}
    if ok:
        longest = max(ok, key=lambda r: (r["turns"], -r["game"]))
        shortest = min(ok, key=lambda r: (r["turns"], r["game"]))
        out["longest"] = {"game": longest["game"], "seed": longest["seed"], "turns": longest["turns"]}
        out["shortest"] = {"game": shortest["game"], "seed": shortest["seed"], "turns": shortest["turns"]}
    return out


def _by_count(counts) -> dict:
    """Most frequent first, ties by key."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _events(ok: list, events_declared: list) -> dict:
    """Each custom event: declared ones and any counted in a game, in name order."""
    ev_names = sorted(set(events_declared) | {k.split(":", 1)[1] for r in ok for k in r["stats"]
                                              if k.startswith("event:")})
    spied = all(r["custom_spied"] for r in ok)
    return {name: _event(ok, name, name in events_declared, spied) for name in ev_names}


def _event(ok: list, name: str, declared: bool, spied: bool) -> dict:
    per_game = [r["stats"].get(f"event:{name}", 0) for r in ok]
    values: dict = {}
    numbers: dict = {}
    caught = 0
    for r in ok:
        c = r["custom"].get(name)
        if not c:
            continue
        caught += c["count"]
        for field, counts in c["values"].items():
            slot = values.setdefault(field, Counter())
            slot.update(counts)
        for field, nums in c["numbers"].items():
            numbers.setdefault(field, []).extend(nums)
    # the fields come from a spy on `emit` (simulate._Watcher): trusted only when it caught
    # every emit the engine counted
    fields_ok = spied and caught == sum(per_game)
    by_field = {f: dict(sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0])))) for f, c in sorted(values.items())}
    return {
        "total": sum(per_game), "per_game": statistics.fmean(per_game) if per_game else 0.0,
        "games": sum(1 for x in per_game if x), "declared": declared,
        "by_field": by_field if fields_ok else None,
        "shares": {f: _shares(c) for f, c in by_field.items()} if fields_ok else None,
        "numbers": {f: _described(v) for f, v in sorted(numbers.items())} if fields_ok else None,
    }


def _shares(counts: dict) -> dict:
    """Each value's share of the events that have the field, with its Wilson 95% interval
    (each event one trial)."""
    n = sum(counts.values())
    return {k: {"count": c, "share": c / n, "ci95": list(wilson(c, n))} for k, c in counts.items()}


def _described(values: list) -> dict:
    """`describe`, and the mean's 95% interval (t, n − 1 df; none below 2 values)."""
    d = describe(values)
    if len(values) >= 2:
        half = t_quantile(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
        d["mean_ci95"] = [d["mean"] - half, d["mean"] + half]
    else:
        d["mean_ci95"] = None
    return d


def _score_vars(records: list) -> list:
    """The numeric player variables seen in the games, `points` first."""
    return sorted({v for r in records for v in r["scores"]}, key=lambda v: (v != "points", v))


def _scores(ok: list, n_players: int) -> dict:
    scores = {}
    for var in _score_vars(ok):
        rows = [r["scores"][var] for r in ok if var in r["scores"]]
        scores[var] = {"seats": [describe([row[i] for row in rows]) for i in range(n_players)],
                       "all": describe([x for row in rows for x in row])}
    return scores


# ---------------------------------------------------------------- what fired, and what never did

def _stat_totals(ok: list) -> tuple:
    """(times each engine statistic was counted in all, number of games in which it was)."""
    totals: Counter = Counter()
    games_with: Counter = Counter()
    for r in ok:
        for k, v in r["stats"].items():
            totals[k] += v
            if v:
                games_with[k] += 1
    return totals, games_with


def _fired_and_never(rs, totals, games_with, events: dict, events_declared: list) -> tuple:
    fired: dict = {}
    never: dict = {}
    for plural, prefix in KINDS:
        decls = getattr(rs, plural)
        names = [d.name for d in decls]
        extra = sorted({k.split(":", 1)[1] for k in totals if k.startswith(prefix + ":")} - set(names))
        fired[plural] = {nm: {"total": totals.get(f"{prefix}:{nm}", 0), "games": games_with.get(f"{prefix}:{nm}", 0)}
                         for nm in names + extra}
        never[plural] = [{"name": d.name, "where": _where(d)} for d in decls
                         if not totals.get(f"{prefix}:{d.name}", 0)]
    fired["events"] = {nm: {"total": e["total"], "games": e["games"]} for nm, e in events.items()}
    never["events"] = [nm for nm in events_declared if not events[nm]["total"]]
    return fired, never


def _cards(rs, totals, never: dict) -> dict:
    """The cards' moves by name: every change of zone (`moved`), and of those the ones made by
    `draw`, `deal` and `discard`; the changes by the zones involved (`flows`). The cards that
    never left their starting zone (never moved) are the dead cards, in `never`."""
    card_names = list(dict.fromkeys(c.name for c in rs.cards))

    def by_name(kind):
        return {nm: totals.get(CARD_STATS[kind] + nm, 0) for nm in card_names}
    moved = by_name("move")
    flow = CARD_STATS["flow"]
    flows = _by_count({k[len(flow):]: v for k, v in totals.items() if k.startswith(flow)})
    never["dead_cards"] = [nm for nm in card_names if not moved[nm]]
    return {"kinds": len(card_names), "copies": len(rs.cards), "moved": moved, "flows": flows,
            "drawn": by_name("draw"), "dealt": by_name("deal"), "discarded": by_name("discard")}


# ---------------------------------------------------------------- per-card impact

#: The conditions of the per-card impact: (key, what it says of a seat and a kind of card).
IMPACT_CONDITIONS = (("played", "it left the seat's hand (played, discarded or given away)"),
                     ("held", "the seat held it at the end (in a zone of its own)"),
                     ("opening", "it was in the seat's opening hand (as the first turn started)"))
IMPACT_RANKED = 5   # strongest and weakest cards shown per condition (all are in --json)


def _card_impact(spec: BatchSpec, ok: list) -> Optional[dict]:
    """For each kind of card and each condition (`IMPACT_CONDITIONS`), the win rate of the
    seats it applied to (a seat counts once per game however many copies; a shared win
    counts 1/k) against the baseline, every seat's win rate over all games: its Wilson
    95% interval, the difference and its interval (the Wilson interval shifted by the
    baseline), the test against the baseline (`share_test`) and its p corrected by Holm's
    method over the cards of that condition. Ranked: the strongest are the cards whose
    interval's lower end is highest, the weakest those whose upper end is lowest (a card
    seen in few games ranks by what its interval allows, not by its noisy point)."""
    rows = [r for r in ok if r.get("cards")]
    if not rows:
        return None
    n_seats = spec.players
    shares = []
    for r in rows:
        w = [0.0] * n_seats
        for s in r["winners"]:
            w[s - 1] += 1 / len(r["winners"])
        shares.append(w)
    baseline = sum(map(sum, shares)) / (len(rows) * n_seats)
    out = {"baseline": baseline, "seat_games": len(rows) * n_seats,
           "correction": "Holm, over the cards of each condition", "conditions": {}}
    for cond, meaning in IMPACT_CONDITIONS:
        if rows[0]["cards"].get(cond) is None:
            out["conditions"][cond] = None
            continue
        seen: Counter = Counter()
        won: Counter = Counter()
        for r, w in zip(rows, shares):
            for seat, kinds in enumerate(r["cards"][cond]):
                for k in kinds:
                    seen[k] += 1
                    won[k] += w[seat]
        cards = []
        for k in sorted(seen):
            n, x = seen[k], won[k]
            lo, hi = wilson(x, n)
            p = share_test(x, n, baseline)[0] if 0 < baseline < 1 else None
            cards.append({"card": k, "seats": n, "wins": x, "win_rate": x / n, "ci95": [lo, hi],
                          "diff": x / n - baseline, "diff_ci95": [lo - baseline, hi - baseline], "p": p})
        for c, q in zip(cards, holm([c["p"] for c in cards])):
            c["p_holm"] = q
        strongest = sorted(cards, key=lambda c: (-c["ci95"][0], c["card"]))
        weakest = sorted(cards, key=lambda c: (c["ci95"][1], c["card"]))
        out["conditions"][cond] = {
            "meaning": meaning, "cards": cards,
            "strongest": [c["card"] for c in strongest[:IMPACT_RANKED] if c["diff"] > 0],
            "weakest": [c["card"] for c in weakest[:IMPACT_RANKED] if c["diff"] < 0]}
    return out


# ---------------------------------------------------------------- decisions, lead changes

def _decisions(ok: list) -> dict:
    n = len(ok)
    total_dec = sum(r["decisions"] for r in ok)
    total_turns = sum(r["turns"] for r in ok)
    hist: Counter = Counter()
    kinds: dict = {}
    for r in ok:
        for k, c in r["options"].items():
            hist[int(k)] += c
        for kind, (cnt, opt) in r["kinds"].items():
            slot = kinds.setdefault(kind, [0, 0])
            slot[0] += cnt
            slot[1] += opt
    flat_sorted = sorted(hist.items())
    return {
        "total": total_dec,
        "per_game": total_dec / n if n else 0.0,
        "per_turn": total_dec / total_turns if total_turns else None,
        "options_per_decision": {
            "mean": sum(k * c for k, c in hist.items()) / total_dec if total_dec else None,
            "median": _weighted_median(flat_sorted),
            "max": max(hist) if hist else None,
            "histogram": [[k, c] for k, c in flat_sorted],
        },
        "by_kind": {kind: {"count": c, "mean_options": o / c if c else None} for kind, (c, o) in sorted(kinds.items())},
    }


def _lead_changes(spec: BatchSpec, ok: list) -> Optional[dict]:
    if spec.score is None:
        return None
    lc = [r["lead_changes"] for r in ok if r["lead_changes"] is not None]
    return dict(variable=spec.score, direction=spec.score_direction, **describe(lc),
                games_with_a_change=sum(1 for x in lc if x > 0),
                histogram=sorted([k, c] for k, c in Counter(lc).items()))


#: The most points a trajectory keeps (a longer game is sampled every k turns).
TRAJECTORY_POINTS = 200


def _trajectory(spec: BatchSpec, ok: list) -> Optional[dict]:
    """The score of the eventual winner and of its best rival, turn by turn: at each number
    of turns played, the median and the 10th and 90th percentiles over the games with a
    winner (a shared win: the best winner's score; the rival: the best score among the
    other seats); a game that has ended counts with its final scores. The curve stops at
    the length of the game 90 % of those games are no longer than (`still_going` says how
    many were still being played at each point)."""
    if spec.score is None:
        return None
    low = spec.score_direction == "low"
    best = min if low else max
    traces = []
    for r in ok:
        t, w = r.get("trajectory"), r["winners"]
        if not t or not w or len(w) >= len(t[0]):
            continue
        traces.append([(best(v[s - 1] for s in w), best(x for i, x in enumerate(v) if i + 1 not in w))
                       for v in t])
    if not traces:
        return None
    last = round(percentile(sorted(len(t) - 1 for t in traces), 0.9))
    step = max(1, -(-(last + 1) // TRAJECTORY_POINTS))
    turns, games = [], []
    bands: dict = {"winner": {"median": [], "p10": [], "p90": []}, "rival": {"median": [], "p10": [], "p90": []}}
    for k in range(0, last + 1, step):
        at = [t[min(k, len(t) - 1)] for t in traces]
        turns.append(k)
        games.append(sum(1 for t in traces if len(t) - 1 > k))
        for j, who in enumerate(("winner", "rival")):
            v = sorted(x[j] for x in at)
            for q, key in ((0.5, "median"), (0.1, "p10"), (0.9, "p90")):
                bands[who][key].append(percentile(v, q))
    return {"variable": spec.score, "direction": spec.score_direction, "games": len(traces),
            "meaning": "turns played (0: before the first turn) against the score of the eventual winner and of "
                       "its best rival: median, 10th and 90th percentiles over the games (an ended game keeps its "
                       "final scores)",
            "turns": turns, "still_going": games, **bands}


def _decisiveness(spec: BatchSpec, ok: list) -> Optional[dict]:
    """How early the single winner took the lead it kept (see leads.LeadTracker)."""
    if spec.score is None:
        return None
    vals = [r["decisiveness"] for r in ok if r.get("decisiveness") is not None]
    return dict(variable=spec.score, direction=spec.score_direction, **describe(vals),
                led_alone_at_the_end=sum(1 for x in vals if x > 0))


def _drama(spec: BatchSpec, ok: list) -> Optional[dict]:
    """How far behind the best score the eventual winner was (see leads.LeadTracker)."""
    if spec.score is None:
        return None
    rows = [r for r in ok if r.get("drama") is not None]
    return {"variable": spec.score, "direction": spec.score_direction, "games": len(rows),
            "drama": describe([r["drama"] for r in rows]), "worst": describe([r["drama_worst"] for r in rows]),
            "behind": describe([r["winner_behind"] for r in rows]),
            "comebacks": sum(1 for r in rows if r["winner_behind"])}


def _weighted_median(pairs):
    total = sum(c for _, c in pairs)
    if not total:
        return None
    half = (total + 1) / 2
    run = 0
    for k, c in pairs:
        run += c
        if run >= half:
            return k
    return pairs[-1][0]


def _plainv(v):
    if isinstance(v, dict):
        return {k: _plainv(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plainv(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return str(v)


# ---------------------------------------------------------------- per-game rows (CSV)

LEAD_COLUMNS = ("lead_changes", "decisiveness", "drama", "drama_worst", "winner_behind")


def csv_rows(records: list, players: int, spec: Optional[BatchSpec] = None) -> tuple:
    """(header, rows): one row per game (with `spec`, the agents of each seat too)."""
    score_vars = _score_vars(records)
    header = ["game", "seed"] + (["agents"] if spec else []) + ["winners", "reason", "turns", "rounds", "decisions"]
    header += list(LEAD_COLUMNS)
    header += [f"{v}_P{i + 1}" for v in score_vars for i in range(players)]
    header += ["error"]
    rows = []
    for r in records:
        row = [r["game"], r["seed"]] + ([" ".join(seat_agents(spec, r["game"]))] if spec else [])
        row += [" ".join(f"P{w}" for w in r["winners"]), r["reason"], r["turns"], r["rounds"], r["decisions"]]
        row += ["" if r.get(k) is None else _r(r[k]) for k in LEAD_COLUMNS]
        for v in score_vars:
            vals = r["scores"].get(v) or [""] * players
            row += list(vals)
        row.append(r["error"] or "")
        rows.append(row)
    return header, rows
