"""Fuzz every input a user hands cgl: rulesets, card YAML, scenario files, deck lists, game
logs, saves and command-line options, and `cgl fmt`; the language server's documents and
the workspace files beside them; and signals (SIGTERM, Ctrl-C) at any moment of a command.

Each case writes a broken variant of a small valid project (examples/war.cgl with its card
data, a scenario file, a Kozyablo deck list, a log of a real game) and runs the cgl
command that reads it, in process. Whatever the input, cgl must

- exit 0, 1 or 2 (never 3, the internal-error exit, and never a traceback),
- locate what it refuses: a refusal (exit 2) of a file names `file:line:col`,
- answer in bounded time (a case that runs longer than `CASE_SECONDS` fails).

The inputs come from hypothesis with a fixed seed (`derandomize`), so CI runs the same
cases every time; `CGL_FUZZ_EXAMPLES=500 pytest tests/test_fuzz.py` runs more of them
(each kind's test prints nothing unless a case fails, and then hypothesis shrinks it to a
small input and prints it).
"""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgl.cli.main import main
from conftest import children, wait_gone

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("CGL_FUZZ_EXAMPLES", "50"))
CASE_SECONDS = 10       # CPU seconds, generous: a case is a few hundred milliseconds; a hang is forever
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large, HealthCheck.large_base_example])
LOCATION = re.compile(r"[^\s:]+:\d+:\d+")

# Fragments that break parsers in the ways users (and attackers) do.
NASTY = [
    "{", "}", "[", "]", "(", ")", '"', "'", ":", ",", "-", "- ", "? ", "|", ">", "#", "&", "*", "!",
    "\t", "\n", "\n  ", "\r", "\x00", "\x7f", "\u00e9", "\u2028", "\ufeff",
    "&a [1, 2]", "*a", "*undefined", "!!python/object/apply:os.system ['echo pwned']", "!!binary AAAA",
    "%YAML 1.1\n", "---\n", "...\n", "<<: *a", "~", "null", "true", "yes", "no", "-1", "0", "1e999",
    ".inf", "0x1F", "1_000", "9" * 5000, "10000000000000", "[" * 200, "{" * 200, "- " * 100,
    "count: 1000000000000", "copies: 1000000000000", "name:", "cards:", "scenarios:", "ruleset:",
    '"/etc/passwd"', '"../../../etc/passwd"', "/proc/self/environ", "extends", "repeat 10000",
    "on", "if", "else", "elif", "zone", "var", "def", "let", "phase", "turn", "round", "match", "win",
    "1000000000d6", "d0", "2d6", "==", "=", "!=", "<=", "and", "or", "not", "{x}", "\"{", "}\"",
]

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_fragment = st.one_of(st.sampled_from(NASTY), _text)
_edit = st.tuples(st.floats(0, 1), st.sampled_from(["insert", "delete", "replace"]), _fragment,
                  st.integers(1, 40))


def _mutate(base: str, edits) -> str:
    """Apply text edits (insert a fragment, delete a run, replace a run with a fragment) at
    relative positions of the base text."""
    text = base
    for where, how, frag, width in edits:
        at = int(where * len(text))
        if how == "insert":
            text = text[:at] + frag + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + width:]
        else:
            text = text[:at] + frag + text[at + width:]
    return text


# Values of any type for the structural mutations of YAML and JSON files.
_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False),
                  _text, st.sampled_from(["", "x" * 300, "Ace", "King", "P1", "P9", "../x", "/etc/passwd"]))
_value = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(_text, inner, max_size=4)),
                      max_leaves=12)


def _paths(node, here=()):
    """Every path to a value inside a parsed YAML/JSON document."""
    yield here
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, here + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, here + (i,))


def _replace(doc, path, value):
    if not path:
        return None if value is _DROP else value
    node = doc
    for step in path[:-1]:
        node = node[step]
    if isinstance(node, dict) and isinstance(path[-1], str) and value is _DROP:
        del node[path[-1]]
    elif value is not _DROP:
        node[path[-1]] = value
    return doc


_DROP = object()


