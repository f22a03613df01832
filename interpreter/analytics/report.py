"""The HTML report of `cgl simulate --report FILE.html`: one self-contained page.

Plots are drawn with matplotlib (an optional extra: ``pip install "cgl[plot]"``) without
pyplot, as SVG (text drawn as paths, so no font is needed to open it) embedded as base64
data, so the page needs no other file, no script and no network.
"""
from __future__ import annotations

import base64
import html
import io
from typing import Optional
from ..base.files import write_text

from .summary_text import _agents_text

INSTALL_HINT = 'pip install "cgl[plot]"'


class PlotUnavailable(Exception):
    """matplotlib is not installed."""

    def __init__(self):
        super().__init__(f"--report draws its plots with matplotlib, which is not installed; "
                         f"it is an optional extra: {INSTALL_HINT}")


def require_matplotlib():
    """Import matplotlib's Figure (raises :class:`PlotUnavailable` when it is missing)."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable() from None
    return Figure


def _png(fig) -> str:
    """The figure as base64 SVG (the name is older than the format: see `_img`)."""
    import matplotlib
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "cgl"}):   # the same page for the same games
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _img(b64: str, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/svg+xml;base64,{b64}">'


def win_rate_plot(Figure, s: dict) -> str:
    seats = s["results"]["seats"]
    fig = Figure(figsize=(6.4, 3.6))
    ax = fig.add_subplot()
    x = list(range(len(seats)))
    rates = [st["win_rate"] * 100 for st in seats]
    lo = [max(0.0, (st["win_rate"] - st["ci95"][0]) * 100) for st in seats]
    hi = [max(0.0, (st["ci95"][1] - st["win_rate"]) * 100) for st in seats]
    ax.bar(x, rates, yerr=[lo, hi], capsize=6, color="#4c78a8")
    ax.set_xticks(x, [f"P{st['seat']}\n{st['agent']}" for st in seats])
    n_ok = s["games"] - s["results"]["failed"]
    if n_ok and s["players"]:
        fair = 100 * s["results"]["decided"] / n_ok / s["players"]
        ax.axhline(fair, color="#e45756", linestyle="--", label=f"fair share: decided games / {s['players']}")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_ylabel("win rate, % of all games")
    ax.set_title("Win rate by seat (error bars: 95% Wilson interval)")
    return _png(fig)


def length_plot(Figure, s: dict) -> Optional[str]:
    hist = s["length"]["turns"]["histogram"]
    if not hist:
        return None
    fig = Figure(figsize=(6.4, 3.2))
    ax = fig.add_subplot()
    width = hist[0][1] - hist[0][0] + 1
    ax.bar([lo for lo, _, _ in hist], [c for _, _, c in hist], width=width, align="edge", color="#72b7b2",
           edgecolor="white")
    ax.set_xlabel("turns per game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    return _png(fig)


def bar_plot(Figure, counts: dict, title: str, xlabel: str = "games") -> Optional[str]:
    if not counts:
        return None
    items = list(counts.items())
    fig = Figure(figsize=(6.4, 0.45 * len(items) + 1.2))
    ax = fig.add_subplot()
    ax.barh([str(k) for k, _ in items][::-1], [v for _, v in items][::-1], color="#f58518")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return _png(fig)


A_COLOR, B_COLOR = "#4c78a8", "#f58518"


def trajectory_axes(ax, t: dict, title: str) -> None:
    """The eventual winner's score and its best rival's, turn by turn: median and 10–90% band."""
    x = t["turns"]
    for who, color, label in (("winner", "#54a24b", "eventual winner"), ("rival", "#e45756", "best rival")):
        b = t[who]
        ax.fill_between(x, b["p10"], b["p90"], color=color, alpha=0.18, linewidth=0)
        ax.plot(x, b["median"], color=color, label=f"{label}: median (band: 10th–90th percentile)")
    ax.set_xlabel("turns played")
    ax.set_ylabel(t["variable"] + (" (lower is better)" if t["direction"] == "low" else ""))
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=7)


def trajectory_plot(Figure, t: Optional[dict]) -> Optional[str]:
    if not t or not t["turns"]:
        return None
    fig = Figure(figsize=(6.4, 3.4))
    trajectory_axes(fig.add_subplot(), t, f"Score trajectories ({t['games']} games with a winner)")
    return _png(fig)


def lead_changes_plot(Figure, lcs: list, labels: list) -> Optional[str]:
    """Games by their number of lead changes, as a share of the games (one bar per side)."""
    hists = [dict((k, c) for k, c in (lc or {}).get("histogram") or []) for lc in lcs]
    if not any(hists):
        return None
    keys = sorted({k for h in hists for k in h})
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot()
    width = 0.8 / len(hists)
    for j, (h, label, color) in enumerate(zip(hists, labels, (A_COLOR, B_COLOR))):
        total = sum(h.values()) or 1
        ax.bar([k + (j - (len(hists) - 1) / 2) * width for k in keys], [100 * h.get(k, 0) / total for k in keys],
               width=width, color=color, label=label)
    ax.set_xticks(keys if len(keys) <= 20 else keys[::max(1, len(keys) // 10)])
    ax.set_xlabel("lead changes in a game")
    ax.set_ylabel("% of games")
    ax.set_title("Lead changes")
    if len(hists) > 1:
        ax.legend(fontsize=8)
    return _png(fig)


def impact_plot(Figure, cond: str, c: dict, title: Optional[str] = None) -> Optional[str]:
    """The strongest and weakest cards of one condition: each card's win rate minus the
    baseline, in points, with its 95% interval (summary._card_impact)."""
    by_name = {x["card"]: x for x in c["cards"]}
    names = c["strongest"] + [n for n in reversed(c["weakest"]) if n not in c["strongest"]]
    if not names:
        return None
    rows = [by_name[n] for n in names][::-1]
    fig = Figure(figsize=(6.4, 0.4 * len(rows) + 1.4))
    ax = fig.add_subplot()
    y = list(range(len(rows)))
    d = [100 * x["diff"] for x in rows]
    lo = [100 * (x["diff"] - x["diff_ci95"][0]) for x in rows]
    hi = [100 * (x["diff_ci95"][1] - x["diff"]) for x in rows]
    ax.errorbar(d, y, xerr=[lo, hi], fmt="o", capsize=4, color="#4c78a8")
    ax.axvline(0, color="#e45756", linestyle="--")
    ax.set_yticks(y, [f"{x['card']} ({x['seats']})" for x in rows])
    ax.set_xlabel("win rate − baseline, points (95% interval)")
    ax.set_title(title or f"Per-card impact, {cond}: strongest and weakest")
    return _png(fig)


def _impact_html(Figure, imp) -> list:
    """The per-card impact: a plot and a table per condition."""
    if not imp or not any(c and c["cards"] for c in imp["conditions"].values()):
        return []
    e = html.escape
    out = ["<h2>Per-card impact</h2>",
           f"<p>The win rate of the seats a card was with, against the baseline {100 * imp['baseline']:.1f}% "
           f"(every seat's win rate over {imp['seat_games']} seat-games); 95% Wilson intervals; p corrected by "
           f"{e(imp['correction'])}. The number after a card's name is the seat-games it counts.</p>"]
    for cond, c in imp["conditions"].items():
        if not c or not c["cards"]:
            continue
        out.append(f"<h3>{e(cond)}: {e(c['meaning'])}</h3>")
        img = impact_plot(Figure, cond, c)
        if img:
            out.append(_img(img, f"per-card impact, {cond}"))
        by_name = {x["card"]: x for x in c["cards"]}
        out.append("<table><tr><th>card</th><th>seats</th><th>win rate</th><th>95% CI</th><th>vs baseline</th>"
                   "<th>Holm p</th></tr>")
        for n in c["strongest"] + c["weakest"]:
            x = by_name[n]
            q = "-" if x["p_holm"] is None else ("&lt; 0.001" if x["p_holm"] < 0.001 else f"{x['p_holm']:.3f}")
            out.append(f"<tr><td>{e(n)}</td><td>{x['seats']}</td><td>{_pc(x['win_rate'])}</td>"
                       f"<td>{_pc(x['ci95'][0])} – {_pc(x['ci95'][1])}</td><td>{100 * x['diff']:+.1f} pts</td>"
                       f"<td>{q}</td></tr>")
        out.append("</table>")
    return out


def _pc(x: float) -> str:
    from .summary_text import pct_fine
    return pct_fine(x)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: .2rem .6rem; text-align: right; border-bottom: 1px solid #eee; }
td:first-child, th:first-child { text-align: left; }
pre { background: #f6f6f6; padding: 1rem; overflow-x: auto; font-size: .8rem; }
img { max-width: 100%; } .muted { color: #666; }
.verdict { background: #f3f7fb; border-left: 4px solid #4c78a8; padding: .2rem 1rem; }
.verdict h2 { border: none; margin-top: .6rem; }
.side { display: flex; gap: 1rem; flex-wrap: wrap; } .side > div { flex: 1 1 24rem; min-width: 0; }
"""


