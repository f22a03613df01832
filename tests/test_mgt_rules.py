"""Monster Girl Taxonomy clauses that a scenario file cannot express: the ones about the
set-up of a game or round (players, deck, deal), the sequence of rounds of a match, and
what other players get to see of a discard. Scenarios for the other MGT clauses live in
tests/scenarios/mgt/."""
from __future__ import annotations

import collections
import pathlib
import re

import pytest

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game, play

from conftest import load_cached as load   # one load per ruleset and options (conftest.py)
from cgl.interpreter.play.scenario import setup_position

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

VERSIONS = ["mgt", "mgt-v0.1"]
SEED_000 = pathlib.Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_4fce4d2829cfac8a.txt"

# Members per type, counted by hand in the taxonomy list of the v0.2 rules (seed 000).
TYPE_SIZES = {
    "FIEND": 13, "SEMISOLID LIFE FORM": 9, "DEMIHUMAN": 5, "BEASTMAN": 41, "PLANT": 8, "FUNGUS": 1,
    "ARTHROPOD": 18, "AVIAN": 8, "REPTILIAN": 13, "SPRITE": 4, "ELF": 2, "DWARF": 1, "PISCINE": 4,
    "AQUATIC DEMIHUMAN": 6, "MOLLUSKAN DEMIHUMAN": 4, "MIMETIC DEMIHUMAN": 3, "TENTACLE MONSTER": 1,
    "MAGICAL MATERIAL": 10, "UNDEAD": 15, "MONSTROSITY": 5, "MAGE": 11, "ELEMENTAL": 9, "ANGEL": 6,
    "CRUSTACEAN DEMIHUMAN": 1, "MONOCULAR DEMIHUMAN": 1, "ONI DEMIHUMAN": 1, "MERMAID": 1,
}
BEASTMAN_FAMILIES = {
    "WOLF": 6, "CAT": 5, "RABBIT": 2, "SHEEP": 1, "BEAR": 2, "ORC": 1, "BAT": 1, "CENTAUR": 5,
    "MINOTAUR": 3, "EX-GIANT": 1, "MOUSE": 3, "FOX": 2, "APEMAN": 1, "MERMAID": 1, "SATYROS": 1,
    "WENDIGO": 1, "TIGER": 1, "SIMIAN": 1, "WEASEL": 2, "TANUKI": 1,
}
NATURES = {"aggressive", "cheerful", "mean", "honest", "impatient", "proud", "loyal", "miscellaneous", "other"}


def _cards(version="mgt"):
    game = Game(load(version), 2, 0)
    eng = game.engine
    return eng, eng.cards


# ------------------------------------------------------------------ MGT-PLAYERS

@pytest.mark.parametrize("version", VERSIONS)
def test_mgt_players_two_to_six(version):
    """MGT-PLAYERS: 2-6 players (both versions): 2 to 6 can play, 1 and 7 cannot."""
    rs = load(version)
    assert (rs.game.min_players, rs.game.max_players) == (2, 6)
    for n in range(2, 7):
        assert Game(rs, n, 0).players == n
    for n in (1, 7):
        with pytest.raises(CglError):
            Game(rs, n, 0)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("players", [2, 6])
def test_mgt_players_extremes_play_a_whole_match(version, players):
    """MGT-PLAYERS: a match with the fewest (2) and the most (6) players plays to the end."""
    game = play(load(version), players=players, seed=3, agents=["greedy"] * players, check_invariants=True)
    assert game.over
    assert len(game.result.players) == players


# ------------------------------------------------------------------ MGT-DECK

@pytest.mark.parametrize("version", VERSIONS)
def test_mgt_deck_has_201_cards_with_type_family_and_nature(version):
    """MGT-DECK: the deck is the 201 monsters of the taxonomy list (the text says 200), each
    with a type, a family and a nature."""
    eng, cards = _cards(version)
    assert len(cards) == 201
    assert len({c.name for c in cards}) == 201
    for c in cards:
        assert c.props["type"] and c.props["family"], c.name
        assert eng.attr_of(c, "nature")[1] in NATURES, c.name


