"""The human table (cli/table.py, cli/human.py): what a person at `cgl run --human` sees.

Rendering is tested in plain mode (what a pipe gets); the whole screen through a
pseudo-terminal (python's `pty`): an MGT game and the hot-seat rock-paper-scissors."""
from __future__ import annotations

import os
import signal
import re
import select
import sys
import time

import pytest
from click.testing import CliRunner

from cgl.cli import table as T
from cgl.interpreter.walker.seatview import group_property
from cgl.cli.human import HumanAgent, Interrupted, QuitGame
from cgl.cli.main import main
from cgl.interpreter.play.game import Game, make_agent, play

from conftest import load_cached

pytestmark = pytest.mark.both_engines


def mgt_at_pile(min_pile=2, players=3, seed=42):
    """An MGT game at P1's first decision with at least `min_pile` cards in the pile (P1 says
    no / discards its first option)."""
    game = Game(load_cached("mgt"), players, seed)
    d = game.start()
    while len(game.state.zones["pile"]) < min_pile or d.player != 0:
        d = game.answer(False if d.kind == "may" else 0)
    return game, d


def lines(markup: list) -> str:
    return "\n".join(T.plain(x) for x in markup)


def test_the_hand_is_grouped_the_pile_compact_and_other_hands_hidden():
    game, _ = mgt_at_pile()
    eng = game.engine
    text = lines(T.render_table(game.view(0)))
    hand = [eng.cards[i] for i in game.state.zones["hand:0"]]
    head = re.search(r"Your hand \((\d+)\):", text)
    assert head and int(head.group(1)) == len(hand) >= 8
    # one line per group (`derive group = key` in mgt.cgl), each card under its group
    body = text.split("Your hand")[1].split("Table:")[0].strip().splitlines()[1:]
    groups = {str(eng.attr_of(c, "key")[1]) for c in hand}
    assert len(body) == len(groups)
    for c in hand:
        line = next(ln for ln in body if eng.show_card(c) in ln)
        assert line.strip().startswith(str(eng.attr_of(c, "key")[1]))
    pile = game.state.zones["pile"]
    top = eng.show_card(eng.cards[pile[-1]])
    assert f"pile: top {top} ({len(pile)} cards; `look pile` for all)" in text
    others = {eng.cards[i].name for key in ("hand:1", "hand:2") for i in game.state.zones[key]} - \
        {c.name for c in hand} - {eng.cards[i].name for i in pile}
    assert others and not any(name in text for name in others)
    # internal counters are not scores: the line shows points only; `view` (full) shows the rest
    assert "Points: P1 (you) 0 · P2 0 · P3 0" in text and "taken" not in text
    assert "taken 0" in lines(T.render_table(game.view(0), full=True))


@pytest.mark.one_engine
def test_grouping_follows_the_ruleset():
    assert group_property(load_cached("mgt")) == "group"         # its display hint
    assert group_property(load_cached("kozyablo")) == "kind"     # its first enum property
    assert group_property(load_cached("examples/rps.cgl")) is None


def test_about_reads_a_visible_card_by_name_in_the_rulesets_words():
    game, _ = mgt_at_pile()
    eng = game.engine
    mean = next(eng.cards[i] for i in range(len(eng.cards))
                if str(eng.attr_of(eng.cards[i], "nature")[1]) == "mean")
    text = lines(T.render_about(eng, mean, 0))
    assert "trigger mean: Mean: when you discard it, you discard one more card" in text
    assert "MGT-N" not in text                                  # the player's text, never the designer's notes
    assert "data: type " in text
    hand_card = eng.cards[game.state.zones["hand:0"][0]]
    found, problem = T.find_card(eng, game.view(0), hand_card.name.upper())
    assert found is hand_card and problem is None
    found, problem = T.find_card(eng, game.view(0), hand_card.name[:-1] + "x")
    assert found is None and f"Did you mean {hand_card.name}" in problem
    found, problem = T.find_card(eng, game.view(0), "no such monster")
    assert found is None and problem == "No card is called `no such monster`."
    # a card out of sight (P2's) is found by name, but only its printed data is shown:
    # its nature (it may have rolled one), counters and the rules it meets would tell too much
    seen = {c.id for c in T.visible_cards(eng, game.view(0))}
    hidden = next(eng.cards[i] for i in game.state.zones["hand:1"] if i not in seen)
    found, _ = T.find_card(eng, game.view(0), hidden.name.lower())
    assert found.name == hidden.name
    text = lines(T.render_about(eng, hidden, 0, seen=False))
    assert "data: type " in text and "nature" not in text and "trigger" not in text and "not in sight" in text
    # the rules' comments are read without touching the game's random source
    state = game.state.rng.getstate()
    T.render_about(eng, mean, 0)
    assert game.state.rng.getstate() == state


