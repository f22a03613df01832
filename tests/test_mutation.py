"""Robustness: mutants of the shipped rulesets and card data never crash cgl.

Hypothesis drops, duplicates, swaps and cuts lines and tokens of `mgt.cgl`,
`mgt-v0.1.cgl` and `mgt-cards.yaml`, then feeds the result to lint and, when it lints
without errors, to a game. Every mutant must get diagnostics or play to an end (a
statement budget turns an endless mutant into an E011 diagnostic): never a Python
traceback, never a hang.

PYTEST_DONT_REWRITE: the games inside are the slow part; plain asserts suffice.
"""
from __future__ import annotations

import pathlib
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgl.interpreter.base.diagnostics import CglError, render
from cgl.interpreter.play.game import Game, RandomAgent
from cgl.interpreter.check.lint import lint_file
from cgl.interpreter.check.loader import load

ROOT = pathlib.Path(__file__).resolve().parent.parent / "rulesets"
FILES = ["mgt.cgl", "mgt-v0.1.cgl", "mgt-cards.yaml"]
ORIGINAL = {name: (ROOT / name).read_text(encoding="utf-8") for name in FILES}
TOKEN = re.compile(r"\S+")


def _mutate(text: str, op: str, a: int, b: int) -> str:
    lines = text.split("\n")
    n = len(lines)
    i, j = a % n, b % n
    if op == "drop_line":
        del lines[i]
    elif op == "dup_line":
        lines.insert(i, lines[i])
    elif op == "swap_lines":
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "cut_line":
        lines[i] = lines[i][: b % (len(lines[i]) + 1)]
    else:
        spans = [m.span() for m in TOKEN.finditer(text)]
        s, e = spans[a % len(spans)]
        s2, e2 = spans[b % len(spans)]
        if op == "drop_token":
            return text[:s] + text[e:]
        if op == "dup_token":
            return text[:e] + " " + text[s:e] + text[e:]
        if op == "swap_tokens" and (s, e) != (s2, e2):
            (s, e), (s2, e2) = sorted([(s, e), (s2, e2)])
            return text[:s] + text[s2:e2] + text[e:s2] + text[s:e] + text[e2:]
        return text
    return "\n".join(lines)


mutations = st.lists(st.tuples(st.sampled_from(FILES),
                               st.sampled_from(["drop_line", "dup_line", "swap_lines", "cut_line",
                                                "drop_token", "dup_token", "swap_tokens"]),
                               st.integers(0, 10_000), st.integers(0, 10_000)), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(muts=mutations, which=st.sampled_from(["mgt.cgl", "mgt-v0.1.cgl"]))
def test_mutants_get_diagnostics_or_run(tmp_path_factory, muts, which):
    folder = tmp_path_factory.mktemp("mutant")
    texts = dict(ORIGINAL)
    for name, op, a, b in muts:
        texts[name] = _mutate(texts[name], op, a, b)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    path = str(folder / which)
    found = lint_file(path)                      # must not raise
    for d in found:
        render(d)                                # every diagnostic renders
    if any(d.level == "error" for d in found):
        return
    try:
        rs = load(path)
        game = Game(rs, rs.game.min_players, seed=1, check_invariants=True)
        game.engine.max_steps = 30_000
        agents = [RandomAgent(p, 1) for p in range(game.players)]
        d = game.start()
        for _ in range(5_000):
            if d is None:
                break
            d = game.answer(agents[d.player].decide(d))
    except CglError as e:
        for diag in e.diagnostics:
            render(diag)


SCENARIOS = sorted((pathlib.Path(__file__).resolve().parent / "scenarios").rglob("*.yaml"))
DECK_LISTS = sorted((ROOT / "kozyablo-decks").glob("*.yaml"))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(which=st.integers(0, 10_000), op=st.sampled_from(["drop_line", "dup_line", "swap_lines", "cut_line",
                                                           "drop_token", "dup_token", "swap_tokens"]),
       a=st.integers(0, 10_000), b=st.integers(0, 10_000), deck=st.booleans())
def test_mutated_scenarios_and_deck_lists_get_diagnostics(tmp_path_factory, which, op, a, b, deck):
    """A broken scenario file or deck list (what a designer writes by hand) fails with a
    diagnostic or a failed expectation, never a Python error."""
    from cgl.interpreter.play import scenario
    from cgl.interpreter.play.decks import check_deck, load_deck
    from cgl.interpreter.walker.engine import Engine
    folder = tmp_path_factory.mktemp("mutant")
    source = (DECK_LISTS if deck else SCENARIOS)[which % len(DECK_LISTS if deck else SCENARIOS)]
    path = folder / source.name
    path.write_text(_mutate(source.read_text(encoding="utf-8"), op, a, b), encoding="utf-8")
    try:
        if deck:
            rs = load("kozyablo")
            for d in check_deck(Engine(rs, 2, 0), load_deck(rs, str(path))):
                render(d)
        else:
            for item in scenario.read(str(path)):
                try:
                    scenario.run(str(path), item)
                except CglError as e:
                    for d in e.diagnostics:
                        render(d)
    except CglError as e:
        for d in e.diagnostics:
            render(d)
