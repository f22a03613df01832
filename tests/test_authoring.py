"""Starting and checking a ruleset: `cgl new`, `cgl explain`, `cgl test -j N`, and the
tutorial (docs/tutorial.md), whose commands and edits are run here as written."""
from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.play import scenario
from cgl.interpreter.base.codes import CODES, markdown, page

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cli(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _cgl() -> list:
    """How to start the `cgl` of this checkout (the installed script, or the module)."""
    found = shutil.which("cgl")
    return [found] if found else [sys.executable, "-m", "cgl.cli.main"]


# ---------------------------------------------------------------- cgl new

def test_new_writes_a_ruleset_that_lints_runs_and_tests_green(tmp_path):
    folder = tmp_path / "my-game"
    r = cli("new", folder)
    assert r.exit_code == 0, r.output
    for f in ("my-game.cgl", "my-game-cards.yaml", "scenarios/my-game-play.yaml"):
        assert (folder / f).is_file(), f
    r = cli("lint", folder)
    assert r.exit_code == 0 and "0 errors, 0 warnings" in r.output, r.output
    r = cli("run", folder / "my-game.cgl", "--seed", "1")
    assert r.exit_code == 0 and "Winner" in r.output, r.output
    r = cli("test", folder / "scenarios", "-j", "1")
    assert r.exit_code == 0 and "2 passed, 0 failed" in r.output, r.output
    # the whole folder, as `cgl lint` takes it: the card data is not a scenario (issue 33)
    r = cli("test", folder, "-j", "1")
    assert r.exit_code == 0 and "2 passed, 0 failed" in r.output, r.output
    assert "Skipped 1 YAML file with no `scenario:` or `scenarios:` key" in r.output


def test_new_then_test_in_a_fresh_folder_as_typed(tmp_path):
    """`cgl new my-game && cgl test my-game`, as the issue types it: two processes in an
    empty working folder, the folder named relative to it (issue 33)."""
    cgl = [sys.executable, "-m", "cgl.cli.main"]
    r = subprocess.run(cgl + ["new", "my-game"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(cgl + ["test", "my-game"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "2 passed, 0 failed" in r.stdout, r.stdout + r.stderr
    assert "Skipped 1 YAML file with no `scenario:` or `scenarios:` key" in r.stdout + r.stderr


def test_new_never_overwrites(tmp_path):
    folder = tmp_path / "g"
    assert cli("new", folder).exit_code == 0
    (folder / "g.cgl").write_text("# mine\n")
    r = cli("new", folder)
    assert r.exit_code == 2
    assert f"cgl new: `{folder / 'g.cgl'}` already exists; nothing was written" in r.output
    assert (folder / "g.cgl").read_text() == "# mine\n"


def test_new_refuses_a_name_that_cannot_name_a_ruleset(tmp_path):
    r = cli("new", tmp_path / "two words")
    assert r.exit_code == 2 and "`two words` cannot name a ruleset" in r.output
    assert not (tmp_path / "two words").exists()


# ---------------------------------------------------------------- cgl explain

def test_every_code_has_a_page_and_explain_prints_it():
    doc = (ROOT / "docs" / "lint.md").read_text()
    assert doc == markdown()
    for code in CODES:
        assert f"\n{page(code)}\n" in doc, code
    r = cli("explain", "e004")
    assert r.exit_code == 0 and r.output == page("E004") + "\n"
    assert r.output.startswith("## E004\n\n**unknown name** (error)")


def test_explain_an_unknown_code_says_what_was_meant_and_exits_2():
    r = cli("explain", "E999")
    assert r.exit_code == 2
    assert "cgl explain: there is no code `E999`" in r.output and "help: did you mean `E009`?" in r.output
    r = cli("explain", "nonsense")
    assert r.exit_code == 2 and "did you mean" not in r.output and "the codes are E001, E002" in r.output


# ---------------------------------------------------------------- cgl test -j N

def _scenario_folders(tmp_path):
    """Two folders of scenario files for the `cgl new` game: three pass, one fails."""
    assert cli("new", tmp_path / "g").exit_code == 0
    good = (tmp_path / "g" / "scenarios" / "g-play.yaml").read_text()
    for folder in ("a", "b"):
        (tmp_path / "g" / folder).mkdir()
        (tmp_path / "g" / folder / "one.yaml").write_text(good)
    bad = good.replace("P1: {points: 5}", "P1: {points: 6}", 1)
    (tmp_path / "g" / "b" / "two.yaml").write_text(bad)
    return tmp_path / "g"


def test_parallel_test_prints_failures_and_the_same_summary_as_one_process(tmp_path):
    g = _scenario_folders(tmp_path)
    outs = []
    for jobs in ("1", "2"):
        r = subprocess.run(_cgl() + ["test", str(g / "a"), str(g / "b"), str(g / "scenarios"), "-j", jobs],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "FAIL playing a card scores its value" in r.stdout and "points: expected 5" not in r.stdout
        assert "\r" not in r.stdout   # not a terminal: no progress line
        outs.append(r.stdout[r.stdout.index("Failed:"):])
    assert outs[0] == outs[1] == (f"Failed:\n  {g / 'b' / 'two.yaml'}: playing a card scores its value\n"
                                  "7 passed, 1 failed\n")


def test_parallel_test_exit_0_when_all_pass_and_2_without_files(tmp_path):
    g = _scenario_folders(tmp_path)
    r = cli("test", g / "a", g / "scenarios", "-j", "2")
    assert r.exit_code == 0 and r.output.endswith("4 passed, 0 failed\n"), r.output
    (tmp_path / "empty").mkdir()
    assert cli("test", tmp_path / "empty", "-j", "2").exit_code == 2


def test_files_are_shared_out_by_folder_and_each_runs_once():
    files = [f"s/{d}/{n}.yaml" for d in "abc" for n in range({"a": 6, "b": 3, "c": 2}[d])]
    shares = scenario._shares(files, 2)
    assert sorted(i for s in shares for i in s) == list(range(len(files)))
    assert [sorted({os.path.dirname(files[i]) for i in s}) for s in shares] == [["s/a"], ["s/b", "s/c"]]
    # a folder bigger than a process's share is cut, never left to one process
    shares = scenario._shares([f"s/a/{n}.yaml" for n in range(10)], 2)
    assert sorted(map(len, shares)) == [5, 5]


# ---------------------------------------------------------------- the tutorial, as written

def _tutorial_steps(text: str):
    """The tutorial's steps in order: ("sh", command, exit code) for each line of a ```sh block
    (`# exit N` at its end when it is meant to fail), ("edit", file, old, new) for a
    `<!-- edit FILE -->` comment followed by two ```blocks, ("file", path, text) for a
    `<!-- file PATH -->` comment followed by one."""
    blocks = list(re.finditer(r"(<!-- (edit|file) (\S+) -->)?(?:(?!```|<!--).)*?```(\w+)\n(.*?)```", text, re.S))
    steps, k = [], 0
    while k < len(blocks):
        m = blocks[k]
        if m.group(2) == "edit":
            steps.append(("edit", m.group(3), m.group(5), blocks[k + 1].group(5)))
            k += 2
            continue
        if m.group(2) == "file":
            steps.append(("file", m.group(3), m.group(5)))
        elif m.group(4) == "sh":
            for line in m.group(5).splitlines():
                if line.strip():
                    code = re.search(r"#\s*exit (\d+)\s*$", line)
                    steps.append(("sh", line, int(code.group(1)) if code else 0))
        k += 1
    return steps


def _run_line(line: str):
    """A tutorial's command line, in this process (`printf '…' | cgl …` feeds its input):
    (exit code, output)."""
    words = shlex.split(line, comments=True)
    given = None
    if words[0] == "printf":
        bar = words.index("|")
        given = words[1].encode().decode("unicode_escape")
        words = words[bar + 1:]
    assert words[0] == "cgl", line
    r = CliRunner().invoke(main, words[1:], input=given)
    return r.exit_code, r.output


def test_the_tutorial_runs_as_written(tmp_path, monkeypatch):
    steps = _tutorial_steps((ROOT / "docs" / "tutorial.md").read_text())
    assert sum(1 for s in steps if s[0] == "sh") >= 8
    monkeypatch.chdir(tmp_path)
    for step in steps:
        if step[0] == "sh":
            code, out = _run_line(step[1])
            assert code == step[2], (step[1], out[-2000:])
            if step[2]:   # the slip the tutorial makes on purpose is the one it shows
                assert "E004 unknown zone `tabel`" in out and "help: did you mean `table`?" in out
        elif step[0] == "edit":
            path = tmp_path / step[1]
            text = path.read_text()
            assert step[2] in text, (step[1], step[2])
            path.write_text(text.replace(step[2], step[3], 1))
        else:
            (tmp_path / step[1]).write_text(step[2])


# ---------------------------------------------------------------- the pre-commit hook and card data

def test_the_hook_runs_on_card_data_and_lints_the_rulesets_that_read_it(tmp_path, monkeypatch):
    import yaml
    hook = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}["cgl-lint"]
    assert hook["entry"] == "cgl lint" and hook["pass_filenames"]
    for changed, runs in (("g/g.cgl", True), ("g/g-cards.yaml", True), ("g/scenarios/s.yml", True),
                          ("README.md", False)):
        assert bool(re.search(hook["files"], changed)) == runs, changed
    monkeypatch.chdir(tmp_path)
    assert cli("new", "g").exit_code == 0
    cards = pathlib.Path("g/g-cards.yaml")
    cards.write_text(cards.read_text().replace("value: 5", "value: five"))
    r = cli("lint", "g/g-cards.yaml", "g/scenarios/g-play.yaml")   # what the hook passes
    assert r.exit_code == 1, r.output
    assert "g/g-cards.yaml:" in r.output and "E003 `value: five`" in r.output
    assert r.output.endswith("1 file checked: 1 error, 0 warnings\n")
    # a ruleset that extends one that reads the data reads it too
    pathlib.Path("g/v2.cgl").write_text('extends "g.cgl"\n')
    r = cli("lint", "g/g-cards.yaml")
    assert r.exit_code == 1 and "2 files checked" in r.output, r.output
    # YAML that no ruleset reads (a scenario file): nothing to lint, and no failure
    r = cli("lint", "g/scenarios/g-play.yaml")
    assert r.exit_code == 0 and "nothing to lint" in r.output
