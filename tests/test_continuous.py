"""Rules that hold on every route: `rule … forbid enter|leave ZONE` (continuous zone rules)
and `check …` (state checks), on small inline rulesets, on both engines.

The deck of conftest.py lies in id order, so its top card is the second C1 (green), then
the first C1, then B3 …
"""
from __future__ import annotations

import pytest

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import play
from cgl.interpreter.runtime.state import Event

from conftest import run_script, texts

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)


def names(rs, ids):
    return [rs.cards[i].name for i in ids]


# ---------------------------------------------------------------- forbid enter / leave

def test_a_refused_draw_leaves_the_card_on_the_stock_and_stops_the_draw(make_rules):
    rs = make_rules("""
        rule no_green: forbid enter hand if card.suit = "green"
        match { rounds 1 }
        round { start { draw 3 } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    st = g.state
    assert st.zones["hand:0"] == []
    assert names(rs, st.zones["deck"][-2:]) == ["C1", "C1"]
    assert st.stats["rule:no_green"] == 1
    # the refusal is logged for those who may see the card: its player sees it named …
    mine = [e for e in st.log if e["type"] == "refused" and 0 in e.get("to", [])]
    assert mine and mine[0]["text"] == "rule no_green refuses: P1 draws C1"
    # … the others read "a card"
    theirs = [e for e in st.log if e["type"] == "refused" and e.get("to") == [1]]
    assert theirs and "C1" not in theirs[0]["text"]


def test_a_refused_deal_stops_the_deal(make_rules):
    rs = make_rules("""
        rule no_green: forbid enter hand if card.suit = "green"
        match { rounds 1 }
        round { start { deal 2 to hand } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    assert g.state.zones["hand:0"] == [] and g.state.zones["hand:1"] == []
    assert len(g.state.zones["deck"]) == 8


def test_each_card_of_a_move_is_asked_on_its_own(make_rules):
    rs = make_rules("""
        rule green_stays: forbid leave deck if card.suit = "green"
        match { rounds 1 }
        round { start { move all_cards where suit != "blue" to pile } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    st = g.state
    assert sorted(names(rs, st.zones["pile"])) == ["A1", "A2", "A3"]
    assert sorted(names(rs, st.zones["deck"])) == ["B1", "B2", "B3", "C1", "C1"]
    assert st.stats["rule:green_stays"] == 2
    assert "3 cards moved to pile" in texts(g)   # the bulk line counts what moved


def test_a_refused_discard_keeps_the_card_in_hand(make_rules):
    rs = make_rules("""
        rule keep_red: forbid leave hand if card.suit = "red" and player.seat = 1
        match { rounds 1 }
        round { start { move all_cards where suit = "red" to hand(current) } until turn_no >= 1 }
        turn { phase p { discard hand(current) } }
    """)
    g, _ = run_script(rs, [])
    assert sorted(names(rs, g.state.zones["hand:0"])) == ["A1", "A2", "A3"]
    assert g.state.zones["pile"] == []


def test_a_replacement_cannot_route_a_card_around_a_rule(make_rules):
    # the discard is replaced by a move to the hand of the next player, which the rule refuses
    rs = make_rules("""
        rule closed: forbid enter hand if card.suit = "red" and player.seat = 2
        on discard instead as redirect { move card to hand(next_after(player)) }
        match { rounds 1 }
        round { start { move first(all_cards where name = "A1") to hand(current) } until turn_no >= 1 }
        turn { phase p { discard hand(current) } }
    """)
    g, _ = run_script(rs, [])
    assert names(rs, g.state.zones["hand:0"]) == ["A1"]
    assert g.state.zones["hand:1"] == [] and g.state.zones["pile"] == []
    assert "rule closed refuses: A1 moves from hand(P1) to hand(P2)" in texts(g)


def test_an_instead_is_asked_only_for_the_cards_its_condition_can_concern(make_rules):
    # `suit = "red"` is false for a blue card whatever the game: its discard asks no
    # replacement; a red card's still runs it, and its condition's other part as the game goes
    rs = make_rules("""
        on discard if suit = "red" and count(pile) = 1 instead as red_home { move card to deck }
        match { rounds 1 }
        round { start { move all_cards where name in ["A1", "A2", "B1"] to hand(current) } until turn_no >= 1 }
        turn { phase p { discard first(hand(current) where name = "B1")  discard hand(current) } }
    """)
    g, _ = run_script(rs, [])
    assert names(rs, g.state.zones["pile"]) == ["B1"]
    assert g.state.zones["hand:0"] == [] and g.state.stats["instead:red_home"] == 2
    eng = g.engine
    red, blue = (next(c for c in rs.cards if c.name == n) for n in ("A1", "B1"))
    hand, pile = eng.zone_of_card(red), eng._default_zone("discard", None)
    assert eng.replacements(Event("discard", None, blue, eng.players[0], hand, pile)) == ()
    assert [t.name for t in eng.replacements(Event("discard", None, red, eng.players[0], hand, pile))] == ["red_home"]


def test_a_rule_follows_the_state_of_the_game(make_rules):
    # blue may not enter the pile while a red card lies there
    rs = make_rules("""
        rule no_blue_on_red: forbid enter pile if card.suit = "blue" and exists(pile where suit = "red")
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "B1") to pile
            move first(all_cards where name = "A1") to pile
            move first(all_cards where name = "B2") to pile
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    assert names(rs, g.state.zones["pile"]) == ["B1", "A1"]


def test_a_rule_is_asked_only_for_the_cards_its_condition_can_concern(make_rules):
    # `card.suit = "blue"` is false for a red card whatever the game: no move or `can_move`
    # of a red card asks the rule; a blue card's still does, and it holds as the game goes
    rs = make_rules("""
        rule no_blue_on_red: forbid enter pile if card.suit = "blue" and exists(pile where suit = "red")
        var asked = []
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "A1") to pile
            set asked = [can_move(c, pile) for c in all_cards where name in ["A2", "B1"]]
            move first(all_cards where name = "B1") to pile
            move first(all_cards where name = "A2") to pile
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    assert names(rs, g.state.zones["pile"]) == ["A1", "A2"]
    assert g.state.globals["asked"] == [True, False]
    eng = g.engine
    red, blue = (next(c for c in rs.cards if c.name == n) for n in ("A2", "B1"))
    assert eng.zone_rules_for("enter", "pile", red) == ()
    assert [r.name for r in eng.zone_rules_for("enter", "pile", blue)] == ["no_blue_on_red"]
    assert eng.zone_rules_for("leave", "pile", blue) == ()


def test_a_forbid_rule_is_asked_only_for_the_cards_its_condition_can_concern(make_rules):
    # `c.suit = "red"` first: a blue or green card is never asked about `red_late`; `late_red`
    # reads `turn_no` first, known only where it is asked, so every card is asked about it;
    # and a choice's option is named by its tag's rules as `option`
    rs = make_rules("""
        rule red_late: forbid play if c.suit = "red" and turn_no > 1
        rule late_red: forbid play if turn_no > 9 and c.suit = "red"
        rule no_blue: forbid pick if option.suit = "blue" and turn_no >= 1
        match { rounds 1 }
        round { start {
            move all_cards where name in ["A1", "B1"] to hand(current)
        } until turn_no >= 3 }
        action play(c in hand(actor)) "Play {c.name}" { discard c }
        action rest "Rest" { pass }
        turn { phase p { act by current  choose x in all_cards where name in ["B2", "C1"] by current as pick { say "picked {x.name}" } } }
    """)
    g, asked = run_script(rs, [2, 0, 0, 0, 0])
    labels = [[getattr(o, "label", None) or o.name for o in d.options] for d in asked]
    # (turn 3: the red A1 may no longer be played; the blue B2 is never an option to pick)
    assert labels == [["Play B1", "Play A1", "Rest"], ["C1", "C1"], ["C1", "C1"], ["Play B1", "Rest"], ["C1", "C1"]]
    eng = g.engine
    red, blue = (next(c for c in rs.cards if c.name == n) for n in ("A2", "B1"))
    assert [r.name for r in eng.tag_rules_for("play", ("c",), red)] == ["red_late", "late_red"]
    assert [r.name for r in eng.tag_rules_for("play", ("c",), blue)] == ["late_red"]
    assert [r.name for r in eng.tag_rules_for("pick", ("x", "it", "option"), blue)] == ["no_blue"]
    assert eng.tag_rules_for("pick", ("x", "it", "option"), red) == ()


# ---------------------------------------------------------------- checks

def test_a_check_wins_the_game_when_a_card_leaves(make_rules):
    # "wins when": whichever statement changes the position, not only an arrival
    rs = make_rules("""
        check pure: for p in players if count(hand(p)) > 0 and not exists(hand(p) where suit = "red") { win p }
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "A1") to hand(current)
            move first(all_cards where name = "B1") to hand(current)
        } until turn_no >= 3 }
        turn { phase p { choose c in hand(current) "Discard" { discard c }  say "after the discard" } }
    """)
    g, asked = run_script(rs, [1])   # A1 (the options: B1, A1)
    assert g.state.winners == [0]
    assert "after the discard" not in texts(g)   # the check ran as the discard settled
    assert g.state.stats["check:pure"] == 1


def test_checks_do_not_run_in_the_middle_of_a_trigger(make_rules):
    # the trigger takes the card back at once: the pile is never seen holding it
    rs = make_rules("""
        check pile_full: if count(pile) > 0 { win first(players) }
        on discard as take_back { move card to hand(player) }
        match { rounds 1 }
        round { start { move first(all_cards where name = "A1") to hand(current) } until turn_no >= 2 }
        turn { phase p { discard hand(current) } }
    """)
    g, _ = run_script(rs, [])
    assert not g.state.winners
    assert g.state.stats.get("trigger:take_back") == 1
    assert names(rs, g.state.zones["hand:0"]) == ["A1"]


def test_a_check_runs_after_a_set(make_rules):
    rs = make_rules("""
        var score per player = 0
        check three: for p in players if p.score >= 3 { say "{p} has three"  win p }
        match { rounds 1 }
        round { until turn_no >= 20 }
        turn { phase p { set current.score += 1  say "scored" } }
    """)
    g, _ = run_script(rs, [])
    assert g.state.winners == [0]
    t = texts(g)
    assert t.count("scored") == 4 and t[-1] != "scored"   # P1, P2, P1, P2, then P1's third point wins at once
    assert "P1 has three" in t


def test_the_first_element_of_a_checks_list_comes_first(make_rules):
    rs = make_rules("""
        check any: for p in [next_after(current), current] if true { win p }
        match { rounds 1 }
        round { until turn_no >= 2 }
        turn { phase p { pass } }
    """)
    g = play(rs, 3, 0)
    assert g.state.winners == [1]   # the game began with P1 current: P2 comes first in the list


def test_a_check_that_keeps_applying_is_a_located_runaway(make_rules):
    rs = make_rules("""
        check noisy: if count(pile) = 0 { say "empty" }
        match { rounds 1 }
        round { until turn_no >= 2 }
        turn { phase p { pass } }
    """)
    with pytest.raises(CglError) as e:
        play(rs, 2, 0)
    d = e.value.diagnostics[0]
    assert d.code == "E011" and "noisy" in d.message and d.span.line == 7
    assert "make its condition false" in d.hint


def test_checks_wait_for_the_set_up_to_finish(make_rules):
    # the set-up passes through a position the check would act on; only the position it
    # leaves counts
    rs = make_rules("""
        check red_in_pile: if exists(pile where suit = "red") { move pile where suit = "red" to deck }
        setup { move all_cards where suit = "red" to pile  move first(all_cards where name = "A1") to hand(first(players)) }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g = play(rs, 2, 0)
    st = g.state
    assert names(rs, st.zones["hand:0"]) == ["A1"]
    assert st.stats["check:red_in_pile"] == 1 and sorted(names(rs, st.zones["pile"])) == []


