"""Parsing into the AST, merging `extends`, card data checks, and how errors read."""
from __future__ import annotations

import pytest

from cgl.interpreter.base import ast as A
from cgl.interpreter.parse.build import parse, parse_expr
from cgl.interpreter.base.diagnostics import CglError, render
from cgl.interpreter.check.loader import load
from cgl.interpreter.runtime.patterns import solve


def diag_of(fn, *args, **kw):
    with pytest.raises(CglError) as e:
        fn(*args, **kw)
    return e.value.diagnostics[0]


# ---------------------------------------------------------------- expressions

@pytest.mark.parametrize("src, expected", [
    ("1 + 2 * 3", A.BinOp("+", A.Int(1), A.BinOp("*", A.Int(2), A.Int(3)))),
    ("2d20 - 4", A.BinOp("-", A.Dice(2, 20), A.Int(4))),
    ("24 / d6", A.BinOp("/", A.Int(24), A.Dice(1, 6))),
    ("nature = proud", A.Compare("=", A.Name("nature"), A.Name("proud"))),
    ("a == b", A.Compare("=", A.Name("a"), A.Name("b"))),
    ("not x and y or z", A.Or(A.And(A.Not(A.Name("x")), A.Name("y")), A.Name("z"))),
    ("x not in p.banned", A.In(A.Name("x"), A.Attr(A.Name("p"), "banned"), True)),
    ("hand(p) where rank > 2", A.Where(A.Call("hand", (A.Name("p"),)), A.Compare(">", A.Name("rank"), A.Int(2)))),
    ("if a then 1 else 2", A.IfExpr(A.Name("a"), A.Int(1), A.Int(2))),
    ("[x for x in l if x]", A.Comprehension(A.Name("x"), "x", A.Name("l"), A.Name("x"))),
    ("-f(1, [2])", A.Neg(A.Call("f", (A.Int(1), A.ListLit((A.Int(2),)))))),
])
def test_expressions_parse_into_typed_nodes(src, expected):
    assert parse_expr(src) == expected


def test_text_interpolation_parses_expressions_with_positions():
    m = parse('game "g" { players 2 }\nturn { phase p { say "hi {current.name}!" } }\n', "t.cgl")
    say = m.items[1].phases[0].body.stmts[0]
    assert say.text.parts[0] == "hi " and say.text.parts[2] == "!"
    inner = say.text.parts[1]
    assert inner == A.Attr(A.Name("current"), "name")
    assert inner.span.line == 2 and inner.span.column == 27


def test_declarations_parse_with_spans():
    src = 'game "G" {\n  version "1"\n  players 2..5\n}\noption n: int in 1..9 = 3 "How many"\n' \
          'zone hand: per player, owner, as hand\n'
    m = parse(src, "g.cgl")
    game, opt, zone = m.items
    assert (game.title, game.version, game.min_players, game.max_players) == ("G", "1", 2, 5)
    assert (opt.name, opt.lo, opt.hi, opt.doc) == ("n", 1, 9, "How many")
    assert zone == A.Zone("hand", True, True, "owner", "hand")
    assert zone.span.line == 6 and zone.span.column == 1


# ---------------------------------------------------------------- syntax errors in words

def test_syntax_error_says_what_was_expected_and_which_block_is_open():
    src = 'game "x" {\n  players 2..3\n  zone hand: per player\n'
    d = diag_of(parse, src, "bad.cgl")
    assert d.code == "E001"
    assert (d.span.line, d.span.column) == (3, 3)
    assert "expected `about`, `players`, `version` or `}`" in d.message
    assert "`game \"x\" {` opened at line 1 is still open" in d.hint
    shown = render(d)
    assert "bad.cgl:3:3: E001" in shown and "  zone hand: per player" in shown and "^^^^" in shown


def test_syntax_error_in_a_statement_names_statements_not_tokens():
    d = diag_of(parse, 'game "x" { players 2 }\nturn { phase p { draw } }\n', "s.cgl")
    assert "expected" in d.message and "__ANON" not in d.message and "RBRACE" not in d.message


def test_end_of_file_inside_a_block():
    d = diag_of(parse, 'game "x" { players 2 }\nturn {\n  phase p {\n    draw 1\n', "e.cgl")
    assert d.message == "the file ends too early"
    assert "phase p {" in d.hint


def test_single_quotes_get_a_hint():
    d = diag_of(parse, "game 'x' { players 2 }", "q.cgl")
    assert d.hint == "texts are written in double quotes"


# ---------------------------------------------------------------- loading, names, data

def test_unknown_name_has_a_did_you_mean(make_rules):
    d = diag_of(make_rules, 'turn { phase p { draw 1 to hnd(current) } }\n')
    assert d.code == "E004" and d.message == "unknown function `hnd`" and d.hint == "did you mean `hand`?"
    assert d.span.line == 6


def test_unknown_property_has_a_did_you_mean(make_rules):
    d = diag_of(make_rules, 'def reds = count(all_cards where suitt = "red")\n')
    assert d.code == "E004" and "suitt" in d.message and d.hint == "did you mean `suit`?"


def test_wrong_number_of_arguments(make_rules):
    d = diag_of(make_rules, 'def f(a, b) = a + b\ndef g = f(1)\n')
    assert d.code == "E009" and "takes 2" in d.message


def test_duplicate_definition(make_rules):
    d = diag_of(make_rules, 'def a = 1\ndef a = 2\n')
    assert d.code == "E005" and d.related


