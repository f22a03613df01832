"""The compiled engine's event runners (`codegen/runners.py`): a plain function that goes as
far as it can without pausing (false conditions, bodies that never pause, windows nobody is
eligible for) and a generator started where something may pause. The same games as the
tree walker's."""
from __future__ import annotations

import dis
import io
import sys

import pytest

from cgl.interpreter.check.loader import load
from cgl.interpreter.codegen import compiled_for
from cgl.interpreter.play.game import play

from test_codegen import _same_games_on_both_engines, _seen_and_steps

# Triggers on a discard whose bodies never pause (`plain`, `third`, `last`), between ones
# that do (`asks` is a `may`; `picks` chooses); a later condition reads what an earlier
# plain body set; a window whose eligible responder is often not the first.
RULES = """
    var seen = []
    var n = 0
    on discard as plain { set n += 1  set seen = seen + ["plain {card.name} {n}"] }
    on discard if n % 2 = 0 as asks may "Note it?" { set seen = seen + ["asks {n}"] }
    on discard if n % 3 = 0 as third { set n += 1  set seen = seen + ["third {n}"] }
    on discard if card.rank = 3 as picks {
      choose x in [1, 2] by player "How many?" { set n += x  set seen = seen + ["picks {x}"] }
    }
    on discard as last { set seen = seen + ["last {card.name} {n}"] }
    on draw if card.rank = 2 as twos { set seen = seen + ["two {card.name}"] }
    reaction grab after discard {
      responders others_after(player)
      eligible count(hand(responder) where rank = card.rank) >= 1 and n % 4 != 1
      ask "Take {card.name}?"
      once
      do { move card to hand(responder)  set seen = seen + ["grab {responder} {card.name}"] }
    }
    setup { deal 2 to hand }
    turn { phase a {
      draw 1
      choose c in hand(current) by current "Discard" { discard c }
      if turn_no >= 12 { end game }
    } }
"""


def test_a_runner_goes_as_far_as_it_can_without_pausing_compiled(make_rules, monkeypatch):
    rs = make_rules(RULES)
    cx, games = _same_games_on_both_engines(rs, monkeypatch, seeds=12, players=3, read=_seen_and_steps)
    seen = [s for g in games for s in g[0]]
    for what in ("plain", "asks", "third", "picks", "last", "two", "grab"):
        assert any(s.startswith(what + " ") for s in seen), what
    plain = {tr.name for tr in rs.triggers if cx.triggers[id(tr)].body_plain is not None}
    assert plain == {"plain", "asks", "third", "last", "twos"}   # (`asks` pauses at its `may`: the runner asks)
    assert all(cx.reactions[id(r)].body_plain is None for r in rs.reactions)   # (it moves a card: it may pause)


def test_a_runner_makes_no_generator_when_nothing_pauses_compiled(make_rules, monkeypatch):
    """A discard whose triggers' conditions are false but the plain ones', and whose window
    nobody is eligible for, runs whole in the plain function, which returns None; else it
    returns the generator that runs the rest."""
    rs = make_rules(RULES)
    _same_games_on_both_engines(rs, monkeypatch, seeds=1, players=3)   # (the runners are made as games need them)
    dispatch = compiled_for(rs, budget=True).dispatch
    returned = []

    def spied(run):
        def spy(eng, ev):
            rest = run(eng, ev)
            returned.append(rest)
            return rest
        return spy
    kept = dict(dispatch)
    dispatch.update({k: spied(run) for k, run in kept.items() if run is not None})
    try:
        _same_games_on_both_engines(rs, monkeypatch, seeds=4, players=3)
    finally:
        dispatch.update(kept)
    assert None in returned and any(r is not None for r in returned)


def _specialised_globals(fn) -> bool:
    """Whether CPython specialised a `LOAD_GLOBAL` of `fn` (its adaptive interpreter, 3.11 on)."""
    out = io.StringIO()
    dis.dis(fn, adaptive=True, file=out)
    return any(op in out.getvalue() for op in ("LOAD_GLOBAL_MODULE", "LOAD_GLOBAL_BUILTIN"))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the adaptive interpreter came in 3.11")
def test_the_generated_modules_globals_stay_specialised_compiled():
    """A key that is a subclass of `str` (a `writer.Var`) written into the generated module's
    namespace turns CPython's dict into a general one, and then no `LOAD_GLOBAL` of the
    module's functions or of its runners is ever specialised: 14 % more instructions a round
    of MGT, the games the same. After a few games, its hot functions read globals specialised."""
    rs = load("mgt")
    for seed in range(3):
        play(rs, 4, seed, agents=["random"] * 4, record=False)
    cx = compiled_for(rs, budget=True)
    assert _specialised_globals(cx.ns["P_after_discard__player"])
    runners = [run for run in cx.dispatch.values() if run is not None]
    assert any(_specialised_globals(run) for run in runners)   # (the hot ones: a rare one may not be yet)
