"""Cards found by a value of their data, through tables made as the module is written (a
mixin of :class:`~cgl.interpreter.codegen.generator.CodeGen`).

A card's data never changes, so which cards hold each value of a property (`name`, `kind`)
is known before the game: `{value: the ids holding it}`. Two forms use it, each only where
the value X sought is a text for sure (typed `str`, read once, unable to fail) and the
property is data every card has, with values Python can hash (a text's `==` is then the
dict's own: the same pairs match as the loop's `==` would find):

- `exists(ZONE where PROP = X)` (`count_by_data`'s whether-any form) asks whether the
  zone's ids meet the set of the ids holding X (`frozenset.isdisjoint`, in C), not each
  card's PROP compared in turn: Unstable Unicorns' `has(p, name)`, about 550 times a game.
- `all_cards where … and PROP = X and …` (a leading test; the tests before it are of forms
  that cannot fail nor change anything: another such test, `zone = "Z"`) loops over the
  cards holding X only, in id order (the order of `all_cards`); the whole test still runs
  on each, and the cards left out would have failed it at that test without any later test
  being evaluated (`in_play(n)`: one or two cards, not every card in a stable).

Not in a hint (whose reads of a card's face are watched: `Expressions.hint`).
"""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..check.resolver import card_attr_meaning
from ..check.typecheck import Binding as _Binding
from ..runtime import builtins as B

_NO_IDS = frozenset()


class ByValue:
    """Tables of the cards holding each value of a property, and the code that reads them."""

    def value_ids(self, prop: str) -> Optional[dict]:
        """`{value: tuple of the ids of the cards whose data PROP holds it, in id order}`, or
        None when a card has no PROP or a value cannot be hashed (made once per property)."""
        tables = self.__dict__.setdefault("_value_ids", {})
        if prop not in tables:
            found: Optional[dict] = {}
            try:
                for card in self.rs.cards:
                    found.setdefault(card.props[prop], []).append(card.id)
            except (KeyError, TypeError):
                found = None
            tables[prop] = None if found is None else {v: tuple(sorted(ids)) for v, ids in found.items()}
        return tables[prop]

    def value_sets(self, prop: str) -> Optional[dict]:
        """`value_ids` with each value's ids as a frozenset (for `isdisjoint`), or None."""
        sets = self.__dict__.setdefault("_value_sets", {})
        if prop not in sets:
            ids = self.value_ids(prop)
            sets[prop] = None if ids is None else {v: frozenset(i) for v, i in ids.items()}
        return sets[prop]

    def text_by_data(self, c, sc) -> Optional[str]:
        """PROP of a test `c` of the form `PROP = X` (PROP the card data of `it`, X a text for
        sure that `cannot_fail`, the property one `value_ids` has a table of), else None."""
        if self.hinting or not (isinstance(c, A.Compare) and c.op == "=" and isinstance(c.left, A.Name)):
            return None
        name = c.left.id
        if self.meaning(c.left).kind != "it" or card_attr_meaning(self.rs, name) in ("var", "derive") \
                or name not in self.card_props or not self.cannot_fail(c.right, sc) or self.ty(c.right, sc) != "str":
            return None
        return name if self.value_ids(name) is not None else None

    def exists_by_text(self, c, sc, fn, ids: str) -> Optional[str]:
        """`exists(ZONE where PROP = X)` (its test `c`, the zone's ids `ids`) as whether the
        zone holds one of the cards holding X (`text_by_data`), or None."""
        prop = self.text_by_data(c, sc)
        if prop is None:
            return None
        x = self.x(c.right, sc, fn)
        return f"(not {self.k(self.value_sets(prop))}.get({x}, {self.k(_NO_IDS)}).isdisjoint({ids}))"

    def all_cards_by_value(self, e, sc, fn) -> Optional[str]:
        """Python for the cards `all_cards where T1 and … and PROP = X and …` (the `where`
        `e`) can keep: those holding X (`text_by_data`), in id order, when each test before
        it is another such test or `zone = "Z"`; None for any other `where`."""
        if self.hinting or not (isinstance(e.source, A.Name) and e.source.id == B.EVERY_CARD
                                and self.local_of(e.source, sc) is None and self.meaning(e.source).meaning == "builtin"):
            return None
        tests = []
        c = e.cond
        while isinstance(c, A.And):
            tests.append(c.right)
            c = c.left
        tests.append(c)
        inner = sc.child()   # (`it` the card: `x_Where`'s scope, nothing written in it)
        inner.names["it"] = _Binding("_", False, fn, "card")
        for t in reversed(tests):   # (the first test first)
            prop = self.text_by_data(t, inner)
            if prop is not None:
                return f"map(eng.cards.__getitem__, {self.k(self.value_ids(prop))}.get({self.x(t.right, sc, fn)}, ()))"
            if not self._zone_test(t):
                return None
        return None

    def _zone_test(self, t) -> bool:
        """Whether test `t` is `zone = "Z"` (where the card lies): it cannot fail nor change anything."""
        return isinstance(t, A.Compare) and t.op == "=" and isinstance(t.left, A.Name) and t.left.id == "zone" \
            and self.meaning(t.left).kind == "it" and not self.zone_in_data \
            and card_attr_meaning(self.rs, "zone") == "data" \
            and isinstance(t.right, A.Text) and t.right.constant is not None