def _skill_html(sk) -> list:
    """The skill gap of a seat-rotated batch, in one paragraph."""
    if not sk or not sk["all"]:
        return []
    e = html.escape
    g = sk["all"]
    return ["<h2>Skill gap</h2>",
            f"<p>{e(sk['a'])} (at each seat in turn) against {e(sk['b'])}: won {100 * g['win_rate']:.1f}% "
            f"of {g['games']} games against a fair {100 * g['fair']:.1f}%: gap {100 * g['gap']:+.1f} points, "
            f"95% CI [{100 * g['gap_ci95'][0]:+.1f}, {100 * g['gap_ci95'][1]:+.1f}] ({e(g['test'])}: "
            f"{_p(g['p'])}). Games without a winner: {sk['undecided']}.</p>"]


def skill_trace_plot(Figure, t: dict, title: str) -> Optional[str]:
    """The skill trace as a curve: each budget's win rate against the previous budget, with its
    95% interval, and the fair share."""
    steps = t["steps"]
    if not steps:
        return None
    fig = Figure(figsize=(6.4, 3.2))
    ax = fig.add_subplot()
    x = list(range(len(steps)))
    rate = [100 * r["win_rate"] for r in steps]
    ax.errorbar(x, rate, yerr=[[100 * (r["win_rate"] - r["ci95"][0]) for r in steps],
                               [100 * (r["ci95"][1] - r["win_rate"]) for r in steps]],
                fmt="o-", capsize=5, color="#4c78a8")
    ax.axhline(100 * steps[0]["fair"], color="#e45756", linestyle="--", label="fair share")
    ax.set_xticks(x, [f"{r['a'].partition(':')[2]}\nvs {r['b'].partition(':')[2]}" for r in steps])
    ax.set_xlabel(f"{t['agent']} budget against the previous one")
    ax.set_ylabel("win rate, %")
    ax.set_title(f"{title} ({t['games_per_step']} games a step, 95% Wilson intervals)", fontsize=10)
    ax.legend(fontsize=8)
    return _png(fig)


