"""`target` declarations and `choose targets of … { … }` (docs/language.md, section 4.11b),
on both engines: the target named where the rules say (before a reaction), read by
`target(c)`, kept by an inner `choose targets of` the same card, forgotten after the
block; no legal target skips the block (and `possible` is false); a target no longer
legal reads `none`."""
from __future__ import annotations

import pytest


pytestmark = pytest.mark.both_engines

RULES = """
    zone table: shared, public
    match { rounds 1 }
    round { start { deal 2 to hand } until turn_no >= 2 }
    # a card's effect takes a card from another player's hand
    target rob if rank > 0: q in others(player) where exists(hand(it)) "Rob whom?"
    turn { phase main { act by current } }
    action play(c in hand(actor)) "Play {c.name}" when possible(effect(actor, c)) {
      move c to table
      choose targets of c by actor {
        for q in others(actor) { may by q "Stop {c.name} aimed at {target(c)}?" { move c to pile } }
        if zone_of(c) = "table" { effect(actor, c) }
      }
      say "after: {target(c)}"
    }
    action skip "Skip" { pass }
    procedure effect(p, c) {
      choose targets of c by p {
        let q = target(c)
        if q != none { move first(hand(q)) to hand(p) } else { say "no target any more" }
      }
    }
"""


def test_target_order_and_reading(make_rules):
    from cgl.interpreter.play.game import Game
    rs = make_rules(RULES)
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    labels = [o for o in d.labels]
    play = next(i for i, lab in enumerate(labels) if lab.startswith("Play"))
    d = game.answer(play)
    assert d.prompt == "Rob whom?"            # the target first …
    d = game.answer(1)                          # … P3
    assert d.kind == "may" and d.prompt.endswith("aimed at P3?")   # … then the others react, knowing it
    d = game.answer(False)
    d = game.answer(False)
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "after: none" in text                  # forgotten after the block
    assert text.count("Rob whom?") == 1           # the inner `choose targets of` kept it
    assert game.engine.state.targets == {}


def test_no_legal_target_makes_the_effect_impossible(make_rules):
    rs = make_rules(RULES.replace("exists(hand(it))", "false"))
    from cgl.interpreter.play.game import Game
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()      # only Skip is offered: P1 skips unasked, and so does P2
    assert d is None
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "P1: Skip" in text and "P2: Skip" in text


def test_a_target_no_longer_legal_reads_none(make_rules):
    from cgl.interpreter.play.game import Game
    # the reaction empties the target's hand: the effect finds no target
    rs = make_rules(RULES.replace('{ move c to pile }', '{ move hand(q) to pile }'))
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    play = next(i for i, lab in enumerate(d.labels) if lab.startswith("Play"))
    d = game.answer(play)
    d = game.answer(0)                          # P2 is the target
    d = game.answer(True)                       # P2 empties their own hand
    while d is not None and d.kind == "may":
        d = game.answer(False)
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "no target any more" in text


def test_else_runs_when_a_target_has_no_legal_option(make_rules):
    from cgl.interpreter.play.game import Game
    rs = make_rules(RULES.replace("exists(hand(it))", "false").replace(
        "when possible(effect(actor, c))", "").replace(
        '      say "after: {target(c)}"', '      } else { say "no target: played anyway" }\n      say "after"').replace(
        "        if zone_of(c) = \"table\" { effect(actor, c) }\n      }", "        if zone_of(c) = \"table\" { effect(actor, c) }"))
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    play = next(i for i, lab in enumerate(d.labels) if lab.startswith("Play"))
    game.answer(play)
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "no target: played anyway" in text and "Stop" not in text


@pytest.mark.one_engine
def test_choose_targets_of_needs_a_card(make_rules):
    from cgl.interpreter.check.lint import lint_ruleset as lint
    rs = make_rules(RULES + "\nprocedure bad() { choose targets of current by current { pass } }\n")
    found = [d for d in lint(rs) if d.code == "E008"]
    assert any("names the targets of a card" in d.message for d in found)


def test_targets_the_card_data_rules_out_are_not_asked(make_rules):
    """A target whose condition the card data alone makes false for a card (`rank > 2`
    for a card of rank 1) is left out of that card's targets before the game asks it; a
    condition that reads the game (a card variable, the chooser) is still asked each time,
    with what it reads then."""
    from cgl.interpreter.play.game import Game
    from cgl.interpreter.check.resolver import facts
    rs = make_rules(RULES.replace('target rob if rank > 0:', '''var marked per card = false
    target high if rank > 2: q in others(player) "High: whom?"
    target red if suit = "red" and marked: q in others(player) "Marked red: whom?"
    target rob if rank > 0:''').replace("      move c to table\n", "      set c.marked = true\n      move c to table\n")
                    .replace("start { deal 2 to hand }", "start { shuffle deck  deal 2 to hand }"))
    red_asked = high_left_out = False
    for seed, first in ((seed, first) for seed in range(6) for first in (True, False)):
        game = Game(rs, 3, seed, check_invariants=True)
        d = game.start()
        plays = [i for i, lab in enumerate(d.labels) if lab.startswith("Play")]
        play = plays[0] if first else plays[-1]
        card = game.engine.cards[game.engine.state.zones["hand:0"][-1 - play]]   # (options: the hand, top first)
        d = game.answer(play)
        asked = []
        while d is not None and d.kind != "may":
            asked.append(d.prompt)
            d = game.answer(0)
        names = [t.name for t in facts(rs).targets_of[card.id]]
        assert ("high" in names) == (card.props["rank"] > 2) and ("red" in names) == (card.props["suit"] == "red")
        assert "rob" in names
        expected = [p for t, p in (("high", "High: whom?"), ("red", "Marked red: whom?"), ("rob", "Rob whom?"))
                    if t in names]
        assert asked == expected   # a red card is marked before its targets are named: asked
        red_asked |= "Marked red: whom?" in asked
        high_left_out |= "high" not in names
    assert red_asked and high_left_out
