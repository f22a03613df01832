"""Game logs: `cgl run … --log FILE` writes what makes a log checkable, `cgl replay FILE` says
where a broken, edited or foreign log goes wrong (exit 2: not a log; exit 1: a log the game
does not reproduce), a log line never names a card its readers may not see, and a game with
a person at the table does not print the seed that would show the deal."""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.play.game import Game, make_agent
from cgl.interpreter.check.loader import packaged_rulesets
from cgl.interpreter.walker.seatview import readable

from conftest import load_cached

pytestmark = pytest.mark.both_engines


def cli(*args, input=None):
    r = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output[-2000:]
    return r


@pytest.fixture(scope="module")
def good_log(tmp_path_factory):
    """A log of a short MGT game: its path and its lines (JSON values)."""
    path = tmp_path_factory.mktemp("logs") / "g.jsonl"
    r = cli("run", "mgt", "-p", "2", "-s", "5", "-o", "rounds=1", "-q", "--log", path)
    assert r.exit_code == 0, r.output
    return path, [json.loads(x) for x in path.read_text().splitlines()]


def _write(tmp_path, lines, name="edited.jsonl") -> str:
    p = tmp_path / name
    p.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return str(p)


@pytest.mark.one_engine
def test_a_log_carries_what_makes_it_checkable_and_replays(good_log):
    path, lines = good_log
    h = lines[0]
    assert h["format"] == "cgl-log" and h["version"] == 1 and h["seed"] == 5 and h["players"] == 2
    assert h["options"] == {"rounds": "1"} and h["agents"] == ["greedy", "greedy"] and h["humans"] == []
    assert len(h["ruleset_sha256"]) == 64 and set(h["files"]) == {"mgt.cgl", "mgt-cards.yaml"}
    assert lines[-1]["type"] == "answers" and lines[-1]["answers"]
    r = cli("replay", path)
    assert r.exit_code == 0 and r.output.startswith("Reproduced:"), r.output


def _edit(i, change):
    """Change line `i` of a log (its JSON value) with `change(value)`."""
    def edit(lines):
        value = json.loads(lines[i])
        change(value)
        lines[i] = json.dumps(value)
        return lines
    return edit


def _header(change):
    return _edit(0, change)


def _answers(change):
    return _edit(-1, change)


def _line(i, text):
    """Put `text` in place of line `i`."""
    def edit(lines):
        lines[i] = text
        return lines
    return edit


def _huge_seed(lines):
    h = json.loads(lines[0])
    lines[0] = lines[0].replace(f'"seed": {h["seed"]}', '"seed": ' + "1" * 5000)
    return lines


