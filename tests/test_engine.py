"""The interpreter's statements, expressions, events and flow, on small inline rulesets."""
from __future__ import annotations

import pytest

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.walker.engine import AnswerError
from cgl.interpreter.play.game import Game, play

from conftest import run_script, texts

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

ONE_ROUND = """
match { rounds 1 }
round { until turn_no >= {turns} }
"""


def test_deal_and_draw_move_cards_from_the_deck(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 2 }
        turn { phase draw { draw 1 } }
    """)
    g, _ = run_script(rs, [])
    st = g.state
    assert len(st.zones["hand:0"]) == 3 and len(st.zones["hand:1"]) == 3
    assert len(st.zones["deck"]) == 8 - 6
    # dealt round-robin from the top: P1 gets the 1st and 3rd top cards
    names = [c.name for c in rs.cards]
    assert [names[i] for i in st.zones["hand:0"]][:2] == ["C1", "B3"]


def test_every_card_stays_in_exactly_one_zone(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { shuffle deck  deal 3 to hand } until turn_no >= 6 }
        turn { phase play {
            choose c in hand(current) "Discard" { discard c }
            move top(pile, 1) to hand(next_after(current)) bottom
        } }
    """)
    for seed in range(5):
        g = play(rs, 3, seed, check_invariants=True)
        assert sum(len(v) for v in g.state.zones.values()) == len(rs.cards)


def test_same_seed_same_game_and_other_seed_differs(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { shuffle deck  deal 2 to hand } until turn_no >= 4 }
        turn { phase p { choose c in hand(current) { discard c }  draw 1 } }
    """)
    a = texts(play(rs, 2, 7))
    b = texts(play(rs, 2, 7))
    c = texts(play(rs, 2, 8))
    assert a == b
    assert a != c


def test_choose_with_one_legal_answer_is_not_asked(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) "Discard" { discard c } } }
    """)
    g, asked = run_script(rs, [])
    assert asked == []
    assert len(g.state.zones["pile"]) == 1


def test_choose_asks_the_right_player_with_labels_and_binds_the_answer(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) by current "Discard one" { discard c  say "gone: {c.name}" } } }
    """)
    g, asked = run_script(rs, [1])
    d = asked[0]
    assert d.player == 0 and d.kind == "choose" and d.prompt == "Discard one"
    assert d.labels == ["B3", "C1"]  # top of the hand first
    assert "gone: C1" in texts(g)


def test_a_choice_is_labelled_when_read_by_the_engine_that_asked_even_once_its_game_is_gone(make_rules):
    """A choice's labels are worked out by its engine when first read (`Decision._asker`),
    not made per question: the decision keeps its engine, so they read the same after the
    `Game` is dropped."""
    import gc
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) by current "Discard one" { discard c } } }
    """)
    d = Game(rs, 2, 0).start()
    gc.collect()
    assert d._labels is None
    assert d.labels == ["B3", "C1"]


def test_for_ordered_by_lets_a_player_order_simultaneous_items(make_rules):
    """`for x in LIST ordered by P`: P puts the items in the order they run, all before the
    first runs (one question for each place but the last); one item asks nothing."""
    rs = make_rules("""
        var order = []
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          for x in ["a", "b", "c"] ordered by seat(2) "Which effect first?" { set order = order + [x]  say "runs {x}" }
          for x in ["d"] ordered by current { say "runs {x}" }
        } }
    """)
    g, asked = run_script(rs, [2, 0])
    assert [(d.player, d.kind, d.labels) for d in asked] == [(1, "choose", ["a", "b", "c"]), (1, "choose", ["a", "b"])]
    assert asked[0].prompt == "Which effect first?"
    assert g.state.globals["order"] == ["c", "a", "b"]
    assert [t for t in texts(g) if t.startswith("runs")] == ["runs c", "runs a", "runs b", "runs d"]
    assert "P2 chooses c (Which effect first?)" in texts(g)


def test_triggers_ordered_by_a_player_happen_at_once_and_that_player_orders_them(make_rules):
    """`on EVENT … ordered by P`: the triggers of one event that fire and name the same
    player are ordered by that player (APNAP), in the places they hold in the written
    order; a trigger that does not fire is not offered, one alone for its player asks
    nothing, and a `may` asks when its turn comes."""
    rs = make_rules("""
        var order = []
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { draw 1 } }
        on draw as plain { set order = order + ["plain"] }
        on draw as omen_a ordered by player { set order = order + ["a"] }
        on draw if suit = "red" as omen_red ordered by player { set order = order + ["red"] }
        on draw as omen_c ordered by player may "Use omen c?" { set order = order + ["c"] }
        on draw as omen_next ordered by next_after(player) { set order = order + ["next"] }
    """)
    g, asked = run_script(rs, [1, True])
    assert [(d.player, d.kind, d.labels) for d in asked] == [(0, "choose", ["omen_a", "omen_c"]),
                                                              (0, "may", ["yes", "no"])]
    assert g.state.globals["order"] == ["plain", "c", "a", "next"]
    assert "P1 chooses omen_c (These happen at once (draw): which first?)" in texts(g)
    assert g.state.stats["trigger:omen_c"] == 1 and "trigger:omen_red" not in g.state.stats


def test_ordered_by_prefer_scores_each_item_and_greedy_puts_the_best_first(make_rules):
    """`for x in LIST ordered by P prefer E`: E scores each item left (NAME and `it`), a hint
    for the bots; the greedy bot orders them best first. A hint reading a card its player
    cannot see is refused (E019), located at the hint."""
    body = """
        var order = []
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p {
          for x in [1, 3, 2] ordered by current "Which first?" prefer x * 10 - it { set order = order + [x] }
        } }
    """
    g, asked = run_script(make_rules(body), [0, 0])
    assert [d.scores() for d in asked] == [[9, 27, 18], [27, 18]]
    assert g.state.globals["order"] == [1, 3, 2]
    g = play(make_rules(body), 2, 0, agents=["greedy"])
    assert g.state.globals["order"] == [3, 2, 1]
    rs = make_rules(body.replace("x * 10 - it", "x * first(hand(next_after(current))).rank"))
    d = Game(rs, 2, 0).start()
    with pytest.raises(CglError) as e:
        d.scores()
    assert e.value.diagnostics[0].code == "E019" and e.value.diagnostics[0].span.line == 11


def test_triggers_ordered_by_prefer_are_scored_each_by_its_own_hint(make_rules):
    """`on EVENT … ordered by P prefer E`: each trigger of the group is scored by its own E
    (read as its condition is, as P's hint; 0 without one); greedy runs the best first."""
    body = """
        var order = []
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { draw 1 } }
        on draw as omen_a ordered by player prefer rank { set order = order + ["a"] }
        on draw as omen_b ordered by player prefer rank + 10 { set order = order + ["b"] }
        on draw as omen_c ordered by player { set order = order + ["c"] }
    """
    rs = make_rules(body)
    g, asked = run_script(rs, [0, 0])
    rank = next(c.props["rank"] for c in rs.cards if c.id == g.state.zones["hand:0"][0])
    assert [(d.labels, d.scores()) for d in asked] == [(["omen_a", "omen_b", "omen_c"], [rank, rank + 10, 0]),
                                                       (["omen_b", "omen_c"], [rank + 10, 0])]
    assert g.state.globals["order"] == ["a", "b", "c"]
    g = play(make_rules(body), 2, 0, agents=["greedy"])
    assert g.state.globals["order"] == ["b", "a", "c"]
    rs = make_rules(body.replace("prefer rank + 10", "prefer count(hand(next_after(player)) where rank > 0)")
                    .replace("round { until", "round { start { deal 1 to hand } until"))
    g = Game(rs, 2, 0)
    d = g.start()
    with pytest.raises(CglError) as e:
        d.scores()
    assert e.value.diagnostics[0].code == "E019" and e.value.diagnostics[0].span.line == 12


