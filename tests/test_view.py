"""The seat view (`Game.view`, `Decision.view`; docs/view.md): its shape is the documented
schema for every shipped ruleset and example, it is plain JSON, the terminal table is drawn
from it alone, and it tells a seat nothing it may not know (the leak oracle: worlds that
differ only in what the seat cannot see give it the same view)."""
from __future__ import annotations

import json
import pathlib
import random

import jsonschema
import pytest

from cgl.cli import table as T
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game, make_agent

from conftest import load_cached

pytestmark = pytest.mark.both_engines

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "view.schema.json").read_text())
GAMES = [("mgt", 3), ("mgt-v0.1", 2), ("unicorns", 3), ("kozyablo", 2), ("monkic", 2)] + \
    [(f"examples/{p.name}", None) for p in sorted((ROOT / "examples").glob("*.cgl"))]


def _decisions(name, players, seed=5, limit=40, forkable=False):
    """(game, decision) at each of the first `limit` decisions of a random game."""
    game = Game(load_cached(name), players, seed, forkable=forkable)
    agents = [make_agent("random", s, seed) for s in range(game.players)]
    d = game.start()
    for _ in range(limit):
        if d is None:
            break
        yield game, d
        d = game.answer(agents[d.player].decide(d))
    yield game, None


@pytest.mark.parametrize("name,players", GAMES, ids=[g[0] for g in GAMES])
def test_every_view_fits_the_schema_and_is_plain_json(name, players):
    """At every decision, the deciding seat's view (with its options) and one other seat's in
    turn (a spectator's among them), each with the log lines new since that seat's view
    before, as a table that keeps up asks for them; at the end every seat's view with the
    whole log. Every line is checked once per seat, not once per decision after it."""
    validator = jsonschema.Draft202012Validator(SCHEMA)
    n = 0
    since = {}

    def fits(game, seat, v):
        errors = sorted(validator.iter_errors(v), key=str)
        assert not errors, f"{name}, seat {seat}: {errors[0].message} at {list(errors[0].absolute_path)}"
        assert json.loads(json.dumps(v)) == v

    for i, (game, d) in enumerate(_decisions(name, players)):
        seats = [None, *range(game.players)]
        other = seats[i % len(seats)]
        for seat in ([d.player] if d is not None else []) + ([other] if d is None or other != d.player else []):
            fits(game, seat, game.view(seat, since=since.get(seat, 0)))
            since[seat] = game.log_steps(seat)
            n += 1
        if d is not None:
            assert d.view()["decision"]["options"] is not None
            assert len(d.view()["decision"]["options"]) == (0 if d.kind == "may" else len(d.options))
    for seat in [None, *range(game.players)]:
        fits(game, seat, game.view(seat, since=0))
    assert n > 0 and since[None] > 0


@pytest.mark.one_engine
def test_the_schema_is_a_valid_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_only_the_deciding_seat_sees_the_options():
    for game, d in _decisions("mgt", 3, limit=10):
        if d is None:
            break
        for seat in range(3):
            dec = game.view(seat)["decision"]
            if d.private and seat != d.player:
                assert dec is None    # an optional trigger's question (MGT's natures)
                continue
            assert dec["player"] == f"P{d.player + 1}"
            assert ("options" in dec) == (seat == d.player)


def test_the_table_is_drawn_from_the_view_alone():
    """The same lines from the view and from its JSON copy: the table reads nothing else."""
    for game, d in _decisions("unicorns", 3, limit=25):
        for seat in (0, None):
            v = game.view(seat)
            copy = json.loads(json.dumps(v))
            assert T.render_table(v, full=True) == T.render_table(copy, full=True)


@pytest.mark.parametrize("name,players", GAMES, ids=[g[0] for g in GAMES])
def test_leak_oracle_worlds_a_seat_cannot_tell_apart_give_it_one_view(name, players):
    """At a decision, deal anew every card the deciding seat cannot see (`determinised`):
    its view, the table it is shown, the log it reads and the greedy bot's scores and
    answer must not change."""
    compared = 0
    for k, (game, d) in enumerate(_decisions(name, players, seed=7, limit=30, forkable=True)):
        if d is None or k % 3:
            continue
        seat = d.player
        world = game.determinised(seat, random.Random(k), record=True)
        mine, theirs = game.view(seat, since=0), world.view(seat, since=0)
        assert mine == theirs, f"{name}: decision {k}: seat P{seat + 1} can tell the worlds apart"
        assert T.render_table(mine, full=True) == T.render_table(theirs, full=True)
        # the greedy bot's hints read only what the seat sees: the same scores, the same answer
        assert d.scores() == world.pending.scores(), f"{name}: decision {k}: a hint reads what P{seat + 1} cannot see"
        assert make_agent("greedy", seat, k).decide(d) == make_agent("greedy", seat, k).decide(world.pending)
        compared += 1
    if not compared and not game.answers:
        pytest.skip(f"{name} asks no decision (its bots have nothing to choose)")
    assert compared > 0


