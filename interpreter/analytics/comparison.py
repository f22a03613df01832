"""Comparing two versions of a game: two batches played on the same seeds, every metric
side by side with the difference B − A, its 95% interval and its test (:func:`compare`),
and the text report of it (:func:`format_compare`).

Proportions are tested with the two-proportion z-test (Newcombe's interval), means with
Welch's t-test, and distributions over categories with the chi-square test of homogeneity.
"""
from __future__ import annotations

import statistics
from typing import Optional

from .skill import compare_skill
from .stats import ALPHA, _r, chi2_homogeneity, holm, newcombe, two_prop_z, welch
from .summary_text import _agents_text, _names, _p, _pct, _sig, _table, pct_fine, trace_lines


def compare(sa: dict, ra: list, sb: dict, rb: list) -> dict:
    """Differences B - A of two batches played on the same seeds, each with its test."""
    skill = compare_skill(sa.get("skill"), sb.get("skill"))
    rows = (skill["rows"] if skill else []) + _proportion_rows(sa, sb) + _mean_rows(sa, ra, sb, rb)
    tables = _tables(sa, sb)
    fairness = [_fairness("A", sa), _fairness("B", sb)]
    checks = [t for side in fairness for t in side["tests"]]
    tests = len(rows) + sum(1 for t in tables if t["test"]) + len(checks)
    adjusted = holm([r["p"] for r in rows] + [t["p"] for t in tables] + [t["p"] for t in checks])
    for x, q in zip(rows + tables + checks, adjusted):
        x["p_holm"] = q
    for side in fairness:
        side["p_holm"] = min((t["p_holm"] for t in side["tests"]), default=None)
        side["fair"] = None if side["p_holm"] is None else side["p_holm"] >= ALPHA
    return _r({
        "a": _side(sa), "b": _side(sb), "seed": sa["seed"], "agents": sa["agents"],
        "seat_rotation": sa.get("seat_rotation", False), "skill": skill,
        "paired": "both versions play game i with the same seed; the tests treat the two batches as independent "
                  "samples (once the rules differ the games diverge, so pairing adds little)",
        "rows": rows, "tables": tables, "fairness": fairness, "never": _never(sa, sb),
        "verdict": verdict(rows, tables, skill, fairness),
        "correction": "Holm (family-wise error 5 % over every metric and table tested)",
        "tests": tests, "significant": sum(1 for x in rows if x["significant"]) + sum(1 for t in tables
                                                                                    if t["significant"]),
        "metrics_a": sa, "metrics_b": sb,
    })


def _fairness(name: str, s: dict) -> dict:
    """Whether one version's seats are fair on their own: the first seat's share of decided
    games against 1/players, and all seats against equal shares, as `simulate` tests them;
    their p-values join the comparison's family (Holm) in :func:`compare`."""
    res = s["results"]
    if s["players"] < 2:
        return {"side": name, "tests": [], "first_seat": None}
    tests = [dict(kind=k, p=res[key]["p"], test=res[key]["test"]) for k, key in
             (("first seat", "first_seat"), ("all seats alike", "seats_equal"))
             if res.get(key) and res[key].get("p") is not None]
    fs = res.get("first_seat")
    return {"side": name, "tests": tests,
            "first_seat": None if not fs else {k: fs[k] for k in ("share", "ci95", "fair", "decided_games")}}


# ---------------------------------------------------------------- proportions

def _proportion(metric: str, xa: float, na: int, xb: float, nb: int) -> Optional[dict]:
    """The row of a proportion (None when a side has no games to count in)."""
    if not na or not nb:
        return None
    _, p = two_prop_z(xb, nb, xa, na)
    lo, hi = newcombe(xb, nb, xa, na)
    return {"metric": metric, "kind": "proportion", "a": xa / na, "b": xb / nb, "diff": xb / nb - xa / na,
            "ci95": [lo, hi], "p": p, "significant": p < ALPHA,
            "test": "two-proportion z-test (pooled); CI: Newcombe hybrid score"}