def test_optional_choice_can_be_declined_and_runs_else(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { may choose c in hand(current) { discard c } else { say "kept everything" } } }
    """)
    g, asked = run_script(rs, [None])
    assert asked[0].optional
    assert "kept everything" in texts(g)


def test_multi_choice_binds_a_list(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 3 to hand } until turn_no >= 1 }
        turn { phase p { choose 2 cs in hand(current) { for c in cs { discard c } } } }
    """)
    g, asked = run_script(rs, [[0, 2]])
    assert asked[0].lo == asked[0].hi == 2
    assert len(g.state.zones["pile"]) == 2


def test_choose_takes_computed_bounds_evaluated_when_the_choice_is_made(make_rules):
    """`choose LO..HI` with number expressions: discard down to two, asked for exactly
    the excess; a bound below zero counts as zero (nothing to pick: the block runs with
    the empty list, unasked); HI above the options counts as all of them."""
    rs = make_rules("""
        var got = []
        match { rounds 1 }
        round { start { deal 4 to hand } until turn_no >= 1 }
        turn { phase p {
          let excess = count(hand(current)) - 2
          choose excess..excess cs in hand(current) "Discard down to two" { for c in cs { discard c } }
          choose (count(hand(current)) - 3)..(count(hand(current)) - 3) cs in hand(current) { set got = got + [count(cs)] }
          choose 1..(count(deck) + 10) cs in hand(current) "Keep which?" { set got = got + [count(cs)] }
        } }
    """)
    g, asked = run_script(rs, [[0, 3], [0, 1]])
    assert [(d.lo, d.hi, d.prompt) for d in asked] == [(2, 2, "Discard down to two"), (1, 2, "Keep which?")]
    assert len(g.state.zones["pile"]) == 2 and len(g.state.zones["hand:0"]) == 2
    assert g.state.globals["got"] == [0, 2]


def test_choose_with_no_count_that_fits_runs_its_else_block(make_rules):
    """LO above HI, or above the number of options: nothing is asked, the `else` block
    runs (as with too few options); a bound that is not a number stops the game, located."""
    body = """
        var ks = [5, "x"]
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p {
          choose 1..(count(hand(current)) - 2) cs in hand(current) { say "picked" } else { say "none fits" }
          choose (count(hand(current)) + 1)..9 cs in hand(current) { say "picked" } else { say "too few" }
        } }
    """
    g, asked = run_script(make_rules(body), [])
    assert asked == [] and "none fits" in texts(g) and "too few" in texts(g) and "picked" not in texts(g)
    rs = make_rules(body.replace("} }\n    ", "  choose 1..last(ks) cs in hand(current) { say \"picked\" }\n} }\n", 1))
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E010" and "expected a number, got a text" in d.message and (d.span.line, d.span.column) == (13, 21)


def test_bad_answers_raise_and_leave_the_game_waiting(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
    """)
    g = Game(rs, 2, 0)
    d = g.start()
    for bad in (5, -1, "x", [0, 1], None, True):
        with pytest.raises(AnswerError):
            g.answer(bad)
    assert g.pending is d
    assert g.answer(0) is None and g.state.finished


def test_may_trigger_asks_and_follows_the_answer(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 2 }
        turn { phase p { draw 1 } }
        on draw if suit = "blue" as blue_bonus may "Draw again?" { draw 1 to hand(player) }
    """)
    game = Game(rs, 2, 0)
    d = game.start()
    seen = []
    while d is not None:
        seen.append(d.prompt)
        d = game.answer(True if len(seen) == 1 else False)
    assert seen and all(p == "Draw again?" for p in seen)
    assert game.state.stats["trigger:blue_bonus"] == 1


def test_triggers_fire_in_declaration_order_with_event_bindings(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
        on discard as first { say "first {card.name} by {player} from {event.from} to {event.to}" }
        on move to pile as second { say "second" }
        on discard if rank > 5 as never { say "never" }
    """)
    g, _ = run_script(rs, [])
    t = texts(g)
    i = t.index("first C1 by P1 from hand to pile")
    assert t[i + 1] == "second"
    assert "never" not in t


def test_reaction_window_asks_others_in_priority_order_and_once_closes_it(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
        reaction grab after discard {
          responders others_after(player)
          eligible true
          ask "Grab {card.name}?"
          once
          do { move card to hand(responder)  give turn to responder }
        }
    """)
    g, asked = run_script(rs, [False, True], players=4)
    assert [d.player for d in asked] == [1, 2]  # P2 declined, P3 took it, P4 never asked
    assert len(g.state.zones["hand:2"]) == 2
    assert g.state.next_player == 2


def test_continuous_rule_forbids_a_reaction(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
        reaction grab after discard { ask "Grab?" do { move card to hand(responder) } }
        rule no_green: forbid grab if card.suit = "green"
    """)
    g, asked = run_script(rs, [])
    assert asked == []  # the top card dealt is a green C1: nobody may grab it
    assert g.state.stats["rule:no_green"] == 1


def test_simultaneous_choices_are_hidden_until_both_are_made(make_rules):
    rs = make_rules("""
        var a = none
        var b = none
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          simultaneously {
            choose x in ["rock", "paper"] by seat(1) { set a = x }
            choose y in ["rock", "paper"] by seat(2) { set b = y }
          }
          say "{a} vs {b}"
        } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    d2 = g.answer(1)
    assert d2.player == 1 and d2.secret
    assert not any("paper" in e["text"] for e in d2.view()["log"])  # P2 cannot see P1's answer
    g.answer(0)
    assert "paper vs rock" in texts(g)   # what the ruleset says, it says to all