def skill_trace_html(Figure, t: Optional[dict], title: str = "Skill trace") -> list:
    if not t or not t["steps"]:
        return []
    e = html.escape
    out = [f"<h2>{e(title)}</h2>", _img(skill_trace_plot(Figure, t, title), title.lower()),
           f"<p class=muted>{e(t['meaning'])}; p corrected by {e(t['correction'])}.</p>",
           "<table><tr><th>step</th><th>win rate</th><th>95% CI</th><th>gap</th><th>Holm p</th></tr>"]
    for r in t["steps"]:
        q = "&lt; 0.001" if r["p_holm"] < 0.001 else f"{r['p_holm']:.3f}"
        out.append(f"<tr><td>{e(r['a'])} vs {e(r['b'])}</td><td>{100 * r['win_rate']:.1f}%</td>"
                   f"<td>{100 * r['ci95'][0]:.1f}% – {100 * r['ci95'][1]:.1f}%</td><td>{100 * r['gap']:+.1f} pts</td>"
                   f"<td>{q}</td></tr>")
    out.append("</table>")
    return out


def verdict_html(lines, correction) -> list:
    """The verdict block: a few sentences, each with its interval, and the correction named."""
    if not lines:
        return []
    e = html.escape
    head = "95% intervals" + (f"; p-values corrected by {e(correction)}" if correction else "")
    return [f'<section class=verdict><h2>Verdict</h2><p class=muted>{head}</p><ul>'
            + "".join(f"<li>{e(x)}</li>" for x in lines) + "</ul></section>"]


