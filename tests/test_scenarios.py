"""Every scenario file under tests/scenarios runs as a test named after the scenario."""
from __future__ import annotations

import pathlib

import pytest

from cgl.interpreter import scenario

from conftest import load_cached

pytestmark = pytest.mark.both_engines   # each test on the compiled engine and on the tree walker (conftest.py)

HERE = pathlib.Path(__file__).parent / "scenarios"


def _cases():
    for f in scenario.collect([str(HERE)]):
        for item in scenario.read(f):
            yield pytest.param(f, item, id=str(item["scenario"]).split(" ")[0] + ":" + pathlib.Path(f).stem)


@pytest.fixture(autouse=True)
def _one_load_per_ruleset(monkeypatch):
    """A scenario's ruleset (file and options) is loaded once, not once per scenario and
    engine: loading costs several times what a scenario's game does."""
    monkeypatch.setattr(scenario, "load", load_cached)


@pytest.mark.parametrize("path, item", list(_cases()))
def test_scenario(path, item):
    outcome = scenario.run(path, item, check_invariants=True)
    assert outcome.passed, outcome.report() + "\n" + "\n".join("    | " + t for t in outcome.transcript)
