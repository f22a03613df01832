"""`cgl lint`: every registered code has a case that triggers it, and the outputs agree."""
from __future__ import annotations

import json
import pathlib

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.base.codes import CODES, markdown
from cgl.interpreter.check.lint import RULES, lint_file

from conftest import DECK_YAML, HEADER

ROOT = pathlib.Path(__file__).resolve().parent.parent

# One ruleset body per code that lint reports, each with the mistake of the code's docs.
LINT_CASES = {
    "E001": ("turn {\n  phase draw {\n    draw\n  }\n}\n", 9),
    "E004": ("turn { phase p { if count(hnd(current)) > 0 { draw 1 } } }\n", 6),
    "E005": ("def bonus = 1\ndef bonus = 2\n", 7),
    "E008": ("turn { phase p { if count(deck) > hand(current) { draw 1 } } }\n", 6),
    "E009": ("def holding(p) = count(hand(p))\ndef mine = holding()\n", 7),
    "E015": ('round { start { deal 3 to hand } }\n', 6),
    "E018": ("zone bag: per player, owner, hidden\n", 6),
    "E019": ('turn { phase p { choose o in [1, 2] prefer first(deck).rank * o { pass } } }\n', 6),
    "W101": ("def bonus = 2\n", 6),
    "W102": ("turn { phase draw { end turn  draw 1 } }\n", 6),
    "W103": ('on discard as tidy { say "tidied" }\n', 6),
    "W104": ('def reds = count(all_cards where suit = "rd")\nturn { phase p { say "{reds}" } }\n', 6),
    "W105": ('turn { phase p { choose c in all_cards where suit = "purple" { discard c } } }\n', 6),
    "W106": ('table pts(n) {\n  | n >= 4 -> 3\n  | n >= 4 -> 5\n  | else -> 0\n}\n'
             'turn { phase p { say "{pts(1)}" } }\n', 8),
    "W107": ('turn { phase p { for suit in players { say "{suit}" } } }\n', 6),
    "W108": ('pattern flush(p) { cards hand(p)  labels [suit]  shape big: 4 }\n'
             'turn { phase p { say "{flush(current)}" } }\n', 6),
    "W109": ('pattern flush(p) { cards hand(p)  labels [suit]  shape three: 3 }\n'
             'table pts(g) {\n  | g.size = 4 and g.label in ["red", "blue"] -> 9\n  | else -> 0\n}\n'
             'turn { phase p { let m = flush(current)  if m != none { say "{pts(first(m.groups))}" } } }\n', 8),
    "W111": ('turn { phase p { knock out others(current) } }\n', 6),
    "W110": ('match { rounds 1  end { give turn to first(players) } }\n', 6),
    "W112": ('turn { phase p { require { say "paid" } then { draw 1 } } }\n', 6),
    "W114": ('turn { phase p { choose 3..1 cs in hand(current) { pass } } }\n', 6),
    "W113": ('target foe if suit = "red": q in others(player)\n'
             'turn { phase p { choose targets of first(hand(current)) by current { draw 1 } } }\n', 6),
}


def test_a_warning_can_be_allowed_on_its_line(tmp_path):
    body = "def bonus = 2   # cgl: allow W101\ndef other = 3\n"
    found = lint_file(_write(tmp_path, body))
    assert [(d.code, d.span.line) for d in found] == [("W101", 7)]


