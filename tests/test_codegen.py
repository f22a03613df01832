"""The compiled engine (codegen.py) plays exactly the games the tree walker plays.

Every shipped ruleset and example is played both ways, seed by seed, and the logs,
statistics, step counts and winners must be identical; run-time errors must read the same
and point at the same place.
"""
from __future__ import annotations

import json
import pathlib
import random

import pytest

from cgl.interpreter.codegen import CompiledEngine, compiled_for
from cgl.interpreter.codegen.generator import CodeGen
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.walker.engine import Engine
from cgl.interpreter.play.game import Game, play
from cgl.interpreter.check.loader import load, packaged_rulesets

EXAMPLES = sorted(pathlib.Path(__file__).resolve().parent.parent.joinpath("examples").glob("*.cgl"))


def record(game) -> str:
    r = game.result
    return json.dumps([r.log, r.stats, r.winners, r.steps, r.rounds, r.turns], sort_keys=True, default=str)


def both(rs, players, seed, agents, monkeypatch):
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", "tree")
    tree = play(rs, players, seed, agents=agents)
    assert type(tree.engine) is Engine
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", "compiled")
    fast = play(rs, players, seed, agents=agents)
    assert type(fast.engine) is CompiledEngine
    return tree, fast


def players_for(rs):
    return min(max(rs.game.min_players, 3), rs.game.max_players)


@pytest.mark.parametrize("name", sorted(packaged_rulesets()))
def test_shipped_rulesets_play_the_same_games_compiled(name, monkeypatch):
    rs = load(name)
    assert compiled_for(rs) is not None
    n = players_for(rs)
    for seed in range(3):
        for agent in ("random", "greedy"):
            tree, fast = both(rs, n, seed, [agent] * n, monkeypatch)
            assert record(fast) == record(tree), (name, seed, agent)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_play_the_same_games_compiled(path, monkeypatch):
    rs = load(str(path))
    assert compiled_for(rs) is not None
    n = players_for(rs)
    for seed in range(3):
        tree, fast = both(rs, n, seed, ["random"] * n, monkeypatch)
        assert record(fast) == record(tree), (path.name, seed)


def error_of(rs, monkeypatch, engine):
    if engine == "tree":
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", "tree")
    else:
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", "compiled")
    with pytest.raises(CglError) as info:
        play(rs, 2, 0, agents=["random", "random"])
    d = info.value.diagnostics[0]
    return d.code, d.message, (d.span.line, d.span.column) if d.span else None


@pytest.mark.parametrize("body, code, message", [
    # a property of nothing, inside a def called from a phase
    ("def top_rank(p) = first(hand(p)).rank\nturn { phase a { say \"{top_rank(current)}\" } }",
     "E010", "`.rank` of none"),
    # a number where a list is wanted
    ("turn { phase a { for c in 3 { pass } } }", "E010", "expected a list or a zone"),
    # a runaway loop
    ("var n = 0\nturn { phase a { while n >= 0 { set n += 1 } } }", "E011", "without its condition turning false"),
    # arithmetic on a text
    ("var n = 0\nturn { phase a { set n = 1 - \"x\" } }", "E010", "expected a number"),
    # `max`, `min`, `sum` of a list, written as direct calls (`max_list` …): what they cannot do
    ("var n = 0\nturn { phase a { set n = max([1, \"a\"] + [2]) } }", "E010", "`max` cannot order"),
    ("var n = 0\nturn { phase a { set n = min([n + 1 for c in [1, 2]] + [\"a\"]) } }", "E010", "`min` cannot order"),
    ("var n = 0\nturn { phase a { set n = sum([1, 2] + [true]) } }", "E010", "expected a number, got"),
    ("var n = 0\nturn { phase a { set n = sum([1, 2] + [\"a\"]) } }", "E010", "expected a number, got a text"),
    # a product of two whole numbers (written `_big(eng, a * b, …)`) past MAX_NUMBER
    ("var n = 1\nturn { phase a { repeat 7 { set n = n * 1000 } } }", "E017", "a number larger than"),
    # a running total (`fold_into`) joined past MAX_LIST: 100,000 items and one more
    ("var n = 0\nturn { phase a { let a = [1]  let b = []  repeat 5 { set a = a + a }  set b = b + a"
     "  repeat 2 { set a = a + a }  set b = b + a  repeat 2 { set a = a + a }  set b = b + a"
     "  set a = a + a  set b = b + a  repeat 5 { set a = a + a }  set b = b + a  set a = a + a  set b = b + a"
     "  set n = max([count([x]) for x in b] + [0]) } }", "E017", "a list of more than 100,000 items (100,001)"),
])
def test_runtime_errors_read_the_same_compiled(make_rules, monkeypatch, body, code, message):
    rs = make_rules(body)
    tree = error_of(rs, monkeypatch, "tree")
    fast = error_of(rs, monkeypatch, "compiled")
    assert fast == tree
    assert fast[0] == code and message in fast[1]


def test_step_budget_stops_at_the_same_statement_compiled(make_rules, monkeypatch):
    rs = make_rules("var n = 0\nturn { phase a { set n += 1 } }\nround { until n > 100000 }")
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        game = Game(rs, 2, 0)
        game.engine.max_steps = 500
        with pytest.raises(CglError) as info:
            d = game.start()
            while d is not None:
                d = game.answer(0)
        out.append((info.value.diagnostics[0].message, game.state.steps, game.state.globals["n"]))
    assert out[0] == out[1]
    assert out[1][1] == 501


def test_simultaneous_choices_set_outer_locals_compiled(make_rules, monkeypatch):
    """Choice bodies inside `simultaneously` run after every choice, and the `let`
    variables they set are the enclosing block's."""
    rs = make_rules("""
        var result = ""
        turn { phase a {
          let a = "?"
          let b = "?"
          simultaneously {
            choose x in ["rock", "paper"] by seat(1) { set a = x }
            choose y in ["rock", "paper"] by seat(2) { set b = a + "/" + y }
          }
          set result = a + " " + b
          end game
        } }
    """)
    results = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        game = Game(rs, 2, 0)
        d = game.start()
        answers = [1, 0]
        while d is not None:
            d = game.answer(answers.pop(0))
        results.append(game.state.globals["result"])
    # b's body ran after a's: it saw a = "paper"
    assert results == ["paper paper/rock", "paper paper/rock"]


@pytest.mark.parametrize("name", sorted(packaged_rulesets()))
def test_no_transcript_plays_the_same_game(name):
    """`record=False` (what `cgl simulate` uses) keeps no log and changes nothing else."""
    rs = load(name)
    n = players_for(rs)
    for seed in range(3):
        full = play(rs, n, seed, agents=["random"] * n)
        bare = play(rs, n, seed, agents=["random"] * n, record=False)
        assert bare.result.log == [] and full.result.log
        a, b = full.result, bare.result
        assert (a.winners, a.reason, a.players, a.rounds, a.turns, a.steps, a.stats, a.decisions) == \
               (b.winners, b.reason, b.players, b.rounds, b.turns, b.steps, b.stats, b.decisions)
        assert full.answers == bare.answers


