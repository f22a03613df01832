"""Forks: a copy of a game at a decision goes on exactly as the game would (issue 15).

A `forkable` game keeps a copy of its state where each turn begins; `Game.fork()` makes
an engine from it and replays only the current turn's answers. These tests play the
fork and the original with the same answers to the end and compare their logs and final
states, for every shipped ruleset and on both engines, at decisions early, mid-game, at
a turn's start and deep inside a turn.
"""
from __future__ import annotations

import copy
import random
import json

import pytest

from cgl.interpreter.play.agents import RandomAgent
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game
from conftest import load_cached

pytestmark = pytest.mark.both_engines

SHIPPED = ["mgt", "mgt-v0.1", "unicorns", "monkic", "kozyablo"]


def _play_to(rs, players, seed, at, forkable=True, record=True):
    game = Game(rs, players, seed, forkable=forkable, record=record, check_invariants=True)
    agents = [RandomAgent(i, seed) for i in range(game.players)]
    d = game.start()
    k = 0
    while d is not None and k < at:
        d = game.answer(agents[d.player].decide(d))
        k += 1
    return game, agents


def _finish(game, agents):
    d = game.pending
    while d is not None:
        d = game.answer(agents[d.player].decide(d))


def _same_course(rs, game, agents, twin):
    twin_agents = copy.deepcopy(agents)
    a, b = game.pending, twin.pending
    assert (b.player, b.kind, b.prompt, b.labels) == (a.player, a.kind, a.prompt, a.labels)
    _finish(game, agents)
    _finish(twin, twin_agents)
    assert json.dumps(twin.state.log) == json.dumps(game.state.log)
    assert twin.state.to_json(rs) == game.state.to_json(rs)
    assert twin.result.winners == game.result.winners and twin.answers == game.answers


@pytest.mark.parametrize("name", SHIPPED)
def test_a_fork_goes_on_exactly_as_its_game(name):
    rs = load_cached(name)
    forked = 0
    for seed in (3, 8):
        for at in (1, 40, 130):
            game, agents = _play_to(rs, 2, seed, at)
            if game.pending is None:
                continue
            twin = game.fork()
            assert twin.engine is not game.engine and twin.state is not game.state
            _same_course(rs, game, agents, twin)
            forked += 1
    assert forked >= 4


def test_a_fork_deep_inside_a_turn_replays_only_that_turn():
    """MGT, 4 players: a decision several answers into its turn (a discard, then the claim
    windows); the fork starts from the turn's copy and replays those answers."""
    rs = load_cached("mgt")
    game = Game(rs, 4, 4, forkable=True, record=False)
    agents = [RandomAgent(i, 4) for i in range(4)]
    d = game.start()
    while d is not None and not (len(game.answers) > 100 and len(game.answers) - game._snap[3] >= 2):
        d = game.answer(agents[d.player].decide(d))
    assert d is not None
    kept, seat, why, given, phase = game._snap
    # kept as the turn began (its number not yet counted) or as a later phase of it began
    assert kept["state"].turn_no + (0 if phase else 1) == game.state.turn_no and given < len(game.answers)
    _same_course(rs, game, agents, game.fork())


def test_a_fork_in_a_later_phase_replays_only_that_phase():
    """MGT's turn has a draw phase and a discard phase: a snapshot is kept where the discard
    phase begins, so a fork at the discard replays nothing of the draw; it goes on as the
    game does. (Turn-start snapshots are tested above and in every ruleset's forks.)"""
    rs = load_cached("mgt")
    game = Game(rs, 4, 6, forkable=True, record=False)
    agents = [RandomAgent(i, 6) for i in range(4)]
    d = game.start()
    while d is not None and not (len(game.answers) > 60 and game._snap[4] == 1):
        d = game.answer(agents[d.player].decide(d))
    assert d is not None
    kept, seat, why, given, phase = game._snap
    assert kept["state"].phase == "discard" and kept["state"].turn_no == game.state.turn_no
    assert given == len(game.answers) or game.state.phase == "discard"
    _same_course(rs, game, agents, game.fork())