def _score_and_lead_html(Figure, s: dict) -> list:
    """The score trajectories and the lead changes: two plots and a paragraph."""
    out = ["<h2>Score and lead</h2>"]
    img = trajectory_plot(Figure, s.get("trajectory"))
    if img:
        out.append(_img(img, "score trajectories"))
        out.append(f"<p class=muted>{html.escape(s['trajectory']['meaning'])}.</p>")
    img = lead_changes_plot(Figure, [s.get("lead_changes")], ["games"])
    if img:
        out.append(_img(img, "lead changes"))
    return out + _leads_text(s)


def _leads_text(s: dict) -> list:
    """Lead changes, decisiveness and drama in one paragraph (means with their spread)."""
    lc, de, dr = s.get("lead_changes"), s.get("decisiveness"), s.get("drama")
    if not lc or not lc["n"]:
        return []
    parts = [f"Lead changes ({html.escape(lc['variable'])}): mean {lc['mean']:.2g}, median {lc['median']:g}, "
             f"in {lc['games_with_a_change']} of {lc['n']} games"]
    if de and de["n"]:
        parts.append(f"decisiveness: mean {de['mean']:.2f} (1 = the winner led alone from the first turn)")
    if dr and dr["games"] and dr["drama"]["n"]:
        parts.append(f"drama: mean {dr['drama']['mean']:.2f}; the winner came from behind in {dr['comebacks']} "
                     f"of {dr['games']} games")
    return ["<p>" + "; ".join(parts) + ".</p>"]


def _dead_html(s: dict) -> list:
    """The dead rules, events and cards, as a list."""
    e = html.escape
    out = []
    out.append("<h2>Dead rules and dead cards</h2>")
    nv = s["never"]
    items = []
    for key in ("triggers", "reactions", "rules", "actions"):
        for d in nv[key]:
            items.append(f"<li>{e(key[:-1])} <b>{e(d['name'])}</b>"
                         + (f" <span class=muted>({e(d['where'])})</span>" if d["where"] else "") + "</li>")
    for name in nv["events"]:
        items.append(f"<li>event <b>{e(name)}</b> (never emitted)</li>")
    for name in nv["dead_cards"]:
        items.append(f"<li>card <b>{e(name)}</b> (never left its starting zone)</li>")
    out.append(f"<ul>{''.join(items)}</ul>" if items else
               f"<p>Everything fired at least once in {s['games'] - s['results']['failed']} games.</p>")
    return out


def page_head(title: str) -> list:
    """The start of a report page (both commands' pages look alike)."""
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"]


def page_end(text: str, command: str) -> list:
    """The end of a report page: the whole text report, and what wrote it."""
    return ["<h2>The whole report</h2>", f"<pre>{html.escape(text)}</pre>",
            f"<p class=muted>Written by <code>{command}</code>. See docs/analytics.md for every metric.</p>",
            "</body></html>"]