def _proportion_rows(sa: dict, sb: dict) -> list:
    """Win rates by seat, the first seat's share, and how often games are decided or not."""
    na = sa["games"] - sa["results"]["failed"]
    nb = sb["games"] - sb["results"]["failed"]
    ra_, rb_ = sa["results"], sb["results"]
    wanted = [(f"P{st_a['seat']} win rate", st_a["wins"], na, st_b["wins"], nb)
              for st_a, st_b in zip(ra_["seats"], rb_["seats"])]
    if ra_["decided"] and rb_["decided"]:
        wanted.append(("P1 share of decided games", ra_["seats"][0]["wins"], ra_["decided"],
                       rb_["seats"][0]["wins"], rb_["decided"]))
    for key, metric in (("decided", "decided games"), ("shared_win", "shared wins"), ("no_winner", "no winner"),
                        ("everyone_lost", "everyone lost")):
        wanted.append((metric, ra_[key], na, rb_[key], nb))
    return [row for row in (_proportion(*w) for w in wanted) if row is not None]


# ---------------------------------------------------------------- means

def _mean(metric: str, a: list, b: list) -> Optional[dict]:
    """The row of a mean per game (None when a side has no values)."""
    if not a or not b:
        return None
    w = welch(a, b)
    return {"metric": metric, "kind": "mean", "a": statistics.fmean(a), "b": statistics.fmean(b),
            "diff": w["diff"], "ci95": w["ci95"], "p": w["p"],
            "significant": w["p"] is not None and w["p"] < ALPHA,
            "test": "Welch t-test (Welch–Satterthwaite df)", "df": w["df"]}


def _col(records, key):
    """The values of `key` in the games that did not fail (and have one: decisiveness needs a winner)."""
    return [r[key] for r in records if not r["error"] and r.get(key) is not None]


def _per_game_ratio(records, num, den):
    return [r[num] / r[den] for r in records if not r["error"] and r[den]]


def _options_mean(records):
    out = []
    for r in records:
        if r["error"] or not r["decisions"]:
            continue
        out.append(sum(int(k) * c for k, c in r["options"].items()) / r["decisions"])
    return out


def _seat_average(records, var):
    return [statistics.fmean(r["scores"][var]) for r in records if not r["error"] and var in r["scores"]]


def _event_counts(records, name):
    return [r["stats"].get(f"event:{name}", 0) for r in records if not r["error"]]


def _shared_events(sa: dict, sb: dict) -> list:
    """The custom events both versions have, in A's order."""
    return [e for e in sa["endings"]["events"] if e in sb["endings"]["events"]]


def _mean_rows(sa: dict, ra: list, sb: dict, rb: list) -> list:
    """Length, decisions, lead changes, scores and custom events per game."""
    wanted = [(f"{key} per game", _col(ra, key), _col(rb, key)) for key in ("turns", "rounds", "decisions")]
    wanted.append(("decisions per turn", _per_game_ratio(ra, "decisions", "turns"),
                   _per_game_ratio(rb, "decisions", "turns")))
    wanted.append(("options per decision", _options_mean(ra), _options_mean(rb)))
    la, lb = sa["lead_changes"], sb["lead_changes"]
    if la and lb and (la["variable"], la["direction"]) == (lb["variable"], lb["direction"]):
        var = la["variable"] + (", lower is better" if la["direction"] == "low" else "")
        wanted.append((f"lead changes ({var})", _col(ra, "lead_changes"), _col(rb, "lead_changes")))
        wanted.append((f"decisiveness ({var})", _col(ra, "decisiveness"), _col(rb, "decisiveness")))
        wanted.append((f"drama ({var})", _col(ra, "drama"), _col(rb, "drama")))
        wanted.append((f"drama at its worst ({var})", _col(ra, "drama_worst"), _col(rb, "drama_worst")))
    for var in [v for v in sa["scores"] if v in sb["scores"]]:
        wanted.append((f"{var} at the end (seat average)", _seat_average(ra, var), _seat_average(rb, var)))
    for name in _shared_events(sa, sb):
        wanted.append((f"event {name} per game", _event_counts(ra, name), _event_counts(rb, name)))
    return [row for row in (_mean(*w) for w in wanted) if row is not None]