def test_mgt_deck_types_and_beastman_families_match_the_taxonomy():
    """MGT-DECK: the types (top level) and, for BEASTMAN, the families (second level) hold as
    many monsters as the taxonomy list of the v0.2 rules."""
    _, cards = _cards()
    assert dict(collections.Counter(c.props["type"] for c in cards)) == TYPE_SIZES
    assert dict(collections.Counter(c.props["family"] for c in cards
                                    if c.props["type"] == "BEASTMAN")) == BEASTMAN_FAMILIES
    by_name = {c.name: c.props for c in cards}
    assert (by_name["Succubus"]["type"], by_name["Succubus"]["family"]) == ("FIEND", "SUCCUBUS")
    assert (by_name["Imp"]["type"], by_name["Imp"]["family"]) == ("FIEND", "IMP")
    assert (by_name["Pixie"]["type"], by_name["Pixie"]["family"]) == ("SPRITE", "IMP")
    assert (by_name["Otohime"]["type"], by_name["Otohime"]["family"]) == ("MERMAID", "DRAGON")


@pytest.mark.skipif(not SEED_000.is_file(), reason="the rules text (shared/seeds) is not available")
def test_mgt_deck_names_follow_the_taxonomy_list_of_the_rules():
    """MGT-DECK: the deck holds exactly the monsters named in the taxonomy list of the rules
    text, in its order (footnote marks and notes in brackets dropped)."""
    text = SEED_000.read_text(encoding="utf-8")
    text = text[text.index("01. FIEND"):]
    names = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:- )?\s*\d+\.\s+(.*?)\**\s*$", line)
        if not m:
            continue
        name = m.group(1).strip().strip("*").strip()
        if name.upper() == name:      # a type or a family heading
            continue
        name = re.sub(r"\s*\(.*\)$", "", name)
        name = re.sub(r"\s+\d+$", "", name)   # "Imp 79"
        names.append(name)
    _, cards = _cards()
    assert names == [c.name for c in cards]


# ------------------------------------------------------------------ MGT-DEAL

def _round_starts(version, players, seed, options=None):
    """Snapshots (hand sizes, table sizes, stock, pile) at the first turn of every round."""
    rs = load(version, options or {})
    game = Game(rs, players, seed, check_invariants=True)
    snaps = []
    st = game.state

    def listen(entry):
        if entry.get("type") == "turn" and entry.get("turn") == 1:
            snaps.append({
                "round": st.round_no,
                "hands": [len(st.zones[f"hand:{p}"]) for p in range(players)],
                "tables": [len(st.zones[f"table:{p}"]) for p in range(players)],
                "stock": len(st.zones["stock"]),
                "pile": len(st.zones["pile"]),
                "aside": sum(len(st.zones[f"aside:{p}"]) for p in range(players)),
            })
    game.engine.listeners.append(listen)
    from cgl.interpreter.play.game import GreedyAgent
    agents = [GreedyAgent(p, seed) for p in range(players)]
    d = game.start()
    while d is not None:
        d = game.answer(agents[d.player].decide(d))
    return game, snaps


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_mgt_deal_every_player_draws_eight_at_the_start(version, players):
    """MGT-DEAL: every player draws 8 cards at the start; the rest is the stock, less the
    cards discarded back to eight after an impatient monster's extra draw (decision 21)."""
    game, snaps = _round_starts(version, players, seed=7)
    first = snaps[0]
    assert first["round"] == 1
    # (a discard back to eight may be claimed, MGT-CLAIM: then the claimer holds a set on the table)
    assert [h + t for h, t in zip(first["hands"], first["tables"])] == [8] * players
    assert first["stock"] == 201 - 8 * players - first["pile"] - first["aside"]