def test_a_fork_of_a_fork_and_a_fork_answered_otherwise():
    rs = load_cached("mgt")
    game, agents = _play_to(rs, 3, 5, 60)
    before = json.dumps(game.state.log)
    other = game.fork()
    d = other.pending
    other.answer(len(d.options) - 1 if d.kind != "may" else not True)   # a different answer
    while other.pending is not None:
        other.answer(0 if other.pending.kind != "may" else False)
    assert json.dumps(game.state.log) == before     # the original is untouched
    _same_course(rs, game, agents, game.fork().fork())


def test_a_game_not_kept_forkable_forks_by_replaying_it_all():
    rs = load_cached("monkic")
    game, agents = _play_to(rs, 2, 2, 30, forkable=False)
    assert game._snap is None
    _same_course(rs, game, agents, game.fork())


@pytest.mark.one_engine
@pytest.mark.parametrize("engine_kind", ["compiled", "tree"])
def test_a_clone_is_its_engines_parts_a_new_games_own_and_a_copy_of_the_state(engine_kind, monkeypatch):
    """Everything that changes in a game is in its `State`: a clone shares the engine's
    parts (the ruleset's, the seats', the settings), makes what one game owns afresh as
    a new game does (`Engine._begin`, found here by calling it, not by a list), and plays
    on a copy of the snapshot's state. A method a tool wrapped on the engine stays there."""
    if engine_kind == "tree":
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", "tree")
    rs = load_cached("unicorns")
    game = Game(rs, 2, 1, forkable=True)
    game.start()
    eng = game.engine
    spied = []
    eng.s_emit = lambda *a: spied.append(a)     # a tool wrapping a method of this engine (as simulate does)
    twin = game.fork().engine
    assert "s_emit" not in vars(twin)            # the clone acts on its own game, never on this one
    probe = object.__new__(type(eng))
    probe._begin(None)
    own = set(vars(probe)) - {"state"}
    assert own and set(vars(twin)) == set(vars(eng)) - {"s_emit"}
    for name in own:
        value = getattr(eng, name)
        if isinstance(value, (list, dict, set)):
            assert getattr(twin, name) is not value, name
    assert twin.state is not eng.state and twin.state.zones == eng.state.zones


@pytest.mark.one_engine
def test_state_copy_is_complete_and_independent():
    rs = load_cached("mgt")
    game, _ = _play_to(rs, 4, 9, 80)
    st = game.state
    cp = st.copy()
    deep = st.deep_copy()
    import attrs
    for f in attrs.fields(type(st)):
        if f.name == "rng":
            assert cp.rng.getstate() == st.rng.getstate()
        else:
            assert getattr(cp, f.name) == getattr(deep, f.name), f.name
    cp.zones["stock"].append(0)
    cp.card_vars[0]["x"] = 1
    cp.player_vars[0]["points"] = -99
    cp.rng.random()
    assert st.zones == deep.zones and st.card_vars == deep.card_vars and st.player_vars == deep.player_vars
    assert st.rng.getstate() == deep.rng.getstate()
    assert st.copy(log=False).log == []


@pytest.mark.one_engine
def test_a_trial_copy_shares_until_it_writes_and_draws_as_the_game_would():
    rs = load_cached("unicorns")
    game, _ = _play_to(rs, 4, 9, 40)
    st = game.state
    deep = st.deep_copy()
    trial = st.trial_copy()
    assert trial.zones == st.zones and trial.card_vars == st.card_vars and trial.log == [] and trial.stats == {}
    assert trial.card_vars[3] is st.card_vars[3]                          # shared until written
    var = next(iter(st.card_vars[3]))
    trial.card_store(3)[var] = "tried"
    assert trial.card_vars[3] is not st.card_vars[3] and trial.card_store(3) is trial.card_vars[3]
    key = next(k for k, v in st.zones.items() if v)
    assert trial.zones[key] is st.zones[key]                               # a zone's list: shared until changed
    trial.zone_store(key).pop()
    assert trial.zone_store(key) is trial.zones[key] and trial.zones[key] == st.zones[key][:-1]
    assert st.zones == deep.zones
    twin = st.copy()
    assert [trial.rng.random() for _ in range(3)] == [twin.rng.random() for _ in range(3)]
    assert st.card_vars == deep.card_vars and st.rng.getstate() == deep.rng.getstate()
    again = trial.copy()                                                  # a copy of a trial's copy owns it all
    assert again.own_cards is None and again.own_zones is None and again.card_vars[3][var] == "tried"
    assert again.rng.getstate() == trial.rng.getstate()


