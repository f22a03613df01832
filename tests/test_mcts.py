"""The `mcts` bot and the `estimate` declaration it scores cut-short games with (issue 15)."""
from __future__ import annotations

import copy
import json
import random

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.play.agents import RandomAgent, agent_spec, make_agent, needs_worlds
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game, play
from cgl.interpreter.play.mcts import MctsAgent, game_rewards
from conftest import load_cached

pytestmark = pytest.mark.both_engines


# ---------------------------------------------------------------- specs

@pytest.mark.one_engine
@pytest.mark.parametrize("spec,canonical", [
    ("mcts", "mcts"), ("MCTS:200", "mcts:200"), ("mcts: 50 ", "mcts:50"), ("mcts:2s", "mcts:2s"),
    ("mcts:0.5s", "mcts:0.5s"), ("mcts:100:random", "mcts:100:random"), ("mcts:100:greedy", "mcts:100"),
])
def test_mcts_specs_read_one_way(spec, canonical):
    assert agent_spec(spec) == canonical
    assert needs_worlds([spec]) and not needs_worlds(["greedy", "random"])


@pytest.mark.one_engine
@pytest.mark.parametrize("spec,says", [
    ("mcts:0", "is not a budget"), ("mcts:abc", "is not a budget"), ("mcts:-3s", "is not a budget"),
    ("mcts:10:smart", "is not a playout policy"), ("greedy:3", "takes no budget"), ("mcst:10", "unknown agent"),
])
def test_bad_mcts_specs_say_what_is_wrong(spec, says):
    with pytest.raises(CglError) as e:
        agent_spec(spec)
    assert says in e.value.diagnostics[0].message


# ---------------------------------------------------------------- playing

def _duel(rs, a, b, seed):
    g = play(rs, 2, seed=seed, agents=[a, b], record=False)
    return g.result.winners


def test_mcts_is_deterministic_for_a_seed():
    rs = load_cached("monkic")
    logs = [json.dumps(play(rs, 2, seed=4, agents=["mcts:8", "random"]).state.log) for _ in range(2)]
    assert logs[0] == logs[1]


@pytest.mark.one_engine
def test_mcts_beats_random_in_a_small_game():
    """(On the compiled engine only: the search plays hundreds of games a decision, and the
    engines' equality is proven by the other tests of this file and test_codegen.py.)"""
    rs = load_cached("monkic")
    wins = 0
    for i in range(6):
        seats = ["mcts:20", "random"] if i % 2 == 0 else ["random", "mcts:20"]
        mine = 1 if i % 2 == 0 else 2
        wins += mine in _duel(rs, *seats, seed=300 + i)
    assert wins >= 5


def test_mcts_decides_from_what_its_seat_may_see():
    """Two games that differ only in cards hidden from the deciding seat: the bot, with the
    same random state, gives the same answer in both (it searches sampled worlds only)."""
    rs = load_cached("mgt")
    game = Game(rs, 3, 21, forkable=True, record=False)
    agents = [RandomAgent(i, 21) for i in range(3)]
    d = game.start()
    while d is not None and not (len(game.answers) > 30 and d.kind == "choose" and len(set(d.labels)) > 2):
        d = game.answer(agents[d.player].decide(d))
    seat = d.player
    other = game.fork()
    eng, st = other.engine, other.state
    hidden = [(k, i) for k, ids in sorted(st.zones.items()) if not eng.sees_zone(eng.zone_ref(k), seat)
              for i, c in enumerate(ids) if c not in st.known[seat]]
    (ka, ia), (kb, ib) = hidden[0], hidden[-1]
    ca, cb = st.zones[ka][ia], st.zones[kb][ib]
    st.zones[ka][ia], st.zones[kb][ib] = cb, ca
    st.where[ca], st.where[cb] = kb, ka
    bot = make_agent("mcts:15", seat, 9)
    twin_bot = copy.deepcopy(bot)
    assert bot.decide(d) == twin_bot.decide(other.pending)
    assert bot.rng.getstate() == twin_bot.rng.getstate()


