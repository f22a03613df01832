"""Every scenario file under tests/scenarios runs as a test named after the scenario."""
from __future__ import annotations

import pathlib

import pytest

from cgl.interpreter.play import scenario

from conftest import load_cached

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

HERE = pathlib.Path(__file__).parent / "scenarios"


def _cases():
    for f in scenario.collect([str(HERE)]):
        for item in scenario.read(f):
            yield pytest.param(f, item, id=str(item["scenario"]).split(" ")[0] + ":" + pathlib.Path(f).stem)


@pytest.fixture(autouse=True)
def _one_load_per_ruleset(monkeypatch):
    """A scenario's ruleset (file and options) is loaded once, not once per scenario and
    engine: loading costs several times what a scenario's game does."""
    monkeypatch.setattr(scenario, "load", load_cached)


@pytest.mark.parametrize("path, item", list(_cases()))
def test_scenario(path, item):
    outcome = scenario.run(path, item, check_invariants=True)
    assert outcome.passed, outcome.report() + "\n" + "\n".join("    | " + t for t in outcome.transcript)


# ------------------------------------------------------------------ wrong shapes
# A scenario's plan (where its play begins and stops) and the cards it names as values
# are checked with an E013 at the line and column of the mistake, never a traceback.

WAR = str(pathlib.Path(__file__).parent.parent / "examples" / "war.cgl")


