"""Check, don't catch: a mistake in a rule is an explicit, located check (E010 with the
rule's line); a bug in cgl's own code is never dressed up as the user's E010, but reaches
the CLI's internal-error path (exit 3, "a bug in cgl")."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.walker.engine import Engine

from conftest import run_script


@pytest.mark.parametrize("engine", ["compiled", "tree"])
def test_a_bug_in_cgl_is_an_internal_error_not_the_users_e010(monkeypatch, engine):
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)

    def broken_roll(self, sides):     # a stand-in for a bug in the engine's own code
        raise KeyError("a bug in the engine")
    monkeypatch.setattr(Engine, "roll", broken_roll)
    r = CliRunner().invoke(main, ["run", "examples/high-low.cgl", "-s", "1", "-q"])
    assert r.exit_code == 3, r.output
    assert "internal error" in r.output and "bug in cgl" in r.output
    assert "E010" not in r.output


@pytest.mark.parametrize("engine", ["compiled", "tree"])
@pytest.mark.parametrize("body, message", [
    ('let xs = [1, "a"]  say "{max(xs)}"', "`max` cannot order these values"),
    ('say "{1 / 0}"', "division by zero"),
    ('say "{first(3)}"', "expected a list or a zone"),
])
def test_a_mistake_in_a_rule_is_a_located_e010(make_rules, monkeypatch, engine, body, message):
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    rs = make_rules('match { rounds 1 }\nround { until turn_no >= 1 }\nturn { phase p { ' + body + ' } }\n')
    with pytest.raises(CglError) as e:
        run_script(rs, [])
    d = e.value.diagnostics[0]
    assert d.code == "E010" and message in d.message and d.span.line == 8


def test_a_die_has_at_least_one_side(make_rules):
    with pytest.raises(CglError) as e:
        make_rules('def r = d0\n')
    d = e.value.diagnostics[0]
    assert d.code == "E001" and "at least one side" in d.message and d.span.line == 6
