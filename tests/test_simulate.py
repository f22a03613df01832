"""`cgl simulate` and `cgl compare`: seeds, parallel runs, metrics, statistics, errors.

Small batches only: MGT with one round and 2-3 players, and tiny inline rulesets.
"""
from __future__ import annotations

import csv
import json
import math
import re
import sys
import textwrap

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.analytics import simulate as sim
from cgl.interpreter.analytics.skill import compare_skill, skill_gap
from cgl.interpreter.check.loader import load

from conftest import DECK_YAML, HEADER


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def write(tmp_path, name: str, body: str) -> str:
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return str(path)


# A game in which one trigger can never fire, one event is never emitted, and (no
# shuffle: the deck is drawn from the top in data order) four cards are never drawn.
DEAD = """
var points per player = 0
match { rounds 1 }
round { until turn_no >= 4 }
turn {
  phase play {
    draw 1
    choose c in hand(current) by current "Discard a card" { discard c }
    if count(hand(current)) > 5 { emit crowded(player: current) }
  }
}
on discard if rank = 1 as low { set player.points += 1  emit scored(player: player, kind: "low", amount: 1) }
on discard if rank = 99 as never_fires { say "impossible" }
"""

# Turn k gives the current player k points: P1 1, P2 2 (lead changes), P1 4 (changes),
# P2 6 (changes): three lead changes.
LEAD = """
var points per player = 0
match { rounds 1 }
round { until turn_no >= 4 }
turn { start { set current.points += turn_no } }
"""

# The option decides who wins, or a random player wins.
PICK = """
option winner: int in 1..4 = 1 "Who wins"
option fair: bool = false "A random player wins"
match {
  rounds 1
  end { if fair { win random(players) } else { win seat(winner) } }
}
round { start { end round } }
"""

# Each turn the current player picks 1, 2 or 3 points; `prefer n` makes greedy take 3 every
# time, random takes 3 a third of the time. Most points wins (a tie shares the win). With
# `matters=false` every pick is worth 1: every game is a draw, skill cannot show.
SKILL = """
var points per player = 0
option matters: bool = true "The pick counts"
match {
  rounds 1
  end {
    let best = max([p.points for p in players])
    win players where points = best
  }
}
round { until turn_no >= count(players) * 3 }
turn {
  phase pick {
    choose n in [1, 2, 3] by current "Points" prefer n { set current.points += if matters then n else 1 }
  }
}
"""

# LEAD, with a winner: P2, whatever the points.
LEAD_WON = LEAD.replace("match { rounds 1 }", "match { rounds 1  end { win seat(2) } }")

BOOM = """
var points per player = 0
match { rounds 1 }
round { until turn_no >= 2 }
turn { start { set current.points = 1 // 0 } }
"""


# ---------------------------------------------------------------- seeds and workers

def test_game_seeds_are_a_stable_hash_of_batch_seed_and_index():
    assert sim.game_seed(1, 1) == 398990283          # sha256("1:1"), not Python's salted hash
    assert sim.game_seed(1, 2) == 602755083
    seeds = {sim.game_seed(7, i) for i in range(1, 500)}
    assert len(seeds) == 499 and all(0 <= s < 10**9 for s in seeds)


def test_workers_1_and_2_print_byte_identical_json():
    args = ["simulate", "rulesets/mgt.cgl", "-n", 10, "-p", 2, "-o", "rounds=1", "-s", 3, "--json"]
    one = cli(*args, "--workers", 1)
    two = cli(*args, "--workers", 2)
    assert one.exit_code == 0, one.output
    assert two.exit_code == 0, two.output
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["games"] == 10 and data["players"] == 2 and data["agents"] == ["greedy", "greedy"]
    assert list(data)[:4] == ["ruleset", "players", "games", "seed"]
    assert data["length"]["rounds"]["mean"] == 1
    assert set(data["endings"]["reasons"]) <= {"win", "no winner"}


def test_library_batches_do_not_depend_on_the_worker_count(tmp_path):
    path = write(tmp_path, "pick.cgl", PICK)
    rs = load(path, {"fair": "true"})
    spec = sim.BatchSpec.make(path, {"fair": "true"}, 3, ["random"], 11)
    a = sim.run_batch(spec, 30, workers=1)
    b = sim.run_batch(spec, 30, workers=2)
    assert a == b and [r["game"] for r in a] == list(range(1, 31))
    s = sim.summarize(rs, spec, a)
    assert sum(st["wins"] for st in s["results"]["seats"]) == 30


def test_game_i_replays_alone_with_cgl_run(tmp_path):
    out = tmp_path / "games.csv"
    r = cli("simulate", "rulesets/mgt.cgl", "-n", 3, "-p", 3, "-o", "rounds=1", "-s", 42, "--workers", 1,
            "--csv", out)
    assert r.exit_code == 0, r.output
    assert "cgl run rulesets/mgt.cgl --players 3 --agent greedy -o rounds=1 --seed <seed>" in r.stdout
    rows = list(csv.DictReader(out.open()))
    assert [int(x["game"]) for x in rows] == [1, 2, 3]
    row = rows[1]
    assert int(row["seed"]) == sim.game_seed(42, 2)
    run = cli("run", "rulesets/mgt.cgl", "--players", 3, "--agent", "greedy", "-o", "rounds=1", "--seed", row["seed"],
              "--quiet")
    assert run.exit_code == 0, run.output
    m = re.search(r"\((\d+) rounds?, (\d+) turns, (\d+) decisions\)", run.output)
    assert m and int(m.group(2)) == int(row["turns"]) and int(m.group(3)) == int(row["decisions"])
    won = re.search(r"Winners?: (P[\d, P]+) \(", run.output)
    assert (won.group(1).replace(",", "") if won else "") == row["winners"]
    assert ("No winner" in run.output) == (row["winners"] == "")


