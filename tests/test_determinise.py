"""Determinisation: a game as one seat may imagine it (issue 15).

`Game.determinised(seat, rng)` deals anew what the seat cannot see. It must never read
what the seat may not see: two games that differ only in hidden cards give the same
world for the same random source. What the seat knows stays put: its own cards, public
zones, and cards it saw go into a hidden zone; a shuffle or a move it did not see makes
it forget.
"""
from __future__ import annotations

import random

import pytest

from cgl.interpreter.play.agents import RandomAgent
from cgl.interpreter.play.game import Game
from conftest import load_cached

pytestmark = pytest.mark.both_engines


def _at_decision(rs, players, seed, at):
    game = Game(rs, players, seed, forkable=True)
    agents = [RandomAgent(i, seed) for i in range(players)]
    d = game.start()
    while d is not None and len(game.answers) < at:
        d = game.answer(agents[d.player].decide(d))
    assert d is not None
    return game, d


def _hidden_unknown(game, seat):
    eng, st = game.engine, game.state
    return [(key, i, cid) for key, ids in sorted(st.zones.items()) if not eng.sees_zone(eng.zone_ref(key), seat)
            for i, cid in enumerate(ids) if cid not in st.known[seat]]


def _swap(game, a, b):
    """Exchange two cards in the game's state, where they lie (a difference nobody saw)."""
    st = game.state
    (ka, ia, ca), (kb, ib, cb) = a, b
    st.zones[ka][ia], st.zones[kb][ib] = cb, ca
    st.where[ca], st.where[cb] = kb, ka


@pytest.mark.parametrize("name,players", [("mgt", 3), ("unicorns", 3), ("kozyablo", 2)])
def test_games_that_differ_only_in_hidden_cards_give_the_same_worlds(name, players):
    rs = load_cached(name)
    game, d = _at_decision(rs, players, 11, 25)
    seat = d.player
    other = game.fork()
    hidden = _hidden_unknown(other, seat)
    by_zone = {}
    for h in hidden:
        by_zone.setdefault(h[0], []).append(h)
    zones = sorted(by_zone, key=lambda k: -len(by_zone[k]))
    # a card of one hidden zone exchanged with a card of another (or two of one zone)
    a = by_zone[zones[0]][0]
    b = by_zone[zones[1]][-1] if len(zones) > 1 else by_zone[zones[0]][-1]
    assert a[2] != b[2]
    _swap(other, a, b)
    assert other.state.zones != game.state.zones
    for k in range(3):
        w1 = game.determinised(seat, random.Random(k))
        w2 = other.determinised(seat, random.Random(k))
        assert w1.state.zones == w2.state.zones and w1.state.where == w2.state.where
        assert w1.state.rng.getstate() == w2.state.rng.getstate()
        p1, p2 = w1.pending, w2.pending
        assert (p1.player, p1.kind, p1.prompt, p1.labels) == (p2.player, p2.kind, p2.prompt, p2.labels)
        assert (p1.player, p1.labels) == (d.player, d.labels)


@pytest.mark.parametrize("name,players", [("mgt", 4), ("monkic", 2)])
def test_a_world_keeps_what_the_seat_sees_and_deals_the_rest_anew(name, players):
    rs = load_cached(name)
    game, d = _at_decision(rs, players, 5, 12)
    seat = d.player
    eng, st = game.engine, game.state
    worlds = [game.determinised(seat, random.Random(k)) for k in range(6)]
    for w in worlds:
        for key, ids in st.zones.items():
            if eng.sees_zone(eng.zone_ref(key), seat):
                assert w.state.zones.get(key) == ids, key      # what it sees, as it is
            else:
                assert len(w.state.zones.get(key, [])) == len(ids), key   # hidden: the same size
                for i, cid in enumerate(ids):
                    if cid in st.known[seat]:
                        assert w.state.zones[key][i] == cid    # what it knows stays put
        assert sorted(c for ids in w.state.zones.values() for c in ids) == list(range(len(rs.cards)))
        assert all(w.state.where[c] == k for k, ids in w.state.zones.items() for c in ids)
    hidden = {k for k in st.zones if not eng.sees_zone(eng.zone_ref(k), seat) and st.zones[k]}
    assert any(w.state.zones[k] != st.zones[k] for w in worlds for k in hidden)   # something was dealt anew
    assert game.state is st and st.zones == game.state.zones                     # the game untouched


