"""The text report of a batch: :func:`format_summary` lays out what
:func:`cgl.interpreter.analytics.summary.summarize` computed, one section per function below.

The small cell formatters (`_pct`, `_num`, `_sig`, `_p`, `_table`, …) are shared with the
report of :mod:`cgl.interpreter.analytics.comparison`.
"""
from __future__ import annotations

from typing import Optional

from .summary import KINDS


def _pct(x, digits=1) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def _num(x, digits=1) -> str:
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def _sig(x, sign: bool = False) -> str:
    """A mean or a difference: whole numbers plain, 2 decimals from 1 up, 2 significant digits below."""
    if x is None:
        return "-"
    plus = "+" if sign else ""
    if float(x).is_integer():
        return f"{int(x):{plus}d}"
    if abs(x) >= 100:
        return f"{x:{plus}.1f}"
    if abs(x) >= 1:
        return f"{x:{plus}.2f}"
    return f"{x:{plus}.2g}" if abs(x) >= 1e-4 else f"{x:{plus}.1e}"


def _p(p) -> str:
    if p is None:
        return "p = -"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _agents_text(agents, rotate: bool = False) -> str:
    if rotate:
        others = ",".join(dict.fromkeys(agents[1:]))
        return (f"{agents[0]} (A) at one seat, {others} (B) at the others; seat-rotated: "
                f"A sits at seat ((i − 1) mod {len(agents)}) + 1 in game i")
    if len(set(agents)) == 1:
        return f"{agents[0]} (every seat)"
    return ", ".join(f"P{i + 1} {a}" for i, a in enumerate(agents))


def _table(rows, aligns=None) -> list:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    aligns = aligns or ["<"] + [">"] * (len(rows[0]) - 1)
    return ["  " + "  ".join(f"{str(c):{a}{w}}" for c, a, w in zip(r, aligns, widths)).rstrip() for r in rows]


def _bars(hist, width=40) -> list:
    top = max((c for _, _, c in hist), default=0) or 1
    lab = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi, _ in hist]
    lw = max(len(x) for x in lab) if lab else 0
    return [f"    {lb:>{lw}} | {'#' * max(1 if c else 0, round(width * c / top))} {c}"
            for lb, (_, _, c) in zip(lab, hist)]


def _names(items, limit=24) -> str:
    items = list(items)
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return shown + (f", … ({len(items) - limit} more; see --json)" if len(items) > limit else "")


def format_summary(s: dict) -> str:
    """The readable report of a batch."""
    n_ok = s["games"] - s["results"]["failed"]
    L: list = []
    L += _heading_lines(s)
    L += _warning_lines(s["warnings"])
    if s.get("verdict"):
        L += ["", "Verdict (95% intervals" + (f"; p corrected by {s['correction']}" if s.get("correction") else "")
              + "):"]
        L += [f"  - {line}" for line in s["verdict"]]
    L += _results_lines(s["results"], n_ok)
    L += _skill_lines(s["skill"])
    L += trace_lines(s.get("skill_trace"))
    L += _length_lines(s["length"])
    L += _endings_lines(s["endings"])
    L += _scores_lines(s["scores"])
    L += _lead_lines(s["lead_changes"], s["decisiveness"], s["drama"])
    L += _decisions_lines(s["decisions"])
    L += _fired_lines(s["fired"], s["cards"])
    L += _impact_lines(s.get("card_impact"), s["agents"], s["seat_rotation"])
    L += _never_lines(s["never"], s["cards"], n_ok)
    L += _failed_lines(s["failed"])
    L += _seeds_lines(s)
    return "\n".join(L)


def trace_lines(t: Optional[dict], title: str = "Skill trace") -> list:
    """The skill trace: each budget against the previous one, with its interval and Holm's p."""
    if not t or not t["steps"]:
        return []
    L = ["", f"{title} ({t['agent']}, each budget against the previous one, seat-rotated, "
             f"{t['games_per_step']} games a step; 95% Wilson intervals; p corrected by {t['correction']}):"]
    rows = [["", "win rate", "95% CI", "gap", "p", "Holm", "no winner"]]
    for r in t["steps"]:
        rows.append([f"{r['a']} vs {r['b']}", _pct(r["win_rate"]), f"[{_pct(r['ci95'][0])}, {_pct(r['ci95'][1])}]",
                     f"{100 * r['gap']:+.1f} pts", "<0.001" if r["p"] < 0.001 else f"{r['p']:.3f}",
                     "<0.001" if r["p_holm"] < 0.001 else f"{r['p_holm']:.3f}", r["undecided"]])
    return L + _table(rows)