def _structural(base_doc, data):
    """Replace (or drop) one value of a parsed document, anywhere in it."""
    doc = json.loads(json.dumps(base_doc))
    paths = list(_paths(doc))
    path = data.draw(st.sampled_from(paths), label="path")
    value = data.draw(st.one_of(_value, st.just(_DROP)), label="value")
    return _replace(doc, path, value)


def _broken_yaml(path: pathlib.Path, data) -> str:
    """A YAML file of the project, broken as text (edits) or as a document (one value
    replaced or dropped)."""
    base = path.read_text(encoding="utf-8")
    if data.draw(st.booleans(), label="structural"):
        return yaml.safe_dump(_structural(yaml.safe_load(base), data), allow_unicode=True)
    return _mutate(base, data.draw(st.lists(_edit, min_size=1, max_size=4), label="edits"))


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _time_bound(seconds: int):
    """A guard against a hang, not a timing: the bound is on this process's CPU time
    (`ITIMER_PROF`), which a busy machine does not stretch as it stretches the wall clock;
    a loop that never ends still spends CPU, and is stopped."""
    def alarm(signum, frame):
        raise _TooSlow(f"a case ran longer than {seconds} s of CPU time")
    old = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _cgl(args, cwd: pathlib.Path, what: str):
    """Run `cgl ARGS` in process from `cwd`; check the promises every input kind shares."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with _time_bound(CASE_SECONDS):
            r = CliRunner().invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(old)
    out = r.output
    shown = f"cgl {' '.join(map(str, args))}  (exit {r.exit_code})\n{out[-2000:]}"
    assert r.exit_code in (0, 1, 2), shown
    assert "internal error" not in out and "Traceback" not in out, shown
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"{shown}\nescaped: {r.exception!r}")
    if r.exit_code == 2 and what:
        assert LOCATION.search(out), f"the refusal of {what} names no file:line:col\n{shown}"
    return r


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A small valid project: war.cgl and its cards, a scenario file, a deck list, a log."""
    d = tmp_path_factory.mktemp("fuzz")
    shutil.copy(ROOT / "examples" / "war.cgl", d / "war.cgl")
    shutil.copy(ROOT / "examples" / "war-cards.yaml", d / "war-cards.yaml")
    (d / "scenarios.yaml").write_text(
        "scenarios:\n"
        "  - scenario: the highest card takes the pot\n"
        "    ruleset: war.cgl\n"
        "    players: 2\n"
        "    setup:\n"
        "      turn: P1\n"
        "      zones:\n"
        "        pile P1: [King, \"3\"]\n"
        "        pile P2: [Queen, \"4\"]\n"
        "    until: round end\n"
        "    expect:\n"
        "      zones:\n"
        "        pot: []\n"
        "        pile P1: {count: 3}\n", encoding="utf-8")
    shutil.copy(ROOT / "rulesets" / "kozyablo-decks" / "kozly.yaml", d / "deck.yaml")
    r = CliRunner().invoke(main, ["run", str(d / "war.cgl"), "-p", "2", "-s", "3", "-q", "-o", "battles=5",
                                  "--log", str(d / "game.jsonl")])
    assert r.exit_code == 0, r.output
    return d


def _case(project: pathlib.Path, tmp_path: pathlib.Path, changed: dict) -> pathlib.Path:
    """A copy of the project in a fresh folder with some files replaced."""
    d = tmp_path / "case"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(project, d)
    for name, content in changed.items():
        if isinstance(content, bytes):
            (d / name).write_bytes(content)
        else:
            (d / name).write_text(content, encoding="utf-8", errors="surrogatepass")
    return d


def test_the_base_project_is_valid(project, tmp_path):
    """Every check below starts from inputs that pass: a failure there is the mutation's."""
    assert _cgl(["lint", "war.cgl"], project, "").exit_code == 0
    assert _cgl(["test", "scenarios.yaml"], project, "").exit_code == 0
    assert _cgl(["deck", "check", "deck.yaml", "-r", "kozyablo"], project, "").exit_code == 0
    assert _cgl(["replay", "game.jsonl"], project, "").exit_code == 0