def test_every_registered_code_has_a_case_that_triggers_it(tmp_path, make_rules):
    """Lint codes are covered above; the others are triggered by loading, playing or testing."""
    from cgl.interpreter.base.diagnostics import CglError
    from cgl.interpreter.play.game import Game
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.play import scenario
    from conftest import run_script

    def code_of(fn):
        try:
            fn()
        except CglError as e:
            return e.diagnostics[0].code
        return None

    others = {
        "E002": lambda: load(str(tmp_path / "missing.cgl")),
        "E003": lambda: make_rules("", files={"deck.yaml": "cards:\n  - {name: X, suit: red, rank: high}\n"}),
        "E006": lambda: make_rules('extends "b.cgl"\nremove nothing\n', header=False,
                                   files={"b.cgl": 'game "B" { players 2 }\n'}),
        "E007": lambda: make_rules('option n: int in 1..3 = 1\n', options={"n": "7"}),
        "E010": lambda: run_script(make_rules('round { until turn_no >= 1 }\n'
                                              'turn { phase p { say "{1 / 0}" } }\n'), []),
        "E011": lambda: run_script(make_rules('round { until turn_no >= 1 }\nturn { phase p { emit a() } }\n'
                                              'on a as loop { emit a() }\n'), []),
        "E012": lambda: run_script(make_rules('invariant none_left: count(deck) > 99\n'
                                              'round { until turn_no >= 1 }\nturn { phase p { pass } }\n'), []),
        "E013": lambda: scenario.read(str(_scenario(tmp_path))),
        "E014": lambda: Game(make_rules(""), 9),
        "E017": lambda: make_rules('round { until turn_no >= 1 }\nturn { phase p { say "{10000000000000000000000}" } }\n'),
        "E016": lambda: Game(make_rules('deck { default "d.yaml"  check big: count(cards) > 5 "too small" }\n',
                                        files={"d.yaml": "cards:\n  - {name: A1}\n"}), 2),
    }
    for code, fn in others.items():
        assert code_of(fn) == code, code
    covered = set(LINT_CASES) | set(others) | {"E001", "E004"}
    assert covered == set(CODES), set(CODES) - covered


