"""The generated module's namespace stays one CPython specialises `LOAD_GLOBAL` in."""
from __future__ import annotations

import dis
import io
import sys

import pytest

from cgl.interpreter.check.loader import load
from cgl.interpreter.codegen import compiled_for
from cgl.interpreter.play.game import play


def _specialised_globals(fn) -> bool:
    """Whether CPython specialised a `LOAD_GLOBAL` of `fn` (its adaptive interpreter, 3.11 on)."""
    out = io.StringIO()
    dis.dis(fn, adaptive=True, file=out)
    return any(op in out.getvalue() for op in ("LOAD_GLOBAL_MODULE", "LOAD_GLOBAL_BUILTIN"))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the adaptive interpreter came in 3.11")
def test_the_generated_modules_globals_stay_specialised_compiled():
    """A key that is a subclass of `str` (a `writer.Var`) written into the generated module's
    namespace turns CPython's dict into a general one, and then no `LOAD_GLOBAL` of the
    module's functions or of its runners is ever specialised: 10 % more instructions a round
    of MGT, the games the same (seen once, mgt35). After a few games, its hot functions read
    globals specialised."""
    rs = load("mgt")
    for seed in range(3):
        play(rs, 4, seed, agents=["random"] * 4, record=False)
    cx = compiled_for(rs, budget=True)
    assert all(type(k) is str for k in cx.ns)
    assert _specialised_globals(cx.ns["P_after_discard__player"])
    assert any(_specialised_globals(run) for run in cx.runners.values())   # (the hot ones: a rare one may not be yet)