def test_each_effect_names_its_cause_alike_in_both_engines():
    game = play(load_cached("mgt"), 3, 5, agents=["random"])
    caused = [e for e in game.state.log if e.get("cause")]
    assert caused and {e["cause"] for e in caused} <= {t.name for t in game.ruleset.triggers} | {"claim"}
    discards = [e for e in game.state.log if e["type"] == "discard"]
    assert any(e.get("cause") in ("mean", "cheerful", "proud") for e in discards)
    assert all("cause" not in e for e in game.state.log if e["type"] == "turn")


def kozyablo_menus():
    """Every menu P1 is shown in a Kozyablo game (seed 4) answered with option 1."""
    out: list = []
    agent = HumanAgent(0, echo=out.append, prompt=lambda text: "1")
    bot = make_agent("random", 1, 4)
    game = Game(load_cached("kozyablo"), 2, 4)
    agent.game = game
    d = game.start()
    while d is not None and len(out) < 4000:
        d = game.answer((agent if d.player == 0 else bot).decide(d))
    return out


def test_identical_options_are_one():
    out = kozyablo_menus()
    assert "   2. Play Pozorny Knight (×2)" in out or "   1. Play Pozorny Knight (×2)" in out
    menu: list = []
    for line in out:         # no menu lists one label twice
        m = re.match(r"\s+\d+\. (.*)", line)
        if m:
            assert m.group(1) not in menu, line
            menu.append(m.group(1))
        else:
            menu = []


def test_cards_in_play_show_where_they_stand_and_their_damage():
    out = "\n".join(kozyablo_menus())
    # each player's side of a sector, the sector as the table names it ("Gold Mine of P2")
    assert re.search(r"squad \w[\w ]* of P\d P\d: ", out)
    assert re.search(r"\[damage \d\]", out)


def agent_with(answers, game=None, save_path=None):
    out, queue = [], list(answers)

    def ask(text):
        out.append(f"? {text}")
        a = queue.pop(0)
        if isinstance(a, BaseException):
            raise a
        return a
    agent = HumanAgent(0, echo=out.append, prompt=ask)
    agent.game, agent.save_path = game, save_path
    return agent, out


@pytest.mark.one_engine
def test_a_deal_is_told_once_per_other_player():
    from cgl.cli.human import condensed
    log = [{"type": "deal", "text": "P1 is dealt Ace", "player": 1, "to": [0]},
           {"type": "deal", "text": "P2 is dealt a card", "player": 2, "to": [0], "hidden": True},
           {"type": "deal", "text": "P1 is dealt King", "player": 1, "to": [0]},
           {"type": "deal", "text": "P2 is dealt a card", "player": 2, "to": [0], "hidden": True},
           {"type": "draw", "text": "P2 draws a card", "player": 2, "to": [0], "hidden": True}]
    assert [e["text"] for e in condensed(log)] == [
        "P1 is dealt Ace", "P1 is dealt King", "P2 is dealt 2 cards", "P2 draws a card"]


def test_quit_and_ctrl_c_ask_first():
    game, d = mgt_at_pile()
    agent, out = agent_with(["quit", "n", "1"], game)
    assert agent.decide(d) in range(len(d.options))
    assert any("Leave the game?" in x for x in out) and "Go on, then." in out
    agent, out = agent_with([Interrupted(), "no", "q", "y"], game)
    with pytest.raises(QuitGame) as e:
        agent.decide(d)
    assert e.value.save_to is None and sum("Leave the game?" in x for x in out) == 2
    agent, out = agent_with(["quit", "save /no/such/folder/g.json", "save g.json"], game)
    with pytest.raises(QuitGame) as e:
        agent.decide(d)
    assert e.value.save_to == "g.json" and "There is no folder `/no/such/folder` to save into." in out


@pytest.mark.one_engine
def test_quitting_offers_to_save_and_the_save_resumes(tmp_path):
    path = tmp_path / "g.json"
    r = CliRunner().invoke(main, ["run", "mgt", "-p", "2", "-s", "3", "--human", "1", "-o", "rounds=1"],
                           input=f"1\nquit\nsave {path}\n")
    assert r.exit_code == 0, r.output[-1500:]
    assert f"Saved to {path}" in r.output and path.exists()
    assert "\x1b[" not in r.output                  # a pipe gets plain text
    again = CliRunner().invoke(main, ["run", "--resume", str(path)], input="1\n" * 400)
    assert again.exit_code == 0 and "Winner" in again.output or "No winner" in again.output


# ---------------------------------------------------------------- through a pseudo-terminal

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CLEAR = "\x1b[2J\x1b[3J\x1b[H"