def _heading_lines(s: dict) -> list:
    rs = s["ruleset"]
    title = f"{rs['title']} {rs['version'] or ''}".strip()
    L = [f"{title} · {rs['file']} · {s['players']} players · {s['games']} games · seed {s['seed']}",
         f"agents: {_agents_text(s['agents'], s['seat_rotation'])}"]
    if rs["options"]:
        L.append("options: " + ", ".join(f"{k}={v}" for k, v in rs["options"].items()))
    return L


def _warning_lines(warnings: list) -> list:
    return [""] + [f"warning: {w['text']}" for w in warnings] if warnings else []


def _results_lines(res: dict, n_ok: int) -> list:
    L = ["", "Results by seat (a win shared by k players counts 1/k to each; 95% CI: Wilson score interval)"]
    rows = [["seat", "agent", "wins", "alone", "shared", "win rate", "95% CI", "share of decided"]]
    for st in res["seats"]:
        rows.append([f"P{st['seat']}", st["agent"], _num(st["wins"]), st["won_alone"], st["shared"],
                     _pct(st["win_rate"]), f"[{_pct(st['ci95'][0])}, {_pct(st['ci95'][1])}]",
                     _pct(st["share_of_decided"])])
    L += _table(rows)
    L.append(f"  decided games {res['decided']} ({_pct(res['decided'] / n_ok if n_ok else None)}): "
             f"single winner {res['single_winner']}, shared win {res['shared_win']}"
             f" (every seat sharing: {res['draw_all_share']})")
    L.append(f"  no winner {res['no_winner']} ({_pct(res['no_winner'] / n_ok if n_ok else None)}), "
             f"everyone lost {res['everyone_lost']}" + (f", failed {res['failed']}" if res["failed"] else ""))
    fs = res["first_seat"]
    if fs:
        sig = "significant at 5%" if fs["significant"] else "not significant at 5%"
        L.append(f"  first seat: P1 won {_pct(fs['share'])} of the {fs['decided_games']} decided games "
                 f"[{_pct(fs['ci95'][0])}, {_pct(fs['ci95'][1])}] against a fair {_pct(fs['fair'])} "
                 f"({fs['advantage'] * 100:+.1f} points)")
        L.append(f"    {fs['test']}: {_p(fs['p'])}, {sig}")
        if fs["note"]:
            L.append(f"    ({fs['note']})")
    eq = res["seats_equal"]
    if eq:
        L.append(f"  all seats equal? chi-square goodness of fit: χ² = {eq['chi2']:.2f}, df {eq['df']}, {_p(eq['p'])}"
                 + ("  (few decided games: the test is rough)" if eq["small_expected"] else ""))
    return L


def _gap_text(g: dict) -> str:
    return (f"{_pct(g['win_rate'])} [{_pct(g['ci95'][0])}, {_pct(g['ci95'][1])}] against a fair {_pct(g['fair'])}: "
            f"gap {100 * g['gap']:+.1f} points, 95% CI [{100 * g['gap_ci95'][0]:+.1f}, {100 * g['gap_ci95'][1]:+.1f}]")


