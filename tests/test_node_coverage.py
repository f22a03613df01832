"""Every construct of the language has a meaning on both engines.

The classes of interpreter/base/ast.py are found by introspection: each expression class (a
subclass of `ast.Expr`) needs a tree-walker handler, `Compiler.c_<Name>` in compiler.py,
a generator emitter, `CodeGen.x_<Name>` (interpreter/codegen/expressions.py), and its meaning
without playing, `Statics.v_<Name>` (interpreter/check/statics.py, which lint and the language
server judge with); each statement class (a
subclass of `ast.Stmt`) needs a tree-walker handler in the `_EXEC` table of engine.py and
a generator emitter, `CodeGen.s_<Name>` (interpreter/codegen/statements.py; without one,
the generator quietly hands the statement to the tree walker). A node added to the grammar without both fails here, named.
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
