"""A `prefer` that is a def called with the option (`-usefulness(p, c)`) is compiled as one
function of all the options (`Statements.def_over_options`, `Expressions.hint_def_over`)."""
import random

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.codegen.module import compiled_for
from cgl.interpreter.play.game import Game

RULES = """
    derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
    def fit(p, c) = max([count(hand(p) + pile where l in tags and rank != 2) for l in c.tags] + [0])
    def lead(c, p) = c.rank * 10 + count(hand(p)) - count(pile where rank = c.rank)
    def peek(p, c) = if c.rank = 3 then first(hand(first(others(p)))).rank else c.rank
    setup { deal 3 to hand }
    turn { phase a {
      if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
      draw 1
      let p = current
      choose c in hand(p) by p "Keep" prefer fit(current, c) { }
      choose c in hand(p) by p "Lead" prefer lead(c, p) { }
      choose c in hand(p) by p "Discard" prefer -fit(p, c) { discard c }
      choose c in hand(p) by p "Peek" prefer -peek(p, c) { }
      if turn_no >= 12 { end game }
    } }
"""


def _scores(rs, engine, monkeypatch, seeds=8):
    """Every decision's scores in seeded games (answered at random), or the error a hint
    stopped with, as (code, line, column)."""
    monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
    out = []
    for seed in range(seeds):
        game, pick = Game(rs, 2, seed), random.Random(seed)
        d = game.start()
        while d is not None:
            try:
                out.append((d.prompt, d.scores()))
            except CglError as e:
                diag = e.diagnostics[0]
                out.append((d.prompt, diag.code, diag.span.line, diag.span.column))
            d = game.answer(pick.randrange(len(d.options)))
    return out


def test_a_prefer_calling_a_def_with_the_option_scores_all_options_at_once_compiled(make_rules, monkeypatch):
    """The tree walker's scores: the option as the def's last argument or its first, the
    other argument a local or `current`, negated or not; a hint that reads a hidden card for
    some option (`peek`, at a card of rank 3) stops with the same E019 at the same place.
    Written as one function per site over the options, not a lambda per option."""
    rs = make_rules(RULES)
    tree, compiled = _scores(rs, "tree", monkeypatch), _scores(rs, "compiled", monkeypatch)
    assert tree == compiled
    assert len({repr(s) for s in compiled if s[0] == "Discard"}) > 10
    assert any(len(s) == 4 and s[1] == "E019" for s in compiled)                  # `peek` refused …
    assert any(len(s) == 2 and s[0] == "Peek" for s in compiled)                   # … not always
    source = compiled_for(rs).source
    assert source.count("eng.hint_scores_of(") == 4 and "eng.hint_scores(" not in source
    assert "def DHO1_fit__player_card(" in source and "def DHO0_lead__card_" in source


def test_a_prefer_whose_other_arguments_read_the_option_is_scored_per_option_compiled(make_rules, monkeypatch):
    """Not where another argument reads the option (`fit(owner(c), c)`): a lambda per option,
    the tree walker's scores."""
    rs = make_rules(RULES.replace("prefer fit(current, c)", "prefer fit(owner(c), c)"))
    assert _scores(rs, "tree", monkeypatch) == _scores(rs, "compiled", monkeypatch)
    source = compiled_for(rs).source
    assert source.count("eng.hint_scores_of(") == 3 and source.count("eng.hint_scores(") == 1
