"""Shared helpers: write a small ruleset to a temporary folder and load it; and both engines.

A module marked `pytestmark = pytest.mark.both_engines` runs each of its tests twice, on
the compiled engine and on the tree walker (`test_x[compiled-…]`, `test_x[tree-…]`), and
every game such a test creates must be played by the engine its id names. A test of such
a module that plays no game is marked `@pytest.mark.one_engine` (it runs once).

`CGL_STRICT_COMPILE=1` is set for the whole session: a ruleset the generator cannot
compile is an error under test, never a silent fall back to the tree walker.
"""
from __future__ import annotations

import functools
import os
import textwrap

import pytest

# before any ruleset is compiled (xdist workers import this file too; subprocesses inherit it)
os.environ["CGL_STRICT_COMPILE"] = "1"

from cgl.interpreter import codegen as _codegen  # noqa: E402
from cgl.interpreter.play import game as _game  # noqa: E402
from cgl.interpreter.walker.engine import Engine  # noqa: E402
from cgl.interpreter.play.game import Game  # noqa: E402
from cgl.interpreter.check.loader import load, resolve  # noqa: E402

ENGINES = ("compiled", "tree")


def children(pid: int) -> list:
    """The processes whose parent is `pid`, from /proc (one that ends meanwhile is left out)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, IndexError, ValueError):
                continue
    return out


def wait_gone(pids):
    """Wait until each process of `pids` has ended (a pidfd is readable once it has: an event,
    not a clock), with a guard against waiting for ever."""
    import select
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            assert select.select([fd], [], [], 60)[0], f"process {pid} still runs 60 s after it was stopped"
        finally:
            os.close(fd)


@functools.lru_cache(maxsize=None)
def _load_once(path: str, options: tuple):
    return load(path, dict(options))


def load_cached(path_or_name: str, options: dict | None = None):
    """`load`, made once per ruleset file and options in a test process: parsing a ruleset and
    its card data costs far more than a game, and a game never changes its Ruleset (a
    simulation plays all its games on one, too). For the tests that play many games, on
    both engines, of the shipped rulesets."""
    return _load_once(resolve(path_or_name), tuple(sorted((options or {}).items())))


def pytest_configure(config):
    config.addinivalue_line("markers", "both_engines: run each test of the module on the compiled engine "
                                       "and on the tree walker")
    config.addinivalue_line("markers", "one_engine: in a both_engines module, a test that plays no game (runs once)")


def pytest_generate_tests(metafunc):
    node = metafunc.definition
    if node.get_closest_marker("both_engines") and not node.get_closest_marker("one_engine"):
        metafunc.parametrize("engine", ENGINES, indirect=True)


@pytest.fixture(autouse=True)
def engine(request, monkeypatch):
    """The engine a test of a both_engines module plays on ("compiled" or "tree"; None elsewhere).

    It sets `game.DEFAULT_ENGINE`, the engine of every game that names none (as `cgl
    --engine` does), and checks that every game the test creates is played by that engine
    (rulesets and their compiled modules are cached, so the setting alone proves nothing),
    and that the test creates at least one (else it belongs under `one_engine`)."""
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", name)
    want = _codegen.CompiledEngine if name == "compiled" else Engine
    made = []
    real = _game.make_engine

    def checked(*args, **kw):
        eng = real(*args, **kw)
        made.append(eng)
        assert type(eng) is want, f"the {name} run of this test played on {type(eng).__name__}"
        return eng

    monkeypatch.setattr(_game, "make_engine", checked)
    yield name
    assert made, ("this test plays no game, so it proves nothing about either engine: "
                  "mark it @pytest.mark.one_engine")

DECK_YAML = """\
cards:
  - {name: A1, suit: red, rank: 1}
  - {name: A2, suit: red, rank: 2}
  - {name: A3, suit: red, rank: 3}
  - {name: B1, suit: blue, rank: 1}
  - {name: B2, suit: blue, rank: 2}
  - {name: B3, suit: blue, rank: 3}
  - {name: C1, suit: green, rank: 1, count: 2}
"""

HEADER = """\
game "Test" { players 2..4 }
cards from "deck.yaml" { name: text  suit: text  rank: int }
zone deck: shared, ordered, hidden, as deck
zone pile: shared, ordered, public, as discard
zone hand: per player, owner, as hand
"""


@pytest.fixture
def make_rules(tmp_path):
    """make_rules(body, header=True, files={}) -> Ruleset loaded from a temporary file."""
    def make(body: str, header: bool = True, files: dict | None = None, options: dict | None = None, name="game.cgl"):
        (tmp_path / "deck.yaml").write_text(DECK_YAML)
        for fname, text in (files or {}).items():
            (tmp_path / fname).write_text(textwrap.dedent(text))
        path = tmp_path / name
        path.write_text((HEADER if header else "") + textwrap.dedent(body))
        return load(str(path), options or {})
    return make


def run_script(rs, answers, players=2, seed=0, **kw):
    """Play a game answering from `answers` (a list); returns (game, decisions asked)."""
    game = Game(rs, players, seed, check_invariants=True)
    asked = []
    d = game.start(**kw)
    answers = list(answers)
    while d is not None:
        asked.append(d)
        d = game.answer(answers.pop(0))
    return game, asked


def texts(game):
    return [e["text"] for e in game.state.log]
