"""The generator's switches: a run of `elif` conditions comparing one value with texts as one
look-up of the value in a table of the texts, then a few tests of the branch's number.

`if c.name = "A" { … } elif c.name = "B" or c.name = "C" { … } elif c.name in ["D", "E"] …`
tests the conditions one after another, reading `c.name` each time: a card that none of
them names (the usual case, the card having no such effect) pays for every test. Written as
a switch, the value is read once, where the first condition reads it (its errors pointing
at that condition), and looked up in `{text: branch}`; the branch is then found by halving.
It is exact because the value's reading can neither change anything nor differ between the
conditions (a local, or a local's card data, variable or attribute: no derived property, no
call), and because the conditions compare it with Python's `==` (`x_Compare` and `x_In`
write them so when one side is a text), which the table's look-up is for a value of class
`str`; any other value is compared with each text in the conditions' order
(`runtime._first_equal`), as the conditions would."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..check.resolver import card_attr_meaning
from .writer import _Fn

MIN_SWITCH = 4   # branches: fewer are as cheap tested one by one


class Switches:
    """`text_switch` and `write_switch` (a mixin of CodeGen, used by `Statements.if_chain`)."""

    def text_switch(self, branches, sc) -> Optional[tuple]:
        """(the value compared, [each branch's texts], those branches) for the longest run of
        `branches`, from the first, whose conditions compare one value with texts, when it is
        long enough to be a switch; None otherwise."""
        value, texts = None, []
        for cond, _body in branches:
            found = self._compared_texts(cond, sc)
            if found is None or value is not None and found[0] != value:
                break
            if value is None:
                value = found[0]   # (the first condition's: where an error reading it points)
            texts.append(found[1])
        if len(texts) < MIN_SWITCH or self.hinting or not self._pure_read(value, sc):
            return None
        return value, texts, branches[:len(texts)]

    def _compared_texts(self, cond, sc) -> Optional[tuple]:
        """(E, [texts]) when `cond` is `E = "text"`, `E = "a" or E = "b" …` or `E in ["a", …]`."""
        if isinstance(cond, A.Compare) and cond.op == "=":
            t = self._text_const(cond.right, sc)
            return None if t is None else (cond.left, [t])
        if isinstance(cond, A.Or):
            left, right = self._compared_texts(cond.left, sc), self._compared_texts(cond.right, sc)
            if left is None or right is None or left[0] != right[0]:
                return None
            return left[0], left[1] + right[1]
        if isinstance(cond, A.In) and not cond.negated and isinstance(cond.right, A.ListLit) and cond.right.items:
            texts = [self._text_const(item, sc) for item in cond.right.items]
            return None if None in texts else (cond.left, texts)
        return None

    def _text_const(self, e, sc) -> Optional[str]:
        """The text that `e` always is (as `x_Compare` finds one), or None."""
        if isinstance(e, A.Const) and isinstance(e.value, str):
            return e.value
        if isinstance(e, A.Text) and e.constant is not None:
            return e.constant
        if isinstance(e, A.Name) and e.id in self.rs.enum_members and self.local_of(e, sc) is None:
            u = self.meaning(e)
            return e.id if u.meaning == "enum" and u.kind not in ("it", "maybe") else None
        return None

    def all_texts(self, e, sc) -> bool:
        """Whether `e` is a list of texts written out (`["a", b]`, b an enum's member) or a
        def of no parameters that is one (`literal_def`): a value `v` is in it as Python's
        `in` finds it, whatever `v` is, as `_in_list` would find it."""
        if isinstance(e, A.Name) and self.local_of(e, sc) is None:
            u = self.meaning(e)
            if u.meaning != "def" or u.kind in ("it", "maybe") or self.literal_def(u.name) is None:
                return False
            e = self.rs.defs[u.name].expr
        return isinstance(e, A.ListLit) and bool(e.items) and \
            all(self._text_const(item, sc) is not None for item in e.items)

    def _pure_read(self, e, sc) -> bool:
        """A local, or an attribute of one that is not derived: read without running anything."""
        if isinstance(e, A.Attr):
            return card_attr_meaning(self.rs, e.name) != "derive" and self._pure_read(e.obj, sc)
        return isinstance(e, A.Name) and self.local_of(e, sc) is not None

    def write_switch(self, fn: _Fn, switch, rest, otherwise, sc):
        """The switch's look-up, its branches, and in its place when no text matches, the
        conditions after the run (`rest`) and the `else` (`otherwise`)."""
        value, texts, run = switch
        table = {}
        for i, those in enumerate(texts):
            for t in those:
                table.setdefault(t, i)   # (a text named twice: its first branch, as the tests)
        first = self.k(run[0][0])   # (the first condition's node: where its errors point)
        src = self.x(value, sc, fn)
        v = self.fresh("k")
        if self.cannot_fail(value, sc):
            fn.emit(f"{v} = {src}")
        else:
            fn.emit("try:")
            fn.emit(f"    {v} = {src}")
            fn.emit(f"except _PE as _x: raise _everr(eng, {first}, _x) from None")
        d, tk = self.fresh("d"), self.k(table)
        fn.emit(f"{d} = {tk}.get({v}) if {v}.__class__ is str else _first_equal({v}, {tk})")
        fn.emit(f"if {d} is None:")
        fn.ind += 1
        self.if_chain(fn, rest, otherwise, sc)
        fn.ind -= 1
        fn.emit("else:")
        fn.ind += 1
        self._halves(fn, d, [body for _c, body in run], 0, len(texts), sc)
        fn.ind -= 1

    def _halves(self, fn: _Fn, d, bodies, lo, hi, sc):
        """Branch `d` of bodies[lo:hi], found by halving."""
        if hi - lo == 1:
            self.block(fn, bodies[lo], sc)
            return
        mid = (lo + hi) // 2
        fn.emit(f"if {d} < {mid}:")
        fn.ind += 1
        self._halves(fn, d, bodies, lo, mid, sc)
        fn.ind -= 1
        fn.emit("else:")
        fn.ind += 1
        self._halves(fn, d, bodies, mid, hi, sc)
        fn.ind -= 1
