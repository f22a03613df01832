"""Per-card impact (issue 32): the win rate of the seats a kind of card was with (played,
held at the end, in the opening hand) against the baseline, with intervals and Holm's
correction over the cards; ranked strongest / weakest, in the text and the JSON."""
from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from cgl.cli.main import main

from conftest import DECK_YAML, HEADER

# Two cards each; a turn plays one to the pile (a shared zone: no one holds a card at the
# end). Whoever plays A1 wins; a game without A1 dealt has no winner.
ACE_WINS = """
var points per player = 0
setup { shuffle deck  deal 2 to hand }
match {
  rounds 1
  end { win players where points > 0 }
}
round { until count(players where count(hand(it)) > 0) = 0 }
turn {
  phase play {
    choose c in hand(current) by current "Play a card" {
      if c.name = "A1" { set current.points += 1 }
      move c to pile
    }
  }
}
"""


def _simulate(tmp_path, *extra):
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "ace.cgl"
    path.write_text(HEADER + textwrap.dedent(ACE_WINS))
    r = CliRunner().invoke(main, ["simulate", str(path), "-n", "60", "-p", "2", "-s", "3", "-w", "1", *extra])
    assert r.exit_code == 0, r.output
    return r.stdout


def test_the_card_that_wins_is_the_strongest(tmp_path):
    s = json.loads(_simulate(tmp_path, "--json"))
    imp = s["card_impact"]
    decided = s["results"]["decided"]
    assert abs(imp["baseline"] - decided / (60 * 2)) < 1e-6 and imp["seat_games"] == 120
    played = imp["conditions"]["played"]
    a1 = next(c for c in played["cards"] if c["card"] == "A1")
    assert a1["seats"] == decided and a1["win_rate"] == 1.0   # every seat that played A1 won
    assert a1["ci95"][0] > imp["baseline"] and a1["p_holm"] < 0.05 and a1["p_holm"] >= a1["p"]
    assert played["strongest"][0] == "A1" and "A1" not in played["weakest"]
    assert abs(a1["diff"] - (1.0 - imp["baseline"])) < 1e-6
    opening = imp["conditions"]["opening"]
    assert next(c for c in opening["cards"] if c["card"] == "A1")["win_rate"] == 1.0
    # every card goes to the shared pile: no seat holds one at the end
    assert imp["conditions"]["held"]["cards"] == []
    # a seat that played C1 (two copies) counts once a game
    c1 = next(c for c in played["cards"] if c["card"] == "C1")
    assert c1["seats"] <= 60 * 2


def test_the_text_report_ranks_cards_with_intervals(tmp_path):
    text = _simulate(tmp_path)
    assert "Per-card impact" in text and "Holm" in text
    block = text[text.index("Per-card impact"):]
    lines = block.splitlines()
    i = lines.index("    strongest")
    top = lines[i + 1].split()
    assert top[0] == "A1" and top[2] == "100.0%" and top[-1] == "†"


def test_the_report_plots_the_impact(tmp_path):
    import base64

    import pytest
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    _simulate(tmp_path, "--report", str(page))
    html = page.read_text()
    assert "<h2>Per-card impact</h2>" in html and 'alt="per-card impact, played"' in html
    start = html.index('alt="per-card impact, played" src="data:image/svg+xml;base64,') + len(
        'alt="per-card impact, played" src="data:image/svg+xml;base64,')
    svg = base64.b64decode(html[start:html.index('"', start)]).decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "<script" not in html and 'src="http' not in html