def test_secret_simultaneous_choices_stay_private_until_the_ruleset_says_them(make_rules):
    """Issue 14: the answers of `simultaneously` were shown to every seat when the block
    ended, so a secret bid leaked. Now only what the ruleset says (here, the winner) is public."""
    rs = make_rules("""
        var bids = []
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          simultaneously {
            for q in players { choose x in [1, 2, 3] by q "Your secret bid?" { set bids += [x] } }
          }
          say "the highest bid is {max(bids)}"
        } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    g.answer(1)          # P1 bids 2
    g.answer(2)          # P2 bids 3
    assert "the highest bid is 3" in texts(g)
    for seat, other in ((0, "P2"), (1, "P1")):
        seen = [e["text"] for e in g.engine.view(seat)["log"]]
        assert not any(t.startswith(other) and "bid" in t for t in seen), seen


def test_dice_expressions_are_seeded_and_scriptable(make_rules):
    rs = make_rules("""
        var r = 0
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { set r = 2d20 - 4  say "r={r} d6={d6} q={24 / d6}" } }
    """)
    g = Game(rs, 2, 0)
    g.engine.state.forced_dice = [10, 7, 3, 4]
    g.start()
    assert g.state.globals["r"] == 13
    assert "r=13 d6=3 q=6" in texts(g)
    # unscripted dice come from the seeded random source
    assert texts(play(rs, 2, 3)) == texts(play(rs, 2, 3))


def test_where_group_by_sort_by_and_comprehension(make_rules):
    rs = make_rules("""
        def reds = count(all_cards where suit = "red")
        def suits = [g.label for g in all_cards group by suit if g.size >= 3]
        def order = [c.name for c in (all_cards where rank = 1) sort by suit]
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { say "{reds} {suits} {order}" } }
    """)
    g, _ = run_script(rs, [])
    assert "3 [red, blue] [B1, C1, C1, A1]" in texts(g)


def test_elif_and_else_if_are_one_chain_in_statements_and_expressions(make_rules):
    """`elif` and `else if` alike, in an if-statement and an if-expression (issue 31)."""
    rs = make_rules("""
        def size(n) = if n = 1 then "one" elif n = 2 then "two" else if n = 3 then "three" else "many"
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
            for n in [1, 2, 3, 4] {
                if n = 1 { say "s1" } else if n = 2 { say "s2" } elif n = 3 { say "s3" } else { say "s{n}" }
                say "{size(n)}"
            }
        } }
    """)
    g, _ = run_script(rs, [])
    assert [t for t in texts(g) if t[:1] in "sotm"] == ["s1", "one", "s2", "two", "s3", "three", "s4", "many"]


def test_draw_as_names_what_was_drawn_for_then_and_the_rest_of_the_block(make_rules):
    """`draw 1 as c`: the card (or none); `draw N as cs`: the list, in the order drawn; a
    card a replacement took instead is not drawn (issue 31)."""
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
            draw 1 as c then { say "then {c.name} in {c.zone}" }
            say "drew {c.name}"
            draw 3 as cs
            say "drew {[x.name for x in cs]}"
            if true { draw 1 from pile as d then { say "never" } say "from the pile: {d}" }
            draw 2 from pile as ds
            say "{count(ds)} from the pile"
        } }
        on draw if card.name = "B3" instead { move card to pile }
    """)
    g, _ = run_script(rs, [])
    said = [t for t in texts(g) if t.startswith(("then", "drew", "from", "0 "))]
    assert said == ["then C1 in hand", "drew C1", "drew [C1, B2]", "from the pile: none", "0 from the pile"]


def test_tables_give_the_first_row_that_holds(make_rules):
    rs = make_rules("""
        table grade(n) {
          | n >= 10 -> "high"
          | n >= 5 -> "mid"
          | else -> "low"
        }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { say "{grade(12)} {grade(5)} {grade(1)}" } }
    """)
    g, _ = run_script(rs, [])
    assert "high mid low" in texts(g)


def test_a_table_may_call_itself(make_rules):
    """(The tree walker compiled a table's rows as it compiled each call of it: a table that
    called itself was "the rules call themselves without end" however it ended.)"""
    rs = make_rules("""
        table fact(n) {
          | n <= 1 -> 1
          | else -> n * fact(n - 1)
        }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { say "{fact(5)}" } }
    """)
    g, _ = run_script(rs, [])
    assert "120" in texts(g)


def test_order_is_not_asked_after_a_rounds_last_turn(make_rules):
    """The turn `order` is asked for the next turn only when the round goes on: after the
    last turn of a round (its `until` holds) an order that names no one is not an error
    (issue 31: an order that failed on `none` after a round's last turn)."""
    rs = make_rules("""
        def nobody_after(p) = if turn_no >= 2 then none else next_after(p)
        match { rounds 2 }
        round { until turn_no >= 2 }
        turn {
          order nobody_after(current)
          phase p { say "P{current.seat} plays" }
        }
    """)
    g, _ = run_script(rs, [])
    assert [t for t in texts(g) if t.endswith("plays")] == ["P1 plays", "P2 plays"] * 2


def test_an_order_that_names_no_one_goes_on_round_the_table(make_rules):
    """An `order` worth `none` is the order round the table, as if there were no `order`."""
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 4 }
        turn {
          order if turn_no = 2 then none else current
          phase p { say "P{current.seat} plays" }
        }
    """)
    g, _ = run_script(rs, [])
    assert [t for t in texts(g) if t.endswith("plays")] == ["P1 plays", "P1 plays", "P2 plays", "P2 plays"]


def test_end_turn_and_give_turn_change_who_plays(make_rules):
    rs = make_rules("""
        var log = []
        match { rounds 1 }
        round { until turn_no >= 4 }
        turn {
          start { set log += [current.seat] }
          phase p { if current.seat = 1 { give turn to seat(3) }  end turn }
          phase never { say "unreachable" }
        }
    """)
    g, _ = run_script(rs, [], players=3)
    assert g.state.globals["log"] == [1, 3, 1, 3]
    assert "unreachable" not in texts(g)


def test_give_turn_in_a_rounds_start_chooses_who_plays_first(make_rules):
    """`give turn to` works wherever it is written: in a round's start (after the deal, say)
    it names the round's first player (issue 14: it was silently ignored there)."""
    rs = make_rules("""
        var log = []
        match { rounds 2 }
        round {
          start { deal 1 to hand  give turn to seat(round_no + 1) }
          until turn_no >= 3
        }
        turn { start { set log += [current.seat] }  phase p { pass } }
    """)
    g, _ = run_script(rs, [], players=3)
    assert g.state.globals["log"] == [2, 3, 1, 3, 1, 2]


def test_win_ends_the_game_and_names_the_winner(make_rules):
    rs = make_rules("""
        match { rounds 5  end { say "match end block must not run after win" } }
        round { until turn_no >= 3 }
        turn { phase p { if turn_no = 2 { win current } } }
    """)
    g, _ = run_script(rs, [])
    assert g.result.winners == [2] and g.result.rounds == 1
    assert "match end block must not run after win" not in texts(g)


