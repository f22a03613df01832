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


# ---------------------------------------------------------------- honest hints

HINTS = """
game "Hints" {{ players 2 }}
cards from "hints.yaml" {{
  name: text
  rank: int
}}
derive rank2 = rank * 2
def twice(c) = c.rank * 2
table worth(c) {{ | c.rank > 2 -> 3 | else -> 1 }}
var mark per card = 0
zone deck: shared, hidden, as deck
zone hand: per player, owner, as hand
zone pile: shared, public, as discard
private var seen per player = 0
internal var step = 0
setup {{ shuffle deck  deal 1 from deck to hand }}
turn {{
  phase a {{
    {before}
    choose o in [1, 2] by seat(1) "Pick" prefer {hint} {{ pass }}
    end game
  }}
}}
derive tags = [name] + (if rank > 1 then ["high"] else [])
def fit(p, c) = max([count(hand(p) + pile where l in tags and rank > 1) for l in c.tags] + [0])
"""

HINT_CARDS = {"hints.yaml": "cards:\n- {name: Princess, rank: 8}\n- {name: Guard, rank: 1}\n"
                            "- {name: Priest, rank: 2}\n- {name: Baron, rank: 3}\n"}


def _hint_rules(make_rules, hint, before=""):
    return make_rules(HINTS.format(hint=hint, before=before), header=False, files=HINT_CARDS)


def _first_scores(rs, seed=0):
    from cgl.interpreter.play.game import Game
    game = Game(rs, 2, seed)
    d = game.start()
    assert d.prompt == "Pick" and d.player == 0
    return game, d.scores()


@pytest.mark.both_engines
def test_a_hint_reading_another_players_hidden_hand_is_refused(make_rules):
    """The issue's reproducer: P1's hint read P2's hidden card, so greedy's scores were
    [1, 2] when P2 held the Princess and [-1, -2] otherwise, while P1's view showed only
    `hand P2: 1`. Now the hint stops with E019, located at the hint, on every deal."""
    rs = _hint_rules(make_rules, '(if first(hand(seat(2))).name = "Princess" then o else -o)')
    for seed in range(6):
        with pytest.raises(CglError) as e:
            _first_scores(rs, seed)
        d = e.value.diagnostics[0]
        assert d.code == "E019" and d.span.line == 20 and d.span.column == 50   # the hint
        assert "reads the `name` of a card in hand(P2), which P1 cannot see" in d.message
        assert "its own zones" in d.hint


@pytest.mark.both_engines
@pytest.mark.parametrize("hint,refused", [
    ("count(hand(seat(2))) * o", None),                          # how many: public
    ("first(hand(seat(1))).rank * o", None),                     # its own hand
    ("(if first(pile) = none then o else first(pile).rank)", None),   # a public zone
    ("seat(1).seen + o", None),                                  # its own private memory
    ("seat(2).seen + o", "P2's `seen`, which is private"),
    ("step + o", "`step`, which is internal"),
    ("first(deck).rank * o", "a card in deck"),
    ('text(first(hand(seat(2)))) = "Guard"', "a card in hand(P2)"),
    ('"{first(hand(seat(2)))}" = "Guard"', "a card in hand(P2)"),
    ("count(hand(seat(2)) where rank > 2)", "the `rank` of a card in hand(P2)"),
    ("o + first(hand(seat(2))).rank2", "the `rank2` of a card in hand(P2)"),   # a derived property
    ("o + first(hand(seat(1))).rank2", None),
    ('(if first(hand(seat(2))).zone = "hand" then o else 0)', None),   # where a card lies: public
    # the generated hint's own paths (a def written apart, a table, a sort, a group, a
    # count over a zone, a card variable): each read watched as the tree walker's
    ("o * sum([twice(c) for c in hand(seat(2))] + [0])", "the `rank` of a card in hand(P2)"),
    ("o * sum([twice(c) for c in hand(seat(1))] + [0])", None),
    ("o * worth(first(hand(seat(2))))", "the `rank` of a card in hand(P2)"),
    ("o * worth(first(hand(seat(1))))", None),
    ("o * count(hand(seat(2)) sort by rank)", "the `rank` of a card in hand(P2)"),
    ("o * count(hand(seat(2)) group by rank)", "the `rank` of a card in hand(P2)"),
    ("o * count(hand(seat(2)) where rank2 > 2)", "the `rank2` of a card in hand(P2)"),
    ("o * count(hand(seat(2)) where mark = 0)", "the `mark` of a card in hand(P2)"),
    ("o * count(hand(seat(1)) where mark = 0)", None),
    # a count by label inside a loop over labels, looked up (`held.label_count`): the same reads
    ("o * fit(seat(2), first(hand(seat(1))))", "the `tags` of a card in hand(P2)"),
    ("o * fit(seat(1), first(hand(seat(1))))", None),
])
def test_a_hint_reads_only_what_its_seat_sees(make_rules, hint, refused):
    rs = _hint_rules(make_rules, hint)
    if refused is None:
        _, scores = _first_scores(rs)
        assert len(scores) == 2
    else:
        with pytest.raises(CglError) as e:
            _first_scores(rs)
        assert e.value.diagnostics[0].code == "E019" and refused in e.value.diagnostics[0].message


