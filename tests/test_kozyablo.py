"""Kozyablo (rulesets/kozyablo.cgl) checks that a scenario file cannot express: the deck
lists (KZ-DECK), the card pool, the set-up of a game (KZ-RACES, KZ-SETUP, KZ-HAND,
KZ-ORDER), and seeded games of every pairing of the four races. The other KZ clauses
have scenarios under tests/scenarios/kozyablo/."""
from __future__ import annotations

import itertools
import pathlib

import pytest
import yaml

from cgl.interpreter.play.game import Game, play

from conftest import load_cached as load   # one load per ruleset and options (conftest.py)

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

ROOT = pathlib.Path(__file__).resolve().parents[1]
RULESETS = ROOT / "rulesets"
RULESET = RULESETS / "kozyablo.cgl"
RACES = ["pozorki", "trutni", "kozly", "zhloby"]
SECTORS = ["Gold Mine", "Crystal Mine", "Energy Source"]
KEYWORDS = {"flying", "area", "two attacks", "archer", "magic attack", "magic weapon", "weapon protection",
            "arrow protection", "magic protection", "shadow", "scout", "undead", "vampirism", "defender", "evasion"}


def _pool():
    return {c["name"]: c for c in yaml.safe_load((RULESETS / "kozyablo-cards.yaml").read_text(encoding="utf-8"))["cards"]}


def _deck(race):
    return yaml.safe_load((RULESETS / "kozyablo-decks" / f"{race}.yaml").read_text(encoding="utf-8"))


def _zone(game, name, seat):
    st = game.state
    return [game.engine.cards[i].name for i in reversed(st.zones[f"{name}:{seat}"])]


# ------------------------------------------------------------------ KZ-DECK, the pool

@pytest.mark.one_engine
@pytest.mark.parametrize("race", RACES)
def test_kz_deck_starter_decks_are_legal(race):
    """KZ-DECK: 15-25 cards besides the capital and the sectors; at most 3 copies of a card;
    one hero (up to 3 copies); only the capital's race; one of each of the three sectors."""
    pool, deck = _pool(), _deck(race)
    assert deck["race"] == race
    cap = pool[deck["capital"]]
    assert cap["kind"] == "capital" and cap["race"] == race
    assert sorted(deck["sectors"]) == sorted(SECTORS)
    assert all(pool[s]["kind"] == "sector" for s in deck["sectors"])
    cards = deck["cards"]
    names = [c["name"] for c in cards]
    assert len(names) == len(set(names)), "each card is listed once, with its copies"
    total = sum(c["copies"] for c in cards)
    assert 15 <= total <= 25, total
    assert all(1 <= c["copies"] <= 3 for c in cards)
    assert all(pool[n]["race"] == race for n in names), "only the capital's race"
    assert all(pool[n]["kind"] not in ("capital", "sector") for n in names)
    heroes = [n for n in names if pool[n]["kind"] == "hero"]
    assert len(heroes) == 1
    for n in names:
        if pool[n]["kind"] == "artifact":
            assert pool[n]["for_hero"] in heroes, n


@pytest.mark.one_engine
@pytest.mark.parametrize("race", RACES)
def test_kz_deck_lists_agree_with_the_card_data(race):
    """KZ-DECK: the game builds each deck from the cards' `starter` copies; they are the deck list,
    and the data holds enough copies for two players of one race."""
    pool, deck = _pool(), _deck(race)
    listed = {c["name"]: c["copies"] for c in deck["cards"]}
    in_data = {n: c["starter"] for n, c in pool.items() if c["race"] == race and c["kind"] != "capital"}
    assert listed == in_data
    for n, c in pool.items():
        assert c.get("count", 1) >= 2 * c["starter"], n


@pytest.mark.one_engine
def test_kz_cards_pool_uses_every_type_and_keyword():
    """KZ-CARDS, KZ-KW-*: the illustrative pool has every card type, every keyword (Armor X and
    Regeneration X as numbers), and the three kinds of magic."""
    pool = _pool()
    kinds = {c["kind"] for c in pool.values()}
    assert kinds == {"capital", "sector", "creature", "hero", "artifact", "magic", "event", "building"}
    used = set().union(*(set(c.get("keywords", [])) for c in pool.values()))
    assert used == KEYWORDS
    assert any(c.get("armor", 0) > 0 and c["kind"] != "capital" for c in pool.values())
    assert any(c.get("regeneration", 0) > 0 for c in pool.values())
    assert {c["duration"] for c in pool.values() if c["kind"] == "magic"} == {"instant", "temporary", "permanent"}
    assert yaml.safe_load((RULESETS / "kozyablo-cards.yaml").read_text())["tables"]["pool"]["status"] == "illustrative"