class Terminal:
    """A `cgl` process on a pseudo-terminal: what it wrote so far, and typing into it."""

    def __init__(self, *args):
        import pty
        env = {**os.environ, "TERM": "xterm", "COLUMNS": "120", "LINES": "40"}
        pid, fd = pty.fork()
        if pid == 0:   # the child: its terminal is the pty
            # Ctrl-C as a shell leaves it to a program it starts: whatever the test process
            # that forked this one had ignored or blocked (a program started with SIGINT
            # ignored keeps it ignored, as it should)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            os.execvpe(sys.executable, [sys.executable, "-m", "cgl.cli.main", *args], env)
        self.pid, self.fd, self.raw = pid, fd, ""

    def until(self, pattern: str, timeout: float = 60.0) -> str:
        """Read until the screen's text (without styles) matches `pattern` after what was
        read before; return the new text."""
        start = len(self.text)
        end = time.monotonic() + timeout
        while not re.search(pattern, self.text[start:]):
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} within {timeout}s; the screen ends:\n{self.text[-1500:]}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the game ended before {pattern!r}:\n{self.text[-1500:]}")
                self.raw += chunk.decode("utf-8", "replace")
        return self.text[start:]

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.replace(CLEAR, "<CLEAR>")).replace("\r\n", "\n")

    def type(self, keys: str):
        os.write(self.fd, keys.encode())

    def close(self):
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.mark.one_engine
def test_a_human_mgt_game_on_a_terminal():
    # (seed 402: a deal with no honest or impatient monster for P2 and P3, then an impatient draw
    # for P1; a Dullahan in sight)
    t = Terminal("run", "mgt", "--human", "1", "--players", "3", "--seed", "402")
    try:
        t.until(r"draw another card\?.*\n(.*\n)*Your choice")
        t.type("2\n")                                   # no second card
        screen = t.until(r"Your choice: a number: $")
        hand = screen.split("Your hand (")[1].split("Table:")[0] if "Table:" in screen else \
            screen.split("Your hand (")[1].split("Points:")[0]
        count = int(hand.split(")")[0])
        assert count >= 8
        rows = hand.splitlines()[1:]
        assert len(rows) > 1 and sum(row.count("(") for row in rows) == count
        t.type("1\n")                                   # discard; the others play
        screen = t.until(r"Your choice")
        # what the others drew is told without naming it; their deals once each (issue 29)
        assert "P2 draws a card" in screen and "P3 draws a card" in screen
        assert "P2 is dealt 8 cards" in t.text and "P2 is dealt a card" not in t.text
        assert re.search(r"pile: top .+ \(\d+ cards; `look pile` for all\)", screen)
        t.type("about dullahan\n")
        about = t.until(r"Your choice")
        assert "Dullahan" in about and "trigger honest" in about and "MGT-N-HONEST" not in about
        t.type("look pile\n")
        assert "pile (" in t.until(r"Your choice")
        t.type("quit\n")
        t.until(r"Leave the game\?.*: $")
        t.type("n\n")
        t.until(r"Go on, then\.\n.*Your choice")
        for attempt in range(3):                        # Ctrl-C asks too
            time.sleep(0.5)      # (not a timing assertion: the prompt is up before the key comes)
            t.type("\x03")
            try:
                t.until(r"Leave the game\?.*: $", timeout=20)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        assert "end of input" not in t.text
        t.type("y\n")
        t.until(r"You left the game\.")
    finally:
        t.close()


@pytest.mark.one_engine
def test_hot_seat_never_shows_one_seats_answer_to_the_other():
    t = Terminal("run", "examples/rps.cgl", "--human", "1", "--human", "2", "--seed", "1")
    try:
        t.until(r"You are P1(.*\n)*.*Your choice: a number: $")
        t.type("3\n")                                   # P1 shows scissors
        t.until(r"Pass the device to P2.*\n.*press Enter: $")
        t.type("\n")
        t.until(r"Your choice: a number: $")
        after = t.text.rsplit("<CLEAR>", 1)[1]         # what P2's screen holds
        assert "You are P2" in after and "You are P1" not in after
        assert "P1 chooses" not in after and ": 3" not in after and "Your choice: a number: 3" not in after
        assert "scissors" not in after.split("Which hand")[0]
    finally:
        t.close()