# ---------------------------------------------------------------- distributions, sides, dead rules

def _category_table(title: str, ca: dict, cb: dict) -> dict:
    """Counts by category in A and B, with the chi-square test that they share one distribution."""
    cats = sorted(set(ca) | set(cb), key=lambda k: (-(ca.get(k, 0) + cb.get(k, 0)), str(k)))
    test = chi2_homogeneity([[ca.get(k, 0) for k in cats], [cb.get(k, 0) for k in cats]])
    na, nb = sum(ca.values()), sum(cb.values())
    # each category's share in A and B, and B − A with Newcombe's interval (each event or game one trial)
    share_a = [ca.get(k, 0) / na if na else None for k in cats]
    share_b = [cb.get(k, 0) / nb if nb else None for k in cats]
    diff_ci = [list(newcombe(cb.get(k, 0), nb, ca.get(k, 0), na)) if na and nb else None for k in cats]
    return {"title": title, "categories": [str(k) for k in cats], "a": [ca.get(k, 0) for k in cats],
            "b": [cb.get(k, 0) for k in cats], "share_a": share_a, "share_b": share_b,
            "diff": [b - a if a is not None and b is not None else None for a, b in zip(share_a, share_b)],
            "diff_ci95": diff_ci,
            "test": "chi-square test of homogeneity" if test else None,
            "chi2": test["chi2"] if test else None, "df": test["df"] if test else None,
            "p": test["p"] if test else None, "significant": bool(test and test["p"] < ALPHA),
            "small_expected": test["small_expected"] if test else 0}


def _tables(sa: dict, sb: dict) -> list:
    """How games end, and each field of each custom event both versions have."""
    tables = [_category_table("how games end (reason)", sa["endings"]["reasons"], sb["endings"]["reasons"])]
    for name in _shared_events(sa, sb):
        fa = sa["endings"]["events"][name]["by_field"] or {}
        fb = sb["endings"]["events"][name]["by_field"] or {}
        for field in sorted(set(fa) & set(fb)):
            tables.append(_category_table(f"event {name} by {field}", fa[field], fb[field]))
    return tables


def _side(s: dict) -> dict:
    return {"title": s["ruleset"]["title"], "version": s["ruleset"]["version"], "file": s["ruleset"]["file"],
            "options": s["ruleset"]["options"], "players": s["players"], "games": s["games"],
            "failed": s["results"]["failed"]}


def _never(sa: dict, sb: dict) -> dict:
    never = {}
    for key in ("triggers", "reactions", "rules", "actions"):
        never[key] = {"a": [d["name"] for d in sa["never"][key]], "b": [d["name"] for d in sb["never"][key]]}
    never["events"] = {"a": sa["never"]["events"], "b": sb["never"]["events"]}
    never["dead_cards"] = {"a": sa["never"]["dead_cards"], "b": sb["never"]["dead_cards"]}
    return never


# ---------------------------------------------------------------- the text report

# ---------------------------------------------------------------- the verdict

def _holds(x: dict) -> bool:
    return x.get("p_holm") is not None and x["p_holm"] < ALPHA


def _find(rows: list, prefix: str) -> Optional[dict]:
    return next((r for r in rows if r["metric"].startswith(prefix)), None)


def _interval_pct(r: dict) -> str:
    return f"[{r['ci95'][0] * 100:+.1f}, {r['ci95'][1] * 100:+.1f}]"


def _relative(r: dict) -> Optional[str]:
    """A mean's change relative to A, in percent with its interval, when A is not zero."""
    if not r["a"]:
        return None
    k = 100 / r["a"]
    return f"{r['diff'] * k:+.0f} % [{r['ci95'][0] * k:+.0f}, {r['ci95'][1] * k:+.0f}]"


def _said(r: dict) -> str:
    if r.get("p_holm") is None:
        return "no test"
    return f"{_p(r['p'])}, {_p(r['p_holm']).replace('p', 'Holm', 1)}"


