"""Every construct of the language has a meaning on both engines.

The classes of interpreter/base/ast.py are found by introspection: each expression class (a
subclass of `ast.Expr`) needs a tree-walker handler, `Compiler.c_<Name>` in compiler.py,
a generator emitter, `CodeGen.x_<Name>` (interpreter/codegen/expressions.py), and its meaning
without playing, `Statics.v_<Name>` (interpreter/check/statics.py, which lint and the language
server judge with); each statement class (a
subclass of `ast.Stmt`) needs a tree-walker handler in the `_EXEC` table of engine.py and
a generator emitter, `CodeGen.s_<Name>` (interpreter/codegen/statements.py; without one,
the generator quietly hands the statement to the tree walker). A node added to the grammar without both fails here, named.

The rest of architecture.md's checklist for adding a construct, where it is mechanical:
every statement rule of the grammar has its case in build.py; every node class has an
example in its docstring; every statement has a type check (`Checks.c_<Name>`) or says
here why it needs none; every statement keyword heads a section of the reference's
chapter 4 and is completed and explained by the language server. (The TextMate grammar's
keywords: tests/test_textmate.py; `ast.CHANGES` and the reference's section 3.20:
tests/test_settle.py.)
"""
from __future__ import annotations

import inspect

import pytest

from cgl.interpreter.base import ast as A
from cgl.interpreter import codegen
from cgl.interpreter.check import statics
from cgl.interpreter.walker import compiler, engine


def _node_classes(base):
    """The concrete node classes of ast.py below `base` (the base itself excluded)."""
    return sorted((c for _, c in inspect.getmembers(A, inspect.isclass)
                   if issubclass(c, base) and c is not base and c.__module__ == A.__name__),
                  key=lambda c: c.__name__)


EXPRESSIONS = _node_classes(A.Expr)
STATEMENTS = _node_classes(A.Stmt)


def missing_handlers() -> list[str]:
    """What is missing, one line per handler, naming the class and the handler."""
    missing = []
    for cls in EXPRESSIONS:
        name = cls.__name__
        if not callable(getattr(compiler.Compiler, f"c_{name}", None)):
            missing.append(f"expression ast.{name}: no tree-walker handler `Compiler.c_{name}` in compiler.py")
        if not callable(getattr(codegen.CodeGen, f"x_{name}", None)):
            missing.append(f"expression ast.{name}: no generator emitter `CodeGen.x_{name}` in the code generator")
        if cls not in statics._EVALUATE:
            missing.append(f"expression ast.{name}: no static evaluation `Statics.v_{name}` in statics.py")
    for cls in STATEMENTS:
        name = cls.__name__
        if not callable(engine._EXEC.get(cls)):
            missing.append(f"statement ast.{name}: no tree-walker handler in `_EXEC` (engine.py) for ast.{name}")
        if not callable(getattr(codegen.CodeGen, f"s_{name}", None)):
            missing.append(f"statement ast.{name}: no generator emitter `CodeGen.s_{name}` in the code generator")
    return missing


def test_the_node_classes_are_found():
    """The introspection sees the language (a handful it must find, and no overlap)."""
    names = {c.__name__ for c in EXPRESSIONS} | {c.__name__ for c in STATEMENTS}
    assert {"Int", "Name", "Call", "Where", "SortBy"} <= {c.__name__ for c in EXPRESSIONS}
    assert {"Move", "Choose", "If", "For", "Act", "Pass"} <= {c.__name__ for c in STATEMENTS}
    assert not set(EXPRESSIONS) & set(STATEMENTS)
    assert "Block" not in names and "Node" not in names


def test_every_node_has_a_handler_on_both_engines():
    missing = missing_handlers()
    assert not missing, "constructs without a meaning on one of the engines:\n  " + "\n  ".join(missing)


def test_no_handler_is_left_for_a_node_that_is_gone():
    """The other way round: a `c_`/`x_`/`s_` handler or an `_EXEC` entry for a class that ast.py
    no longer has (or that changed from expression to statement) is dead code."""
    exprs = {c.__name__ for c in EXPRESSIONS}
    stmts = {c.__name__ for c in STATEMENTS}
    stale = [f"Compiler.{m}" for m in dir(compiler.Compiler) if m[:2] == "c_" and m[2:3].isupper()
             and m[2:] not in exprs]
    stale += [f"CodeGen.{m}" for m in dir(codegen.CodeGen) if m[:2] == "x_" and m[2:3].isupper()
              and m[2:] not in exprs]
    stale += [f"Statics.{m}" for m in dir(statics.Statics) if m[:2] == "v_" and m[2:] not in exprs]
    stale += [f"CodeGen.{m}" for m in dir(codegen.CodeGen) if m[:2] == "s_" and m[2:3].isupper()
              and m[2:] not in stmts]
    stale += [f"_EXEC[{c.__name__}]" for c in engine._EXEC if c not in set(STATEMENTS)]
    assert not stale, "handlers for no expression/statement class of ast.py: " + ", ".join(stale)