def test_mgt_deal_v02_every_round_starts_with_a_fresh_deal_of_eight():
    """MGT-DEAL: in v0.2 every round starts with all cards back in the stock and a new deal of
    8 to every player; only the proud monsters set aside stay out (MGT-N-PROUD)."""
    game, snaps = _round_starts("mgt", 4, seed=2)
    assert [s["round"] for s in snaps] == [1, 2, 3]
    # (set aside for the match: a proud monster discarded back to eight in a deal, too)
    asides = [s["aside"] for s in snaps]
    assert asides == sorted(asides) and asides[-1] > 0
    for s in snaps:
        assert [h + t for h, t in zip(s["hands"], s["tables"])] == [8] * 4
        assert s["stock"] == 201 - 32 - s["aside"] - s["pile"]
    # the deal is a draw (decision 21): 32 cards and one more for each impatient monster's extra draw
    deals, before_play = collections.Counter(), False
    rnd = 0
    for e in game.state.log:
        if e.get("type") == "round":
            rnd += 1
            before_play = True
        elif e.get("type") == "turn":
            before_play = False
        if before_play and e.get("type") in ("deal", "draw") and "card" in e:
            deals[rnd] += 1
    assert sorted(deals) == [1, 2, 3] and all(n >= 32 for n in deals.values()), deals


# ------------------------------------------------------------------ MGT-ROUNDS

def _round_results(game):
    """Points won per player in each round, from the play-by-play."""
    out = []
    for e in game.state.log:
        m = re.match(r"P(\d+) completes \w+ and wins the round: (\d+) points\.", e["text"])
        if m:
            out.append((int(m.group(1)), int(m.group(2))))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mgt_rounds_v02_plays_several_rounds_and_sums_points(seed):
    """MGT-ROUNDS: v0.2 plays several rounds (3 by default); a round that ends lets the next one
    start; each player's points are summed over the rounds; most points at the end wins."""
    game = play(load("mgt"), players=4, seed=seed, agents=["greedy"] * 4, check_invariants=True)
    res = game.result
    assert res.rounds == 3
    assert sum(1 for e in game.state.log if e.get("type") == "round") == 3
    won = _round_results(game)
    assert won, "no round was won"
    totals = [0] * 4
    for p, pts in won:
        totals[p - 1] += pts
    assert [pl["points"] for pl in res.players] == totals
    best = max(totals)
    assert res.winners == [p + 1 for p in range(4) if totals[p] == best]


def test_mgt_rounds_v02_a_won_round_is_followed_by_the_next_round():
    """MGT-ROUNDS: in v0.2 the round won by a player is not the end: the next round begins, and
    points won earlier are kept."""
    game = play(load("mgt"), players=3, seed=5, agents=["greedy"] * 3, check_invariants=True)
    log = game.state.log
    first_win = next(i for i, e in enumerate(log) if "wins the round" in e["text"])
    later = [e["text"] for e in log[first_win + 1:] if e.get("type") == "round"]
    assert later and later[0] == "Round 2 begins"
    assert game.result.rounds == 3


def test_mgt_rounds_v02_number_of_rounds_is_an_option():
    """MGT-ROUNDS: "several rounds (3-4)": the match can be set to 4 rounds."""
    game = play(load("mgt", {"rounds": "4"}), players=3, seed=4, agents=["greedy"] * 3, check_invariants=True)
    assert game.result.rounds == 4
    assert sum(1 for e in game.state.log if e.get("type") == "round") == 4


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mgt_rounds_v01_plays_several_rounds_like_v02_when_asked(seed):
    """MGT-ROUNDS, decision 3: v0.1 keeps the `rounds` option, so `-o rounds=3` plays it as
    v0.2's match (`cgl compare … -o rounds=3` compares like with like): points are summed,
    most points wins."""
    rs = load("mgt-v0.1", {"rounds": "3"})
    game = play(rs, players=4, seed=seed, agents=["greedy"] * 4, check_invariants=True)
    res = game.result
    assert res.rounds == 3
    assert sum(1 for e in game.state.log if e.get("type") == "round") == 3
    totals = [0] * 4
    for p, pts in _round_results(game):
        totals[p - 1] += pts
    assert [pl["points"] for pl in res.players] == totals
    best = max(totals)
    assert res.winners == ([p + 1 for p in range(4) if totals[p] == best] if best > 0 else [])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mgt_rounds_v01_is_the_single_hand_of_its_document_by_default(seed):
    """MGT-ROUNDS, decision 3 (follows the text, issue 31): the v0.1 document describes one
    hand and never speaks of rounds, so v0.1 plays one round unless told otherwise: the
    player who completes the hand wins; a hand that runs the stock dry has no winner."""
    rs = load("mgt-v0.1")
    assert rs.option_values["rounds"] == 1
    game = play(rs, players=4, seed=seed, agents=["greedy"] * 4, check_invariants=True)
    res = game.result
    assert res.rounds == 1
    assert sum(1 for e in game.state.log if e.get("type") == "round") == 1
    won = _round_results(game)
    assert len(won) <= 1
    assert res.winners == [p for p, _ in won]