def test_actions_see_the_locals_where_act_runs_compiled(make_rules, monkeypatch):
    """Where `act` runs beside a local named like a global an action reads, the action
    sees the local (the tree walker's environments chain there); the compiled engine
    keeps that, and plays the same."""
    rs = make_rules("""
        var total = 0
        var bonus = 1
        action add(n in [1, 2]) "Add {n + bonus}" { set total += n + bonus }
        turn { phase a {
          let bonus = 10
          act by current
          if total > 20 { end game }
        } }
    """)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        game = Game(rs, 2, 0)
        d = game.start()
        labels = d.labels
        while d is not None:
            d = game.answer(1)
        out.append((labels, game.state.globals["total"], [e["text"] for e in game.state.log]))
    assert out[0] == out[1]
    assert out[1][0] == ["Add 11", "Add 12"] and out[1][1] == 24


def test_typed_texts_narrowing_hoisting_and_kept_caches_compiled(make_rules, monkeypatch):
    """The compiled engine's shortcuts keep the tree walker's meaning: `in` over a list of
    texts with a number or a truth value on the left, a `!= none` test that narrows a
    text-or-none inside a comprehension that rebinds `it`, a player's variable read by a
    def written in place inside a loop while it changes between calls, `count(…)` of a
    def's filter in a trigger condition, and a derived property recomputed when a card
    variable changes (and kept when it is set to the value it holds)."""
    rs = make_rules("""
        var mark per card = none
        var avoid per player = []
        var seen = []
        derive tag = if suit = "red" then "r" else none
        derive tags = [suit] + (if tag != none then [t for t in [tag] where count([it]) = 1] else [])
        derive marked = if mark != none then "marked {mark}" else "plain"
        def wanted(p, c) = count([l for l in c.tags if l not in p.avoid])
        def holding(p, l) = count(hand(p) where l in tags)
        on draw if holding(player, "red") >= 2 and 1 not in card.tags and true not in card.tags as pair {
          set player.avoid = player.avoid + [card.suit]
          set seen = seen + ["{player} avoids {card.suit}: {wanted(player, card)} wanted"]
        }
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          for c in hand(current) {
            set c.mark = none
            set seen = seen + ["{c.name} {c.marked} {wanted(current, c)}"]
            set c.mark = current
            set seen = seen + ["{c.name} {c.marked} {c.tags}"]
          }
          if turn_no >= 6 { end game }
        } }
    """)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        results = []
        for seed in range(4):
            game = play(rs, 2, seed, agents=["random", "random"])
            results.append((game.state.globals["seen"], game.result.steps, game.result.stats))
        out.append(results)
    assert compiled_for(rs) is not None   # the shortcuts were taken, not the tree walker's way
    assert out[0] == out[1]
    seen = [line for results in out[1] for line in results[0]]
    assert any(" plain " in line for line in seen) and any(" marked P" in line for line in seen)
    assert any(line.endswith("[red, r]") for line in seen)     # a red card carries its tag
    # the avoided suit, set just before, is already left out of what the card is wanted for
    assert any(line.endswith("avoids red: 1 wanted") for line in seen)


def test_runners_written_in_and_loops_over_ids_compiled(make_rules, monkeypatch):
    """The compiled engine's event runners write the triggers' conditions and the reaction
    window in place, loops over a zone's cards run over their ids where only ids and
    derived properties are read, and `draw 1` / `discard c` move the card in a plain
    call: the games are the tree walker's, trigger and reaction counts kept apart, an
    empty deck logged, a bulk move made quietly from two zones."""
    rs = make_rules("""
        derive tag = if suit = "red" then "r" else "o"
        var hits = 0
        on discard if tag = "r" as reds { set hits += 1 }
        on discard if count(hand(player) where it != card and rank >= card.rank) >= 1 as outranked {
          say "{player} still holds a higher card than {card.name}"
        }
        reaction snatch after discard if not event.forced {
          responders others_after(player)
          eligible count(hand(responder) where tag = "r") >= 1 and count(hand(responder) where tag = "o") >= 1
          ask "Take {card.name}?"
          once
          do { move card to hand(responder)  say "{responder} snatches {card.name}" }
        }
        setup { deal 2 to hand }
        turn { phase a {
          draw 1
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no = 9 { move all_cards to deck }
          if turn_no >= 14 { end game }
        } }
    """)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        out.append([record(play(rs, 3, seed, agents=["random"] * 3)) for seed in range(6)])
    assert compiled_for(rs) is not None
    assert out[0] == out[1]
    games = [json.loads(r) for r in out[1]]
    stats = [g[1] for g in games]
    texts = [e["text"] for g in games for e in g[0]]
    # trigger and reaction counts are their own (not one under the other's name)
    assert any(s.get("trigger:reds", 0) != s.get("reaction:snatch", 0) for s in stats)
    assert any(s.get("reaction:snatch") for s in stats) and any(s.get("trigger:outranked") for s in stats)
    assert any("snatches" in t for t in texts) and any("higher card" in t for t in texts)
    assert any(t == "deck is empty" for t in texts)


def test_a_cards_zone_is_read_in_place_compiled(make_rules):
    """`zone` of a card (`c.zone`, or a bare `zone` where `it` is a card) is read from
    where the state keeps the card, not through the general lookup of any name; it
    means the same (tests/test_engine.py, on both engines)."""
    rs = make_rules("""
        def piled() = count(all_cards where zone = "pile")
        turn { phase p {
          say "{piled()} {[c.zone for c in hand(current)]}"
          end game
        } }
    """)
    source = compiled_for(rs).source
    assert "_it_or_unknown" not in source and source.count("_ZONE_NAMES[") >= 2