@pytest.mark.one_engine
def test_a_search_stops_once_more_iterations_cannot_change_its_answer():
    """The bot stops a decision's search when the answer tried most leads the next by more
    than the iterations left: the answer is the one the whole budget gives, for fewer
    iterations (the same random state, the same decision, with and without stopping)."""
    rs = load_cached("mgt")
    game = Game(rs, 2, 13, forkable=True, record=False)
    greedy = [make_agent("greedy", s, 13) for s in range(2)]
    d = game.start()
    searched = early = whole = 0
    while d is not None and searched < 8:
        if len(set(map(str, d.labels))) > 1 or d.kind == "may":
            bot = make_agent("mcts:60", d.player, len(game.answers))
            full = copy.deepcopy(bot)
            full.stop_when_settled = False
            assert bot.decide(d) == full.decide(d)
            assert full.iterations == 60 and bot.iterations <= 60
            early += bot.iterations
            whole += full.iterations
            searched += 1
        d = game.answer(greedy[d.player].decide(d))
    assert searched == 8 and early < whole


def test_in_a_game_that_cannot_be_sampled_mcts_plays_as_greedy():
    rs = load_cached("monkic")
    game = Game(rs, 2, 5)                 # not forkable: no worlds to search
    d = game.start()
    while len(d.options) < 2:
        d = game.answer(0)
    bot, greedy = make_agent("mcts:50", d.player, 5), make_agent("greedy", d.player, 5)
    greedy.rng.setstate(bot.rng.getstate())     # the greedy policy, drawing from the bot's random source
    assert d.sample(random.Random(1)) is None
    assert bot.decide(d) == greedy.decide(d) and bot.iterations == 0


def test_a_saved_game_with_an_mcts_bot_resumes_exactly():
    rs = load_cached("monkic")
    whole = play(rs, 2, seed=8, agents=["mcts:6", "random"])
    bot = MctsAgent(0, 8, ("iterations", 6, "greedy"))
    again = Game(rs, 2, 8, forkable=True)
    rnd = RandomAgent(1, 8)
    d = again.start()
    for _ in range(10):
        d = again.answer((bot if d.player == 0 else rnd).decide(d))
    saved = bot.state()
    bot2 = MctsAgent(0, 8, ("iterations", 6, "greedy"))
    bot2.restore(saved)
    while d is not None:
        d = again.answer((bot2 if d.player == 0 else rnd).decide(d))
    assert json.dumps(again.state.log) == json.dumps(whole.state.log)


# ---------------------------------------------------------------- estimate

def test_estimate_scores_a_cut_game_and_falls_back_to_points(make_rules):
    body = """
        var points per player = 0
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 3 }
        turn { phase p { choose c in hand(current) by current "Play" { move c to pile  set current.points += c.rank } } }
    """
    with_estimate = make_rules(body + 'estimate p: count(hand(p)) * 10 + p.points\n')
    without = make_rules(body, name="plain.cgl")
    for rs, want in ((with_estimate, [20, 20]), (without, [0, 0])):
        g = Game(rs, 2, 1)
        g.start()
        assert g.engine.estimates() == want
    g = Game(without, 2, 1)
    d = g.start()
    g.answer(d.labels.index("B3") if "B3" in d.labels else 0)
    vals = g.engine.estimates()
    # a cut playout is scored by what each estimate gained since its world began
    r = MctsAgent(0, 1)._rewards(g, [0, 0])
    assert vals[0] > vals[1] and r[0] > 0.5 > r[1] and abs(r[0] + r[1] - 1) < 1e-9
    # without an estimate to read, or with nothing to compare, a cut game is a draw
    assert MctsAgent(0, 1)._rewards(g, None) == game_rewards(g) == [0.5, 0.5]


@pytest.mark.one_engine
def test_an_estimate_must_be_a_number_over_known_names(make_rules):
    body = """
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
    """
    with pytest.raises(CglError) as e:
        make_rules(body + 'estimate p: count(hand(q))\n')
    assert "`q`" in e.value.diagnostics[0].message
    from cgl.interpreter.check.lint import lint_ruleset
    rs = make_rules(body + 'estimate p: "high"\n', name="texty.cgl")
    found = [d for d in lint_ruleset(rs) if d.code == "E008"]
    assert found and "an estimate must be a number" in found[0].message


# ---------------------------------------------------------------- the command line

