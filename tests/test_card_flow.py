"""Card flow: every change of zone a card makes is counted (by card and by the zones
involved), so that a dead card is one that never left its starting zone (issue 32).

Before, only `draw` and `discard` statements were counted: a card dealt by `deal` or
played by `move` was reported as never drawn nor discarded, a false alarm.
"""
from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.cli.new import write as new_folder
from cgl.interpreter.base.protocol import CARD_STATS
from cgl.interpreter.play.game import play

from conftest import DECK_YAML, HEADER

MOVED, FLOW = CARD_STATS["move"], CARD_STATS["flow"]

# No shuffle: the deck is in data order, top last (C1, C1, B3, B2, B1, A3, A2, A1 from the
# top). Setup deals one card to each of 2 players (P1 C1, P2 C1) and moves the next (B3) to
# the pile; each of the 2 turns the current player swaps its card with the top of the
# deck, then plays the card it got to the table with `move`.
FLOW_GAME = """
zone table: shared, public
setup { deal 1 to hand  move top(deck, 1) to pile }
match { rounds 1 }
round { until turn_no >= 2 }
turn {
  phase play {
    swap first(hand(current)) with first(top(deck, 1))
    move first(hand(current)) to table
  }
}
"""


def _stats(tmp_path, engine: str) -> dict:
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "flow.cgl"
    path.write_text(HEADER + textwrap.dedent(FLOW_GAME))
    from cgl.interpreter.check.loader import load
    g = play(load(str(path)), 2, seed=1, agents=["random", "random"], record=False, engine=engine)
    return {k: v for k, v in g.result.stats.items() if k.startswith((MOVED, FLOW))}


@pytest.mark.parametrize("engine", ["tree", "compiled"])
def test_every_zone_change_counts_by_card_and_by_zones(tmp_path, engine):
    s = _stats(tmp_path, engine)
    # deal: 2 cards deck>hand; move: 1 deck>pile; swap: 2 turns x (hand>deck and deck>hand);
    # move: 2 cards hand>table
    assert s == {
        FLOW + "deck>hand": 4, FLOW + "deck>pile": 1, FLOW + "hand>deck": 2, FLOW + "hand>table": 2,
        # C1: both copies dealt (2); P1 swaps its C1 for B2 (1), P2 its C1 for that C1 on
        # top of the deck (2) and plays it (1); B2 swapped into P1's hand and played; B3 to
        # the pile
        MOVED + "C1": 6, MOVED + "B2": 2, MOVED + "B3": 1,
    }


def test_both_engines_count_the_same(tmp_path):
    assert _stats(tmp_path, "tree") == _stats(tmp_path, "compiled")


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_tutorial_game_has_no_dead_card(tmp_path):
    """`cgl new`'s game deals every card and plays it with `move`: none is dead."""
    new_folder(str(tmp_path / "my-game"))
    r = _cli("simulate", tmp_path / "my-game" / "my-game.cgl", "-n", 20, "-p", 3, "-s", 1, "-w", 1, "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["never"]["dead_cards"] == []
    assert s["cards"]["flows"]["deck>hand"] == 20 * 9 and s["cards"]["flows"]["hand>table"] == 20 * 9
    assert sum(s["cards"]["moved"].values()) == 20 * 9 * 2
    text = _cli("simulate", tmp_path / "my-game" / "my-game.cgl", "-n", 20, "-p", 3, "-s", 1, "-w", 1).stdout
    assert "never left their starting zone" not in text and "never drawn" not in text
    assert "deck>hand 180" in text


def test_a_dead_card_is_one_that_never_left_its_starting_zone(tmp_path):
    """Only the cards left in the deck are dead: dealt and moved cards are not."""
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "flow.cgl"
    path.write_text(HEADER + textwrap.dedent(FLOW_GAME))
    s = json.loads(_cli("simulate", path, "-n", 3, "-p", 2, "-s", 1, "-w", 1, "--json").stdout)
    assert s["never"]["dead_cards"] == ["A1", "A2", "A3", "B1"]
    assert s["cards"]["moved"]["C1"] == 18 and s["cards"]["dealt"]["C1"] == 6