def _skill_lines(sk) -> list:
    if not sk:
        return []
    g = sk["all"]
    L = ["", f"Skill gap: {sk['a']} (A) against {sk['b']} (B), seat-rotated (A at each seat in turn; "
             f"95% CI: Wilson score interval of A's win rate, shifted by the fair share)"]
    if g is None:
        return L + ["  no game to count"]
    sig = "significant at 5%" if g["significant"] else "not significant at 5%"
    L.append(f"  A won {_num(g['wins'])} of {g['games']} games, {_gap_text(g)}")
    L.append(f"    {g['test']}: {_p(g['p'])}, {sig}")
    if sk["undecided"]:
        why = ", ".join(f"{k} {v}" for k, v in sk["undecided_reasons"].items())
        L.append(f"  games without a winner: {sk['undecided']} ({why}), counted as no win for A")
        d = sk["among_decided"]
        if d:
            L.append(f"  among the {d['games']} decided games only: A won {_gap_text(d)}, {_p(d['p'])}")
    else:
        L.append("  games without a winner: 0")
    rows = [["seat", "A there", "A's win rate", "95% CI", "B's win rate there"]]
    for st in sk["seats"]:
        ci = f"[{_pct(st['ci95'][0])}, {_pct(st['ci95'][1])}]" if st["ci95"] else "-"
        rows.append([f"P{st['seat']}", st["a_games"], _pct(st["a_win_rate"]), ci, _pct(st["b_win_rate"])])
    L.append("  by seat (the same seat with A and with B: skill apart from seat advantage):")
    L += ["  " + line for line in _table(rows)]
    if sk["note"]:
        L.append(f"  note: {sk['note']}")
    return L


def _length_lines(length: dict) -> list:
    L = ["", "Game length"]
    rows = [["", "mean", "median", "p10", "p90", "min", "max"]]
    for key in ("turns", "rounds", "decisions"):
        d = length[key]
        rows.append([key, _num(d["mean"]), _num(d["median"]), _num(d["p10"]), _num(d["p90"]), _num(d["min"]),
                     _num(d["max"])])
    L += _table(rows)
    if length["turns"]["histogram"]:
        L.append("  turns per game:")
        L += _bars(length["turns"]["histogram"])
    if "longest" in length:
        lg, sh = length["longest"], length["shortest"]
        L.append(f"  longest: game {lg['game']} (seed {lg['seed']}, {lg['turns']} turns); "
                 f"shortest: game {sh['game']} (seed {sh['seed']}, {sh['turns']} turns)")
    return L


def _endings_lines(endings: dict) -> list:
    L = ["", "How games end"]
    total = sum(endings["reasons"].values()) or 1
    rows = [[reason, c, _pct(c / total)] for reason, c in endings["reasons"].items()]
    if rows:
        L += _table(rows)
    evs = endings["events"]
    if evs:
        L.append("  custom events (emit): total · per game · games with it")
        for name, e in evs.items():
            L += _event_lines(name, e)
    return L


def _event_lines(name: str, e: dict) -> list:
    L = [f"    {name}: {e['total']} · {_num(e['per_game'], 2)} · {e['games']}"]
    if e["by_field"] is None and e["total"]:
        L.append("      (its fields could not be read: see docs/analytics.md)")
    for field, shares in (e.get("shares") or {}).items():
        rows = [[f"by {field}", "count", "share", "95% CI"]]
        for k, x in list(shares.items())[:FIELD_ROWS]:
            rows.append([f"  {k}", x["count"], pct_fine(x["share"]),
                         f"[{pct_fine(x['ci95'][0])}, {pct_fine(x['ci95'][1])}]"])
        L += ["    " + line for line in _table(rows)]
        if len(shares) > FIELD_ROWS:
            L.append(f"        … {len(shares) - FIELD_ROWS} more values (see --json)")
    for field, d in (e["numbers"] or {}).items():
        ci = d.get("mean_ci95")
        L.append(f"      {field}: mean {_sig(d['mean'])}" + (f" [{_sig(ci[0])}, {_sig(ci[1])}]" if ci else "")
                 + f", median {_num(d['median'])}, min {_num(d['min'])}, max {_num(d['max'])}")
    return L


FIELD_ROWS = 20   # values shown per event field (all are in --json)


def pct_fine(x) -> str:
    """A share as a percentage with enough digits for a rare one: 41.6%, 3.40%, 0.197%, 0.00123%."""
    if x is None:
        return "-"
    v = 100 * x
    if v == 0 or v >= 10:
        return f"{v:.1f}%"
    if v >= 1:
        return f"{v:.2f}%"
    return f"{v:#.3g}%"