def test_extends_override_and_remove(make_rules):
    base = '''\
        game "Base" { players 2 }
        def bonus = 1
        def other = 2
        rule r: forbid x if true
        '''
    rs = make_rules('extends "base.cgl"\noverride def bonus = 5\nremove r\n', header=False,
                    files={"base.cgl": base})
    assert rs.defs["bonus"].expr == A.Int(5)
    assert "other" in rs.defs and rs.rules == []
    assert rs.sources[-1].endswith("game.cgl")


def test_override_of_an_undefined_name_is_an_error(make_rules):
    d = diag_of(make_rules, 'extends "base.cgl"\noverride def bonuss = 5\n', header=False,
                files={"base.cgl": 'game "B" { players 2 }\ndef bonus = 1\n'})
    assert d.code == "E006" and d.hint == "did you mean `bonus`?"


def test_redefining_without_override_is_an_error(make_rules):
    d = diag_of(make_rules, 'extends "base.cgl"\ndef bonus = 5\n', header=False,
                files={"base.cgl": 'game "B" { players 2 }\ndef bonus = 1\n'})
    assert d.code == "E005" and "override" in d.hint


def test_card_data_must_match_the_schema(tmp_path):
    (tmp_path / "d.yaml").write_text("cards:\n  - {name: A, suit: red}\n  - {name: B, suitt: blue}\n")
    (tmp_path / "g.cgl").write_text('game "g" { players 2 }\ncards from "d.yaml" { name: text  suit: text }\n')
    d = diag_of(load, str(tmp_path / "g.cgl"))
    assert d.code == "E003" and "suitt" in d.message
    assert d.span.path.endswith("d.yaml") and (d.span.line, d.span.column) == (3, 15)
    assert d.hint == "did you mean `suit`?"


def test_card_data_enum_values_are_checked(tmp_path):
    (tmp_path / "d.yaml").write_text("cards:\n  - {name: A, colour: rd}\n")
    (tmp_path / "g.cgl").write_text('game "g" { players 2 }\nenum colours { red, blue }\n'
                                    'cards from "d.yaml" { name: text  colour: colours }\n')
    d = diag_of(load, str(tmp_path / "g.cgl"))
    assert d.code == "E003" and d.hint == "did you mean `red`?" and d.span.line == 2


def test_card_data_that_is_not_yaml(tmp_path):
    (tmp_path / "d.yaml").write_text("cards:\n  - {name: A\n")
    (tmp_path / "g.cgl").write_text('game "g" { players 2 }\ncards from "d.yaml" { name: text }\n')
    d = diag_of(load, str(tmp_path / "g.cgl"))
    assert d.code == "E003" and d.span.path.endswith("d.yaml") and d.span.line >= 2


def test_card_counts_make_copies(make_rules):
    rs = make_rules("")
    assert [c.name for c in rs.cards].count("C1") == 2 and len(rs.cards) == 8


def test_options_are_checked(make_rules):
    body = 'option rounds: int in 1..4 = 2 "Rounds"\noption fast: bool = false\n'
    assert make_rules(body, options={"rounds": "3", "fast": "yes"}).option_values == {"rounds": 3, "fast": True}
    assert diag_of(make_rules, body, options={"rounds": "9"}).code == "E007"
    assert "whole number" in diag_of(make_rules, body, options={"rounds": "x"}).message
    assert diag_of(make_rules, body, options={"roundz": "1"}).hint == "did you mean `rounds`?"


def test_unknown_ruleset_name_suggests_shipped_ones():
    d = diag_of(load, "mgtt")
    assert d.code == "E002" and d.hint == "did you mean `mgt`?"


# ---------------------------------------------------------------- the pattern solver

def test_solver_prefers_shapes_in_order_and_keeps_labels_distinct():
    cards = list("abcdefgh")
    labels = [["x"]] * 4 + [["y"]] * 4
    shapes = [("eight", [(8, False, None)]), ("fours", [(4, False, None), (4, False, None)])]
    name, groups = solve(cards, labels, [None] * 8, shapes)
    assert name == "fours" and sorted(g[0] for g in groups) == ["x", "y"]
    assert solve(cards, [["x"]] * 8, [None] * 8, shapes[1:]) is None  # two groups need two labels


def test_solver_uses_cards_with_several_labels_where_they_fit():
    cards = list("abcdefgh")
    labels = [["x"]] * 3 + [["x", "joy"]] + [["y", "joy"]] * 4
    name, groups = solve(cards, labels, [None] * 8, [("53", [(5, False, None), (3, False, None)])])
    assert name == "53"
    # the card that is both x and joy must join the joy group for the hand to split 5 + 3
    assert {g[0]: sorted(g[1]) for g in groups} == {"joy": list("defgh"), "x": list("abc")}


def test_solver_any_part_and_label_conditions():
    cards = list("abcdefgh")
    labels = [["orph"]] * 7 + [["z"]]
    shapes = [("seven_one", [(7, False, lambda l: l == "orph"), (1, True, None)])]
    assert solve(cards, labels, [None] * 8, shapes)[0] == "seven_one"
    shapes = [("seven_one", [(7, False, lambda l: l == "other"), (1, True, None)])]
    assert solve(cards, labels, [None] * 8, shapes) is None


def test_solver_enumerates_every_distinct_reading():
    from cgl.interpreter.runtime.patterns import solve_all
    cards = list("abcdefgh")
    labels = [["x", "joy"]] * 4 + [["y", "joy"]] * 4
    shapes = [("eight", [(8, False, None)]), ("fours", [(4, False, None), (4, False, None)])]
    readings = {(name, tuple(sorted((g[0], len(g[1])) for g in groups))) for name, groups in
                solve_all(cards, labels, [None] * 8, shapes)}
    assert ("eight", (("joy", 8),)) in readings
    assert ("fours", (("x", 4), ("y", 4))) in readings
    assert ("fours", (("joy", 4), ("y", 4))) in readings