SHOWN = """
match { rounds 1 }
round { start { deal 2 to hand } until turn_no >= 2 }
turn { phase p { choose c in hand(current) { discard c } } }
show pile_size for p: count(pile) "cards on the pile"
show held for p: count(hand(p)) "cards in hand"
"""


def test_a_show_declaration_is_on_every_seats_view(make_rules):
    game = Game(make_rules(SHOWN), 2, 0)
    game.start()
    game.answer(0)
    for seat in (0, 1, None):
        v = game.view(seat)
        assert v["shown"] == [{"name": "pile_size", "label": "cards on the pile"},
                              {"name": "held", "label": "cards in hand"}]
        assert [p["shown"] for p in v["players"]] == [{"pile_size": 1, "held": 1}, {"pile_size": 1, "held": 2}]
    assert "P1 (you) (pile_size 1, held 1)" in T.plain(T.render_players(game.view(0)))


@pytest.mark.one_engine
@pytest.mark.parametrize("text,code", [("show x for p: nobody(p)\n", "E004"),
                                       ("show x for p: p.points\nshow x for q: 1\n", "E005")])
def test_a_show_declaration_is_checked_like_any_expression(make_rules, text, code):
    from cgl.interpreter.base.diagnostics import CglError
    with pytest.raises(CglError) as e:
        make_rules(SHOWN.split("show")[0] + text)
    assert e.value.diagnostics[0].code == code


COPIES = """
var mark per card = 0
setup {
  move first(deck where name = "C1") to hand(seat(1))
  move first(deck where name = "C1") to pile
}
match { rounds 1 }
round { until turn_no >= 1 }
turn { phase p {
  choose c in all_cards where name = "C1" by current "Which C1?" { pass }
  move first(hand(seat(1)) where name = "C1") to pile
  choose c in pile where name = "C1" by current "Which on the pile?" { set c.mark = 2 }
  choose c in pile where name = "C1" by current "Which now?" { pass }
} }
"""


def test_a_choice_among_copies_says_which_copy(make_rules):
    """Copies offered under one label say what sets each apart as the seat sees it: its zone,
    a public variable in which they differ (copies alike in both stay alike); the
    seat view's options, the decision's labels and the log line say it alike (issue 31)."""
    from conftest import run_script, texts
    game, asked = run_script(make_rules(COPIES), [0, 0, 0])
    assert [d.labels for d in asked] == [["C1 (in pile)", "C1 (in hand P1)"],
                                         ["C1", "C1"],
                                         ["C1 (mark: 2)", "C1 (mark: 0)"]]
    assert [o["label"] for o in asked[0].view()["decision"]["options"]] == ["C1 (in pile)", "C1 (in hand P1)"]
    log = texts(game)
    assert "P1 chooses C1 (in pile) (Which C1?)" in log
    assert "P1 chooses C1 (Which on the pile?)" in log   # alike but for their order: one label
    assert "P1 chooses C1 (mark: 2) (Which now?)" in log


def test_the_cards_revealed_read_from_the_log_as_it_grows():
    """A view's `revealed` (the last reveal to everyone in the round) is found reading only
    the log entries since the last view: at every decision and at the end it is the one
    read from the whole log."""
    shown = 0
    for seed in range(3):
        for game, _ in _decisions("examples/rummy-lite.cgl", 3, seed=seed, limit=10_000):
            got = game.view(0)["revealed"]
            game.engine.__dict__.pop("_view_mark")
            assert got == game.view(1)["revealed"] == game.view(0)["revealed"]
            shown += bool(got)
    assert shown >= 3