# ---------------------------------------------------------------- lint

@pytest.mark.one_engine
def test_a_zone_rule_names_a_zone(make_rules):
    with pytest.raises(CglError) as e:
        make_rules('rule r: forbid enter hnad if card.suit = "red"\n')
    d = e.value.diagnostics[0]
    assert d.code == "E004" and "hnad" in d.message and "hand" in d.hint


@pytest.mark.one_engine
def test_a_rule_that_forbids_nothing_is_an_error(make_rules):
    with pytest.raises(CglError) as e:
        make_rules("""
            action draw_card "Draw" { draw 1 }
            rule r: forbid draw_crad if true
        """)
    d = e.value.diagnostics[0]
    assert d.code == "E004" and "draw_crad" in d.message and "draw_card" in d.hint


@pytest.mark.one_engine
def test_a_check_body_is_checked_for_names(make_rules):
    with pytest.raises(CglError) as e:
        make_rules("check c: for p in players if true { win q }\n")
    assert "`q`" in e.value.diagnostics[0].message


# ---------------------------------------------------------------- then: success

def test_then_runs_only_when_the_statement_moved_a_card(make_rules):
    rs = make_rules("""
        rule no_green: forbid enter hand if card.suit = "green"
        match { rounds 1 }
        round { start {
            draw 1 then { say "drew green" }                                       # refused: no
            move first(all_cards where name = "A1") to hand(current) then { say "got A1" }
            move first(all_cards where name = "A1") to hand(current) then { say "again" }   # already there
            discard first(all_cards where name = "A1") then { say "discarded" }
            move all_cards where suit = "blue" to hand(current) then { say "blues" }
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    t = [x for x in texts(g) if x in ("drew green", "got A1", "again", "discarded", "blues")]
    assert t == ["got A1", "discarded", "blues"]


def test_then_after_a_replaced_move_does_not_run(make_rules):
    rs = make_rules("""
        on discard if card.suit = "red" instead as keep { say "kept" }
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "A1") to hand(current)
            discard hand(current) then { say "gone" }
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    assert "kept" in texts(g) and "gone" not in texts(g)


