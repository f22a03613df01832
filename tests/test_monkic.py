"""monkic (seed 002): the clauses a scenario file cannot express — the set-up of a game
(players, deck, life points, the simple variant, the XXL deal, who starts) — and a smoke
test of many seeded games. Scenarios for the other MON clauses live in tests/scenarios/monkic/."""
from __future__ import annotations

import collections

import pytest

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game, play

from conftest import load_cached as load   # one load per ruleset and options (conftest.py)

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

CARD_NAMES = 42   # monsters, curses and the two special cards (the XXL cards are not in the deck)
XXL_NAMES = {"XXL Drache", "Pings"}
XXL_COPIES = 4    # one copy of each XXL card per player, kept out of the pile (MON-XXL)


def _after_setup(options=None, seed=0):
    """A game stopped at its first decision (rock-paper-scissors), after the setup."""
    game = Game(load("monkic", options or {}), 2, seed)
    game.start()
    return game.engine


def _zone(eng, name, seat=None):
    key = name if seat is None else f"{name}:{seat}"
    return [eng.cards[i] for i in eng.state.zones[key]]


@pytest.mark.one_engine
def test_mon_players_two_only():
    """MON-PLAYERS: the game is played by two."""
    rs = load("monkic")
    assert (rs.game.min_players, rs.game.max_players) == (2, 2)
    for n in (1, 3):
        with pytest.raises(CglError):
            Game(rs, n, 0)


@pytest.mark.parametrize("sets", [2, 3, 10])
def test_mon_deck_sets_copies_of_the_card_set(sets):
    """MON-DECK: the deck is `sets` (2-10, default 3) copies of the card set; the others stay in the box."""
    eng = _after_setup({"sets": str(sets)})
    in_play = _zone(eng, "stock") + [c for s in (0, 1) for c in _zone(eng, "table", s)]
    counts = collections.Counter(c.name for c in in_play)
    assert len(counts) == CARD_NAMES
    assert set(counts.values()) == {sets}
    assert len(_zone(eng, "box")) == CARD_NAMES * (10 - sets) + XXL_COPIES


def test_mon_deck_default_is_three_sets():
    """MON-DECK: three sets by default."""
    eng = _after_setup()
    assert collections.Counter(c.name for c in _zone(eng, "stock")).most_common(1)[0][1] <= 3
    assert len(_zone(eng, "stock")) + 14 == CARD_NAMES * 3


@pytest.mark.parametrize("life", [20, 40])
def test_mon_setup_seven_cards_on_each_table_and_life(life):
    """MON-SETUP: each player gets 7 cards onto the table (none in the hand) and 20 (or 40) life points."""
    eng = _after_setup({"life": str(life)})
    for seat in (0, 1):
        assert len(_zone(eng, "table", seat)) == 7
        assert _zone(eng, "hand", seat) == []
        assert eng.state.player_vars[seat]["lp"] == life


def test_mon_setup_life_default_20():
    """MON-SETUP: 20 life points by default."""
    eng = _after_setup()
    assert [eng.state.player_vars[s]["lp"] for s in (0, 1)] == [20, 20]


def test_mon_simple_removes_superpower_and_elemente():
    """MON-SIMPLE: the simple variant takes SuperPower and Elemente out of the game."""
    eng = _after_setup({"simple": "true"})
    in_play = _zone(eng, "stock") + [c for s in (0, 1) for c in _zone(eng, "table", s)]
    names = {c.name for c in in_play}
    assert "SuperPower" not in names and "Elemente" not in names
    assert len(names) == CARD_NAMES - 2
    full = _after_setup()
    names_full = {c.name for c in _zone(full, "stock") + _zone(full, "table", 0) + _zone(full, "table", 1)}
    assert {"SuperPower", "Elemente"} <= names_full


def test_mon_xxl_off_by_default_no_xxl_card_dealt():
    """MON-XXL: without the option `xxl` nobody gets an XXL card, and none is in the pile or on a table."""
    eng = _after_setup()
    for seat in (0, 1):
        assert _zone(eng, "reserve", seat) == []
    in_play = _zone(eng, "stock") + [c for s in (0, 1) for c in _zone(eng, "table", s)]
    assert not XXL_NAMES & {c.name for c in in_play}
    assert {c.name for c in _zone(eng, "box")} >= XXL_NAMES