def test_what_a_seat_saw_it_knows_until_it_loses_sight(make_rules):
    rs = make_rules("""
        zone stash: per player, hidden
        match { rounds 1 }
        round {
          start {
            deal 3 to hand
            move first(deck) to stash(seat(2))
            move first(hand(seat(1))) to stash(seat(2))
          }
          until turn_no >= 2
        }
        turn { phase p {
          choose c in hand(current) by current "Give a card" { move c to hand(next_after(current)) }
          if turn_no = 2 { shuffle stash(seat(2)) }
        } }
    """)
    game = Game(rs, 2, 3, forkable=True)
    d = game.start()
    st = game.state
    given = st.zones["stash:1"]
    assert len(given) == 2
    # P1 moved its own card into P2's hidden stash: P1 knows it; the deck's top card it never saw
    assert given[-1] in st.known[0] and given[0] not in st.known[0]
    assert given[-1] not in st.known[1]      # P2 cannot look into its stash and was not shown it
    for k in range(8):
        w = game.determinised(0, random.Random(k))
        assert w.state.zones["stash:1"][-1] == given[-1]
    mine = st.zones["hand:0"][-1]
    d = game.answer(d.labels.index(rs.cards[mine].name))   # P1 gives it to P2: both saw it
    assert mine in st.known[0] and mine in st.known[1]
    d = game.answer(0)
    assert game.pending is None
    assert not set(st.zones["stash:1"]) & st.known[0]     # the shuffle: where in the stash, nobody knows


def test_a_world_reads_where_each_card_lies_in_it(make_rules):
    """A derived property that reads where its card lies ("place", cached until the card
    moves) reads, in a world, where the card was dealt there, not where it lay in the game
    the world was imagined from."""
    rs = make_rules("""
        derive spot = "{zone} of {owner(it)}"
        match { rounds 1 }
        round { start { deal 3 to hand } until turn_no >= 2 }
        turn { phase p {
          say "{count([c.spot for c in all_cards])} spots"
          choose c in hand(current) by current "Discard a card" { discard c }
        } }
    """)
    game = Game(rs, 2, 5, forkable=True)
    d = game.start()
    eng = game.engine
    before = {c.id: eng.attr_of(c, "spot")[1] for c in eng.cards}   # every spot read, and kept
    moved = 0
    for k in range(6):
        w = game.determinised(d.player, random.Random(k))
        weng = w.engine
        for c in weng.cards:
            z = weng.zone_of_card(c)
            owner = weng.zone_owner(z)
            assert weng.attr_of(c, "spot")[1] == f"{z.name} of {'none' if owner is None else f'P{owner + 1}'}"
            moved += weng.attr_of(c, "spot")[1] != before[c.id]
    assert moved   # some hidden cards were dealt elsewhere


