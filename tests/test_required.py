"""`require { … } [then { … }]`, the required part of an effect: what `then` ("then", "if you
do") and `possible` ("a card whose effect is impossible cannot be played") read, on both
engines (docs/language.md, section 4.11a).

The deck of conftest.py lies in id order: its top card is the second C1, then the first C1, B3 …
"""
from __future__ import annotations

import pytest

from conftest import run_script, texts

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)


def names(rs, ids):
    return [rs.cards[i].name for i in ids]


# Rain: discard 2 cards, then draw 2; and take another turn (outside the required part).
RAIN = """
    var turns_given = 0
    procedure rain(p) {
      require { repeat 2 { choose c in hand(p) by p "Discard" { discard c } } } then { draw 2 to hand(p) }
      set turns_given += 1
    }
    action play "Rain" when possible(rain(actor)) { rain(actor) }
    action rest "Rest" { pass }
    match { rounds 1 }
    round { start { deal {n} to hand } until turn_no >= 1 }
    turn { phase p { act by current } }
"""


def test_then_runs_after_a_required_part_done_in_full(make_rules):
    rs = make_rules(RAIN.replace("{n}", "2"))
    g, asked = run_script(rs, [0, 0])     # Rain; discard the first card (the other is the only one left)
    assert asked[0].labels == ["Rain", "Rest"]
    assert len(g.state.zones["pile"]) == 2 and len(g.state.zones["hand:0"]) == 2


def test_a_required_part_done_in_part_runs_no_then(make_rules):
    # one card: the part cannot be done in full, so the card is not offered …
    rs = make_rules(RAIN.replace("{n}", "1"))
    g, asked = run_script(rs, [])
    assert asked == []    # only "Rest": nothing to ask
    # … and played all the same (the action asks nothing), it discards the one card, draws nothing
    rs = make_rules(RAIN.replace("{n}", "1").replace('action play "Rain" when possible(rain(actor))',
                                                     'action play "Rain"'), name="forced.cgl")
    g, asked = run_script(rs, [0])
    assert len(g.state.zones["pile"]) == 1 and g.state.zones["hand:0"] == []
    assert g.state.globals["turns_given"] == 1    # what follows the part happens all the same


def test_a_declined_choice_leaves_the_part_undone(make_rules):
    rs = make_rules("""
        procedure pay(p) {
          require { may choose c in hand(p) by p "Discard one to draw two?" { discard c } } then { draw 2 to hand(p) }
        }
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { pay(current) } }
    """)
    g, asked = run_script(rs, [None])
    assert len(g.state.zones["hand:0"]) == 1 and g.state.zones["pile"] == []
    g, asked = run_script(rs, [0])
    assert len(g.state.zones["hand:0"]) == 2 and len(g.state.zones["pile"]) == 1


def test_a_refused_or_replaced_move_leaves_the_part_undone(make_rules):
    rs = make_rules("""
        rule keep_green: forbid leave hand if card.suit = "green"
        on discard if card.suit = "blue" instead { move card to deck bottom }
        procedure pay(p, c) { require { discard c } then { say "paid with {c.name}" } }
        match { rounds 1 }
        round { start { move all_cards where name in ["A1", "B1", "C1"] to hand(current) } until turn_no >= 1 }
        turn { phase p { for c in hand(current) { pay(current, c) } } }
    """)
    g, _ = run_script(rs, [])
    said = [t for t in texts(g) if t.startswith("paid")]
    assert said == ["paid with A1"]     # C1 is refused, B1 goes to the deck instead


def test_what_a_trigger_fails_is_not_the_parts_own(make_rules):
    # the discard sets off a trigger whose choice has nothing to choose from: the part was
    # done all the same; a required part of the trigger's own is judged on its own
    rs = make_rules("""
        on discard as echo { require { choose x in [] { pass } } then { say "never" } }
        procedure pay(p) { require { discard first(hand(p)) } then { say "paid" } }
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { pay(current) } }
    """)
    g, _ = run_script(rs, [])
    assert "paid" in texts(g) and "never" not in texts(g)


def test_a_part_inside_a_part_passes_on_its_shortfall(make_rules):
    rs = make_rules("""
        procedure pay(p) {
          require { require { draw 3 to hand(p) } then { say "inner" }  say "outer body" } then { say "outer" }
        }
        match { rounds 1 }
        round { start { move all_cards where name != "A1" to pile } until turn_no >= 1 }
        turn { phase p { pay(current) } }
    """)
    g, _ = run_script(rs, [])
    t = texts(g)
    assert "outer body" in t and "inner" not in t and "outer" not in t


