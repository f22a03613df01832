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
from cgl.interpreter import simulate as sim
from cgl.interpreter.loader import load

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
    assert data["games"] == 10 and data["players"] == 2 and data["agents"] == ["random", "random"]
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
    assert "cgl run rulesets/mgt.cgl --players 3 --agent random -o rounds=1 --seed <seed>" in r.stdout
    rows = list(csv.DictReader(out.open()))
    assert [int(x["game"]) for x in rows] == [1, 2, 3]
    row = rows[1]
    assert int(row["seed"]) == sim.game_seed(42, 2)
    run = cli("run", "rulesets/mgt.cgl", "--players", 3, "--agent", "random", "-o", "rounds=1", "--seed", row["seed"],
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
    assert "cards never drawn nor discarded: A1, A2, A3, B1" in text


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
                 "What fired", "triggers: misc_roll", "Never fired in 4 games", "P1 greedy, P2 random",
                 "with mixed agents use Python"):
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


def test_report_is_one_self_contained_page(tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    r = cli("simulate", write(tmp_path, "dead.cgl", DEAD), "-n", 6, "-p", 2, "-s", 1, "-w", 1, "--agent", "greedy",
            "--report", page)
    assert r.exit_code == 0, r.output
    html = page.read_text()
    assert html.count("data:image/png;base64,") >= 3
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
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        got = sim.run_batch(spec, 20, dask=cluster.scheduler_address)
    assert got == sim.run_batch(spec, 20, workers=1)