def test_lose_leaves_the_last_player_as_winner(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { until false }
        turn { phase p { lose current } }
    """)
    g, _ = run_script(rs, [], players=3)
    assert g.result.winners == [3]
    assert g.result.reason == "last player standing"


def test_knock_out_leaves_a_player_out_of_the_round_not_the_game(make_rules):
    """`knock out p`: no turns for p, not in `players` nor `others`, for the rest of the
    round; back when the next round begins; the round ends at one player when its `until`
    says so; `lose` then puts p out of the game (issue 31)."""
    rs = make_rules("""
        match { rounds 2 }
        round {
          start { say "round {round_no}: {count(players)} in" }
          until count(players) < 2 or turn_no >= 6
          end { say "left in round {round_no}: {players}" }
        }
        turn { phase p {
          say "P{current.seat} plays, others {others(current)}"
          if round_no = 1 and turn_no = 1 { knock out seat(2) }
          if round_no = 1 and turn_no = 2 { knock out [seat(1), seat(3)] }
          if round_no = 2 and turn_no = 1 { knock out seat(2)  lose seat(2) }
        } }
    """)
    g, _ = run_script(rs, [], players=3)
    said = [t for t in texts(g) if t.startswith(("round", "P", "left"))]
    assert said == ["round 1: 3 in", "P1 plays, others [P2, P3]", "P2 is out of the round",
                    "P3 plays, others [P1]", "P1 is out of the round", "P3 is out of the round",
                    "left in round 1: []",
                    "round 2: 3 in", "P1 plays, others [P2, P3]", "P2 is out of the round", "P2 is out",
                    "P3 plays, others [P1]", "P1 plays, others [P3]", "P3 plays, others [P1]",
                    "P1 plays, others [P3]", "P3 plays, others [P1]", "left in round 2: [P1, P3]"]
    assert g.state.out == [1] and g.state.out_of_round == []


def test_knocking_out_all_but_one_ends_the_game_only_by_lose(make_rules):
    """Out of the round is not out of the game: the last player in the round does not win
    the game by it; `lose` of a player out of the round still ends it."""
    rs = make_rules("""
        match { rounds 1 }
        round { until count(players) < 2 }
        turn { phase p {
          knock out others(current)
          lose seat(2)
          say "the game goes on"
          lose seat(3)
          say "never said"
        } }
    """)
    g, _ = run_script(rs, [], players=3)
    said = texts(g)
    assert "the game goes on" in said and "never said" not in said
    assert g.state.winners == [0] and sorted(g.state.out) == [1, 2] and g.state.out_of_round == []


def test_runaway_trigger_chain_stops_with_an_error_naming_it(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { emit ping() } }
        on ping as echo { emit ping() }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E011" and "echo -> echo" in d.message


def test_emit_is_counted_and_heard_whether_or_not_anything_waits(make_rules):
    """`emit` (a plain call on both engines: nothing made when nothing waits for it) counts
    every event, runs what waits for it, and settles after it, logged or not, invariants
    checked or not."""
    rules = """
        var heard = 0
        var settled = 0
        match { rounds 1 }
        round { until turn_no >= 2 }
        turn { phase p { emit ping()  emit pong(n: 2) } }
        on ping as heard_ping { set heard = heard + 1 }
    """
    for checked in (False, True):
        rs = make_rules(rules + ("check caught_up: if heard > settled { set settled = heard }" if checked else ""))
        for record in (True, False):
            for invariants in (False, True):
                g = play(rs, 2, 1, record=record, check_invariants=invariants)
                stats = g.result.stats
                assert (stats["event:ping"], stats["event:pong"], stats["trigger:heard_ping"]) == (2, 2, 2)
                assert g.state.globals["heard"] == 2 and g.state.globals["settled"] == (2 if checked else 0)


def test_while_loop_limit(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { while true { pass } } }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    assert e.value.diagnostics[0].code == "E011"
    assert e.value.diagnostics[0].span.line > 0


def test_runtime_error_points_at_the_rule(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { say "{1 / (turn_no - 1)}" } }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E010" and "division by zero" in d.message and d.span.line == 9


def test_view_hides_other_hands_and_the_deck(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
    """)
    g = Game(rs, 2, 0)
    d = g.start()
    v = d.view()
    zones = {z["label"]: z for z in v["zones"]}
    assert isinstance(zones["hand P1"]["cards"], list) and len(zones["hand P1"]["cards"]) == 2
    assert zones["hand P2"]["cards"] is None and zones["hand P2"]["count"] == 2  # only a count
    assert zones["deck"]["cards"] is None and zones["deck"]["count"] == 4
    assert not any("B2" in e["text"] or "A3" in e["text"] for e in v["log"] if e.get("player") == 2)


