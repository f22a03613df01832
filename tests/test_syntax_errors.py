"""The common syntax slips a newcomer makes, each with the whole message it now gets
(location, source line, caret, help), through `parse` and through `cgl lint`; and the
Python API's message for an answer out of range."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.parse.build import parse
from cgl.interpreter.base.diagnostics import CglError, render_all
from cgl.interpreter.walker.engine import AnswerError
from cgl.interpreter.play.game import Game

HEAD = 'game "G" { players 2 }\nzone deck: shared\nzone hand: per player\n'

SLIPS = [
    ('else_if_after_choose', HEAD + """\
turn {
  phase p {
    choose c in hand(current) { pass } else if true { pass }
  }
}
""",
     """\
g.cgl:6:40: E001 `else if` continues an `if` only: this `else` belongs to a `choose` or a `may` and takes a block
   6 |     choose c in hand(current) { pass } else if true { pass }
                                              ^^^^^^^
  help: write `else { if condition { … } }`"""),
    ('misspelt_statement', HEAD + """\
turn {
  phase p {
    drew 1
  }
}
""",
     """\
g.cgl:6:5: E001 `drew` does not start a statement
   6 |     drew 1
           ^^^^
  help: did you mean `draw`?"""),
    ('misspelt_statement_shuffle', HEAD + """\
setup {
  shufle deck
}
""",
     """\
g.cgl:5:3: E001 `shufle` does not start a statement
   5 |   shufle deck
         ^^^^^^
  help: did you mean `shuffle`?"""),
    ('elsif', HEAD + """\
turn {
  phase p {
    if true { pass }
    elsif false { pass }
  }
}
""",
     """\
g.cgl:7:5: E001 `elsif` does not start a statement
   7 |     elsif false { pass }
           ^^^^^
  help: CGL writes `elif`: `if a { … } elif b { … } else { … }`"""),
    ('unterminated_string', HEAD + """\
setup {
  say "Welcome to the game
}
""",
     """\
g.cgl:5:7: E001 this string is not closed
   5 |   say "Welcome to the game
             ^
  help: end it with `"` on the same line (a string cannot span lines)"""),
    ('single_quotes', HEAD + """\
setup {
  say 'hello'
}
""",
     """\
g.cgl:5:7: E001 unexpected character `'`
   5 |   say 'hello'
             ^
  help: texts are written in double quotes"""),
    ('assignment_without_set', HEAD + """\
var score per player = 0
turn {
  phase p {
    current.score = 1
  }
}
""",
     """\
g.cgl:7:5: E001 `current` does not start a statement
   7 |     current.score = 1
           ^^^^^^^
  help: to change a value, write `set current.score = 1`"""),
    ('semicolon', HEAD + """\
setup {
  shuffle deck;
}
""",
     """\
g.cgl:5:15: E001 unexpected character `;`
   5 |   shuffle deck;
                     ^
  help: CGL needs no `;`: a new statement simply starts with its keyword"""),
    ('double_ampersand', HEAD + """\
def both = true && false
""",
     """\
g.cgl:4:17: E001 unexpected character `&&`
   4 | def both = true && false
                       ^^
  help: write `and` instead of `&&`"""),
    ('double_bar', HEAD + """\
turn {
  phase p {
    if count(deck) = 0 || count(hand(current)) = 0 { end turn }
  }
}
""",
     """\
g.cgl:6:24: E001 unexpected `||`
   6 |     if count(deck) = 0 || count(hand(current)) = 0 { end turn }
                              ^^
  help: write `or` instead of `||`"""),
    ('emit_without_parentheses', HEAD + """\
turn {
  phase p {
    emit scored
  }
}
""",
     """\
g.cgl:7:3: E001 unexpected `}`: expected `(`
   7 |   }
         ^"""),
    ('colon_block', HEAD + """\
turn {
  phase p {
    if count(deck) = 0:
      end turn
  }
}
""",
     """\
g.cgl:6:23: E001 unexpected `:` at the end of the line
   6 |     if count(deck) = 0:
                             ^
  help: a block is written in braces: `if condition { … }`"""),
    ('misspelt_keyword', """\
game "G" { players 2 }
zone deck: shared, pubic
""",
     """\
g.cgl:2:20: E001 unexpected `pubic`: expected `as`, `hidden`, `ordered`, `owner`, `per`, `public` or …
   2 | zone deck: shared, pubic
                          ^^^^^
  help: did you mean `public`?"""),
    ('misspelt_end_scope', HEAD + """\
turn {
  phase p {
    end trun
  }
}
""",
     """\
g.cgl:6:9: E001 unexpected `trun`: expected `turn`, `round`, `game` or `phase`
   6 |     end trun
               ^^^^
  help: did you mean `turn`?"""),
    ('misspelt_declaration', HEAD + """\
variable score per player = 0
""",
     """\
g.cgl:4:1: E001 `variable` does not start a declaration
   4 | variable score per player = 0
       ^^^^^^^^
  help: did you mean `var`?"""),
    ('misspelt_declaration_short', HEAD + """\
