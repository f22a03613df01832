"""The game settles after every statement that changes the position, whichever it is
(issue 28, "one choke point for change"), on both engines.

One ruleset changes the position by every kind of statement a state check can see the
effect of: a card's move, draw, deal, discard, swap, shuffle and cut; a global, player and
card variable set; the turn order reversed; a player out; an `emit` whose trigger sets a
variable; and statements nested in an `if` and a `for`. A check remembers the position it
last saw (`seen`) and counts how often it fired. After each statement a `say` reads both:
had the game not settled, `seen` would still be the position before the statement.

(`give turn to` and `give extra turn to` change the turn order too, but no expression
reads what they change until the next turn begins, so no check can tell whether it ran.)
"""
from __future__ import annotations

import re

import pytest

from conftest import run_script, texts

pytestmark = pytest.mark.both_engines

RULES = """
var seen = ""
var fires = 0
var g = 0
var pv per player = 0
var cv per card = 0
def names(z) = text([c.name for c in z])
def now = names(deck) + names(pile) + names(hand(seat(1))) + names(hand(seat(2))) + names(hand(seat(3)))
    + text(g) + text([p.pv for p in players]) + text([c.cv for c in all_cards]) + text(direction)
    + text(count(others(seat(1))))
check track: if seen != now { set seen = now  set fires += 1 }
on ping { set g = 7 }
match { rounds 1 }
round { until turn_no >= 1 }
turn {
  phase p {
    say "start {seen = now} {fires}"
    move top(deck) to pile
    say "move {seen = now} {fires}"
    draw 1
    say "draw {seen = now} {fires}"
    deal 1 to hand
    say "deal {seen = now} {fires}"
    discard first(hand(seat(2)))
    say "discard {seen = now} {fires}"
    swap first(hand(seat(1))) with first(pile)
    say "swap {seen = now} {fires}"
    shuffle deck
    say "shuffle {seen = now} {fires}"
    cut deck
    say "cut {seen = now} {fires}"
    set g = 1
    say "set global {seen = now} {fires}"
    set seat(1).pv = 1
    say "set player {seen = now} {fires}"
    set first(all_cards).cv = 1
    say "set card {seen = now} {fires}"
    reverse turn order
    say "reverse {seen = now} {fires}"
    lose seat(3)
    say "lose {seen = now} {fires}"
    knock out seat(2)
    say "knock out {seen = now} {fires}"
    emit ping()
    say "emit {seen = now} {fires}"
    if true { shuffle deck  say "nested if {seen = now} {fires}" }
    for x in [1] { move top(deck) to pile  say "nested for {seen = now} {fires}" }
  }
}
"""


def test_every_statement_that_changes_the_position_settles_the_game(make_rules):
    rs = make_rules(RULES)
    # seed 0 shuffles the deck into a new order each time (checked: else a shuffle
    # that changed nothing would pass without settling)
    g, _ = run_script(rs, [], players=3, seed=0)
    said = [t for t in texts(g) if re.match(r"^[a-z ]+ (true|false) \d+$", t)]
    kinds = [t.rsplit(" ", 2)[0] for t in said]
    assert kinds == ["start", "move", "draw", "deal", "discard", "swap", "shuffle", "cut", "set global", "set player",
                     "set card", "reverse", "lose", "knock out", "emit", "nested if", "nested for"]
    not_settled = [t for t in said if " false " in t]
    assert not_settled == []
    # and the check fired once after each statement: each changed what it reads
    fires = [int(t.rsplit(" ", 1)[1]) for t in said]
    assert all(b == a + 1 for a, b in zip(fires, fires[1:])), said


#: How docs/language.md names each statement after which the game settles.
SETTLING_WORDS = {"Move": "move", "Swap": "swap", "Draw": "draw", "Deal": "deal", "Discard": "discard",
                  "Shuffle": "shuffle", "Cut": "cut", "Set": "set", "Lose": "lose", "KnockOut": "knock out", "Give": "give turn to",
                  "GiveExtra": "give extra turn to", "ReverseOrder": "reverse turn order", "Emit": "emit"}


@pytest.mark.one_engine
def test_the_reference_lists_every_statement_after_which_the_game_settles():
    """`ast.CHANGES` is the one list both engines settle by; section 3.20 of the reference
    names each of them, and no other."""
    import pathlib

    from cgl.interpreter.base import ast as A

    assert set(SETTLING_WORDS) == {c.__name__ for c in A.CHANGES}
    doc = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    section = doc.split("### 3.20", 1)[1].split("### 3.21", 1)[0]
    paragraph = section.split("The game settles after each statement", 1)[1].split("wherever it stands", 1)[0]
    named = set(re.findall(r"`([a-z ]+)`", paragraph))
    assert named == set(SETTLING_WORDS.values())