@pytest.mark.both_engines
def test_a_value_the_rules_worked_out_is_no_way_round_the_watch(make_rules):
    """A def that depends only on its card's data is remembered once the rules have worked
    it out for that card; a hint calling it on a card its seat cannot see is refused all
    the same (it once read the remembered value unwatched: a leak)."""
    rs = _hint_rules(make_rules, "o * twice(first(hand(seat(2))))",
                     "set seat(2).seen = twice(first(hand(seat(2))))")
    from cgl.interpreter.check.resolver import facts
    assert "twice" in facts(rs).static_defs   # (remembered by argument, on both engines)
    with pytest.raises(CglError) as e:
        _first_scores(rs)
    assert e.value.diagnostics[0].code == "E019" and "the `rank` of a card in hand(P2)" in e.value.diagnostics[0].message


@pytest.mark.both_engines
def test_a_hint_reads_a_card_shown_to_its_seat_until_the_card_moves(make_rules):
    """`reveal … to` shows a card: the seat's hint may read it while it stays where it was
    shown (a Priest's look); shown to another seat, or moved since, it is hidden again."""
    hint = "first(hand(seat(2))).rank * o"
    _, scores = _first_scores(_hint_rules(make_rules, hint, "reveal hand(seat(2)) to seat(1)"))
    assert scores[1] == 2 * scores[0] != 0
    _, scores = _first_scores(_hint_rules(make_rules, hint, "reveal hand(seat(2))"))
    assert scores[1] == 2 * scores[0] != 0
    for before in ("reveal hand(seat(2)) to seat(2)",
                   "reveal hand(seat(2)) to seat(1)\n    move first(hand(seat(2))) to deck\n"
                   "    move first(deck) to hand(seat(2))"):
        with pytest.raises(CglError) as e:
            _first_scores(_hint_rules(make_rules, hint, before))
        assert e.value.diagnostics[0].code == "E019"


@pytest.mark.both_engines
def test_an_actions_hint_is_watched_too(make_rules):
    rs = make_rules("""
        game "A" { players 2 }
        cards from "hints.yaml" { name: text
          rank: int }
        zone deck: shared, hidden, as deck
        zone hand: per player, owner, as hand
        setup { deal 1 from deck to hand }
        action low "Low" prefer first(hand(next_after(actor))).rank { pass }
        action high "High" prefer 1 { pass }
        turn { phase a { act by current  end game } }
    """, header=False, files=HINT_CARDS)
    from cgl.interpreter.play.game import Game
    d = Game(rs, 2, 0).start()
    assert d.kind == "action"
    with pytest.raises(CglError) as e:
        d.scores()
    assert e.value.diagnostics[0].code == "E019" and e.value.diagnostics[0].span.line == 8


# ---------------------------------------------------------------- copies a player cannot tell apart

TWINS = """
game "Twins" { players 2 }
cards from "twins.yaml" { name: text
  rank: int }
zone deck: shared, hidden, as deck
zone hand: per player, owner, as hand
zone pile: shared, public, as discard
setup {
  move first(deck where name = "Guard") to hand(seat(1))
  move first(deck where name = "Prince") to hand(seat(2))
  reveal hand(seat(2)) to seat(1)
  move first(deck where name = "Prince") to hand(seat(2))
  discard first(hand(seat(2)))   # the Prince drawn last, which P1 did not see
}
turn { phase a { choose o in [1, 2] by seat(1) "Pick" { pass }  end game } }
"""


