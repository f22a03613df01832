"""A run of `elif` conditions comparing one value with texts is written as a switch
(`codegen.switch`): the same games and the same errors as the tree walker's."""
from __future__ import annotations

from cgl.interpreter.codegen import compiled_for

from test_codegen import _same_games_on_both_engines, _seen_and_steps, error_of

CHAINS = """
    enum colour { red, blue, green }
    def colours = [red, "blue"]
    var seen = []
    setup { deal 3 to hand }
    turn { phase p {
      draw 1
      for c in hand(current) {
        let v = if c.rank = 2 then c.rank elif c.rank = 3 then [c.name] else c.name
        if c.rank = 3 and c.suit = "green" { set seen = seen + ["g3"] }
        elif c.name = "A1" { set seen = seen + ["a1"] }
        elif c.name = "A2" or c.name = "B1" { set seen = seen + ["a2 b1"] }
        elif c.name in ["B2", "A1"] { set seen = seen + ["b2"] }
        elif c.name = "C1" { set seen = seen + ["c1"] }
        elif c.suit = "red" { set seen = seen + ["red"] }
        else { set seen = seen + ["else"] }
        if v = "A1" { set seen = seen + ["v a1"] }
        elif v = "B2" { set seen = seen + ["v b2"] }
        elif v in ["C1", "B3"] { set seen = seen + ["v c1 b3"] }
        elif v = "A3" { set seen = seen + ["v a3"] }
        else { set seen = seen + ["v {v}"] }
        if c.suit = red { set seen = seen + ["s red"] }
        elif c.suit = "blue" { set seen = seen + ["s blue"] }
        elif c.suit = green { set seen = seen + ["s green"] }
        elif c.suit = "red" { set seen = seen + ["s red again"] }
        elif c.suit = "other" { set seen = seen + ["s other"] }
        let w = c.rank = 1
        for x in [v, w, none, [c.name], c.suit] { if x in ["A1", "B2", red] { set seen = seen + ["in {x}"] } }
        if c.suit in colours { set seen = seen + ["in colours"] }
      }
      if turn_no >= 6 { end game }
    } }
"""


def test_an_elif_chain_on_one_text_is_a_switch_compiled(make_rules, monkeypatch):
    """Three chains become switches: on a card's name after a condition that is not one
    (whose misses go on to the `elif` on another value and the `else`; a text named in two
    branches goes to the first), on a local holding a text, a number or a list (compared one by one,
    `_first_equal`: a list cannot be looked up), on an enum's members and texts: the same branches as the tree walker's."""
    rs = make_rules(CHAINS)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, read=_seen_and_steps)
    assert cx.source.count("_first_equal(") == 3
    seen = {s for g, _ in games for s in g}
    assert {"a1", "a2 b1", "b2", "c1", "red", "else", "v 2", "v [A3]", "v a1", "v c1 b3", "s red", "s blue",
            "s green"} <= seen
    assert "s red again" not in seen
    assert {"in A1", "in red", "in colours"} <= seen
    assert "_in_list(" not in cx.source


def test_a_value_in_a_list_of_texts_is_pythons_in_compiled(make_rules, monkeypatch):
    """`x in ["a", b]` (b an enum's member; or a def that is such a list) is Python's `in`
    whatever x is (`all_texts`): a number, a truth value, none, a list, a text, a card; a list
    with a number in it is not (`true in [1]`)."""
    rs = make_rules("""
        enum colour { red, blue }
        def colours = [red, "blue"]
        def mixed = ["A1", 1]
        var seen = []
        turn { phase p {
          draw 1
          let c = first(hand(current))
          for x in [c.rank, c.rank = 1, none, [c.name], c.suit, c.name, c] {
            if x in ["A1", "B2", red] { set seen = seen + ["in {x}"] }
            if x in colours { set seen = seen + ["colour {x}"] }
            if x in mixed { set seen = seen + ["mixed {x}"] }
          }
          if turn_no >= 6 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    assert cx.source.count("_in_list(") == 1
    seen = {s for g, _ in games for s in g}
    assert {"in red", "colour blue", "mixed 1"} <= seen and "mixed true" not in seen


def test_an_elif_chain_on_one_text_too_short_for_a_switch_compiled(make_rules, monkeypatch):
    """Three texts are tested one by one (`MIN_SWITCH`), a derived value too (its reading may
    run something)."""
    rs = make_rules("""
        derive label = name
        var seen = []
        turn { phase p {
          draw 1
          let c = first(hand(current))
          if c.name = "A1" { set seen = seen + ["a"] } elif c.name = "B1" { set seen = seen + ["b"] }
          elif c.name = "C1" { set seen = seen + ["c"] }
          if c.label = "A1" { set seen = seen + ["a"] } elif c.label = "B1" { set seen = seen + ["b"] }
          elif c.label = "C1" { set seen = seen + ["c"] } elif c.label = "A2" { set seen = seen + ["d"] }
          if turn_no >= 4 { end game }
        } }
    """)
    _same_games_on_both_engines(rs, monkeypatch, seeds=2, read=_seen_and_steps)
    assert "_first_equal(" not in compiled_for(rs).source


def test_a_switchs_value_that_fails_points_at_the_first_condition_compiled(make_rules, monkeypatch):
    """The value is read once, where the first condition reads it: its error is that
    condition's, on both engines."""
    rs = make_rules("""
        turn { phase p {
          let d = first(pile)
          if d.name = "A1" { pass } elif d.name = "A2" { pass } elif d.name = "B1" { pass }
          elif d.name = "B2" { pass }
        } }
    """)
    tree = error_of(rs, monkeypatch, "tree")
    fast = error_of(rs, monkeypatch, "compiled")
    assert fast == tree
    assert "_first_equal(" in compiled_for(rs).source