def test_a_def_written_in_place_twice_is_worked_out_once_compiled(make_rules, monkeypatch):
    """A def written in place twice in one expression with the same arguments
    is worked out once, on first use (also inside a comprehension whose variable it does not
    take); not when it takes the comprehension's variable, inside a `group by` key, or
    when it rolls dice. `zone_of` of a card, `exists` of a list and a set to a literal are
    written in place. The games are the tree walker's."""
    rs = make_rules("""
        var last per card = 0
        def reds(p) = [c.rank for c in hand(p) if c.suit = "red"]
        def of_suit(p, s) = count(hand(p) where suit = s)
        def rolls(p) = [1d6 for c in hand(p)]
        def fresh(p, c) = if c.rank > 1 then [r for r in reds(p) if r != c.rank] else reds(p)
        setup { deal 3 to hand }
        turn { phase p {
          draw 1
          let p = current
          let top = first(hand(p))
          say "{count(reds(p) + reds(p))} {exists(reds(p) + [])} {[x for x in [1, 2] if count(reds(p)) >= x]}"
          say "{[of_suit(p, c.suit) for c in hand(p)]} {[g.size for g in hand(p) group by of_suit(p, suit)]}"
          say "{sum(rolls(p) + rolls(p))} {[fresh(p, c) for c in hand(p)]} {fresh(p, top) + reds(p)} {zone_of(top)}"
          for c in hand(current) { set c.last = 7  set c.last = none  set c.last = "x"  say "{zone_of(c)}" }
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4)
    assert (":= _MISSING)" in cx.source or " = _MISSING\n" in cx.source) and "_ZONE_NAMES[" in cx.source
    assert "_BUILTIN['exists']" not in cx.source and "_ZONE_NAMES[_wh[_v_c" in cx.source


def test_counts_over_ids_and_groups_of_an_empty_zone_compiled(make_rules, monkeypatch):
    """`count(ZONE where COND)` in an expression counts over the zone's card ids when COND
    reads only ids and derived properties, and a `group by` of a player's empty zone makes
    no groups: the games are the tree walker's."""
    rs = make_rules("""
        zone table: per player, public
        derive tag = if suit = "red" then "r" else "o"
        def with_tag(p, t) = count(hand(p) where tag = t and rank >= 2)
        def reds(p) = with_tag(p, "r")
        def has_o(p) = exists(hand(p) where tag = "o")
        procedure report(q) {
          say "{reds(q)} {has_o(q)} {[g.size for g in table(q) group by suit]}"
          say "{[g.label for g in hand(q) group by tag]} {count(hand(q) where it != first(hand(q)))}"
        }
        turn { phase p {
          draw 1
          report(current)
          if turn_no = 3 { move first(hand(current)) to table(current) }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4)
    assert "len([1 for _i" in cx.source and " else [])" in cx.source


def test_a_group_by_a_card_variable_compiled(make_rules, monkeypatch):
    """`ZONE group by VAR` (VAR a card variable) groups the ids of the zone's cards, each
    card's VAR read in place (`_group_by_var`): the groups in the order their first card
    comes (top first), a list or none a value like any other, the cards of one value in
    one group whether or not they lie together. The games are the tree walker's."""
    rs = make_rules("""
        var mark per card = none
        setup { shuffle deck }
        turn { phase p {
          for c in all_cards {
            set c.mark = if c.rank = 1 then "a"
                         else (if c.rank = 2 then (if turn_no in [2, 4] then [c.suit] else "a")
                         else (if c.suit = "red" then none else "b"))
          }
          say "{[g.label for g in deck group by mark]} {[g.size for g in deck group by mark]}"
          say "{[g.cards for g in deck group by mark]} {[g.label for g in hand(current) group by mark]}"
          draw 1
          if turn_no >= 6 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6)
    assert "_group_by_var(eng, reversed(" in cx.source and "_group_by(" not in cx.source


def test_a_patterns_scan_over_card_ids_compiled(make_rules, monkeypatch):
    """A pattern whose labels read only ids, card variables and derived properties scans the
    card ids and counts the labels at once (a label that is a list, or none, counted as the
    tree walker counts it); the cards are made only when a shape may fit. The games are the
    tree walker's."""
    rs = make_rules("""
        var tag per card = none
        derive colour = suit
        pattern pair(p) {
          cards hand(p)
          labels if tag != none then [tag] else [colour, none]
          shape two: 2
          shape three: 2 + 1
        }
        procedure look(p) {
          let m = pair(p)
          if m != none { say "{p} holds {m.shape}" }
        }
        turn { phase p {
          draw 1
          for c in hand(current) { set c.tag = if turn_no in [3, 4, 7] then [c.suit] else none }
          look(current)
          if count(hand(current)) > 2 { choose c in hand(current) by current "Discard" { discard c } }
          if turn_no >= 10 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6)
    assert "_count_labels(_counts, _flat)" in cx.source and "_cards = [*reversed(" not in cx.source
    assert "_cards = list(map(eng.cards.__getitem__, _cards))" in cx.source
    texts = [e["text"] for r in games for e in json.loads(r)[0]]
    assert any(" holds two" in t for t in texts) and any(" holds three" in t for t in texts)


def test_a_patterns_quick_rejection_by_number_of_cards_compiled(make_rules, monkeypatch):
    """The scan's quick rejection asks each number of cards once, then the shapes of that
    many cards (`shapes_may_fit`: the counts padded with zeros where every group needs a
    card, so no length is asked); a shape of only `any` cards needs the number alone. It
    rejects no hand the solver would read: the games are the tree walker's, and each shape
    is found."""
    rs = make_rules("""
        pattern held(p) {
          cards hand(p)
          labels [suit]
          shape quad: 4
          shape pairs: 2 + 2
          shape three_one: 3 + 1 any
          shape triple: 3
          shape two_any: 1 + 1 any
        }
        setup { shuffle deck  deal 1 to hand }
        turn { phase p {
          draw 1
          let m = held(current)
          if m != none { say "{current} holds {m.shape}" }
          if count(hand(current)) > 4 or turn_no % 3 = 0 { choose c in hand(current) by current "Discard" { discard c } }
          if count(deck) = 0 { move all_cards where zone_of(it) = "pile" to deck  shuffle deck }
          if turn_no >= 30 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=12)
    assert "_top = sorted(_counts.values(), reverse=True) + [0, 0]" in cx.source and "len(_top)" not in cx.source
    texts = [e["text"] for r in games for e in json.loads(r)[0]]
    for shape in ("pairs", "three_one", "triple", "two_any"):
        assert any(t.endswith(f" holds {shape}") for t in texts), shape


def test_lists_with_loops_evaluated_as_statements_compiled(make_rules, monkeypatch):
    """A statement's expression with loops is written as statements: `exists`/`count` of a
    list, a sum of lists, and `in` or a comparison whose right side has loops (the left side
    evaluated first); a def with a loop written in place twice with the same arguments is
    worked out once (not across a loop whose card it takes). The games are the tree walker's."""
    rs = make_rules("""
        def low(p) = [c.rank for c in hand(p) if c.rank <= 2]
        def mix(p) = low(p) + [r for r in [1, 2, 3] if r not in low(p)]
        def alike(c) = [x.rank for x in hand(current) if x.suit = c.suit]
        def has_red(p) = first(hand(p)).suit = "red"
        turn { phase p {
          draw 1
          let q = current
          let f = [count(alike(c)) for c in hand(q) if exists(alike(c))]
          say "{f}"
          let a = exists(mix(q))
          let b = count(low(q) + [1])
          let c = 2 in mix(q)
          let d = count(hand(q)) < count(mix(q))
          let e = exists(low(q))
          let g = first(mix(q))
          let h = if count(hand(q)) > 1 and has_red(q) then has_red(q) else false
          say "{a} {b} {c} {d} {e} {g} {h}"
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4)
    block = cx.source.split("def _B")[-1]
    assert "[" + "_c" not in block   # no comprehension left in the turn's block
    # `low(q)` worked out once in `mix(q)`, where it first comes (no question whether it is
    # set: `AsStatements.memo_first`), its variable read in `mix`'s loop (`memo_worked_out`)
    assert block.count("<= 2)") == 6 and " = _MISSING" in block
    texts = {e["text"] for r in games for e in json.loads(r)[0]}
    assert any(t.startswith("true ") for t in texts)


def test_rule_conditions_are_compiled_and_see_what_is_bound_where_they_are_asked(make_rules, monkeypatch):
    """A `rule … forbid TAG if COND` is asked wherever its tag is offered: at `act` (the
    action's parameter, `actor`, and the locals where `act` runs), at a `choose … as TAG`
    (`option`, `it`, the chosen name) and at a reaction (`responder`); a local named like a
    global it reads (`limit`, `cap`) is what it sees where it is asked, as the tree walker's
    environments chain there.
    The compiled engine runs its own code for the condition, not the tree walker's closure
    (the condition is asked for every option of every decision: the slow path cost
    Kozyablo a third of its time), and both engines play the same game."""
    rs = make_rules("""
        var total = 0
        var echoes = 0
        var limit = 9
        var cap = 9
        action take(n in [1, 2, 3]) "Take {n}" { set total += n }
        rule small_steps: forbid take if n > limit and actor.seat = 1
        rule keep_high: forbid picking if rank >= cap and option.suit != "green"
        reaction echo after discard {
          ask "Echo?"
          do { set echoes += 1 }
        }
        rule quiet: forbid echo if responder.seat = 2 and total < limit * 3
        setup { deal 3 to hand }
        turn { phase a {
          let limit = 1 + turn_no % 2
          act by current
          let cap = 2
          choose c in hand(current) by current "Discard" as picking { discard c to pile }
          if turn_no >= 3 { end game }
        } }
    """)
    compiled = compiled_for(rs)
    assert all(id(r.cond) in compiled.exprs for r in rs.rules)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        game = Game(rs, 2, 3)
        d = game.start()
        seen = []
        while d is not None:
            seen.append(d.labels)
            d = game.answer(True if d.kind == "may" else len(d.labels) - 1)
        out.append((seen, game.state.globals["total"], game.state.globals["echoes"], [e["text"] for e in game.state.log]))
    assert out[0] == out[1]
    seen = out[1][0]
    assert seen[0] == ["Take 1", "Take 2"]        # seat 1; the local `limit` (2), not the global (9)
    assert seen[1] == ["B1", "C1"]                # the local `cap` (2) keeps the red and blue 2 and 3
    assert ["Take 1", "Take 2", "Take 3"] in seen  # seat 2 is not limited
    assert seen.count(["yes", "no"]) == 1 and out[1][2] == 1   # seat 2 is not asked while the total is small


@pytest.mark.parametrize("name", sorted(packaged_rulesets()))
def test_every_rule_condition_of_a_shipped_ruleset_is_compiled(name):
    rs = load(name)
    compiled = compiled_for(rs)
    assert [r.name for r in rs.rules if r.cond is not None and id(r.cond) not in compiled.exprs] == []


@pytest.mark.parametrize("name", sorted(packaged_rulesets()))
def test_every_invariant_of_a_shipped_ruleset_is_compiled(name):
    """A game with invariants on (`--check`, the smoke tests, scenarios) checks the ruleset's
    `invariant`s at every turn's end; the compiled engine runs them compiled (the tree
    walker's closures took three quarters of what checking cost an MGT game)."""
    rs = load(name)
    compiled = compiled_for(rs)
    assert [i.name for i in rs.invariants if id(i.cond) not in compiled.exprs] == []


def _same_games_on_both_engines(rs, monkeypatch, seeds: int, players: int = 2, read=record):
    """Play `seeds` seeded games of `rs` on the tree walker, then compiled; assert they are
    the same games, as `read` sees a game (by default its whole record); (the compiled
    module, whose `source` shows what was written; what `read` saw of each compiled game)."""
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        out.append([read(play(rs, players, seed, agents=["random"] * players)) for seed in range(seeds)])
    cx = compiled_for(rs)
    assert cx is not None
    assert out[0] == out[1]
    return cx, out[1]


def _seen_and_steps(game):
    """What a test game wrote in its `seen` variable, and the steps it took."""
    return game.state.globals["seen"], game.result.steps


def test_a_custom_events_card_eligibility_has_a_variant_for_a_card_compiled(make_rules, monkeypatch):
    """A custom event's `card` may hold any value, so a reaction's eligibility that reads it
    is written for any value, and again for a card (the runner picks by the value it gets,
    `runners._runner`): the same games as the tree walker's when `card` is a card, a text,
    a list or none."""
    rs = make_rules("""
        derive tag = if suit = "red" then "r" else "o"
        var took = 0
        reaction grab after offered {
          responders others_after(player)
          eligible card in pile and count(hand(responder) where tag = card.tag) >= 1
          ask "Take {card}?"
          once
          do { set took += 1  say "{responder} takes it" }
        }
        setup { deal 2 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no % 4 = 0 { emit offered(player: current, card: top(pile)) }
          elif turn_no % 4 = 1 { emit offered(player: current, card: "A1") }
          elif turn_no % 4 = 2 { emit offered(player: current, card: none) }
          else { emit offered(player: current, card: first(pile)) }
          if turn_no >= 12 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, players=3)
    assert [c.eligible_card_src is not None for c in cx.reactions.values()] == [True]
    texts = [e["text"] for g in map(json.loads, games) for e in g[0]]
    assert any("takes it" in t for t in texts)


def test_a_loops_zone_is_listed_once_per_expression_compiled(make_rules, monkeypatch):
    """A `where` or comprehension over a zone inside another loop of the same expression
    lists the zone's cards once, the first time round (MGT's `usefulness`), when what it
    reads cannot change as the loops go round: a declared zone, `hand(p)` of a player bound
    outside the loops, a sum of those; not `hand(q)` of the outer loop's `q`. Empty zones,
    a loop that never runs and a def written in place keep the tree walker's values."""
    rs = make_rules("""
        var seen = []
        def near(p, c) = count(hand(p) + pile where suit = c.suit)
        def above(p) = [count(hand(p) where rank > x) for x in [1, 2, 3]]
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          let p = current
          set seen = seen + ["{[near(p, c) for c in hand(p)]} {above(p)} {[near(p, c) for c in pile]}"]
          set seen = seen + ["{[[count(hand(q) where rank >= x) for x in [1, 3]] for q in players]}"]
          set seen = seen + ["{[count(pile where rank = c.rank) for c in hand(p) if c.rank > 5]}"]
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    per_player = [json.loads(line) for game, _ in games for line in game[1::3]]
    assert any(a != b for a, b in per_player)   # each player's hand counted as its own
    source = cx.source
    # listed once: `hand(p) + pile` in `near` (twice), `hand(p)` in `above`, `pile`; not `hand(q)`
    assert source.count(" is not None else None)") == 4


def test_all_cards_in_a_named_zone_are_looked_for_there_compiled(make_rules, monkeypatch):
    """`all_cards where zone = "Z" and …` looks only at the cards of the zones named Z
    (every player's `table`), in the order of `all_cards`; a `where` of all cards that does
    not test its zone first looks at every card. The games are the tree walker's."""
    rs = make_rules("""
        zone table: per player, public
        def on_tables = [c.name for c in all_cards where zone = "table" and rank >= 2]
        def mine(p) = count(all_cards where zone = "table" and owner(it) = p)
        def red_tables = all_cards where suit = "red" and zone = "table"
        def any_down = exists(all_cards where zone = "table")
        setup { deal 3 to hand }
        turn { phase p {
          draw 1
          choose c in hand(current) by current "Put down" { move c to table(current) }
          say "{on_tables} {mine(current)} {count(red_tables)} {any_down}"
          if turn_no >= 10 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4)
    assert cx.source.count("_cards_in_zones(eng, 'table')") >= 3


def test_all_cards_whose_variable_is_set_are_picked_first_compiled(make_rules, monkeypatch):
    """`all_cards where VAR != none and …` (VAR a card variable) looks only at the cards whose
    VAR is not none, picked before the loop (`_cards_with_var`), in the order of `all_cards`:
    a VAR of 0, false or "" is not none, and is kept. The games are the tree walker's."""
    rs = make_rules("""
        var mark per card = none
        var seen = []
        turn { phase p {
          draw 1
          let c = first(hand(current))
          set c.mark = (if turn_no % 4 = 0 then 0 elif turn_no % 4 = 1 then false elif turn_no % 4 = 2 then "" else c.rank)
          set seen = seen + ["{[u.name for u in all_cards where mark != none]} {count(all_cards where mark != none and rank > 1)}"]
          for u in all_cards where mark != none and suit = "red" { set u.mark = none }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=3, read=_seen_and_steps)
    assert cx.source.count("_cards_with_var(eng, 'mark')") == 3
    assert any(len(s.split("]")[0]) > 10 for seen, _ in games for s in seen)   # (several cards kept at once)


def test_a_count_of_a_zones_cards_by_their_data_is_a_list_count_compiled(make_rules, monkeypatch):
    """`count(ZONE where PROP = X)` and `exists(…)` (PROP a card's data, X a local or a
    literal, compared as texts or numbers) count the zone's values of PROP with `list.count`
    (`count_by_data`; `exists` looks with `in`), written as statements (a def) and in an expression: the same counts
    as the tree walker's, a text and a number alike; a card variable, or X read from the
    card, is counted as written."""
    rs = make_rules("""
        var mark per card = 0
        var seen = []
        def reds(p) = count(hand(p) where suit = "red")
        def has_rank(p, r) = exists(hand(p) where rank = r)
        def of_suit(p, s) = count(hand(p) where suit = s)
        def marked(p) = count(hand(p) where mark = 1)
        setup { deal 4 to hand }
        turn { phase p {
          draw 1
          set first(hand(current)).mark = 1
          let blues = of_suit(current, "blue")
          let greens = [count(hand(q) where suit = "green") for q in players]
          set seen = seen + ["{reds(current)} {has_rank(current, 2)} {blues} {marked(current)} {greens}"]
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    assert cx.source.count(".count(") == 3   # (not `marked`: a card variable)
    assert cx.source.count(" in map(") == 1   # (`exists`: stopping at the first)
    counts = [int(s.split()[0]) for seen, _ in games for s in seen]
    assert max(counts) >= 2   # (a count, not whether there is one)


def test_a_cards_variables_set_one_after_another_share_its_store_compiled(make_rules, monkeypatch):
    """`set c.a = …  set c.b = …` of one local card, each to a value that runs nothing, asks
    `State.card_store` once; a `set` after a block (an `if` that set one of them) or of
    another card asks again: the same values as the tree walker's."""
    rs = make_rules("""
        var a per card = 0
        var b per card = none
        var marks = []
        turn { phase p {
          draw 1
          for c in hand(current) {
            set c.a = 1
            set c.b = 5
            if c.rank > 1 { set c.a = 2  set c.b = 6 }
            set c.a = 3
            let d = first(deck)
            if d != none { set d.a = 4  set c.b = 7 }
          }
          set marks = marks + ["{[c.a for c in all_cards]} {[c.b for c in all_cards]}"]
          if turn_no >= 4 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=3, read=lambda g: g.state.globals["marks"])
    assert any("7" in m for marks in games for m in marks) and any("4" in m for marks in games for m in marks)
    source = cx.source
    assert source.count("st.card_store(") == 5   # c.a and c.b once, c.a and c.b in the `if` once, c.a, d.a, c.b


def test_a_hints_count_by_label_inside_a_loop_over_labels_is_a_look_up_compiled(make_rules, monkeypatch):
    """In a hint, `count(ZONE where l in LIST and REST)` inside a loop over `l` of the same
    expression (MGT's `usefulness`: for each label of each card, the cards holding it) goes
    round the zone once, noting which cards hold each label, and keeps the counts for the
    hint's other options (`held.label_count`, `Hints.eval_memo`), when the zone, LIST and REST
    read nothing the loops change: the tree walker's scores, with a label twice on a card
    (counted once), a zone listed twice (each copy counted), several tests after the
    label's, a label no card holds, a card with no labels; written apart (a def's
    function, whose loops are statements: `Statements.label_count_into`) and in place (in
    the hint's own function). Not where REST reads a loop's variable."""
    rs = make_rules("""
        derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
        def fit(p, c) = max([count(hand(p) + pile where l in tags and rank != 2) for l in c.tags] + [0])
        def twice(p, c) = [count(hand(p) + hand(p) where l in tags) for l in c.tags]
        def some(p) = [count(pile where l in tags and rank >= 2 and suit != "green") for l in ["red", "high", "red", "none"]]
        def own(c) = [count(pile where l in tags and rank > c.rank) for l in c.tags]
        setup { deal 3 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          let p = current
          choose c in hand(p) by p "Discard"
              prefer fit(p, c) * 100 + fit(current, c) * 10 + sum(twice(p, c) + [0]) + sum(some(p) + own(c))
                     + sum([sum(own(x) + [0]) for x in hand(p)] + [0]) { discard c }
          if turn_no >= 12 { end game }
        } }
    """)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        scores = []
        for seed in range(6):
            game, pick = Game(rs, 2, seed), random.Random(seed)
            d = game.start()
            while d is not None:
                scores.append(d.scores())
                d = game.answer(pick.randrange(len(d.options)))
        out.append(scores)
    assert out[0] == out[1]
    assert len({tuple(s) for s in out[1]}) > 10
    source = compiled_for(rs).source
    # `fit` in place, `twice`, `some` and `own(c)` in place (kept for one option: `c` is
    # another card for each); not `own(x)`, whose test reads the loop's `x`; `fit` apart
    # (its def's function, `DH_fit…`) as statements, its counts kept in the hint's memo too
    assert source.count("_label_count(") == 4
    assert source.count("_label_count(_eval_memo(") == 4   # (in place: in the hint's own function)
    fit = source[source.index("def DH_fit"):].split("\ndef ")[0]
    assert "_label_count(" not in fit and fit.count("_eval_memo(eng, (") == 1 and "[-1] is not _i" in fit


def test_a_count_inside_a_loop_is_kept_by_the_text_it_reads_compiled(make_rules, monkeypatch):
    """`count(ZONE where COND)` inside a loop over a text `l` of the same expression, whose
    COND reads no other loop's variable, is counted once per value of `l` (MGT's estimate:
    a label on several cards of the hand): the tree walker's values; not where COND reads
    another loop's variable or rolls dice, nor over a loop of cards."""
    rs = make_rules("""
        var seen = []
        derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
        def fit(p, c) = max([count(hand(p) + pile where l in tags and rank != 2) for l in c.tags] + [0])
        setup { deal 3 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          let p = current
          set seen = seen + ["{sum([fit(p, c) for c in hand(p) + pile] + [0])} {[[count(pile where l in tags and rank > c.rank) for l in c.tags] for c in hand(p)]}"]
          let suits = ["red", "blue", "red", "red"]
          set seen = seen + ["{[count(hand(p) where suit = s) for s in suits]} {[count(pile where it = c) for c in hand(p)]}"]
          choose c in hand(p) by p "Discard" { discard c }
          if turn_no >= 12 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, read=_seen_and_steps)
    assert len({line for game, _ in games for line in game}) > 20
    # `fit` (in place): kept; not the count reading `c`, nor the loop of cards, nor the suits
    # (`s`, of a `let` list, is not known to be a text)
    assert cx.source.count(".setdefault(") == 1


def test_an_estimates_loops_are_written_as_statements_compiled(make_rules):
    """The `estimate` (a function of its player, evaluated twice each search iteration) is
    written as statements: its comprehensions, and the `sum`, `max` and `min` of them, as
    loops, the left side of its arithmetic first, a count of the cards holding a label
    inside a loop over labels kept by label, the cards' labels noted as the first count
    goes round (MGT's estimate; over the cards, or their ids where only derived properties
    are read): at every decision of seeded games it gives the tree walker's values."""
    rs = make_rules("""
        var bonus per player = 0
        derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
        derive low = rank < 3
        def fit(p, c) = max([count(hand(p) + pile where l in tags and rank != 2) for l in c.tags] + [0])
        def fit_low(p, c) = max([count(pile + hand(p) where l in tags and not low) for l in c.tags] + [0])
        estimate p: p.bonus * 100 + sum([fit(p, c) for c in hand(p) + pile] + [0])
                    - min([c.rank for c in hand(p)] + [7]) * count(hand(p) where rank > 1)
                    + sum([fit_low(p, c) * 1000 for c in hand(p)])
                    + sum([max([count(hand(p) + hand(p) where l in tags) for l in c.tags] + [0]) * 7 for c in pile])
        setup { deal 3 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          choose c in hand(current) by current "Discard" {
            discard c
            if c.rank > 3 { set current.bonus += 1 }
          }
          if turn_no >= 14 { end game }
        } }
    """)
    seen = []
    for engine in ("tree", "compiled"):
        values = []
        for seed in range(5):
            game = Game(rs, 2, seed, engine=engine, forkable=True, record=False)
            rng = random.Random(seed)
            d = game.start()
            while d is not None:
                values.append(game.engine.estimates())
                d = game.answer(rng.randrange(len(d.options)))
        seen.append(values)
    assert seen[0] == seen[1]
    assert len({tuple(v) for v in seen[1]}) > 12
    source = compiled_for(rs).source
    est = source[source.index("def _Y"):].split("\ndef ")[0]
    # no comprehension (a `for` only as a loop's statement)
    assert all(line.lstrip().startswith("for ") for line in est.splitlines() if " for " in line)
    # (`sum`, `max` and `min` of whole numbers as running totals, `fold_into`: the ranks typed
    # as numbers, every card's a whole number, `Held.int_items`)
    assert est.count("for _") >= 3 and "_sum_list(" not in est and "_max_list(" not in est and "_min_list(" not in est
    # the labels noted, once over ids; a card's label twice noted once: by the last card noted
    # for it where no card comes twice round the zones, by `dict.fromkeys` round a hand twice
    assert est.count("dict.fromkeys(") == 1 and est.count("[-1] is not _i") == 2 and "for _i" in est


def test_a_sum_max_or_min_of_whole_numbers_is_a_running_total_compiled(make_rules, monkeypatch):
    """`sum`, `max` and `min` of a comprehension whose items are whole numbers for sure
    (counts, sums, numbers written out, arithmetic and `if`s of them, defs of them), alone or
    joined with a list of numbers written out, before or after it, are running totals as the
    loop goes round (`Held.fold_into`: no list made and joined): the tree walker's values, an
    empty `max`/`min` none, negative numbers, ties; items typed as numbers (a card's rank,
    a number on every card: `Held.int_items`) too; a list whose items may be anything (a
    list's items, untyped) is still handed to `_max_list`."""
    rs = make_rules("""
        var seen = []
        derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
        def fit(p, c) = max([count(hand(p) + pile where l in tags) - 2 for l in c.tags] + [0])
        def low(p, c) = min([1] + [0 - count(pile where l in tags) for l in c.tags])
        def bare_max(c) = max([count(pile where l in tags) for l in c.tags])
        def bare_min(c) = min([count(pile where l in tags) for l in c.tags if l != "high"])
        def total(p) = sum([if fit(p, c) > 0 then fit(p, c) * 3 else low(p, c) for c in hand(p)] + [5, 0, -1])
        def ranks(p) = max([x for x in [c.rank for c in hand(p)]] + [0])
        def top_rank(p) = max([c.rank for c in hand(p)] + [0])
        def mine(p) = if count(pile) > 3 then [] else hand(p) where rank > 1
        def score(p) = sum([c.rank for c in mine(p)] + [0])
        setup { deal 3 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          let p = current
          let a = total(p)
          let b = [bare_max(c) for c in hand(p)]
          let m = [bare_min(c) for c in hand(p)]
          let r = ranks(p)
          let t = top_rank(p) + 100 * score(p)
          let s = sum([low(p, c) for c in pile])
          set seen = seen + ["{a} {b} {m} {r} {s} {t}"]
          choose c in hand(p) by p "Discard" { discard c }
          if turn_no >= 14 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=5, read=_seen_and_steps)
    lines = [line for game, _ in games for line in game]
    assert len(set(lines)) > 20 and any("none" in line for line in lines) and any("-" in line for line in lines)
    source = cx.source
    # `ranks` alone as a list; `fit`, `low`, `bare_max`, `bare_min`, `total`, `top_rank`, `score`
    # (the cards of `if … then [] else ZONE where …`: `TypeChecker.source_ty`) and the last sum folded
    assert source.count("_max_list(") == 1 and "_min_list(" not in source and "_sum_list(" not in source
    assert "_long_list(" in source   # (a join past MAX_LIST fails as `_cat` would)


def test_max_min_and_sum_of_a_list_are_direct_calls_compiled(make_rules, monkeypatch):
    """`max`, `min` and `sum` of a list are written as direct calls (`builtins.max_list` …),
    with the tree walker's values: an empty list (none, 0), numbers, texts, cards' ranks."""
    rs = make_rules("""
        var seen = []
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          let ranks = [c.rank for c in hand(current)]
          set seen = seen + ["{max(ranks)} {min(ranks + [2])} {sum(ranks)} {max([c.name for c in hand(current)])} {min([c.suit for c in pile])} {max([c.rank for c in pile] + [])} {sum([c.rank for c in pile])}"]
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no >= 6 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=lambda g: g.state.globals["seen"])
    assert any("none" in line for game in games for line in game)
    source = cx.source
    assert source.count("_max_list(") >= 2 and source.count("_min_list(") >= 1 and source.count("_sum_list(") >= 1


def test_a_static_derive_known_for_every_card_is_read_with_no_test_compiled(make_rules, monkeypatch):
    """A derived property the card data alone decides is filled in for every card as the
    generator writes it (`CodeGen.static_values`, from check/statics.py) and read with no
    test; one that fails for some card (here a number less a text, for the green cards,
    which no rule reads) stays worked out when first read: the same games either way."""
    rs = make_rules("""
        derive weight = if suit = "red" then rank * 2 else rank
        derive odd = if suit = "green" then rank - name else rank
        var total = 0
        setup { deal 2 to hand }
        turn { phase a {
          draw 1
          choose c in hand(current) by current "Discard" { discard c }
          set total += sum([c.weight for c in pile])
          set total += sum([c.odd for c in pile where suit != "green"])
          if turn_no >= 6 { end game }
        } }
    """)
    gen = CodeGen(rs, budget=True)
    gen.generate()
    assert gen._static_full == {"weight"}
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, players=2)
    weight = cx.ns[gen._static_caches["weight"]]
    assert weight == [rs.cards[i].props["rank"] * (2 if rs.cards[i].props["suit"] == "red" else 1)
                      for i in range(len(rs.cards))]


def test_a_games_cache_of_a_derive_is_read_with_or_unless_its_values_are_often_false_compiled(make_rules, monkeypatch):
    """A game's cache of a derived property holds a false value for a card not worked out
    (`_UNSET`), so a derive whose values are seldom false (a list, a text) is read as
    `cache[id] or DV_name(eng, card)`: a false value (an empty list here) is found in the
    cache by DV_name. One whose values are often false (a number) is read with a test.
    Forgotten when the card variable it reads changes: the same games as the tree walker's."""
    rs = make_rules("""
        var boost per card = 0
        derive tags = if boost > 0 then [suit] else []
        derive score = rank + boost
        var total = 0
        setup { deal 2 to hand }
        turn { phase a {
          draw 1
          choose c in hand(current) by current "Boost" { set c.boost += 1 }
          set total += count(hand(current) where "red" in tags) + sum([c.score for c in hand(current)])
          choose d in hand(current) by current "Discard" { discard d }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=6, players=2)
    assert "or DV_tags(eng, " in cx.source and "or DV_score(" not in cx.source and "DV_score(" in cx.source


def test_each_kind_of_event_has_a_runner_of_its_own_name_compiled():
    """A profile keys a function by its file, line and name: the runners of MGT's kinds of
    event (a custom event's name included) are named apart; kinds of event that differ only
    in their phase, whose triggers and reactions are the same, share one runner, written
    once (`CompiledEngine._runner_of`)."""
    rs = load("mgt")
    play(rs, 4, 0, agents=["random"] * 4, record=False)
    cx = compiled_for(rs, budget=True)
    runners = list(cx.runners.values())
    names = [run.__code__.co_filename for run in runners]
    assert len(runners) > 3 and len(set(names)) == len(names)
    assert any("custom discarded" in n for n in names)
    by_kind = {}
    for key, run in cx.dispatch.items():
        if run is not None:
            by_kind.setdefault(key[:4], set()).add(run)
    assert any(len({k for k in cx.dispatch if k[:4] == kind}) > 1 for kind in by_kind)   # (several phases)
    assert all(len(runs) == 1 for runs in by_kind.values())


def test_a_loop_of_constant_sets_on_its_cards_writes_them_directly_compiled(make_rules, monkeypatch):
    """`for c in CARDS { set c.a = 0  set c.b = none }` (the round's start resetting every
    card) writes the variables card after card and counts the steps at once
    (`Statements.quiet_sets_loop`): the same values, derived properties and steps as the tree
    walker's; and when the budget runs out inside the loop, the loop runs statement by
    statement and stops at the very statement it ran out at, as the tree walker does."""
    rules = """
        var a per card = 0
        var b per card = none
        var marks = []
        derive doubled = a * 2
        turn { phase p {
          draw 1
          for c in hand(current) { set c.a += 1 }
          set marks = marks + ["{[c.doubled for c in all_cards]}"]
          for c in all_cards { set c.a = 0  set c.b = none }
          set marks = marks + ["{[c.doubled for c in all_cards]} {[c.b for c in all_cards]}"]
          if turn_no >= 4 { end game }
        } }
    """
    rs = make_rules(rules)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=3,
                                            read=lambda g: (g.state.globals["marks"], g.result.steps))
    assert any("2" in m for marks, _ in games for m in marks)
    assert compiled_for(rs, budget=True).source.count(" + 2 * len(") == 1   # the loop written so
    # the budget running out inside the loop: at the same statement, after the same steps
    out = []
    for engine in ("tree", "compiled"):
        for budget in range(40, 60):
            monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
            game = Game(rs, 2, 0)
            game.engine.max_steps = budget
            with pytest.raises(CglError) as info:
                d = game.start()
                while d is not None:
                    d = game.answer(0)
            d = info.value.diagnostics[0]
            out.append((engine, budget, d.message, (d.span.line, d.span.column), game.state.steps,
                        [game.state.card_vars[c.id]["a"] for c in game.engine.cards]))
    assert [o[1:] for o in out[:20]] == [o[1:] for o in out[20:]]
    assert {o[3] for o in out if o[3][0] == 15} == {(15, 3), (15, 24), (15, 37)}   # (the `for`, each `set`)


def test_a_pure_functions_players_zone_is_read_once_as_it_starts_compiled(make_rules, monkeypatch):
    """`hand(p)` of a def's player parameter `p` (a pure function's: neither `p` nor the
    list the state keeps for the zone can change while it runs) is read once as the
    function starts (`Expressions.player_zone_at`), as `p`'s variables are (`fast_attr`),
    in a loop or not; `hand(q)` and `q.score` of a comprehension's player, another each
    time round, are read where they are: the same games as the tree walker's."""
    rs = make_rules("""
        var seen = []
        var score per player = 0
        def sizes(p) = [count(hand(q)) * 10 + count(hand(p)) + q.score for q in players]
        def mine(p) = count(hand(p)) + count(all_cards where count(hand(p)) > 1 and it in hand(p)) + p.score
        turn { phase p {
          draw 1
          set seen = seen + ["{sizes(current)} {mine(current)}"]
          set current.score += count(hand(current))
          if turn_no >= 5 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=3, read=_seen_and_steps)
    assert any("[" in s for seen, _ in games for s in seen)
    assert "_hz_hand_v_p = " in cx.source and "_h_v_p_score = " in cx.source   # (its variables too)


def test_a_def_remembered_in_a_branch_is_worked_out_again_after_it_compiled(make_rules, monkeypatch):
    """A def written in place twice in one statement's expression is asked `is _MISSING`
    only where that is not known as it is written (`AsStatements.memo_first`,
    `memo_worked_out`): once worked out in one branch of an `if`, it is still to be worked
    out after the `if` when the other branch ran, and in the other branch; inside a loop
    after it, it is not."""
    rs = make_rules("""
        def low(p) = [c.rank for c in hand(p) if c.rank <= 2]
        var seen = []
        turn { phase p {
          draw 1
          let q = current
          let h = (if count(hand(q)) > 2 then count(low(q)) else 0) + count(low(q))
          let k = count(low(q)) + count([r for r in [1, 2, 3] if r in low(q)])
          let j = if count(hand(q)) > 2 then count(low(q)) else count(low(q)) + 1
          set seen = seen + ["{h} {k} {j}"]
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    assert any(s.split()[0] != "0" for seen, _ in games for s in seen)
    block = cx.source.split("def _B")[-1]
    assert block.count(" is _MISSING:") == 2   # (after `h`'s `if` and in `j`'s `else`, not in `k`'s loop)


def test_a_def_called_again_in_one_expression_is_remembered_by_its_arguments_values_compiled(make_rules, monkeypatch):
    """A deterministic def not written in place (its argument is no plain variable: `has(owner(c),
    "X")` for each card c) is worked out once per value of its arguments within one
    expression (each argument's value taken with its class), inside a loop and as
    statements; a def that rolls dice is not remembered. The games are the tree walker's."""
    rs = make_rules("""
        var seen = []
        def shown(x) = "<{x}>" + (if exists(pile) then "" else "!")
        def above(p, n) = count(hand(p) where rank >= n)
        def roll(p) = [1d6 for c in hand(p)]
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          set seen = seen + ["{[shown(first([v])) for v in [1, 2, 1, 2]]}"]
          set seen = seen + ["{[[above(first([q]), c.rank) for c in hand(current)] for q in players]}"]
          set seen = seen + ["{[roll(first([q])) for q in players + players]}"]
          set seen = seen + ["{sum([above(first([current]), c.rank) for c in hand(current) if c.rank > 1])}"]
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    for seen, _ in games:
        for line in seen[::4]:   # (each value its own: one, two, one, two)
            a, b, c, d = line.strip("[]").split(", ")
            assert a.startswith("<1>") and b.startswith("<2>") and (a, b) == (c, d)
    source = cx.source
    assert "_memo_call1(" in source and "_memo_call2(" in source
    assert not any("_memo_call" in line and "D_roll" in line for line in source.splitlines())


def test_a_def_that_is_a_list_of_constants_is_written_in_place_compiled(make_rules, monkeypatch):
    """A def of no parameters whose body is a list of constants (texts, numbers, truth
    values, none, an enumeration's values) is written in place, a new list each time; one
    whose list reads the game is still called. The games are the tree walker's."""
    rs = make_rules("""
        enum tone { warm, cold }
        var seen = []
        def warmth = ["red", "green"]
        def odd = [1, true, none, "x", cold]
        def sizes = [count(hand(current))]
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          set seen = seen + ["{[c.suit in warmth for c in hand(current)]} {odd} {warm in odd} {sizes} {warmth + warmth}"]
          choose c in hand(current) where suit in warmth or rank > 2 by current "Discard" { discard c }
          if turn_no >= 8 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    assert any("true" in line and "false" in line.split("]")[0] for seen, _ in games for line in seen)
    source = cx.source
    assert "D_warmth(eng)" not in source and "D_odd(eng)" not in source and "D_sizes(eng)" in source
    assert "['red', 'green']" in source


def test_a_list_of_players_or_cards_read_in_a_loop_is_made_once_per_expression_compiled(make_rules, monkeypatch):
    """`players`, `all_players` and `all_cards` read inside a loop of one expression are
    made once, as the expression starts (in place and as statements), and made again by
    the next expression: a player who lost between two is no longer in `players`. The
    games are the tree walker's."""
    rs = make_rules("""
        var seen = []
        def mates(c) = [q for q in players if count(hand(q)) >= c.rank]
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          set seen = seen + ["{[[q in players for q in all_players] for c in hand(current)]}"]
          set seen = seen + ["{[mates(c) for c in hand(current)]} {count(all_cards where it in hand(current) and count(players) > 1)}"]
          if turn_no = 4 { lose first(others(current)) }
          set seen = seen + ["{[count(players) for c in hand(current) if c in all_cards]}"]
          choose c in hand(current) by current "Discard" { discard c }
          if turn_no >= 9 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=3, players=3, read=_seen_and_steps)
    assert any("false" in line for seen, _ in games for line in seen[::3]) and \
        any("3" in line for seen, _ in games for line in seen[2::3])
    assert cx.source.count("= [p for p in eng.players if p.seat not in eng.state.out]") >= 2


def test_a_zone_or_no_list_is_read_as_the_zones_cards_compiled(make_rules, monkeypatch):
    """`if C then [] else ZONE` and `if C then ZONE else []` iterated (by a `where`, a
    comprehension) read the zone's cards at once, top first, without a zone value made and
    listed (`cards_or_none`): the tree walker's values; a value that is not a player fails
    as the walker says, at the same place."""
    rs = make_rules("""
        var seen = []
        def mine(p) = if count(pile) > 2 then [] else hand(p) where rank > 1
        def theirs(p) = (if count(pile) > 2 then hand(p) else []) where rank > 0
        setup { deal 3 to hand }
        turn { phase a {
          draw 1
          let p = current
          let a = [c.name for c in mine(p)]
          let b = [c.rank for c in theirs(p)]
          let n = sum([c.rank for c in (if count(pile) > 4 then [] else hand(p))] + [0])
          set seen = seen + ["{a} {b} {n}"]
          choose c in hand(p) by p "Discard" { discard c }
          if turn_no >= 10 { end game }
        } }
    """)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=4, read=_seen_and_steps)
    assert cx.source.count("([] if ") == 2 and cx.source.count(" else [])") == 1
    lines = [s for g, _ in games for s in g]
    assert any(s.startswith("[] ") for s in lines) and any(s.startswith("[A") or s.startswith("[B") for s in lines)
    assert any(" [] " in s for s in lines) and any(" [1" in s or " [2" in s or " [3" in s for s in lines)
    bad = make_rules("""
        def mine(p) = if count(pile) > 2 then [] else hand(p) where rank > 1
        turn { phase a { say "{[c.name for c in mine(3)]}" } }
    """)
    assert error_of(bad, monkeypatch, "tree") == error_of(bad, monkeypatch, "compiled")