@pytest.mark.one_engine
def test_a_round_ends_with_a_pause_and_the_winning_hand():
    # seed 8: P2 wins round 1 with all eight cards in hand (a hand with exposed sets shows
    # its hand part; the sets are on the table already)
    r = CliRunner().invoke(main, ["run", "mgt", "-p", "2", "-s", "8", "--human", "1", "-o", "rounds=2"],
                           input="1\n" * 600)
    assert r.exit_code == 0, r.output[-1500:]
    end = r.output.split("Round 1 is over")[1]
    shown = end.split("Shown at the end:\n")[1].split("Your hand")[0]
    assert len(re.findall(r"\(", shown)) == 8           # the winner's eight cards, grouped
    assert "Points: P1 (you) 0 · P2 3" in end.split("Press Enter for round 2")[0]
    assert end.index("Press Enter for round 2") < end.index("== Round 2 begins ==")
    assert r.output.rstrip().endswith("P2: points 19\n  (2 rounds, 171 turns, 273 decisions)".rstrip())


@pytest.mark.one_engine
def test_a_hot_seat_round_end_screen_does_not_swallow_a_seats_private_lines():
    """The round-end screen of a hot-seat game shows public lines only; the seat whose
    agent drew it must still read its own private lines at its next turn."""
    class Engine:
        class state:
            log = [{"type": "say", "text": "everyone sees this"},
                   {"type": "say", "text": "only P1 sees this", "to": [0]}]

    class Log:
        engine = Engine()
    out = []
    agent = HumanAgent(0, echo=out.append, prompt=lambda text: "")
    agent.game, agent.hot_seat = Log, True
    agent.show_entry = lambda e: out.append(e["text"])
    agent.catch_up(public_only=True)
    assert out == ["everyone sees this"]
    agent.catch_up()
    assert "only P1 sees this" in out[1:]


@pytest.mark.one_engine
def test_a_saved_seat_counts_the_lines_it_reads_and_an_older_save_its_place():
    """A person's seat saves how many of its own lines it was shown (`read`, the seat
    view's steps: a place in the whole log would count lines it may not read); an older
    save's `seen`, a place in the whole log, still resumes where it stopped."""
    class Engine:
        class state:
            log = [{"type": "say", "text": "hidden from P1", "to": [1]},
                   {"type": "say", "text": "one"},
                   {"type": "say", "text": "two"}]

    class Log:
        engine = Engine()
    for state, shown in [({"read": 1}, ["two"]), ({"seen": 2}, ["two"]), ({"read": 0}, ["one", "two"])]:
        out = []
        agent = HumanAgent(0, echo=out.append, prompt=lambda text: "")
        agent.restore(state)
        agent.game = Log
        agent.show_entry = lambda e: out.append(e["text"])
        agent.catch_up()
        assert out == shown and agent.state() == {"read": 2}


@pytest.mark.one_engine
def test_about_shows_a_player_the_player_text_and_never_the_designers_notes(make_rules):
    """`##` lines above a rule are what a player reads of it; `#` lines are the designer's."""
    from cgl.interpreter.check.about import doc_comment, player_text
    rs = make_rules("""
        match { rounds 1 }
        round { until turn_no >= 1 }
        turn { phase p { } }
        # CLAUSE-7: decision: the document is silent on ties.
        ## When you discard a blue card, every other player discards one too.
        on discard if suit = "blue" as spikes { }
    """)
    decl = next(t for t in rs.triggers if t.name == "spikes")
    assert player_text(decl.span) == "When you discard a blue card, every other player discards one too."
    assert "CLAUSE-7" in doc_comment(decl.span)          # the designer's editor still shows the notes
    game = Game(rs, 2, 0)
    game.start()
    blue = next(c for c in game.engine.cards if c.name == "B1")
    text = lines(T.render_about(game.engine, blue, 0))
    assert "trigger spikes: When you discard a blue card" in text and "CLAUSE-7" not in text


@pytest.mark.one_engine
@pytest.mark.parametrize("args,shown,internal", [
    (("unicorns", "-p", "3", "-s", "2"), "unicorns 0", ("tries", "played_by", "stopped", "end_now")),
    (("kozyablo", "-s", "3"), "gold ", ("mulligans", "dodged", "redirect", "first_seat", "target")),
])
def test_the_tables_of_unicorns_and_kozyablo_show_progress_and_draws_not_bookkeeping(args, shown, internal):
    """Through a terminal (issue 29): each player's progress or production is on the score
    line, others' hidden draws are told ("P2 draws a card"), and no internal variable shows,
    not even in the whole table (`view`)."""
    t = Terminal("run", *args, "--human", "1", "--agent", "random")
    try:
        seen = ""
        for _ in range(40):
            seen += t.until(r"Your choice[^\n]*: $")
            if "P2 draws a card" in seen:
                break
            t.type("1\n")
        assert "P2 draws a card" in seen
        assert shown in seen
        t.type("view\n")
        whole = t.until(r"Your choice[^\n]*: $")
        for name in internal:
            assert f"{name} " not in whole and f"{name}:" not in whole, name
    finally:
        t.close()
