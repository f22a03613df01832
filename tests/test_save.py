"""Saving a game mid-way and resuming it: `cgl run … --save FILE`, `cgl run --resume FILE`."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.play import saves
from cgl.interpreter.play.game import Game, make_agent
from cgl.interpreter.check.loader import load

MGT = ["-p", "2", "-s", "5", "--human", "1", "-o", "rounds=1"]
ANSWERS = "1\n" * 400          # the human picks option 1 (or yes) every time
BEFORE_QUIT = 5                # the human's answers before they quit


def cli(*args, input=None):
    r = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in r.output
    return r


@pytest.fixture(scope="module")
def human_save(tmp_path_factory):
    """A human game of MGT quit after a few answers with --save: (the run, the save's path)."""
    path = tmp_path_factory.mktemp("saves") / "game.json"
    r = cli("run", "mgt", *MGT, "--save", path, input="1\n" * BEFORE_QUIT + "quit\ny\n")
    assert r.exit_code == 0, r.output[-2000:]
    return r, path


def test_a_human_game_quit_saved_and_resumed_goes_on_as_if_never_stopped(human_save):
    first, path = human_save
    assert f"You left the game.\nSaved to {path}: go on with `cgl run --resume {path}`" in first.output
    data = json.loads(path.read_text())
    assert data["format"] == "cgl-save" and data["version"] == 1 and data["ruleset"] == "mgt"
    assert data["humans"] == [1] and data["seed"] == 5 and data["options"] == {"rounds": "1"}
    assert len(data["answers"]) > BEFORE_QUIT and set(data["states"]) == {"1", "2"}

    resumed = cli("run", "--resume", path, input=ANSWERS)
    assert resumed.exit_code == 0, resumed.output[-2000:]
    banner, body = resumed.output.split("\n", 1)
    assert banner == (f"Resumed Monster Girl Taxonomy 0.2 · 2 players · seed 5 · options rounds=1 "
                      f"at decision {len(data['answers']) + 1} ({path})")
    whole = cli("run", "mgt", *MGT, input=ANSWERS)
    assert whole.exit_code == 0
    # after the resume, everything is as in the game played in one go: each decision the
    # human is shown, the bot's choices, the end and the scores …
    assert whole.output.endswith(body)
    assert body.count("Your choice") > 3 and "Winner" in body and "P2: points" in body
    # … starting with the decision the human had left, shown again as it was shown then
    before = whole.output[:len(whole.output) - len(body)]
    assert first.output.startswith(before)
    last = before.splitlines()[-1]    # the resumed game picks up right after the human's last answer
    assert last.startswith("Your choice") and last.endswith(": 1")
    shown_then = first.output[len(before):]
    assert shown_then.startswith(body[:body.index("Your choice")])
    assert "--- You are P1" in body[:body.index("Your choice")]


def test_a_resumed_game_can_be_saved_again_and_resumed_again(human_save, tmp_path):
    _, path = human_save
    again = tmp_path / "again.json"
    r = cli("run", "--resume", path, "--save", again, input="1\n1\nquit\ny\n")
    assert r.exit_code == 0 and "Saved to" in r.output
    data = json.loads(again.read_text())
    assert len(data["answers"]) > len(json.loads(path.read_text())["answers"])
    final = cli("run", "--resume", again, "-q", input=ANSWERS)
    whole = cli("run", "mgt", *MGT, "-q", input=ANSWERS)
    assert final.exit_code == 0 and final.output.endswith(whole.output[whole.output.index("\nWinner"):])


def test_quitting_without_save_says_how_to_save_and_end_of_input_saves_too(tmp_path):
    r = cli("run", "mgt", *MGT, input="quit\ny\n")
    assert r.exit_code == 0
    assert "You left the game.\n(Not saved: play with --save FILE to keep a game you leave" in r.output
    path = tmp_path / "eof.json"
    r = cli("run", "mgt", *MGT, "--save", path, input="1\n1\n")
    assert r.exit_code == 2 and "The game was stopped (end of input)." in r.output
    assert f"Saved to {path}" in r.output
    assert len(json.loads(path.read_text())["answers"]) >= 2


def _bot_game(decisions: int):
    """A bot game of MGT through the Python API, stopped after `decisions` answers."""
    specs = ["random", "greedy", "random"]
    game = Game(load("mgt"), 3, 7)
    bots = [make_agent(s, i, 7) for i, s in enumerate(specs)]
    d = game.start()
    for _ in range(decisions):
        d = game.answer(bots[d.player].decide(d))
    return game, bots, specs


def _play_out(game, bots):
    d = game.pending
    while d is not None:
        d = game.answer(bots[d.player].decide(d))
    return game


def test_a_bot_game_saved_through_the_api_resumes_to_the_same_end(tmp_path):
    game, bots, specs = _bot_game(40)
    path = tmp_path / "bots.json"
    saves.write_save(str(path), saves.save_data(game, "mgt", {}, specs, [], bots))
    unbroken = _play_out(game, bots)
    # through the API
    data = saves.read_save(str(path))
    again = saves.resume(data, str(path))
    assert len(again.answers) == 40 and again.pending is not None
    fresh = [make_agent(s, i, 7) for i, s in enumerate(specs)]
    saves.restore_agents(fresh, data, [], str(path))
    again = _play_out(again, fresh)
    assert again.state.log == unbroken.state.log and again.answers == unbroken.answers
    # through the command line, which prints the same result as a game played in one go
    r = cli("run", "--resume", path, "-q")
    whole = cli("run", "mgt", "-p", "3", "-s", "7", "--agents", ",".join(specs), "-q")
    assert r.exit_code == 0 and whole.exit_code == 0
    assert r.output == whole.output and unbroken.result.summary() in r.output


def test_a_bot_game_with_deck_lists_resumes(tmp_path):
    deck = tmp_path / "mine.yaml"
    shutil.copy("rulesets/kozyablo-decks/pozorki.yaml", deck)
    specs = ["random", "random"]
    game = Game(load("kozyablo"), 2, 5, decks={0: str(deck)})
    bots = [make_agent(s, i, 5) for i, s in enumerate(specs)]
    d = game.start()
    for _ in range(10):
        d = game.answer(bots[d.player].decide(d))
    path = tmp_path / "k.json"
    saves.write_save(str(path), saves.save_data(game, "kozyablo", {}, specs, [], bots))
    data = json.loads(path.read_text())
    assert data["decks"] == {"1": str(deck)} and len(data["files"]) == 4   # .cgl, cards, two deck lists
    r = cli("run", "--resume", path, "-q")
    assert r.exit_code == 0 and r.output.strip().endswith(f"{_play_out(game, bots).result.decisions} decisions)")
    deck.write_text(deck.read_text() + "\n# one line more\n")
    r = cli("run", "--resume", path)
    assert r.exit_code == 2 and f"`{deck}` changed since the game was saved" in r.output


# ---------------------------------------------------------------- bad saves

def _edit(human_save, tmp_path, change) -> str:
    """A copy of the human save with `change(data)` applied (or `change` as the file's text)."""
    _, path = human_save
    out = tmp_path / "edited.json"
    if isinstance(change, str):
        out.write_text(change)
    else:
        data = json.loads(path.read_text())
        change(data)
        if "checksum" in data:   # (these cases test what a save holds: its checksum made to match)
            data["checksum"] = saves.checksum(data)
        out.write_text(json.dumps(data))
    return str(out)


def test_an_edited_save_is_refused_naming_the_save(human_save, tmp_path):
    """(An edited seed, answer, player count or option resumed silently as another game. Issue 34.)"""
    _, path = human_save
    for key, value in (("seed", 4), ("answers", [0]), ("options", {"rounds": "2"})):
        data = json.loads(path.read_text())
        assert data["checksum"] == saves.checksum(data)
        data[key] = value
        edited = tmp_path / f"edited-{key}.json"
        edited.write_text(json.dumps(data))
        r = cli("run", "--resume", str(edited), input=ANSWERS)
        assert r.exit_code == 2 and re.search(rf"edited-{key}\.json:1:\d+: E002 the save was changed since cgl wrote it",
                                              r.output)
        assert "You are P1" not in r.output


def _set(key, value):
    return lambda data: data.__setitem__(key, value)


BAD_SAVES = {
    "not JSON": ('{\n  "format": "cgl-save",\n  "version": 1\n  "seed": 3\n}\n',
                 "edited.json:4:3: E002 the save is not JSON: Expecting ',' delimiter"),
    "cut short": ('{\n  "format": "cgl-save",\n  "answ', "edited.json:3:3: E002 the save is not JSON"),
    "another format": (_set("format", "chess-pgn"), 'not a cgl save (a save has "format": "cgl-save")'),
    "not an object": ("[1, 2]\n", "not a cgl save"),
    "another version": (_set("version", 2), "a save of version 2; this cgl reads version 1"),
    "a field missing": (lambda d: d.pop("seed"), "the save has no `seed`"),
    "a field of the wrong type": (_set("players", "2"), '`players` must be a whole number, not "2"'),
    "a bool for a number": (_set("seed", True), "`seed` must be a whole number, not true"),
    "a list for an object": (_set("states", []), "`states` must be an object {…}, not []"),
    "an unknown bot": (_set("agents", ["greedy", "smart"]), "`agents`: unknown agent `smart`"),
    "bots for another table": (_set("agents", ["greedy"]), "`agents` names 1 agents for 2 players"),
    "a seat that does not exist": (_set("humans", [3]), "`humans`: 3 is not a seat of a 2-player game"),
    "a thing that is not an answer": (lambda d: d["answers"].__setitem__(1, "yes"),
                                      'answer 2 of the save is "yes": not an answer'),
    "an answer the game refuses": (lambda d: d["answers"].__setitem__(2, 99),
                                   "answer 3 of the save, 99, does not fit the game ("),
    "a bot state that does not fit": (lambda d: d["states"].__setitem__("2", {"rng": [3, [1, 2], None]}),
                                      "the saved state of P2 does not fit: not the state of a `greedy` bot"),
    "a human state that does not fit": (lambda d: d["states"].__setitem__("1", {"rng": 1}),
                                        "the saved state of P1 does not fit: not the state of a human seat"),
    "a bad option": (_set("options", {"rounds": "99"}), "option `rounds` must be between 1 and 20, not 99"),
}


@pytest.mark.parametrize("case", sorted(BAD_SAVES))
def test_a_bad_save_gets_one_clear_message_and_exit_2(human_save, tmp_path, case):
    change, message = BAD_SAVES[case]
    r = cli("run", "--resume", _edit(human_save, tmp_path, change), input=ANSWERS)
    assert r.exit_code == 2, r.output[-2000:]
    assert message in r.output
    assert "You are P1" not in r.output     # no game is played


# each refusal of a save, and what the place it names in the save (written one field a line,
# as cgl writes saves) starts with
LOCATED = {
    "a field of the wrong type": (_set("players", "2"), '"players"'),
    "another format": (_set("format", "chess-pgn"), '"format"'),
    "another version": (_set("version", 2), '"version"'),
    "a field missing": (lambda d: d.pop("seed"), "{"),
    "an unknown bot": (_set("agents", ["greedy", "smart"]), '"smart"'),
    "bots for another table": (_set("agents", ["greedy"]), '"agents"'),
    "a seat that does not exist": (_set("humans", [3]), "3"),
    "a thing that is not an answer": (lambda d: d["answers"].__setitem__(1, "yes"), '"yes"'),
    "an answer the game refuses": (lambda d: d["answers"].__setitem__(2, 99), "99"),
    "an answer too many": (lambda d: d["answers"].extend([0] * 400), "0"),
    "a bot state that does not fit": (lambda d: d["states"].__setitem__("2", {"rng": [3, [1, 2], None]}), '"2"'),
    "a bad option": (_set("options", {"rounds": "99"}), '"rounds"'),
    "an option the ruleset lacks": (_set("options", {"roundz": "2"}), '"roundz"'),
    "the ruleset changed": (_set("ruleset_sha256", "0" * 64), '"ruleset_sha256"'),
}


@pytest.mark.parametrize("case", sorted(LOCATED))
def test_a_refused_save_is_located_at_what_is_wrong_in_it(human_save, tmp_path, case):
    """A save refused whole (or by one of its fields) points at file:line:column in the save,
    as a JSON syntax error does; an option of the save the ruleset refuses names the save.
    (They named the save alone, and an option error only the ruleset's line. Issue 34.)"""
    change, starts = LOCATED[case]
    data = json.loads(human_save[1].read_text())
    data.pop("checksum")
    change(data)
    path = tmp_path / "edited.json"
    saves.write_save(str(path), data)
    r = cli("run", "--resume", path, input=ANSWERS)
    assert r.exit_code == 2, r.output[-2000:]
    where = re.match(re.escape(str(path)) + r":(\d+):(\d+): E00\d ", r.output)
    assert where, r.output[-2000:]
    line, col = int(where.group(1)), int(where.group(2))
    assert path.read_text().splitlines()[line - 1][col - 1:].startswith(starts), r.output[-2000:]


def test_an_edited_save_is_located_at_its_checksum(human_save, tmp_path):
    text = human_save[1].read_text()
    edited = tmp_path / "edited.json"
    edited.write_text(text.replace('"seed": 5', '"seed": 4'))
    r = cli("run", "--resume", edited, input=ANSWERS)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith('  "checksum"'))
    assert r.exit_code == 2 and f"{edited}:{line}:3: E002 the save was changed since cgl wrote it" in r.output


