"""`benchmarks/baseline.py` reads `mcts.py`'s output (the decisions, the iterations at each, the
median) and fingerprints a batch of seeded games the same way on whichever engine runs it."""
from __future__ import annotations

import io
import json
import pathlib
import sys
from contextlib import redirect_stdout

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import baseline  # noqa: E402

MCTS_OUT = """Monster Girl Taxonomy 0.2, 4 players, mcts:200; Python 3.11.7
  decision   40 (round 1, turn 26, 9 options: Discard a card): 196 iterations in 0.19 s, 1030/s, 0.97 ms each, sampling 0.13 ms
  decision   47 (round 1, turn 30, 10 options: You hold too many cards: discard one): 195 iterations in 0.18 s, 1092/s, 0.92 ms each, sampling 0.15 ms
median: 948 iterations/s per core, 1.06 ms per iteration, of which 0.14 ms sampling a world
"""


def test_parse_search_reads_decisions_iterations_and_median():
    decisions, median = baseline.parse_search(MCTS_OUT)
    assert median == 948
    assert decisions == [(40, "round 1, turn 26, 9 options: Discard a card", 196),
                         (47, "round 1, turn 30, 10 options: You hold too many cards: discard one", 195)]


def test_parse_search_refuses_other_output():
    with pytest.raises(ValueError):
        baseline.parse_search("no decision was timed\n")


def test_ratio_line_takes_the_median_of_per_turn_ratios():
    line = baseline.ratio_line("x", [10.0, 20.0, 10.0], [25.0, 30.0, 19.0], 2.0)
    assert "median 1.90x" in line and "not met" in line and "1.50-2.50" in line


def _fingerprint(path, players, games):
    out = io.StringIO()
    with redirect_stdout(out):
        assert baseline.worker(["check", str(path), str(players), str(games)]) == 0
    return json.loads(out.getvalue())["hash"]


def test_the_games_fingerprint_depends_on_the_games():
    path = ROOT / "examples" / "high-low.cgl"
    first = _fingerprint(path, 2, 3)
    assert first == _fingerprint(path, 2, 3)
    assert first != _fingerprint(path, 2, 4)