def _briefly(x: dict) -> str:
    """A metric or table that differs, in a few words with its interval (B − A)."""
    if "metric" not in x:
        return f"{x['title']}, most in {_moved_most(x)} ({_p(x['p_holm']).replace('p', 'Holm', 1)})"
    if x["kind"] in ("proportion", "gap"):
        return f"{x['metric']} {_pct(x['a'])} → {_pct(x['b'])} {_interval_pct(x)} pts"
    return (f"{x['metric']} {_sig(x['a'])} → {_sig(x['b'])} [{_sig(x['ci95'][0], sign=True)}, "
            f"{_sig(x['ci95'][1], sign=True)}]")


def _moved_most(t: dict) -> str:
    """The category of a table whose share changed most, B − A in points with its interval."""
    i = max((i for i, d in enumerate(t["diff"]) if d is not None and t["diff_ci95"][i]),
            key=lambda i: abs(t["diff"][i]), default=None)
    if i is None:
        return "no category"
    lo, hi = t["diff_ci95"][i]
    return (f"{t['categories'][i]} {pct_fine(t['share_a'][i])} → {pct_fine(t['share_b'][i])} "
            f"[{_pts(lo)}, {_pts(hi)}] pts")


def _fair_said(f: dict) -> Optional[str]:
    """One version's seat balance in a few words: fair or not, P1's share of decided games
    with its interval, and the tests' smallest p before and after Holm's correction."""
    fs = f["first_seat"]
    if fs is None or f["fair"] is None:
        return None
    p = min(t["p"] for t in f["tests"])
    return (f"{f['side']} is {'fair' if f['fair'] else 'not fair'}, P1 wins {fs['share'] * 100:.1f}% of decided "
            f"games [{fs['ci95'][0] * 100:.1f}, {fs['ci95'][1] * 100:.1f}] against a fair {fs['fair'] * 100:.1f}% "
            f"({_p(p)}, {_p(f['p_holm']).replace('p', 'Holm', 1)})")


def verdict(rows: list, tables: list, skill: Optional[dict], fairness: Optional[list] = None) -> list:
    """A few plain sentences first, B against A, each with its figure, its 95 % interval and
    its p-value corrected for every metric tested (Holm): seat balance (each version's own,
    then what moved between them), length, decisiveness and drama, skill, and what else holds
    after the correction."""
    out = []
    seats = [r for r in rows if r["metric"].endswith(" win rate") and r["metric"].startswith("P")]
    each = [x for x in (_fair_said(f) for f in fairness or []) if x]
    if seats:
        worst = max(seats, key=lambda r: abs(r["diff"]))
        moved = [r["metric"].split()[0] for r in seats if _holds(r)]
        who = "no seat wins" if not moved else (f"{moved[0]} wins" if len(moved) == 1 else
                                                 f"{', '.join(moved[:-1])} and {moved[-1]} win")
        out.append("Seat balance: " + ("; ".join(each) + ". " if each else "")
                   + f"{who[0].upper()}{who[1:]} at another rate in B than in A after "
                   f"Holm's correction; the largest change is {worst['metric'].split()[0]}'s "
                   f"{worst['diff'] * 100:+.1f} pts {_interval_pct(worst)} ({_said(worst)}).")
    turns = _find(rows, "turns per game")
    if turns is not None and _relative(turns):
        how = ("longer" if turns["diff"] > 0 else "shorter") if _holds(turns) else "about as long"
        out.append(f"Length: B's games are {how}: {_relative(turns)} turns per game ({_sig(turns['a'])} → "
                   f"{_sig(turns['b'])}; {_said(turns)}).")
    for prefix, word in (("decisiveness", "Decisiveness"), ("drama (", "Drama")):
        r = _find(rows, prefix)
        if r is not None:
            how = ("higher" if r["diff"] > 0 else "lower") if _holds(r) else "no clear change"
            out.append(f"{word}: {how}, {_sig(r['diff'], sign=True)} [{_sig(r['ci95'][0], sign=True)}, "
                       f"{_sig(r['ci95'][1], sign=True)}] ({_sig(r['a'])} → {_sig(r['b'])}; {_said(r)}).")
    gap = next((r for r in rows if r["kind"] == "gap"), None)
    if gap is not None:
        how = ("matters more in B" if gap["diff"] > 0 else "matters less in B") if _holds(gap) else \
            "matters about as much in both"
        out.append(f"Skill {how}: gap {gap['a'] * 100:+.1f} → {gap['b'] * 100:+.1f} pts, difference "
                   f"{gap['diff'] * 100:+.1f} pts {_interval_pct(gap)} ({_said(gap)}).")
    said = {id(x) for x in (turns, gap, *seats, _find(rows, "decisiveness"), _find(rows, "drama (")) if x}
    rest = [r for r in rows if _holds(r) and id(r) not in said] + [t for t in tables if _holds(t)]
    if rest:
        out.append("Also different after Holm's correction: " + "; ".join(_briefly(x) for x in rest) + ".")
    else:
        others = [x for x in rows + tables if id(x) not in said and x.get("p_holm") is not None]
        nearest = min(others, key=lambda x: x["p_holm"], default=None)
        out.append("Nothing else differs after Holm's correction" + (
            f"; the nearest: {_briefly(nearest)} ({_said(nearest)})." if nearest and "metric" in nearest else
            f"; the nearest: {_briefly(nearest)}." if nearest else "."))
    return out


