"""The turn order (issue 14, item 5): `give turn to` wherever it is written, extra turns
that stack (`give extra turn to`), the direction of play (`reverse turn order`,
`direction`, `prev_after`), and the state that keeps them. Each game test runs on both
engines (conftest.py)."""
from __future__ import annotations

import json
import pathlib

import pytest

from cgl.interpreter.base import ast as A
from cgl.interpreter.parse.build import parse
from cgl.interpreter.play.game import Game, play
from cgl.interpreter.check.lint import lint_file
from cgl.interpreter.check.loader import load

from conftest import DECK_YAML, HEADER, run_script

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent


def turns(game) -> list:
    """The turns played, in order: "P1", "P3+" for an extra turn, "R2" where round 2 begins."""
    out = []
    for e in game.state.log:
        if e["type"] == "round":
            out.append(f"R{e['round']}")
        elif e["type"] == "turn":
            out.append(f"P{e['player']}" + ("+" if e.get("extra") else ""))
    return out


def said(game) -> list:
    return [e["text"] for e in game.state.log if e["type"] == "say"]


def one_round(n: int, start: str = "") -> str:
    """One round of `n` turns (and a `start` block)."""
    start = f"start {{ {start} }}  " if start else ""
    return f"match {{ rounds 1 }}\nround {{ {start}until turn_no >= {n} }}\n"


# ---------------------------------------------------------------- extra turns

@pytest.mark.parametrize("players, turn_body, expected", [
    # two extra turns in one turn are two extra turns, then the order goes on
    (3, "if turn_no = 1 { give extra turn to current  give extra turn to current }",
     ["P1", "P1+", "P1+", "P2", "P3", "P1"]),
    # an extra turn for another player does not move the order to them
    (4, "if turn_no = 1 { give extra turn to seat(3) }",
     ["P1", "P3+", "P2", "P3", "P4", "P1"]),
    # extra turns are taken in the order given
    (4, "if turn_no = 1 { give extra turn to seat(4)  give extra turn to seat(3) }",
     ["P1", "P4+", "P3+", "P2", "P3", "P4"]),
    # extra turns first, then the `give turn to` player, and the order goes on from them
    (4, "if turn_no = 1 { give turn to seat(3)  give extra turn to seat(2) }",
     ["P1", "P2+", "P3", "P4", "P1", "P2"]),
    # a `give turn to` during an extra turn: after the extra turns still owed
    (4, "if turn_no = 1 { give extra turn to seat(2)  give extra turn to seat(2) }\n"
        "if turn_no = 2 { give turn to seat(4) }",
     ["P1", "P2+", "P2+", "P4", "P1", "P2"]),
    # an extra turn given during an extra turn joins the end of the queue
    (3, "if turn_no = 1 { give extra turn to seat(3) }\nif turn_no = 2 { give extra turn to current }",
     ["P1", "P3+", "P3+", "P2", "P3", "P1"]),
])
def test_extra_turns_stack_and_compose_with_give_turn_to(make_rules, players, turn_body, expected):
    rs = make_rules(one_round(len(expected)) + f"turn {{ phase p {{\n{turn_body}\n}} }}\n")
    g, _ = run_script(rs, [], players=players)
    assert turns(g) == ["R1"] + expected


def test_extra_turns_and_give_turn_to_from_triggers(make_rules):
    rs = make_rules(one_round(6) + """
        turn { phase p { pass } }
        on end of turn if turn_no = 1 as again { give extra turn to current }
        on start of phase p if turn_no = 3 as jump { give turn to next_after(next_after(current)) }
    """)
    g, _ = run_script(rs, [], players=4)
    assert turns(g) == ["R1", "P1", "P1+", "P2", "P4", "P1", "P2"]


def test_a_player_out_never_takes_a_queued_turn(make_rules):
    rs = make_rules(one_round(4) + """
        turn { phase p { if turn_no = 1 { give extra turn to seat(2)  give turn to seat(2)  lose seat(2) } } }
    """)
    g, _ = run_script(rs, [], players=3)
    assert turns(g) == ["R1", "P1", "P3", "P1", "P3"]
    assert g.engine.following_seat(0) == 2     # after P1: still P3, never the queued P2


def test_extra_turns_owed_at_a_rounds_end_lapse_and_those_given_before_its_turns_come_first(make_rules):
    rs = make_rules("""
        match { rounds 3 }
        round {
          start { if round_no = 2 { give extra turn to seat(3) } }
          until turn_no >= 3
          end { if round_no = 2 { give extra turn to seat(2) } }
        }
        turn { phase p { if turn_no = 3 { give extra turn to current } } }
    """)
    g, _ = run_script(rs, [], players=3)
    # each round's last turn gives an extra turn the round has no room for: it lapses
    assert turns(g) == ["R1", "P1", "P2", "P3", "R2", "P3+", "P1", "P2", "R3", "P2+", "P1", "P2"]


