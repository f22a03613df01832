"""Unstable Unicorns, Polish 2nd edition (seed 003): the clauses a scenario cannot show
(the set-up of a game, the number of players, who starts, the two-player rules) and a
smoke test of seeded bot games. Scenarios for the other UU clauses live in
tests/scenarios/unicorns/."""
from __future__ import annotations

import collections
import pathlib
import re

import pytest
import yaml

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game, play

from conftest import load_cached as load   # one load per ruleset and options (conftest.py)

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)


def _after_setup(players, options=None, seed=0):
    """A game after its set-up (each baby pick answered with the first option), stopped at
    the first decision of turn 1: the starting player has already drawn their card."""
    game = Game(load("unicorns", options or {}), players, seed)
    d = game.start()
    while d is not None and d.prompt == "Pick your baby unicorn":
        d = game.answer(0)
    return game.engine


def _zone(eng, name, seat=None):
    key = name if seat is None else f"{name}:{seat}"
    return [eng.cards[i] for i in eng.state.zones[key]]


def test_uu_setup_deck_and_nursery():
    """UU-SETUP: 13 baby unicorns apart (the nursery) and 114 black-backed cards; 5 dealt
    to each player; each player puts one baby in their stable; the rest stay in the nursery."""
    rs = load("unicorns")
    eng = _after_setup(4)
    assert len(eng.cards) == 127
    assert sum(1 for c in eng.cards if c.props["kind"] == "baby") == 13
    for seat in range(4):
        assert len(_zone(eng, "hand", seat)) == (6 if seat == eng.state.current else 5)
        stable = _zone(eng, "stable", seat)
        assert [c.props["kind"] for c in stable] == ["baby"]
    assert len(_zone(eng, "nursery")) == 9
    assert all(c.props["kind"] == "baby" for c in _zone(eng, "nursery"))
    assert len(_zone(eng, "deck")) == 114 - 20 - 1
    assert not any(c.props["kind"] == "baby" for c in _zone(eng, "deck"))
    assert rs is not None


def test_uu_setup_card_counts_match_the_deck_list():
    """UU-TYPES: the deck's types and counts, as in the deck list."""
    eng = _after_setup(3)
    kinds = collections.Counter(c.props["kind"] for c in eng.cards)
    assert kinds == {"baby": 13, "basic": 21, "magical": 31, "magic": 25, "downgrade": 7,
                     "upgrade": 15, "instant": 15}


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_uu_players_two_to_eight(players):
    """UU-PLAYERS: 2 to 8 players; any other number is refused."""
    eng = _after_setup(players)
    assert len([s for s in range(players) if _zone(eng, "stable", s)]) == players


@pytest.mark.one_engine
@pytest.mark.parametrize("players", [1, 9])
def test_uu_players_out_of_range(players):
    """UU-PLAYERS: 1 or 9 players cannot play."""
    with pytest.raises(CglError):
        Game(load("unicorns"), players, 0)


def test_uu_2p_removes_the_list_and_gives_each_a_neigh():
    """UU-2P: with two players every basic unicorn and the 16 listed cards leave the game;
    each player gets a Neigh besides the 5 dealt cards (6 in hand)."""
    eng = _after_setup(2)
    box = _zone(eng, "box")
    assert len(box) == 21 + 19          # 21 basic unicorns; 16 listed names, 19 cards (BLOW UP UNICORN, UNICORN SPEED, UNICORGY have 2)
    assert all(c.props["kind"] == "basic" or c.props["pl"] for c in box)
    pl = {c.props["pl"] for c in box if c.props["pl"]}
    assert len(pl) == 16 and "Eunuchorożec" in pl and "Podwójny agentorożec" in pl
    for seat in (0, 1):
        hand = _zone(eng, "hand", seat)
        assert len(hand) == (7 if seat == eng.state.current else 6)
        assert any(c.name == "THE SAFEWORD IS NEIGH" for c in hand)


def test_uu_2p_option_off():
    """UU-2P: the two-player rules are an option (on by default); off, nothing is removed."""
    eng = _after_setup(2, {"two_player": "false"})
    assert _zone(eng, "box") == []
    assert sorted(len(_zone(eng, "hand", s)) for s in (0, 1)) == [5, 6]