def test_possible_asks_the_first_required_part_met(make_rules):
    # a card moves before the part (it would make the procedure possible without one):
    # only the part counts; a branch that meets no part counts when it changes anything
    rs = make_rules("""
        procedure effect(p, c) {
          move c to pile
          if c.suit = "red" { require { draw 5 to hand(p) } } elif c.suit = "blue" { draw 1 to hand(p) }
        }
        action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { effect(actor, c) }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { start { move all_cards where name in ["A1", "B1", "C1"] to hand(current)
                        move all_cards where name in ["A2", "A3", "B2"] to pile } until turn_no >= 1 }
        turn { phase p { act by current } }
    """)
    g, asked = run_script(rs, [3])
    # the deck holds 3 cards: red cannot draw 5; blue draws 1; green (two of them) moves itself only (a change)
    assert sorted(asked[0].labels) == ["Play B1", "Play C1", "Play C1", "Rest"]


def test_possible_asks_every_required_part_met(make_rules):
    # An effect may require several things of its player ("DESTROY a unicorn. Each player
    # must DISCARD a card": the destroy, and later their own discard): every required part a
    # way through meets must be done in full, not only the first; what lies between them
    # (another player's share, ignored when impossible) does not count.
    rs = make_rules("""
        procedure effect(p, c) {
          require { move first(deck) to pile }
          for q in others(p) { choose d in hand(q) by q "Discard" { discard d } }
          require {
            repeat (if c.suit = "red" then 2 else 1) { choose d in hand(p) where it != c by p "Discard" { discard d } }
          }
        }
        action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { effect(actor, c) }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { start { move all_cards where name in ["A1", "B1"] to hand(current)
                        move all_cards where name not in ["A1", "B1", "C1"] to pile } until turn_no >= 1 }
        turn { phase p { act by current } }
    """)
    g, asked = run_script(rs, [1])
    # the other hand is empty (its discard is ignored); A1 must discard two other cards of
    # its player's hand, which holds one: impossible, though its first part can be done
    assert asked[0].labels == ["Play B1", "Rest"]


def _tried_and_plain(make_rules, body, answers):
    """The game of `body`, whose `play` action is offered when `possible(effect(actor))`,
    answered `answers` (the decisions asked), and the same game without that condition,
    resting at once: a trial must leave the game as the plain one plays it."""
    tried = make_rules(body)
    plain = make_rules(body.replace("when possible(effect(actor))", ""), name="plain.cgl")
    a, asked = run_script(tried, answers, seed=5)
    b, _ = run_script(plain, [1], seed=5)
    return a, asked, b


def test_a_trial_through_a_required_part_leaves_no_trace(make_rules):
    body = """
        var seen = 0
        on draw as noted { set seen += 1 }
        procedure effect(p) { shuffle deck  require { draw 2 to hand(p)  discard first(hand(p)) } }
        action play "Play" when possible(effect(actor)) { pass }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { act by current } }
    """
    a, asked, b = _tried_and_plain(make_rules, body, [1])
    assert asked[0].labels == ["Play", "Rest"]
    assert a.state.zones == b.state.zones and a.state.globals == b.state.globals
    assert a.state.rng.getstate() == b.state.rng.getstate() and texts(a) == texts(b)


def test_a_trial_through_that_swaps_and_moves_leaves_the_games_zones_as_they_were(make_rules):
    # A way through shares the game's zones' lists until it changes one (State.zone_store):
    # the swap, the draw and the discard each change lists the game still holds, and the
    # required part falls short at the end (nothing is possible), so every way is tried.
    body = """
        procedure effect(p) {
          require { swap first(hand(p)) with first(deck)  draw 1 to hand(p)  discard first(hand(p))  draw 99 to hand(p) }
        }
        action play "Play" when possible(effect(actor)) { pass }
        action rest "Rest" { pass }
        action wait "Wait" { pass }
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { act by current } }
    """
    a, asked, b = _tried_and_plain(make_rules, body, [0])
    assert asked[0].labels == ["Rest", "Wait"]
    assert a.state.zones == b.state.zones and a.state.where == b.state.where
    assert texts(a) == texts(b)


