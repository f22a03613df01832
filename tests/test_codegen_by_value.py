"""Cards found by a text of their data through a table made as the module is written
(`codegen/as_statements.py`, `ByValue`): the same games as the tree walker's."""
from __future__ import annotations

from test_codegen import _same_games_on_both_engines, _seen_and_steps

BY_VALUE = """
    var seen = []
    def has_suit(p, s) = exists(hand(p) where suit = s)
    def named(n) = [c.name for c in all_cards where zone = "hand" and name = n and owner(it) = current]
    def suited(s) = [c.name for c in all_cards where suit = s]
    def low(s) = [c.name for c in all_cards where rank < 3 and suit = s]
    setup { deal 3 to hand }
    turn { phase p {
      draw 1
      let t = "blue"
      let r = 2
      let a = [has_suit(current, "red"), has_suit(current, t), has_suit(current, "purple")]
      set seen = seen + ["{a}"]
      let b = [named("C1"), named("A2"), named("nobody"), suited("green"), suited(t)]
      set seen = seen + ["{b}"]
      let d = [exists(hand(current) where rank = r), low("red")]
      set seen = seen + ["{d}"]
      for c in all_cards where name = "C1" and zone = "pile" { set seen = seen + ["pile {c.name} {c.id}"] }
      choose c in hand(current) by current "Discard" { discard c }
      if turn_no >= 10 { end game }
    } }
"""


def test_cards_are_found_by_a_text_of_their_data_compiled(make_rules, monkeypatch):
    """`exists(ZONE where PROP = X)` with X a text asks whether the zone meets the set of
    the cards holding X; `all_cards where … and PROP = X and …` goes round those cards only,
    in id order (two C1s), when the tests before it are `zone = "Z"` or of the same form: the
    same answers as the tree walker's, true and false, for a text no card holds too. A test
    that is not of those forms first (`rank < 3`), or an X not known to be a text (a number),
    is written as before."""
    rs = make_rules(BY_VALUE)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, read=_seen_and_steps)
    source = cx.source
    assert source.count(".isdisjoint(") == 1   # (`has_suit`'s one variant, for a text)
    assert source.count("map(eng.cards.__getitem__, K") == 3   # (`named`, `suited`, the `for`)
    assert " in map(" in source   # (`rank = r`: a number)
    seen = [s for g, _ in games for s in g]
    assert any(s.startswith("[true") for s in seen) and any(s.startswith("[false") for s in seen)
    assert any("[C1, C1]" in s for s in seen)   # (both C1s, in order)
    assert any(s.startswith("pile C1") for s in seen)
