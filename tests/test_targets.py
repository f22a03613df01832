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


# A card with two targets: each declaration that applies is named, in declaration order,
# before the others react; `target(c, "NAME")` reads one by its declaration's name.
TWO = RULES.replace(
    '"Rob whom?"\n', '"Rob whom?"\n    target gift if rank > 0: g in others(player) "Give it to whom?"\n').replace(
    "for q in others(actor) { may by q \"Stop {c.name} aimed at {target(c)}?\" { move c to pile } }",
    "for q in others(actor) { may by q \"Stop {c.name} ({target(c, \\\"rob\\\")} to {target(c, \\\"gift\\\")})?\" "
    "{ move c to pile } }").replace(
    '      say "after: {target(c)}"', '      say "after: {target(c, \\"gift\\")}"').replace(
    "        let q = target(c)\n        if q != none { move first(hand(q)) to hand(p) } else { say \"no target any more\" }",
    "        let q = target(c, \"rob\")\n"
    "        if q != none and target(c, \"gift\") != none { move first(hand(q)) to hand(target(c, \"gift\")) }\n"
    "        if q = none { say \"no target any more\" }")


def test_several_targets_named_in_order_and_read_by_name(make_rules):
    from cgl.interpreter.play.game import Game
    rs = make_rules(TWO)
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    d = game.answer(next(i for i, lab in enumerate(d.labels) if lab.startswith("Play")))
    assert d.prompt == "Rob whom?"                  # the first declaration …
    d = game.answer(1)                              # … P3
    assert d.prompt == "Give it to whom?"           # … then the second, both before the others react
    d = game.answer(0)                              # … P2
    assert d.kind == "may" and d.prompt.endswith("(P3 to P2)?")
    before = {p: len(game.engine.state.zones.get(f"hand#{p}", ())) for p in range(3)}
    d = game.answer(False)
    d = game.answer(False)
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "after: none" in text and text.count("Rob whom?") == 1 and text.count("Give it to whom?") == 1
    assert game.engine.state.targets == {}
    del before


def test_target_without_a_name_is_an_error_when_the_card_has_several(make_rules):
    from cgl.interpreter.play.game import Game
    rs = make_rules(TWO.replace('target(c, \\"rob\\")', "target(c)"))
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    d = game.answer(next(i for i, lab in enumerate(d.labels) if lab.startswith("Play")))
    d = game.answer(1)
    with pytest.raises(Exception, match=r'has 2 targets \("rob", "gift"\): say which'):
        game.answer(0)


@pytest.mark.one_engine
def test_an_unknown_target_name_is_an_error(make_rules):
    from cgl.interpreter.base.diagnostics import CglError
    with pytest.raises(CglError) as err:
        make_rules(TWO.replace('target(c, "gift")', 'target(c, "gfit")'))
    found = [d for d in err.value.diagnostics if d.code == "E004"]
    assert found and "unknown target `gfit`" in found[0].message and found[0].hint == "did you mean `gift`?"
    assert found[0].span.line > 0 and (found[0].span.column, found[0].span.end_column) == (32, 38)   # "gfit"


@pytest.mark.one_engine
def test_a_target_is_named_by_a_text(make_rules):
    from cgl.interpreter.check.lint import lint_ruleset as lint
    rs = make_rules(TWO.replace('let q = target(c, "rob")', 'let q = target(c, 3)'))
    found = [d for d in lint(rs) if d.code == "E008"]
    assert [d.message for d in found] == ["`target` needs a text, and this is a number"]


@pytest.mark.one_engine
def test_w113_a_target_no_read_names(make_rules):
    from cgl.interpreter.check.lint import lint_ruleset as lint
    rs = make_rules(TWO.replace('target(c, \\"gift\\")', 'target(c, \\"rob\\")').replace(
        'target(c, "gift")', 'target(c, "rob")'))
    found = [d for d in lint(rs) if d.code == "W113"]
    assert [d.message for d in found] == ['target `gift` is never read: no `target(c)` in the rules, and no '
                                          '`target(c, "gift")`']
    assert not [d for d in lint(make_rules(TWO)) if d.code in ("W113", "E004", "E008", "E009")]