# ------------------------------------------------------------------ MGT-N-PROUD across rounds
# Scenarios play within one round, so the match-long ban (decision 13: "do końca gry", until
# the end of the game, i.e. the match) is tested here, through the engine.

def _zone_of(game, name):
    card = next(c for c in game.engine.cards if c.name == name)
    return game.state.where[card.id]


def test_mgt_proud_ban_and_set_aside_monster_survive_the_start_of_a_round():
    """MGT-N-PROUD: a ban made in an earlier round holds in the next one, and the set-aside
    proud monster stays aside: a new round's deal does not bring it back into the stock."""
    game = Game(load("mgt"), 2, 0, check_invariants=True)
    setup_position(game, "test_mgt_rules", {
        "zones": {"aside P1": ["Sphinx"], "aside P2": ["Demon"]},
        "players": {"P1": {"banned": ["CAT"]}, "P2": {"banned": ["FIEND"]}},
    })
    seen = []
    game.engine.listeners.append(lambda e: seen.append(e["text"]))
    d = game.start()                      # the next round starts: all cards back, shuffle, deal
    assert d is not None
    st = game.state
    assert st.round_no == 2
    assert _zone_of(game, "Sphinx") == "aside:0" and _zone_of(game, "Demon") == "aside:1"
    assert list(st.player_vars[0]["banned"]) == ["CAT"]
    assert list(st.player_vars[1]["banned"]) == ["FIEND"]
    in_play = sum(len(st.zones[k]) for k in st.zones if not k.startswith("aside"))
    assert in_play == 201 - 2
    assert not any("Sphinx" in t or "Demon" in t for t in seen)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mgt_proud_set_aside_monster_stays_out_for_the_whole_match(version, seed):
    """MGT-N-PROUD: a proud monster set aside is never dealt, drawn or moved again in the match
    (`cgl run mgt -p 4 -s 1` used to deal P1's set-aside Sphinx again in round 2)."""
    game = play(load(version, {"rounds": "3"}), players=4, seed=seed, agents=["greedy"] * 4,
                check_invariants=True)
    log = game.state.log
    rounds = [i for i, e in enumerate(log) if e.get("type") == "round"]
    assert len(rounds) == 3
    asides = [(i, e["card"], e["player"]) for i, e in enumerate(log)
              if e.get("type") == "move" and "to aside(" in e["text"]]
    assert any(i < rounds[-1] for i, _, _ in asides), "nothing set aside before the last round"
    for i, name, p in asides:
        assert not [e["text"] for e in log[i + 1:] if e.get("card") == name], name
        assert _zone_of(game, name) == f"aside:{p - 1}"