@pytest.mark.parametrize("where, name", [
    ("compiler", "c_Where"), ("codegen", "x_Dice"), ("codegen", "s_Reveal"), ("exec", "Shuffle"),
    ("statics", "SortBy"),
])
def test_a_missing_handler_is_named(monkeypatch, where, name):
    """The check can fail, and says which handler is missing."""
    if where == "compiler":
        monkeypatch.delattr(compiler.Compiler, name)
        expected = f"`Compiler.{name}`"
    elif where == "codegen":
        monkeypatch.setattr(codegen.CodeGen, name, None)   # (the method lives on a mixin of CodeGen)
        expected = f"`CodeGen.{name}`"
    elif where == "statics":
        monkeypatch.delitem(statics._EVALUATE, getattr(A, name))
        expected = f"`Statics.v_{name}`"
    else:
        monkeypatch.delitem(engine._EXEC, getattr(A, name))
        expected = f"`_EXEC` (engine.py) for ast.{name}"
    missing = missing_handlers()
    assert len(missing) == 1 and expected in missing[0], missing


# ---------------------------------------------------------------- the rest of the checklist

def _statement_rules() -> list:
    """The grammar's statement rules (the alternatives of `_stmt`), with the name each of
    their alternatives is built by (its `-> alias`, or the rule's own name)."""
    from cgl.grammar import parser
    p = parser()
    heads = [r.expansion[0].name for r in p.rules if r.origin.name == "_stmt"]
    return sorted({(h, r.alias or h) for h in heads for r in p.rules if r.origin.name == h})


def test_every_statement_rule_of_the_grammar_has_its_case_in_build():
    from cgl.interpreter.parse.build import _Build
    rules = _statement_rules()
    assert {"move_stmt", "cut_stmt", "reverse_stmt"} <= {h for h, _ in rules}
    missing = [f"{h}: `_Build.{m}`" for h, m in rules if not callable(getattr(_Build, m, None))]
    assert not missing, "grammar rules that build.py does not turn into AST nodes: " + ", ".join(missing)


def test_every_node_class_shows_its_cgl_in_its_docstring():
    """(ast.py's promise, and what the language server shows on hover for a statement.)"""
    classes = EXPRESSIONS + STATEMENTS + _node_classes(A.Decl)
    bare = [c.__name__ for c in classes if not (c.__doc__ or "").strip().startswith("`")]
    assert not bare, "node classes whose docstring does not begin with a `cgl example`: " + ", ".join(bare)


#: The statements with no type check of their own (`Checks.c_<Name>` in typecheck.py), and
#: why. A new statement is either checked or listed here, so the question is asked.
NO_TYPE_CHECK = {
    "Act": "its player is not checked yet",
    "CallStmt": "the resolver pass checks the procedure and its arguments' count (E004, E009)",
    "Discard": "its cards and destination are not checked yet",
    "Emit": "an event's fields take any value",
    "End": "a keyword only",
    "Give": "its player is not checked yet",
    "Let": "any value",
    "Lose": "its players are not checked yet",
    "KnockOut": "its players are not checked yet (as `lose`)",
    "May": "its player and prompt are not checked yet",
    "Pass": "nothing to check",
    "Require": "only blocks",
    "Reveal": "its cards and players are not checked yet",
    "ReverseOrder": "nothing to check",
    "Say": "a text; its player is not checked yet",
    "Shuffle": "its zone is not checked yet",
    "Simultaneously": "only a block",
    "Win": "its players are not checked yet",
}


def test_every_statement_has_a_type_check_or_says_why_not():
    from cgl.interpreter.check.typecheck import Checks
    names = {c.__name__ for c in STATEMENTS}
    checked = {n for n in names if callable(getattr(Checks, f"c_{n}", None))}
    assert {"Move", "Swap", "Cut"} <= checked
    undecided = sorted(names - checked - set(NO_TYPE_CHECK))
    assert not undecided, ("statements with neither a `Checks.c_<Name>` in typecheck.py nor a reason in "
                           "NO_TYPE_CHECK: " + ", ".join(undecided))
    stale = sorted(set(NO_TYPE_CHECK) & checked) + sorted(set(NO_TYPE_CHECK) - names)
    assert not stale, "NO_TYPE_CHECK lists statements that are checked, or gone: " + ", ".join(stale)


def _statement_keywords() -> list:
    from cgl.interpreter.parse.syntax import _STATEMENT_KEYWORDS
    return [k for k in _STATEMENT_KEYWORDS if k not in ("elif", "else")]   # (parts of `if`)


def test_every_statement_keyword_heads_a_section_of_the_reference():
    import pathlib
    import re
    doc = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    chapter = doc.split("\n## 4. Statements", 1)[1].split("\n## 5.", 1)[0]
    heads = re.findall(r"^#{3,4} .*$", chapter, re.M)
    missing = [k for k in _statement_keywords() if not any(re.search(rf"`(… )?{k}\b", h) for h in heads)]
    assert not missing, "statements with no heading of their own in docs/language.md, chapter 4: " + ", ".join(missing)


def test_every_statement_keyword_is_completed_and_explained_by_the_language_server():
    """The language server reads the keywords from the grammar and what they do from the
    docstrings of the AST classes their examples begin with: each keyword finds one, and
    each statement class (but a procedure call, which has no keyword) is found."""
    from cgl.interpreter.tools.lsp import statement_classes
    found = statement_classes()
    assert sorted(found) == sorted(_statement_keywords())
    reached = {c for cs in found.values() for c in cs}
    assert set(STATEMENTS) - reached == {A.CallStmt}