def test_state_copy_is_independent(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { shuffle deck  deal 2 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    snap = g.state.copy()
    g.answer(0)
    assert snap.zones != g.state.zones
    twin = snap.copy()
    assert snap.rng.random() == twin.rng.random()  # the random source is copied too


def test_patterns_find_shapes_and_respect_fixed_groups(make_rules):
    rs = make_rules("""
        var fixed per card = 0
        pattern two_suits(p) {
          cards hand(p)
          labels [suit]
          fixed fixed
          shape pair_of_threes: 3 + 3
          shape three_and_any: 3 + 3 any
        }
        match { rounds 1 }
        round { start { deal 4 to hand } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    eng = g.engine
    st = eng.state
    by = {c.name: c for c in rs.cards}
    st.zones["hand:0"] = [by[n].id for n in ["A1", "A2", "A3", "B1", "B2", "B3"]]
    for k, ids in st.zones.items():
        if k != "hand:0":
            st.zones[k] = [i for i in ids if i not in st.zones["hand:0"]]
    m = eng.match_pattern(rs.patterns["two_suits"], [eng.players[0]])
    assert m.shape == "pair_of_threes"
    assert sorted(g.label for g in m.groups) == ["blue", "red"]
    # fixing A1 with B1 makes the two suits impossible to split cleanly
    st.card_vars[by["A1"].id]["fixed"] = 1
    st.card_vars[by["B1"].id]["fixed"] = 1
    assert eng.match_pattern(rs.patterns["two_suits"], [eng.players[0]]) is None


def test_act_offers_legal_actions_with_prefer(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { act by current } }
        action play(c in hand(actor)) "Play {c.name}" when c.rank >= 2 prefer c.rank { discard c }
        action pass_turn "Pass" { say "passed" }
    """)
    g = Game(rs, 2, 0)
    d = g.start()
    assert d.kind == "action"
    assert d.labels == ["Play B3", "Pass"]  # C1 has rank 1: not legal
    assert d.scores() == [3, 0]
    g.answer(0)
    assert g.state.stats["action:play"] == 1


def test_invariant_check_catches_a_duplicated_card(make_rules):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
    """)
    g = Game(rs, 2, 0, check_invariants=True)
    g.start()
    g.state.zones["pile"].append(g.state.zones["deck"][0])  # a card now lies in two zones
    with pytest.raises(CglError) as e:
        g.engine.check_invariants()
    assert e.value.diagnostics[0].code == "E012"


def test_pattern_best_by_picks_the_highest_scoring_reading(make_rules):
    rs = make_rules("""
        pattern hands(p) {
          cards hand(p)
          labels [suit, "all"]
          shape three: 3
          best by if first(it.groups).label = "red" then 1 else 0
        }
        pattern first_reading(p) {
          cards hand(p)
          labels [suit, "all"]
          shape three: 3
        }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    eng, st = g.engine, g.state
    by = {c.name: c for c in rs.cards}
    st.zones["deck"] = [i for i in st.zones["deck"] if i not in (by["A1"].id, by["A2"].id, by["A3"].id)]
    st.zones["hand:0"] = [by[n].id for n in ("A1", "A2", "A3")]
    # three red cards read as "all" (the first reading, labels in order) or as "red"
    assert eng.match_pattern(rs.patterns["first_reading"], [eng.players[0]]).groups[0].label == "all"
    assert eng.match_pattern(rs.patterns["hands"], [eng.players[0]]).groups[0].label == "red"


def test_a_broken_ruleset_invariant_stops_the_game_and_names_it(make_rules):
    rs = make_rules("""
        invariant small_hands: count(players where count(hand(it)) > 2) = 0
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 4 }
        turn { phase p { draw 1 } }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E012" and "`small_hands` broken at the end of round 1, turn 3 (P1)" in d.message
    assert d.span.line == 7


def test_the_engine_invariant_names_a_card_out_of_place_lost_or_doubled(make_rules):
    """With invariants on, every turn's end checks that each card lies in exactly one zone,
    the one recorded for it; a state broken each way is refused, naming the card."""
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 2 }
        turn { phase p { draw 1 } }
    """)
    g = Game(rs, 2, 0, check_invariants=True)
    g.start()
    eng, st = g.engine, g.state
    eng.check_invariants()                       # a game as played is whole
    a, b = st.zones["hand:0"][:2]
    name = rs.cards[a].name

    def broken(change):
        zones, where = {k: list(v) for k, v in st.zones.items()}, list(st.where)
        change()
        with pytest.raises(CglError) as e:
            eng.check_invariants()
        st.zones.update(zones)
        st.where[:] = where
        return e.value.diagnostics[0]

    d = broken(lambda: st.where.__setitem__(a, "pile"))
    assert d.code == "E012" and f"{name} is in hand:0 but recorded in pile" in d.message
    d = broken(lambda: st.zones["hand:0"].remove(a))
    assert f"cards lost or duplicated: {name}" in d.message
    d = broken(lambda: st.zones["hand:0"].append(a))
    assert f"cards lost or duplicated: {name}" in d.message
    d = broken(lambda: st.zones["hand:0"].__setitem__(0, b))     # as many cards, one twice, one gone
    assert f"cards lost or duplicated: {', '.join(rs.cards[i].name for i in sorted((a, b)))}" in d.message
    d = broken(lambda: (st.zones["hand:0"].remove(b), st.zones["hand:1"].append(b)))
    assert f"{rs.cards[b].name} is in hand:1 but recorded in hand:0" in d.message
    eng.check_invariants()                       # and whole again


def test_state_serialises_and_fork_resumes_the_same_game(make_rules):
    import json
    rs = make_rules("""
        var last = none
        match { rounds 1 }
        round { start { shuffle deck  deal 2 to hand } until turn_no >= 3 }
        turn { phase p { choose c in hand(current) { discard c  set last = c } draw 1 } }
    """)
    g = Game(rs, 2, 5)
    g.start()
    g.answer(1)
    snapshot = json.loads(json.dumps(g.state.to_json(rs)))
    assert snapshot["globals"]["last"] in [c.name for c in rs.cards]
    twin = g.fork()
    assert twin.state.to_json(rs) == g.state.to_json(rs)
    assert g.state.copy().globals["last"] is g.state.globals["last"]  # cards are shared, not cloned
    twin.answer(0)
    g.answer(1)
    assert twin.state.log != g.state.log  # the fork is independent


def test_end_of_game_triggers_fire(make_rules):
    """Regression: `on end of game` was accepted but never raised."""
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
        on end of game as bye { say "good game" }
    """)
    g, _ = run_script(rs, [])
    assert texts(g)[-1] == "good game"


def test_simultaneous_bodies_wait_until_every_choice_is_made(make_rules):
    """Regression: a choice's body ran at once, so a player variable it set was visible
    to the next chooser."""
    rs = make_rules("""
        var shown per player = none
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          simultaneously {
            choose x in ["rock", "paper"] by seat(1) { set seat(1).shown = x }
            choose y in ["rock", "paper"] by seat(2) { set seat(2).shown = y }
          }
        } }
    """)
    g = Game(rs, 2, 0)
    g.start()
    d2 = g.answer(1)
    assert [p["vars"]["shown"] for p in d2.view()["players"]] == [None, None]
    g.answer(0)
    assert [p["shown"] for p in g.state.player_vars] == ["paper", "rock"]


def test_names_the_engine_binds_are_accepted_by_the_checker(make_rules):
    """Regression: `event.card`, bare `zone` in `where`, and an action's parameter in the
    rule that forbids it were rejected as unknown names."""
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { act by current } }
        action toss(c in hand(actor)) "Toss {c.name}" { discard c }
        rule no_green: forbid toss if c.suit = "green"
        on discard as seen {
          let left = count(hand(event.player) where zone = "hand")
          say "{event.card.name} by {event.player} in {event.phase}: {left} left"
        }
    """)
    g, asked = run_script(rs, [])
    assert asked == []  # C1 (green) is forbidden, so only B3 can be tossed
    assert "B3 by P1 in p: 1 left" in texts(g)


@pytest.mark.one_engine
def test_cli_output_into_a_closed_pipe_is_quiet():
    import subprocess
    out = subprocess.run("cgl run mgt -p 2 -s 1 | head -1", shell=True, capture_output=True, text=True, timeout=120)
    assert "internal error" not in out.stderr and out.stdout.startswith("Monster Girl Taxonomy")


def test_a_scenario_round_that_ends_by_until_runs_its_end_block(tmp_path):
    """Regression: in a scenario, a round ended by `until` skipped its `end` block, and a
    ruleset with no zones crashed the scenario runner."""
    outcome = _run_scenario(tmp_path, 'game "r" { players 2 }\n'
                                      'round { until turn_no >= 1  end { say "round end block runs" } }\n'
                                      'turn { phase p { say "turn" } }\n',
                            'scenario: x\nruleset: r.cgl\nplayers: 2\nturns: 1\n'
                            'expect: {log: ["round end block runs"]}\n')
    assert outcome.passed, outcome.report()


def _run_scenario(tmp_path, rules: str, scenario_text: str):
    """Write a ruleset (r.cgl) and a scenario file beside it; run the file's one scenario."""
    from cgl.interpreter.play import scenario
    (tmp_path / "r.cgl").write_text(rules)
    (tmp_path / "s.yaml").write_text(scenario_text)
    [item] = scenario.read(str(tmp_path / "s.yaml"))
    return scenario.run(str(tmp_path / "s.yaml"), item)


def test_a_scenarios_next_follows_the_rulesets_turn_order(tmp_path):
    """Issue 14: a scenario's `next:` assumed seat order; a ruleset's `turn { order … }` (here
    counter-clockwise) decides whose turn comes next, as the game itself would."""
    outcome = _run_scenario(tmp_path, 'game "r" { players 3 }\nmatch { rounds 1 }\nround { until turn_no >= 9 }\n'
                                      'turn { order seat(current.seat - 1)  phase p { say "turn" } }\n',
                            'scenario: x\nruleset: r.cgl\nplayers: 3\nsetup: {turn: P1}\nturns: 1\n'
                            'expect: {next: P3}\n')
    assert outcome.passed, outcome.report()


