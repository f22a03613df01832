"""The generated code of what a search evaluates most: hints, estimates and their folds."""
import random

from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.codegen.module import compiled_for
from cgl.interpreter.play.game import Game, play

RULES = """
    derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
    def fit(p, c) = max([count(hand(p) + pile where l in tags and rank != 2) for l in c.tags] + [0])
    def lead(c, p) = c.rank * 10 + count(hand(p)) - count(pile where rank = c.rank)
    def peek(p, c) = if c.rank = 3 then first(hand(first(others(p)))).rank else c.rank
    def above(p, c) = max([count(hand(p) + pile where l in tags and rank >= c.rank) for l in c.tags] + [0])
    setup { deal 3 to hand }
    turn { phase a {
      if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
      draw 1
      let p = current
      choose c in hand(p) by p "Keep" prefer fit(current, c) { }
      choose c in hand(p) by p "Lead" prefer lead(c, p) { }
      choose c in hand(p) by p "Discard" prefer -fit(p, c) { discard c }
      choose c in hand(p) by p "Peek" prefer -peek(p, c) { }
      choose c in hand(p) by p "Above" prefer above(p, c) { }
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
    some option (`peek`, at a card of rank 3) stops with the same E019 at the same place; the
    counts by label kept for all the options (`fit`), not where they read the option
    (`above`). Written as one function per site over the options, not a lambda per option."""
    rs = make_rules(RULES)
    tree, compiled = _scores(rs, "tree", monkeypatch), _scores(rs, "compiled", monkeypatch)
    assert tree == compiled
    assert len({repr(s) for s in compiled if s[0] == "Discard"}) > 10
    assert any(len(s) == 4 and s[1] == "E019" for s in compiled)                  # `peek` refused …
    assert any(len(s) == 2 and s[0] == "Peek" for s in compiled)                   # … not always
    source = compiled_for(rs).source
    assert source.count("eng.hint_scores_of(") == 5 and "eng.hint_scores(" not in source
    assert len({repr(s) for s in compiled if s[0] == "Above"}) > 10
    assert "def DHO1_fit__player_card(" in source and "def DHO0_lead__card_" in source


def test_a_prefer_whose_other_arguments_read_the_option_is_scored_per_option_compiled(make_rules, monkeypatch):
    """Not where another argument reads the option (`fit(owner(c), c)`): a lambda per option,
    the tree walker's scores."""
    rs = make_rules(RULES.replace("prefer fit(current, c)", "prefer fit(owner(c), c)"))
    assert _scores(rs, "tree", monkeypatch) == _scores(rs, "compiled", monkeypatch)
    source = compiled_for(rs).source
    assert source.count("eng.hint_scores_of(") == 4 and source.count("eng.hint_scores(") == 1


def test_a_max_or_min_with_numbers_written_out_starts_from_theirs_compiled(make_rules, monkeypatch):
    """`max`/`min` of whole numbers joined with numbers written out (`max([…] + [0])`, MGT's
    `usefulness`) start their running total from the best of those (`Held.fold_into`): the
    tree walker's values, with several numbers written, before or after, above and below
    the items, an empty comprehension."""
    rs = make_rules("""
        var seen = []
        derive tags = if rank = 1 then [] else [suit] + (if rank > 2 then ["high", suit] else ["low"])
        def hi(p, c) = max([count(hand(p) + pile where l in tags) + count(pile) - 4 for l in c.tags] + [-5, -3, -4])
        def lo(c) = min([3, 5, 2] + [count(pile where l in tags) + count(deck) - 4 for l in c.tags])
        def mid(c) = max([-4, -2] + [count(pile where l in tags) - count(deck) for l in c.tags])
        setup { deal 3 to hand }
        turn { phase a {
          if count(deck) = 0 { move all_cards where it in pile to deck  shuffle deck }
          draw 1
          let p = current
          let a = [hi(p, c) for c in hand(p)]
          let b = [lo(c) for c in hand(p)]
          let m = [mid(c) for c in hand(p)]
          set seen = seen + ["{a} {b} {m}"]
          choose c in hand(p) by p "Discard" { discard c }
          if turn_no >= 14 { end game }
        } }
    """)
    out = []
    for engine in ("tree", "compiled"):
        monkeypatch.setattr("cgl.interpreter.play.game.DEFAULT_ENGINE", engine)
        out.append([play(rs, 2, seed, agents=["random"] * 2).state.globals["seen"] for seed in range(5)])
    assert out[0] == out[1]
    his, los, mids = (set(sum(([int(v) for v in part.strip("[]").split(", ") if v] for game in out[1] for line in game
                               for part in [line.split(" [")[i]]), [])) for i in range(3))
    # the numbers written out best for some cards, an item for others
    assert -3 in his and max(his) > -3 and 2 in los and min(los) < 2 and -2 in mids and max(mids) > -2
    source = compiled_for(rs).source
    assert "_max_list(" not in source and "_min_list(" not in source and "is _MISSING or" not in source
