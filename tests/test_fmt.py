"""`cgl fmt`: one layout, comments kept, idempotent, and never a change of meaning."""
from __future__ import annotations

import glob
import os
import re
import textwrap

import pytest
from click.testing import CliRunner

from cgl.cli.main import main
from cgl.interpreter.parse.build import parse
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.tools.fmt import format_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = sorted(glob.glob(os.path.join(ROOT, "rulesets", "*.cgl")) + glob.glob(os.path.join(ROOT, "examples", "*.cgl")))


def cli(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def comment_texts(text: str) -> list:
    """The text of every comment, in order (a `#` outside a string starts one)."""
    return [m.group(1).rstrip() for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|(#[^\n]*)', text) if m.group(1)]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: os.path.relpath(p, ROOT))
def test_shipped_files_format_idempotently_keeping_meaning_and_comments(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    once = format_text(text, path)
    assert format_text(once, path) == once
    assert parse(once, path).items == parse(text, path).items
    assert comment_texts(once) == comment_texts(text)
    # every comment line keeps its text, whole
    kept = {line.strip() for line in once.splitlines()}
    for line in text.splitlines():
        if line.strip().startswith("#"):
            assert line.strip() in kept


def test_spacing_and_indentation_are_normalised():
    messy = src('''
        game   "Messy"{version "1"
        players 2..4
        }
        zone deck :shared,hidden , as deck
        zone hand: per player,owner,as hand
        var score per player=0
        def best(p)=max( [ c.rank for c in hand( p ) ] + [0] )
        def odd(x) = -x+ 2d6 -d6 * (x//2)
        turn {
        phase play { choose c in hand(current) by current "Pick" prefer -c.rank {discard c}
        if best(current)>3 {set current.score+=1 set current.score -= -1} else {pass}
            }
        }
    ''')
    assert format_text(messy) == src('''
        game "Messy" { version "1"
          players 2..4
        }

        zone deck: shared, hidden, as deck
        zone hand: per player, owner, as hand
        var score per player = 0
        def best(p) = max([c.rank for c in hand(p)] + [0])
        def odd(x) = -x + 2d6 - d6 * (x // 2)

        turn {
          phase play { choose c in hand(current) by current "Pick" prefer -c.rank { discard c }
            if best(current) > 3 { set current.score += 1  set current.score -= -1 } else { pass }
          }
        }
    ''')


def test_blank_lines_collapse_and_leave_block_edges():
    text = "\n\n\nsetup {\n\n  shuffle deck\n\n\n\n  shuffle deck\n\n}\n\n\n\nzone deck: shared\n\n\n"
    assert format_text(text) == "setup {\n  shuffle deck\n\n  shuffle deck\n}\n\nzone deck: shared\n"


def test_continuation_lines_keep_their_offset_when_their_block_moves():
    text = src('''
        setup {
              let x = [1, 2,
                       3]
              let y = if true
                        then 1
                        else 2
        }
    ''')
    assert format_text(text) == src('''
        setup {
          let x = [1, 2,
                   3]
          let y = if true
                    then 1
                    else 2
        }
    ''')


def test_comments_in_awkward_places_stay_where_they_are():
    text = src('''
        # top of file
        zone deck: shared, as deck   # trailing, aligned by hand
        zone pile: shared            # MGT-PILE
        derive big = if count > 3    # after a partial expression
                       # between continuation lines
                       then 1
                       else 0
        setup {   # after an opening brace
              # first in a block
          if true {
            shuffle deck
              # just before a closing brace
          }
        # decision: between `}` and `else`
          else { pass }
          let xs = [1,   # inside brackets
                    2]
        }
        # at the very end, no newline''').rstrip("\n")
    out = format_text(text)
    assert comment_texts(out) == comment_texts(text)
    assert format_text(out) == out
    assert out.endswith("# at the very end, no newline\n")
    lines = out.splitlines()
    assert "zone deck: shared, as deck   # trailing, aligned by hand" in lines
    assert "zone pile: shared            # MGT-PILE" in lines
    assert "               # between continuation lines" in lines
    assert "setup {   # after an opening brace" in lines
    assert "  # first in a block" in lines
    assert "    # just before a closing brace" in lines
    assert "  # decision: between `}` and `else`" in lines
    assert "  let xs = [1,   # inside brackets" in lines


def test_a_trailing_comment_is_pushed_right_of_code_that_grows():
    assert format_text("var x=1+2 # note\n") == "var x = 1 + 2  # note\n"


def test_else_if_is_written_elif_in_statements_and_expressions():
    text = src("""
        def f(x) = if x = 1 then 1 else if x = 2 then 2
          else if x = 3 then 3 else 4
        setup {
          if f(1) = 1 {
            pass
          } else if f(2) = 2 { pass } else { pass }
        }
    """)
    assert format_text(text) == src("""
        def f(x) = if x = 1 then 1 elif x = 2 then 2
          elif x = 3 then 3 else 4

        setup {
          if f(1) = 1 {
            pass
          } elif f(2) = 2 { pass } else { pass }
        }
    """)


def test_computed_choice_bounds_and_ordered_by_prefer_round_trip():
    text = src("""
        procedure tidy(p) {
          choose  1 ..( count(hand(p))-1 ) cs in hand(p) { pass }
          for c in hand(p) ordered by p "First?"   prefer -c.rank { pass }
        }
        on draw as omen ordered by player  prefer rank { pass }
    """)
    once = format_text(text)
    assert once == src("""
        procedure tidy(p) {
          choose 1..(count(hand(p)) - 1) cs in hand(p) { pass }
          for c in hand(p) ordered by p "First?" prefer -c.rank { pass }
        }

        on draw as omen ordered by player prefer rank { pass }
    """)
    assert format_text(once) == once and parse(once, "x").items == parse(text, "x").items


def test_strings_and_hash_signs_inside_them_are_untouched():
    text = 'setup { say "a  #  b {count(players)}" }\n'
    assert format_text(text) == text


def test_a_file_that_does_not_parse_is_a_located_error():
    with pytest.raises(CglError) as e:
        format_text('game "x" {\n  players 2..\n', "bad.cgl")
    assert e.value.diagnostics[0].span.path == "bad.cgl"


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.cgl"
    good.write_text('zone deck: shared\n')
    ugly = tmp_path / "ugly.cgl"
    ugly.write_text('zone deck :shared\n')
    return tmp_path, good, ugly


def test_check_lists_files_that_would_change_and_exits_1(files):
    folder, good, ugly = files
    r = cli("fmt", "--check", str(folder))
    assert r.exit_code == 1
    assert f"Would reformat: {ugly}" in r.output and str(good) not in r.output
    assert ugly.read_text() == "zone deck :shared\n"  # --check changes nothing
    assert cli("fmt", "--check", str(good)).exit_code == 0


def test_fmt_rewrites_then_check_passes(files):
    folder, good, ugly = files
    r = cli("fmt", str(folder))
    assert r.exit_code == 0
    assert "1 file reformatted, 1 file left unchanged" in r.output
    assert ugly.read_text() == "zone deck: shared\n"
    assert cli("fmt", "--check", str(folder)).exit_code == 0


def test_diff_shows_the_change_without_making_it(files):
    _, _, ugly = files
    r = cli("fmt", "--diff", str(ugly))
    assert r.exit_code == 1
    assert "-zone deck :shared\n+zone deck: shared\n" in r.output
    assert ugly.read_text() == "zone deck :shared\n"


def test_a_file_that_does_not_parse_exits_2_with_a_located_error(files):
    folder, _, _ = files
    (folder / "bad.cgl").write_text('game "x" {\n  players 2..\n')
    r = cli("fmt", "--check", str(folder))
    assert r.exit_code == 2
    assert "bad.cgl:2:" in r.output and "E001" in r.output and "Traceback" not in r.output
    assert cli("fmt", str(folder / "missing.cgl")).exit_code == 2


def test_standard_input_to_standard_output():
    r = cli("fmt", "-", input="zone deck :shared\n")
    assert r.exit_code == 0 and r.output == "zone deck: shared\n"


def test_top_level_blocks_over_several_lines_are_set_apart_with_their_comments():
    text = src('''
        zone deck: shared
        # a note that belongs to the action below
        action play(c in hand(actor))
            when count(hand(actor)) > 0
            prefer 1 {
          pass
        }
        action draw_card "Draw a card" prefer 1 { pass }
        def one = 1
    ''')
    assert format_text(text) == src('''
        zone deck: shared

        # a note that belongs to the action below
        action play(c in hand(actor))
            when count(hand(actor)) > 0
            prefer 1 {
          pass
        }

        action draw_card "Draw a card" prefer 1 { pass }
        def one = 1
    ''')