def _key(game, card):
    return game.engine.attr_of(card, "key")[1]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_mgt_proud_bans_last_the_whole_match(version, seed):
    """MGT-N-PROUD: over a whole match, no ban is ever lifted and no set-aside monster ever
    comes back; a round winner never counts a card of a type they banned earlier in the
    match, except in an exposed set laid before the ban (decision 13)."""
    game = Game(load(version), 4, seed, check_invariants=True)
    st, eng = game.state, game.engine
    by_id = {c.id: c for c in eng.cards}
    snaps, problems = [], []

    def snapshot():
        return ([set(st.player_vars[p]["banned"]) for p in range(4)],
                [set(st.zones[f"aside:{p}"]) for p in range(4)])

    def listen(e):
        if e.get("type") == "round" or (e.get("type") == "turn" and e.get("turn") == 1):
            snaps.append((e.get("type"), snapshot()))
        m = re.match(r"P(\d+) completes (\w+) and wins the round", e["text"])
        if m and m.group(2) != "orphans_and_one":
            p = int(m.group(1)) - 1
            banned = set(st.player_vars[p]["banned"])
            bad = [by_id[i].name for i in st.zones[f"hand:{p}"] if _key(game, by_id[i]) in banned]
            if bad:
                problems.append(f"P{p + 1} wins with banned cards in hand: {bad}")
    eng.listeners.append(listen)
    from cgl.interpreter.play.game import GreedyAgent
    agents = [GreedyAgent(p, seed) for p in range(4)]
    d = game.start()
    while d is not None:
        d = game.answer(agents[d.player].decide(d))
    assert not problems, problems
    final = snapshot()
    seq = [s for _, s in snaps] + [final]
    assert any(any(b) for b in final[0]), "nobody banned anything: pick another seed"
    for before, after in zip(seq, seq[1:]):
        for p in range(4):
            assert before[0][p] <= after[0][p], f"P{p + 1}'s ban was lifted"
            assert before[1][p] <= after[1][p], f"a monster P{p + 1} set aside came back"


# ------------------------------------------------------------------ MGT-ANNOUNCE

OTHER_HANDS = {
    "hand P2": ["Unicorn", "Nightmare", "Cockatrice", "Echidna", "Slime Carrier", "Akaname", "Gnome", "Glacies"],
}


def _discard_position(discard, hand, cards=None):
    game = Game(load("mgt"), 2, 0, check_invariants=True)
    start = setup_position(game, "test_mgt_rules", {
        "turn": "P1",
        "zones": {"stock": ["Troll", "Slime"], "hand P1": hand, **OTHER_HANDS},
        "cards": cards or {},
    })
    d = game.start(start_turn=start, max_turns=1)
    assert d.player == 0 and d.prompt == "Discard a card"
    mark = len(game.state.log)
    d = game.answer(next(i for i, o in enumerate(d.options) if getattr(o, "name", None) == discard))
    assert d is None
    return game, mark


def _seen_by(game, seat, since):
    return [e["text"] for e in game.state.log[since:] if "to" not in e or seat in e["to"]]


def test_mgt_announce_a_discard_is_shown_to_every_player():
    """MGT-ANNOUNCE: every discard is public: the other player sees which monster was
    discarded (its type and nature are public card data)."""
    game, mark = _discard_position("Alice", ["Alice", "Hobgoblin", "Grizzly", "Holstaur", "Mothman",
                                             "Sandworm", "Mummy", "Zombie"])
    view = game.engine.view(1)
    pile = next(z["cards"] for z in view["zones"] if z["label"] == "pile")
    assert len(pile) == 1 and pile[0]["label"].startswith("Alice")
    assert any("P1 discards Alice" in t for t in _seen_by(game, 1, mark))
    alice = next(c for c in game.engine.cards if c.name == "Alice")
    assert alice.props["type"] == "FIEND"
    assert game.engine.attr_of(alice, "nature")[1] == "other"


def test_mgt_announce_the_rolled_nature_of_a_miscellaneous_monster_is_announced():
    """MGT-ANNOUNCE: the nature said aloud on a discard is the monster's actual nature; for a
    miscellaneous monster that is the rolled one (its roll at the draw was private), so the
    other players must be told it when it is discarded."""
    game, mark = _discard_position("Alp", ["Alp", "Hobgoblin", "Grizzly", "Holstaur", "Mothman",
                                           "Sandworm", "Mummy", "Zombie"], cards={"Alp": {"rolled": "loyal"}})
    seen = _seen_by(game, 1, mark)
    view = game.engine.view(1)
    shown = seen + [c["label"] for z in view["zones"] if z["label"] == "pile" for c in z["cards"]]
    assert any("Alp" in t and "loyal" in t for t in shown), (
        "P2 is never told that the discarded Alp is loyal; P2 sees: " + " | ".join(shown))