@pytest.mark.one_engine
def test_kz_races_four_races_each_with_a_capital():
    """KZ-RACES, KZ-CAPITAL: four races; each capital has 12 lives, Armor 2, a garrison and a building limit."""
    pool = _pool()
    caps = [c for c in pool.values() if c["kind"] == "capital"]
    assert sorted(c["race"] for c in caps) == sorted(RACES)
    for c in caps:
        assert c["life"] == 12 and c["armor"] == 2 and c["garrison"] > 0 and c["buildings"] > 0
    assert list(load(str(RULESET)).enums["people"]) == RACES


# ------------------------------------------------------------------ KZ-SETUP, KZ-HAND, KZ-ORDER

def _start(race1, race2, seed=0):
    game = Game(load(str(RULESET), {"race1": race1, "race2": race2}), 2, seed, check_invariants=True)
    return game, game.start()


@pytest.mark.parametrize("race", RACES)
def test_kz_setup_capital_and_three_sectors_and_the_race_deck(race):
    """KZ-SETUP: each player puts their capital and the three sectors on the table; the deck is
    the race's starter deck. KZ-HAND: six cards in hand."""
    game, d = _start(race, "kozly")
    land = _zone(game, "land", 0)
    assert sorted(land) == sorted([f"{race.capitalize()} Capital"] + SECTORS)
    assert len(_zone(game, "hand", 0)) == 6
    total = sum(c["copies"] for c in _deck(race)["cards"])
    assert len(_zone(game, "hand", 0)) + len(_zone(game, "deck", 0)) == total
    assert d.player == 0 and d.labels == ["keep", "mulligan"]


def test_kz_hand_mulligan_costs_three_cards_and_stops_after_three():
    """KZ-HAND: a mulligan puts the top 3 of the deck into the discard pile, shuffles the chosen
    cards back and draws as many; at most three times."""
    game, d = _start("pozorki", "trutni")
    for n in range(1, 4):
        assert d.labels == ["keep", "mulligan"]
        d = game.answer(1)                    # mulligan
        d = game.answer([0, 1])               # two cards go back
        assert len(_zone(game, "hand", 0)) == 6
        assert len(_zone(game, "pile", 0)) == 3 * n
    assert d.player == 1                      # no fourth offer: the next player's hand
    assert game.state.player_vars[0]["mulligans"] == 3


@pytest.mark.parametrize("race1,race2,first", [
    ("zhloby", "pozorki", 1), ("pozorki", "zhloby", 0), ("kozly", "trutni", 1), ("trutni", "kozly", 0),
    ("zhloby", "kozly", 1)])
def test_kz_order_by_race(race1, race2, first):
    """KZ-ORDER: Pozorki first, then Trutni, Kozly, Zhloby."""
    game, d = _start(race1, race2, seed=1)
    while d is not None and d.kind != "action":
        d = game.answer(0 if d.labels[:1] == ["keep"] else list(range(max(d.lo, 1))))
    assert d.player == first


def test_kz_order_same_race_draws_lots():
    """KZ-ORDER: two armies of one race draw lots: over several seeds both seats start."""
    firsts = set()
    for seed in range(12):
        game, d = _start("kozly", "kozly", seed)
        while d is not None and d.kind != "action":
            d = game.answer(0 if d.labels[:1] == ["keep"] else list(range(max(d.lo, 1))))
        firsts.add(d.player)
    assert firsts == {0, 1}


# ------------------------------------------------------------------ whole games

@pytest.mark.parametrize("race1,race2", list(itertools.combinations_with_replacement(RACES, 2)))
def test_kz_smoke_every_pairing_plays_to_the_end(race1, race2):
    """Seeded games of every pairing of races end (a capture, a destroyed capital, or the turn
    limit), with the invariants checked; random and greedy agents."""
    for seed, agents in ((1, ["greedy", "greedy"]), (2, ["random", "greedy"])):
        rs = load(str(RULESET), {"race1": race1, "race2": race2, "max_turns": "120"})
        game = play(rs, 2, seed=seed, agents=agents, check_invariants=True)
        assert game.over


# ------------------------------------------------------------------ KZ-ACT-MOVE, KZ-CAPITAL

def test_kz_capital_the_garrison_move_refuses_fewer_than_the_excess():
    """KZ-ACT-MOVE, KZ-CAPITAL: "следующим действием вы обязаны переместить существ таким
    образом, чтобы не нарушать «правило гарнизона»": five creatures in a capital of garrison 3,
    the enemy gone, the one move takes at least two; one alone is refused (a scenario says what
    is played, not what is refused: this replays its scenario with one creature)."""
    from cgl.interpreter.play import scenario
    path = str(ROOT / "tests" / "scenarios" / "kozyablo" / "KZ-ACT-MOVE.yaml")
    [item] = [s for s in scenario.read(path) if "at least the excess moves out" in str(s.get("scenario"))]
    assert scenario.run(path, item).passed
    item["script"] = [{"P1": "some"}, {"P1": ["Pozorny Scout"]}, {"P1": "Gold Mine of P1"}]
    outcome = scenario.run(path, item)
    assert not outcome.passed
    assert any("choose 2 to 5, not 1" in f for f in outcome.failures), outcome.failures
