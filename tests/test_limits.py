"""Limits a ruleset cannot blow (docs/language.md, "Limits"): the game's budget of steps,
nesting, the size of numbers, dice and lists. Each stops with a located error (never a
hang, a MemoryError or an internal error), the same on both engines."""
from __future__ import annotations

import resource

import pytest

from cgl.interpreter.base.diagnostics import CglError, render_all
from cgl.interpreter.play.game import Game
from cgl.interpreter.base.protocol import DEFAULT_MAX_STEPS, MAX_CALLS, MAX_DEPTH, MAX_DICE, MAX_LIST, MAX_NESTING, MAX_NUMBER, MAX_TEXT

pytestmark = pytest.mark.both_engines

ONE_TURN = """
var x = 0
match { rounds 1 }
round { until turn_no >= 1 }
"""


def _stopped(rs, players=2, **kw):
    """Play a game (bots answer 0) until it fails: the error and the game.

    The issues behind these tests bounded a runaway game by CPU time (under 2 s); the tests
    prove each stop by the engine's own count instead (steps, calls of defs, dice not
    rolled), which is the same on every machine: a timed assertion fails on a slow one."""
    game = Game(rs, players, 1, **kw)
    with pytest.raises(CglError) as info:
        d = game.start()
        while d is not None:
            d = game.answer(0)
    return info.value.diagnostics[0], game


def _at(diag, line: int, text: str):
    """The diagnostic points at `text` on line `line` of the test's ruleset (HEADER is 5 lines)."""
    assert diag.span is not None and diag.span.line == line, render_all([diag])
    shown = render_all([diag])
    assert text in shown.splitlines()[1], shown
    return shown


def test_three_nested_repeats_stop_on_the_game_budget(make_rules):
    rs = make_rules(ONE_TURN + "turn { phase p { repeat 10000 { repeat 10000 { repeat 10000 { set x += 1 } } } } }")
    diag, game = _stopped(rs)
    assert diag.code == "E011" and f"ran {DEFAULT_MAX_STEPS} steps" in diag.message
    shown = _at(diag, 10, "set x += 1")
    assert "--max-steps" in shown   # the help says how to raise it
    assert game.state.steps == DEFAULT_MAX_STEPS + 1


def test_a_trigger_emitting_ten_thousand_events_per_firing_stops(make_rules):
    rs = make_rules("""
        var x = 0
        match { rounds 1 }
        round { until turn_no >= 100000 }
        turn { phase p { pass } }
        on end of turn as burst { repeat 10000 { emit tick() } }
        on tick as tock { set x += 1 }
    """)
    diag, game = _stopped(rs)
    assert diag.code == "E011" and "steps" in diag.message
    assert diag.span.line in (11, 12)
    assert game.state.steps == DEFAULT_MAX_STEPS + 1   # stopped by the budget, not after it
    assert game.state.globals["x"] > 10000   # several firings ran before the budget ran out