# the broken logs of issue 17: (how the good log is broken, exit code, what the message says)
BROKEN = {
    "answers not a list": (_answers(lambda a: a.__setitem__("answers", 5)), 2, "`answers` must be a list"),
    "answers hold a text": (_answers(lambda a: a["answers"].__setitem__(0, "x")), 2, "answer 1 is \"x\""),
    "players a text": (_header(lambda h: h.__setitem__("players", "2")), 2, "`players` must be a whole number"),
    "players null": (_header(lambda h: h.__setitem__("players", None)), 2, "`players` must be a whole number"),
    "ruleset missing": (_header(lambda h: h.pop("ruleset")), 2, "the header has no `ruleset`"),
    "ruleset a number": (_header(lambda h: h.__setitem__("ruleset", 7)), 2, "`ruleset` must be a text"),
    "seed missing": (_header(lambda h: h.pop("seed")), 2, "the header has no `seed`"),
    "seed a bool": (_header(lambda h: h.__setitem__("seed", True)), 2, "`seed` must be a whole number"),
    "a field no log has": (_header(lambda h: h.__setitem__("cheat", 1)), 2, "a field `cheat` no log has"),
    "a header of no format (an old log)": (_header(lambda h: h.pop("format")), 2, "the header has no \"format\""),
    "another version": (_header(lambda h: h.__setitem__("version", 9)), 2, "a log of version 9"),
    "a line that is a number": (_line(3, "42"), 2, "this line is 42, not an object"),
    "a line that is a list": (_line(3, "[1, 2]"), 2, "this line is [1, 2], not an object"),
    "a line that is not JSON": (_line(3, "{\"step\": 2,"), 2, "this line is not JSON"),
    "deeply nested JSON": (_line(3, "[" * 100_000 + "]" * 100_000), 2, "nests lists or objects more than"),
    "deeply nested beside a string": (_line(3, "{\"a\": \"[[[\", \"b\": " + "[" * 5000 + "]" * 5000 + "}"),
                                      2, "nests lists or objects more than"),
    "a huge number": (_huge_seed, 2, "a number too long to read"),
    "no answers line (cut short)": (lambda lines: lines[:-1], 2, "no answers line"),
    "no header": (lambda lines: lines[1:], 2, "its first line is not the header"),
    "an event removed": (lambda lines: lines[:4] + lines[5:], 2, "must have \"step\": 3"),
    "an event's text edited": (_edit(6, lambda e: e.__setitem__("text", "something else")), 1,
                               "does not reproduce: event 6 differs"),
    "an answer appended": (_answers(lambda a: a["answers"].append(0)), 1, "the game ends after answer"),
    "an answer removed": (_answers(lambda a: a["answers"].pop()), 1, "answers end, but the game asks"),
    "an answer changed": (_answers(lambda a: a["answers"].__setitem__(0, 99)), 1, "answer 1, 99, does not fit"),
    "another seed": (_header(lambda h: h.__setitem__("seed", 6)), 1, "does not reproduce"),
    "a player count the game does not allow": (_header(lambda h: h.update(players=9, agents=["greedy"] * 9)), 1,
                                               "is for 2 to 6 players, not 9"),
    "a foreign ruleset": (_header(lambda h: h.__setitem__("ruleset_sha256", "0" * 64)), 1,
                          "is not the file the game was played with"),
    "an option the ruleset does not have": (_header(lambda h: h.__setitem__("options", {"roundz": "1"})), 1,
                                            "does not load with the log's options"),
    "the result edited": (_answers(lambda a: a["result"].__setitem__("winners", [9])), 1, "the log's result is"),
}


@pytest.mark.one_engine
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_log_gets_a_located_message_and_exit_1_or_2(good_log, tmp_path, case):
    path, _ = good_log
    change, code, text = BROKEN[case]
    edited = change(path.read_text().splitlines())
    target = _write(tmp_path, edited)
    started = time.monotonic()
    r = cli("replay", target)
    assert time.monotonic() - started < 30      # (the bound is two seconds on a free machine)
    assert r.exit_code == code, r.output
    assert text in r.output, r.output
    assert re.search(re.escape(target) + r":\d+:\d+: E002", r.output), r.output   # file:line:col
    assert "^" in r.output and "|" in r.output                                    # the line and a caret


@pytest.mark.one_engine
@pytest.mark.parametrize("kind", ["binary", "not UTF-8", "empty", "a folder"])
def test_a_file_that_is_no_log_text_gets_exit_2(tmp_path, kind):
    p = tmp_path / "x.jsonl"
    if kind == "binary":
        p.write_bytes(b'{"type": "header"}\n\x00\x01\x02')
    elif kind == "not UTF-8":
        p.write_bytes(b'{"type": "header"}\n{"text": "\xff\xfe"}\n')
    elif kind == "empty":
        p.write_text("")
    else:
        p.mkdir()
    r = cli("replay", p)
    assert r.exit_code == 2, r.output
    assert {"binary": "x.jsonl:2:1: E002 the log holds a NUL byte", "not UTF-8": "x.jsonl:2:11: E002 the log is not UTF-8",
            "empty": "the log is empty", "a folder": "is a folder, not a file"}[kind] in r.output