def test_uu_2p_only_with_two_players():
    """UU-2P: with three players the option changes nothing."""
    eng = _after_setup(3)
    assert _zone(eng, "box") == []


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_uu_first_the_darkest_dressed_player_starts(seat):
    """UU-FIRST: the option first_seat names the darkest-dressed player, who takes turn 1."""
    g = play(load("unicorns", {"first_seat": str(seat)}), 3, 0, agents=["random"] * 3)
    lines = [e["text"] for e in g.engine.state.log]
    assert next(t for t in lines if t.startswith("Turn 1:")) == f"Turn 1: P{seat}"


def test_uu_first_random_by_default():
    """UU-FIRST: by default the starting player is drawn at random (seeded)."""
    starters = set()
    for seed in range(12):
        g = play(load("unicorns"), 4, seed, agents=["random"] * 4)
        lines = [e["text"] for e in g.engine.state.log]
        starters.add(next(t for t in lines if t.startswith("Turn 1:")))
    assert len(starters) > 1


OPTIONS = [{}, {"targets": "2", "drinking": "true", "strip": "true"}, {"two_player": "false"}]


@pytest.mark.parametrize("batch", [0, 1])
@pytest.mark.parametrize("players", [2, 4, 8])
def test_unicorns_smoke_seeded_games(players, batch, engine):
    """201 seeded games in all (67 for each of 2, 4 and 8 players, in two batches), random
    and greedy agents, every variant, invariants on (babies never in a hand, the deck or
    the pile; nothing left in limbo; only unicorns, upgrades and downgrades in stables):
    each ends decided. The tree walker plays every fourth of a batch's seeds (54 games, every
    variant with every mix in each batch): it plays the same games as the compiled engine,
    which `test_codegen` shows game by game, and at its speed all 201 would be the slowest
    part of the suite."""
    rulesets = [load("unicorns", o) for o in OPTIONS]
    mixes = [["random"] * players, ["greedy"] * players, (["greedy", "random"] * 4)[:players]]
    ends = collections.Counter()
    seeds = range(batch, 67, 2 if engine == "compiled" else 8)
    for seed in seeds:
        g = play(rulesets[seed % 3], players, seed, agents=mixes[(seed // 3) % 3], check_invariants=True)
        st = g.engine.state
        assert st.finished, seed
        ends["winner" if st.winners else "nobody"] += 1
    assert ends["winner"] >= len(seeds) - 5, ends


@pytest.mark.one_engine
def test_uu_every_card_has_its_effect_id():
    """Every black-backed card of the deck has a UU-CARD-<NAME> ID in unicorns.cgl (its
    effect is encoded; the scenarios named after the IDs prove them)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    src = (root / "rulesets" / "unicorns.cgl").read_text(encoding="utf-8")
    ids = set(re.findall(r"UU-CARD-[A-Z0-9-]+", src))
    cards = yaml.safe_load((root / "rulesets" / "unicorns-cards.yaml").read_text(encoding="utf-8"))["cards"]

    def card_id(name):
        return "UU-CARD-" + re.sub(r"[^A-Z0-9]+", "-", name.upper().replace("'", "")).strip("-")

    missing = [c["name"] for c in cards if c["kind"] != "baby" and card_id(c["name"]) not in ids]
    assert missing == []
    with_effects = [c["name"] for c in cards if c["kind"] in ("magical", "magic", "upgrade", "downgrade")]
    assert len(with_effects) == 65


@pytest.mark.one_engine
def test_uu_turn_begin_cards_are_the_cards_begin_effect_knows():
    """UU-TURN, UU-SIMULTANEOUS: the player orders the effects of `begin_cards`, and
    `begin_effect` runs them: every card named in one is named in the other, so no
    beginning-of-turn effect is left out of the order, nor ordered and then do nothing."""
    from cgl.interpreter.base import ast as A
    rs = load("unicorns")
    listed = {t.constant for t in rs.defs["begin_cards"].expr.items}
    branches = {n.constant for n in A.walk(rs.procedures["begin_effect"].body)
                if isinstance(n, A.Text) and n.constant is not None}
    cards = {c.name for c in rs.cards}
    assert listed <= cards
    assert listed == branches & cards