def test_unicorns_fuck_marry_kill_a_victim_no_longer_legal_is_ignored():
    """UU-CARD-FUCK-MARRY-KILL, UU-TARGET (decision 27): its three targets are named before
    the Neigh window; the unicorn named, no longer in another player's stable when the
    effect happens, is not destroyed and no other is chosen, while the discard and the
    card given still happen. (No card of the deck moves a stable card during a Neigh
    window, so the test moves it by hand there.)"""
    from cgl.interpreter.play.game import Game
    from cgl.interpreter.play.scenario import setup_position
    from conftest import load_cached
    game = Game(load_cached("unicorns"), 3, 0, check_invariants=True)
    start = setup_position(game, "test_targets", {
        "turn": "P1", "rest": "nursery",
        "zones": {"stable P1": [], "stable P2": ["VANILLACORN"], "stable P3": ["STONER UNICORN"],
                  "deck": ["THE SAFEWORD IS NEIGH"], "hand P1": ["FUCK, MARRY, KILL.", "SINGLE UNICORN"],
                  "hand P2": ["HELL NEIGH", "NEIGH, BITCH"], "hand P3": []}})
    eng, st = game.engine, game.state
    d = game.start(start_turn=start)
    d = game.answer(next(i for i, lab in enumerate(d.labels) if lab == "Play FUCK, MARRY, KILL."))
    for prompt, pick in (("Who discards a card?", "P2"), ("Who receives the card you give?", "P3"),
                         ("FUCK, MARRY, KILL.: destroy which unicorn?", "VANILLACORN")):
        assert d.prompt == prompt and d.player == 0
        d = game.answer(d.labels.index(pick))
    assert d.player == 1 and d.prompt.startswith("Neigh FUCK, MARRY, KILL.")     # the window, after all three
    vanilla = st.zones["stable:1"][0]
    st.zones["stable:1"] = []
    st.zones["stable:0"] = [vanilla]                   # now P1's own: no longer a legal victim
    st.where[vanilla] = "stable:0"
    eng.forget_all()
    d = game.answer(False)
    while d is not None and d.player == 1:             # P2 discards one of its two cards
        assert "destroy" not in d.prompt
        d = game.answer(0)
    if d is not None and d.prompt == "FUCK, MARRY, KILL.: give which card?":
        d = game.answer(d.labels.index("SINGLE UNICORN"))
    name = {c.id: c.name for c in eng.cards}

    def zone(key):
        return [name[i] for i in st.zones.get(key, [])]
    assert zone("stable:0") == ["VANILLACORN"] and zone("stable:2") == ["STONER UNICORN"]   # nothing destroyed
    assert "SINGLE UNICORN" in zone("hand:2") and len(zone("hand:1")) == 1               # given; P2 discarded one
    assert "FUCK, MARRY, KILL." in zone("pile")


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
                    .replace("start { deal 2 to hand }", "start { shuffle deck  deal 2 to hand }")
                    .replace("{target(c)}", '{target(c, \\"rob\\")}')   # (a card with several targets
                    .replace("= target(c)", '= target(c, "rob")'))     # reads one by its name)
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


@pytest.mark.parametrize("cond, tested_alone", [("count(hand(it)) >= 0", True), ("1d6 > 0", False)])
def test_a_target_is_tested_alone_against_its_domains_condition(make_rules, cond, tested_alone):
    """`target(c)` asks of a domain `LIST where COND` whether the value is in LIST and COND
    holds for it, without testing the others, unless COND rolls dice (each time the whole
    domain is worked out, as it was): a value no longer in LIST reads `none` either way."""
    from cgl.interpreter.check.resolver import facts
    from cgl.interpreter.play.game import Game
    rs = make_rules(RULES.replace("target rob if rank > 0: q in others(player) where exists(hand(it))",
                                  f"target rob if rank > 0: q in others(player) where {cond}").replace(
        "{ move c to pile }", "{ knock out q }"))
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    play = next(i for i, lab in enumerate(d.labels) if lab.startswith("Play"))
    d = game.answer(play)
    d = game.answer(0)                          # P2 is the target
    d = game.answer(True)                       # P2 is knocked out: no longer one of the others in play
    while d is not None and d.kind == "may":
        d = game.answer(False)
    text = "\n".join(e["text"] for e in game.engine.state.log)
    assert "no target any more" in text
    assert [step[0] for step in facts(rs).target_tests["rob"]] == (["cond", "in"] if tested_alone else [])