def _scenario(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("scenario: X\nruleset: mgt\nsetpu: {}\n")
    return p


def _write(tmp_path, body, header=True):
    (tmp_path / "deck.yaml").write_text(DECK_YAML)
    path = tmp_path / "game.cgl"
    path.write_text((HEADER if header else "") + body)
    return str(path)


@pytest.mark.parametrize("code", sorted(LINT_CASES))
def test_each_lint_code_is_reported_where_the_mistake_is(tmp_path, code):
    body, line = LINT_CASES[code]
    found = lint_file(_write(tmp_path, body))
    hits = [d for d in found if d.code == code]
    assert hits, f"{code} not reported; got {[(d.code, d.message) for d in found]}"
    assert hits[0].span.line == line
    assert hits[0].level == CODES[code].severity


def test_draw_as_binds_for_the_rest_of_its_block_only(tmp_path):
    """`draw 1 as c`: `c` is known after the statement in its block and its `then`, not
    outside the block; named like a card property, it is W107."""
    body = 'turn { phase p {\n  if true { draw 1 as c then { say "{c.name}" }  say "{c.rank}" }\n  say "{c}"\n} }\n'
    assert [(d.code, d.span.line) for d in lint_file(_write(tmp_path, body))] == [("E004", 8)]
    body = 'turn { phase p {\n  draw 2 as suit\n  say "{suit}"\n} }\n'
    assert [(d.code, d.span.line) for d in lint_file(_write(tmp_path, body))] == [("W107", 7)]


def test_card_data_code_points_into_the_yaml(tmp_path):
    (tmp_path / "deck.yaml").write_text("cards:\n  - {name: A1, suit: red, rank: one}\n")
    (tmp_path / "game.cgl").write_text(HEADER)
    [d] = lint_file(str(tmp_path / "game.cgl"))
    assert d.code == "E003" and d.span.path.endswith("deck.yaml") and d.span.line == 2


def test_override_and_unreadable_codes(tmp_path):
    (tmp_path / "base.cgl").write_text('game "B" { players 2 }\ndef bonus = 1\n')
    (tmp_path / "child.cgl").write_text('extends "base.cgl"\noverride def bonuss = 2\n')
    [d] = lint_file(str(tmp_path / "child.cgl"))
    assert d.code == "E006" and d.hint == "did you mean `bonus`?"
    (tmp_path / "lost.cgl").write_text('extends "nowhere.cgl"\n')
    [d] = lint_file(str(tmp_path / "lost.cgl"))
    assert d.code == "E002"


def test_every_code_is_documented_and_every_rule_registered():
    doc = (ROOT / "docs" / "lint.md").read_text()
    assert doc == markdown(), "docs/lint.md is out of date: run `python -m cgl.interpreter.base.codes > docs/lint.md`"
    for code in CODES:
        assert f"## {code}" in doc
    assert set(RULES) <= set(CODES)
    # every code that lint itself can report has a case above
    assert set(RULES) | {"E001", "E004", "E005", "E009"} <= set(LINT_CASES)


def test_shipped_rulesets_are_clean():
    r = CliRunner().invoke(main, ["lint", str(ROOT / "rulesets"), "--strict"])
    assert r.exit_code == 0, r.output


def test_a_misspelled_name_in_text_json_and_github_formats(tmp_path):
    path = _write(tmp_path, "turn { phase p { draw 1 to hnd(current) } }\n")
    r = CliRunner().invoke(main, ["lint", path])
    assert r.exit_code == 1
    assert f"{path}:6:28: E004 unknown function `hnd`" in r.output
    assert "turn { phase p { draw 1 to hnd(current) } }" in r.output and "^^^" in r.output
    assert "help: did you mean `hand`?" in r.output
    j = json.loads(CliRunner().invoke(main, ["lint", path, "--format", "json"]).output)
    [d] = j["diagnostics"]
    assert (d["code"], d["line"], d["column"], d["hint"]) == ("E004", 6, 28, "did you mean `hand`?")
    assert j["errors"] == 1
    g = CliRunner().invoke(main, ["lint", path, "--format", "github"]).output
    assert g.startswith(f"::error file={path},line=6,col=28,") and "unknown function `hnd`" in g
    assert "did you mean `hand`?" in g


def test_exit_codes_strict_and_select(tmp_path):
    path = _write(tmp_path, "def bonus = 2\n")
    assert CliRunner().invoke(main, ["lint", path]).exit_code == 0          # warnings only
    assert CliRunner().invoke(main, ["lint", path, "--strict"]).exit_code == 1
    assert CliRunner().invoke(main, ["lint", path, "--select", "E004", "--strict"]).exit_code == 0
    r = CliRunner().invoke(main, ["lint", path, "--select", "X999"])
    assert r.exit_code == 2 and "unknown code" in r.output
    assert CliRunner().invoke(main, ["lint", str(tmp_path / "missing")]).exit_code == 2


def test_lint_recurses_into_folders(tmp_path):
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    _write(sub, "def bonus = 2\n")
    r = CliRunner().invoke(main, ["lint", str(tmp_path)])
    assert "1 file checked: 0 errors, 1 warning" in r.output


def test_an_event_nothing_raises_is_an_error_with_did_you_mean(tmp_path):
    """A misspelt event would silently switch a rule off: `on drow` is an error (exit 1)."""
    path = _write(tmp_path, 'turn { phase p { draw 1 } }\non drow as noted { say "drawn" }\n')
    r = CliRunner().invoke(main, ["lint", path])
    assert r.exit_code == 1, r.output
    assert "E004 unknown event `drow`" in r.output and "did you mean `draw`?" in r.output
    assert "game.cgl:7:4" in r.output


def test_an_event_the_ruleset_emits_is_known_and_a_far_one_gets_a_hint(tmp_path):
    ok = _write(tmp_path, 'turn { phase p { emit scored(player: current) } }\n'
                          'on scored as cheer { say "{player} scored" }\n')
    assert [d.code for d in lint_file(ok)] == []
    far = _write(tmp_path, 'turn { phase p { pass } }\non jackpot as cheer { say "won" }\n')
    (d,) = lint_file(far)
    assert d.code == "E004" and "raise it with `emit jackpot(…)`" in d.hint


def test_a_choice_judged_through_a_def_it_calls(tmp_path):
    """The static evaluator knows a def called with known arguments: a filter that calls one
    is judged too (lint once judged only filters of properties, options and constants)."""
    body = 'def cap(n) = n + 1\nturn { phase p { choose c in all_cards where rank > cap(5) { discard c } } }\n'
    found = lint_file(_write(tmp_path, body))
    assert [(d.code, d.span.line) for d in found] == [("W105", 7)]


def test_a_choice_count_known_without_playing_is_judged(tmp_path):
    """`choose LO..HI` with bounds an option gives: an empty range is W114 (a bound below zero
    counting as zero), a least the literal list cannot meet is W105; computed from the game,
    neither is judged (the engine runs the `else` block when no count fits)."""
    body = ("option keep: int = 2\n"
            "turn { phase p {\n"
            "  choose keep..1 cs in hand(current) { pass }\n"
            "  choose (-3)..(keep - 3) cs in hand(current) { pass }\n"
            "  choose (keep + 1)..5 cs in [1, 2] { pass }\n"
            "  choose (count(deck) + 9)..1 cs in hand(current) { pass }\n"
            "  choose 0..(keep - 3) cs in hand(current) { pass }\n"
            "} }\n")
    found = lint_file(_write(tmp_path, body))
    assert [(d.code, d.span.line) for d in found] == [("W114", 8), ("W105", 10)]


@pytest.mark.parametrize("body,what", [
    ("internal var step = 0\nturn { phase p { choose o in [1, 2] prefer step + o { pass } } }\n",
     "`step`, which is internal"),
    ("internal var tries per player = 0\n"
     "turn { phase p { choose o in [1, 2] prefer current.tries + o { pass } } }\n", "`tries`, which is internal"),
    ("def top = first(deck)\naction take \"Take\" prefer top.rank { pass }\nturn { phase p { act by current } }\n",
     "the cards of `deck`"),
    ("turn { phase p { choose o in [1, 2] prefer count(deck where rank > 2) * o { pass } } }\n",
     "the cards of `deck`"),
    ("turn { phase p { for o in [1, 2] ordered by current prefer first(deck).rank * o { pass } } }\n",
     "the cards of `deck`"),
    ("on draw as omen ordered by player prefer first(deck).rank { pass }\nturn { phase p { draw 1 } }\n",
     "the cards of `deck`"),
])
def test_a_hint_reading_what_no_player_sees_is_e019(tmp_path, body, what):
    found = [d for d in lint_file(_write(tmp_path, body)) if d.code == "E019"]
    assert len(found) == 1 and what in found[0].message and found[0].hint


@pytest.mark.parametrize("body", [
    "turn { phase p { choose o in [1, 2] prefer count(deck) * o + deck.size { pass } } }\n",
    "turn { phase p { choose o in [1, 2] prefer (if exists(deck) then o else 0) { pass } } }\n",
    "turn { phase p { choose o in [1, 2] prefer first(hand(current)).rank * o { pass } } }\n",
    "var open = 0\nturn { phase p { choose o in [1, 2] prefer open + o { pass } } }\n",
])
def test_a_hint_reading_what_its_player_may_see_passes_lint(tmp_path, body):
    assert not [d for d in lint_file(_write(tmp_path, body)) if d.code == "E019"]


def test_w113_a_target_read_in_rules_that_name_none(tmp_path):
    body = ('target foe if suit = "red": q in others(player)\n'
            'turn { phase p { say "{target(first(hand(current)))}" } }\n')
    found = [(d.code, d.span.line, d.message) for d in lint_file(_write(tmp_path, body)) if d.code == "W113"]
    assert [(c, ln) for c, ln, _ in found] == [("W113", 6), ("W113", 7)]
    assert "never named" in found[0][2] and "always `none`" in found[1][2]
    ok = ('target foe if suit = "red": q in others(player)\n'
          'turn { phase p { let c = first(hand(current))  choose targets of c by current { say "{target(c)}" } } }\n')
    assert not [d for d in lint_file(_write(tmp_path, ok)) if d.code == "W113"]