@FUZZ
@given(edits=st.lists(_edit, min_size=1, max_size=4))
def test_fuzz_rulesets(project, tmp_path, edits):
    text = _mutate((project / "war.cgl").read_text(encoding="utf-8"), edits)
    _lint_and_run(_case(project, tmp_path, {"war.cgl": text}), "the ruleset")


def _lint_and_run(d, what: str) -> None:
    """`cgl lint` and a short `cgl run` of the project's ruleset in folder `d`: located errors, never a crash."""
    _cgl(["lint", "war.cgl"], d, what)
    _cgl(["run", "war.cgl", "-p", "2", "-s", "1", "-q", "-o", "battles=3"], d, what)


@FUZZ
@given(data=st.data())
def test_fuzz_card_yaml(project, tmp_path, data):
    text = _broken_yaml(project / "war-cards.yaml", data)
    _lint_and_run(_case(project, tmp_path, {"war-cards.yaml": text}), "the card data")


@FUZZ
@given(data=st.data())
def test_fuzz_scenario_files(project, tmp_path, data):
    text = _broken_yaml(project / "scenarios.yaml", data)
    d = _case(project, tmp_path, {"scenarios.yaml": text})
    _cgl(["test", "scenarios.yaml"], d, "the scenario file")


@FUZZ
@given(data=st.data())
def test_fuzz_deck_lists(project, tmp_path, data):
    text = _broken_yaml(project / "deck.yaml", data)
    d = _case(project, tmp_path, {"deck.yaml": text})
    _cgl(["deck", "check", "deck.yaml", "-r", "kozyablo"], d, "the deck list")


@FUZZ
@given(data=st.data())
def test_fuzz_game_logs(project, tmp_path, data):
    lines = (project / "game.jsonl").read_text(encoding="utf-8").splitlines()
    how = data.draw(st.sampled_from(["structural", "text", "lines"]), label="how")
    if how == "structural":
        i = data.draw(st.sampled_from([0, len(lines) - 1, 1]), label="line")
        lines[i] = json.dumps(_structural(json.loads(lines[i]), data))
        text = "\n".join(lines) + "\n"
    elif how == "lines":
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        op = data.draw(st.sampled_from(["drop", "duplicate", "swap", "junk"]), label="op")
        if op == "drop":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        else:
            lines.insert(i, json.dumps(data.draw(_value, label="junk")))
        text = "\n".join(lines) + "\n"
    else:
        text = _mutate("\n".join(lines) + "\n", data.draw(st.lists(_edit, min_size=1, max_size=3), label="edits"))
    d = _case(project, tmp_path, {"game.jsonl": text})
    _cgl(["replay", "game.jsonl"], d, "the log")


_RULESETS = st.sampled_from(["war.cgl", "mgt", "unicorns", "monkic", "kozyablo", "nope", "war-cards.yaml", ".",
                             "/dev/null", "war.cgl/x", ""])
_INTS = st.one_of(st.integers(-3, 12), st.sampled_from(["x", "", "1.5", "99999999999999999999", "-0"]))
_OPTION = st.one_of(st.sampled_from(["battles=3", "battles=0", "battles=501", "battles=x", "battles", "=3",
                                     "nope=1", "battles=1=2", "hand_size=4", "battles=99999999999999999999"]),
                    _text)
_AGENT = st.one_of(st.sampled_from(["random", "greedy", "mcts:5", "mcts:0", "mcts:x", "mcts:0s", "gredy",
                                    "scripted", "human", "random,greedy", ""]), _text)


