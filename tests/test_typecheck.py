"""The one type checker (interpreter/check/typecheck.py): what lint reports as E008, and the
promise that what it accepts runs. Each mistake below fails mid-game on both engines
(E010) if lint lets it through, so each case also plays the game to show that."""
from __future__ import annotations

import pytest

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.check.lint import lint_ruleset
from cgl.interpreter.check.typecheck import TypeChecker

from conftest import run_script

PLAYED = """
var points per player = 0
var note = "x"
match {{ rounds 1 }}
round {{ until turn_no >= 1 }}
turn {{ phase p {{ {stmt} }} }}
"""

# (statement, what the E008 message says)
MISTAKES = [
    ('set current.points += 1 + "x"', "changes a number by a number, and this is a text"),
    ('set current.points -= "2"', "changes a number by a number, and this is a text"),
    ('if count(hand(current)) > "0" { pass }', "cannot compare a number with a text"),
    ('say "{count(deck) * note}"', "`*` needs numbers, and this is a text"),
    ('say "{hand(current) + 1}"', "cannot add a number to a list"),
    ('if hand(current) > 3 { pass }', "`>` compares numbers, and this is a zone"),
    ('for c in hand(current) { say "{others(c)}" }', "`others` needs a player, and this is a card"),
    ('draw "two"', "must be a number of cards or times, and it is a text"),
    ('say "{-note}"', "`-` needs a number, and this is a text"),
    ('for c in deck { if current = c { pass } }', "comparing a player with a card: this is never true"),
    ('for p in players { set p.points += note }', "changes a number by a number, and this is a text"),
    # always true (a list, a zone): the brackets of `(xs sort by k) = ys` forgotten, or a zone tested
    ('if hand(current) sort by rank = [] { pass }', "a condition must be true or false, and this is a list"),
    ('while deck { draw 1 }', "a condition must be true or false, and this is a zone"),
    ('cut hand', "`cut` cuts one zone, and `hand` is a zone of each player"),
    ('cut 3', "`cut` cuts a zone, and this is a number"),
    ('cut deck at note', "`cut … at` takes a number of cards off the top, and this is a text"),
    ('for c in deck ordered by note { pass }', "`ordered by` names the player who orders the items, and this is a text"),
    ('choose 1..note cs in hand(current) { pass }', "the bounds of `choose LO..HI` are numbers of options, and HI here "
                                                     "is a text"),
    ('choose (count(deck) > 2)..3 cs in hand(current) { pass }', "and LO here is true/false"),
]