# P1 draws one card that P2 may not see; what it fires is P1's alone (a `private` variable).
OMENS = """
option top: text = "A1"
zone stash: shared, hidden
private var marks per player = 0
setup { move first(deck where name = top) to stash }
match { rounds 1 }
round { until turn_no >= 2 }
turn { phase p { if current = seat(1) { draw 1 from stash } else { choose c in [1, 2] { pass } } } }
on draw as omen ordered by player { set player.marks += 1 }
on draw if suit = "red" as red_omen ordered by player { set player.marks += 1 }
on draw if suit = "blue" as blue_omen ordered by player { set player.marks += 1 }
on draw if rank = 2 as chance may "Take the chance?" { set player.marks += 1 }
"""


def _p2_sees(make_rules, top, answers):
    """P2's views while the game is played (each one once, as a table shows them as they
    change) with P1's first card `top`, and its whole log at the end."""
    game = Game(make_rules(OMENS, options={"top": top}), 2, 0)
    seen, d = [], game.start()
    while d is not None:
        v = game.view(1, since=0)   # (its `step`s number P2's own lines: tests/test_view_steps.py)
        if not seen or seen[-1] != v:
            seen.append(v)
        d = game.answer(answers.pop(0) if d.kind != "may" else True)
    return seen + [[e["text"] for e in game.view(1, since=0)["log"]]]


def test_a_trigger_question_tells_no_other_seat_what_fired_it(make_rules):
    """P1 orders its own triggers, which fire on a card P2 may not see: A1 (red) fires
    `omen` and `red_omen`, B1 (blue) `omen` and `blue_omen`; A2 and B2 also ask a `may`
    trigger. P2 may not tell the games apart: not by the question while P1 answers, nor by
    the line its answer writes (it named `red_omen` to every seat), nor by the view's
    pending decision (A1 asks no `may`, A2 does)."""
    assert _p2_sees(make_rules, "A1", [1, 0]) == _p2_sees(make_rules, "B1", [1, 0])
    assert _p2_sees(make_rules, "A1", [1, 0]) == _p2_sees(make_rules, "A2", [1, 0])


def _what_seat_reads(game, d, seat, agents, limit):
    """What `seat` reads as the game goes on from decision `d`: each log line it may read
    (with its `step`, its number among the seat's lines), and the view it decides on at each
    of its own decisions; the game played by `agents` (stopped by a rules error: a world
    imagined for one seat may break what another seat's private memory assumes)."""
    out, mark = [], 0
    for _ in range(limit):
        v = game.view(seat, since=mark)
        mark = game.log_steps(seat)
        out += [("line", e) for e in v["log"]]
        if d is None:
            return out + [("end", None)]
        if d.player == seat:
            out.append(("view", {k: x for k, x in v.items() if k != "log"}))
        elif v["decision"] is not None:
            # another seat's question as this seat sees it waiting, of every kind: whom it asks
            # (a reaction window asks only those its `eligible` lets answer, which reads their
            # hands) and what (a choice, a turn's action: one with a single legal answer is not
            # asked, so that it waits can tell what the rules allow its player)
            out.append(("pending", v["decision"]))
        try:
            d = game.answer(agents[d.player].decide(d))
        except CglError as e:
            return out + [("error", str(e))]
    return out


def _a_question(item, seat) -> bool:
    """Whether `item` is another player's question as `seat` reads it: its answer's line,
    or the question waiting."""
    if item[0] == "pending":
        return True
    return item[0] == "line" and item[1]["type"] == "decision" and item[1].get("player") != seat + 1


def _asker(item):
    """The player a question item names (1-based)."""
    return item[1]["player"] if item[0] == "line" else int(item[1]["player"][1:])


@pytest.mark.parametrize("name,players", GAMES, ids=[g[0] for g in GAMES])
def test_leak_oracle_no_question_is_the_first_to_tell_two_worlds_apart(name, players):
    """Questions asked of others, replayed: at the first decision, deal anew what seat S
    cannot see (`determinised`), and play on the game and that world alike. What S reads
    may come to differ (another player's hidden card is played, a public effect of it is
    seen), but never first by another player's question: a question whose line S reads
    where the other world has none (or none there) tells S what it may not know, as the
    order of triggers fired by P1's hidden draw told everyone which card it was."""
    compared = 0
    for seed, seat in [(seed, seat) for seed in range(2) for seat in range(4)]:   # (2 seeds: the suite's 5 minutes)
        game = Game(load_cached(name), players, seed, forkable=True)
        d = game.start()
        if d is None or seat >= game.players:
            continue
        world = game.determinised(seat, random.Random(seed), record=True)
        mine, theirs = ([_what_seat_reads(g, dd, seat, [make_agent("random", s, seed) for s in range(g.players)], 40)
                         for g, dd in ((game, d), (world, world.pending))])
        compared += 1
        x, y = next(((x, y) for x, y in zip(mine, theirs) if x != y), (None, None))
        if x is None:
            continue
        # (two lines of one player's question, answered apart: its answer is its to give)
        same_question = _a_question(x, seat) and _a_question(y, seat) and _asker(x) == _asker(y)
        assert same_question or not (_a_question(x, seat) or _a_question(y, seat)), (
            f"{name}, seed {seed}: P{seat + 1} tells the worlds apart first by a question: {x} / {y}")
    if not compared:
        pytest.skip(f"{name} asks no decision")