@pytest.mark.one_engine
def test_a_world_copy_shares_card_variables_until_written_and_draws_as_the_game_would():
    """A world (`Game.determinised`) is copied from a snapshot, which is never played on
    again: it shares the card variables' dicts until it writes one and copies the random
    source when it first draws; it follows no knowledge; the snapshot stays as it was."""
    rs = load_cached("mgt")
    game, _ = _play_to(rs, 4, 9, 80)
    st = game.engine.snapshot()["state"]
    deep = st.deep_copy()
    world = st.world_copy()
    assert world.known is None and st.known is not None and world.log == []
    assert world.zones == st.zones and world.zones["stock"] is not st.zones["stock"]
    assert world.card_vars == st.card_vars and world.card_vars[3] is st.card_vars[3]
    var = next(iter(st.card_vars[3]))
    world.card_store(3)[var] = "imagined"
    assert world.card_vars[3] is not st.card_vars[3] and world.card_store(3) is world.card_vars[3]
    twin = st.copy()
    assert [world.rng.random() for _ in range(3)] == [twin.rng.random() for _ in range(3)]
    assert st.card_vars == deep.card_vars and st.rng.getstate() == deep.rng.getstate()
    assert st.world_copy(log=True).log == st.log
    again = world.copy()                                                  # a copy of a world's copy owns it all
    assert again.own_cards is None and again.card_vars[3][var] == "imagined"


@pytest.mark.one_engine
def test_worlds_copied_from_one_snapshot_each_draw_as_the_game_would():
    """Each world copies the snapshot's random source when it first draws, from the state
    read once for them all (`_SnapshotRandom`): a world made after another drew draws the
    same numbers, and the snapshot's source never moves."""
    rs = load_cached("mgt")
    game, _ = _play_to(rs, 4, 9, 80)
    st = game.engine.snapshot()["state"]
    before = st.rng.getstate()
    twin = st.copy()
    expected = [twin.rng.random() for _ in range(4)]
    waiting = st.world_copy()                  # made before the others draw, drawn from after
    for _ in range(3):
        world = st.world_copy()
        assert [world.rng.random() for _ in range(4)] == expected
        assert st.rng.getstate() == before
    assert [waiting.rng.random() for _ in range(4)] == expected


@pytest.mark.one_engine
def test_a_worlds_random_source_is_seeded_as_random_random_seeds():
    """`seeded_random(n)` (how `determinised` deals a world's source) is `random.Random(n)`."""
    from cgl.interpreter.runtime.state import seeded_random
    for n in (0, 1, 5, 2**31, 2**32 + 7, 2**63, 2**64 - 1, 12345678901234567890):
        mine, theirs = seeded_random(n), random.Random(n)
        assert mine.getstate() == theirs.getstate()
        assert [mine.random() for _ in range(3)] + [mine.gauss(0, 1)] == [theirs.random() for _ in range(3)] + [theirs.gauss(0, 1)]


def _cached(eng, card, name):
    """Whether engine `eng` holds `card`'s derived property `name` worked out (either engine's cache)."""
    from cgl.interpreter.codegen.runtime import _UNSET
    dcache = getattr(eng, "dcache", None)
    if dcache is not None:
        return dcache[name][card.id] is not _UNSET
    return (card.id, name) in eng.derive_cache