@pytest.mark.parametrize("stmt, message", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_a_value_of_the_wrong_kind_is_e008_at_lint_time(make_rules, stmt, message):
    rs = make_rules(PLAYED.format(stmt=stmt))
    found = [d for d in lint_ruleset(rs) if d.code == "E008"]
    assert any(message in d.message for d in found), [d.message for d in lint_ruleset(rs)]
    assert all(d.span.line > 0 for d in found)


@pytest.mark.parametrize("stmt", [m[0] for m in MISTAKES[:5]])
@pytest.mark.parametrize("engine", ["compiled", "tree"])
def test_what_lint_reports_would_fail_mid_game(make_rules, monkeypatch, stmt, engine):
    """The reported mistakes are real: played, each stops the game with E010."""
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    rs = make_rules(PLAYED.format(stmt=stmt))
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    assert e.value.diagnostics[0].code == "E010"


CORRECT = [
    'set current.points += 1',
    'let t = 1 + note  say "{t}"',           # a number and a text make a text
    'if count(hand(current)) > 0 { pass }',
    'for c in [current] ordered by current "Which first?" { say "{c}" }',   # one item: nothing asked
    'for c in hand(current) ordered by current prefer c.rank + it.rank { say "{c}" }',
    'choose 0..(count(hand(current)) - 1) cs in hand(current) { pass }',
    'say "{hand(current) + deck}"',         # zones join
    'set note = note + "y"',
    'if first(deck) = none { pass }',
    'say "{count(note)}"',                   # the length of a text
    'for p in players { let q = p.points + 1  say "{q}" }',
    'if (hand(current) sort by rank) = [] { pass }',
    'while exists(deck) and count(hand(current)) < 3 { draw 1 }',
    'cut deck  cut hand(current) at count(hand(current)) / 2',
]


@pytest.mark.parametrize("stmt", CORRECT)
def test_correct_rules_are_not_reported(make_rules, stmt):
    rs = make_rules(PLAYED.format(stmt=stmt))
    assert [d.message for d in lint_ruleset(rs) if d.code == "E008"] == []
    run_script(rs, [])


@pytest.mark.parametrize("stmt, message, hint", [
    ("cut hand", "`hand` is a zone of each player", "name whose: `cut hand(current)`"),
    ("cut bag", "`bag` is unordered: its cards lie in no order, so there is nothing to cut",
     "declare `zone bag: …, ordered` to cut it, or `shuffle` it"),
])
@pytest.mark.parametrize("engine", ["compiled", "tree"])
def test_a_zone_that_cannot_be_cut_is_located_with_a_help_line(make_rules, monkeypatch, stmt, message, hint, engine):
    """Lint says it, where and what to write instead; played anyway, the game stops there."""
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    rs = make_rules("zone bag: shared, unordered, public\n" + PLAYED.format(stmt=stmt))
    (d,) = [d for d in lint_ruleset(rs) if d.code == "E008"]
    assert message in d.message and d.hint == hint
    assert (d.span.line, d.span.column) == (12, 22)     # the zone, after `cut `
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    played = e.value.diagnostics[0]
    assert played.code == "E010" and message in played.message and played.hint == hint
    assert (played.span.line, played.span.column) == (12, 22)


def test_locals_rebound_in_a_rule_are_not_given_a_type(make_rules):
    """A loop variable set to something else in its body has no fixed type: nothing to report."""
    rs = make_rules(PLAYED.format(stmt='for p in players { set p = 3  say "{p + 1}" }'))
    assert [d for d in lint_ruleset(rs) if d.code == "E008"] == []


def test_the_generator_and_lint_read_the_same_types(make_rules):
    """One checker: the code generator's types are the type checker's."""
    from cgl.interpreter.codegen import CodeGen
    rs = make_rules(PLAYED.format(stmt="pass"))
    gen = CodeGen(rs)
    assert isinstance(gen.types, TypeChecker)
    assert gen.types.var_ty("points", "player") == "int"
    assert gen.types.var_ty("note", "global") == "str"


@pytest.mark.parametrize("stmt, ty", [
    ("set seen = seen + [card]", "list"),       # grown as `+=` grows it: typed as `set seen += [card]`
    ("set seen = [card] + seen", "list"),
    ("set seen = seen + 1", None),              # a list set to something else: no type
    ("set seen = card", None),
])
def test_a_variable_set_to_itself_and_more_keeps_its_type(make_rules, stmt, ty):
    """`set NAME = NAME + E` is typed as `set NAME += E`: a list grown by a list stays a list
    (the generator then joins the two lists without asking what they are)."""
    rs = make_rules(PLAYED.format(stmt="draw 1") + "var seen = []\n" + f"on draw as t {{ {stmt} }}\n")
    assert TypeChecker(rs).var_ty("seen", "global") == ty


@pytest.mark.parametrize("decl, message", [
    ("on draw as t ordered by card { pass }", "`ordered by` names the player who orders the triggers, and this is a card"),
    ("on move to pile instead as t ordered by player { pass }", "an `instead` trigger replaces a move, one at a time"),
])
def test_a_trigger_is_ordered_by_a_player_and_never_instead(make_rules, decl, message):
    rs = make_rules(PLAYED.format(stmt="pass") + decl + "\n")
    found = [d for d in lint_ruleset(rs) if d.code == "E008"]
    assert any(message in d.message for d in found), [d.message for d in lint_ruleset(rs)]


@pytest.mark.parametrize("body, ty", [
    ("if count(deck) > 0 then [] else (hand(p) where rank > 1)", "cards"),
    ("if count(deck) > 0 then (players where it != p) else []", "players"),
    ("if count(deck) > 0 then [] else hand(p) where rank > 1", "cards"),        # a zone's cards, filtered
    ("[c.rank for c in (if count(deck) > 0 then [] else hand(p))]", "list"),   # (a list of anything)
    ("if count(deck) > 0 then [] else hand(p)", None),                         # a list or a zone
    ("if count(deck) > 0 then [1] else hand(p)", None),
])
def test_an_empty_list_written_out_is_a_list_of_the_other_branchs_items(make_rules, body, ty):
    """`if … then [] else L` is of L's type (a list of cards, of players), and a `where` over
    `if … then [] else ZONE` keeps cards (`source_ty`): Unstable Unicorns' `unicorns(p)`, whose
    unicorns' `worth` the generator then adds as whole numbers. Nothing more is reported."""
    rs = make_rules(PLAYED.format(stmt="pass") + f"def d(p) = {body}\n")
    assert TypeChecker(rs).def_ty("d") == ty
    assert [d.message for d in lint_ruleset(rs) if d.code == "E008"] == []