# P2 holds one card P1 may not see; a reaction window asks only a responder holding a red one.
WINDOW = """
option held: text = "A1"
setup { move first(deck where name = held) to hand(seat(2)) }
match { rounds 1 }
round { until turn_no >= 2 }
turn { phase p { if current = seat(1) { choose c in [1, 2] "Poke?" { emit poked(player: current) } } } }
reaction answer after poked {
  responders others(player)
  eligible exists(hand(responder) where suit = "red")
  ask "Answer the poke?"
  do {
    choose n in (hand(responder) where suit = "red") + ["keep it"] by responder "Play which?" {
      if n != "keep it" { discard n }
    }
  }
}
"""


def _p1_sees(make_rules, held, answers):
    """P1's views (each once, as a table shows them as they change) while P2 holds `held`,
    and P1's whole log at the end. While P2 answers a window P1 sees nothing pending: that
    the game waits is seen (as at a table, someone is thinking), not who is asked nor why."""
    game = Game(make_rules(WINDOW, options={"held": held}), 2, 0)
    seen, d = [], game.start()
    answers = list(answers)
    while d is not None:
        v = game.view(0, since=0)
        if d.player != 0 and v["decision"] is None:
            d = game.answer(answers.pop(0) if d.kind != "may" else answers.pop(0))
            continue
        if not seen or seen[-1] != v:
            seen.append(v)
        d = game.answer(answers.pop(0) if d.kind != "may" else d.player == 1 and answers.pop(0))
    return seen + [[e["text"] for e in game.view(0, since=0)["log"]]]


def test_a_reaction_window_tells_no_other_seat_who_may_answer(make_rules):
    """A window asks only the players its `eligible` lets answer, and that reads P2's hidden
    hand: P2 holding A1 (red) is asked, holding B1 (blue) is not. P1 may not tell the games
    apart while P2 says no, nor when P2 says yes and then keeps its card; only a reaction
    played (A1 discarded, a public card) may tell."""
    assert _p1_sees(make_rules, "A1", [0, False]) == _p1_sees(make_rules, "B1", [0])
    assert _p1_sees(make_rules, "A1", [0, True, 1]) == _p1_sees(make_rules, "B1", [0])
    assert _p1_sees(make_rules, "A1", [0, True, 0]) != _p1_sees(make_rules, "B1", [0])


def test_a_view_is_a_copy_of_the_log_not_the_log_itself():
    """A view is data its reader may keep and change: editing a view's log entries (a table
    marking lines read, a bot trimming them) leaves the game's log as it was."""
    game = Game(load_cached("mgt"), 3, 1)
    d = game.start()
    for _ in range(5):
        d = game.answer(make_agent("random", d.player, 1).decide(d))
    before = json.dumps(game.state.log, default=str)
    for seat in (0, None):
        for e in game.view(seat, since=0)["log"] + game.view(seat)["log"]:
            e["text"] = "changed"
            for v in e.values():
                if isinstance(v, list):
                    v.append("changed")
    assert json.dumps(game.state.log, default=str) == before


# P1 draws a card P2 may not see; a red one fires `loss`, whose effect (a discard from the
# deck) every seat reads.
CAUSE = """
option top: text = "A1"
zone stash: shared, hidden
setup { move first(deck where name = top) to stash }
match { rounds 1 }
round { until turn_no >= 2 }
turn { phase p { if current = seat(1) { draw 1 from stash } else { choose c in [1, 2] { pass } } } }
on draw if suit = "red" as loss { discard first(deck) }
on draw if suit = "blue" as gain { discard first(deck) }
on discard as noted { say "noted" }
"""