@settings(FUZZ, max_examples=max(10, EXAMPLES // 2))
@given(data=st.data())
def test_fuzz_command_line_options(project, data):
    cmd = data.draw(st.sampled_from(["run", "simulate", "compare", "lint", "info", "deck", "replay", "test"]),
                    label="command")
    rs = data.draw(_RULESETS, label="ruleset")
    if cmd == "run":
        args = ["run", rs, "-q", "-o", "battles=3"]
        for flag, value in data.draw(st.lists(st.one_of(
                st.tuples(st.sampled_from(["-p", "-s"]), _INTS),
                st.tuples(st.just("-o"), _OPTION),
                st.tuples(st.sampled_from(["--agent", "--agents"]), _AGENT),
                st.tuples(st.sampled_from(["--deck"]), st.sampled_from(["1=deck.yaml", "9=deck.yaml", "deck.yaml",
                                                                       "1=nope.yaml", "x=y"]))), max_size=3),
                label="flags"):
            args += [flag, str(value)]
    elif cmd in ("simulate", "compare"):
        args = [cmd, rs] + (["war.cgl"] if cmd == "compare" else []) + ["-n", str(data.draw(
            st.sampled_from([1, 2, 0, -1, "x"]), label="games")), "-w", "1", "-o", "battles=3"]
        for flag, value in data.draw(st.lists(st.one_of(
                st.tuples(st.sampled_from(["-p", "-s"]), _INTS),
                st.tuples(st.just("-o"), _OPTION),
                st.tuples(st.sampled_from(["--agent", "--agents", "--skill"]), _AGENT)), max_size=2),
                label="flags"):
            args += [flag, str(value)]
    elif cmd == "lint":
        args = ["lint", rs] + data.draw(st.lists(st.sampled_from(
            ["--strict", "--format", "json", "github", "xml", "--select", "E008", "W999,", ""]), max_size=3),
            label="flags")
    elif cmd == "info":
        args = ["info", rs]
    elif cmd == "deck":
        args = ["deck", "check", data.draw(st.sampled_from(["deck.yaml", "war-cards.yaml", "nope.yaml", "."]),
                                           label="deck"), "-r", rs]
    elif cmd == "replay":
        args = ["replay", data.draw(st.sampled_from(["game.jsonl", "war.cgl", "nope.jsonl", ".", "/dev/null"]),
                                    label="log")]
    else:
        args = ["test", data.draw(st.sampled_from(["scenarios.yaml", "war.cgl", ".", "nope.yaml"]), label="path"),
                "-k", data.draw(_text, label="pattern")]
    # Options are not files: a refusal says what is wrong with the option, not file:line:col.
    _cgl(args, project, "")


# ---------------------------------------------------------------- cgl fmt

_SHIPPED = sorted(p.relative_to(ROOT).as_posix() for folder in ("rulesets", "examples")
                  for p in (ROOT / folder).glob("*.cgl"))


@settings(FUZZ, max_examples=max(10, EXAMPLES // 3))
@given(source=st.sampled_from(_SHIPPED), edits=st.lists(_edit, min_size=1, max_size=4))
def test_fuzz_fmt(tmp_path, source, edits):
    """`cgl fmt` of a broken copy of a shipped ruleset: a located refusal or a layout that
    parses again and that a second `fmt` leaves as it is (and never "a bug in cgl fmt")."""
    from cgl.interpreter.tools.fmt import format_text
    text = _mutate((ROOT / source).read_text(encoding="utf-8"), edits)
    d = tmp_path / "fmt"
    d.mkdir(exist_ok=True)
    path = d / "r.cgl"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    r = _cgl(["fmt", "r.cgl"], d, "the ruleset")
    assert "a bug in cgl fmt" not in r.output, r.output
    if r.exit_code == 0:
        formatted = path.read_text(encoding="utf-8")
        assert format_text(formatted, str(path)) == formatted   # a fixed point (and it parses)


# ---------------------------------------------------------------- saves

@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A human game of MGT left after a few answers with --save: its folder and the save's text."""
    d = tmp_path_factory.mktemp("save")
    r = CliRunner().invoke(main, ["run", "mgt", "-p", "2", "-s", "3", "--human", "1", "-o", "rounds=1",
                                  "--save", str(d / "game.json")], input="1\n" * 3 + "quit\ny\n")
    assert r.exit_code == 0, r.output[-2000:]
    return d, (d / "game.json").read_text(encoding="utf-8")


@settings(FUZZ, max_examples=max(10, EXAMPLES // 3))
@given(data=st.data())
def test_fuzz_saves(saved, tmp_path, data):
    """`cgl run --resume` of a broken save: as text, or one value replaced or dropped (with the
    checksum left as it was, or made again to match, as an editor could): the game resumes,
    or the save is refused with an error naming it (at its line where a line is wrong, the
    whole save where it is not a save, or was changed); never a traceback."""
    from cgl.interpreter.play.saves import checksum
    folder, base = saved
    how = data.draw(st.sampled_from(["structural", "resealed", "text"]), label="how")
    if how == "text":
        text = _mutate(base, data.draw(st.lists(_edit, min_size=1, max_size=3), label="edits"))
    else:
        doc = _structural(json.loads(base), data)
        if how == "resealed" and isinstance(doc, dict):
            doc["checksum"] = checksum(doc)
        text = json.dumps(doc, indent=1)
    d = tmp_path / "case"
    d.mkdir(exist_ok=True)
    (d / "game.json").write_bytes(text.encode("utf-8", errors="surrogatepass"))
    r = _cgl(["run", "--resume", "game.json", "-q"], d, "")
    if r.exit_code == 2 and "stopped (end of input)" not in r.output:   # (resumed: the human has no more answers)
        assert re.search(r"game\.json(:\d+:\d+)?: E0", r.output), r.output


# ---------------------------------------------------------------- the language server

_LSP_SOURCES = ["examples/rps.cgl", "examples/war.cgl", "examples/priest.cgl"]


@FUZZ
@given(source=st.sampled_from(_LSP_SOURCES), edits=st.lists(_edit, min_size=1, max_size=4),
       spots=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 200)), min_size=1, max_size=4))
def test_fuzz_the_language_server(tmp_path, source, edits, spots):
    """What the editor asks of a broken, unsaved copy of a shipped ruleset (its card file
    beside it): the check, and hover, definition, completion, references, highlights,
    signature help, folding, semantic tokens, symbols and formatting at random places,
    answer or decline; none raises (in the server, that would be an internal error in
    the editor's log) and none hangs."""
    from cgl.interpreter.tools.lsp import Session
    base = (ROOT / source).read_text(encoding="utf-8")
    text = _mutate(base, edits)
    d = tmp_path / "lsp"
    d.mkdir(exist_ok=True)
    for f in (ROOT / "examples").glob("*-cards.yaml"):
        shutil.copy(f, d / f.name)
    path = str(d / "r.cgl")
    (d / "r.cgl").write_text(base, encoding="utf-8")      # the saved file; the editor holds the broken text
    session = Session()
    with _time_bound(CASE_SECONDS * 3):
        session.check(path, {path: text})
        lines = text.split("\n")
        for where, col in spots:
            line = min(int(where * len(lines)), len(lines) - 1)
            char = min(col, len(lines[line]))
            session.hover(path, line, char)
            session.definition(path, line, char)
            session.complete(path, line, char)
            session.references(path, line, char)
            session.highlights(path, line, char)
            session.signature_help(path, line, char)
        session.folding(path)
        session.semantic_tokens(path)
        session.symbols(path)
        session.formatting(path)


_HOSTILE = ["text", "text", "text", "unsaved", "unsaved", "fifo", "dev-zero", "outside", "folder", "binary"]


@settings(FUZZ, max_examples=max(10, EXAMPLES // 5))
@given(data=st.data())
def test_fuzz_the_language_servers_workspace_files(project, tmp_path, data):
    """The files beside an open ruleset, as an editor's workspace holds them: the card data or
    the scenario file broken on disk or in an unsaved buffer, or replaced by a FIFO, a
    symlink to /dev/zero or out of the project, a folder or binary bytes. Checking each of
    the three files, and asking about the ruleset at random places, answers or declines: none
    raises and none hangs (a FIFO read never returns, /dev/zero never ends)."""
    from cgl.interpreter.tools.lsp import Session
    name = data.draw(st.sampled_from(["war-cards.yaml", "scenarios.yaml"]), label="file")
    how = data.draw(st.sampled_from(_HOSTILE), label="how")
    text = _broken_yaml(project / name, data) if how in ("text", "unsaved") else ""
    d = _case(project, tmp_path, {name: text} if how == "text" else {})
    target, texts = d / name, {}
    if how == "unsaved":
        texts[str(target)] = text
    elif how != "text":
        target.unlink()
        if how == "fifo":
            os.mkfifo(target)
        elif how == "dev-zero":
            os.symlink("/dev/zero", target)
        elif how == "outside":
            os.symlink(ROOT / "examples" / name if name.endswith("cards.yaml") else "/etc/passwd", target)
        elif how == "folder":
            target.mkdir()
        else:
            target.write_bytes(bytes(range(256)) * 4)
    rules = str(d / "war.cgl")
    lines = (d / "war.cgl").read_text(encoding="utf-8").split("\n")
    session = Session()
    with _time_bound(CASE_SECONDS * 3):
        for path in dict.fromkeys((rules, str(d / "war-cards.yaml"), str(d / "scenarios.yaml"))):
            found = session.check(path, texts)
            assert all(dg.span is not None for ds in found.values() for dg in ds), found
        for where, col in data.draw(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 80)), min_size=1,
                                             max_size=3), label="spots"):
            line = min(int(where * len(lines)), len(lines) - 1)
            char = min(col, len(lines[line]))
            session.hover(rules, line, char)
            session.definition(rules, line, char)
            session.complete(rules, line, char)
        session.symbols(rules)


# ---------------------------------------------------------------- signals

# A cgl command started in a process of its own as the console script starts it; "ready" on
# stderr once its entry point is imported, before the command is (a signal during Python's
# own start-up is Python's, not cgl's: tests/test_interrupts.py)
_READY = "import sys\nfrom cgl.cli.entry import main\nsys.stderr.write('ready\\n')\nsys.stderr.flush()\n" \
         "sys.argv = ['cgl', *sys.argv[1:]]\nsys.exit(main())\n"
_SIGNALLED = {
    "simulate -w 2": ["simulate", "war.cgl", "-n", "300", "-w", "2", "-s", "1", "-o", "battles=20",
                      "--csv", "out.csv"],
    "simulate -w 1": ["simulate", "war.cgl", "-n", "300", "-w", "1", "-s", "1", "-o", "battles=20",
                      "--csv", "out.csv"],
    "run --log": ["run", "war.cgl", "-s", "1", "-q", "--log", "game.jsonl"],
    "lint": ["lint", "war.cgl"],
}


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@settings(FUZZ, max_examples=max(3, EXAMPLES // 16))
@given(command=st.sampled_from(sorted(_SIGNALLED)), sig=st.sampled_from(["SIGTERM", "SIGINT"]),
       delay=st.floats(0, 1.5))
def test_fuzz_signals(project, tmp_path, command, sig, delay):
    """SIGTERM or Ctrl-C at any moment of a command's work: cgl ends (by the signal, or with
    128 + its number, or done first) without a traceback, leaves no process and no temporary
    file behind, and every file it wrote is whole (a CSV row of every column, a log of whole
    JSON lines); an older output is either replaced whole or left as it was."""
    import csv
    import subprocess
    import sys
    import time
    d = _case(project, tmp_path, {"out.csv": "an older run's rows\n"})
    before = {p.name for p in d.iterdir()}
    p = subprocess.Popen([sys.executable, "-c", _READY, *_SIGNALLED[command]], cwd=d, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    assert p.stderr.readline() == "ready\n"
    time.sleep(delay)
    workers = children(p.pid)
    signum = getattr(signal, sig)
    p.send_signal(signum)
    try:
        err = p.communicate(timeout=60)[1]   # (a guard against a hang, not a timing)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"`cgl {' '.join(_SIGNALLED[command])}` still runs 60 s after {sig}")
    shown = f"{command}, {sig} after {delay:.2f} s: exit {p.returncode}\n{err[-2000:]}"
    assert p.returncode in (0, 1, 128 + signum, -signum), shown
    assert "Traceback" not in err and "internal error" not in err, shown
    wait_gone(workers)
    assert {p.name for p in d.iterdir()} - before <= {"game.jsonl"}, shown   # no temporary left
    rows = list(csv.reader((d / "out.csv").open(newline="")))
    if rows != [["an older run's rows"]]:
        assert rows[0][0] == "game" and all(len(r) == len(rows[0]) for r in rows), shown
    if (d / "game.jsonl").exists():
        for line in (d / "game.jsonl").read_text().splitlines():
            json.loads(line)