# ---------------------------------------------------------------- give turn to, wherever it is written

def test_give_turn_to_outside_the_turns_names_the_first_player_of_the_round_to_come(make_rules):
    rs = make_rules("""
        match { rounds 4  start { give turn to seat(2) } }
        round {
          first seat(4)
          start { if round_no = 3 { give turn to seat(1) } }
          until turn_no >= 1
          end { if round_no = 1 { give turn to seat(3) } }
        }
        turn { phase p { pass } }
        on end of round if round_no = 3 as next_first { give turn to seat(2) }
    """)
    g, _ = run_script(rs, [], players=4)
    # the match's start names round 1's; round 1's end round 2's; round 3's start its own;
    # an `end of round` trigger round 4's; `first` where nothing did
    assert turns(g) == ["R1", "P2", "R2", "P3", "R3", "P1", "R4", "P2"]


def test_a_give_turn_to_no_turn_took_lapses_when_the_round_ends(make_rules):
    rs = make_rules("""
        match { rounds 2 }
        round { until turn_no >= 1 }
        turn { phase p { give turn to seat(3) } }
    """)
    g, _ = run_script(rs, [], players=3)
    assert turns(g) == ["R1", "P1", "R2", "P1"]


def test_give_turn_to_in_a_reaction_and_in_the_turns_end(make_rules):
    rs = make_rules(one_round(4, "deal 1 to hand") + """
        turn {
          phase p { if turn_no = 1 { choose c in hand(current) { discard c } } }
          end { if turn_no = 3 { give turn to seat(3) } }
        }
        reaction grab after discard { ask "Grab?" do { give turn to responder } }
    """)
    g, asked = run_script(rs, [False, True, False], players=4)
    assert [d.player for d in asked] == [1, 2, 3]   # P2 declined, P3 grabbed, P4 declined
    # the reaction gave turn 2 to P3; turn 3's `end` gave turn 4 to P3 again
    assert turns(g) == ["R1", "P1", "P3", "P4", "P3"]


# ---------------------------------------------------------------- the direction of play

def test_reverse_turn_order_and_the_built_ins_that_follow_it(make_rules):
    rs = make_rules(one_round(5) + """
        turn { phase p {
          say "{current}: {direction} next {next_after(current)} prev {prev_after(current)} after {others_after(current)} others {others(current)}"
          if turn_no = 1 { reverse turn order }
        } }
    """)
    g, _ = run_script(rs, [], players=4)
    assert turns(g) == ["R1", "P1", "P4", "P3", "P2", "P1"]
    assert said(g)[0] == "P1: 1 next P2 prev P4 after [P2, P3, P4] others [P2, P3, P4]"
    assert said(g)[1] == "P4: -1 next P3 prev P1 after [P3, P2, P1] others [P1, P2, P3]"
    assert g.state.direction == -1


def test_the_direction_passes_over_players_who_are_out(make_rules):
    rs = make_rules(one_round(4) + """
        turn { phase p {
          if turn_no = 1 { reverse turn order  lose seat(4) }
          say "{current}: next {next_after(current)} prev {prev_after(current)} after {others_after(current)}"
        } }
    """)
    g, _ = run_script(rs, [], players=4)
    assert turns(g) == ["R1", "P1", "P3", "P2", "P1"]
    assert said(g)[0] == "P1: next P3 prev P2 after [P3, P2]"


def test_reversing_twice_goes_back_and_the_direction_lasts_across_rounds(make_rules):
    rs = make_rules("""
        match { rounds 2 }
        round { until turn_no >= 3 }
        turn { phase p { if round_no = 1 and turn_no = 1 { reverse turn order  reverse turn order  reverse turn order } } }
    """)
    g, _ = run_script(rs, [], players=3)
    assert turns(g) == ["R1", "P1", "P3", "P2", "R2", "P1", "P3", "P2"]


def test_reaction_priority_and_the_deal_follow_the_direction(make_rules):
    rs = make_rules("""
        match { rounds 1  start { reverse turn order } }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
        reaction grab after discard { ask "Grab?" do { pass } }
    """)
    g, asked = run_script(rs, [False, False, False], players=4)
    assert [d.player for d in asked] == [3, 2, 1]   # P4, P3, P2
    names = [c.name for c in rs.cards]
    # the top cards (C1, C1, B3, B2) dealt P1, P4, P3, P2
    assert [names[i] for i in g.state.zones["hand:1"]] == ["B2"]
    assert [names[i] for i in g.state.zones["hand:3"]] == ["C1"]