def test_a_budget_of_steps_can_be_raised_and_turns_count(make_rules):
    """Turns are steps: a round of empty turns runs out of budget at the `turn` block
    (before, it ran 99,999 turns per round without a step)."""
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 600 }
        turn { phase p { } }
    """)
    diag, game = _stopped(rs, max_steps=500)
    assert diag.code == "E011" and "ran 500 steps" in diag.message
    _at(diag, 9, "turn")
    assert game.state.turn_no == 500
    for budget in (None, 601):   # no limit, or a budget big enough: the round runs to its end
        game = Game(rs, 2, 1, max_steps=budget)
        assert game.start() is None and game.state.turn_no == 600


def test_dice_beyond_the_limit_are_a_located_error_when_rolled(make_rules):
    rs = make_rules(ONE_TURN + 'turn { phase p { say "{2d6} then {1000000000d6}" } }')
    diag, game = _stopped(rs)
    assert diag.code == "E017" and "`1000000000d6`" in diag.message and f"{MAX_DICE:,}" in diag.message
    _at(diag, 10, "1000000000d6")
    # Refused before a die is rolled: the random source stands where it does in a game that
    # fails right after the 2d6.
    _, after_two = _stopped(make_rules(ONE_TURN + 'turn { phase p { say "{2d6} then {1 / 0}" } }'))
    assert game.state.rng.getstate() == after_two.state.rng.getstate()
    rs = make_rules(ONE_TURN + f'turn {{ phase p {{ set x = {MAX_DICE}d2 }} }}')
    game = Game(rs, 2, 1)
    assert game.start() is None and MAX_DICE <= game.state.globals["x"] <= 2 * MAX_DICE


def test_repeated_squaring_stops_at_the_number_limit(make_rules):
    rs = make_rules(ONE_TURN + "turn { phase p { set x = 2  repeat 40 { set x = x * x } } }")
    diag, game = _stopped(rs)
    assert diag.code == "E017" and "10^18" in diag.message
    _at(diag, 10, "x * x")
    assert game.state.globals["x"] == 2 ** 32   # the last value within the limit


def test_doubling_by_set_stops_at_the_number_limit(make_rules):
    rs = make_rules(ONE_TURN + "turn { phase p { set x = 1  repeat 100 { set x += x } } }")
    diag, game = _stopped(rs)
    assert diag.code == "E017" and "10^18" in diag.message
    assert game.state.globals["x"] <= MAX_NUMBER


def test_a_list_doubled_without_end_stops_at_the_list_limit(make_rules):
    rs = make_rules(ONE_TURN + "turn { phase p { let xs = [1]  repeat 40 { set xs = xs + xs } } }")
    diag, _ = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_LIST:,} items" in diag.message
    _at(diag, 10, "set xs = xs + xs")


@pytest.mark.parametrize("join", ["let n = count([x for x in xs] + [1 for x in xs])",
                                  "let n = sum([1 for x in xs] + [x for x in xs])"])
def test_a_list_joined_with_a_comprehension_stops_at_the_list_limit(make_rules, join):
    """A sum of lists one of which a comprehension makes, written as statements by the
    generator (loops, not comprehensions), is checked against the list limit as `xs + xs` is."""
    rs = make_rules(ONE_TURN + "turn { phase p { let xs = [1]  repeat 16 { set xs = xs + xs }  " + join + " } }")
    diag, _ = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_LIST:,} items" in diag.message


@pytest.mark.parametrize("grow", ["set t = t + t", 'set t = "{t}{t}"', "let u = t + t  set t = u"])
def test_a_text_doubled_without_end_stops_at_the_text_limit(make_rules, grow):
    """(Doubling a text 64 times was an internal MemoryError. Issue 34.)"""
    rs = make_rules(ONE_TURN + 'turn { phase p { let t = "ab"  repeat 64 { ' + grow + " } } }")
    diag, _ = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_TEXT:,} characters" in diag.message, diag.message
    assert diag.span.line == 10


# A doubling recursion runs no statement: each call of a def or a table counts instead, at
# most MAX_CALLS of them while one step runs. (Issue 34: `f(60)` ran past 300 s.)
RUNAWAY_CALLS = {
    "dice": ("def f(x) = if x <= 0 then d6 else f(x - 1) + f(x - 1)", "set x = f(60)"),
    "a list argument": ("def f(x, c) = if x <= 0 then 0 else f(x - 1, c) + f(x - 1, c)", "set x = f(60, [1])"),
    "a table": ("table f(x) {\n  | x <= 0 -> 1\n  | else -> f(x - 1) + f(x - 1) - f(x - 1)\n}", "set x = f(60)"),
    "a chain of defs": ("def a0(x) = x + d6\n" + "\n".join(f"def a{k}(x) = a{k - 1}(x) + a{k - 1}(x)" for k in range(1, 40)),
                        "let z = 1  set x = a39(z)"),
}


@pytest.mark.parametrize("kind", RUNAWAY_CALLS)
def test_a_doubling_recursion_stops_at_the_call_limit(make_rules, kind):
    defs, stmt = RUNAWAY_CALLS[kind]
    rs = make_rules("var x = 0\n" + defs + "\n" + ONE_TURN.replace("var x = 0\n", "") + "turn { phase p { " + stmt + " } }")
    diag, game = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_CALLS:,} calls" in diag.message, render_all([diag])
    # (2^60 calls asked for:) the step stopped at its first call past the limit.
    eng = game.engine
    assert eng.calls == eng.call_limit + 1 and eng.call_limit <= MAX_CALLS + 1
    shown = render_all([diag])
    assert diag.span is not None and shown.splitlines()[1].split("|", 1)[1].lstrip().startswith(("def ", "table ")), shown


def test_a_list_doubled_by_a_def_stops_at_the_list_limit(make_rules):
    rs = make_rules("def l(n) = if n = 0 then [1] else l(n - 1) + l(n - 1)\n" + ONE_TURN
                    + "turn { phase p { set x = count(l(64)) } }")
    diag, game = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_LIST:,} items" in diag.message, diag.message
    assert diag.span.line == 6


@pytest.mark.parametrize("text", ['"{t(n - 1)}{t(n - 1)}"', '"{[t(n - 1), t(n - 1)]}"'])
def test_a_text_doubled_by_a_def_stops_at_the_text_limit(make_rules, text):
    rs = make_rules(f'def t(n) = if n = 0 then "ab" else {text}\n' + ONE_TURN + 'turn { phase p { say "{t(64)}" } }')
    diag, game = _stopped(rs)
    assert diag.code == "E017" and f"{MAX_TEXT:,} characters" in diag.message, diag.message
    assert diag.span.line == 6


def test_a_nested_list_shown_stops_at_the_text_limit(make_rules):
    """A list holding itself twice, 64 times over, is small (the engines share its parts) and
    its text 2^64 items long."""
    rs = make_rules("def l(n) = if n = 0 then [1] else [l(n - 1), l(n - 1)]\n" + ONE_TURN
                    + 'turn { phase p { say "{l(64)}" } }')
    diag, game = _stopped(rs)
    # No count of characters in the message: the list's text was cut just past the limit
    # as it was written (a text 2^64 items long would have been counted).
    assert diag.code == "E017" and diag.message == f"a text of more than {MAX_TEXT:,} characters", diag.message
    assert diag.span.line == 11


@pytest.mark.one_engine
@pytest.mark.parametrize("kind", RUNAWAY_CALLS)
def test_the_static_evaluator_gives_up_on_a_doubling_recursion(make_rules, kind):
    """lint and the language server work out defs called with known arguments: they give up
    (the value is unknown) instead of hanging."""
    from cgl.interpreter.check.statics import UNKNOWN, Statics
    defs, stmt = RUNAWAY_CALLS[kind]
    call = stmt.split("set x = ")[1].replace("z", "1")
    rs = make_rules("var x = 0\n" + defs.replace("d6", "1") + f"\ndef g = {call}\n" + ONE_TURN.replace("var x = 0\n", "")
                    + "turn { phase p { set x = g } }")
    statics = Statics(rs)
    assert statics.value(rs.defs["g"].expr) is UNKNOWN
    assert statics._calls == MAX_CALLS + 1   # it gave up at its first call past the limit


def test_a_runaway_chain_of_triggers_names_the_trigger(make_rules):
    rs = make_rules(ONE_TURN + """turn { phase p { emit ping() } }