def render_html(s: dict, text: str) -> str:
    """The page: summary, plots, dead rules and cards, and the whole text report."""
    Figure = require_matplotlib()
    e = html.escape
    rs = s["ruleset"]
    title = f"{rs['title']} {rs['version'] or ''}".strip()
    agents = s["agents"]
    if s.get("seat_rotation"):
        agents_text = _agents_text(agents, True)
    else:
        agents_text = (f"{agents[0]} at every seat" if len(set(agents)) == 1
                       else ", ".join(f"P{i + 1}: {a}" for i, a in enumerate(agents)))
    out = page_head(f"cgl simulate: {title}") + [
           f"<h1>{e(title)}: {s['games']} simulated games</h1>",
           f"<p>{e(rs['file'])} · {s['players']} players · seed {s['seed']} · "
           f"options: {e(', '.join(f'{k}={v}' for k, v in rs['options'].items()) or 'none')}</p>",
           f"<p><b>Agents:</b> {e(agents_text)}</p>"]
    out += [f"<p><b>Warning:</b> {e(w['text'])}</p>" for w in s.get("warnings") or []]
    out += verdict_html(s.get("verdict"), s.get("correction"))

    res = s["results"]
    out.append("<h2>Win rates by seat</h2>")
    out.append(_img(win_rate_plot(Figure, s), "win rate by seat"))
    out.append("<table><tr><th>seat</th><th>agent</th><th>wins</th><th>win rate</th><th>95% CI</th>"
               "<th>share of decided</th></tr>")
    for st in res["seats"]:
        share = "-" if st["share_of_decided"] is None else f"{100 * st['share_of_decided']:.1f}%"
        out.append(f"<tr><td>P{st['seat']}</td><td>{e(st['agent'])}</td><td>{st['wins']:.4g}</td>"
                   f"<td>{100 * st['win_rate']:.1f}%</td>"
                   f"<td>{100 * st['ci95'][0]:.1f}% – {100 * st['ci95'][1]:.1f}%</td>"
                   f"<td>{share}</td></tr>")
    out.append("</table>")
    out.append(f"<p class=muted>A win shared by k players counts 1/k to each. Decided games: {res['decided']}; "
               f"no winner: {res['no_winner']}; everyone lost: {res['everyone_lost']}.</p>")
    fs = res["first_seat"]
    if fs:
        out.append(f"<p>First seat: P1 won {100 * fs['share']:.1f}% of decided games against a fair "
                   f"{100 * fs['fair']:.1f}% ({e(fs['test'])}: {_p(fs['p'])}, "
                   f"{'significant' if fs['significant'] else 'not significant'} at 5%).</p>")

    out += _skill_html(s.get("skill"))
    out += skill_trace_html(Figure, s.get("skill_trace"))

    out.append("<h2>Game length</h2>")
    img = length_plot(Figure, s)
    if img:
        out.append(_img(img, "game length histogram"))
    t = s["length"]["turns"]
    if t["n"]:
        out.append(f"<p>Turns: mean {t['mean']:.1f}, median {t['median']:g}, p10 {t['p10']:g}, p90 {t['p90']:g}, "
                   f"min {t['min']}, max {t['max']}.</p>")

    out += _score_and_lead_html(Figure, s)

    out.append("<h2>How games end</h2>")
    img = bar_plot(Figure, s["endings"]["reasons"], "End causes")
    if img:
        out.append(_img(img, "end causes"))
    for name, ev in s["endings"]["events"].items():
        for field, counts in (ev["by_field"] or {}).items():
            if 1 < len(counts) <= 30:
                img = bar_plot(Figure, counts, f"event {name} by {field}", "events")
                out.append(_img(img, f"event {name} by {field}"))

    out += _impact_html(Figure, s.get("card_impact"))

    out += _dead_html(s)

    out += page_end(text, "cgl simulate")
    return "\n".join(out)


def write_report(path: str, s: dict, text: str) -> None:
    write_text(path, render_html(s, text), "report")
