"""The registry of built-ins (interpreter/runtime/builtins.py) is the one place a built-in is
written: the docs' tables come from it, and every other module reads it."""
from __future__ import annotations

import pathlib
import re

import pytest

from cgl.interpreter.runtime import builtins as B
from cgl.interpreter.check.names import BUILTIN_FUNCTIONS, BUILTIN_VALUES

from conftest import run_script

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_reference_tables_are_the_registry():
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert B.markdown_functions() in doc, "regenerate §6.1 with `python -m cgl.interpreter.runtime.builtins`"
    assert B.markdown_values() in doc, "regenerate §6.2 with `python -m cgl.interpreter.runtime.builtins`"


def test_the_name_checker_reads_the_registry():
    assert BUILTIN_FUNCTIONS is B.FUNCTIONS and BUILTIN_VALUES is B.VALUES


def test_no_other_module_lists_the_built_in_names():
    """A built-in name written as a string outside the registry is a second copy of its meaning."""
    # (the names that are not also ordinary words of the code: `players`, `random`, `bottom` …)
    names = [n for n in (*B.FUNCTIONS, *B.VALUES) if "_" in n or n in ("unique", "exists", "abs")]
    found = []
    for path in sorted((ROOT / "interpreter").rglob("*.py")) + sorted((ROOT / "cli").glob("*.py")):
        if path.name == "builtins.py":
            continue
        text = path.read_text(encoding="utf-8")
        for n in names:
            for m in re.finditer(rf"[\"']{n}[\"']", text):
                found.append(f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}: {n}")
    allowed = {"lint.py: all_cards"}    # W105 recognises `all_cards where …` as a filter of the deck
    assert [f for f in found if re.sub(r":\d+:", ":", f) not in allowed] == []


@pytest.mark.parametrize("engine", ["compiled", "tree"])
def test_every_built_in_runs_on_both_engines(make_rules, monkeypatch, engine):
    """Each function and value of the registry, called from a rule, on each engine (`deck_of`
    needs a `deck` block: tests/test_kozyablo.py plays it)."""
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand }  until turn_no >= 1 }
        turn { phase p {
          let c = first(hand(current))
          say "count {count(hand(current))} sum {sum([1, 2])} max {max([1, 5])} min {min([4, 2])}"
          say "first {first([7, 8])} last {last([7, 8])} top {count(top(deck, 2))} bottom {count(bottom(deck))}"
          say "random {random([9])} others {count(others(current))} after {count(others_after(current))}"
          say "next {next_after(current)} seat {seat(3)} abs {abs(-4)} unique {unique([1, 1, 2])}"
          say "owner {owner(c)} zone {zone_of(c)} exists {exists(deck)} text {text(12)}"
          say "flatten {count(flatten([hand(current), [c], deck]))} host {host(c)}"
          say "players {count(players)} all {count(all_players)} current {current} cards {count(all_cards)}"
          say "n {player_count} round {round_no} turn {turn_no} phase {phase}"
        } }
    """)
    game, _ = run_script(rs, [])
    said = " | ".join(e["text"] for e in game.state.log if e.get("type") == "say")
    for piece in ("count 2", "sum 3", "max 5", "min 2", "first 7", "last 8", "top 2", "bottom 1", "random 9",
                  "others 1", "after 1", "next P2", "seat P1", "abs 4", "unique [1, 2]", "owner P1",
                  "zone hand", "exists true", "flatten 7", "host none", "text 12", "players 2", "all 2", "current P1", "cards 8",
                  "n 2", "round 1", "turn 1", "phase p"):
        assert piece in said, (piece, said)


@pytest.mark.parametrize("engine", ["compiled", "tree"])
def test_top_of_a_zone_takes_its_top_cards_topmost_first(make_rules, monkeypatch, engine):
    """`top(ZONE, n)` reads only the zone's top n cards (not a list of the whole zone):
    topmost first, all of them when n is larger, none for 0, and a negative n as before
    (all but the bottom cards)."""
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 2 to hand }  until turn_no >= 1 }
        turn { phase p {
          say "deck {[c.id for c in deck]}"
          say "one {[c.id for c in top(deck)]}"
          say "three {[c.id for c in top(deck, 3)]}"
          say "all {[c.id for c in top(deck, 100)]}"
          say "none {[c.id for c in top(deck, 0)]}"
          say "minus {[c.id for c in top(deck, -1)]}"
        } }
    """)
    game, _ = run_script(rs, [])
    said = dict(e["text"].split(" ", 1) for e in game.state.log if e.get("type") == "say")
    deck = said["deck"].strip("[]").split(", ")
    assert len(deck) > 3
    shown = lambda ids: "[" + ", ".join(ids) + "]"
    assert (said["one"], said["three"], said["all"], said["none"], said["minus"]) == (
        shown(deck[:1]), shown(deck[:3]), shown(deck), "[]", shown(deck[:-1]))
