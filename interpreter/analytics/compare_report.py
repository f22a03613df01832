"""The HTML report of `cgl compare A B --report FILE.html`: one self-contained page, drawn as
the report of `cgl simulate` is (`report.py`: matplotlib SVG embedded as data, no script,
no network).

The verdict comes first (each sentence with its 95% interval; the correction named), then
the differences B − A with their intervals as plots and a table, then each figure of the two
versions side by side: win rate by seat, game length, score trajectories, lead changes, how
games end and the emitted events' fields, the skill gap and trace, the per-card impact, what
never fired, and the whole text report.
"""
from __future__ import annotations

import html
from typing import Optional

from ..base.files import write_text
from .report import (A_COLOR, B_COLOR, _img, _png, impact_plot, lead_changes_plot, page_end, page_head,
                     require_matplotlib, skill_trace_html, trajectory_axes, verdict_html)
from .summary_text import _pct, _sig


def _name(x: dict) -> str:
    return f"{x['title']} {x['version'] or ''}".strip()


def _forest(Figure, rows: list, title: str, xlabel: str, scale) -> Optional[str]:
    """Each row's difference B − A with its 95% interval, in the units `scale` gives (None:
    left out); the rows that hold after the correction are drawn solid."""
    pts = [(r, scale(r)) for r in rows]
    pts = [(r, v) for r, v in pts if v is not None]
    if not pts:
        return None
    pts = pts[::-1]
    fig = Figure(figsize=(7.2, 0.32 * len(pts) + 1.3))
    ax = fig.add_subplot()
    for i, (r, (d, lo, hi)) in enumerate(pts):
        held = r.get("p_holm") is not None and r["p_holm"] < 0.05
        ax.errorbar([d], [i], xerr=[[d - lo], [hi - d]], fmt="o", capsize=3,
                    color=B_COLOR if held else "#888888", mfc=B_COLOR if held else "white")
    ax.axvline(0, color="#444444", linewidth=0.8)
    ax.set_yticks(range(len(pts)), [r["metric"] for r, _ in pts], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    return _png(fig)


def _points(r: dict):
    if r["kind"] not in ("proportion", "gap"):
        return None
    return 100 * r["diff"], 100 * r["ci95"][0], 100 * r["ci95"][1]


def _relative(r: dict):
    if r["kind"] != "mean" or not r["a"] or r["ci95"][0] is None:
        return None
    k = 100 / abs(r["a"])
    return r["diff"] * k, r["ci95"][0] * k, r["ci95"][1] * k


def _win_rates(Figure, sa: dict, sb: dict) -> str:
    fig = Figure(figsize=(6.4, 3.4))
    ax = fig.add_subplot()
    for j, (s, label, color) in enumerate(((sa, "A", A_COLOR), (sb, "B", B_COLOR))):
        seats = s["results"]["seats"]
        x = [i + (j - 0.5) * 0.38 for i in range(len(seats))]
        rates = [100 * st["win_rate"] for st in seats]
        lo = [max(0.0, 100 * (st["win_rate"] - st["ci95"][0])) for st in seats]
        hi = [max(0.0, 100 * (st["ci95"][1] - st["win_rate"])) for st in seats]
        ax.bar(x, rates, width=0.38, yerr=[lo, hi], capsize=4, color=color, label=f"{label}: {_name(s['ruleset'])}")
    n = max(len(sa["results"]["seats"]), len(sb["results"]["seats"]))
    ax.set_xticks(range(n), [f"P{i + 1}" for i in range(n)])
    ax.set_ylabel("win rate, % of all games")
    ax.set_title("Win rate by seat (error bars: 95% Wilson interval)")
    ax.legend(fontsize=8)
    return _png(fig)


def _lengths(Figure, sa: dict, sb: dict) -> Optional[str]:
    ha, hb = sa["length"]["turns"]["histogram"], sb["length"]["turns"]["histogram"]
    if not ha or not hb:
        return None
    fig = Figure(figsize=(6.4, 3.2))
    ax = fig.add_subplot()
    for h, s, label, color in ((ha, sa, "A", A_COLOR), (hb, sb, "B", B_COLOR)):
        total = sum(c for _, _, c in h) or 1
        width = h[0][1] - h[0][0] + 1
        ax.bar([lo for lo, _, _ in h], [100 * c / total for _, _, c in h], width=width, align="edge", color=color,
               alpha=0.55, edgecolor="white", label=f"{label}: median {s['length']['turns']['median']:g} turns")
    ax.set_xlabel("turns per game")
    ax.set_ylabel("% of games")
    ax.set_title("Game length")
    ax.legend(fontsize=8)
    return _png(fig)


def _trajectories(Figure, sa: dict, sb: dict) -> Optional[str]:
    ta, tb = sa.get("trajectory"), sb.get("trajectory")
    if not (ta and ta["turns"]) or not (tb and tb["turns"]):
        return None
    fig = Figure(figsize=(9.6, 3.4))
    ax1 = fig.add_subplot(1, 2, 1)
    ax2 = fig.add_subplot(1, 2, 2, sharey=ax1)
    trajectory_axes(ax1, ta, f"A: {_name(sa['ruleset'])} ({ta['games']} games)")
    trajectory_axes(ax2, tb, f"B: {_name(sb['ruleset'])} ({tb['games']} games)")
    return _png(fig)


def _table_plot(Figure, t: dict) -> Optional[str]:
    """A category table's shares in A and B, side by side."""
    cats = t["categories"][:20]
    if len(cats) < 2 or len(t["categories"]) > 30:
        return None
    fig = Figure(figsize=(6.4, 0.42 * len(cats) + 1.3))
    ax = fig.add_subplot()
    y = list(range(len(cats)))[::-1]
    for j, (key, label, color) in enumerate((("share_a", "A", A_COLOR), ("share_b", "B", B_COLOR))):
        ax.barh([v + (0.5 - j) * 0.4 for v in y], [100 * (x or 0) for x in t[key][:len(cats)]], height=0.4,
                color=color, label=label)
    ax.set_yticks(y, cats, fontsize=8)
    ax.set_xlabel("% of the games (events) of each version")
    ax.set_title(t["title"], fontsize=10)
    ax.legend(fontsize=8)
    return _png(fig)


def _rows_table(rows: list) -> list:
    e = html.escape
    out = ["<table><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>95% CI of B − A</th><th>p</th>"
           "<th>Holm</th></tr>"]
    for r in rows:
        if r["kind"] in ("proportion", "gap"):
            fa, fb = (f"{100 * r['a']:+.1f} pts", f"{100 * r['b']:+.1f} pts") if r["kind"] == "gap" else \
                (_pct(r["a"]), _pct(r["b"]))
            fd = f"{100 * r['diff']:+.1f} pts"
            ci = f"[{100 * r['ci95'][0]:+.1f}, {100 * r['ci95'][1]:+.1f}]"
        else:
            fa, fb, fd = _sig(r["a"]), _sig(r["b"]), _sig(r["diff"], sign=True)
            ci = "-" if r["ci95"][0] is None else f"[{_sig(r['ci95'][0], sign=True)}, {_sig(r['ci95'][1], sign=True)}]"
        p = "-" if r["p"] is None else ("&lt; 0.001" if r["p"] < 0.001 else f"{r['p']:.3f}")
        q = r.get("p_holm")
        held = q is not None and q < 0.05
        q = "-" if q is None else ("&lt; 0.001" if q < 0.001 else f"{q:.3f}")
        out.append(f"<tr{' style=font-weight:600' if held else ''}><td>{e(r['metric'])}</td><td>{fa}</td>"
                   f"<td>{fb}</td><td>{fd}</td><td>{ci}</td><td>{p}</td><td>{q}</td></tr>")
    out.append("</table>")
    return out


def _impact_side_by_side(Figure, sa: dict, sb: dict) -> list:
    ia, ib = sa.get("card_impact"), sb.get("card_impact")
    if not ia or not ib:
        return []
    out = []
    for cond in ia["conditions"]:
        ca, cb = ia["conditions"].get(cond), ib["conditions"].get(cond)
        if not (ca and ca["cards"]) or not (cb and cb["cards"]):
            continue
        imgs = [impact_plot(Figure, cond, c, f"{side}: {cond}") for side, c in (("A", ca), ("B", cb))]
        if all(imgs):
            out.append(f"<h3>{html.escape(cond)}: {html.escape(ca['meaning'])}</h3>")
            out.append("<div class=side>" + "".join(f"<div>{_img(i, f'per-card impact, {cond}, {side}')}</div>"
                                                    for i, side in zip(imgs, "AB")) + "</div>")
    if out:
        out.insert(0, "<h2>Per-card impact</h2><p>Each card's win rate minus the baseline, in points, with its 95% "
                      f"interval, in each version (p corrected by {html.escape(ia['correction'])} per condition; the "
                      "number after a card's name is the seat-games it counts).</p>")
    return out


def render_compare_html(c: dict, text: str) -> str:
    """The page of one comparison `c` (comparison.compare) and its text report."""
    Figure = require_matplotlib()
    e = html.escape
    a, b, sa, sb = c["a"], c["b"], c["metrics_a"], c["metrics_b"]

    def side(x):
        opts = ", ".join(f"{k}={v}" for k, v in x["options"].items()) or "no options"
        return f"{e(_name(x))} <span class=muted>({e(x['file'])}; {e(opts)})</span>"
    out = page_head(f"cgl compare: {_name(a)} vs {_name(b)}") + [
           f"<h1>{e(_name(a))} against {e(_name(b))}</h1>",
           f"<p><b>A:</b> {side(a)}<br><b>B:</b> {side(b)}</p>",
           f"<p>{a['games']} games each on the same seeds (seed {c['seed']}) · players A {a['players']}, "
           f"B {b['players']}" + (f" · failed games (left out): A {a['failed']}, B {b['failed']}"
                                  if a["failed"] or b["failed"] else "") + "</p>"]
    out += verdict_html(c["verdict"], f"{c['correction']}; {c['tests']} tests")

    out.append("<h2>Differences B − A</h2>")
    out.append("<p class=muted>Each dot is B − A with its 95% interval; filled orange: the difference holds after "
               "Holm's correction, grey: it does not. Proportions: Newcombe's interval; means: Welch's.</p>")
    img = _forest(Figure, c["rows"], "Proportions and skill gaps: B − A", "percentage points", _points)
    if img:
        out.append(_img(img, "differences of proportions"))
    img = _forest(Figure, c["rows"], "Means per game: B − A, relative to A", "% of A's mean", _relative)
    if img:
        out.append(_img(img, "differences of means"))
    out += _rows_table(c["rows"])

    out.append("<h2>Win rates by seat</h2>")
    out.append(_img(_win_rates(Figure, sa, sb), "win rate by seat, A and B"))
    out.append("<h2>Game length</h2>")
    img = _lengths(Figure, sa, sb)
    if img:
        out.append(_img(img, "game length, A and B"))
    out.append("<h2>Score and lead</h2>")
    img = _trajectories(Figure, sa, sb)
    if img:
        out.append(_img(img, "score trajectories, A and B"))
        out.append(f"<p class=muted>{e(sa['trajectory']['meaning'])}.</p>")
    lc_a, lc_b = sa.get("lead_changes"), sb.get("lead_changes")
    img = lead_changes_plot(Figure, [lc_a, lc_b], ["A", "B"])
    if img:
        out.append(_img(img, "lead changes, A and B"))

    if c.get("skill"):
        sk = c["skill"]
        out.append("<h2>Skill gap</h2>")
        out.append(f"<p>{e(sk['a'])} against {e(sk['b'])}, seat-rotated: gap A {100 * sk['gap_a']['gap']:+.1f} pts "
                   f"[{100 * sk['gap_a']['gap_ci95'][0]:+.1f}, {100 * sk['gap_a']['gap_ci95'][1]:+.1f}], "
                   f"B {100 * sk['gap_b']['gap']:+.1f} pts [{100 * sk['gap_b']['gap_ci95'][0]:+.1f}, "
                   f"{100 * sk['gap_b']['gap_ci95'][1]:+.1f}]. {e(sk['verdict'])}.</p>")
    for label, s in (("A", sa), ("B", sb)):
        out += skill_trace_html(Figure, s.get("skill_trace"), f"Skill trace, {label}")

    out.append("<h2>How games end</h2>")
    for t in c["tables"]:
        img = _table_plot(Figure, t)
        if img:
            q = t["p_holm"]
            note = "" if q is None else " (χ² test, Holm " + ("&lt; 0.001" if q < 0.001 else f"= {q:.3f}") + ")"
            out.append(_img(img, t["title"]) + f"<p class=muted>{e(t['title'])}{note}</p>")

    out += _impact_side_by_side(Figure, sa, sb)

    out += page_end(text, "cgl compare")
    return "\n".join(out)


def write_compare_report(path: str, c: dict, text: str) -> None:
    write_text(path, render_compare_html(c, text), "report")
