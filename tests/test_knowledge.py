"""What each seat may know (issue 29), declared once in the language.

First: who sees a zone's cards is said by one attribute. `owner, hidden` used to mean
whichever came last (a hand its owner could not see, with `hidden` last), silently; now
two attributes that say different things of the same are an error (E018), whatever
their order."""
from __future__ import annotations

import pytest

from cgl.interpreter.base.diagnostics import CglError

BODY = """
game "T" {{ players 2..4 }}
zone deck: shared, hidden, as deck
zone {decl}
turn {{ phase a {{ end game }} }}
"""


@pytest.mark.parametrize("attrs,first,second", [
    ("per player, owner, hidden", "owner", "hidden"),
    ("per player, hidden, owner", "hidden", "owner"),
    ("per player, owner, public", "owner", "public"),
    ("shared, public, hidden", "public", "hidden"),
    ("shared, per player", "shared", "per player"),
    ("per player, per card", "per player", "per card"),
    ("ordered, unordered", "ordered", "unordered"),
    ("per player, as hand, as discard", "as hand", "as discard"),
])
def test_contradicting_zone_attributes_are_an_error(make_rules, attrs, first, second):
    with pytest.raises(CglError) as e:
        make_rules(BODY.format(decl="hand: " + attrs), header=False)
    d = e.value.diagnostics[0]
    assert d.code == "E018"
    assert f"`{first}` and `{second}`" in d.message
    line = "zone hand: " + attrs
    assert d.span.line == 4 and line[d.span.column - 1:].startswith(second)   # the caret on the second
    assert d.hint.startswith(f"keep one of `{first}` and `{second}`")
    assert first in d.related[0]


@pytest.mark.parametrize("attrs,visibility", [
    ("per player, owner", "owner"), ("hidden, per player", "hidden"), ("per player", "public"),
    ("per player, owner, owner", "owner"),   # (said twice, it says one thing)
])
def test_one_visibility_is_what_the_zone_has(make_rules, attrs, visibility):
    rs = make_rules(BODY.format(decl="hand: " + attrs), header=False)
    assert rs.zones["hand"].visibility == visibility


# ---------------------------------------------------------------- who reads a variable

VARS = """
var open per player = 1
private var seen per player = 2
internal var tries per player = 3
internal var step = 4
var round_mark = 5
round { until turn_no >= 1 }
turn { phase p { choose c in [1, 2] by current "Pick" { set current.open += c } } }
"""


@pytest.mark.parametrize("decl,words", [
    ("private var x = 0", "`x` is a global variable"),
    ("private var x per card = 0", "`x` is a card variable"),
    ("internal var x per player = 0 as score", "`x` is the score"),
])
def test_a_variables_sight_must_fit_it(make_rules, decl, words):
    with pytest.raises(CglError) as e:
        make_rules(decl + "\n")
    d = e.value.diagnostics[0]
    assert d.code == "E018" and words in d.message and d.hint


@pytest.mark.both_engines
def test_a_seat_is_shown_the_variables_it_may_read(make_rules):
    from cgl.interpreter.play.game import Game
    game = Game(make_rules(VARS), 2, 0)
    d = game.start()
    view = d.view()
    assert view["you"] == "P1"
    me, other = (p["vars"] for p in view["players"])
    assert (me.get("open"), me.get("seen"), "tries" in me) == (1, 2, False)
    assert (other.get("open"), "seen" in other, "tries" in other) == (1, False, False)
    assert view["globals"] == {"round_mark": 5}
    # the rules still read them all
    assert game.state.player_vars[1]["seen"] == 2 and game.state.globals["step"] == 4


@pytest.mark.one_engine
def test_the_table_shows_no_bookkeeping():
    """MGT's card-by-card bookkeeping (a rolled nature told to one player, which meld a
    card lies in) and Unicorns' (a card's Neigh tries, who played it) stayed on the table
    as `[meld_id 1]`, `[stopped yes · tries 1 · played_by P2]`."""
    from cgl.cli import table as T
    from cgl.interpreter.play.game import Game
    from conftest import load_cached
    for name, hidden in (("mgt", ("rolled", "meld_id", "rps_loser")),
                         ("unicorns", ("tries", "played_by", "stopped", "end_now"))):
        rs = load_cached(name)
        game = Game(rs, 3, 1)
        d = game.start()
        for _ in range(40):
            if d is None:
                break
            d = game.answer(False if d.kind == "may" else 0)
        eng = game.engine
        for c in eng.cards:            # set every bookkeeping card variable, as play would
            for v in hidden:
                if v in eng.state.card_vars[c.id]:
                    eng.state.card_vars[c.id][v] = 7
        text = "\n".join(T.plain(x) for seat in (0, None) for x in T.render_table(game.view(seat), full=True))
        shown = [v for v in hidden if f"{v} " in text]
        assert not shown, f"{name}: {shown}"
        assert all(not eng.may_read(v, 0, 0) for v in hidden if v in rs.vars)


# ---------------------------------------------------------------- what one player alone knows

@pytest.mark.both_engines
def test_what_a_priest_shows_one_player_that_player_alone_is_shown_and_uses():
    """examples/priest.cgl (Love Letter's Priest): the card a Priest shows is told to its
    player only, remembered in a `private` variable no other seat is shown, and the
    player's Guard names it (greedy follows the hint, which reads that memory)."""
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.play.game import Game, make_agent
    rs = load("examples/priest.cgl")
    looked = guarded = 0
    for seed in range(60):
        game = Game(rs, 3, seed)
        agents = [make_agent("greedy", s, seed) for s in range(3)]
        d = game.start()
        foe_seat = None
        while d is not None:
            st = game.state
            view = d.view()
            for i, p in enumerate(view["players"]):
                assert ("seen" in p["vars"]) == (i == d.player), "a player's memory is shown to it alone"
            answer = agents[d.player].decide(d)
            if d.prompt == "Guard: whose card do you name?":
                foe_seat = int(d.labels[answer][1:]) - 1
            elif d.kind == "action":
                foe_seat = None
            if d.prompt == "Guard: name a card":
                if foe_seat is None:   # (one other player left: not asked)
                    foe_seat = next(p for p in range(3) if p != d.player and p not in st.out)
                memory = [x for x in st.player_vars[d.player]["seen"] if x[0].seat == foe_seat]
                if memory and memory[0][1] != "Guard":
                    assert d.labels[answer] == memory[0][1]
                    guarded += 1
            d = game.answer(answer)
        for e in game.state.log:
            if e["type"] == "reveal":
                looked += 1
                assert len(e["to"]) == 1, "a Priest's look is for its player alone"
    assert looked >= 5 and guarded >= 1


@pytest.mark.one_engine
def test_the_final_scores_of_cgl_run_show_no_bookkeeping():
    """(Kozyablo's `internal var mulligans per player` was printed at a game's end.)"""
    from click.testing import CliRunner
    from cgl.cli.main import main
    r = CliRunner().invoke(main, ["run", "kozyablo", "-s", "1"])
    assert r.exit_code == 0, r.output
    end = r.output.split("Winner")[1]
    assert "P1: army pozorki" in end and "mulligans" not in end