def _scores_lines(scores: dict) -> list:
    if not scores:
        return []
    L = ["", "Scores at the end (player variables that are numbers)"]
    for var, d in scores.items():
        rows = [[var, "mean", "median", "p10", "p90", "min", "max"]]
        for i, st in enumerate(d["seats"], 1):
            rows.append([f"P{i}", _num(st["mean"], 2), _num(st["median"]), _num(st["p10"]), _num(st["p90"]),
                         _num(st["min"]), _num(st["max"])])
        a = d["all"]
        rows.append(["all", _num(a["mean"], 2), _num(a["median"]), _num(a["p10"]), _num(a["p90"]), _num(a["min"]),
                     _num(a["max"])])
        L += _table(rows)
    return L


def _direction(x: dict) -> str:
    return f"{x['variable']}, lower is better" if x["direction"] == "low" else x["variable"]


def _quantiles(d: dict) -> str:
    return (f"mean {_num(d['mean'], 2)}, median {_num(d['median'], 2)}, p10 {_num(d['p10'], 2)}, "
            f"p90 {_num(d['p90'], 2)}")


def _lead_lines(lc, dec=None, dr=None) -> list:
    if not lc:
        return []
    L = ["", (f"Lead changes ({_direction(lc)}; the strict leader after each turn, ties skipped): "
              f"mean {_num(lc['mean'], 2)}, median {_num(lc['median'])}, max {_num(lc['max'])}; "
              f"games with a change: {lc['games_with_a_change']}")]
    if dec and dec["n"]:
        L.append(f"Decisiveness (single-winner games: the share of the turns, up to the end, during which the winner "
                 f"led alone without a break): {_quantiles(dec)}; the winner led alone at the end in "
                 f"{dec['led_alone_at_the_end']} of {dec['n']} games")
    if dr and dr["games"]:
        L.append(f"Drama (games with a winner: its deficit behind the best {dr['variable']} while behind, "
                 f"as a share of the game's score range): {_quantiles(dr['drama'])}; at its worst: mean "
                 f"{_num(dr['worst']['mean'], 2)}; turns behind: mean {_pct(dr['behind']['mean'])}; "
                 f"comebacks (the winner was behind at some point): {dr['comebacks']} of {dr['games']} games")
    return L


def _decisions_lines(dec: dict) -> list:
    opd = dec["options_per_decision"]
    L = ["", (f"Decisions: {dec['total']} in all, {_num(dec['per_game'])} per game, "
              f"{_num(dec['per_turn'], 2)} per turn; options per decision (branching factor): "
              f"mean {_num(opd['mean'], 2)}, median {_num(opd['median'])}, max {_num(opd['max'])}")]
    if dec["by_kind"]:
        L.append("  by kind: " + ", ".join(f"{k} {v['count']} (mean {_num(v['mean_options'], 2)} options)"
                                           for k, v in dec["by_kind"].items()))
    return L


def _fired_lines(fired: dict, cards: dict) -> list:
    L = ["", "What fired (times in all · games in which it fired)"]
    for plural, _ in KINDS + (("events", "event"),):
        items = fired[plural]
        if items:
            L.append(f"  {plural}: " + ", ".join(f"{k} {v['total']}·{v['games']}" for k, v in items.items()))
    if cards["kinds"]:
        moved = sorted(cards["moved"].items(), key=lambda kv: (-kv[1], kv[0]))
        L.append(f"  cards: {cards['kinds']} kinds ({cards['copies']} cards); changes of zone: "
                 + ", ".join(f"{k} {v}" for k, v in cards["flows"].items())
                 if cards["flows"] else f"  cards: {cards['kinds']} kinds ({cards['copies']} cards); none moved")
        if cards["flows"]:
            L.append("  cards moved most: " + ", ".join(f"{k} {v}" for k, v in moved[:3])
                     + "; least: " + ", ".join(f"{k} {v}" for k, v in moved[-3:]))
    return L