on ping as echo { emit ping() }
""")
    diag, _ = _stopped(rs)
    assert diag.code == "E011" and "runs away" in diag.message and "echo -> echo" in diag.message
    _at(diag, 11, "on ping as echo")


def test_a_runaway_chain_of_forced_discards_stops(make_rules):
    """A discard trigger that fires on forced discards too and forces another without end
    (MGT's natures act on every discard since issue 31; their chains end with the hand, but
    a ruleset's need not) stops at the nesting limit, named, on both engines."""
    rs = make_rules(ONE_TURN + """turn { phase p { draw 1  discard top(hand(current), 1) } }
on discard as sulk { move card to hand(player)  discard card forced }
""")
    diag, _ = _stopped(rs)
    assert diag.code == "E011" and "runs away" in diag.message and "sulk -> sulk" in diag.message
    _at(diag, 11, "on discard as sulk")


def test_a_round_without_end_names_the_round(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { until false }
        turn { phase p { } }
    """)
    diag, _ = _stopped(rs, max_steps=None)
    assert diag.code == "E011" and "100000 turns" in diag.message
    _at(diag, 8, "round")


# ---------------------------------------------------------------- the text of the rules

def _load_error(make_rules, body):
    with pytest.raises(CglError) as info:
        make_rules(body)
    return info.value.diagnostics[0]


@pytest.mark.one_engine
def test_a_ruleset_nested_ten_thousand_blocks_deep_is_a_located_error(make_rules):
    body = ONE_TURN + "turn { phase p { " + "if x = 0 { " * 10_000 + "set x += 1" + " }" * 10_000 + " } }"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    diag = _load_error(make_rules, body)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024   # KB: under 200 MB more
    assert diag.code == "E017" and f"more than {MAX_NESTING} deep" in diag.message
    assert diag.span.line == 10 and diag.span.column > 1


@pytest.mark.one_engine
def test_a_five_thousand_digit_literal_is_a_located_error(make_rules):
    diag = _load_error(make_rules, ONE_TURN + "turn { phase p { set x += " + "9" * 5000 + " } }")
    assert diag.code == "E017" and "5000 characters" in diag.message
    assert (diag.span.line, diag.span.column) == (10, 27)
    diag = _load_error(make_rules, ONE_TURN + 'turn { phase p { say "{' + "7" * 5000 + '}" } }')
    assert diag.code == "E017" and diag.span.line == 10


@pytest.mark.one_engine
def test_a_long_chain_of_operators_is_a_located_error(make_rules):
    diag = _load_error(make_rules, ONE_TURN + "turn { phase p { set x += " + " + ".join(["1"] * 5000) + " } }")
    assert diag.code == "E017" and f"more than {MAX_DEPTH} levels deep" in diag.message
    assert diag.span.line == 10


def test_what_is_within_the_limits_runs_on_both_engines(make_rules):
    """Just inside the limits: a chain of 150 operators, 60 nested blocks, the largest number."""
    rs = make_rules(ONE_TURN + "turn { phase p { set x += " + " + ".join(["1"] * 150)
                    + "  " + "if x > 0 { " * 60 + f"set x = {MAX_NUMBER}" + " }" * 60 + " } }")
    game = Game(rs, 2, 1)
    assert game.start() is None and game.state.globals["x"] == MAX_NUMBER


@pytest.mark.one_engine
def test_the_cli_reports_a_limit_with_its_place(tmp_path):
    from click.testing import CliRunner

    from cgl.cli.main import main
    from conftest import DECK_YAML, HEADER
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "g.cgl"
    path.write_text(HEADER + ONE_TURN + "turn { phase p { repeat 10000 { repeat 10000 { set x += 1 } } } }\n")
    out = CliRunner().invoke(main, ["run", str(path), "--seed", "1", "--max-steps", "1000"])
    assert out.exit_code == 1
    assert f"{path}:10:" in out.output and "E011 the game ran 1000 steps" in out.output and "^" in out.output
    out = CliRunner().invoke(main, ["run", str(path), "--max-steps", "0"])
    assert out.exit_code == 2


def test_a_huge_draw_replaced_by_an_empty_instead_stops(make_rules):
    """`draw 1000000000` whose every card is replaced by a trigger with no statement: each
    replaced move is a step, so the budget ends it: at exactly the budget, on both engines.
    (Not bounded in CPU seconds as the other runaways are: a replaced move is the dearest
    step, about 9–12 µs, so the whole budget took 1.7–2.4 s on a slow hour's machine and the
    bound failed there; the steps counted are the same on every machine.)"""
    rs = make_rules(ONE_TURN + "turn { phase p { draw 1000000000 } }\non draw instead as nothing { }\n")
    diag, game = _stopped(rs)
    assert game.state.steps == DEFAULT_MAX_STEPS + 1   # (the step that went past it stops the game)
    assert diag.code == "E011" and f"ran {DEFAULT_MAX_STEPS} steps" in diag.message
    _at(diag, 11, "on draw instead as nothing")


def test_a_match_without_end_names_the_match(make_rules):
    rs = make_rules("""
        match { start { pass } }
        round { until turn_no >= 1 }
        turn { phase p { } }
    """)
    diag, game = _stopped(rs, max_steps=None)
    assert diag.code == "E011" and "10000 rounds" in diag.message
    _at(diag, 7, "match")


@pytest.mark.one_engine
def test_a_scenario_that_runs_out_of_steps_fails_with_its_place(tmp_path):
    """`cgl test --max-steps`: a scenario stopped by the budget fails (E011 and where), and
    its expectations about a zone under a card not made yet are read, not an internal error."""
    import pathlib

    from click.testing import CliRunner

    from cgl.cli.main import main
    root = pathlib.Path(__file__).resolve().parent
    out = CliRunner().invoke(main, ["test", str(root / "scenarios" / "monkic" / "MON-CARD-JOKER.yaml"),
                                    "--max-steps", "5"])
    assert "internal error" not in out.output and isinstance(out.exception, SystemExit), out.output
    assert out.exit_code == 1
    assert "E011 the game ran 5 steps" in out.output and "monkic.cgl:" in out.output