# ---------------------------------------------------------------- swap: one event

SWAP = """
    zone table: per player, public
    var seen = []
    on move to table as look { set seen += [count(table(player))] }
    match { rounds 1 }
    round { start {
        move first(all_cards where name = "A1") to table(first(players))
        move first(all_cards where name = "B1") to table(first(players))
        move first(all_cards where name = "A2") to table(last(players))
        set seen = []
        swap first(all_cards where name = "A1") with first(all_cards where name = "A2") then { say "swapped" }
    } until turn_no >= 1 }
    turn { phase p { pass } }
"""


def test_a_swap_trades_places_and_its_triggers_see_the_final_position(make_rules):
    rs = make_rules(SWAP)
    g, _ = run_script(rs, [])
    st = g.state
    assert names(rs, st.zones["table:0"]) == ["A2", "B1"]   # A2 takes A1's place, under B1
    assert names(rs, st.zones["table:1"]) == ["A1"]
    # both triggers ran after both cards moved: each table already holds its new card
    assert st.globals["seen"] == [1, 2]
    assert "swapped" in texts(g)


def test_a_swap_is_refused_whole(make_rules):
    rs = make_rules('rule stay: forbid leave table if card.name = "A2"\n' + SWAP)
    g, _ = run_script(rs, [])
    st = g.state
    assert names(rs, st.zones["table:0"]) == ["A1", "B1"] and names(rs, st.zones["table:1"]) == ["A2"]
    assert "swapped" not in texts(g) and st.stats["rule:stay"] == 1