def test_functions_reading_where_cards_lie_are_not_remembered(make_rules):
    """Regression: a def reading `zone`, `zone_of(it)` or `owner(it)` was taken to depend on
    the card data alone, so its first result was remembered and went stale."""
    from cgl.interpreter.check.resolver import facts
    rs = make_rules("""
        def piled(p) = count(all_cards where zone = "pile")
        def held(p) = count(all_cards where owner(it) = p)
        def reds(p) = count(all_cards where suit = "red")
        def far(p) = count(others(p))
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          say "{piled(1)} {held(current)}"
          discard top(deck, 2)
          draw 1
          say "{piled(1)} {held(current)}"
        } }
    """)
    assert facts(rs).static_defs == {"reds"}
    g, _ = run_script(rs, [])
    assert "0 0" in texts(g) and "2 1" in texts(g)


def test_a_function_given_a_zone_reads_its_cards_now(make_rules):
    """Regression: `def size(z) = count(z)` reads only its parameter, so it was taken to
    depend on its arguments alone and its result remembered per ruleset; but a zone as an
    argument is a place whose cards change. It said 0 (compiled) or 8 (tree walker) for a
    deck of 8, then the same after a draw."""
    rs = make_rules("""
        def size(z) = count(z)
        def names(z) = text([c.name for c in z])
        def holds(z, c) = c in z
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
          say "{size(deck)} {names(pile)} {holds(pile, first(deck))}"
          draw 1
          discard top(deck, 1)
          say "{size(deck)} {names(pile)} {holds(pile, first(pile))}"
        } }
    """)
    g, _ = run_script(rs, [])
    assert "8 [] false" in texts(g) and "6 [C1] true" in texts(g)


def test_instead_replaces_a_move_which_then_never_happens(make_rules):
    """A replacement (`instead`) runs in place of the move: the card never reaches the
    pile, no discard event is raised, and triggers on the replacing move still fire."""
    rs = make_rules("""
        zone safe: shared, public
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { discard hand(current) } }
        on discard if suit = "green" instead as rescue { move card to safe }
        on discard as seen { say "discarded {card.name}" }
        on move to safe as saved { say "saved {card.name}" }
    """)
    g, _ = run_script(rs, [])
    t = texts(g)
    st = g.state
    names = {c.id: c.name for c in rs.cards}
    assert [names[i] for i in st.zones["safe"]] == ["C1"]
    assert [names[i] for i in st.zones["pile"]] == ["B3"]
    assert "saved C1" in t and "discarded B3" in t and "discarded C1" not in t
    assert st.stats["instead:rescue"] == 1


def test_an_optional_replacement_asks_and_declined_lets_the_move_happen(make_rules):
    """`instead … may`: the player is asked; yes runs the replacement, no lets the next
    replacement be asked, and with none left the move happens (a card's "you may … instead")."""
    rs = make_rules("""
        zone safe: shared, public
        zone vault: shared, public
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { discard hand(current) } }
        on discard instead as rescue may by player "Save {card.name}?" { move card to safe }
        on discard if suit = "green" instead as lock may { move card to vault }
    """)
    g, asked = run_script(rs, [True, False, False])   # B3 saved; C1: not rescued, not locked
    names = {c.id: c.name for c in rs.cards}
    st = g.state
    assert [d.prompt for d in asked] == ["Save B3?", "Save C1?", "Use lock?"]
    assert [names[i] for i in st.zones["safe"]] == ["B3"] and [names[i] for i in st.zones["pile"]] == ["C1"]
    g, _ = run_script(rs, [False, False, True])
    assert [names[i] for i in g.state.zones["vault"]] == ["C1"] and [names[i] for i in g.state.zones["pile"]] == ["B3"]


def test_instead_is_for_card_moves_and_a_loop_is_caught(make_rules):
    with pytest.raises(CglError) as e:
        make_rules("on start of turn instead as nothing { pass }\n")
    assert e.value.diagnostics[0].code == "E008" and "moves no card" in e.value.diagnostics[0].message
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 1 to hand } until turn_no >= 1 }
        turn { phase p { discard hand(current) } }
        on discard instead as again { discard card }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    assert e.value.diagnostics[0].code == "E011" and "again -> again" in e.value.diagnostics[0].message


def test_zones_per_card_hold_attachments_that_follow_their_rules(make_rules):
    """`zone under: per card`: every card has a zone; what lies under a card belongs to the
    card's owner and is counted, moved and checked like any zone."""
    rs = make_rules("""
        zone table: per player, public
        zone under: per card, owner
        match { rounds 1 }
        round { start { deal 3 to hand  move top(hand(seat(1)), 1) to table(seat(1)) } until turn_no >= 1 }
        turn { phase p {
          let host = first(table(current))
          move first(hand(current)) to under(host)
          say "{count(under(host))} under {host.name}, owned by {owner(first(under(host)))}"
          discard host
          discard under(host)
        } }
    """)
    g, _ = run_script(rs, [], players=2)
    t = texts(g)
    assert any(x.endswith("owned by P1") and x.startswith("1 under") for x in t)
    assert len(g.state.zones["pile"]) == 2
    v = g.engine.view(1)
    assert not any(z["zone"] == "under" for z in v["zones"])  # empty attachment zones are not listed


def test_a_zone_of_each_card_needs_a_card(make_rules):
    from cgl.interpreter.check.lint import lint_ruleset
    rs = make_rules("""
        zone under: per card, public
        turn { phase p { move first(hand(current)) to under(current) } }
    """)
    assert any(d.code == "E008" and "zone of each card" in d.message for d in lint_ruleset(rs))
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    assert "takes a card" in e.value.diagnostics[0].message


@pytest.mark.both_engines
def test_a_card_under_a_card_belongs_to_whoever_holds_its_host(make_rules, engine):
    """The owner of a card in a zone under a card follows the host: when the host changes
    hands, so does what lies under it (a zone's owner is remembered per zone, but not for
    the zones under a card)."""
    rs = make_rules("""
        zone table: per player, public
        zone under: per card, public
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p {
          let host = first(hand(seat(1)))
          move host to table(seat(1))
          let c = first(hand(seat(1)))
          move c to under(host)
          say "before: {owner(c)}, {owner(host)}"
          move host to table(seat(2))
          say "after: {owner(c)}, {owner(host)}"
          move c to table(seat(1))
          say "back: {owner(c)}"
        } }
    """)
    g, _ = run_script(rs, [], players=2)
    t = texts(g)
    assert "before: P1, P1" in t and "after: P2, P2" in t and "back: P1" in t