def _impact_lines(imp, agents, rotate: bool) -> list:
    """The strongest and weakest cards of each condition (summary._card_impact)."""
    if not imp or not any(c and c["cards"] for c in imp["conditions"].values()):
        return []
    L = ["", f"Per-card impact: the win rate of the seats a card was with, against the baseline "
             f"{pct_fine(imp['baseline'])} (every seat's win rate, {imp['seat_games']} seat-games; a seat counts once "
             f"a game; 95% Wilson intervals; p corrected by {imp['correction']}; † holds after it; "
             f"strongest ranked by the interval's lower end, weakest by its upper end)"]
    if len(set(agents)) > 1 and not rotate:
        L.append("  (the seats have different agents: a card's figure mixes the card and the agents that had it)")
    for cond, c in imp["conditions"].items():
        if c is None:
            if cond != "held":
                L.append(f"  {cond}: not measured (no zone is marked `as hand`)")
            continue
        by_name = {x["card"]: x for x in c["cards"]}
        L.append(f"  {cond}: {c['meaning']}")
        rows = [["  card", "seats", "win rate", "95% CI", "vs baseline", "95% CI", "Holm", ""]]
        for label, names in (("strongest", c["strongest"]), ("weakest", c["weakest"])):
            if not names:
                rows.append([f"  {label}: none above" if label == "strongest" else f"  {label}: none below",
                             "", "", "", "", "", "", ""])
                continue
            rows.append([f"  {label}", "", "", "", "", "", "", ""])
            for nm in names:
                x = by_name[nm]
                q = x["p_holm"]
                rows.append([f"    {nm}", x["seats"], pct_fine(x["win_rate"]),
                             f"[{pct_fine(x['ci95'][0])}, {pct_fine(x['ci95'][1])}]", _pts_text(x["diff"]),
                             f"[{_pts_text(x['diff_ci95'][0], False)}, {_pts_text(x['diff_ci95'][1], False)}]",
                             "-" if q is None else ("<0.001" if q < 0.001 else f"{q:.3f}"),
                             "†" if q is not None and q < 0.05 else ""])
        L += _table(rows, ["<", ">", ">", ">", ">", ">", ">", "<"])
    L.append(f"  (every card of every condition, with its figures: --json card_impact; {len(_all_cards(imp))} kinds seen)")
    return L


def _all_cards(imp: dict) -> set:
    return {x["card"] for c in imp["conditions"].values() if c for x in c["cards"]}


def _pts_text(x: float, unit: bool = True) -> str:
    return f"{100 * x:+.1f}" + (" pts" if unit else "")


def _never_lines(nv: dict, cards: dict, n_ok: int) -> list:
    L = ["", f"Never fired in {n_ok} games (dead rules and dead cards)"]
    any_dead = False
    for plural, _ in KINDS:
        if nv[plural]:
            any_dead = True
            L.append(f"  {plural}: " + ", ".join(f"{d['name']}" + (f" ({d['where']})" if d["where"] else "")
                                                 for d in nv[plural]))
    if nv["events"]:
        any_dead = True
        L.append("  events never emitted: " + ", ".join(nv["events"]))
    if cards["kinds"] and nv["dead_cards"]:
        any_dead = True
        L.append(f"  cards that never left their starting zone: {_names(nv['dead_cards'])}")
    if not any_dead:
        L.append("  every trigger, reaction, rule, action, event and card fired or moved at least once")
    L.append("  (a rule counts when it forbade something; a card when it changed zone, whatever moved it)")
    return L


def _failed_lines(failed: list) -> list:
    if not failed:
        return []
    L = ["", f"Failed games ({len(failed)}): these stopped with an error"]
    for f in failed[:10]:
        L.append(f"  game {f['game']} (seed {f['seed']}): {f['error']}")
        if f.get("rerun"):
            L.append(f"    replay: {f['rerun']}")
    return L


def _seeds_lines(s: dict) -> list:
    first = s["seeds"]["first"]
    L = ["", (f"Seeds: game i plays with a seed made from sha256(\"{s['seed']}:i\") (see docs/analytics.md); "
              + ", ".join(f"game {x['game']}: {x['seed']}" for x in first) + ", … (--csv lists them all)")]
    if s["seeds"]["rerun"]:
        L.append(f"  replay one game: {s['seeds']['rerun']}")
    elif first:
        L.append("  replay one game (the agents rotate, so each game has its own --agents):")
        L += [f"    game {x['game']}: {x['rerun']}" for x in first[:2]]
    return L
