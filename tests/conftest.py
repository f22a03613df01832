"""Shared helpers: write a small ruleset to a temporary folder and load it."""
from __future__ import annotations

import textwrap

import pytest

from cgl.interpreter.game import Game
from cgl.interpreter.loader import load

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