@pytest.mark.parametrize("how, fires", [
    ("swap first(all_cards where name = \"A1\") with first(all_cards where name = \"A2\")", False),
    ("move first(all_cards where name = \"A1\") to table(last(players))\n"
     "            move first(all_cards where name = \"A2\") to table(first(players))", True),
])
def test_a_check_sees_a_swap_whole(make_rules, how, fires):
    # a table is empty only between the halves of the exchange: two moves show it, a swap never
    rs = make_rules("""
        zone table: per player, public
        var armed = false
        check empty: for p in players if armed and count(table(p)) = 0 { win p }
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "A1") to table(first(players))
            move first(all_cards where name = "A2") to table(last(players))
            set armed = true
            HOW
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """.replace("HOW", how))
    g, _ = run_script(rs, [])
    assert bool(g.state.winners) == fires


def test_a_swap_needs_one_card_on_each_side(make_rules):
    rs = make_rules("""
        zone table: per player, public
        match { rounds 1 }
        round { start { swap all_cards where suit = "red" with first(all_cards) } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert "one on each side" in d.message and d.span.line == 9


def test_a_statement_and_its_then_block_are_one_change(make_rules):
    # the pile holds A1 only until the `then` block takes it back: no check sees it there
    rs = make_rules("""
        check pile_full: if count(pile) > 0 { win first(players) }
        match { rounds 1 }
        round { start {
            move first(all_cards where name = "A1") to pile then { move pile to deck }
            say "still playing"
        } until turn_no >= 1 }
        turn { phase p { pass } }
    """)
    g, _ = run_script(rs, [])
    assert not g.state.winners and "still playing" in texts(g)


@pytest.mark.one_engine
@pytest.mark.parametrize("check, zones, reads_vars", [
    # what the check calls is followed: the def reads hand and pile
    ('def mine(p) = count(hand(p)) + count(pile)\ncheck c: for p in players if mine(p) > 9 { win p }',
     {"hand", "pile"}, False),
    ('var score per player = 0\ncheck c: for p in players if p.score > 2 { win p }', set(), True),
    # a card's zone, or every card, may be anywhere: any zone
    ('check c: if exists(all_cards where zone = "pile") { win first(players) }', None, True),
    ('check c: if exists(deck where owner(it) != none) { win first(players) }', None, True),
])
def test_what_the_checks_read_decides_when_the_game_must_look_again(make_rules, check, zones, reads_vars):
    from cgl.interpreter.check.resolver import what_checks_read
    found, found_vars = what_checks_read(make_rules(check + "\n"))
    assert (None if found is None else set(found)) == zones and found_vars == reads_vars


def test_a_check_still_sees_a_change_to_a_zone_it_reads_through_a_def(make_rules):
    # the pile is read only through the def: a red card reaching it on P2's turn makes P1 win
    rs = make_rules("""
        def reds(p) = count(hand(p) where suit = "red") + count(pile where suit = "red")
        check two_reds: for p in players if reds(p) >= 2 { win p }
        match { rounds 1 }
        round { until turn_no >= 8 }
        turn { phase p {
            if current = first(players) { move first(deck where suit = "red") to hand(current) }
            else { move first(deck where suit = "red") to pile }
            say "moved"
        } }
    """)
    g, _ = run_script(rs, [])
    assert g.state.winners == [0] and texts(g).count("moved") == 1   # P1 wins as P2's move settles


# ---------------------------------------------------------------- possible: impossible effects

POSSIBLE = """
    zone table: per player, public
    procedure effect(p, c) {
        if c.suit = "red" {
            choose t in others(p) where count(table(it)) > 0 by p "Whose card?" { move first(table(t)) to pile }
        } elif c.suit = "blue" {
            say "a blue effect: {d6}"
            draw 1 to hand(p)
        }
    }
    action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { effect(actor, c)  discard c }
    action rest "Rest" { pass }
    match { rounds 1 }
    round { start { move all_cards where name in ["A1", "B1", "C1"] to hand(current) } until turn_no >= 1 }
    turn { phase p { act by current } }
"""


def test_a_card_whose_effect_could_change_nothing_is_not_offered(make_rules):
    rs = make_rules(POSSIBLE)
    g, asked = run_script(rs, [0])
    labels = asked[0].labels
    # A1 (red) needs a card on another table: there is none; B1 (blue) draws; C1 does nothing
    assert "Play B1" in labels and "Play A1" not in labels and "Play C1" not in labels and "Rest" in labels


def test_a_trial_leaves_no_trace(make_rules):
    # the blue effect rolls a die, says so and draws while it is tried: none of it happens
    # in the game, whose log, random source and stock are those of a game that never tried
    tried = make_rules(POSSIBLE)
    plain = make_rules(POSSIBLE.replace("when possible(effect(actor, c))", 'when c.name = "B1"'), name="plain.cgl")
    a, _ = run_script(tried, [1], seed=3)    # the options: Play B1, Rest: rest
    b, _ = run_script(plain, [1], seed=3)
    assert texts(a) == texts(b) and a.state.rng.getstate() == b.state.rng.getstate()
    assert a.state.zones == b.state.zones and not any("blue effect" in t for t in texts(a))


def test_what_a_trial_shares_with_the_game_stays_the_games(make_rules):
    # a trial's state shares the zones' lists and the card variables with the game's until it
    # changes them: the trial shuffles the stock and sets a card variable (and stops at its
    # draw); the game's stock order, variables and random source are those of a game that
    # never tried
    body = """
        var mark per card = 0
        procedure effect(p, c) { set c.mark = 7  shuffle deck  set c.mark += d6  draw 1 to hand(p) }
        action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { say "mark {c.mark}" }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { start { move first(all_cards where name = "A1") to hand(current) } until turn_no >= 1 }
        turn { phase p { act by current } }
    """
    tried = make_rules(body)
    plain = make_rules(body.replace("when possible(effect(actor, c))", ""), name="plain.cgl")
    a, asked = run_script(tried, [0], seed=5)
    b, _ = run_script(plain, [0], seed=5)
    assert asked[0].labels[0] == "Play A1" and "mark 0" in texts(a)
    assert a.state.zones == b.state.zones and a.state.card_vars == b.state.card_vars
    assert a.state.rng.getstate() == b.state.rng.getstate()


def test_a_cut_while_trying_leaves_the_games_zone_as_it_was(make_rules):
    # (a cut is a new order of a zone whose list a trial's state shares with the game's)
    body = """
        procedure effect(p) { cut deck at 2  draw 1 to hand(p) }
        action play "Play" when possible(effect(actor)) { pass }
        action rest "Rest" { pass }
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { act by current } }
    """
    tried = make_rules(body)
    plain = make_rules(body.replace("when possible(effect(actor))", ""), name="plain.cgl")
    a, _ = run_script(tried, [1], seed=5)
    b, _ = run_script(plain, [1], seed=5)
    assert a.state.zones == b.state.zones


def test_a_later_choice_can_make_an_effect_possible(make_rules):
    # P2's table is empty, P3's is not: the first option changes nothing, the second does
    rs = make_rules(POSSIBLE.replace(
        'move all_cards where name in ["A1", "B1", "C1"] to hand(current)',
        'move all_cards where name in ["A1", "C1"] to hand(current)  move first(all_cards where name = "B2") '
        'to table(last(players))'))
    g, asked = run_script(rs, [0, 1], players=3)
    assert asked[0].labels[0] == "Play A1"
    assert names(rs, g.state.zones["pile"]) == ["B2", "A1"]


@pytest.mark.one_engine
@pytest.mark.parametrize("call, code, text", [
    ("possible(efect(actor, c))", "E004", "`efect` is not one"),
    ("possible(effect(actor))", "E009", "takes 2 argument(s), not 1"),
])
def test_possible_names_a_procedure_with_its_arguments(make_rules, call, code, text):
    with pytest.raises(CglError) as e:
        make_rules(POSSIBLE.replace("possible(effect(actor, c))", call))
    d = e.value.diagnostics[0]
    assert d.code == code and text in d.message


def test_what_a_trial_reads_and_writes_stays_in_the_trial(make_rules):
    # the trial is the first to read the card variable: the game must not read it through
    # the trial's state afterwards (a cached reader did, on the tree walker)
    rs = make_rules("""
        var mark per card = 0
        procedure effect(p, c) { set c.mark = c.mark + 7 }
        action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) { say "mark {c.mark}" }
        match { rounds 1 }
        round { start { move first(all_cards where name = "A1") to hand(current) } until turn_no >= 1 }
        turn { phase p { act by current } }
    """)
    g, _ = run_script(rs, [0])
    assert "mark 0" in texts(g)