NESTED = """
    zone table: shared, public
    zone stable: per player, public
    var marked per card = false
    var shield per player = false
    match { rounds 1 }
    round { start { deal 2 to hand  for p in players { move first(deck) to stable(p) } } until turn_no >= 2 }
    # the domain through two defs with parameters and one without: each step can drop a value
    def guarded(p) = stable(p) where not p.shield
    def open_cards(p) = all_cards where zone = "stable" and owner(it) != p and it in guarded(owner(it))
    def stable_cards = all_cards where zone = "stable"
    target grab if rank > 0: k in open_cards(player) where not marked and it in stable_cards "Grab which?"
    turn { phase main { act by current } }
    action play(c in hand(actor)) "Play {c.name}" {
      move c to table
      choose targets of c by actor {
        let k = target(c)
        say "named {k}"
        CHANGE
        say "then: {target(c)}"
      }
    }
"""


@pytest.mark.parametrize("change, still", [
    ("pass", True),
    ("set k.marked = true", False),                    # the target's own condition
    ("set owner(k).shield = true", False),             # a condition inside a def two calls deep
    ("move k to hand(actor)", False),                  # the innermost list (and the def's own condition)
    ("move k to stable(actor)", False),                # a def's condition on its parameter (`owner(it) != p`)
    ("set actor.shield = true", True),                 # what no step reads for this value
])
def test_a_target_no_longer_legal_through_defs_reads_none(make_rules, change, still):
    """`target(c)` tests its value alone through the defs its domain calls (`legal_plan`):
    after each kind of change to what a step reads, it reads `none` exactly when the whole
    domain, worked out again, no longer holds the value."""
    from cgl.interpreter.play.game import Game
    from cgl.interpreter.check.resolver import facts
    rs = make_rules(NESTED.replace("CHANGE", change))
    game = Game(rs, 3, 0, check_invariants=True)
    d = game.start()
    d = game.answer(next(i for i, lab in enumerate(d.labels) if lab.startswith("Play")))
    if d.prompt == "Grab which?":
        game.answer(0)
    lines = [e["text"] for e in game.engine.state.log]
    named = next(t for t in lines if t.startswith("named "))[len("named "):]
    then = next(t for t in lines if t.startswith("then: "))[len("then: "):]
    assert then == (named if still else "none")
    assert [step[0] for step in facts(rs).target_tests["grab"]] == ["cond", "bind", "cond", "in"]


def test_target_legal_agrees_with_the_whole_domain_in_unicorns(monkeypatch):
    """Every `target(c)` of seeded Unstable Unicorns games (whose domains go through defs:
    `stealable(player) where kind = baby`) answers as the whole domain worked out again would."""
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.play.game import play
    from cgl.interpreter.runtime.state import ZoneRef
    from cgl.interpreter.walker.trial import Targets, legal_plan
    asked = []
    legal = Targets.target_legal

    def checked(self, t, value, card, player):
        domain = self.target_value(t.domain, card, player)
        whole = self.cards_of(domain) if domain.__class__ is ZoneRef else self.as_list(domain, t.domain)
        for v in [value, *self.cards, *self.players]:   # (the target, and every other value it might have been)
            got = legal(self, t, v, card, player)
            assert got == (v in whole), (t.name, v)
            asked.append((t.name, got))
        return legal(self, t, value, card, player)

    monkeypatch.setattr(Targets, "target_legal", checked)
    rs = load("unicorns")
    for seed in range(4):
        game = play(rs, 4, seed, agents=["random"] * 4, record=False)
    cx = getattr(game.engine, "cx", None)
    if cx is not None:   # (the compiled engine runs each step as the generator wrote it, none on the tree walker)
        steps = [s for t in rs.targets for s in legal_plan(rs, t.domain)]
        assert steps and all(id(e) in cx.legal for kind, node, _, _ in steps for e in (node if kind == "bind" else (node,)))
    assert {"baby_trap", "impaling", "kink_shame"} <= {name for name, _ in asked}
    assert any(got for _, got in asked) and not all(got for _, got in asked)