def _scenario_file(tmp_path, body: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(f"scenario: x\nruleset: {WAR}\nplayers: 2\n{body}")
    return str(path)


def _error(fn):
    from cgl.interpreter.base.diagnostics import CglError
    with pytest.raises(CglError) as info:
        fn()
    [d] = info.value.diagnostics
    return d


@pytest.mark.one_engine
@pytest.mark.parametrize("body, line, col, message", [
    ("setup: {from: round begin}\n", 4, 15, "`setup.from` must be `turn start` (the default), `round start` or "
                                            "`game start`, not `round begin`"),
    ("setup:\n  from: round start\n  turn: P2\n", 6, 3, "has no `turn`: the round's `first`"),
    ("setup:\n  from: game start\n  round: 2\n", 6, 3, "plays from round 1: leave out `round`"),
    ("setup: {round: 0}\n", 4, 16, "`setup.round` counts from 1, not 0"),
    ("turns: -1\n", 4, 8, "`turns` is how many turns to play: 0 or more, not -1"),
    ("until: rond end\n", 4, 8, "`until` must be `round end` or `game end`, not `rond end`"),
    ("until: 3\n", 4, 8, "for a number of turns, write `turns: N`"),
    ("turns: 2\nuntil: round end\n", 5, 1, "give `turns` (how many turns to play) or `until` (where to stop), not both"),
    ("expect: {over: maybe}\n", 4, 10, "`expect.over` must be yes or no"),
    ("expect:\n  round: last\n", 5, 3, "`expect.round` must be a whole number"),
    ("expect:\n  reason: [win]\n", 5, 3, "`expect.reason` must be a text"),
    # a misspelt or wrongly shaped zone expectation would assert nothing (issue 17)
    ("expect:\n  zones: {hand P1: {cuont: 99}}\n", 5, 21, "unknown key `cuont` in the expectation of zone `hand P1`"),
    ("expect:\n  zones: {pile: 5}\n", 5, 11, "write `pile: {count: 5}`"),
    ("expect:\n  zones: {pile: {count: many}}\n", 5, 18, "`count` must be a whole number"),
    ("expect:\n  zones: {pile: {contains: King}}\n", 5, 18, "`contains` must be a list"),
    # a scripted shuffle names its zone and the cards it puts on top (issue 31)
    ("shuffles: [deck]\n", 4, 12, "item 1 of `shuffles` must be a shuffle `- ZONE: [cards on top, top first]`"),
    ("shuffles:\n  - deck: King\n", 5, 5, "item 1 of `shuffles` must be a shuffle"),
])
def test_a_wrong_plan_or_expectation_is_a_located_error(tmp_path, body, line, col, message):
    from cgl.interpreter.base.diagnostics import render
    path = _scenario_file(tmp_path, body)
    d = _error(lambda: scenario.read(path))
    assert d.code == "E013" and message in d.message, d.message
    assert (d.span.path, d.span.line, d.span.column) == (path, line, col)
    shown = render(d).splitlines()
    assert shown[0].startswith(f"{path}:{line}:{col}: E013") and shown[1].endswith(body.splitlines()[line - 4])
    assert shown[2].strip().startswith("^")


@pytest.mark.parametrize("value, col, message", [
    ("{card: King}", 26, "4 cards are named `King`: say which with `{card: King, in: ZONE}`"),
    ("{card: King, in: pot}", 36, "2 cards named `King` lie in `pot` (at 1, 3 from the top): say which with `at: N`"),
    ("{card: King, in: pot, at: 2}", 45, "the card at 2 in `pot` is `5`, not `King`"),
    ("{card: King, in: pot, at: 9}", 45, "`pot` holds 3 card(s): nothing lies at 9"),
    ("{card: King, in: pot, at: 0}", 45, "`at` is a position from the top of the zone (1 is the top), not `0`"),
    ("{card: King, at: 1}", 32, "`at` counts from the top of a zone: name the zone with `in: ZONE`"),
    ("{card: Queen, in: pot}", 37, "no `Queen` lies in `pot`"),
    ("{card: Kong}", 26, "no card is named `Kong`"),
    ("{card: King, in: pott}", 36, "unknown zone `pott`"),
    ("{card: King, in: pile}", 36, "`pile` belongs to each player: write `pile P1`"),
    ("{name: King}", 20, "unknown key `name` in a card"),
    ("{in: pot}", 19, "a card as a value is written `{card: NAME}`"),
    ("[{card: King, in: pot, at: 1}, {card: Joker}]", 57, "no card is named `Joker`"),
])
def test_a_card_named_as_a_value_must_be_one_card(tmp_path, value, col, message):
    """A card-valued variable is set to one card: by name when unique, else by zone (and
    position from the top, when several copies lie there); anything else is located."""
    path = _scenario_file(tmp_path, "setup:\n  zones:\n    pot: [King, \"5\", King]\n  players:\n"
                                    f"    P2: {{showing: {value}}}\n")
    [item] = scenario.read(path)
    d = _error(lambda: scenario.run(path, item))
    assert d.code == "E013" and message in d.message, d.message
    assert (d.span.line, d.span.column) == (8, col)


@pytest.mark.parametrize("shuffles, line, col, message", [
    ("  - pott: [King]\n", 5, 5, "unknown zone `pott`"),
    ("  - deck: [King, Kong]\n", 5, 18, "no card is named `Kong`"),
])
def test_a_scripted_shuffle_names_a_zone_and_cards(tmp_path, shuffles, line, col, message):
    path = _scenario_file(tmp_path, "shuffles:\n" + shuffles)
    [item] = scenario.read(path)
    d = _error(lambda: scenario.run(path, item))
    assert d.code == "E013" and message in d.message, d.message
    assert (d.span.line, d.span.column) == (line, col)


@pytest.mark.both_engines
@pytest.mark.parametrize("body, failure", [
    # war's setup shuffles the deck: a shuffle of another zone is not the one scripted
    ("setup: {from: game start}\nturns: 0\nshuffles:\n  - pot: []\n",
     "game error: E013 the scenario scripts a shuffle of `pot`, but the game shuffles deck"),
    ("setup: {from: game start, zones: {deck: [King]}, rest: pot}\nturns: 0\nshuffles:\n  - deck: [King, King]\n",
     "the scenario's shuffle of `deck` puts 2 King on top, but deck holds 1"),
    ("turns: 0\nshuffles:\n  - deck: []\n", "scripted shuffles never made: deck"),
])
def test_a_scripted_shuffle_the_game_does_not_make_fails_the_scenario(tmp_path, body, failure):
    path = _scenario_file(tmp_path, body)
    [item] = scenario.read(path)
    outcome = scenario.run(path, item)
    assert not outcome.passed and any(failure in f for f in outcome.failures), outcome.failures


@pytest.mark.parametrize("out, message", [
    ("[P3]", "`P3` is not a player of this scenario (P1 to P2)"),
    ("[P1]", "P1 has the turn (`turn: P1`): a player out of the round takes no turn in it"),
    ("[P2, P1]", "P1 has the turn"),
])
def test_a_player_set_up_out_of_the_round_is_one_of_the_players_and_not_the_one_to_play(tmp_path, out, message):
    path = _scenario_file(tmp_path, f"setup:\n  out_of_round: {out}\n")
    [item] = scenario.read(path)
    d = _error(lambda: scenario.run(path, item))
    assert d.code == "E013" and message in d.message, d.message
    assert (d.span.line, d.span.column) == (5, 3)


def test_an_expected_card_is_compared_by_its_name(tmp_path):
    path = _scenario_file(tmp_path, "expect:\n  players:\n    P2: {showing: {card: King, in: pot}}\n")
    [item] = scenario.read(path)
    d = _error(lambda: scenario.run(path, item))
    assert d.code == "E013" and "an expected card is compared by its name" in d.message
    assert (d.span.line, d.span.column) == (6, 32)


def test_card_valued_globals_and_card_variables_hold_the_very_copy_named(tmp_path):
    """Of two copies of C1 in P1's hand, `at: 3` names the lower one: the game reads that
    card itself (its id), not a text or the other copy."""
    (tmp_path / "deck.yaml").write_text("cards:\n  - {name: A1, rank: 1}\n  - {name: C1, rank: 3, count: 2}\n")
    (tmp_path / "r.cgl").write_text(
        'game "G" { players 2 }\ncards from "deck.yaml" { name: text  rank: int }\n'
        'zone deck: shared, ordered, hidden, as deck\nzone hand: per player, owner, as hand\n'
        'var chosen = none\nvar partner per card = none\n'
        'round { until turn_no >= 1 }\n'
        'turn { phase p { say "chosen {chosen.name} #{chosen.id} rank {chosen.rank}, partner {chosen.partner.name}" } }\n')
    (tmp_path / "s.yaml").write_text(
        "scenario: x\nruleset: r.cgl\nplayers: 2\n"
        "setup:\n  zones:\n    hand P1: [A1, C1, C1]\n"
        "  globals: {chosen: {card: C1, in: hand P1, at: 3}}\n"
        "  cards:\n    C1: {partner: {card: A1}}\n"
        "expect:\n  globals: {chosen: C1}\n  cards:\n    C1: {partner: {card: A1}}\n"
        "  log: ['chosen C1 #2 rank 3, partner A1']\n")
    [item] = scenario.read(str(tmp_path / "s.yaml"))
    outcome = scenario.run(str(tmp_path / "s.yaml"), item)
    assert outcome.passed, outcome.report() + "\n" + "\n".join(outcome.transcript)
    # the other copy (#1) is not the one the global holds
    assert "chosen C1 #2 rank 3, partner A1" in outcome.transcript


COPIES_RULES = ('game "G" { players 2 }\ncards from "deck.yaml" { name: text  rank: int }\n'
                'zone deck: shared, ordered, hidden, as deck\nzone hand: per player, owner, as hand\n'
                'zone under: per card, public\nvar mark per card = 0\nvar chosen = none\n'
                'round { until turn_no >= 1 }\n'
                'turn { phase p { say "chosen #{chosen.id} under {count(under(chosen))} mark {chosen.mark}"\n'
                '  for c in hand(current) { say "#{c.id} has {count(under(c))} under it, mark {c.mark}" } } }\n')


def _copies_case(tmp_path, body: str) -> str:
    (tmp_path / "deck.yaml").write_text("cards:\n  - {name: A1, rank: 1, count: 2}\n  - {name: C1, rank: 3, count: 3}\n")
    (tmp_path / "r.cgl").write_text(COPIES_RULES)
    (tmp_path / "s.yaml").write_text("scenario: x\nruleset: r.cgl\nplayers: 2\n" + body)
    return str(tmp_path / "s.yaml")


def test_one_copy_among_cards_of_one_name_is_named_by_its_number(tmp_path):
    """`C1#3` is the third C1 of the card data (card ids 2, 3, 4: #3 is id 4), in a zone's
    list, a zone of each card, a card's variables and a card value, in setup and expect;
    an unnumbered C1 takes the first copy no number names."""
    path = _copies_case(tmp_path, "setup:\n  zones:\n    hand P1: [C1, C1#1]\n    under C1#3: [A1#2]\n"
                                  "  cards:\n    C1#1: {mark: 7}\n  globals: {chosen: {card: C1#3}}\n"
                                  "expect:\n  zones:\n    hand P1: [C1#2, C1#1]\n    under C1#3: [A1#2]\n"
                                  "    under C1#1: []\n    deck: {contains: [C1#3, A1#1], excludes: [C1#2]}\n"
                                  "  cards:\n    C1#1: {mark: 7}\n    C1#2: {mark: 0}\n  globals: {chosen: C1#3}\n"
                                  "  log: ['chosen #4 under 1 mark 0', '#3 has 0 under it, mark 0', '#2 has 0 under it, mark 7']\n")
    [item] = scenario.read(path)
    outcome = scenario.run(path, item)
    assert outcome.passed, outcome.report() + "\n" + "\n".join(outcome.transcript)
    # an expectation naming the other copy fails
    path = _copies_case(tmp_path, "setup:\n  zones:\n    hand P1: [C1#2]\n  globals: {chosen: {card: A1#1}}\n"
                                  "expect:\n  zones:\n    hand P1: [C1#3]\n")
    [item] = scenario.read(path)
    outcome = scenario.run(path, item)
    assert not outcome.passed and outcome.failures == ["zone hand P1: expected ['C1#3'], found ['C1']"]
    # a variable expected to hold one copy holds that card, not another of its name
    path = _copies_case(tmp_path, "setup:\n  globals: {chosen: {card: A1#1}}\nexpect:\n  globals: {chosen: A1#2}\n")
    [item] = scenario.read(path)
    outcome = scenario.run(path, item)
    assert not outcome.passed and outcome.failures == ["chosen: expected A1#2, found A1#1"]


@pytest.mark.parametrize("body, line, col, message", [
    ("setup:\n  zones:\n    hand P1: [C1#4]\n", 6, 5, "`C1#4`: there are 3 cards named `C1`, #1 to #3"),
    ("setup:\n  zones:\n    under C1#0: []\n", 6, 5, "`C1#0`: there are 3 cards named `C1`, #1 to #3"),
    ("setup:\n  cards:\n    A1#3: {mark: 1}\n", 6, 5, "`A1#3`: there are 2 cards named `A1`, #1 to #2"),
    ("setup:\n  globals: {chosen: {card: C1#9}}\n", 5, 28, "there are 3 cards named `C1`"),
    ("setup:\n  zones:\n    hand P1: [C1#2]\n    hand P2: [C1#2]\n", 7, 5, "`C1#2` is placed twice (also in `hand P1`)"),
    ("expect:\n  cards:\n    C1#5: {mark: 1}\n", 6, 5, "`C1#5`: there are 3 cards named `C1`"),
])
def test_a_copy_number_out_of_range_is_a_located_error(tmp_path, body, line, col, message):
    path = _copies_case(tmp_path, body)
    [item] = scenario.read(path)
    d = _error(lambda: scenario.run(path, item))
    assert d.code == "E013" and message in d.message, d.message
    assert (d.span.line, d.span.column) == (line, col)


@pytest.mark.one_engine
def test_the_cli_reports_a_wrong_plan_with_its_line_and_fails(tmp_path):
    from click.testing import CliRunner

    from cgl.cli.main import main
    path = _scenario_file(tmp_path, "until: match ends\n")
    r = CliRunner().invoke(main, ["test", path])
    assert r.exit_code == 1
    assert f"{path}:4:8: E013 `until` must be `round end` or `game end`" in r.output
    assert "   4 | until: match ends" in r.output and "help: did you mean `match end`?" in r.output


@pytest.mark.parametrize("how, plan, ends", [
    ("win current", "turns: 1", "Game over (win): winner: P2"),
    ("end game", "until: round end", "Game over (win): winner: P1"),   # the match's end block decides
    ("end game", "turns: 1", None),                                   # the turn limit's signal: no end
])
def test_a_game_that_ends_inside_a_scenario_ends_as_a_game_does(tmp_path, how, plan, ends):
    """`win` ends the game wherever a scenario's play is, with the `end of game` event; `end
    game` also runs the match's end block, unless the play counts turns (the turn limit stops
    the play by the same signal)."""
    (tmp_path / "r.cgl").write_text(
        'game "G" { players 2 }\nmatch { rounds 3  end { say "match end"  win seat(1) } }\n'
        f'round {{ until turn_no >= 2 }}\nturn {{ phase p {{ if current = seat(2) {{ {how} }} }} }}\n'
        'on end of game as bye { say "bye" }\n')
    (tmp_path / "s.yaml").write_text(f"scenario: x\nruleset: r.cgl\nplayers: 2\nsetup: {{turn: P2}}\n{plan}\n")
    [item] = scenario.read(str(tmp_path / "s.yaml"))
    outcome = scenario.run(str(tmp_path / "s.yaml"), item)
    assert outcome.passed, outcome.report()
    if ends is None:
        assert not any("Game over" in t or "bye" in t for t in outcome.transcript), outcome.transcript
    else:
        assert ends in outcome.transcript and outcome.transcript[-1] == "bye", outcome.transcript
        assert ("match end" in outcome.transcript) == (how == "end game")


@pytest.mark.one_engine
def test_a_stat_the_game_never_counts_is_a_located_error(tmp_path):
    """(A misspelt stat, `trigger:no_such_trigger: 0`, passed: it asserted nothing. Issue 34.)"""
    from click.testing import CliRunner
    from cgl.cli.main import main
    path = _scenario_file(tmp_path, 'turns: 1\nexpect:\n  stats: {"trigger:ace_dealt": 0, "trigger:ace_delt": 0}\n')
    r = CliRunner().invoke(main, ["test", path, "-j", "1"])
    assert r.exit_code == 1, r.output
    assert "E013" in r.output and "`trigger:ace_delt` is nothing the game counts" in r.output
    assert "did you mean `trigger:ace_dealt`" in r.output and f"{path}:6:" in r.output
    path = _scenario_file(tmp_path, 'turns: 1\nexpect:\n  stats: {"trigger:ace_dealt": 0, "turns": 1}\n')
    r = CliRunner().invoke(main, ["test", path, "-j", "1"])
    assert r.exit_code == 0, r.output