def _lines(make_rules, top, seat):
    game = Game(make_rules(CAUSE, options={"top": top}), 2, 0)
    d = game.start()
    while d is not None:
        d = game.answer(0)
    return game.view(seat, since=0)["log"]


def test_a_public_line_names_its_cause_only_to_the_seats_that_may_know_it_fired(make_rules):
    """`loss` fires on P1's red draw and `gain` on a blue one: the discard each makes is
    public, but "← loss" on it would tell P2 the colour of P1's card. P1 reads the cause; P2
    reads the line without it; a trigger fired by a public card (the discarded one) is named
    to everyone."""
    assert _lines(make_rules, "A1", 1) == _lines(make_rules, "B1", 1)
    assert any(e.get("cause") == "loss" for e in _lines(make_rules, "A1", 0))
    assert any(e.get("cause") == "noted" for e in _lines(make_rules, "A1", 1))


# P2 holds A2 and one more card P1 may not see (`held`); on its turn it answers a question
# whose options its hand decides (`ask`): one legal answer is not asked.
HELD = """
option held: text = "A1"
setup {
  move first(deck where name = "A2") to hand(seat(2))
  move first(deck where name = held) to hand(seat(2))
}
match { rounds 1 }
round { until turn_no >= 2 }
turn { phase p { if current = seat(1) { choose n in [1, 2] "Wait?" { pass } } else { ASK } } }
action play(c in hand(actor) where suit = "blue") "Play a blue card" { pass }
action wait "Wait" prefer 1 { pass }
"""

ASKS = {
    "a card of its hand": 'choose c in hand(current) where suit = "red" "Which red card?" { pass }',
    "a colour its hand holds": 'choose s in [x for x in ["red", "blue"] if exists(hand(current) where suit = x)] "Which colour?" { pass }',
    "a blue card declined": 'may choose c in hand(current) where suit = "blue" "Which blue card?" { pass }',
    "a turn's action": "act by current",
}


def _others_see(make_rules, ask, held, seat=0, answer=lambda d: 0 if d.kind != "may" else False):
    """What `seat` reads while the game is played with P2 holding `held`: its views where it
    decides or another seat's question is shown to it waiting (each once, as a table shows
    them as they change; while a question it may not see waits, nothing is pending for it:
    that the game waits is seen, as at a table, not who is asked nor why), and its whole
    log at the end."""
    game = Game(make_rules(HELD.replace("ASK", ask), options={"held": held}), 2, 0)
    seen, d = [], game.start()
    while d is not None:
        v = game.view(seat, since=0)
        if d.player == seat or v["decision"] is not None:
            v["log"] = [{k: x for k, x in e.items() if k != "step"} for e in v["log"]]
            if not seen or seen[-1] != v:
                seen.append(v)
        d = game.answer(answer(d) if d.kind != "action" else len(d.options) - 1)
    return seen + [[(e["text"], e.get("to")) for e in game.view(seat, since=0)["log"]]]


@pytest.mark.parametrize("ask", list(ASKS), ids=list(ASKS))
def test_a_question_whose_options_the_hand_decides_tells_no_other_seat_it_was_asked(make_rules, ask):
    """Holding A1 (red) or B1 (blue) beside A2 (red), P2 is asked in one game and not in the
    other: two red cards or one, one colour or two, no blue card to decline or one, one
    legal action or two (issue 29). P1 may not tell the games apart: neither by P2's
    question waiting in its view nor by the line of P2's answer (a colour chosen, a choice
    declined); P2 reads its own question."""
    assert _others_see(make_rules, ASKS[ask], "A1") == _others_see(make_rules, ASKS[ask], "B1")
    assert [len(_others_see(make_rules, ASKS[ask], held, seat=1)) for held in ("A1", "B1")] in ([3, 2], [2, 3])


def test_a_question_whose_options_every_seat_may_know_is_shown_waiting(make_rules):
    """Whom P2 may pick is decided by how many cards each holds, which every seat sees: its
    question waits in P1's view, and P1 reads its answer's line, as before."""
    ask = 'choose q in players where count(hand(it)) < 3 "Whom?" { pass }'
    seen = _others_see(make_rules, ask, "A1")
    assert {"player": "P2", "kind": "choose"} in [v["decision"] for v in seen[:-1]]
    assert ("P2 chooses P1 (Whom?)", None) in seen[-1]