def format_compare(c: dict) -> str:
    """The side-by-side report of :func:`compare`: the verdict first, then every metric."""
    a, b = c["a"], c["b"]
    L = [f"A: {_version_name(a)}", f"B: {_version_name(b)}"]
    L.append(f"{a['games']} games each, on the same seeds (seed {c['seed']}) · players A {a['players']}, "
             f"B {b['players']} · agents: {_agents_text(c['agents'], c['seat_rotation'])}")
    if a["failed"] or b["failed"]:
        L.append(f"failed games (left out): A {a['failed']}, B {b['failed']}")
    L.append("")
    L.append(f"Verdict (B against A; 95 % intervals; p corrected by Holm's method over the {c['tests']} tests):")
    L += [f"  - {line}" for line in c["verdict"]]
    L.append("")
    L += _table([["metric", "A", "B", "B − A", "95% CI of B − A", "p", "Holm", "", ""]]
                + [_row_cells(r) for r in c["rows"]], ["<", ">", ">", ">", ">", ">", ">", "<", "<"])
    L += _skill_lines(c["skill"])
    for side in ("a", "b"):
        L += trace_lines(c[f"metrics_{side}"].get("skill_trace"), f"Skill trace of {side.upper()}")
    for t in c["tables"]:
        L += _category_lines(t)
    L += _dead_lines(c["never"])
    L.append("")
    L.append(f"* significant at 5% (p < 0.05). Proportions (and skill gaps): two-proportion z-test (pooled), CI by "
             f"Newcombe's hybrid score method; means: Welch's t-test (t distribution, Welch–Satterthwaite df); "
             f"end causes and event fields: chi-square test of homogeneity. The batches are treated as independent "
             f"samples (same seeds, but the games diverge). {c['tests']} tests: at 5% about {c['tests'] / 20:.1f} "
             f"may come out significant by chance alone, so the verdict and † go by Holm's correction (the "
             f"column Holm: each p adjusted so that the chance of any false difference among all {c['tests']} "
             f"stays at 5%).")
    return "\n".join(L)


def _version_name(x: dict) -> str:
    return f"{x['title']} {x['version'] or ''}".strip() + f" ({x['file']}" + (
        "; " + ", ".join(f"{k}={v}" for k, v in x["options"].items()) if x["options"] else "") + ")"


