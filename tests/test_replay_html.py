"""`cgl replay --html`: a logged game as one self-contained page; each seat's frames hold
only what that seat was shown."""
from __future__ import annotations

import json

from click.testing import CliRunner

from cgl.cli.main import main


def _data(page: str) -> dict:
    blob = page[page.index("window.CGL_REPLAY = ") + len("window.CGL_REPLAY = "):page.index(";</script>")]
    return json.loads(blob.replace("<\\/", "</"))


def logged_replay(tmp_path, args=("mgt", "-p", "3", "-s", "1", "-o", "rounds=1")):
    log, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    r = CliRunner().invoke(main, ["run", *args, "-q", "--log", str(log)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["replay", "--html", str(log), "-o", str(page)])
    assert r.exit_code == 0, r.output
    assert "Wrote" in r.output
    return log, page


def test_a_replay_page_holds_every_decision_and_each_seats_view(tmp_path):
    log, page = logged_replay(tmp_path)
    text = page.read_text()
    assert "<script src=" not in text and "<link" not in text and "http" not in text.split("CGL_REPLAY")[0]
    data = _data(text)
    answers = json.loads(log.read_text().splitlines()[-1])["answers"]
    assert len(data["frames"]) == len(answers) + 1
    for f in data["frames"]:
        assert set(f["views"]) == {"P1", "P2", "P3", "all"}
        for seat in ("P1", "P2", "P3"):
            v = data["views"][f["views"][seat]]
            assert v["you"] == seat
            for z in (data["zones"][i] for i in v["zones"]):
                if z["cards"] is not None:
                    assert z["visibility"] == "public" or z["owner"] == seat, (seat, z["label"])
            if v["decision"] and v["decision"]["player"] != seat:
                assert "options" not in v["decision"]
        everything = data["views"][f["views"]["all"]]
        assert all(data["zones"][i]["cards"] is not None for i in everything["zones"])
    # each seat reads only the log lines addressed to it
    for seat, steps in data["seen"].items():
        me = int(seat[1:]) - 1
        for e in data["log"]:
            assert (e["step"] in steps) == ("to" not in e or me in e["to"])


def test_replay_html_refuses_to_write_over_its_log_and_needs_html_for_output(tmp_path):
    log, _ = logged_replay(tmp_path)
    r = CliRunner().invoke(main, ["replay", "--html", str(log), "-o", str(log)])
    assert r.exit_code == 2 and "E002" in r.output
    r = CliRunner().invoke(main, ["replay", str(log), "-o", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and "--html" in r.output


HIDDEN_PICK = """
zone stash: shared, hidden
match { rounds 1 }
round { start { deal 2 to hand } until turn_no >= 2 }
turn { phase p { choose c in hand(current) "Which card goes to the stash?" { move c to stash } } }
on move to stash as first_stash ordered by player { pass }
on move to stash if rank >= 1 as second_stash ordered by player { pass }
"""


def test_a_seats_copy_holds_only_its_own_questions_answers(make_rules):
    """A seat's copy (`cgl serve`'s `/replay/GAME/TOKEN`) carries no other player's prompt
    or answer (P2 put a card of its hidden hand into a hidden zone: its name was in P1's
    copy), and no frame for a question P1 was never shown: P2's order of its triggers, and
    P2's pick from its hidden hand (a question whose options read what P1 cannot see is P2's
    alone, docs/view.md)."""
    from cgl.cli.replay_html import frames
    from cgl.interpreter.play.game import Game
    rs = make_rules(HIDDEN_PICK)
    game, answers = Game(rs, 2, 1), []
    d = game.start()
    while d is not None:
        answers.append(0)
        d = game.answer(0)
    asked = [(f["decider"], f["prompt"]) for f in frames(Game(rs, 2, 1), answers)["frames"]]
    mine = frames(Game(rs, 2, 1), answers, only=0)
    assert ("P2", "These happen at once (move): which first?") in asked   # (the game asks it)
    assert ("P2", "Which card goes to the stash?") in asked
    assert [f["decider"] for f in mine["frames"]] == [d for d, p in asked if d != "P2"]
    for f in mine["frames"]:
        if f["decider"] != "P1":
            assert f["prompt"] is None and f["answer"] is None, f