@pytest.mark.both_engines
def test_a_zone_per_card_per_player_is_a_side_of_a_shared_card(make_rules, engine):
    """`zone side: per card per player`: each card has one zone per player, `side(c, p)`.
    A card in it belongs to that player (whoever holds the host), `host` is the card whose
    zone holds it, a move between two sides is a real move (its event, its log line), the
    seat view lists each side apart, and a hidden side is seen by its own player only."""
    rs = make_rules("""
        zone line: shared, public
        zone side: per card per player, owner
        var moved = 0
        match { rounds 1 }
        round { start { deal 3 to hand  move first(deck) to line } until turn_no >= 1 }
        turn { phase p {
          let front = first(line)
          let a = first(hand(seat(1)))
          let b = first(hand(seat(2)))
          move a to side(front, seat(1))
          move b to side(front, seat(2))
          say "sides: {count(side(front, seat(1)))} {count(side(front, seat(2)))}, owners {owner(a)} {owner(b)}"
          say "host: {host(a) = front} {host(b) = front} {host(front)} {host(first(hand(seat(1))))}"
          move a to side(front, seat(2))
          say "moved: {owner(a)} {count(side(front, seat(1)))} {count(side(front, seat(2)))} {moved}"
          say "zone: {zone_of(a)} {side(front, seat(2))}"
        } }
        on move to side as count_moves { set moved += 1 }
    """)
    g, _ = run_script(rs, [], players=2)
    t = texts(g)
    assert "sides: 1 1, owners P1 P2" in t
    assert "host: true true none none" in t
    assert "moved: P2 0 2 3" in t
    front = g.engine.cards[g.state.zones["line"][0]]
    assert f"zone: side side({front.name}, P2)" in t
    assert sorted(k for k in g.state.zones if k.startswith("side@")) == [f"side@{front.id}:0", f"side@{front.id}:1"]
    on_side = [g.engine.cards[i].name for i in reversed(g.state.zones[f"side@{front.id}:1"])]
    assert len(on_side) == 2 and g.state.zones[f"side@{front.id}:0"] == []
    v1, v2 = g.engine.view(0), g.engine.view(1)
    [seen1] = [z for z in v1["zones"] if z["zone"] == "side"]
    [seen2] = [z for z in v2["zones"] if z["zone"] == "side"]
    assert seen1["label"] == seen2["label"] == f"side {front.name} P2" and seen1["owner"] == "P2"
    assert seen1["on"] == front.name
    assert seen1["cards"] is None and [c["name"] for c in seen2["cards"]] == on_side


@pytest.mark.one_engine
def test_a_zone_per_card_per_player_needs_the_card_and_the_player(make_rules):
    from cgl.interpreter.check.lint import lint_ruleset
    with pytest.raises(CglError) as e:
        make_rules("""
            zone side: per card per player, public
            turn { phase p { move first(hand(current)) to side(first(deck)) } }
        """)
    d = e.value.diagnostics[0]
    assert d.code == "E009" and "`side` is a zone of each card and player: it takes 2 arguments" in d.message
    rs = make_rules("""
        zone side: per card per player, public
        turn { phase p {
          move first(hand(current)) to side(current, current)
          move first(hand(current)) to side(first(deck), "P1")
        } }
    """)
    found = [(d.code, d.message) for d in lint_ruleset(rs)]
    assert any(c == "E008" and "a zone of each card, and this is a player" in m for c, m in found), found
    assert any(c == "E008" and "`side(c, p)` is a zone of each card and player, and this is a text" in m
               for c, m in found), found


