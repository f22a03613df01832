"""A file's text is parsed once per process: the same path and text give the same AST
without Lark running again; another text, another path, or a text that fails is parsed
afresh; only the last `PARSED_KEPT` files are kept; and two rulesets loaded from one
parsed file play alike and keep their own facts."""
from __future__ import annotations

import pytest

from cgl.grammar import parser
from cgl.interpreter.base.diagnostics import CglError, remembered_source, render_all
from cgl.interpreter.check.loader import load
from cgl.interpreter.check.resolver import facts
from cgl.interpreter.parse import build
from cgl.interpreter.play.game import play

SRC = 'game "G" { players 2 }\nzone deck: shared\n'


@pytest.fixture
def lark_runs(monkeypatch):
    """How many times Lark parses a whole file from here on."""
    runs = []
    lark = parser()
    real = lark.parse

    def counting(text, start=None, **kw):
        if start == "start":
            runs.append(text)
        return real(text, start=start, **kw)
    monkeypatch.setattr(lark, "parse", counting)
    monkeypatch.setattr(build, "_PARSED", {})
    return runs


def test_the_same_text_of_the_same_file_is_parsed_once(lark_runs):
    first = build.parse(SRC, "a.cgl")
    assert build.parse(SRC, "a.cgl") is first
    assert len(lark_runs) == 1
    other = build.parse(SRC + "zone hand: per player\n", "a.cgl")   # the file changed
    assert other is not first and len(other.items) == len(first.items) + 1
    assert build.parse(SRC, "b.cgl").span.path == "b.cgl"            # another file, its own spans
    assert len(lark_runs) == 3


def test_a_text_that_fails_is_refused_each_time_with_its_diagnostic(lark_runs):
    bad = SRC + "zone hand per player\n"
    for _ in range(2):
        with pytest.raises(CglError) as e:
            build.parse(bad, "bad.cgl")
        assert "bad.cgl:3:" in render_all(e.value.diagnostics)
    assert len(lark_runs) == 2


def test_only_the_last_files_are_kept(lark_runs):
    build.parse(SRC, "first.cgl")
    for i in range(build.PARSED_KEPT):
        build.parse(SRC, f"f{i}.cgl")
    assert len(build._PARSED) == build.PARSED_KEPT
    build.parse(SRC, "first.cgl")             # pushed out by the others: parsed again
    assert len(lark_runs) == build.PARSED_KEPT + 2
    build.parse(SRC, f"f{build.PARSED_KEPT - 1}.cgl")   # recently used: kept
    assert len(lark_runs) == build.PARSED_KEPT + 2


def test_a_quoted_source_line_follows_the_text_last_parsed(lark_runs):
    """A diagnostic quotes the file's text as last parsed, also when that text's AST is
    kept (the language server parses a document's unsaved text, then checks it)."""
    one, two = SRC + "# one\n", SRC + "# two\n"
    for text in (one, two, one):
        build.parse(text, "g.cgl")
        assert remembered_source("g.cgl") == text
    assert len(lark_runs) == 2


@pytest.mark.parametrize("engine", ["tree", "compiled"])
def test_two_rulesets_from_one_parsed_file_play_alike(lark_runs, engine):
    a, b = load("mgt"), load("mgt")
    assert a.game is b.game and a is not b
    assert len(lark_runs) == 1
    ra = play(a, 4, 3, agents=["random"] * 4, record=False, engine=engine).result
    rb = play(b, 4, 3, agents=["random"] * 4, record=False, engine=engine).result
    assert (ra.winners, ra.rounds, ra.players, ra.stats) == (rb.winners, rb.rounds, rb.players, rb.stats)
    assert facts(a) is not facts(b) and facts(a).uses.keys() == facts(b).uses.keys()