zon pile: shared
""",
     """\
g.cgl:4:1: E001 `zon` does not start a declaration
   4 | zon pile: shared
       ^^^
  help: did you mean `zone`?"""),
    ('missing_close_brace', HEAD + """\
on deal {
  say "dealt"
turn {
  phase p { pass }
}
""",
     """\
g.cgl:6:1: E001 `turn` starts a declaration, but a block is still open
   6 | turn {
       ^^^^
  help: the block `on deal {` opened at line 4 is still open: close it with `}` before this line"""),
    ('extra_close_brace', HEAD + """\
setup {
  shuffle deck
}
}
""",
     """\
g.cgl:7:1: E001 this `}` closes nothing: there is no open `{` before it
   7 | }
       ^
  help: remove it, or look for a block closed twice above"""),
    ('unclosed_paren', HEAD + """\
turn {
  phase p {
    let n = max(count(deck), 1
    pass
  }
}
""",
     """\
g.cgl:7:5: E001 unexpected `pass`: expected `)`, `,`, `group`, `sort` or `where`
   7 |     pass
           ^^^^
  help: the `(` at line 6, column 16 is not closed"""),
    ('end_of_file', HEAD + """\
turn {
  phase p {
    pass
  }
""",
     """\
g.cgl:7:4: E001 the file ends too early
   7 |   }
          ^
  help: the block `turn {` opened at line 4 is still open"""),
]


@pytest.mark.parametrize("name, src, message", SLIPS, ids=[s[0] for s in SLIPS])
def test_syntax_slip_gets_a_message_that_helps(name, src, message):
    with pytest.raises(CglError) as e:
        parse(src, "g.cgl")
    assert render_all(e.value.diagnostics) == message


def test_still_open_note_only_when_the_open_block_is_the_cause():
    # a slip inside a block is not blamed on the block around it
    for name, _, message in SLIPS:
        if name not in ("missing_close_brace", "end_of_file"):
            assert "still open" not in message, name


def test_cgl_lint_shows_the_slip_and_exits_1(tmp_path):
    (tmp_path / "g.cgl").write_text(HEAD + "turn {\n  phase p {\n    drew 1\n  }\n}\n")
    out = CliRunner().invoke(main, ["lint", str(tmp_path / "g.cgl")])
    assert out.exit_code == 1
    assert "g.cgl:6:5: E001 `drew` does not start a statement" in out.output
    assert "help: did you mean `draw`?" in out.output and "Traceback" not in out.output


@pytest.mark.both_engines
def test_answer_out_of_range_names_the_0_based_range(make_rules, engine):
    rs = make_rules("""
        match { rounds 1 }
        round { start { deal 3 to hand } until turn_no >= 1 }
        turn { phase p { choose c in hand(current) { discard c } } }
    """)
    g = Game(rs, 2, 0)
    d = g.start()
    assert len(d.options) == 3   # Game.answer takes an index into d.options
    with pytest.raises(AnswerError) as e:
        g.answer(3)
    assert str(e.value) == "no option 3: options are numbered from 0 to 2 (the index in `options`)"
    with pytest.raises(AnswerError) as e:
        g.answer([0, -1])
    assert str(e.value) == "no option -1: options are numbered from 0 to 2 (the index in `options`)"
    with pytest.raises(AnswerError) as e:
        g.answer(True)
    assert str(e.value) == "answer with an option's index, options are numbered from 0 to 2 (the index in `options`)"
    assert g.answer(2) is None


def test_the_keywords_of_did_you_mean_are_read_from_the_grammar():
    """The words a statement or a declaration starts with come from the grammar (its
    `_stmt` and `_item` rules), not from a second list: every one parses where the grammar
    puts it, and a misspelt one is answered with the grammar's own word."""
    import pathlib

    from cgl.interpreter.parse import syntax
    assert {"MOVE", "SHUFFLE", "EMIT", "PASS"} <= syntax._STATEMENT_WORDS
    assert {"GAME", "ZONE", "ESTIMATE", "CHECK"} <= syntax._DECL_WORDS
    text = pathlib.Path(syntax.__file__).read_text(encoding="utf-8")
    assert '"SHUFFLE"' not in text and '"INVARIANT"' not in text


@pytest.mark.parametrize("body,field", [("labels [it.suit]", "cards"), ("cards hand(p)", "labels")])
def test_a_pattern_without_its_cards_or_labels_is_located(body, field):
    """A pattern (an `override pattern` too: it replaces the base's whole) needs `cards` and
    `labels`; without one the generator once met a missing expression and crashed (found by
    the mutation test dropping the `cards` line of mgt-v0.1's `override pattern winning`)."""
    src = f'game "G" {{ players 2 }}\noverride pattern flush(p) {{\n  {body}\n  shape three: 3\n}}\n'
    with pytest.raises(CglError) as e:
        parse(src, "g.cgl")
    d = e.value.diagnostics[0]
    assert d.code == "E001" and f"pattern `flush` has no `{field}`" in d.message and d.span.line == 2
    assert "a pattern names" in d.hint
