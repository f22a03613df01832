"""The generator's loop-invariant reads: a loop's zone listed once per expression."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from .writer import Var


class Held:
    """A mixin of CodeGen, used by `x_Where` and `x_Comprehension` (expressions.py).

    A loop's zone read once per expression: a comprehension or `where` inside another loop
    of the same expression goes round the same zone each time the outer loop does (MGT's
    `usefulness`: the hand and table again for every label), and nothing can change a zone
    while an expression is evaluated. Its cards are listed the first time round, where the
    loop stood (so what fails, fails there and then), and kept in a variable of the
    expression's memo (`memo_var`'s, reset as the expression starts) for the other turns.
    Decided on the nodes: what the zone expression names and, for a player's zone, the
    binding of its player (`local_of`), against the loops open where it is written."""

    def held_source(self, e, sc, fn) -> Optional[tuple]:
        """(the variable holding zone expression `e`'s cards, Python listing them) when `e` is
        the source of a loop inside another loop of the expression being written and reads
        nothing that changes as those loops go round; else None."""
        if fn is None or fn.memo is None or not fn.comp_vars or fn.iterable or fn.lambdas:
            return None
        key = self.zone_read(e, sc, fn)
        if key is None or self.ty(e, sc) not in ("zone", "cards"):
            return None
        key = ("zone", key)
        m, n = fn.memo.get(key) or (self.fresh("z"), 0)
        fn.memo[key] = m, n + 2   # (kept even when read in one place: it is read each time round)
        return Var(m), self.cards_src(e, sc, fn)

    def zone_read(self, e, sc, fn) -> Optional[tuple]:
        """What zone expression `e` reads, as a key (zone names, and the variables of the
        players whose zones it reads), when that is the same each time round the loops open
        in `fn` (a declared zone, `hand(p)` of a local `p` bound outside them, a sum of
        those); None for anything else."""
        if self.zone_named(e, sc):
            return (e.id,)
        if self.player_zone_call(e) and isinstance(e.args[0], A.Name):
            b = self.local_of(e.args[0], sc)
            if b is None or b.maybe or b.var in fn.comp_vars:
                return None
            return ((e.name, b.var),)
        if isinstance(e, A.BinOp) and e.op == "+":
            a, b = self.zone_read(e.left, sc, fn), self.zone_read(e.right, sc, fn)
            return None if a is None or b is None else a + b
        return None

    @staticmethod
    def over_held(held, loop: str) -> str:
        """`loop` (a comprehension over `held`'s variable), listing the cards first when this
        is the first time round. (Python refuses `:=` in a comprehension's iterable: the
        condition sets the variable, and is always true.)"""
        if held is None:
            return loop
        m, cards = held
        return f"({loop} if {m} is not _MISSING or ({m} := {cards}) is not None else None)"
