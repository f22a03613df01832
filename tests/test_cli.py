"""The `cgl` command, through click's CliRunner and as a real subprocess."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.play.game import Game


def cli(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_run_plays_mgt_to_the_end_and_names_the_winner():
    r = cli("run", "mgt", "--players", "4", "--seed", "1")
    assert r.exit_code == 0, r.output
    assert "Monster Girl Taxonomy 0.2 · 4 players · seed 1" in r.output
    assert "== Round 3 begins ==" in r.output
    assert ("Winner" in r.output or "No winner" in r.output) and "P4: points" in r.output


def test_run_v01_and_every_player_count():
    for n in range(2, 7):
        r = cli("run", "rulesets/mgt-v0.1.cgl", "--players", str(n), "--seed", "3", "--quiet")
        assert r.exit_code == 0, r.output
        assert f"P{n}: points" in r.output


def test_same_seed_prints_the_same_game():
    a = cli("run", "mgt", "-p", "3", "-s", "11", "--agent", "greedy").output
    b = cli("run", "mgt", "-p", "3", "-s", "11", "--agent", "greedy").output
    c = cli("run", "mgt", "-p", "3", "-s", "12", "--agent", "greedy").output
    assert a == b and a != c


@pytest.mark.parametrize("args, code, text", [
    (["run", "mgt", "-o", "roundz=2"], 2, "did you mean `rounds`?"),
    (["run", "mgt", "-o", "rounds=99"], 2, "must be between 1 and 20"),
    (["run", "mgt", "-o", "rounds"], 2, "is not key=value"),
    (["run", "mgt", "--players", "9"], 2, "is for 2 to 6 players, not 9"),
    (["run", "mgtt"], 2, "did you mean `mgt`?"),
    (["run", "mgt", "--human", "5"], 2, "seat 5 does not exist"),
    (["run", "mgt", "--agent", "smart"], 2, "Invalid value for '--agent'"),
    (["lint", "no/such/folder"], 2, "no such file or folder"),
    (["replay", "no-such.jsonl"], 2, "does not exist"),
])
def test_bad_input_gets_a_message_and_exit_code_not_a_traceback(args, code, text):
    r = cli(*args)
    assert r.exit_code == code, r.output
    assert text in r.output
    assert "Traceback" not in r.output


def test_lint_passes_the_shipped_rulesets_and_flags_a_typo(tmp_path):
    r = cli("lint", "rulesets")
    assert r.exit_code == 0, r.output
    assert "files checked: 0 errors, 0 warnings" in r.output
    text = open("rulesets/mgt.cgl").read().replace("discard random(hand(player)) forced",
                                                     "discard random(hnd(player)) forced")
    for name in ("mgt.cgl", "mgt-v0.1.cgl", "mgt-cards.yaml"):
        (tmp_path / name).write_text(open(f"rulesets/{name}").read())
    (tmp_path / "mgt.cgl").write_text(text)
    r = cli("lint", str(tmp_path / "mgt.cgl"))
    assert r.exit_code == 1
    assert "E004 unknown function `hnd`" in r.output and "did you mean `hand`?" in r.output and "^" in r.output


def test_log_and_replay_reproduce_the_game(tmp_path):
    log = tmp_path / "g.jsonl"
    r = cli("run", "mgt", "-p", "3", "-s", "5", "--agent", "greedy", "--quiet", "--log", str(log))
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["seed"] == 5 and lines[-1]["type"] == "answers"
    assert any(x.get("type") == "discard" for x in lines)
    r = cli("replay", str(log))
    assert r.exit_code == 0, r.output
    assert r.output.startswith("Reproduced:")
    # a tampered log no longer reproduces
    lines[5]["text"] = "something else"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    r = cli("replay", str(log))
    assert r.exit_code == 1 and "does not reproduce: event 5 differs" in r.output


def test_test_command_runs_scenarios_and_fails_on_a_wrong_expectation(tmp_path):
    r = cli("test", "tests/scenarios/mgt/MGT-N-MEAN.yaml")
    assert r.exit_code == 0, r.output
    assert "1 passed, 0 failed" in r.output
    bad = open("tests/scenarios/mgt/MGT-N-MEAN.yaml").read().replace("random: [Troll]", "random: [Succubus]")
    bad = bad.replace("ruleset: mgt", "ruleset: mgt")
    (tmp_path / "bad.yaml").write_text(bad)
    r = cli("test", str(tmp_path / "bad.yaml"))
    assert r.exit_code == 1 and "FAIL MGT-N-MEAN" in r.output


def test_info_lists_options():
    r = cli("info", "mgt")
    assert r.exit_code == 0 and "rounds = 3" in r.output and "Players: 2 to 6" in r.output
    assert "mgt-v0.1" in cli("info").output


def test_info_says_which_engine_plays(monkeypatch):
    assert "Engine: compiled to Python" in cli("info", "mgt").output
    # a known gap of the generator (`Unsupported`) falls back to the tree walker, and says why
    # (outside the tests: they set CGL_STRICT_COMPILE=1, which forbids the fall back)
    import cgl.interpreter.codegen as codegen
    from cgl.interpreter.check.loader import load
    monkeypatch.delenv("CGL_STRICT_COMPILE", raising=False)

    def gap(self):
        raise codegen.Unsupported("something the generator does not know")
    monkeypatch.setattr(codegen.CodeGen, "generate", gap)
    rs = load("monkic")
    assert codegen.compiled_for(rs) is None
    assert type(codegen.make_engine(rs, 2, 0)).__name__ == "Engine"
    assert "tree walker (something the generator does not know)" in cli("info", "monkic").output
    # under CGL_STRICT_COMPILE=1 the same gap is an error, even once the fall back is remembered
    monkeypatch.setenv("CGL_STRICT_COMPILE", "1")
    with pytest.raises(codegen.Unsupported, match="CGL_STRICT_COMPILE"):
        codegen.make_engine(rs, 2, 0)
    with pytest.raises(codegen.Unsupported, match="something the generator does not know"):
        codegen.compiled_for(load("monkic"))


@pytest.mark.parametrize("strict", ["0", "1"])
def test_a_bug_in_the_generator_is_never_swallowed(monkeypatch, strict):
    """Anything but `Unsupported` from the generator is a bug in cgl: it propagates, strict or not."""
    import cgl.interpreter.codegen as codegen
    from cgl.interpreter.check.loader import load
    monkeypatch.setenv("CGL_STRICT_COMPILE", strict)

    def broken(self):
        raise KeyError("a bug in the generator")
    monkeypatch.setattr(codegen.CodeGen, "generate", broken)
    rs = load("monkic")
    with pytest.raises(KeyError, match="a bug in the generator"):
        codegen.compiled_for(rs)
    with pytest.raises(KeyError, match="a bug in the generator"):
        codegen.make_engine(rs, 2, 0)
    assert type(codegen.make_engine(rs, 2, 0, engine="tree")).__name__ == "Engine"   # it never asks the generator


def test_human_seat_sees_only_its_own_hand_and_a_typo_asks_again():
    # P1 is human; answer every question with a typo first, then option 1 / yes.
    answers = "\n".join(["banana", "1"] * 400) + "\n"
    r = cli("run", "mgt", "-p", "2", "-s", "4", "--human", "1", "-o", "rounds=1", input=answers)
    assert r.exit_code == 0, r.output[-2000:]
    assert "You are P1" in r.output
    first_view = r.output.split("You are P1")[1].split("\n\n")[0]
    assert "Your hand (" in first_view and "hand P2" not in first_view
    assert "`banana` is not a number" in r.output or "`banana` is not an answer" in r.output
    # the other player's draws are told, never named (section 8: "P2 draws a card")
    draws = re.findall(r"P2 draws (.*?)(?:  ← .*)?$", r.output, re.M)
    assert draws and set(draws) == {"a card"}


def test_human_can_quit_and_end_of_input_is_not_a_traceback():
    r = cli("run", "mgt", "-p", "2", "-s", "4", "--human", "2", input="quit\ny\n")
    assert r.exit_code == 0 and "Leave the game?" in r.output and "You left the game." in r.output
    r = cli("run", "mgt", "-p", "2", "-s", "4", "--human", "2", input="")
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_real_subprocess_run_and_help():
    import os
    env = dict(os.environ)
    # the same game in processes whose string hashing differs: nothing may depend on set order
    out = subprocess.run([sys.executable, "-m", "cgl.cli.main", "run", "mgt", "-p", "3", "-s", "9"],
                         capture_output=True, text=True, timeout=120, env={**env, "PYTHONHASHSEED": "1"})
    assert out.returncode == 0, out.stderr
    assert "P3: points" in out.stdout
    again = subprocess.run(["cgl", "run", "mgt", "-p", "3", "-s", "9"], capture_output=True, text=True,
                           timeout=120, env={**env, "PYTHONHASHSEED": "2"})
    assert again.stdout == out.stdout
    helptext = subprocess.run(["cgl", "run", "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "--option" in helptext and "--human" in helptext and "--seed" in helptext


def test_real_subprocess_bad_ruleset_has_no_traceback(tmp_path):
    (tmp_path / "bad.cgl").write_text('game "x" {\n  players 2\n}\nturn { phase p { draw } }\n')
    out = subprocess.run(["cgl", "run", str(tmp_path / "bad.cgl")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "bad.cgl:4:" in out.stderr and "E001" in out.stderr and "^" in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_agents_per_seat_and_a_bad_list():
    a = cli("run", "mgt", "-p", "3", "-s", "2", "--agents", "greedy,random,random", "-q")
    assert a.exit_code == 0, a.output
    b = cli("run", "mgt", "-p", "3", "-s", "2", "--agents", "random,random,random", "-q")
    assert a.output != b.output  # the greedy seat plays differently
    bad = cli("run", "mgt", "-p", "3", "--agents", "greedy,smart,random")
    assert bad.exit_code == 2 and "unknown agent `smart`" in bad.output


def test_human_can_read_an_options_card_data():
    # (seed 6: the first question is a choice of cards, not a dealt impatient monster's yes or no)
    r = cli("run", "mgt", "-p", "2", "-s", "6", "--human", "1", "-o", "rounds=1",
            input="about 1\nabout 99\nquit\ny\n")
    assert r.exit_code == 0, r.output[-1500:]
    assert "  data: type " in r.output and " · family " in r.output and " · disposition " in r.output
    assert "Type `about N` with N from 1 to" in r.output


def test_the_engine_is_an_argument_of_a_game_and_a_flag_of_the_command(monkeypatch):
    """`Game(..., engine=…)` picks what plays, a fork keeps it, a wrong name is a located
    error; `cgl --engine tree` plays the command's games on the tree walker and leaves the
    default of the process as it was."""
    import cgl.interpreter.codegen as codegen
    from cgl.interpreter.check.loader import load
    from cgl.interpreter.play import game as game_module
    from cgl.interpreter.walker.engine import Engine
    rs = load("mgt")
    tree = Game(rs, 2, 1, engine="tree", forkable=True)
    assert type(tree.engine) is Engine and type(Game(rs, 2, 1).engine) is codegen.CompiledEngine
    tree.start()
    assert type(tree.fork().engine) is Engine and tree.fork().engine_kind == "tree"
    with pytest.raises(CglError, match="there is no engine `fast`"):
        Game(rs, 2, 1, engine="fast")
    made = []
    real = game_module.make_engine

    def spy(*a, **kw):
        made.append(real(*a, **kw))
        return made[-1]
    monkeypatch.setattr(game_module, "make_engine", spy)
    r = cli("--engine", "tree", "run", "mgt", "-p", "2", "-s", "1", "-q")
    assert r.exit_code == 0 and made and all(type(e) is Engine for e in made)
    assert game_module.DEFAULT_ENGINE == "compiled"
    assert "the tree walker" in cli("--engine", "tree", "info", "mgt").output