def test_a_move_after_every_part_a_way_can_meet_changes_the_game_as_without_parts(make_rules):
    # Past the last statement a required part can follow (Facts.past_parts), a trial's way
    # through ends at its next move: it changed the game, as a move does in a procedure with
    # no part (the trial stops there), even when a later move puts the card back.
    body = """
        procedure effect(p) {
          if count(hand(p)) > 5 { require { draw 1 to hand(p) } }
          move first(hand(p)) to pile
          move first(pile) to hand(p)
        }
        action play "Play" when possible(effect(actor)) { pass }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { act by current } }
    """
    with_parts = make_rules(body)
    without = make_rules(body.replace("if count(hand(p)) > 5 { require { draw 1 to hand(p) } }", ""), name="plain.cgl")
    for rs in (with_parts, without):
        g, asked = run_script(rs, [1])
        assert asked[0].labels == ["Play", "Rest"]


def test_each_way_through_reads_the_games_derived_values(make_rules):
    # The first way through marks the card and reads a derived property of the mark (cached
    # for its trial's state), then falls short; the second reads the same property, which on
    # the game's state is unmarked: it must not read the first way's cached value, nor may
    # the game after the trial.
    rs = make_rules("""
        var mark per card = 0
        derive marked = mark
        procedure effect(p, c) {
          choose x in [1, 2] by p "How" {
            require {
              if x = 1 { set c.mark = 1  if c.marked = 1 { draw 99 to hand(p) } }
              elif c.marked = 0 { draw 1 to hand(p) } else { draw 99 to hand(p) }
            }
          }
        }
        action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { say "marked {c.marked}" }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { act by current } }
    """)
    g, asked = run_script(rs, [0])
    assert len(asked[0].labels) == 2 and asked[0].labels[1] == "Rest"
    assert "marked 0" in texts(g)


@pytest.mark.one_engine
def test_a_trial_stops_only_at_a_part_no_other_can_follow(make_rules):
    # `possible` reads every part a way through meets, so a way through may stop early only
    # after a part no other can follow (Facts.last_parts): not one followed by another, in
    # a loop, or in a procedure called where one may follow
    from cgl.interpreter.base import ast as A
    from cgl.interpreter.check.resolver import facts
    rs = make_rules("""
        procedure one(p) { require { draw 1 to hand(p) } }
        procedure two(p) { require { draw 1 to hand(p) }  say "between"  require { draw 2 to hand(p) } }
        procedure looped(p) { repeat 2 { require { draw 1 to hand(p) } } }
        procedure outer(p) { one(p)  require { draw 1 to hand(p) } }
        procedure alone(p) { if p = current { require { draw 1 to hand(p) } } else { require { draw 2 to hand(p) } } }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    last = facts(rs).last_parts

    def parts(name):
        return sorted((n.span.line, id(n) in last) for n in A.walk(rs.procedures[name].body) if isinstance(n, A.Require))
    assert [x for _, x in parts("one")] == [False]       # called by `outer` before its own part
    assert [x for _, x in parts("two")] == [False, True]
    assert [x for _, x in parts("looped")] == [False]
    assert [x for _, x in parts("outer")] == [True]
    assert [x for _, x in parts("alone")] == [True, True]   # two branches: one runs, nothing after


@pytest.mark.one_engine
def test_the_statements_no_part_can_follow(make_rules):
    # Facts.past_parts: a card statement or a call of a procedure with no part, outside any
    # part, that no part can follow at its level, nor in the procedures calling its own
    # (those calls outside parts too): from there a trial's way through ends at a move
    from cgl.interpreter.base import ast as A
    from cgl.interpreter.check.resolver import facts
    rs = make_rules("""
        procedure bonus(p) { draw 1 to hand(p) }
        procedure taken(p) { draw 1 to hand(p) }
        procedure main(p) { draw 1 to hand(p)  require { draw 1 to hand(p) }  bonus(p)  draw 2 to hand(p) }
        procedure inside(p) { require { taken(p) } }
        procedure looped(p) { repeat 2 { draw 1 to hand(p)  require { draw 1 to hand(p) } } }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    past = facts(rs).past_parts

    def marks(name):
        kinds = (A.Draw, A.CallStmt)
        found = [n for n in A.walk(rs.procedures[name].body) if isinstance(n, kinds)]
        return [id(n) in past for n in sorted(found, key=lambda n: (n.span.line, n.span.column))]
    assert marks("main") == [False, False, True, True]   # (the draw in the part is in it)
    assert marks("bonus") == [True]
    assert marks("taken") == [False]                       # called inside a part
    assert marks("inside") == [False]
    assert marks("looped") == [False, False]