@pytest.mark.parametrize("seed", range(12))
def test_mon_xxl_deal_one_xxl_card_each_besides_the_seven(seed):
    """MON-XXL: at the deal each player also gets one XXL card (beside the 7 on the table);
    XXL cards are never in the pile; which one is random, for each player on their own."""
    eng = _after_setup({"xxl": "true"}, seed)
    for seat in (0, 1):
        reserve = _zone(eng, "reserve", seat)
        assert len(reserve) == 1 and reserve[0].name in XXL_NAMES
        assert len(_zone(eng, "table", seat)) == 7
        assert not XXL_NAMES & {c.name for c in _zone(eng, "table", seat)}
        assert _zone(eng, "hand", seat) == []
    assert not XXL_NAMES & {c.name for c in _zone(eng, "stock")}
    assert len([c for c in _zone(eng, "box") if c.name in XXL_NAMES]) == XXL_COPIES - 2


def test_mon_xxl_deal_is_random_and_may_repeat_a_card():
    """MON-XXL: over many deals each XXL card goes to each seat, and both players sometimes get the same one."""
    pairs = set()
    for seed in range(60):
        eng = _after_setup({"xxl": "true"}, seed)
        pairs.add(tuple(_zone(eng, "reserve", s)[0].name for s in (0, 1)))
    assert pairs == {(a, b) for a in XXL_NAMES for b in XXL_NAMES}


def test_mon_xxl_cards_never_drawn_in_whole_games():
    """MON-XXL: XXL cards are never drawn and never in the pile (the invariant
    xxl_never_in_pile is checked after every turn); an XXL card enters play only by a trade."""
    traded = 0
    for seed in range(40):
        g = play(load("monkic", {"xxl": "true"}), 2, seed, agents=["greedy", "random"], check_invariants=True)
        log = g.engine.state.log
        # never drawn, never dealt: the only moves of an XXL card out of the stock are set-up's
        assert not any(e["type"] in ("draw", "deal") and e.get("card") in XXL_NAMES for e in log), seed
        assert any(e["type"] == "move" and e.get("card") == "Pings" for e in log)
        traded += sum(1 for e in log if " trades " in e.get("text", ""))
    assert traded > 0


def test_mon_round_rock_paper_scissors_winner_starts():
    """MON-ROUND: the players who agree who starts let that player start; otherwise
    rock-paper-scissors decides, and the winner takes the first turn."""
    how = set()
    for seed in range(10):
        g = play(load("monkic"), 2, seed, agents=["random", "random"])
        lines = [e["text"] for e in g.engine.state.log]
        line = next(t for t in lines if "wins rock-paper-scissors" in t or t.startswith("Both agree:"))
        how.add(line.startswith("Both agree:"))
        starter = line.split()[0] if not line.startswith("Both agree:") else line.split()[2]
        first_turn = next(t for t in lines if t.startswith("Turn 1:"))
        assert first_turn.endswith(starter)
    assert how == {True, False}   # both ways were seen


VARIANTS = [
    {},
    {"life": "40"},
    {"simple": "true"},
    {"sets": "2"},
    {"sets": "10"},
    {"grave_fight": "true"},
    {"simple": "true", "grave_fight": "true", "sets": "5"},
    {"life": "40", "grave_fight": "true"},
    {"xxl": "true"},
    {"xxl": "true", "grave_fight": "true", "life": "40"},
    {"xxl": "true", "simple": "true"},
]
MIXES = [["random", "random"], ["greedy", "greedy"], ["greedy", "random"], ["random", "greedy"]]


def test_monkic_smoke_200_games(engine):
    """200 seeded games, every variant option, random and greedy agents, invariants on:
    each ends with a winner, or is called after max_rounds with a clear end reason. The
    tree walker plays every third (67, every variant with every mix among them): the same
    games as the compiled engine's, as `test_codegen` shows game by game."""
    ends = collections.Counter()
    rulesets = [load("monkic", options) for options in VARIANTS]
    seeds = range(200) if engine == "compiled" else range(0, 200, 3)
    for seed in seeds:
        options = VARIANTS[seed % len(VARIANTS)]
        agents = MIXES[(seed // len(VARIANTS)) % len(MIXES)]
        g = play(rulesets[seed % len(VARIANTS)], 2, seed, agents=agents, check_invariants=True)
        st = g.engine.state
        assert st.finished
        assert st.winners or st.end_reason, (seed, options, agents)
        ends["winner" if st.winners else st.end_reason] += 1
    assert ends["winner"] >= len(seeds) - 10, ends
