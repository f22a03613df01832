"""A seat view's `step`s (docs/view.md, version 2): a seat's log lines are numbered among
the lines it may read, 0, 1, 2 … with no gaps, and `since` counts in the same numbers. A
step that counted the whole log would tell the seat, by its gaps, how many lines it may not
read were written, and when."""
from __future__ import annotations

import pytest

from cgl.interpreter.play.game import Game, make_agent

pytestmark = pytest.mark.both_engines

# P2 draws a card P1 may not see; a red one writes a line that P2 alone reads.
OMEN = """
option top: text = "A1"
zone stash: shared, hidden
setup { move first(deck where name = top) to stash }
match { rounds 1 }
round { until turn_no >= 3 }
turn { phase p { if current = seat(2) { draw 1 from stash } choose c in [1, 2] "Which?" { pass } } }
on draw if suit = "red" as omen { say "A red omen." to player }
"""


def _views(rs, seat):
    """`seat`'s views at every decision (its whole log each time) and at the end."""
    game = Game(rs, 2, 0)
    d, out = game.start(), []
    while d is not None:
        out.append(game.view(seat, since=0))
        d = game.answer(0)
    return out + [game.view(seat, since=0)]


def test_worlds_that_differ_in_a_hidden_draw_give_a_seat_the_same_steps(make_rules):
    """P2 draws A1 (red: a line to P2 alone) or B1 (blue: none). P1 reads the same lines,
    numbered alike, in both games; P2 reads one more, and its steps have no gap."""
    red, blue = (make_rules(OMEN, options={"top": top}) for top in ("A1", "B1"))
    assert _views(red, 0) == _views(blue, 0)
    for rs in (red, blue):
        for v in _views(rs, 1) + _views(rs, 0):
            assert [e["step"] for e in v["log"]] == list(range(len(v["log"])))
    assert any(e["text"] == "A red omen." for e in _views(red, 1)[-1]["log"])


def test_since_counts_the_seats_own_lines(make_rules):
    """`since=N` gives the seat's lines from its step N on; `log_steps` is the step its next
    line will have; a decision's view holds the lines since the seat's previous decision;
    the designer's steps are places in the whole log."""
    game = Game(make_rules(OMEN), 2, 0)
    d = game.start()
    last = {0: 0, 1: 0}
    while d is not None:
        seat = d.player
        every = game.view(seat, since=0)["log"]
        n = game.log_steps(seat)
        assert len(every) == n and game.view(seat, since=n)["log"] == []
        assert game.view(seat, since=n - 2)["log"] == every[-2:]
        assert game.view(seat)["log"] == every[-12:]
        assert d.view()["log"] == every[last[seat]:]
        last[seat] = n
        d = game.answer(1)
    whole = game.view(None, since=0, everything=True)["log"]
    assert [e["step"] for e in whole] == list(range(len(game.state.log))) == [e["step"] for e in game.state.log]
    assert game.log_steps(None, everything=True) == len(game.state.log) > game.log_steps(0)


def test_a_view_numbers_its_lines_as_a_whole_view_does(make_rules):
    """The last few lines (`since` None) carry the steps they have in the seat's whole log."""
    game = Game(make_rules(OMEN, options={"top": "A2"}), 2, 0)
    agents = [make_agent("random", s, 0) for s in range(2)]
    d = game.start()
    while d is not None:
        d = game.answer(agents[d.player].decide(d))
    for seat in (0, 1, None):
        assert game.view(seat)["log"] == game.view(seat, since=0)["log"][-12:]