@pytest.mark.one_engine
def test_cgl_run_and_simulate_take_mcts():
    r = CliRunner().invoke(main, ["run", "monkic", "-s", "3", "--agents", "mcts:4,random", "-q"])
    assert r.exit_code == 0, r.output
    assert "Winner" in r.output or "No winner" in r.output
    r = CliRunner().invoke(main, ["simulate", "monkic", "-n", "2", "-s", "1", "-w", "1", "--skill", "mcts:4,random"])
    assert r.exit_code == 0, r.output
    assert "skill" in r.output.lower()
    r = CliRunner().invoke(main, ["run", "monkic", "--agents", "mcts:x,random"])
    assert r.exit_code == 2 and "is not a budget" in r.output


@pytest.mark.one_engine
def test_a_simulated_game_with_a_search_bot_is_the_game_cgl_run_plays():
    """Regression: simulate wraps the real engine's `emit` to count custom events; a fork
    once copied that wrapper, so the worlds a search imagined emitted into the real game,
    and `cgl simulate`'s game i was not the game its replay command plays."""
    import os
    from cgl.interpreter.analytics import simulate as sim
    from cgl.interpreter.check.loader import load, resolve
    path = os.path.abspath(resolve("mgt"))
    rs = load(path, {"rounds": "1"})
    spec = sim.BatchSpec.make(path, {"rounds": "1"}, 2, ["mcts:4", "greedy"], 1, rotate=True)
    for i in (1, 2):
        r = sim.play_one(rs, spec, i)
        agents = list(sim.seat_agents(spec, i))
        g = play(rs, 2, seed=r["seed"], agents=agents, record=False)
        assert (r["winners"], r["decisions"], r["turns"]) == (g.result.winners, g.result.decisions, g.result.turns)
        assert r["custom"].get("round_won", {}).get("count", 0) <= 1


def test_a_search_still_sees_small_gains_when_one_player_leads_by_far(make_rules):
    """A cut playout is scored by what each player's estimate gained since the search's
    world began, not by where it stands: a lead of thousands of points from earlier rounds
    must not drown the few points a move gains now (squashed by tanh, every answer scored
    alike, and the search chose blindly: the best card in 3 of these 8 deals)."""
    rs = make_rules("""
        var points per player = 0
        var score per player = 0
        match { rounds 1 }
        round { start { shuffle deck  deal 3 to hand } until turn_no >= 30 }
        setup { set seat(1).points = 1000 }
        turn { phase p {
          choose c in hand(current) by current "Score a card" { set current.score += c.rank  discard c }
          if count(deck) = 0 { move pile to deck  shuffle deck }
          draw 1
        } }
        estimate p: p.points * 100 + p.score
    """)
    picked = []
    for seed in range(8):
        game = Game(rs, 2, seed, forkable=True, record=False)
        d = game.start()
        assert d.player == 0 and game.engine.estimates() == [100_000, 0]   # far ahead
        ranks = [c.props["rank"] for c in d.options]
        pick = make_agent("mcts:100", 0, seed).decide(d)
        picked.append((ranks[pick], max(ranks)))
    assert all(r == best for r, best in picked), picked   # it scores its best card


@pytest.mark.one_engine
def test_greedy_picks_as_a_stable_sort_by_score_then_a_draw_picks():
    """The greedy agent (the search's playout policy) draws one number per option, in
    order, and takes the best score, the lowest draw among equals: the answers and the
    random stream of the sort it was first written as, ties and several picks included."""
    from cgl.interpreter.base.protocol import Decision
    from cgl.interpreter.play.bots import GreedyAgent

    def as_written(d, rng):
        n = len(d.options)
        s = d.scores()
        num = [float(v) if isinstance(v, (int, float)) else 0.0 for v in s]
        keyed = sorted(range(n), key=lambda i: (-num[i], rng.random()))
        return keyed[0] if d.hi == 1 else sorted(keyed[:max(d.lo, 1)])

    src = random.Random(4)
    for k in range(300):
        n = src.randint(1, 7)
        scores = [src.choice([0, 1, 2, True, False, 1.5, "x", None]) for _ in range(n)]
        hi = src.choice([1, 1, n])
        lo = src.randint(1, hi)
        d = Decision(0, "choose", "pick", list(range(n)), None, lo, hi, scores=lambda s=scores: s)
        bot = GreedyAgent(0, k)
        ref = random.Random()
        ref.setstate(bot.rng.getstate())
        assert bot.decide(d) == as_written(d, ref)
        assert bot.rng.getstate() == ref.getstate()
