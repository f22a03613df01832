"""A ruleset declares its score (`var … per player = 0 as score`, `as low score`) and its
zones' roles (`as deck|hand|discard`), once each, in words the language knows; the table
and the statistics read the declaration instead of guessing from a variable's name."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cgl.cli import table as T
from cgl.cli.main import main
from cgl.interpreter.base.diagnostics import CglError

from conftest import HEADER

RULES = """
match { rounds 1 }
round { until turn_no >= 1 }
turn { phase p { pass } }
"""


@pytest.mark.parametrize("decl,score", [
    ("var pts per player = 0 as score", ("pts", "high")),
    ("var penalty per player = 0 as low score", ("penalty", "low")),
    ("var points per player = 0", ("points", "high")),             # declared none: `points`
    ("var points per player = 0\nvar vp per player = 0 as score", ("vp", "high")),
    ("var vp per player = 0", None),                                # no name is guessed
])
def test_a_ruleset_declares_its_score(make_rules, decl, score):
    rs = make_rules(decl + "\n" + RULES)
    assert rs.score == score
    assert T.score_var(rs) == (score[0] if score else None)


@pytest.mark.parametrize("decl,code,words", [
    ("var x per player = 0 as scor", "E004", "cannot be declared `as scor`"),
    ("var x = 0 as score", "E008", "`x` is a global variable, so it cannot be the score"),
    ("var x per card = 0 as low score", "E008", "`x` is a card variable"),
    ("var a per player = 0 as score\nvar b per player = 0 as low score", "E005", "`b` is declared the score"),
])
def test_a_wrong_score_declaration_is_a_located_error(make_rules, decl, code, words):
    with pytest.raises(CglError) as e:
        make_rules(decl + "\n" + RULES)
    d = e.value.diagnostics[0]
    assert d.code == code and words in d.message and d.hint
    assert d.span is not None and d.span.line == HEADER.count("\n") + decl.count("\n") + 1   # the last `var`


def test_simulate_follows_a_declared_low_score_unless_told_otherwise():
    run = CliRunner().invoke
    r = run(main, ["simulate", "examples/switchback.cgl", "-n", "4", "-s", "1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["lead_changes"]["variable"] == "penalty"
    assert json.loads(r.output)["lead_changes"]["direction"] == "low"
    r = run(main, ["simulate", "examples/switchback.cgl", "-n", "4", "-s", "1", "--json", "--score-direction", "high"])
    assert json.loads(r.output)["lead_changes"]["direction"] == "high"


@pytest.mark.parametrize("decl,code,words", [
    ("zone heap: shared, public, as dicard", "E004", "a zone cannot be declared `as dicard`"),
    ("zone heap: shared, public, as discard", "E005", "`heap` is declared `as discard`, and so is `pile`"),
])
def test_a_zone_role_is_one_the_language_knows_on_one_zone(make_rules, decl, code, words):
    """`as deck`, `as hand`, `as discard` (the default zones of draw, deal and discard): a
    misspelt role was silently no role, and a second zone with a role was never used."""
    with pytest.raises(CglError) as e:
        make_rules(decl + "\n" + RULES)
    d = e.value.diagnostics[0]
    assert d.code == code and words in d.message and d.hint and d.span.line == HEADER.count("\n") + 1
    if code == "E004":
        assert "discard" in d.hint


def test_a_search_bot_cutting_a_game_short_reads_the_declared_score():
    """Without an `estimate`, how well each seat stands is its score, and a low score
    counts down (Switchback's penalty: the fewest points lead)."""
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.play.game import Game
    game = Game(load("examples/switchback.cgl"), 2, 1)
    game.start()
    for seat, points in enumerate((3, 9)):
        game.state.player_vars[seat]["penalty"] = points
    assert game.engine.estimates() == [-3, -9]