def test_a_save_with_more_answers_than_its_game_is_refused(tmp_path):
    game, bots, specs = _bot_game(0)
    _play_out(game, bots)
    path = tmp_path / "over.json"
    data = saves.save_data(game, "mgt", {}, specs, [], bots)
    r = cli("run", "--resume", _write(path, data), "-q")
    assert r.exit_code == 0 and game.result.summary() in r.output     # a save of a finished game
    data["answers"].append(0)
    r = cli("run", "--resume", _write(path, data))
    assert r.exit_code == 2
    assert f"the game ends after answer {len(game.answers)}, but the save has {len(game.answers) + 1}" in r.output


def _write(path, data) -> str:
    saves.write_save(str(path), data)
    return str(path)


def test_a_save_whose_ruleset_is_gone_or_changed_is_refused(tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    for name in ("mgt.cgl", "mgt-cards.yaml"):
        shutil.copy(f"rulesets/{name}", folder / name)
    path = tmp_path / "g.json"
    r = cli("run", folder / "mgt.cgl", *MGT, "--save", path, input="1\nquit\ny\n")
    assert r.exit_code == 0 and json.loads(path.read_text())["ruleset_path"] == str(folder / "mgt.cgl")
    assert cli("run", "--resume", path, input=ANSWERS).exit_code == 0
    cards = folder / "mgt-cards.yaml"
    cards.write_text(cards.read_text() + "\n# a comment changes the hash too\n")
    r = cli("run", "--resume", path, input=ANSWERS)
    assert r.exit_code == 2
    assert f"E002 `{cards}` changed since the game was saved" in r.output
    assert "put the old version back" in r.output and "--force" not in r.output
    shutil.rmtree(folder)
    r = cli("run", "--resume", path, input=ANSWERS)
    assert r.exit_code == 2
    assert f"the ruleset of this save is gone: `{folder / 'mgt.cgl'}` does not exist" in r.output


def test_a_shipped_ruleset_is_found_by_its_name_when_the_package_moved(human_save, tmp_path):
    path = _edit(human_save, tmp_path, _set("ruleset_path", "/no/longer/here/mgt.cgl"))
    r = cli("run", "--resume", path, "-q", input=ANSWERS)
    assert r.exit_code == 0 and "Winner" in r.output


def test_resume_takes_only_what_the_save_does_not_fix(human_save):
    _, path = human_save
    for extra in (["--seed", "4"], ["-p", "3"], ["-o", "rounds=2"], ["--agent", "random"],
                  ["--agents", "random,random"], ["--deck", "1=x.yaml"]):
        r = cli("run", "--resume", path, *extra)
        assert r.exit_code == 2 and "cannot be given with --resume: the save fixes" in r.output, extra
    r = cli("run", "monkic", "--resume", path)
    assert r.exit_code == 2 and "is a game of mgt, not of monkic" in r.output
    assert cli("run", "mgt", "--resume", path, "-q", input=ANSWERS).exit_code == 0
    assert cli("run", "rulesets/mgt.cgl", "--resume", path, "-q", input=ANSWERS).exit_code == 0
    r = cli("run", "--resume", path, "--human", "3")
    assert r.exit_code == 2 and "seat 3 does not exist" in r.output
    r = cli("run", "--resume", path, "--human", "2", input=ANSWERS)   # P1 is a bot now, P2 a person
    assert r.exit_code == 0 and "You are P2" in r.output and "You are P1" not in r.output
    r = cli("run", "--resume", path.parent / "nowhere.json")
    assert r.exit_code == 2 and "cannot find the save" in r.output
    r = cli("run")
    assert r.exit_code == 2 and "Missing argument 'RULESET'" in r.output and "--resume FILE" in r.output
    r = cli("run", "mgt", "--save", path.parent / "x.json")
    assert r.exit_code == 2 and "play a seat with --human SEAT" in r.output
    r = cli("run", "mgt", "--human", "1", "--save", path.parent / "no" / "x.json")
    assert r.exit_code == 2 and "there is no folder" in r.output


def test_agent_state_round_trips_through_json():
    bot = make_agent("random", 1, 9)
    bot.rng.random()
    state = json.loads(json.dumps(bot.state()))
    other = make_agent("random", 1, 9)
    other.restore(state)
    assert other.rng.random() == bot.rng.random()
    with pytest.raises(ValueError, match="not the state of a `random` bot"):
        other.restore({"rng": "x"})