def test_a_world_does_not_know_what_others_chose_in_secret(make_rules):
    """Inside `simultaneously`, a seat answering after another has not seen that answer:
    its worlds imagine it anew (a random legal answer), and are the same whatever the
    other seat chose. (They replayed it: a search bot at rock-paper-scissors saw the
    other hand.)"""
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          let ha = none
          let hb = none
          simultaneously {
            choose x in ["rock", "paper", "scissors"] by seat(1) "Rock, paper or scissors?" { set ha = x }
            choose y in ["rock", "paper", "scissors"] by seat(2) "Rock, paper or scissors?" { set hb = y }
          }
          say "{ha} against {hb}"
        } }
    """)
    seen = []
    for first in range(3):
        game = Game(rs, 2, 1, forkable=True)
        d = game.start()
        assert d.player == 0
        d = game.answer(first)
        assert d.player == 1 and d.secret
        seen.append([game.determinised(1, random.Random(k)).answers for k in range(8)])
    assert seen[0] == seen[1] == seen[2]
    assert len({tuple(a) for a in seen[0]}) > 1      # imagined, not known
    game = Game(rs, 2, 1, forkable=True)
    game.start()
    game.answer(2)
    assert all(game.determinised(0, random.Random(k)).answers == [2] for k in range(4))   # its own answer it knows


def _redealt_as_written(game, seat, rng):
    """`determinised` as first written (issue 15), the straightforward way: every place of
    a zone hidden from `seat` whose card it does not know, in zone key order, filled from
    those cards sorted and shuffled. What `determinised` deals must stay exactly this."""
    twin = game.fork(forkable=False, unseen_by=(seat, rng))
    eng, st = twin.engine, twin.state
    keep = set(game.state.known[seat])
    if game.pending is not None:
        keep.update(o.id for o in game.pending.options if hasattr(o, "props"))
    slots, pool = [], []
    for key in sorted(st.zones):
        if eng.sees_zone(eng.zone_ref(key), seat):
            continue
        for i, cid in enumerate(st.zones[key]):
            if cid not in keep:
                slots.append((key, i))
                pool.append(cid)
    pool.sort()
    rng.shuffle(pool)
    for (key, i), cid in zip(slots, pool):
        st.zones[key][i] = cid
        st.where[cid] = key
    st.rng = random.Random(rng.getrandbits(64))
    return twin, len(pool) < sum(len(st.zones[k]) for k in {k for k, _ in slots})


@pytest.mark.parametrize("name,players", [("mgt", 4), ("unicorns", 3), ("kozyablo", 2), ("monkic", 2)])
def test_a_world_is_dealt_as_the_straightforward_redeal_deals_it(name, players):
    """The redeal deals whole zones at once where the seat knows none of their cards: the
    same worlds, card for card and draw for draw, as the redeal place by place."""
    rs = load_cached(name)
    agents = [RandomAgent(i, 2) for i in range(players)]
    game = Game(rs, players, 2, forkable=True, record=False)
    d = game.start()
    partly_known = worlds = 0
    while d is not None and len(game.answers) < 160:
        if len(game.answers) % 9 == 4:
            for k in range(2):
                want, partly = _redealt_as_written(game, d.player, random.Random(k))
                got = game.determinised(d.player, random.Random(k))
                assert got.state.zones == want.state.zones and got.state.where == want.state.where
                assert got.state.rng.getstate() == want.state.rng.getstate()
                assert got.answers == want.answers
                partly_known += partly
                worlds += 1
        d = game.answer(agents[d.player].decide(d))
    assert worlds >= 6
    if name == "mgt":
        assert partly_known    # a hidden zone with cards the seat knows (a claimed discard in a hand)


def test_whether_a_seat_sees_a_zone_under_a_card_follows_the_card(make_rules):
    """Whether a seat may look into a zone is remembered per zone key, except for a zone
    under a card: its owner is whoever holds the card, which moves."""
    rs = make_rules("""
        zone table: per player, public
        zone under: per card, owner
        match { rounds 1 }
        round {
          start {
            deal 2 to hand
            move first(deck) to table(seat(1))
            move first(deck) to under(first(table(seat(1))))
          }
          until turn_no >= 2
        }
        turn { phase p {
          choose c in hand(current) by current "Ready?" {
            if count(table(seat(1))) > 0 { move first(table(seat(1))) to table(seat(2)) }
          }
        } }
    """)
    game = Game(rs, 2, 1, forkable=True)
    game.start()
    eng, st = game.engine, game.state
    host = st.zones["table:0"][0]
    key = f"under@{host}"
    assert st.zones[key]
    assert key not in eng.hidden_keys(st.zones, 0) and key in eng.hidden_keys(st.zones, 1)
    game.answer(0)
    assert st.zones["table:1"] == [host]
    assert key in eng.hidden_keys(st.zones, 0) and key not in eng.hidden_keys(st.zones, 1)
    for seat in (0, 1):
        assert eng.hidden_keys(st.zones, seat) == [k for k in sorted(st.zones)
                                                   if not eng.sees_zone(eng.zone_ref(k), seat)]


@pytest.mark.parametrize("name,players", [("mgt", 4), ("unicorns", 3)])
def test_the_places_kept_for_a_decisions_worlds_are_given_only_where_they_hold(name, players):
    """`determinised` keeps the places it deals for the decision pending and gives them again
    while a world's hidden zones hold the same cards (`Game._places_to_deal`): at every
    decision, for two seats each dealt twice, a world is the one worked out afresh (nothing
    kept), so a kept answer is never given for another decision, seat or position."""
    rs = load_cached(name)
    agents = [RandomAgent(i, 5) for i in range(players)]
    game = Game(rs, players, 5, forkable=True, record=False)
    d = game.start()
    kept = 0
    while d is not None and len(game.answers) < 90:
        for seat in (d.player, (d.player + 1) % players):
            for k in range(2):
                kept += game._deal is not None
                got = game.determinised(seat, random.Random(k))
                game._deal = None
                fresh = game.determinised(seat, random.Random(k))
                assert got.state.zones == fresh.state.zones and got.state.where == fresh.state.where
                assert got.state.shown == fresh.state.shown
        d = game.answer(agents[d.player].decide(d))
    assert kept > 200


def test_the_places_kept_are_not_given_for_zones_that_hold_other_cards():
    """A world whose replay came out otherwise (its hidden zones holding other cards) is not
    given the places kept for the decision: they are worked out again."""
    rs = load_cached("mgt")
    game, d = _at_decision(rs, 4, 3, 40)
    agents = [RandomAgent(i, 3) for i in range(4)]
    while d.secret:   # (none is kept inside a `simultaneously`)
        d = game.answer(agents[d.player].decide(d))
    game.determinised(d.player, random.Random(0))
    assert game._deal is not None
    twin = game.fork(forkable=False)
    zones, eng = twin.state.zones, twin.engine
    hidden = [k for k in eng.hidden_keys(zones, d.player) if zones[k]]
    a, b = hidden[0], hidden[-1]
    zones[a][0], zones[b][-1] = zones[b][-1], zones[a][0]
    got = game._places_to_deal(eng, zones, d.player)
    game._deal = None
    assert got == game._places_to_deal(eng, zones, d.player)


@pytest.mark.parametrize("players,seed,at,seat", [(2, 9, 26, 1), (3, 1, 3, 2)])
def test_a_world_keeps_the_cards_the_pending_actions_are_on(players, seed, at, seat):
    """examples/priest.cgl: a world imagined for a seat at another player's turn action
    ("Play Guard", an action on a card in a hand the seat may not see). The rules waiting
    for the answer hold that card: dealt into another hand, playing it discarded that
    hand's card instead, and a round end found a hand empty ("`.rank` of none"). The cards
    the pending options name, a card offered or the card an action is on, keep their places."""
    game, d = _at_decision(load_cached("examples/priest.cgl"), players, seed, at)
    assert d.player != seat and any(hasattr(getattr(o, "value", None), "props") for o in d.options)
    world = game.determinised(seat, random.Random(at))
    for o in world.pending.options:
        card = getattr(o, "value", o)
        if hasattr(card, "props"):
            assert world.state.where[card.id] == game.state.where[card.id], o.label
    agents = [RandomAgent(i, at) for i in range(players)]
    w = world.pending
    while w is not None:        # (the world plays on to its end without a rules error)
        w = world.answer(agents[w.player].decide(w))


@pytest.mark.one_engine
def test_a_worlds_shuffle_puts_cards_in_the_order_random_shuffle_does():
    """`shuffled` (one loop, no call per card) makes the order `Random.shuffle` makes from
    the same source, and leaves the source where it leaves it."""
    from cgl.interpreter.play.game import shuffled
    for n in (0, 1, 2, 3, 7, 64, 65, 160, 300):
        for seed in range(12):
            mine, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            shuffled(a, mine)
            theirs.shuffle(b)
            assert a == b and mine.getstate() == theirs.getstate()