# ---------------------------------------------------------------- statistics against known values

def close(a, b, tol=1e-4):
    return abs(a - b) <= tol


def test_wilson_interval_matches_published_values():
    # Newcombe (1998), Statistics in Medicine 17:857, table I
    assert all(close(x, y) for x, y in zip(sim.wilson(81, 263), (0.2553, 0.3662)))
    assert all(close(x, y) for x, y in zip(sim.wilson(15, 148), (0.0624, 0.1605)))
    assert all(close(x, y) for x, y in zip(sim.wilson(0, 20), (0.0, 0.1611)))
    assert all(close(x, y) for x, y in zip(sim.wilson(1, 29), (0.0061, 0.1718)))
    # by hand: p = 1/2, n = 10, z = 1.96: centre 0.5, half-width 1.96 * sqrt(0.025 + 0.0096) / 1.384
    z = sim.Z95
    half = z * math.sqrt(0.25 / 10 + z * z / 400) / (1 + z * z / 10)
    assert all(close(x, y, 1e-12) for x, y in zip(sim.wilson(5, 10), (0.5 - half, 0.5 + half)))
    assert sim.wilson(0, 0) == (0.0, 1.0)


def test_binomial_and_proportion_tests():
    assert close(sim.binom_test(682, 925, 0.75), 0.3825)     # R: binom.test(682, 925, p = 3/4)
    assert close(sim.binom_test(0, 10, 0.25), 0.75 ** 10 + sum(sim.binom_pmf(i, 10, 0.25) for i in range(6, 11)))
    assert sim.binom_test(5, 20, 0.25) == pytest.approx(1.0)
    z, p = sim.two_prop_z(56, 70, 48, 80)      # R: prop.test(c(56, 48), c(70, 80), correct = FALSE)
    assert close(z * z, 7.0233, 1e-3) and close(p, 0.00805)
    # Newcombe's hybrid score intervals for a difference, his table II (method 10)
    assert all(close(x, y) for x, y in zip(sim.newcombe(56, 70, 48, 80), (0.0524, 0.3339)))
    assert all(close(x, y) for x, y in zip(sim.newcombe(9, 10, 3, 10), (0.1705, 0.8090)))
    assert all(close(x, y) for x, y in zip(sim.newcombe(0, 10, 0, 20), (-0.1611, 0.2775)))
    z, p = sim.one_prop_z(30, 100, 0.25)        # by hand: (0.3 - 0.25) / sqrt(0.1875 / 100)
    assert close(z, 0.05 / math.sqrt(0.001875), 1e-12) and close(p, math.erfc(abs(z) / math.sqrt(2)), 1e-12)


def test_chi_square_and_t_distributions():
    assert close(sim.chi2_sf(3.841458820694124, 1), 0.05, 1e-9)
    assert close(sim.chi2_sf(5.991464547107979, 2), 0.05, 1e-9)
    assert close(sim.chi2_sf(18.307038053275146, 10), 0.05, 1e-9)
    assert close(sim.chi2_sf(0.5, 3), 0.9188914, 1e-6)
    assert close(sim.t_two_sided(2.0, 5), 0.1019395, 1e-6)          # R: 2 * pt(-2, 5)
    assert close(sim.t_quantile(10), 2.228139, 1e-5)                # R: qt(0.975, 10)
    assert close(sim.t_quantile(1), 12.7062, 1e-3)
    assert close(sim.t_quantile(1e9), 1.959964, 1e-5)
    w = sim.welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])  # R: t.test(c(2,4,6,8,10), c(1,2,3,4,5))
    assert close(w["t"], 1.8974) and close(w["df"], 5.8824) and close(w["p"], 0.1075)
    assert close(w["ci95"][0], -0.887742) and close(w["ci95"][1], 6.887742)
    assert sim.welch([3, 3, 3], [3, 3, 3])["p"] == 1.0
    t = sim.chi2_homogeneity([[10, 20], [20, 10]])  # by hand: expected 15 everywhere, 4 * 25/15
    assert close(t["chi2"], 100 / 15, 1e-12) and t["df"] == 1
    assert sim.chi2_homogeneity([[5, 0], [7, 0]]) is None
    assert sim.percentile([1, 2, 3, 4], 0.5) == 2.5 and sim.percentile([0, 10], 0.1) == 1.0


# ---------------------------------------------------------------- metrics

