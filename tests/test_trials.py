"""`possible`'s own answers to the decisions of the procedure it tries (walker/trial.py): one
option's index for a choice of one (taken as `Game.answer` checks one, `Statements.c_took`),
a list of indices for a choice of several; the first way through, then the others, on both
engines.

The deck of conftest.py lies in id order: its top card is the second C1, then the first C1, B3 …
"""
from __future__ import annotations

import pytest

from conftest import run_script

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

GAME = """
    procedure effect(p) { {body} }
    action play "Play" when possible(effect(actor)) { effect(actor) }
    action rest "Rest" { pass }
    match { rounds 1 }
    round { start { deal {n} to hand } until turn_no >= 1 }
    turn { phase p { act by current } }
"""


def offered(make_rules, body: str, n: int, name: str) -> list:
    rs = make_rules(GAME.replace("{body}", body).replace("{n}", str(n)), name=name)
    _, asked = run_script(rs, [1])   # (rest, when asked)
    return asked[0].labels if asked else ["Rest"]


@pytest.mark.parametrize("n, labels", [(3, ["Play", "Rest"]), (1, ["Rest"])])
def test_a_choice_of_several_is_tried_with_a_list_of_indices(make_rules, n, labels):
    # `choose 2` is answered with the first two options: a list, never taken as one index
    body = 'choose 2 two in hand(p) by p "Discard two" { discard two }'
    assert offered(make_rules, body, n, f"several{n}.cgl") == labels


@pytest.mark.parametrize("bounds", ["1..2", "1..1", ""])
def test_a_choice_of_one_tries_each_option_in_turn(make_rules, bounds):
    # the hand's options (top first): B1, B3, C1; only the green C1 does anything: the third way through
    body = f'choose {bounds} cs in hand(p) by p "Which?" {{ for c in {"cs" if bounds else "[cs]"} where suit = "{{s}}" {{ discard c }} }}'
    assert offered(make_rules, body.replace("{s}", "green"), 3, f"each{len(bounds)}.cgl") == ["Play", "Rest"]
    assert offered(make_rules, body.replace("{s}", "yellow"), 3, f"none{len(bounds)}.cgl") == ["Rest"]   # (no way through)