@pytest.mark.both_engines
def test_a_seat_cannot_tell_which_of_two_copies_moved(make_rules):
    """The issue's reproducer: P1 saw P2's Prince; P2 drew the other Prince, unseen, and
    played "a Prince". P1 cannot tell which, so its imagined worlds must not keep the
    Prince it saw in P2's hand every time (all 200 did: knowledge followed card ids)."""
    import random
    from cgl.interpreter.play.game import Game
    rs = make_rules(TWINS, header=False, files={"twins.yaml": "cards:\n- {name: Prince, rank: 5}\n"
                                                "- {name: Prince, rank: 5}\n- {name: Guard, rank: 1}\n"
                                                + "".join(f"- {{name: Baron{i}, rank: 3}}\n" for i in range(4))})
    game = Game(rs, 2, 0, forkable=True)
    d = game.start()
    st = game.state
    assert [game.engine.cards[i].name for i in st.zones["pile"]] == ["Prince"]
    assert [game.engine.cards[i].name for i in st.zones["hand:1"]] == ["Prince"]
    rng = random.Random(1)
    held = {game.engine.cards[d.sample(rng).state.zones["hand:1"][0]].name for _ in range(200)}
    assert "Prince" in held and len(held) > 1


# ---------------------------------------------------------------- blind picks

BLIND = """
match { rounds 1 }
round { start { deal 3 to hand } until turn_no >= 1 }
turn { phase p {
  choose c in hand(next_after(current)) "Take a card" { move c to hand(current) }
} }
"""


@pytest.mark.both_engines
def test_a_pick_among_cards_the_chooser_cannot_see_is_blind(make_rules):
    """Issue 29: `choose c in hand(other)` listed the other player's hidden cards by name.
    Now the options read by their place, the view shows no card, the log line names none,
    and the card taken is named once it is in the chooser's hand."""
    from cgl.interpreter.play.game import Game
    game = Game(make_rules(BLIND), 2, 3)
    d = game.start()
    theirs = [game.engine.cards[i].name for i in game.state.zones["hand:1"]]
    assert d.labels == ["a card from hand P2, 1 of 3", "a card from hand P2, 2 of 3", "a card from hand P2, 3 of 3"]
    opts = game.view(0)["decision"]["options"]
    assert all("card" not in o and o["where"] == "hand P2" for o in opts)
    taken = d.options[1].name
    game.answer(1)
    p1_lines = [e["text"] for e in game.state.log if "to" not in e or 0 in e["to"]]
    pick = next(t for t in p1_lines if "chooses" in t)
    assert pick == "P1 chooses a card from hand P2, 2 of 3 (Take a card)"
    assert not any(name in pick for name in theirs)
    assert any(taken in t and "hand(P1)" in t for t in p1_lines)   # named once it is P1's


@pytest.mark.both_engines
def test_a_card_shown_to_the_chooser_is_not_a_blind_pick(make_rules):
    from cgl.interpreter.play.game import Game
    rs = make_rules(BLIND.replace('  choose c', '  reveal hand(next_after(current)) to current\n  choose c'))
    game = Game(rs, 2, 3)
    d = game.start()
    names = [game.engine.cards[i].name for i in game.state.zones["hand:1"]]
    assert sorted(d.labels) == sorted(names)


@pytest.mark.both_engines
def test_a_card_shown_and_then_shuffled_away_is_a_blind_pick_again(make_rules):
    """A shuffle (or a cut) of a zone its chooser cannot look into loses the places of the
    cards it was shown there: which option is the shown card it can no longer tell."""
    from cgl.interpreter.play.game import Game
    rs = make_rules(BLIND.replace('  choose c', '  reveal hand(next_after(current)) to current\n'
                                              '  shuffle hand(next_after(current))\n  choose c'))
    game = Game(rs, 2, 3)
    d = game.start()
    assert d.labels == ["a card from hand P2, 1 of 3", "a card from hand P2, 2 of 3", "a card from hand P2, 3 of 3"]


def test_the_compiled_engine_runs_generated_hints(monkeypatch):
    """On the compiled engine a `prefer` (of a `choose` and of an action) is generated code,
    its reads watched where it reads (codegen `hint_mode`), not the tree walker's closures:
    greedy games of shipped rulesets with hints never ask the tree walker for one."""
    from conftest import load_cached
    from cgl.interpreter.play.game import Game, make_agent
    from cgl.interpreter.walker.hints import Hints

    def walker_hint(*args):
        raise AssertionError("a hint evaluated by the tree walker on the compiled engine")
    monkeypatch.setattr(Hints, "hint_ev", walker_hint)
    for name, n in (("rulesets/mgt.cgl", 4), ("rulesets/unicorns.cgl", 4), ("examples/actions.cgl", 2)):
        game = Game(load_cached(name), n, 3, engine="compiled")
        agents = [make_agent("greedy", seat, 3) for seat in range(n)]
        hinted, d = 0, game.start()
        while d is not None and hinted < 200:
            hinted += d.scores is not None
            d = game.answer(agents[d.player].decide(d))
        assert hinted > 0, name