@pytest.mark.one_engine
def test_replaying_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    out = subprocess.run([sys.executable, "-m", "cgl.cli.main", "replay", str(fifo)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "is not a regular file (a FIFO, device or socket)" in out.stderr, out.stderr


@pytest.mark.one_engine
def test_a_log_of_a_changed_card_file_names_the_file(tmp_path):
    for name in ("mgt.cgl", "mgt-cards.yaml"):
        shutil.copy(os.path.join("rulesets", name), tmp_path / name)
    log = tmp_path / "g.jsonl"
    assert cli("run", tmp_path / "mgt.cgl", "-p", "2", "-s", "2", "-o", "rounds=1", "-q", "--log", log).exit_code == 0
    cards = tmp_path / "mgt-cards.yaml"
    cards.write_text(cards.read_text() + "\n# an edit\n")
    r = cli("replay", log)
    assert r.exit_code == 1 and "mgt-cards.yaml` is not the file the game was played with" in r.output, r.output


# ---------------------------------------------------------------- what a log line names

def test_the_give_a_card_decision_is_shown_only_to_the_giver():
    """Unstable Unicorns, 4 players, random bots: the first game (from seed 1000) in which
    FUCK, MARRY, KILL. gives a card to another player (its receiver named as a target before
    the Neigh window); the card moves privately, and so must the line of the decision that
    names it (the receiver learns the card from its move into their hand)."""
    ask = "(FUCK, MARRY, KILL.: give which card?)"
    for seed in range(1000, 1100):
        game = _play(load_cached("unicorns"), 4, seed, "random")
        log = game.state.log
        for i, e in enumerate(log):
            if not e.get("text", "").endswith(ask):
                continue
            name = e["text"][len("P1 chooses "):-len(ask) - 1]
            moved = [x for x in log[i + 1:i + 25] if x.get("card") == name]
            giver = int(e["text"][1]) - 1
            if moved and moved[0]["to"] != [giver]:          # given to another player
                assert e["to"] == [giver]
                assert len(moved[0]["to"]) == 2 and giver in moved[0]["to"]   # giver and receiver
                for seat in range(4):      # the views agree: only the giver's shows the line
                    places = readable(game.engine, seat)    # (a view's steps number its seat's lines)
                    shown = any(places[x["step"]] == i for x in game.engine.view(seat, 0)["log"])
                    assert shown == (seat == giver)
                return
    raise AssertionError("no game of seeds 1000-1099 gives a card with FUCK, MARRY, KILL.")


def _play(rs, players, seed, agent, listener=None):
    game = Game(rs, players, seed)
    if listener is not None:
        game.engine.listeners.append(listener)
    agents = [make_agent(agent, i, seed) for i in range(players)]
    d = game.start()
    while d is not None:
        if listener is not None:
            listener(d)
        d = game.answer(agents[d.player].decide(d))
    return game


def _namer(rs):
    """A function: the card names a text holds (whole words; a name inside a longer one, as
    "Imp" in "Arch-Imp", is not counted)."""
    names = [(n, re.compile(rf"(?<!\w){re.escape(n)}(?!\w)"))
             for n in sorted({c.name for c in rs.cards}, key=len, reverse=True)]

    @functools.lru_cache(maxsize=None)
    def named(text):
        out = set()
        for n, pattern in names:
            if n in text and pattern.search(text):
                out.add(n)
                text = pattern.sub("#", text)
        return out
    return named


LEAK_SEEDS = (1, 2)   # (more, by hand: 30 games of each ruleset found nothing either)


@pytest.mark.parametrize("name", sorted(packaged_rulesets()))
def test_no_log_line_names_a_card_its_reader_may_not_see(name):
    """Across random games of every shipped ruleset: no line a seat may read names a card that
    seat could not see. "Could see": in a zone it may look into (or shown to it) at some point
    between the decision before the line and the decision after it (a player reads the lines of
    that stretch together, at their next prompt); a decision's or action's own line, stricter,
    at the moment it is written. The chooser reads their own decision. And each decision's
    view shows its seat exactly the lines addressed to it."""
    rs = load_cached(name)
    named_in = _namer(rs)
    players = min(max(rs.game.min_players, 3), rs.game.max_players)
    for seed in LEAK_SEEDS:
        game_ref = {}
        stretch: list = []      # (entry, the names each seat could see when it was written)
        seen = [set() for _ in range(players)]   # the names each seat could see in this stretch
        problems = []

        def visible():
            eng = game_ref["g"].engine
            out = [set() for _ in range(players)]
            for key, ids in eng.state.zones.items():
                z = eng.zone_ref(key)
                names = {rs.cards[i].name for i in ids}
                for s in range(players):
                    if names and eng.sees_zone(z, s):
                        out[s] |= names
            return out

        def flush():
            for entry, now in stretch:
                for s in range(players):
                    if entry.get("quiet") or ("to" in entry and s not in entry["to"]):
                        continue
                    if entry["type"] in ("decision", "action"):
                        if entry.get("player") == s + 1:
                            continue
                        allowed = now[s]
                    else:
                        allowed = seen[s]
                    named = named_in(entry["text"]) - allowed
                    if named:
                        problems.append((seed, f"P{s + 1}", sorted(named), entry))
            stretch.clear()

        last = [None]

        def listen(x):
            if isinstance(x, dict):    # a log entry
                now = visible()
                for s in range(players):
                    seen[s] |= now[s]
                    if x["type"] == "reveal" and ("to" not in x or s in x["to"]):
                        seen[s] |= set(x.get("cards", []))
                before = last[0] or now
                stretch.append((x, [a | b for a, b in zip(before, now)]))
                last[0] = now
            else:                      # a decision: the stretch before it ends
                flush()
                for s in range(players):
                    seen[s] = set(last[0][s]) if last[0] else set()
                log = game_ref["g"].state.log
                places = readable(game_ref["g"].engine, x.player)   # (a view's steps number its seat's lines)
                for e in x.view()["log"]:   # the decision's view: lines of the log addressed to its seat
                    # (a copy of the log's entry, as the seat reads it: its cause only if it may know it)
                    assert log[places[e["step"]]]["text"] == e["text"] and ("to" not in e or x.player in e["to"])

        game = Game(rs, players, seed)
        game_ref["g"] = game
        game.engine.listeners.append(listen)
        agents = [make_agent("random", i, seed) for i in range(players)]
        d = game.start()
        while d is not None:
            listen(d)
            d = game.answer(agents[d.player].decide(d))
        flush()
        assert not problems, problems[:5]


# ---------------------------------------------------------------- a person at the table

@pytest.mark.one_engine
def test_a_human_game_shows_its_seed_only_at_the_end_and_its_log_replays(tmp_path):
    log = tmp_path / "h.jsonl"
    # (the seed is random: "1" answers most prompts, "1 2 3" a claim's "which three cards")
    r = cli("run", "mgt", "-p", "2", "--human", "1", "-o", "rounds=1", "--log", log, input="1\n1 2 3\n" * 600)
    assert r.exit_code == 0, r.output[-2000:]
    first = r.output.splitlines()[0]
    assert "seed shown when the game ends" in first and not re.search(r"seed \d", first)
    seed = json.loads(log.read_text().splitlines()[0])["seed"]
    assert seed >= 1 and r.output.count(str(seed)) == 1     # printed once: after the result
    assert r.output.index(str(seed)) > r.output.index("Winner" if "Winner" in r.output else "No winner")
    again = cli("replay", log)
    assert again.exit_code == 0 and again.output.startswith("Reproduced:"), again.output


@pytest.mark.one_engine
def test_a_seed_given_by_the_player_is_printed_as_given():
    r = cli("run", "mgt", "-p", "2", "-s", "4", "--human", "1", "-o", "rounds=1", input="quit\n")
    assert "· seed 4" in r.output.splitlines()[0]


@pytest.mark.one_engine
def test_the_log_of_a_game_left_at_a_prompt_replays_to_where_it_stopped(tmp_path):
    log = tmp_path / "left.jsonl"
    r = cli("run", "mgt", "-p", "2", "-s", "3", "--human", "1", "--log", log, input="1\n1\nquit\ny\n")
    assert r.exit_code == 0, r.output
    again = cli("replay", log)
    assert again.exit_code == 0 and "a game left after 4 answers" in again.output   # (2 by the person, 2 by the bot), again.output


@pytest.mark.one_engine
def test_a_log_bigger_than_the_limit_is_refused_before_it_is_read(good_log, monkeypatch):
    from cgl.interpreter.play import logs
    path, _ = good_log
    monkeypatch.setattr(logs, "MAX_BYTES", 1000)
    r = cli("replay", path)
    assert r.exit_code == 2 and "more than the limit of 1,000" in r.output, r.output


@pytest.mark.one_engine
@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ"])
def test_a_log_header_cannot_make_cgl_read_and_quote_another_file(good_log, tmp_path, target):
    """A log is not the user's own file: the ruleset its header names must be a .cgl file,
    so that an edited header cannot have cgl parse a secret and quote its first line."""
    path, lines = good_log
    header = dict(lines[0], ruleset_path=target, ruleset="nope")
    r = cli("replay", _write(tmp_path, [header] + lines[1:]))
    assert r.exit_code in (1, 2) and "E002" in r.output and "is not a `.cgl` file" in r.output, r.output
    assert "root:" not in r.output and "PATH=" not in r.output


@pytest.mark.one_engine
def test_a_log_keeps_the_games_step_budget_and_replays_with_it(tmp_path):
    """A game played with a bigger budget than the default replays with that budget."""
    log = tmp_path / "budget.jsonl"
    r = cli("run", "mgt", "-p", "2", "-s", "5", "-o", "rounds=1", "-q", "--max-steps", "123456", "--log", log)
    assert r.exit_code == 0, r.output
    assert json.loads(log.read_text().splitlines()[0])["max_steps"] == 123456
    again = cli("replay", log)
    assert again.exit_code == 0 and "Reproduced" in again.output, again.output


@pytest.mark.one_engine
def test_the_cards_a_text_names_are_worked_out_once_and_the_same_each_time():
    """`_named_cards` (who may read a decision's line) remembers what each text names: the
    same text read again, alone or beside others, names what it named the first time, and
    each text its own cards (a copy names all its copies), in the order found, each once."""
    from cgl.interpreter.check.resolver import facts
    from cgl.interpreter.walker.views import _named_cards
    rs = load_cached("unicorns")
    by_name = {}
    for c in rs.cards:
        by_name.setdefault(c.name, []).append(c.id)
    trap, tasty, show = by_name["BABY TRAP"], by_name["TASTY BABY UNICORN"], by_name["PUTTING ON A SHOW"]
    assert len(show) > 1
    texts = ["Play BABY TRAP", "Steal TASTY BABY UNICORN after PUTTING ON A SHOW?", "Play BABY TRAP", "Draw a card"]
    for _ in range(2):   # (the second time from what was remembered)
        assert _named_cards(rs, texts[:1]) == [trap]
        assert _named_cards(rs, texts[1:2]) == [tasty, show]
        assert _named_cards(rs, texts) == [trap, tasty, show]
        assert _named_cards(rs, texts[3:]) == []
        assert _named_cards(rs, ["Play TASTY BABY UNICORN"]) == [tasty]   # (another text, the same start)
        assert _named_cards(rs, ["PUTTING ON A SHOW, BABY TRAP", texts[0]]) == [show, trap]
    assert set(facts(rs).card_names[2]) >= set(texts)
