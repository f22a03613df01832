"""The generator's expressions written as statements: where a statement evaluates an
expression anyway (a def's body, an estimate, a condition), its comprehensions as loops."""
from __future__ import annotations

from typing import Optional

from attrs import evolve as attrs_evolve

from ..base import ast as A
from ..check.resolver import call_meaning, card_attr_meaning
from ..check.typecheck import Binding as _Binding
from ..base.protocol import MAX_LIST
from ..runtime import builtins as B
from .writer import Lit, Var, _Fn

#: The `on_count` of a built-in count that asks only whether there is one (`count(…) > 0`).
WHETHER_ANY = "({0} > 0)"


class AsStatements:
    """`ev_into` and its loops (a mixin of CodeGen, used by the statements and by held.py)."""

    # ------------------------------------------------------------ expressions as statements
    # Python 3.11 runs each list comprehension in a frame of its own; where an expression is
    # evaluated by a statement anyway, its comprehensions are written as loops instead. The
    # order of evaluation and the short-circuits stay those of the expression.
    def has_loop(self, e) -> bool:
        key = id(e)
        v = self._loops.get(key)
        if v is None:
            self._loops[key] = False   # a def calling itself: no loop found through the cycle
            v = self._loops[key] = any(
                isinstance(n, (A.Comprehension, A.Where))
                # a def written in place (`inline_def`) brings its loops with it
                or isinstance(n, A.Call) and call_meaning(self.rs, n.name) == "def"
                and self.has_loop(self.rs.defs[n.name].expr)
                for n in A.walk(e))
        return v

    def ev_into(self, fn: _Fn, e, sc) -> str:
        """Write statements computing `e` (at fn's indent); a Python expression for its value."""
        if not self.has_loop(e) and not (isinstance(e, A.Call) and self._inlinable(e, sc)):
            return self.x(e, sc, fn)
        if fn.stmt_memo is not None:
            return self._ev_into(fn, e, sc)
        # The statements of one expression: a def written in place in it twice
        # with the same arguments is worked out once (`memo_var`), its variable reset as they
        # start. Written twice: the first time finds which calls come more than once.
        fn.stmt_memo, fn.memo_keep = {}, None
        at, ind = len(fn.lines), fn.ind
        fn.memo_at, fn.memo_inloop = {}, fn.inloop
        try:
            src = self._ev_into(fn, e, sc)
            if fn.stmt_memo:
                fn.memo_keep = {key for key, (_, n) in fn.stmt_memo.items() if n > 1}
                del fn.lines[at:]
                fn.stmt_memo, fn.memo_at = {}, {}
                src = self._ev_into(fn, e, sc)
            memo = fn.stmt_memo
        finally:
            fn.stmt_memo = fn.memo_keep = fn.memo_at = None
        kept = fn.outside or ()   # (a hint's memos the same for every option: before its loop)
        fn.lines[at:at] = ["    " * ind + f"{m} = {self.memo_init(key)}" for key, (m, _) in memo.items() if m not in kept]
        if kept:
            line, outer = fn.outside_at
            fn.lines[line:line] = ["    " * outer + f"{m} = {self.memo_init(key)}"
                                   for key, (m, _) in sorted(memo.items(), key=lambda i: i[1][0]) if m in kept]
        return src

    def _ev_into(self, fn: _Fn, e, sc) -> str:
        if not self.has_loop(e) and not (isinstance(e, A.Call) and self._inlinable(e, sc)):
            return self.x(e, sc, fn)
        if isinstance(e, (A.Comprehension, A.Where)):
            return self.loop_into(fn, e, sc)
        if isinstance(e, A.IfExpr):
            t = self.fresh()
            fn.emit(f"if {self.ev_into(fn, e.cond, sc)}:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e.then, self._narrowed(e, sc))}")
            fn.ind -= 1
            fn.emit("else:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e.otherwise, sc)}")
            fn.ind -= 1
            return t
        if isinstance(e, (A.And, A.Or)):
            t = self.fresh()
            fn.emit(f"{t} = {self._bool_src(self.ev_into(fn, e.left, sc), e.left, sc)}")
            fn.emit(f"if {t}:" if isinstance(e, A.And) else f"if not {t}:")
            fn.ind += 1
            fn.emit(f"{t} = {self._bool_src(self.ev_into(fn, e.right, sc), e.right, sc)}")
            fn.ind -= 1
            return t
        if isinstance(e, A.Not):
            return f"(not {self.ev_into(fn, e.operand, sc)})"
        if isinstance(e, (A.Compare, A.In)):
            return self.x(self._sides_into(fn, e, sc, inner := sc.child()), inner, fn)
        if isinstance(e, A.BinOp) and e.op == "+" and self.ty(e.left, sc) in self.LISTY \
                and self.ty(e.right, sc) in self.LISTY:
            # joined within MAX_LIST, as `x_BinOp` joins them (`_cat` called only to say it is not)
            left, right = self.ev_into_name(fn, e.left, sc), self.ev_into_name(fn, e.right, sc)
            return (f"({left} + {right} if len({left}) + len({right}) <= {MAX_LIST} "
                    f"else _cat(eng, {left}, {right}, {self.k(e)}))")
        if isinstance(e, A.BinOp):
            # (arithmetic, `points * 100 + sum(…)`: each side's loops as statements, the left first)
            return self.x(self._sides_into(fn, e, sc, inner := sc.child()), inner, fn)
        if isinstance(e, A.Call):
            d = self.rs.defs.get(e.name)
            if d is not None and d.params is not None and self._inlinable(e, sc):
                inner = self._inline_scope(d, e, sc, fn)
                m = self.memo_var(d, e, sc, fn, fn.stmt_memo)
                if m is not None and self.memo_worked_out(fn, m):
                    return m
                first = m is not None and self.memo_first(fn, d, e, sc)
                if m is not None and not first:
                    fn.emit(f"if {m} is _MISSING:")
                    fn.ind += 1
                self._inlining.append(d.name)
                try:
                    v = self.ev_into(fn, d.expr, inner)
                finally:
                    self._inlining.pop()
                if m is None:
                    return v
                fn.emit(f"{m} = {v}")
                fn.ind -= 0 if first else 1
                fn.memo_at[m] = (fn.ind, fn.ind)   # (set from here on, while no block closes)
                return m
            f = B.FUNCTIONS.get(e.name)
            if f is not None and f.loop is not None and len(e.args) == 1 and call_meaning(self.rs, e.name) == "builtin":
                arg = e.args[0]
                node = self.k(e) if "{node}" in (f.on_list or "") else None
                if e.name == "count" and isinstance(arg, A.Where):
                    kept = self.count_kept_into(fn, e, sc)
                    if kept is not None:
                        return kept
                if e.name in self.FOLDS:
                    folded = self.fold_into(fn, e, sc)
                    if folded is not None:
                        return folded
                if isinstance(arg, (A.Comprehension, A.Where)):
                    found = self.data_count(f, arg, sc, fn)
                    items = found or self.loop_into(fn, arg, sc, count=f.loop == "count")
                    if f.loop == "count":
                        return found or (items if f.on_count is None else f.on_count.format(items))
                    return f.on_list.format(items, node=node)
                if self.ty(arg, sc) in self.LISTY:   # (a list: as `on_list` writes it)
                    return f.on_list.format(self.ev_into(fn, arg, sc), node=node)
        return self.x(e, sc, fn)

    # A remembered def written in place (`memo_var`) is asked `is _MISSING` only where the
    # answer is not known as the statements are written: where it first comes, outside their
    # loops, it is unset; after its statement, while no block has closed, it is set.
    def memo_first(self, fn: _Fn, d, e, sc) -> bool:
        """Whether call `e` of def `d` (remembered) comes here for the first time in the
        statements being written, outside any loop of theirs: its variable is still unset."""
        key = (d.name, tuple(self.local_of(a, sc).var for a in e.args))
        return fn.stmt_memo[key][1] == 1 and fn.inloop == fn.memo_inloop

    @staticmethod
    def memo_worked_out(fn: _Fn, m: str) -> bool:
        """Whether every way to the line about to be written passed the statement setting
        remembered variable `m`: nothing written since, nor the line to come, is indented less
        than it (`_Fn.memo_at`, kept as lines are written)."""
        at = fn.memo_at.get(m) if fn.memo_at is not None else None
        return at is not None and fn.ind >= at[0] and at[1] >= at[0]

    def _sides_into(self, fn: _Fn, e, sc, inner):
        """`e` (a comparison, `in`, arithmetic) with its left side evaluated now into a
        variable, and its right side too when it has loops (after the left), as placeholder
        names bound in `inner` (a child of `sc`): the node to write in `inner`."""
        left = self.ev_into_name(fn, e.left, sc)
        inner.names["\0left"] = _Binding(left, False, fn, self.ty(e.left, sc))
        if not self.has_loop(e.right):
            return attrs_evolve(e, left=A.Name("\0left"))
        # the right side's loops as statements too, after the left side
        right = self.ev_into_name(fn, e.right, sc)
        inner.names["\0right"] = _Binding(right, False, fn, self.ty(e.right, sc))
        return attrs_evolve(e, left=A.Name("\0left"), right=A.Name("\0right"))

    def ev_into_name(self, fn: _Fn, e, sc) -> str:
        """`ev_into`, its value held by a variable (evaluated now, before what follows)."""
        src = self.ev_into(fn, e, sc)
        if isinstance(src, Var):
            return src
        if isinstance(e, (A.Int, A.Const)) or isinstance(e, A.Text) and e.constant is not None:
            return Lit(src)
        t = self.fresh()
        fn.emit(f"{t} = {src}")
        return t

    def _bool_src(self, src, e, sc):
        return src if self.ty(e, sc) == "bool" else f"bool({src})"

    def loop_into(self, fn: _Fn, e, sc, count=False, fold=None) -> str:
        """A comprehension or filter as a loop; the name of the list it makes (with `count`,
        of the number of its items; with `fold`, (a variable, a function of each item's Python
        giving the lines run on it instead), `fold_into`'s running total: the variable's name)."""
        out, v = fold[0] if fold else self.fresh("r"), self.fresh("c")
        inner = sc.child()
        ty = self.item_ty(e.source, sc)
        b = inner.names[e.name if isinstance(e, A.Comprehension) else "it"] = _Binding(v, False, fn, ty)
        ids = self.zone_ids_summed(e.source, sc, fn)   # (a sum of zones too: MGT's estimate)
        body = [x for x in (e.cond, None if isinstance(e, A.Where) else e.expr) if x is not None]
        if ids is not None and ty == "card" and (count or not isinstance(e, A.Where)) \
                and self.only_id_reads(body, inner, b):
            # nothing of a card but its id and its derived properties is read: loop over the ids
            v = b.var = "_i" + v[2:]
            self._id_vars.add(v)
            if not fold:
                fn.emit(f"{out} = 0" if count else f"{out} = []")
            fn.emit(f"for {v} in {ids}:")
        else:
            zone = self.all_cards_in_zone(e, sc) if ids is None and isinstance(e, A.Where) else None
            src = f"map(eng.cards.__getitem__, {ids})" if ids is not None else \
                isinstance(e, A.Where) and self.all_cards_by_value(e, sc, fn) or (
                    f"_cards_in_zones(eng, {zone!r})" if zone is not None else
                    isinstance(e, A.Where) and self.all_cards_with_var(e, sc) or self.seq(e.source, sc, fn, lazy=True))
            if not fold:
                fn.emit(f"{out} = 0" if count else f"{out} = []")
            fn.emit(f"for {v} in {src}:")
        fn.ind += 1
        cond = e.cond
        with fn.looping(v):
            if cond is not None:
                fn.emit(f"if {self.ev_into(fn, cond, inner)}:")
                fn.ind += 1
            value = v if isinstance(e, A.Where) else self.ev_into(fn, e.expr, inner)
            if count and value != v and not isinstance(value, Var):
                fn.emit(value)   # evaluated all the same (it may fail), then counted
            for line in fold[1](value) if fold else [f"{out} += 1" if count else f"{out}.append({value})"]:
                fn.emit(line)
        fn.ind -= 2 if cond is not None else 1
        return out

    def data_count(self, f, arg, sc, fn) -> Optional[str]:
        """Built-in count `f` (a `count`, or one asking only whether there is one: `WHETHER_ANY`)
        of `arg` as `count_by_data` writes it, whole; None where that does not apply."""
        if f.loop != "count" or not isinstance(arg, A.Where):
            return None
        whether = f.on_count == WHETHER_ANY
        n = self.count_by_data(arg, sc, fn, exists=whether)
        return n if n is None or whether or f.on_count is None else f.on_count.format(n)

    def count_by_data(self, e, sc, fn, exists: bool = False) -> Optional[str]:
        """`count(ZONE where PROP = X)` (`e`, the `where`; PROP a card's data, as `card_branch`
        reads it; X a local or a literal, which `cannot_fail`; compared with Python's `==`, as
        `x_Compare` writes it where a side is a text or both are numbers) as `list.count` of
        the zone's cards' PROP, read from a table of every card's made as the module is
        written: the same `==` of the same pairs, in C, none of which can fail or change
        anything (X read once, before them). None for any other count."""
        c = e.cond
        if fn is None or self.hinting or not (isinstance(c, A.Compare) and c.op == "=" and isinstance(c.left, A.Name)) \
                or self.item_ty(e.source, sc) != "card" or not self.cannot_fail(c.right, sc):
            return None
        name = c.left.id
        if self.meaning(c.left).kind != "it" or card_attr_meaning(self.rs, name) in ("var", "derive") \
                or name not in self.card_props:
            return None
        inner = sc.child()   # (`_it_scope`'s, without a name of its own: nothing is written in it)
        inner.names["it"] = _Binding("_", False, fn, "card")
        ta, tb = self.ty(c.left, inner), self.ty(c.right, sc)
        if not ("str" in (ta, tb) or ta == tb == "int"):
            return None
        try:
            table = [card.props[name] for card in self.rs.cards]
        except KeyError:
            return None   # (a card without it: read as the loop reads it)
        with fn.in_iterable():
            ids = self.zone_list(e.source, sc, fn)
        if ids is None:
            return None
        if exists:   # (`exists(…)`: the same `==`, stopping at the first that holds, no list made)
            return self.exists_by_text(c, sc, fn, ids) or f"({self.x(c.right, sc, fn)} in map({self.k(table)}.__getitem__, {ids}))"
        return f"list(map({self.k(table)}.__getitem__, {ids})).count({self.x(c.right, sc, fn)})"

    def only_id_reads(self, nodes, sc, b) -> bool:
        """Whether the expressions `nodes`, written in scope `sc`, read the card of binding `b`
        at least once and only as `card_branch` reads it by its id: its variables, derived
        properties and id (directly, as `it`, or through a def written in place)."""
        readable = self.card_vars | set(self.rs.derives) | {"id"}
        used = []

        def visit(n, sc) -> bool:
            if isinstance(n, (list, tuple)):
                return all(visit(x, sc) for x in n)
            if isinstance(n, A.Name):
                u = self.meaning(n)
                found = sc.find(u.name) if u.kind in ("local", "maybe") else None
                if found is b:
                    return False                    # the card itself, not one of its properties
                if found is None and (u.kind == "it" or u.kind == "maybe" and u.it) and sc.find("it") is b:
                    used.append(n)
                    return n.id in readable
                return True
            if isinstance(n, A.Attr) and isinstance(n.obj, A.Name) and sc.find(n.obj.id) is b:
                used.append(n)
                return n.name in readable
            if isinstance(n, (A.Where, A.GroupBy, A.SortBy, A.Comprehension)):
                inner = sc.child()
                inner.names[n.name if isinstance(n, A.Comprehension) else "it"] = _Binding("_", False, None)
                rest = [n.cond, n.expr] if isinstance(n, A.Comprehension) else \
                    [n.cond] if isinstance(n, A.Where) else [n.key]
                return visit(n.source, sc) and all(visit(x, inner) for x in rest if x is not None)
            if isinstance(n, A.Call) and self._inlinable(n, sc):
                d = self.rs.defs[n.name]
                self._inlining.append(d.name)
                try:
                    return visit(d.expr, self._inline_scope(d, n, sc, None))
                finally:
                    self._inlining.pop()
            if isinstance(n, A.Node):
                return all(visit(getattr(n, f.name), sc) for f in n.__attrs_attrs__ if f.name != "span")
            return True

        return visit(list(nodes), sc) and bool(used)

    # ------------------------------------------------------------ statements
    def guard(self, fn: _Fn, e, sc, what="t") -> str:
        """Evaluate `e` into a temporary, with errors pointing at `e` (as `Engine.ev` does)."""
        if self.has_loop(e):
            t = self.fresh(what)
            fn.emit("try:")
            fn.ind += 1
            fn.emit(f"{t} = {self.ev_into(fn, e, sc)}")
            fn.ind -= 1
            fn.emit(f"except _PE as _x: raise _everr(eng, {self.k(e)}, _x) from None")
            return t
        src = self.x(e, sc, fn)
        if self.cannot_fail(e, sc):
            return src
        t = self.fresh(what)
        fn.emit("try:")
        fn.emit(f"    {t} = {src}")
        fn.emit(f"except _PE as _x: raise _everr(eng, {self.k(e)}, _x) from None")
        return t

    def cannot_fail(self, e, sc) -> bool:
        """A literal, a constant or a local variable: nothing to evaluate, nothing to guard."""
        if isinstance(e, (A.Int, A.Const)) or isinstance(e, A.Text) and e.constant is not None:
            return True
        if not isinstance(e, A.Name):
            return False
        b = self.local_of(e, sc)
        if b is not None:
            return not b.maybe
        u = self.meaning(e)
        if u.kind in ("it", "maybe"):
            return False
        meaning = u.meaning
        if meaning == "option":
            v = self.rs.option_values[u.name]
            return v is None or isinstance(v, (bool, int, str))
        return meaning in ("data", "zone", "enum")


# ---------------------------------------------------------------- cards by a value of their data
# Cards found by a value of their data, through tables made as the module is written (`ByValue`).
#
# A card's data never changes, so which cards hold each value of a property (`name`, `kind`)
# is known before the game: `{value: the ids holding it}`. Two forms use it, each only where
# the value X sought is a text for sure (typed `str`, read once, unable to fail) and the
# property is data every card has, with values Python can hash (a text's `==` is then the
# dict's own: the same pairs match as the loop's `==` would find):
#
# - `exists(ZONE where PROP = X)` (`count_by_data`'s whether-any form) asks whether the
#   zone's ids meet the set of the ids holding X (`frozenset.isdisjoint`, in C), not each
#   card's PROP compared in turn: Unstable Unicorns' `has(p, name)`, about 550 times a game.
# - `all_cards where … and PROP = X and …` (a leading test; the tests before it are of forms
#   that cannot fail nor change anything: another such test, `zone = "Z"`) loops over the
#   cards holding X only, in id order (the order of `all_cards`); the whole test still runs
#   on each, and the cards left out would have failed it at that test without any later test
#   being evaluated (`in_play(n)`: one or two cards, not every card in a stable).
#
# Not in a hint (whose reads of a card's face are watched: `Expressions.hint`).

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