def test_a_turn_order_expression_follows_the_direction_and_resumes_after_extra_turns(make_rules):
    rs = make_rules(one_round(5) + """
        turn {
          order next_after(current)
          phase p { if turn_no = 1 { give extra turn to seat(3)  reverse turn order } }
        }
    """)
    g, _ = run_script(rs, [], players=4)
    # the order is read with `current` the player whose turn the extra turn followed (P1)
    assert turns(g) == ["R1", "P1", "P3+", "P4", "P3", "P2"]


# ---------------------------------------------------------------- the state keeps the order

def test_the_turn_order_is_copied_and_serialised_with_the_state(make_rules):
    rs = make_rules(one_round(9) + """
        turn { phase p {
          reverse turn order
          give extra turn to seat(2)
          give extra turn to seat(3)
          give turn to seat(3)
          end game
        } }
    """)
    g, _ = run_script(rs, [], players=4)
    st = g.state
    assert (st.direction, st.extra_turns, st.next_player) == (-1, [1, 2], 2)
    assert g.engine.following_seat(st.current) == 1     # who plays next: the first extra turn
    picture = json.loads(json.dumps(st.to_json(rs)))
    assert (picture["direction"], picture["extra_turns"], picture["next_player"]) == (-1, [2, 3], 3)
    twin = st.copy()
    assert twin.to_json(rs) == st.to_json(rs)
    twin.extra_turns.append(0)
    assert st.extra_turns == [1, 2]


def test_a_fork_plays_on_in_the_same_order(make_rules):
    rs = make_rules(one_round(6, "deal 2 to hand") + """
        turn { phase p {
          choose c in hand(current) "Discard" { discard c  if c.rank = 1 { give extra turn to current } }
          if turn_no = 2 { reverse turn order }
        } }
    """)
    g = Game(rs, 3, 5)
    d = g.start()
    d = g.answer(0)
    twin = g.fork()
    while d is not None:
        d = g.answer(0)
    d = twin.pending
    while d is not None:
        d = twin.answer(0)
    assert turns(twin) == turns(g) and twin.state.to_json(rs) == g.state.to_json(rs)


@pytest.mark.one_engine
def test_the_example_plays_the_same_games_on_both_engines(monkeypatch):
    """Determinism: the same ruleset, seed and agents give the same game on each engine."""
    from cgl.interpreter.codegen import CompiledEngine
    from cgl.interpreter.walker.engine import Engine

    rs = load(str(ROOT / "examples" / "switchback.cgl"))
    prints = {}
    for name, cls in (("compiled", CompiledEngine), ("tree", Engine)):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", name)
        games = [play(rs, n, seed, agents=[("greedy", "random")[s % 2] for s in range(n)])
                 for n, seed in ((2, 1), (3, 2), (4, 3), (4, 4))]
        assert all(type(g.engine) is cls and g.state.finished for g in games)
        prints[name] = [(g.state.log, g.answers, g.result.winners) for g in games]
        logs = [e for g in games for e in g.state.log]
        assert any(e["type"] == "direction" for e in logs)
        assert any(e["type"] == "turn" and e.get("extra") for e in logs)
    assert prints["compiled"] == prints["tree"]


# ---------------------------------------------------------------- parsing and lint

@pytest.mark.one_engine
def test_the_statements_parse_into_their_nodes():
    module = parse('turn { phase p { give extra turn to next_after(current)  reverse turn order  '
                   'give turn to current } }\n', "t.cgl")
    stmts = module.items[0].phases[0].body.stmts
    assert [type(s) for s in stmts] == [A.GiveExtra, A.ReverseOrder, A.Give]
    assert isinstance(stmts[0].player, A.Call) and stmts[0].player.name == "next_after"


@pytest.mark.one_engine
@pytest.mark.parametrize("body, code, words", [
    ("turn { phase p { give extra turn to prev_afer(current) } }\n", "E004", "prev_after"),
    ("turn { phase p { give extra turn to 3 } }\n", "E008", "a player"),
    ("turn { phase p { say \"{direktion}\" } }\n", "E004", "direction"),
    ("turn { phase p { reverse turn } }\n", "E001", "order"),
])
def test_lint_knows_the_new_statements_and_names(tmp_path, body, code, words):
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "game.cgl"
    path.write_text(HEADER + body)
    found = lint_file(str(path))
    assert [d.code for d in found] == [code], [(d.code, d.message) for d in found]
    assert words in found[0].message + str(found[0].hint)


@pytest.mark.one_engine
def test_a_ruleset_using_the_turn_order_is_lint_clean(tmp_path):
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "game.cgl"
    path.write_text(HEADER + one_round(4) + """
turn { phase p {
  if direction = 1 { reverse turn order }
  give extra turn to prev_after(current)
  give turn to next_after(current)
} }
""")
    assert lint_file(str(path)) == []