@pytest.mark.both_engines
def test_a_zone_per_card_per_player_without_its_player_stops_the_game(make_rules, engine):
    rs = make_rules("""
        zone side: per card per player, public
        def f(x) = x
        turn { phase p { move first(hand(current)) to side(first(deck), f(first(deck))) } }
        round { start { deal 1 to hand } until turn_no >= 1 }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    assert "`side(c, p)` takes a player after the card, got a card" in e.value.diagnostics[0].message


@pytest.mark.one_engine
def test_a_zone_is_per_card_per_player_or_one_other_whose(make_rules):
    with pytest.raises(CglError) as e:
        make_rules("zone side: per card per player, per card\n")
    d = e.value.diagnostics[0]
    assert d.code == "E018" and "`per card per player` and `per card`" in d.message


@pytest.mark.both_engines
def test_a_card_property_named_owner_is_read_before_the_built_in_one(make_rules, engine):
    """A card's data may name a property `owner`: `c.owner` and `owner(c)` read it, not
    the player whose zone the card lies in."""
    rs = make_rules("""
        game "Owners" { players 2 }
        cards from "own.yaml" { name: text  owner: text }
        zone deck: shared, ordered, hidden, as deck
        zone hand: per player, owner, as hand
        setup { for n in ["X", "Y"] { move first(deck where name = n) to hand(seat(1)) } }
        turn { phase p {
          for c in hand(current) { say "{c.name}: {c.owner}, {owner(c)}" }
          end game
        } }
    """, header=False, files={"own.yaml": """
        cards:
          - {name: X, owner: nobody}
          - {name: Y, owner: somebody}
          - {name: Z, owner: nobody}
          - {name: W, owner: somebody}
    """})
    g, _ = run_script(rs, [], players=2)
    said = [t for t in texts(g) if t[:3] in ("X: ", "Y: ", "Z: ", "W: ")]
    assert sorted(said) == ["X: nobody, nobody", "Y: somebody, somebody"]


@pytest.mark.both_engines
def test_a_cards_zone_names_where_it_lies_unless_its_data_says_otherwise(make_rules, engine):
    """`zone` of a card is the name of the zone it lies in, wherever it moves (a player's
    zone, a shared one, a zone under another card), read as `c.zone` or as a bare name
    where `it` is the card; a card whose data has a property `zone` reads that instead."""
    rs = make_rules("""
        zone table: per player, public
        zone under: per card, public
        turn { phase p {
          let host = first(hand(current))
          let c = last(hand(current))
          move host to table(current)
          move c to under(host)
          let under_n = count(all_cards where zone = "under")
          let table_n = count(all_cards where zone = "table")
          say "moved: {c.zone} {host.zone} {under_n} {table_n}"
          move c to pile
          let piled = [x.name for x in all_cards if x.zone = "pile"]
          say "piled: {c.zone} {piled}"
          end game
        } }
        setup { deal 2 to hand }
    """)
    g, _ = run_script(rs, [], players=2)
    t = texts(g)
    moved = next(x for x in t if x.startswith("moved: "))
    assert moved == "moved: under table 1 1"
    assert any(x.startswith("piled: pile [") for x in t)
    rs = make_rules("""
        game "Zones" { players 2 }
        cards from "z.yaml" { name: text  zone: text }
        zone deck: shared, ordered, hidden, as deck
        zone hand: per player, owner, as hand
        setup { deal 1 to hand }
        turn { phase p {
          let north = count(all_cards where zone = "north")
          say "{[c.zone for c in hand(current)]} {north}"
          end game
        } }
    """, header=False, files={"z.yaml": """
        cards:
          - {name: X, zone: north}
          - {name: Y, zone: north}
          - {name: Z, zone: south}
    """})
    g, _ = run_script(rs, [], players=2)
    said = [x for x in texts(g) if x.startswith("[")]
    assert said and said[0].endswith("] 2") and said[0][1:6] in ("north", "south")


@pytest.mark.one_engine
def test_how_long_a_derived_value_lasts(make_rules):
    """A derive that reads where its own card lies (`zone`, `owner(it)`, `it.zone`) lasts
    until the card moves ("place"); one that reads another card's place, or its own
    through a `where` (where `it` is each card of the list), is worked out at every use."""
    from cgl.interpreter.check.resolver import facts
    rs = make_rules("""
        zone table: per player, public
        var marked per card = false
        derive spot = "{zone} of {owner(it)}"
        derive spot2 = if it.owner = none then zone_of(it) else "held"
        derive tagged = if marked then "{rank}!" else spot
        derive crowd = count(all_cards where owner(it) = none)
        derive first_owner = owner(first(hand(seat(1))))
        derive plain = rank + 1
        turn { phase p { end game } }
    """)
    kinds = facts(rs).derive_kinds
    assert (kinds["spot"], kinds["spot2"], kinds["tagged"]) == ("place", "place", "place")
    assert (kinds["crowd"], kinds["first_owner"], kinds["plain"]) == ("dynamic", "dynamic", "static")
    assert "tagged" in facts(rs).derives_reading["marked"]


def test_a_derive_that_reads_where_its_card_lies_follows_it_on_every_route(make_rules, engine):
    """A "place" derive is remembered, and forgotten whenever its card moves, whatever moves
    it (`move`, `draw`, `discard`, `swap`), or when the card it lies under changes hands."""
    rs = make_rules("""
        zone table: per player, public
        zone under: per card, public
        derive spot = "{zone} of {owner(it)}"
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p {
          let a = first(hand(seat(1)))
          let b = first(hand(seat(2)))
          say "1: {a.spot} / {b.spot}"
          move a to table(seat(1))
          say "2: {a.spot}"
          swap a with b
          say "3: {a.spot} / {b.spot}"
          move a to under(b)
          say "4: {a.spot}"
          move b to table(seat(2))
          say "5: {a.spot} / {b.spot}"
          discard b
          say "6: {b.spot}"
          draw 1 to table(seat(2))
          say "7: {first(table(seat(2))).spot}"
        } }
    """)
    g, _ = run_script(rs, [], players=2)
    said = [t for t in texts(g) if t[:1].isdigit()]
    assert said == ["1: hand of P1 / hand of P2", "2: table of P1", "3: hand of P2 / table of P1",
                    "4: under of P1", "5: under of P2 / table of P2", "6: pile of none",
                    "7: table of P2"]


# ---------------------------------------------------------------- cut

def _cut_rules(make_rules, body: str, zones: str = ""):
    return make_rules(zones + """
        def names(z) = text([c.name for c in z])
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p {
    """ + body + "\n} }\n")


def test_cut_at_n_puts_the_top_n_cards_under_the_rest(make_rules):
    rs = _cut_rules(make_rules, """
        say "{names(deck)}"
        cut deck at 3
        say "{names(deck)}"
        cut deck at 0
        cut deck at count(deck)
        cut pile at 0
        say "{names(deck)}"
    """)
    g, _ = run_script(rs, [])
    said = [t for t in texts(g) if t.startswith("[")]
    assert said == ["[C1, C1, B3, B2, B1, A3, A2, A1]", "[B2, B1, A3, A2, A1, C1, C1, B3]",
                    "[B2, B1, A3, A2, A1, C1, C1, B3]"]
    # one short public line, for the cut that changed the order; it names no card
    cuts = [e for e in g.state.log if e["type"] == "cut"]
    assert cuts == [{"step": cuts[0]["step"], "type": "cut", "text": "deck is cut", "zone": "deck"}]


def test_a_random_cut_leaves_at_least_one_card_in_each_part(make_rules):
    rs = _cut_rules(make_rules, """
        move top(deck) to pile
        cut pile
        cut hand(current)
        cut deck
        say "{names(deck)}"
    """)
    before = ["C1", "B3", "B2", "B1", "A3", "A2", "A1"]      # the deck, top first, after one card went
    rotations = {", ".join(before[k:] + before[:k]): k for k in range(len(before))}
    lifted = set()
    for seed in range(30):
        g, _ = run_script(rs, [], seed=seed)
        (order,) = [t[1:-1] for t in texts(g) if t.startswith("[")]
        lifted.add(rotations[order])
        # a zone of one card (pile) or none (the hand) is left alone: not logged
        assert [e["zone"] for e in g.state.log if e["type"] == "cut"] == ["deck"]
    assert 0 not in lifted and len(lifted) > 3


def test_cutting_a_zone_of_one_card_or_none_draws_nothing_from_the_random_source(make_rules):
    def deck_after(extra):
        rs = _cut_rules(make_rules, "move top(deck) to pile\n" + extra + "\nshuffle deck\nsay \"{names(deck)}\"")
        return [t for t in texts(run_script(rs, [], seed=5)[0]) if t.startswith("[")]
    assert deck_after("cut pile  cut hand(current)") == deck_after("")


@pytest.mark.parametrize("stmt, message", [
    ("cut deck at 9", "cannot cut 9 cards off the top of deck: it holds 8"),
    ("cut deck at 0 - 1", "cannot cut -1 cards off the top of deck: it holds 8"),
    ("let z = bag\ncut z", "`bag` is unordered: its cards lie in no order, so there is nothing to cut"),
])
def test_a_cut_that_cannot_be_made_is_a_located_error(make_rules, stmt, message):
    rs = _cut_rules(make_rules, stmt, zones="zone bag: shared, unordered, public\n")
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E010" and d.message == message and d.hint and d.span.line > 1


def test_a_cut_reveals_no_card_and_those_who_cannot_look_lose_track(make_rules):
    rs = _cut_rules(make_rules, """
        move top(deck) to pile
        move top(pile) to deck
        cut deck
    """)
    game = Game(rs, 2, 1, forkable=True)
    top = game.state.zones["deck"][-1]
    game.start()
    st = game.state
    assert top in st.zones["deck"] and not any(top in k for k in st.known)   # the public move was seen, then cut
    cut = [e for e in st.log if e["type"] == "cut"]
    assert len(cut) == 1 and "to" not in cut[0] and not set(cut[0]) & {"cards", "card"}


@pytest.mark.one_engine
def test_a_random_cut_draws_the_same_randomness_on_both_engines(make_rules):
    rs = _cut_rules(make_rules, "cut deck\ncut deck\nsay \"{names(deck)} {d6}\"")
    games = [Game(rs, 2, 11, engine=e) for e in ("compiled", "tree")]
    for g in games:
        assert g.start() is None
    assert texts(games[0]) == texts(games[1])
    assert games[0].state.rng.getstate() == games[1].state.rng.getstate()


def test_a_move_hook_hears_each_card_of_a_quiet_bulk_move(make_rules):
    """`Engine.move_hooks` (the card flow's) is called at each change of zone, the cards of a
    bulk `move` that nothing hears included (moved the quiet way, `_move_each`), as counted."""
    from cgl.interpreter.base.protocol import CARD_STATS
    rs = make_rules("""
        round { start { shuffle deck  deal 4 to hand  move hand(current) to pile } }
        turn { phase p { end game } }
    """)
    game = Game(rs, 2, 0, record=False)   # (no log: the compiled engine moves them quietly)
    heard = []
    game.engine.move_hooks.append(lambda cid, old, new: heard.append((old, new)))
    game.start()
    assert heard.count(("hand:0", "pile")) == 4
    assert game.result.stats[CARD_STATS["flow"] + "hand>pile"] == 4