def test_a_worlds_card_derived_values_go_back_to_its_snapshot_while_its_cards_are_the_snapshots(make_rules):
    """A world works out a "card" derived property (one that reads the card's own data and
    variables) of a card whose variables it has not written: the value holds in the
    snapshot the world was copied from, so the worlds and forks copied from it later find
    it cached; of a card whose variables the world wrote, it does not go back."""
    rs = make_rules("""
        var bonus per card = 0
        derive worth = rank * 10 + bonus
        setup { deal 2 to hand }
        turn {
          phase play {
            choose c in hand(current) by current "Play a card" { discard c }
            draw 1 to hand(current)
          }
        }
    """)
    game = Game(rs, 2, 3, forkable=True, record=False)
    d = game.start()
    d = game.answer(0)
    stock = [game.engine.cards[i] for i in game.state.zones["deck"]]
    first, second = stock[0], stock[1]
    assert not _cached(game.fork().engine, first, "worth")
    world = game.determinised(d.player, random.Random(1))
    eng = world.engine
    assert eng.attr_of(first, "worth") == (True, first.props["rank"] * 10)
    eng.state.card_store(second.id)["bonus"] = 5
    eng.forget(second, ["worth"])
    assert eng.attr_of(second, "worth") == (True, second.props["rank"] * 10 + 5)
    later = game.determinised(d.player, random.Random(2)).engine
    assert _cached(later, first, "worth") and not _cached(later, second, "worth")
    assert later.attr_of(second, "worth") == (True, second.props["rank"] * 10)
    assert _cached(game.fork().engine, first, "worth")


def test_a_fork_runs_into_the_turn_limit_where_its_game_does(make_rules, monkeypatch):
    """A round that never ends stops at MAX_TURNS turns (E011): a fork from a later turn's
    or phase's snapshot counts the round's turns from its start, as its game does."""
    from cgl.interpreter.walker import flow
    monkeypatch.setattr(flow, "MAX_TURNS", 6)
    rs = make_rules("""
        setup { deal 2 to hand }
        turn {
          phase look { choose c in hand(current) by current "Look at a card" { say "{c.name}" } }
          phase pass { may "Pass?" { say "passed" } }
        }
    """)
    for at in (4, 5):          # a decision of turn 3, in its first phase, then its second
        game = Game(rs, 2, 1, forkable=True, max_steps=None)
        d = game.start()
        while len(game.answers) < at:
            d = game.answer(0 if d.kind != "may" else True)
        assert game._snap[4] == at - 4
        twin = game.fork()
        runs = []
        for g in (game, twin):
            with pytest.raises(CglError) as e:
                while g.pending is not None:
                    g.answer(0 if g.pending.kind != "may" else True)
            runs.append((g.state.turn_no, len(g.answers), e.value.diagnostics[0].code))
        assert runs[0] == runs[1] and runs[0][0] == 6 and runs[0][2] == "E011"


@pytest.mark.parametrize("name,players", [("mgt", 4), ("unicorns", 2), ("kozyablo", 2)])
def test_a_fork_dropped_is_freed_at_once(name, players):
    """A fork (a search makes hundreds a decision) holds no reference cycle: dropped, it is
    freed at once, leaving the garbage collector nothing to find (its passes over a heap of
    dead forks cost a fork a third of its time)."""
    import gc
    rs = load_cached(name)
    game = Game(rs, players, 3, forkable=True, record=False)
    agents = [RandomAgent(i, 3) for i in range(players)]
    d = game.start()
    while d is not None and len(game.answers) < 40:
        d = game.answer(agents[d.player].decide(d))
    assert d is not None
    # (a first fork and world fill what is worked out once per ruleset, as `targets_for`
    # does per card: on its own, this test would count that garbage as the fork's)
    game.fork().answer(agents[d.player].decide(d))
    d.sample(random.Random(1))
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        twin = game.fork()
        twin.answer(agents[d.player].decide(twin.pending))
        world = d.sample(random.Random(1))
        del twin, world
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_a_decision_whose_game_is_gone_says_so():
    rs = load_cached("monkic")
    d = Game(rs, 2, 5, forkable=True).start()       # the game itself is not kept
    import gc
    gc.collect()
    with pytest.raises(ValueError, match="keep the Game"):
        d.sample(random.Random(1))
