"""The static evaluator (`check/statics.py`) means what the engines mean.

On every shipped ruleset and example, whatever it knows without playing, a real tree
walker at the start of a game for the fewest players (the game lint and the language
server reason about) computes the same: every expression of the ruleset, every derived
property of every card, every def called with a card, every pattern's labels, every
`all_cards where`. What it must know (the card data, static derives and defs) it knows;
what reads a game being played it does not.
"""
from __future__ import annotations

import pathlib

import pytest

from cgl.interpreter.base import ast as A
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.check.loader import load
from cgl.interpreter.check.resolver import facts
from cgl.interpreter.check.statics import UNKNOWN, NotStatic, Statics
from cgl.interpreter.parse.build import parse_expr
from cgl.interpreter.walker.compiler import Env
from cgl.interpreter.walker.engine import Engine

from conftest import DECK_YAML

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED = sorted([*(ROOT / "rulesets").glob("*.cgl"), *(ROOT / "examples").glob("*.cgl")])


def _same(a, b) -> bool:
    """Equal, and of the same kinds all the way down (`1` is not `true`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _outcome(fn):
    """("value", v), ("error", message), or ("unknown", None)."""
    try:
        return "value", fn()
    except NotStatic:
        return "unknown", None
    except CglError as e:
        return "error", e.diagnostics[0].message


class _Judge:
    """One ruleset: its evaluators against an engine at the start of a game."""

    def __init__(self, rs):
        self.rs = rs
        self.engine = Engine(rs, max(rs.game.min_players, 1), 0)
        self.strict = Statics(rs)
        self.start = self.strict.at_start()
        self.known = 0

    def agree(self, expr, env: dict, where: str):
        """Each evaluator knows the engine's value (or its error), or does not know: never another."""
        played = _outcome(lambda: self.engine.ev(expr, Env(dict(env))))
        for st in (self.strict, self.start):
            kind, value = _outcome(lambda: st.evaluate(expr, dict(env)))
            if kind == "unknown":
                continue
            self.known += 1
            assert played[0] == kind and (_same(value, played[1]) if kind == "value" else value == played[1]), \
                f"{where} (start={st.start}): the evaluator says {kind} {value!r}, the engine {played}"
        return played


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_what_it_knows_an_engine_agrees_with(path):
    rs = load(str(path))
    judge = _Judge(rs)
    first = judge.start.context.players[0]
    for item in rs.items:
        for e in A.walk(item):
            if isinstance(e, A.Expr):
                judge.agree(e, {}, f"line {e.span.line}")
            if isinstance(e, A.Where) and e.source == A.Name("all_cards"):
                judge.agree(e, {}, f"`all_cards where` at line {e.span.line}")
    kinds = facts(rs).derive_kinds
    for c in rs.cards:
        for name, d in rs.derives.items():
            played = judge.agree(d.expr, {"it": c}, f"derive {name} of {c.name}")
            if kinds[name] == "static" and played[0] == "value":
                assert judge.strict.attr(c, name) is not UNKNOWN, f"static derive {name} of {c.name} not known"
                assert _same(judge.strict.attr(c, name), played[1])
        for name, d in rs.defs.items():
            if d.params:
                args = {p: c for p in d.params}
                played = judge.agree(d.expr, args, f"def {name} of {c.name}")
                if name in facts(rs).static_defs and played[0] == "value":
                    assert judge.strict.value(d.expr, args) is not UNKNOWN, f"static def {name}({c.name}) not known"
        for p in rs.patterns.values():
            judge.agree(p.labels, {**{n: first for n in p.params}, "it": c}, f"labels of {p.name} for {c.name}")
    if rs.cards:
        assert judge.known > 0


