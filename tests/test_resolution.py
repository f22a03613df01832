"""What a name means is decided once, by the resolver pass, and read by everything else
(issue 28, "one resolver pass").

The loader's name pass (`check/names.py`) records one `resolver.Use` per use of a bare
name: a local (and where it is bound), a property of `it`, or a global meaning. The tree
walker, the code generator, the type checker, lint and the language server read that
record; none of them decides again. The proof: change the record (the use of a local `x`
renamed, in the resolver's output only, to the global `other`), and every one of them
follows it — the source text is the same.
"""
from __future__ import annotations

import pytest

from conftest import run_script
from cgl.interpreter.base import ast as A
from cgl.interpreter.check.lint import lint_ruleset
from cgl.interpreter.check.resolver import Use, facts
from cgl.interpreter.tools.lsp import Session

RULES = """
var total = 0
var other = 7
procedure score() {
  let x = 3
  set total = x
}
turn { phase a { score()  end game } }
"""


def _the_use(rs):
    """The `x` read by `set total = x`, and the `let x` that binds it."""
    proc = rs.procedures["score"]
    let, set_ = proc.body.stmts
    assert isinstance(let, A.Let) and isinstance(set_, A.Set) and isinstance(set_.value, A.Name)
    return set_.value, let


def _renamed(rs):
    """The record changed: this use of `x` now reads the global variable `other`."""
    node, _ = _the_use(rs)
    facts(rs).uses[id(node)] = Use("global", "other", "global")
    return rs


@pytest.mark.both_engines
def test_the_engines_read_the_record(make_rules):
    rs = make_rules(RULES)
    node, let = _the_use(rs)
    use = facts(rs).uses[id(node)]
    assert (use.kind, use.name, use.binder.node) == ("local", "x", let)
    game, _ = run_script(rs, [])
    assert game.state.globals["total"] == 3

    renamed = _renamed(make_rules(RULES, name="renamed.cgl"))
    game, _ = run_script(renamed, [])
    assert game.state.globals["total"] == 7


@pytest.mark.one_engine
def test_the_generated_code_reads_the_record(make_rules):
    from cgl.interpreter.codegen.module import compiled_for
    plain = compiled_for(make_rules(RULES), budget=False).source
    renamed = compiled_for(_renamed(make_rules(RULES, name="renamed.cgl")), budget=False).source
    assert "globals['other']" not in plain
    assert "globals['other']" in renamed


@pytest.mark.one_engine
def test_lint_reads_the_record(make_rules):
    def unused(rs):
        return sorted(d.message for d in lint_ruleset(rs) if d.code == "W101")
    assert unused(make_rules(RULES)) == ["variable `other` is never used"]
    assert unused(_renamed(make_rules(RULES, name="renamed.cgl"))) == []


@pytest.mark.one_engine
def test_a_local_named_like_a_declaration_does_not_use_it(make_rules):
    """(W101 read every bare name as a use, so a `let` shadowing a variable hid the warning.)"""
    rs = make_rules(RULES.replace("let x = 3\n  set total = x", "let other = 3\n  set total = other"))
    assert [d.message for d in lint_ruleset(rs) if d.code == "W101"] == ["variable `other` is never used"]


@pytest.mark.one_engine
def test_the_language_server_reads_the_record(make_rules):
    rs = make_rules(RULES)
    path = rs.path
    node, let = _the_use(rs)
    session = Session()
    line, char = node.span.line - 1, node.span.column - 1
    assert session.definition(path, line, char) == let.span
    assert "let x" in session.hover(path, line, char)

    _renamed(session.ruleset(path))   # (the session's own ruleset of the file)
    node, _ = _the_use(session.ruleset(path))
    line, char = node.span.line - 1, node.span.column - 1
    target = session.definition(path, line, char)
    assert target == session.ruleset(path).vars["other"].span
    assert "var other" in session.hover(path, line, char)


@pytest.mark.one_engine
def test_the_static_evaluator_reads_the_record(make_rules):
    from cgl.interpreter.check.statics import Statics
    rs = make_rules(RULES)
    node, _ = _the_use(rs)
    assert Statics(rs).at_start().value(node, {"x": 3}) == 3
    renamed = _renamed(make_rules(RULES, name="renamed.cgl"))
    node, _ = _the_use(renamed)
    assert Statics(renamed).at_start().value(node, {"x": 3}) == 7