def _row_cells(r: dict) -> list:
    """One metric's row: proportions in percent and points, means with a few significant digits."""
    if r["kind"] == "gap":
        fa, fb = f"{r['a'] * 100:+.1f} pts", f"{r['b'] * 100:+.1f} pts"
        fd = f"{r['diff'] * 100:+.1f} pts"
        ci = f"[{r['ci95'][0] * 100:+.1f}, {r['ci95'][1] * 100:+.1f}]"
    elif r["kind"] == "proportion":
        fa, fb = _pct(r["a"]), _pct(r["b"])
        fd = f"{r['diff'] * 100:+.1f} pts"
        ci = f"[{r['ci95'][0] * 100:+.1f}, {r['ci95'][1] * 100:+.1f}]"
    else:
        fa, fb = _sig(r["a"]), _sig(r["b"])
        fd = _sig(r["diff"], sign=True)
        ci = f"[{_sig(r['ci95'][0], sign=True)}, {_sig(r['ci95'][1], sign=True)}]"
    p = "-" if r["p"] is None else ("<0.001" if r["p"] < 0.001 else f"{r['p']:.3f}")
    q = r.get("p_holm")
    q = "-" if q is None else ("<0.001" if q < 0.001 else f"{q:.3f}")
    return [r["metric"], fa, fb, fd, ci, p, q, "*" if r["significant"] else "", "†" if _holds(r) else ""]


def _skill_lines(sk) -> list:
    """Each version's skill gap with its own interval and test, and the answer in words."""
    if not sk:
        return []
    L = ["", f"Skill gap of {sk['a']} against {sk['b']} (seat-rotated) in each version: {sk['a']}'s win rate "
             f"− its fair share; 95% CI: Wilson, shifted"]
    rows = [["", "gap", "95% CI", "p", "win rate", "no winner"]]
    for side, g in (("A", sk["gap_a"]), ("B", sk["gap_b"])):
        lo, hi = g["gap_ci95"]
        rows.append([side, f"{100 * g['gap']:+.1f} pts", f"[{100 * lo:+.1f}, {100 * hi:+.1f}]",
                     "<0.001" if g["p"] < 0.001 else f"{g['p']:.3f}", _pct(g["win_rate"]),
                     f"{sk['undecided'][side.lower()]} of {g['games']}"])
    L += _table(rows)
    L.append(f"  {sk['verdict']}")
    if sk["note"]:
        L.append(f"  note: {sk['note']}")
    many = max(sk["undecided"]["a"] / sk["gap_a"]["games"], sk["undecided"]["b"] / sk["gap_b"]["games"]) > 0.1
    if many and "among decided games" not in sk["verdict"]:
        L.append("  (games without a winner count as no win, so a version with more of them shows a smaller gap; "
                 "see also the row \"skill gap among decided games\")")
    return L


def _category_lines(t: dict) -> list:
    L = [""]
    if t["test"]:
        sig = "  *" if t["significant"] else ""
        L.append(f"{t['title']}: chi-square test of homogeneity, χ² = {t['chi2']:.2f}, df {t['df']}, "
                 f"{_p(t['p'])}{sig}" + ("  (some expected counts < 5: rough)" if t["small_expected"] else ""))
    else:
        L.append(f"{t['title']}: (one category only: no test)")
    trows = [["", "A", "", "B", "", "B − A", "95% CI"]]
    for i, k in enumerate(t["categories"]):
        d, ci = t["diff"][i], t["diff_ci95"][i]
        trows.append([k, t["a"][i], pct_fine(t["share_a"][i]), t["b"][i], pct_fine(t["share_b"][i]),
                      "-" if d is None else f"{100 * d:+.2g} pts" if abs(d) < 0.01 else f"{100 * d:+.1f} pts",
                      "-" if ci is None else f"[{_pts(ci[0])}, {_pts(ci[1])}]"])
    return L + _table(trows)


def _pts(x: float) -> str:
    """A difference of shares in percentage points, with two significant digits below one point."""
    return f"{100 * x:+.2g}" if abs(x) < 0.01 else f"{100 * x:+.1f}"


def _dead_lines(never: dict) -> list:
    """What never fired in one version only."""
    dead = []
    for key, v in never.items():
        if v["a"] != v["b"]:
            only_a = [x for x in v["a"] if x not in v["b"]]
            only_b = [x for x in v["b"] if x not in v["a"]]
            if only_a:
                dead.append(f"  {key} dead in A only: {_names(only_a, 12)}")
            if only_b:
                dead.append(f"  {key} dead in B only: {_names(only_b, 12)}")
    if not dead:
        return []
    return ["", "Never fired (in one version only)"] + dead