def test_dead_rules_events_and_cards_are_listed(tmp_path):
    path = write(tmp_path, "dead.cgl", DEAD)
    r = cli("simulate", path, "-n", 8, "-p", 2, "-s", 1, "-w", 1, "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert [d["name"] for d in s["never"]["triggers"]] == ["never_fires"]
    assert s["never"]["triggers"][0]["where"].endswith("dead.cgl:18")
    assert s["fired"]["triggers"]["low"] == {"total": 16, "games": 8}
    assert s["never"]["events"] == ["crowded"]
    assert s["never"]["dead_cards"] == ["A1", "A2", "A3", "B1"]
    ev = s["endings"]["events"]["scored"]
    assert ev["total"] == 16 and ev["by_field"]["kind"] == {"low": 16}
    assert ev["by_field"]["player"] == {"P1": 8, "P2": 8} and ev["numbers"]["amount"]["mean"] == 1
    assert s["results"]["no_winner"] == 8 and s["scores"]["points"]["all"]["mean"] == 1
    text = cli("simulate", path, "-n", 8, "-p", 2, "-s", 1, "-w", 1).stdout
    assert "never_fires (" in text and "events never emitted: crowded" in text
    assert "cards that never left their starting zone: A1, A2, A3, B1" in text


def test_lead_changes_follow_the_strict_leader_after_each_turn(tmp_path):
    path = write(tmp_path, "lead.cgl", LEAD)
    s = json.loads(cli("simulate", path, "-n", 2, "-p", 2, "-s", 1, "-w", 1, "--json").stdout)
    assert s["lead_changes"]["variable"] == "points"
    assert s["lead_changes"]["mean"] == 3 and s["lead_changes"]["games_with_a_change"] == 2


def test_mgt_text_report_has_every_section():
    r = cli("simulate", "mgt", "-n", 4, "-p", 2, "-o", "rounds=1", "-s", 9, "-w", 1, "--agents", "greedy,random")
    assert r.exit_code == 0, r.output
    out = r.stdout
    for part in ("Results by seat", "Wilson score interval", "counts 1/k", "first seat", "Game length",
                 "turns per game:", "How games end", "custom events (emit)", "Scores at the end",
                 "Lead changes (points", "options per decision",
                 "What fired", "triggers: unoffered_discard", "Never fired in 4 games", "P1 greedy, P2 random",
                 "replay one game: cgl run mgt --players 2 --agents greedy,random -o rounds=1 --seed <seed>"):
        assert part in out, part
    assert "\r" not in out and "[####" not in r.output      # no progress bar off a terminal


def test_shared_wins_count_a_fraction_to_each_winner(tmp_path):
    path = write(tmp_path, "all.cgl", """
        match { rounds 1  end { win players } }
        round { start { end round } }
    """)
    s = json.loads(cli("simulate", path, "-n", 5, "-p", 3, "-s", 1, "-w", 1, "--json").stdout)
    res = s["results"]
    assert [st["wins"] for st in res["seats"]] == [pytest.approx(5 / 3)] * 3
    assert res["shared_win"] == 5 and res["draw_all_share"] == 5
    assert "normal approximation" in res["first_seat"]["test"]


def test_failed_games_are_reported_with_their_seed_and_exit_1(tmp_path):
    path = write(tmp_path, "boom.cgl", BOOM)
    r = cli("simulate", path, "-n", 3, "-p", 2, "-s", 1, "-w", 1)
    assert r.exit_code == 1, r.output
    assert f"game 1 (seed {sim.game_seed(1, 1)}): boom.cgl:" in r.stdout and "division by zero" in r.stdout
    assert "Traceback" not in r.output


# ---------------------------------------------------------------- compare

def test_compare_flags_a_difference_that_is_there(tmp_path):
    path = write(tmp_path, "pick.cgl", PICK)
    r = cli("compare", path, "-n", 30, "-p", 2, "-s", 1, "-w", 1, "--a-option", "winner=1", "--b-option", "winner=2",
            "--json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.stdout)
    rows = {x["metric"]: x for x in c["rows"]}
    assert rows["P1 win rate"]["significant"] and rows["P1 win rate"]["diff"] == -1
    assert rows["P2 win rate"]["significant"] and rows["P2 win rate"]["p"] < 1e-6
    assert "two-proportion z-test" in rows["P1 win rate"]["test"]
    assert not rows["turns per game"]["significant"]
    text = cli("compare", path, "-n", 30, "-p", 2, "-s", 1, "-w", 1, "--a-option", "winner=1",
               "--b-option", "winner=2").stdout
    assert re.search(r"P1 win rate .* <0\.001 +\*", text)
    assert "Welch" in text and "Newcombe" in text


def test_compare_notes_an_option_whose_defaults_differ_and_that_nobody_set(tmp_path):
    """Two versions that give one option different defaults (MGT v0.1 plays 1 round, v0.2
    3: issue 31) measure the defaults, not the rules, unless the option is set for both: the
    note says so on stderr (the JSON on stdout stays whole), and is gone once it is set, by
    -o for both or by --a-option and --b-option."""
    a = write(tmp_path, "a.cgl", PICK)
    b = write(tmp_path, "b.cgl", PICK.replace('= 1 "Who wins"', '= 2 "Who wins"'))
    note = "note: option `winner` is 1 in A and 2 in B (their defaults): -o winner=VALUE compares like with like"
    r = cli("compare", a, b, "-n", 4, "-p", 2, "-s", 1, "-w", 1, "--json")
    assert r.exit_code == 0, r.output
    assert note in r.stderr and "fair" not in r.stderr
    assert json.loads(r.stdout)["rows"]
    for flags in (["-o", "winner=2"], ["--a-option", "winner=1", "--b-option", "winner=1"]):
        r = cli("compare", a, b, "-n", 4, "-p", 2, "-s", 1, "-w", 1, *flags)
        assert r.exit_code == 0 and "note:" not in r.stderr, r.output
    r = cli("compare", a, a, "-n", 4, "-p", 2, "-s", 1, "-w", 1)
    assert r.exit_code == 0 and "note:" not in r.stderr, r.output


def test_compare_help_says_how_to_set_an_option_for_one_side_or_both():
    text = cli("compare", "--help").output
    assert "--a-option" in text and "--b-option" in text and "-o rounds=3" in text
    assert "compare like with like" in " ".join(text.split())


def test_compare_finds_nothing_between_identical_versions(tmp_path):
    path = write(tmp_path, "pick.cgl", PICK)
    r = cli("compare", path, path, "-n", 40, "-p", 3, "-s", 2, "-w", 1, "-o", "fair=true", "--json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.stdout)
    assert c["significant"] == 0 and all(x["diff"] == 0 for x in c["rows"])


def test_compare_of_two_files_uses_the_same_seeds(tmp_path):
    a = write(tmp_path, "a.cgl", PICK)
    b = write(tmp_path, "b.cgl", PICK.replace("= 1 \"Who wins\"", "= 2 \"Who wins\""))
    r = cli("compare", a, b, "-n", 25, "-p", 2, "-s", 5, "-w", 1)
    assert r.exit_code == 0, r.output
    assert "A: Test (" in r.stdout and "B: Test (" in r.stdout and "same seeds (seed 5)" in r.stdout


# ---------------------------------------------------------------- skill: seat-rotated tournaments

def test_the_rotation_gives_every_seat_agent_a_equally_often():
    spec = sim.BatchSpec.make("x.cgl", {}, 3, ["greedy", "random", "random"], 1, rotate=True)
    assert [sim.seat_agents(spec, i) for i in (1, 2, 3, 4)] == [
        ("greedy", "random", "random"), ("random", "greedy", "random"), ("random", "random", "greedy"),
        ("greedy", "random", "random")]
    assert [sim.rotated_seat(spec, i) for i in range(1, 8)] == [1, 2, 3, 1, 2, 3, 1]
    seats = [sim.seat_agents(spec, i).index("greedy") for i in range(1, 301)]
    assert [seats.count(s) for s in range(3)] == [100, 100, 100]
    fixed = sim.BatchSpec.make("x.cgl", {}, 3, ["greedy", "random", "random"], 1)
    assert sim.seat_agents(fixed, 2) == ("greedy", "random", "random") and sim.rotated_seat(fixed, 2) is None
    assert sim.rerun_command("x.cgl", spec, 77, 2) == ("cgl run x.cgl --players 3 --agents random,greedy,random "
                                                       "--seed 77")
    assert sim.rerun_command("x.cgl", spec) is None        # no one command for every game of a rotated batch


def _records(winners_by_game):
    return [{"game": i, "winners": w, "reason": "win" if w else "no winner", "error": None}
            for i, w in enumerate(winners_by_game, 1)]


def test_skill_gap_and_its_interval_on_hand_made_games():
    spec = sim.BatchSpec.make("x.cgl", {}, 2, ["greedy", "random"], 1, rotate=True)
    # A sits at P1 in odd games, at P2 in even ones. A wins games 1-5 and 10, shares game 7
    # (1/2), B wins games 6 and 9, game 8 has no winner: 6.5 wins in 10 games.
    recs = _records([[1], [2], [1], [2], [1], [1], [1, 2], [], [2], [2]])
    recs.append({"game": 11, "winners": [1], "reason": "win", "error": "boom"})   # failed: left out
    sk = skill_gap(spec, recs)
    g = sk["all"]
    assert g["wins"] == 6.5 and g["games"] == 10 and g["win_rate"] == 0.65 and g["fair"] == 0.5
    assert g["gap"] == pytest.approx(0.15)
    # Wilson by hand: centre (0.65 + z²/20) / (1 + z²/10), half-width z·√(0.65·0.35/10 + z²/400) / (1 + z²/10)
    z = 1.959963984540054
    centre = (0.65 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.65 * 0.35 / 10 + z * z / 400) / (1 + z * z / 10)
    assert g["ci95"] == pytest.approx([centre - half, centre + half], abs=1e-12)
    assert g["gap_ci95"] == pytest.approx([-0.14633, 0.36307], abs=1e-5)      # [0.35367, 0.86307] - 1/2
    # 6.5 is not whole: the normal approximation, z = 0.15 / √(0.25/10) = 0.94868, p = erfc(z/√2) = 0.34278
    assert g["p"] == pytest.approx(0.342782, abs=1e-6) and not g["significant"] and "normal approximation" in g["test"]
    assert sk["undecided"] == 1 and sk["decided"] == 9 and sk["undecided_reasons"] == {"no winner": 1}
    d = sk["among_decided"]
    assert d["games"] == 9 and d["gap"] == pytest.approx(6.5 / 9 - 0.5)
    # by seat: A at P1 in games 1 3 5 7 9 (3.5 wins), at P2 in 2 4 6 8 10 (3 wins); B at P1 wins game 6,
    # B at P2 wins game 9 and shares game 7
    assert [(st["a_games"], st["a_wins"], st["a_win_rate"], st["b_win_rate"]) for st in sk["seats"]] == [
        (5, 3.5, 0.7, 0.2), (5, 3.0, 0.6, 0.3)]
    assert sk["balanced"] and sk["note"] is None
    # 8 of 10 (whole): the exact binomial test, 2·(1 + 10 + 45)/1024
    sk = skill_gap(spec, _records([[1], [2]] * 4 + [[2], [1]]))
    assert sk["all"]["wins"] == 8 and sk["all"]["p"] == pytest.approx(112 / 1024) and "exact" in sk["all"]["test"]
    # 3 games for 2 seats: A sat at P1 twice
    sk = skill_gap(spec, _records([[1], [2], [1]]))
    assert not sk["balanced"] and sk["note"] == "3 games is not a multiple of 2 players: A sat at the seats " \
                                                "unequally (P1 2, P2 1 games)"
    assert skill_gap(sim.BatchSpec.make("x.cgl", {}, 2, ["greedy", "random"], 1), recs) is None


def test_the_difference_of_two_skill_gaps_uses_newcombes_interval():
    spec = sim.BatchSpec.make("x.cgl", {}, 2, ["greedy", "random"], 1, rotate=True)
    # version A: A wins 48 of 80 games (gap +10 points); version B: 56 of 70 (gap +30 points)
    ra = _records([[1], [2]] * 24 + [[2], [1]] * 16)
    rb = _records([[1], [2]] * 28 + [[2], [1]] * 7)
    c = compare_skill(skill_gap(spec, ra), skill_gap(spec, rb))
    row = c["rows"][0]
    assert row["a"] == pytest.approx(0.1) and row["b"] == pytest.approx(0.3) and row["diff"] == pytest.approx(0.2)
    # Newcombe (1998) table II, 56/70 - 48/80: [0.0524, 0.3339]; R: prop.test(c(56, 48), c(70, 80)): p = 0.00805
    assert row["ci95"] == pytest.approx([0.0524, 0.3339], abs=1e-4) and row["p"] == pytest.approx(0.00805, abs=1e-5)
    assert c["verdict"] == ("skill matters more in B (gap +30.0 points vs +10.0 in A, difference +20.0, "
                            "95% CI [+5.2, +33.4], p = 0.008)")
    # the same 48 wins, but 20 of A's 80 games without a winner: among decided games, 80% in both versions
    undecided = _records([[1], [2]] * 24 + [[2], [1]] * 6 + [[]] * 20)
    c = compare_skill(skill_gap(spec, undecided), skill_gap(spec, rb))
    assert c["rows"][0]["significant"] and c["rows"][1]["diff"] == pytest.approx(0)
    assert c["verdict"].startswith("skill matters more in B (gap +30.0 points vs +10.0 in A, difference +20.0")
    assert c["verdict"].endswith("; but among decided games only the difference +0.0, 95% CI [-13.6, +14.1], "
                                 "p = 1.000: the games without a winner (A 20, B 0), which count as no win, account "
                                 "for the gap between the two figures")
    same = compare_skill(skill_gap(spec, ra), skill_gap(spec, ra))
    assert same["verdict"].startswith("no clear difference in how much skill matters: greedy's gap over random is "
                                      "+10.0 points in A and +10.0 in B")


def test_greedy_beats_random_and_the_report_says_so(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    r = cli("simulate", path, "-n", 20, "-p", 2, "-s", 1, "-w", 1, "--skill", "greedy,random", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    sk = s["skill"]
    assert s["seat_rotation"] and s["agents"] == ["greedy", "random"] and sk["a"] == "greedy"
    assert sk["all"]["gap"] > 0.3 and sk["all"]["p"] < 0.001 and sk["all"]["significant"]
    assert [st["a_games"] for st in sk["seats"]] == [10, 10]
    assert all(st["a_win_rate"] > st["b_win_rate"] for st in sk["seats"])
    assert [st["agent"] for st in s["results"]["seats"]] == ["rotated", "rotated"]
    text = cli("simulate", path, "-n", 20, "-p", 2, "-s", 1, "-w", 1, "--skill", "greedy,random").stdout
    assert "Skill gap: greedy (A) against random (B), seat-rotated" in text
    assert re.search(r"A won [\d.]+ of 20 games, .* against a fair 50\.0%: gap \+\d+\.\d points, 95% CI", text)
    assert "exact binomial test against the fair share" in text or "normal approximation" in text
    assert "by seat (the same seat with A and with B" in text


def test_a_rotated_game_replays_with_the_printed_command(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    out = tmp_path / "games.csv"
    r = cli("simulate", path, "-n", 7, "-p", 2, "-s", 4, "--workers", 1, "--skill", "greedy,random", "--csv", out)
    assert r.exit_code == 0, r.output
    assert "note: 7 games is not a multiple of 2 players: A sat at the seats unequally (P1 4, P2 3 games)" in r.stdout
    rows = list(csv.DictReader(out.open()))
    assert [x["agents"] for x in rows[:3]] == ["greedy random", "random greedy", "greedy random"]
    game2 = f"cgl run {path} --players 2 --agents random,greedy --seed {sim.game_seed(4, 2)}"
    assert f"game 2: {game2}" in r.stdout
    run = cli(*game2.split()[1:], "--quiet")
    assert run.exit_code == 0, run.output
    m = re.search(r"\((\d+) rounds?, (\d+) turns, (\d+) decisions\)", run.output)
    assert m and int(m.group(2)) == int(rows[1]["turns"]) and int(m.group(3)) == int(rows[1]["decisions"])
    won = re.search(r"Winners?: (P[\d, P]+) \(", run.output)
    assert won and won.group(1).replace(",", "") == rows[1]["winners"]


def test_a_skill_batch_is_the_same_on_1_and_2_workers(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    args = ["simulate", path, "-n", 9, "-p", 3, "-s", 2, "--skill", "greedy,random", "--json"]
    one = cli(*args, "--workers", 1)
    two = cli(*args, "--workers", 2)
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert one.stdout == two.stdout
    assert [st["a_games"] for st in json.loads(one.stdout)["skill"]["seats"]] == [3, 3, 3]


def test_compare_skill_says_where_skill_matters_more(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    args = ["compare", path, "-n", 20, "-p", 2, "-s", 3, "-w", 1, "--skill", "greedy,random",
            "--a-option", "matters=false", "--b-option", "matters=true"]
    r = cli(*args, "--json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.stdout)
    rows = {x["metric"]: x for x in c["rows"]}
    gap = rows["skill gap (greedy vs random)"]
    assert gap["a"] == 0 and gap["b"] > 0.3 and gap["significant"] and gap["ci95"][0] > 0
    assert c["skill"]["gap_a"]["win_rate"] == 0.5          # every game a draw: half a win each
    assert "skill gap among decided games" in rows and c["skill"]["note"] is None
    text = cli(*args).stdout
    assert re.search(r"skill gap \(greedy vs random\) +\+0\.0 pts +\+\d+\.\d pts +\+\d+\.\d pts", text)
    assert "Skill gap of greedy against random (seat-rotated) in each version" in text
    assert re.search(r"skill matters more in B \(gap \+\d+\.\d points vs \+0\.0 in A, difference \+\d+\.\d, "
                     r"95% CI \[\+\d+\.\d, \+\d+\.\d\], p < 0\.001\)", text)
    odd = cli("compare", path, "-n", 5, "-p", 2, "-s", 3, "-w", 1, "--skill", "greedy,random").stdout
    assert "note: 5 games is not a multiple of 2 players: A sat at the seats unequally (P1 3, P2 2 games)" in odd


# ---------------------------------------------------------------- undecided games, decisiveness, drama

def test_most_games_undecided_gets_a_warning(tmp_path):
    path = write(tmp_path, "lead.cgl", LEAD)
    r = cli("simulate", path, "-n", 3, "-p", 2, "-s", 1, "-w", 1, "--agent", "random", "--json")
    w = json.loads(r.stdout)["warnings"]
    assert [x["kind"] for x in w] == ["undecided"] and w[0]["games"] == 3
    assert "100% of the games (3 of 3) ended without a winner (no winner 3)" in w[0]["text"]
    assert "--agent greedy" in w[0]["text"]
    text = cli("simulate", path, "-n", 3, "-p", 2, "-s", 1, "-w", 1).stdout
    warning = text.splitlines()[3]
    assert warning.startswith("warning: 100% of the games (3 of 3) ended without a winner")
    assert "`prefer` hints" in warning and "--agent greedy" not in warning      # greedy already
    decided = cli("simulate", write(tmp_path, "pick.cgl", PICK), "-n", 3, "-s", 1, "-w", 1, "--json")
    assert json.loads(decided.stdout)["warnings"] == []


def test_decisiveness_and_drama_of_hand_made_traces():
    # P1 and P2 trade the lead four times; P1 leads alone from the 5th of 7 turns to the end
    trace = [[1, 0], [1, 2], [3, 2], [3, 5], [6, 5], [7, 5], [8, 5]]
    m = sim.lead_metrics(trace, [0])
    assert m["lead_changes"] == 4 and m["decisiveness"] == 3 / 7
    # P1 behind after turns 2 (by 1) and 4 (by 2); the scores range over 0..8
    assert m["drama"] == 1.5 / 8 and m["worst"] == 2 / 8 and m["behind"] == 2 / 7
    # the loser as winner (a game won otherwise than by points): not leading at the end
    m = sim.lead_metrics(trace, [1])
    assert m["decisiveness"] == 0 and m["drama"] == (1 + 1 + 1 + 2 + 3) / 5 / 8 and m["behind"] == 5 / 7
    # lower is better: P2 leads after turns 1, 3, 5, 6, 7 and is behind by 1 and by 2
    m = sim.lead_metrics(trace, [1], lower_is_better=True)
    assert m["lead_changes"] == 4 and m["decisiveness"] == 3 / 7 and m["drama"] == 1.5 / 8
    # a tie for the lead breaks a run; a winner never behind has no drama
    m = sim.lead_metrics([[0, 0], [1, 1], [2, 1]], [0])
    assert m["decisiveness"] == 1 / 3 and m["drama"] == 0 and m["worst"] == 0 and m["lead_changes"] == 0
    assert sim.lead_metrics([[1, 0], [1, 1]], [0])["decisiveness"] == 0
    # led from the first turn: 1; the position before the first turn counts for lead changes only
    m = sim.lead_metrics([[2, 0], [3, 1]], [0], before_first_turn=[0, 1])
    assert m["decisiveness"] == 1 and m["lead_changes"] == 1
    # a shared win: no decisiveness; drama averaged over the winners (P1 never behind, P2 behind 2 of 2 by 1)
    m = sim.lead_metrics([[1, 0], [1, 0]], [0, 1])
    assert m["decisiveness"] is None and m["drama"] == 0.5 and m["behind"] == 0.5
    assert sim.lead_metrics(trace, [])["drama"] is None


def test_decisiveness_and_drama_of_played_games_and_the_score_direction(tmp_path):
    path = write(tmp_path, "won.cgl", LEAD_WON)
    # after each turn: P1 1 · P2 0, 1 · 2, 4 · 2, 4 · 6; P2 wins, leading alone after the last turn only
    s = json.loads(cli("simulate", path, "-n", 2, "-p", 2, "-s", 1, "-w", 1, "--json").stdout)
    assert s["decisiveness"]["mean"] == 0.25 and s["decisiveness"]["led_alone_at_the_end"] == 2
    assert s["drama"]["drama"]["mean"] == pytest.approx(1.5 / 6) and s["drama"]["worst"]["mean"] == pytest.approx(2 / 6)
    assert s["drama"]["behind"]["mean"] == 0.5 and s["drama"]["comebacks"] == 2
    low = json.loads(cli("simulate", path, "-n", 2, "-p", 2, "-s", 1, "-w", 1, "--score-direction", "low",
                         "--json").stdout)
    # lowest leads: P2, P1, P2, P1: the same 3 changes; P2 does not lead at the end
    assert low["lead_changes"]["mean"] == 3 and low["lead_changes"]["direction"] == "low"
    assert low["decisiveness"]["mean"] == 0 and low["decisiveness"]["led_alone_at_the_end"] == 0
    text = cli("simulate", path, "-n", 2, "-p", 2, "-s", 1, "-w", 1, "--score-direction", "low").stdout
    assert "Lead changes (points, lower is better;" in text and "Decisiveness (single-winner games" in text
    assert "Drama (games with a winner" in text
    c = json.loads(cli("compare", path, "-n", 2, "-p", 2, "-s", 1, "-w", 1, "--json").stdout)
    metrics = {x["metric"] for x in c["rows"]}
    assert {"decisiveness (points)", "drama (points)", "drama at its worst (points)"} <= metrics


# ---------------------------------------------------------------- errors, report, dask

@pytest.mark.parametrize("args, text", [
    (["simulate", "no/such.cgl", "-n", 5], "no ruleset file or shipped ruleset"),
    (["simulate", "mgt", "-n", 0], "0 is not in the range"),
    (["simulate", "mgt", "-n", 5, "-o", "roundz=2"], "did you mean `rounds`?"),
    (["simulate", "mgt", "-n", 5, "-o", "rounds"], "is not key=value"),
    (["simulate", "mgt", "-n", 5, "--agent", "smart"], "Invalid value for '--agent'"),
    (["simulate", "mgt", "-n", 5, "-p", 3, "--agents", "greedy,smrt,random"], "unknown agent `smrt`"),
    (["simulate", "mgt", "-n", 5, "-p", 3, "--agents", "greedy,random"], "2 agents for 3 players"),
    (["simulate", "mgt", "-n", 5, "--agent", "greedy", "--agents", "greedy,random"], "not both"),
    (["simulate", "mgt", "-n", 5, "-p", 9], "is for 2 to 6 players, not 9"),
    (["simulate", "mgt", "-n", 5, "--score", "pints"], "did you mean `points`?"),
    (["simulate", "mgt", "-n", 5, "-w", 0], "0 is not in the range"),
    (["compare", "mgt", "-n", 5, "--b-option", "rounds=99"], "must be between 1 and 20"),
    (["compare", "mgt", "nope.cgl", "-n", 5], "no ruleset file or shipped ruleset"),
    (["simulate", "mgt", "-n", 5, "--skill", "greedy"], "`greedy` is not two agents A,B"),
    (["simulate", "mgt", "-n", 5, "--skill", "greedy,random,random"], "is not two agents A,B"),
    (["simulate", "mgt", "-n", 5, "--skill", "gredy,random"], "unknown agent `gredy` (did you mean `greedy`?)"),
    (["simulate", "mgt", "-n", 5, "--skill", "greedy:9,random"], "takes no budget"),
    (["simulate", "mgt", "-n", 5, "--skill", "greedy,random", "--agents", "greedy,random"], "not go with --agents"),
    (["compare", "mgt", "-n", 5, "--skill", "greedy,random", "--agent", "random"], "not go with --agent"),
    (["simulate", "mgt", "-n", 5, "--score-direction", "down"], "'down' is not one of 'high', 'low'"),
    (["simulate", "examples/war.cgl", "-n", 5, "--score-direction", "low"], "there is no score to follow"),
])
def test_bad_input_gets_a_message_and_exit_2(args, text):
    r = cli(*args)
    assert r.exit_code == 2, r.output
    assert text in r.output
    assert "Traceback" not in r.output


def test_report_without_matplotlib_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    page = tmp_path / "r.html"
    r = cli("simulate", write(tmp_path, "pick.cgl", PICK), "-n", 3, "-w", 1, "--report", page)
    assert r.exit_code == 2, r.output
    assert 'pip install "cgl[plot]"' in r.output and not page.exists()


def test_compare_report_without_matplotlib_says_how_to_get_it_before_playing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    page = tmp_path / "c.html"
    r = cli("compare", write(tmp_path, "pick.cgl", PICK), "-n", 3, "-w", 1, "--report", page)
    assert r.exit_code == 2, r.output
    assert 'pip install "cgl[plot]"' in r.output and "games each" not in r.output and not page.exists()


def test_compare_report_is_one_self_contained_page_with_the_verdict_first(tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "c.html"
    r = cli("compare", "examples/high-low.cgl", "--a-option", "target=10", "--b-option", "target=60", "-n", 30,
            "-s", 1, "-w", 1, "--report", page)
    assert r.exit_code == 0, r.output
    html = page.read_text()
    assert html.index("<section class=verdict>") < html.index("<img") and "Holm" in html
    assert html.count("data:image/svg+xml;base64,") >= 4 and "Differences B − A" in html
    assert "<script" not in html and 'src="http' not in html


def test_report_is_one_self_contained_page(tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    r = cli("simulate", write(tmp_path, "dead.cgl", DEAD), "-n", 6, "-p", 2, "-s", 1, "-w", 1, "--agent", "greedy",
            "--report", page)
    assert r.exit_code == 0, r.output
    html = page.read_text()
    assert html.count("data:image/svg+xml;base64,") >= 3
    assert "greedy at every seat" in html and "never_fires" in html and "Game length" in html
    assert "<script" not in html and 'src="http' not in html


def test_dask_without_dask_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    r = cli("simulate", write(tmp_path, "pick.cgl", PICK), "-n", 3, "--dask", "tcp://127.0.0.1:8786")
    assert r.exit_code == 2, r.output
    assert 'pip install "cgl[dask]"' in r.output


def test_dask_cluster_gives_the_same_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = write(tmp_path, "pick.cgl", PICK)
    spec = sim.BatchSpec.make(path, {"fair": "true"}, 3, ["random"], 4)
    skill = sim.BatchSpec.make(write(tmp_path, "skill.cgl", SKILL), {}, 3, ["greedy", "random", "random"], 4,
                               score="points", rotate=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        got = sim.run_batch(spec, 20, dask=cluster.scheduler_address)
        got_skill = sim.run_batch(skill, 9, dask=cluster.scheduler_address)
    assert got == sim.run_batch(spec, 20, workers=1)
    assert got_skill == sim.run_batch(skill, 9, workers=1)


def test_holm_adjusts_each_p_for_the_number_of_tests():
    from cgl.interpreter.analytics.stats import holm
    out = holm([0.01, 0.04, 0.03, None])   # sorted: 0.01 x 3, 0.03 x 2, 0.04 x 1 (but never below the one before)
    assert out[3] is None and out[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_compare_begins_with_a_verdict_whose_every_sentence_has_an_interval():
    """(Issue 32: 26 rows, and multiple testing only in a footnote.)"""
    r = CliRunner().invoke(main, ["compare", "examples/high-low.cgl", "--a-option", "target=10", "--b-option",
                                  "target=60", "-n", "60", "-s", "1", "-w", "1"])
    assert r.exit_code == 0, r.output
    head = r.output.split("\n\n")[1].splitlines()
    assert head[0].startswith("Verdict (B against A; 95 % intervals; p corrected by Holm's method over the")
    sentences = [x for x in head[1:] if x.startswith("  - ")]
    # every sentence, the last too (the tables that differ, or the nearest metric when nothing else does)
    assert len(sentences) >= 4 and all("[" in x and "]" in x and "Holm" in x for x in sentences)
    assert any(x.startswith("  - Length: B's games are longer: +") and "Holm < 0.001" in x for x in sentences)
    assert "Seat balance: No seat wins at another rate in B than in A" in sentences[0]
    data = json.loads(CliRunner().invoke(main, ["compare", "examples/high-low.cgl", "--a-option", "target=10",
                                                "--b-option", "target=60", "-n", "60", "-s", "1", "-w", "1",
                                                "--json"]).output)
    assert data["correction"].startswith("Holm") and data["verdict"] == [x[4:] for x in sentences]
    assert all("p_holm" in row for row in data["rows"])


COIN = textwrap.dedent("""\
    game "Coin" {
      version "1"
      players 2..2
    }
    option bias: int in 1..99 = 50 "P1's chance in percent"
    match {
      rounds 1
      end {
        if d100 <= bias {
          win [first(players)]
        } else {
          win [last(players)]
        }
      }
    }
    round {
      start {
        end round
      }
    }
    """)


def test_compare_says_of_each_version_whether_its_seats_are_fair(tmp_path):
    """(Issue 32: the verdict said whether seats moved between A and B, never whether A or B
    is itself fair.) A fair coin against one that favours P1: the first sentence judges each
    side, with P1's share, its interval and Holm's correction over the family, which grows by
    each side's seat tests."""
    f = tmp_path / "coin.cgl"
    f.write_text(COIN)
    args = ["compare", str(f), "--a-option", "bias=50", "--b-option", "bias=80", "-n", "200", "-s", "1", "-w", "1"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    first = [x for x in r.output.splitlines() if x.startswith("  - ")][0]
    assert first.startswith("  - Seat balance: A is fair, P1 wins 54.0% of decided games [")
    assert "; B is not fair, P1 wins 83.0% of decided games [" in first and "against a fair 50.0%" in first
    data = json.loads(CliRunner().invoke(main, args + ["--json"]).output)
    assert [(x["side"], x["fair"]) for x in data["fairness"]] == [("A", True), ("B", False)]
    holm_p = [x["p_holm"] for x in data["fairness"]]
    assert holm_p[1] < 0.05 <= holm_p[0]
    assert data["tests"] == len(data["rows"]) + sum(1 for t in data["tables"] if t["test"]) + sum(
        len(x["tests"]) for x in data["fairness"])


def test_simulate_begins_with_a_verdict_whose_every_sentence_has_an_interval():
    """(Issue 32: a designer reads the answer first, with its interval.)"""
    r = CliRunner().invoke(main, ["simulate", "examples/war.cgl", "-n", "60", "-s", "1", "-w", "1",
                                  "--skill", "greedy,random"])
    assert r.exit_code == 0, r.output
    block = r.output.split("Verdict (95% intervals; p corrected by Holm")[1].split("\n\n")[0].splitlines()[1:]
    assert [x.split(":")[0] for x in block] == ["  - Seat balance", "  - Decided games", "  - Length",
                                                "  - Skill shows no clear effect"]
    assert all("[" in x and "]" in x for x in block)
    data = json.loads(CliRunner().invoke(main, ["simulate", "examples/war.cgl", "-n", "60", "-s", "1", "-w", "1",
                                                "--skill", "greedy,random", "--json"]).output)
    assert data["verdict"] == [x[4:] for x in block] and data["correction"].startswith("Holm")