#: One of each kind of expression, on the test deck (DECK_YAML) and the table below.
EXPRESSIONS = [
    '1 + 2 * 3 - 7 / 2 + 7 % 3 + -4', '"{count(all_cards)} cards, first {first(all_cards)}" + 1', '[1, true, none, "x"]',
    '[c.rank * 2 for c in all_cards if c.suit != "red"]', 'all_cards sort by rank', 'all_cards sort by best',
    '[g.label for g in all_cards group by suit]', '[g.size for g in all_cards group by rank]',
    '[count(g.cards) for g in all_cards group by suit]', 'all_cards where rank >= 2 and not (suit = "blue")',
    'all_cards where rank < 2 or suit in ["green", "blue"]', '"ee" in "green"', '3 not in [1, 2]', 'none < 1',
    'if count(all_cards) > 5 then "many" else "few"', 'sum([c.rank for c in all_cards])', 'max([3, 1, 2])',
    'min([c.name for c in all_cards])', 'last(all_cards sort by name)', 'unique([c.suit for c in all_cards])',
    'abs(0 - 4)', 'text(all_cards)', 'lookup(points, "red")', 'lookup(points, "gold", 0)', 'lookup(points, "gold")',
    'worth(first(all_cards))', 'size_of("red") + size_of("green")', 'kind(3)', 'kind(9)', 'bonus + level',
    'first(all_cards).best', '[c.id for c in all_cards where best = 2]', 'under(first(all_cards)).name', 'hot',
    'hand(seat(2)).owner', 'hand(seat(1)).name', 'seat(1).seat', 'points', 'colours', 'max([red, blue])',
    '1 / 0', '"a" < 1', 'all_cards sort by suit = "red"', 'first(all_cards).colour', 'sum(["a"])', 'hand(3)',
    'count(3)', 'all_cards + [1]', '[1] + 2', '"a" + 1', 'all_players', 'player_count * level', 'seat(2).gold',
    '[1 = true, [1] = [true], 1 != true, none = false, "a" = "a"]', 'seat(1).name + seat(1).colour',
]


def test_every_kind_of_expression_agrees(make_rules):
    """The engine's every operation, with the evaluator's answer for each: it cannot drift."""
    rs = make_rules("""
        option level: int in 1..3 = 2
        enum colour { red, blue }
        var hot per card = 5
        var gold per player = 4
        def bonus = 10
        def size_of(s) = count(all_cards where suit = s)
        def locals(c, g) = none
        derive best = if rank = 1 then none else rank
        zone under: per card, public
        table worth(c) {
          | c.suit = "red" -> lookup(points, c.suit)
          | c.rank > 1 -> c.rank
        }
        table kind(n) {
          | n < 5 -> "small"
          | else -> "big"
        }
        """, files={"deck.yaml": DECK_YAML + "tables:\n  points: {red: 1, blue: 2}\n"})
    judge = _Judge(rs)
    for text in EXPRESSIONS:
        judge.agree(parse_expr(text), {}, text)
        for c in rs.cards:
            judge.agree(parse_expr(text), {"it": c}, f"{text} (it: {c.name})")
    assert judge.known >= 2 * len(EXPRESSIONS)


def test_what_reads_a_game_is_not_known(make_rules):
    rs = make_rules("""
        var score = 3
        var points per player = 10
        var hot per card = true
        def n_deck = count(deck)
        pattern pair(p) { cards hand(p)  labels [rank]  shape two: 2 }
        """)
    strict = Statics(rs)
    start = strict.at_start()
    env = {"c": rs.cards[0], "p": start.context.players[0]}
    for text in ("count(deck)", "n_deck", "current", "players", "round_no", "2d6", "random(all_cards)", "c.zone",
                 "owner(c)", "zone_of(c)", "top(deck)", "c in deck", "pair(p)", "count(hand(p))"):
        for st in (strict, start):
            assert st.value(parse_expr(text), env) is UNKNOWN, (text, st.start)
    for text in ("score", "p.points", "c.hot", "all_cards where hot", "player_count", "all_players", "seat(1)"):
        assert strict.value(parse_expr(text), env) is UNKNOWN, text
    reds = strict.value(parse_expr('all_cards where suit = "red"'))
    assert [c.name for c in reds] == ["A1", "A2", "A3"]
    # at the start of a game for the fewest players, the variables hold their first values
    assert start.value(parse_expr("player_count")) == 2 and start.value(parse_expr("seat(3)")) == env["p"]
    assert start.value(parse_expr("score + p.points"), env) == 13
    assert start.value(parse_expr('count(all_cards where hot and suit = "red")')) == 3


def test_a_mistake_is_the_engines_error(make_rules):
    rs = make_rules("var score = 0\ndef bad = 1 / 0\ndef worse(c) = c.seat\ndef loop(n) = loop(n)\n")
    st = Statics(rs)
    with pytest.raises(CglError, match="division by zero"):
        st.evaluate(rs.defs["bad"].expr, {})
    assert st.value(rs.defs["bad"].expr) is UNKNOWN
    with pytest.raises(CglError, match="has no property `seat`"):
        st.evaluate(rs.defs["worse"].expr, {"c": rs.cards[0]})
    assert st.value(rs.defs["loop"].expr, {"n": 1}) is UNKNOWN   # (the engines: E011, rules without end)
