"""The skill trace (`--skill-trace NAME:LO..HI`, issue 32): each budget against the previous
one, seat-rotated, with Wilson intervals and Holm's correction over the steps; and the score
trajectories a batch keeps for its report."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.analytics import simulate as sim
from cgl.interpreter.analytics.skill import trace_budgets
from cgl.interpreter.analytics.summary import _trajectory

from test_simulate import SKILL, write


def test_trace_budgets_double_from_lo_up_to_hi():
    assert trace_budgets("mcts:25..400") == ("mcts", ["mcts:25", "mcts:50", "mcts:100", "mcts:200", "mcts:400"])
    assert trace_budgets("MCTS:3..10")[1] == ["mcts:3", "mcts:6", "mcts:10"]   # HI last, even off the doublings


@pytest.mark.parametrize("text, says", [
    ("mcts:25", "NAME:LO..HI"), ("mcts:400..25", "larger HI"), ("mcts:0..4", "larger HI"),
    ("random:1..4", "takes no budget"), ("mcst:1..4", "unknown agent"),
])
def test_a_bad_trace_says_what_is_wrong(text, says):
    with pytest.raises(ValueError, match=says):
        trace_budgets(text)


def test_simulate_plays_the_trace_and_reports_each_step(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    args = ["simulate", path, "-n", "4", "-p", "2", "-s", "3", "-w", "1", "--skill-trace", "mcts:1..4",
            "--trace-games", "6"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "Skill trace (mcts, each budget against the previous one, seat-rotated, 6 games a step" in r.output
    assert "mcts:2 vs mcts:1" in r.output and "mcts:4 vs mcts:2" in r.output
    data = json.loads(CliRunner().invoke(main, args + ["--json"]).output)
    t = data["skill_trace"]
    assert t["budgets"] == ["1", "2", "4"] and t["correction"].startswith("Holm")
    for step in t["steps"]:
        assert step["games"] == 6 and step["ci95"][0] <= step["win_rate"] <= step["ci95"][1]
        assert step["p"] <= step["p_holm"] <= 1
    # the steps play what `--skill A,B` plays: the same figures
    one = json.loads(CliRunner().invoke(main, ["simulate", path, "-n", "6", "-p", "2", "-s", "3", "-w", "1",
                                               "--skill", "mcts:4,mcts:2", "--json"]).output)
    assert one["skill"]["all"]["win_rate"] == t["steps"][1]["win_rate"]


def _rec(trace, winners):
    return {"trajectory": trace, "winners": winners}


def test_trajectory_follows_the_winner_and_its_best_rival_and_keeps_final_scores():
    spec = sim.BatchSpec.make("x.cgl", {}, 3, ["random"], 1, score="points")
    # game 1: P2 wins, 3 checks; game 2: P1 wins, 2 checks (its final scores carry on); a game
    # without a winner and one everybody won are left out
    ok = [_rec([[0, 0, 0], [1, 2, 0], [1, 5, 3]], [2]), _rec([[0, 0, 0], [4, 1, 2]], [1]),
          _rec([[0, 0, 0], [9, 9, 9]], []), _rec([[0, 0, 0], [1, 1, 1]], [1, 2, 3])]
    t = _trajectory(spec, ok)
    assert t["games"] == 2 and t["turns"] == [0, 1, 2] and t["still_going"] == [2, 1, 0]
    assert t["winner"]["median"] == [0, 3, 4.5]      # (2, 4), then (5, 4)
    assert t["rival"]["median"] == [0, 1.5, 2.5]     # (1, 2), then (3, 2)
    low = _trajectory(sim.BatchSpec.make("x.cgl", {}, 3, ["random"], 1, score="points", score_direction="low"),
                      ok[:1])
    assert low["winner"]["median"] == [0, 2, 5] and low["rival"]["median"] == [0, 0, 1]
    assert _trajectory(sim.BatchSpec.make("x.cgl", {}, 3, ["random"], 1), ok) is None   # no score: none


def test_compare_runs_the_trace_for_both_versions(tmp_path):
    path = write(tmp_path, "skill.cgl", SKILL)
    r = CliRunner().invoke(main, ["compare", path, "--a-option", "matters=true", "--b-option", "matters=false",
                                  "-n", "4", "-p", "2", "-s", "3", "-w", "1", "--skill-trace", "mcts:1..2",
                                  "--trace-games", "4", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    for side in ("metrics_a", "metrics_b"):
        assert [s["a"] for s in data[side]["skill_trace"]["steps"]] == ["mcts:2"]
