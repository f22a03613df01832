"""The generator's loop-invariant reads: a loop's zone listed once per expression, a hint's
counts by label kept for all its options, a def's calls remembered by their arguments'
values for the rest of an expression (`call_memo`); and a sum, max or min of whole numbers
as a running total (`fold_into`)."""
from __future__ import annotations

from typing import Optional

from ..base import ast as A
from ..base.protocol import MAX_LIST
from ..runtime import builtins as B
from ..check.resolver import call_meaning, deterministic_expr
from ..check.typecheck import Binding as _Binding
from .writer import Lit, Var


class Held:
    """A mixin of CodeGen, used by `x_Where`, `x_Comprehension` and `x_Call` (expressions.py),
    and by `Statements._ev_into` for a count in the statements of one expression
    (`count_kept_into`).

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

    def label_count(self, e, sc, fn) -> Optional[str]:
        """In a hint, `count(ZONE where V in LIST and REST)` inside a loop over V as a look-up
        kept for all the hint's options (MGT's `usefulness`, the greedy discard's `prefer`:
        for each label of each card in hand, the cards of the hand and table holding that
        label), when ZONE, LIST and REST read nothing that changes as the loops go round.
        The first count goes round the zone as the `where` would, in its order (what fails,
        fails there and then), noting which cards hold each value of LIST; a later count of
        another V tests REST only on the cards holding V, in their order (the cards the
        `where` would test it on); a V counted before is its count again (`_label_count`).
        The counts last one evaluation of the hint (`Hints.eval_memo`, keyed by this place
        and the values of the locals read), during which nothing changes: so the hint reads
        the same faces and keys, each first read in the same order, and each card's LIST
        once rather than once per V and option. Outside hints, in the statements of one
        expression, `Statements.label_count_into` writes the same counts as loops (MGT's
        estimate: with a `_label_count` call and lambdas per card a pass per label was the
        cheaper). None when this does not apply: V must
        be a text and LIST a list of texts (`in` is then Python's, on hashable values), and
        LIST and REST deterministic."""
        if fn is None or not self.hinting or not fn.comp_vars or fn.iterable:
            return None
        parts = self.label_parts(e, sc, fn)
        if parts is None:
            return None
        v, inner, cond, tests, read = parts
        cards = self.cards_src(e.source, sc, fn)
        if cards is None:
            return None
        key = self.x(cond.left, sc, fn)
        with fn.looping(v):
            labels = self.lambda_of(v, cond.right, inner, fn)
            keep = self._keep(v, tests, inner, fn)
        site = self.fresh("n")
        # (keyed by the values read, with their class where the type checker does not know it:
        # `1` and `true` are equal keys to Python, not to the rules; a player by its seat, which
        # hashes without the Python call a `Player`'s hash is, once per option)
        values = "".join(f"{self.ref(nb)}.seat, " if nb.ty == "player" else
                         f"{self.ref(nb)}, " if nb.ty in ("card", "str", "int") else
                         f"{self.ref(nb)}, {self.ref(nb)}.__class__, " for nb in read.values())
        memo = f"_eval_memo(eng, ({site!r}, {values}), "

        def call(memo):
            return f"_label_count({memo}, {key}, lambda: {cards}, {labels}, {keep})"

        if fn.lambdas or fn.memo is None:   # (no variable to keep it in)
            return call(memo + "None)")
        fn.memo[("labels", site)] = site, 2
        return (f"({site}[{key}] if {key} in ({site} if {site} is not _MISSING else ({site} := {memo}{{}}))) "
                f"else {call(site)})")

    def label_parts(self, e, sc, fn) -> Optional[tuple]:
        """`count(ZONE where V in LIST and REST)` (`e` the `where`) inside a loop over V, as
        `label_count` takes it: (the variable for `it`, the scope binding it, the `V in LIST`
        test, REST's tests, the locals read outside the loops), or None when it does not
        apply (see `label_count`)."""
        tests = []
        cond = e.cond
        while isinstance(cond, A.And):
            tests.append(cond.right)
            cond = cond.left
        tests.reverse()
        if not (isinstance(cond, A.In) and not cond.negated and isinstance(cond.left, A.Name)):
            return None
        b = self.local_of(cond.left, sc)
        if b is None or b.maybe or b.var not in fn.comp_vars or self.ty(cond.left, sc) != "str":
            return None
        v, inner = self._it_scope(e, sc, fn)
        if self.ty(cond.right, inner) != "strs" or self.zone_read(e.source, sc, fn) is None \
                or self.ty(e.source, sc) not in ("zone", "cards"):
            return None
        read = {}    # the locals read (outside the loops): what the counts depend on
        for part in [e.source, cond.right, *tests]:
            if part is not e.source and not deterministic_expr(self.rs, part):
                return None
            for n in A.walk(part):
                if isinstance(n, A.Name):
                    u = self.meaning(n)
                    nb = inner.find(u.name) if u.kind in ("local", "maybe") else None
                    if nb is not None and nb is not inner.names["it"]:
                        if nb.maybe or nb.var in fn.comp_vars:
                            return None
                        read[nb.var] = nb
        return v, inner, cond, tests, read

    def label_count_into(self, fn, w, sc):
        """`count(ZONE where V in LIST and REST)` inside a loop over V (`w` the `where`), as
        `label_count` keeps it, written as statements (MGT's estimate, and its `usefulness`
        in the greedy discard's hint: for each label of each card held, the cards held with
        that label): the first count goes round the zone as the `where` would, in its order,
        noting which cards hold each value of LIST (each card once a value: a value twice in
        one card's LIST is known by the card being the last noted for it, when no card comes
        twice round the zones, `_apart`; else the LIST is made unique); a later count
        of another V tests REST only on the cards holding V, in their order; a V counted
        before is its count again. Kept for the rest of the statements of one expression,
        and in a hint for all its options (`Hints.eval_memo`, keyed by this place and the
        locals read, as `label_count` keys it). The variable holding the count, or None
        when `label_parts` finds this does not apply. (Outside a hint `count_kept_into` asks
        for it only where two loops are open: over the labels of one card, a pass per label
        costs less than noting every card's.)"""
        parts = self.label_parts(w, sc, fn)
        if parts is None:
            return None
        v, inner, cond, tests, read = parts
        b = inner.names["it"]
        ids = self.zone_ids_of_sum(w.source, sc, fn)
        if ids is not None and self.only_id_reads([cond.right, *tests], inner, b):
            v = b.var = "_i" + v[2:]    # (nothing of a card but its id and derived properties is read)
            self._id_vars.add(v)
            src = ids
        else:
            src = self.seq(w.source, sc, fn, lazy=True)
        key = self.x(cond.left, sc, fn)
        counts, index, t, labs, held, label = (self.fresh("n"), self.fresh("x"), self.fresh(), self.fresh(),
                                              self.fresh(), self.fresh("l"))
        # (outside a hint, a dict made as the statements start, `memo_init`; in one, the hint's)
        fn.stmt_memo[("labels" if self.hinting else "(counts)", counts)] = counts, 2
        with fn.looping(v):
            labels = self.x(cond.right, inner, fn)
            keep = " and ".join(self._bool(x, inner, fn) for x in tests)
        if self.hinting:   # (as `label_count` keys it: see there)
            values = "".join(f"{self.ref(nb)}.seat, " if nb.ty == "player" else
                             f"{self.ref(nb)}, " if nb.ty in ("card", "str", "int") else
                             f"{self.ref(nb)}, {self.ref(nb)}.__class__, " for nb in read.values())
            fn.emit(f"if {counts} is _MISSING: {counts} = _eval_memo(eng, ({counts!r}, {values}), {{}})")
            if fn.outside is not None and all(nb.var in fn.params for nb in read.values()):
                fn.outside.add(counts)   # (the same for every option of a `hint_def_over`)
        fn.emit(f"if {key} in {counts}:")
        fn.emit(f"    {t} = {counts}[{key}]")
        fn.emit("else:")
        fn.ind += 1
        fn.emit(f"{index} = {counts}.get(_MISSING)")
        fn.emit(f"if {index} is None:   # (the first count: the `where`'s, noting each card's values)")
        fn.ind += 1
        fn.emit(f"{counts}[_MISSING] = {index} = {{}}")
        fn.emit(f"{t} = 0")
        fn.emit(f"for {v} in {src}:")
        fn.emit(f"    {labs} = {labels}")
        fn.emit(f"    if {key} in {labs}{' and ' + keep if keep else ''}:")
        fn.emit(f"        {t} += 1")
        if self._apart(self.zone_read(w.source, sc, fn)):
            # (a value twice in one card's LIST: the card is the last noted for it, as no
            # card comes twice round the zones)
            fn.emit(f"    for {label} in {labs}:")
            fn.emit(f"        {held} = {index}.get({label})")
            fn.emit(f"        if {held} is None: {index}[{label}] = [{v}]")
            fn.emit(f"        elif {held}[-1] is not {v}: {held}.append({v})")
        else:
            fn.emit(f"    for {label} in (dict.fromkeys({labs}) if len({labs}) > 1 else {labs}):")
            fn.emit(f"        {held} = {index}.get({label})")
            fn.emit(f"        if {held} is None: {index}[{label}] = [{v}]")
            fn.emit(f"        else: {held}.append({v})")
        fn.ind -= 1
        fn.emit("else:")
        fn.ind += 1
        if keep:
            fn.emit(f"{t} = 0")
            fn.emit(f"for {v} in {index}.get({key}, ()):")
            fn.emit(f"    if {keep}: {t} += 1")
        else:
            fn.emit(f"{t} = len({index}.get({key}, ()))")
        fn.ind -= 1
        fn.emit(f"{counts}[{key}] = {t}")
        fn.ind -= 1
        return t

    @staticmethod
    def _apart(key) -> bool:
        """Whether the zones `zone_read` gave as `key` are each another zone (`hand(p) +
        table(p)`, `pile`): a card comes once round them. Not `hand(p) + hand(q)`, which
        may be one zone twice."""
        names = [k if isinstance(k, str) else k[0] for k in key]
        return len(set(names)) == len(names)

    def zone_ids_of_sum(self, e, sc, fn):
        """Python iterating over the ids of a zone expression's cards, top first (`zone_ids`),
        for a sum of zones too (`hand(p) + table(p)`), written as a comprehension's iterable;
        None for anything else."""
        with fn.in_iterable():
            return self.zone_ids_summed(e, sc, fn)

    def zone_ids_summed(self, e, sc, fn):
        """`zone_ids_of_sum` for a loop statement's iterable (where a memo may be assigned)."""
        if isinstance(e, A.BinOp) and e.op == "+":
            a, b = self.zone_ids_summed(e.left, sc, fn), self.zone_ids_summed(e.right, sc, fn)
            return None if a is None or b is None else f"_chain({a}, {b})"
        return self.zone_ids(e, sc, fn)

    def count_kept_into(self, fn, e, sc):
        """`count(ZONE where COND)` inside a loop of the statements of one expression (two
        loops outside a hint: MGT's estimate, the labels of each card held), kept for the rest
        of them as `x_Call` keeps it in an expression: by label (`label_count_into`, in a
        hint for all its options); else by the value of the loop's variable that COND reads
        (`count_by`), the first count of a value a loop where the `where` stood, written as
        a statement. None when neither applies."""
        w = e.args[0]
        if len(fn.comp_vars) < (1 if self.hinting else 2):
            return None   # (under one loop a value seldom comes again: the `where`'s loop as it is)
        fn.memo = fn.stmt_memo     # (what the expression's helpers keep goes in the statements' memo)
        try:
            n = self.label_count_into(fn, w, sc)
            by = self.count_by(w, sc, fn) if n is None else None
        finally:
            fn.memo = None
        if n is not None:
            return n
        if by is None:
            return None
        m, v, t = self.fresh("n"), self.ref(by), self.fresh()
        fn.stmt_memo[("by", m)] = m, 2
        fn.emit(f"if {m} is not _MISSING and {v} in {m}:")
        fn.emit(f"    {t} = {m}[{v}]")
        fn.emit("else:")
        fn.ind += 1
        fn.emit(f"if {m} is _MISSING: {m} = {{}}")
        fn.emit(f"{t} = {m}[{v}] = {self.loop_into(fn, w, sc, count=True)}")
        fn.ind -= 1
        return t

    def count_by_value(self, e, sc, fn) -> Optional[str]:
        """`count(ZONE where COND)` (call `e`) inside a loop over V of the same expression,
        counted once for each value of V: kept in a variable of the expression's memo, by
        V, when COND reads no loop's variable but V (a text: labels, suits, names come
        again; a loop's cards or players seldom do) and rolls no dice, and ZONE reads none
        (MGT's estimate: `usefulness` counts, for each card of the hand, the cards holding
        each of its labels; a label on two cards is counted once). The first count of a
        value is the `where`'s, where it stood; None when this does not apply."""
        w = e.args[0]
        by = self.count_by(w, sc, fn)
        if by is None:
            return None
        m, v = self.fresh("n"), self.ref(by)
        fn.memo[("by", m)] = m, 2
        count = self.call_builtin(e, [self.x(w, sc, fn)], sc, fn)
        return f"({m}[{v}] if {m} is not _MISSING and {v} in {m} else ({m} if {m} is not _MISSING else ({m} := {{}})).setdefault({v}, {count}))"

    def count_by(self, w, sc, fn):
        """The binding of V for `count_by_value` of `w` (a `where`), or None."""
        if fn is None or fn.memo is None or not fn.comp_vars or fn.iterable or fn.lambdas \
                or self.zone_read(w.source, sc, fn) is None or not deterministic_expr(self.rs, w.cond):
            return None
        _, inner = self._it_scope(w, sc, fn)
        by = None
        for n in A.walk(w.cond):
            if isinstance(n, A.Name):
                u = self.meaning(n)
                nb = inner.find(u.name) if u.kind in ("local", "maybe") else None
                if nb is not None and nb is not inner.names["it"] and (nb.maybe or nb.var in fn.comp_vars):
                    if nb.maybe or by not in (None, nb) or nb.ty != "str":
                        return None
                    by = nb
        return by

    def _keep(self, v, tests, sc, fn) -> str:
        """`lambda v: T1 and T2 …` (nothing remembered across it), or None without tests."""
        if not tests:
            return "None"
        fn.lambdas += 1
        try:
            return f"lambda {v}: " + " and ".join(self._bool(t, sc, fn) for t in tests)
        finally:
            fn.lambdas -= 1

    @staticmethod
    def over_held(held, loop: str) -> str:
        """`loop` (a comprehension over `held`'s variable), listing the cards first when this
        is the first time round. (Python refuses `:=` in a comprehension's iterable: the
        condition sets the variable, and is always true.)"""
        if held is None:
            return loop
        m, cards = held
        return f"({loop} if {m} is not _MISSING or ({m} := {cards}) is not None else None)"

    # ------------------------------------------------------------ running totals
    FOLDS = ("sum", "max", "min")

    def fold_into(self, fn, e, sc) -> Optional[str]:
        """`sum`, `max` or `min` (the built-in call `e`) of a comprehension, or of one joined
        with a list of numbers written out (`+ [0]`), written as statements when each item is a
        whole number for sure (`surely_int`): one running total kept as the loop goes round,
        with no list made, joined and handed to `_sum_list`/`_max_list` (MGT's estimate,
        `sum([usefulness(p, c) for c in …] + [0])`, and its `usefulness`, `max([count(…) for
        l in c.labels] + [0])`, for every card held, in every search iteration and greedy
        discard). The same value: `_sum_list` adds whole numbers as they come, and Python's
        `max`/`min` take an item when it compares `>`/`<` the one kept (the first of equals
        stays); an empty `max`/`min` is none, as `_extreme` gives it; the items are worked out
        in the list's order, and a join past MAX_LIST fails as `_cat` fails it, after the
        comprehension's items, before the written list's. The variable holding the result,
        or None when this does not apply."""
        parts = self._joined(e.args[0])
        comps = [x for x in parts if isinstance(x, A.Comprehension)]
        lits = [x for x in parts if isinstance(x, A.ListLit)]
        if len(comps) != 1 or len(parts) > 2 or len(comps) + len(lits) != len(parts) \
                or any(self._written_int(i) is None for x in lits for i in x.items) \
                or not self.int_items(comps[0], sc):
            return None
        acc, n = self.fresh(), self.fresh("n")
        ops = {"sum": None, "max": ">", "min": "<"}
        op = ops[e.name]
        items = [self._written_int(i) for x in lits for i in x.items]
        # a `max`/`min` with numbers written out starts from theirs: whole numbers all, which
        # come first or last makes no difference to the value (`max([…] + [0])`: no test
        # for a first item each time round)
        start = None if op is None or not items else (max if op == ">" else min)(items)

        def step(value) -> list:
            # (`value` is read twice by max/min: held in a variable unless it is one)
            lines = [f"{n} += 1"] if lits else []
            if op is None:
                return lines + [f"{acc} += {value}"]
            if not isinstance(value, (Var, Lit)):
                lines.append(f"{n}v = {value}")
                value = f"{n}v"
            if start is not None:
                return lines + [f"if {value} {op} {acc}: {acc} = {value}"]
            return lines + [f"if {acc} is _MISSING or {value} {op} {acc}: {acc} = {value}"]

        fn.emit(f"{acc} = {0 if op is None else '_MISSING' if start is None else repr(start)}")
        if lits:
            fn.emit(f"{n} = 0")
        if lits and parts[0] is lits[0] and start is None:   # (the written list first: `[0] + […]`)
            self._fold_const(fn, acc, op, items)
        self.loop_into(fn, comps[0], sc, fold=(acc, step))
        if lits:
            fn.emit(f"if {n} + {len(items)} > {MAX_LIST}: raise _long_list(eng, {self.k(e.args[0])}, {n} + {len(items)})")
        if lits and parts[-1] is lits[0] and start is None:
            self._fold_const(fn, acc, op, items)
        if op is not None and not items:
            fn.emit(f"if {acc} is _MISSING: {acc} = None")
        return Var(acc)

    def int_items(self, comp, sc) -> bool:
        """Whether each item comprehension `comp` makes is a whole number whenever it has a
        value: by its form (`surely_int`), or by its type where the name bound is typed by its
        source's items (`[c.worth for c in unicorns(p)]`, `worth` a number on every card)."""
        if self.surely_int(comp.expr):
            return True
        inner = sc.child()
        inner.names[comp.name] = _Binding("_", False, None, self.item_ty(comp.source, sc))
        return self.ty(comp.expr, inner) == "int"

    @staticmethod
    def _fold_const(fn, acc, op, items) -> None:
        """The running total `acc` of `fold_into` taking whole numbers written out."""
        for i in items:
            if op is None:
                if i:   # (adding 0 to a whole number changes nothing)
                    fn.emit(f"{acc} += {i!r}")
            else:
                fn.emit(f"if {acc} is _MISSING or {i!r} {op} {acc}: {acc} = {i!r}")

    @staticmethod
    def _written_int(e) -> Optional[int]:
        """The whole number `e` writes out (`3`, `-1`), or None."""
        if isinstance(e, A.Neg) and isinstance(e.operand, A.Int):
            return -e.operand.value
        return e.value if isinstance(e, A.Int) else None

    def _joined(self, e) -> list:
        """The lists `a + b + …` joins, in order (`e` itself when it is no join)."""
        if isinstance(e, A.BinOp) and e.op == "+":
            return self._joined(e.left) + self._joined(e.right)
        return [e]

    def surely_int(self, e, seen=()) -> bool:
        """Whether expression `e` is a whole number whenever it has a value (else it fails),
        read from its form alone: a number written out, a `count` or a `sum` (a built-in's,
        not a def's of that name), `+`, `-` or `*` of such, an `if` whose two branches are, a
        `max`/`min` of a list `fold_into` takes with a number written in it, and a def whose
        body is (`seen`: the defs on the way, a def calling itself is not)."""
        if self._written_int(e) is not None:
            return True
        if isinstance(e, A.BinOp):
            return e.op in ("+", "-", "*") and self.surely_int(e.left, seen) and self.surely_int(e.right, seen)
        if isinstance(e, A.IfExpr):
            return self.surely_int(e.then, seen) and self.surely_int(e.otherwise, seen)
        if not isinstance(e, A.Call):
            return False
        how = call_meaning(self.rs, e.name)
        if how == "def":
            d = self.rs.defs.get(e.name)
            return d is not None and e.name not in seen and d.expr is not None \
                and self.surely_int(d.expr, seen + (e.name,))
        if how != "builtin" or len(e.args) != 1:
            return False
        if e.name in ("count", "sum"):
            return True
        if e.name in ("max", "min"):   # (never empty, every item a whole number)
            parts = self._joined(e.args[0])
            return any(isinstance(x, A.ListLit) and x.items for x in parts) and all(
                isinstance(x, A.ListLit) and all(self._written_int(i) is not None for i in x.items)
                or isinstance(x, A.Comprehension) and self.surely_int(x.expr, seen) for x in parts)
        return False

    def call_memo(self, d, fname, args, fn) -> Optional[str]:
        """The variable of the dict remembering, for the rest of the expression being
        written, what calls of def function `fname` came to by their arguments' values
        (`_memo_call1`, `_memo_call2`), or None: not remembered. A call inside a loop of the
        expression (`has(owner(c), "X")` for each card c: a few owners) is remembered, and
        one that comes twice, unless an argument is the loop's variable itself; a def that is not deterministic, a static def (remembered
        already) or a call in a lambda (which may run later) or a hint (whose reads are
        watched) is not. Exact: nothing an expression does changes the game."""
        if fn is None or fn.memo is None or fn.lambdas or self.hinting or not 1 <= len(args) <= 2 \
                or d.name in self.static_defs or not self.deterministic(d.name):
            return None
        if any(a in fn.comp_vars for a in args):
            return None   # (a loop's own variable: another value each time round, nothing to find again)
        key = ("(calls)", fname)   # (no def is so named)
        if fn.memo_keep is not None and key not in fn.memo_keep:
            return None   # (it comes once)
        m, n = fn.memo.get(key) or (self.fresh("d"), 0)
        fn.memo[key] = m, n + (2 if fn.comp_vars else 1)   # (in a loop: called each time round)
        return m

    def value_kept(self, name, emit: str, fn) -> str:
        """`emit`, built-in value `name`, kept for the rest of the expression being written
        when it makes a list anew (`players`, `all_cards`) inside a loop of that expression
        (`owner(it) in players` for each card): made once, as the expression starts
        (`memo_init`), then read. Exact: nothing an expression does changes who is in the
        game or what the cards are, making the list cannot fail, and no rules value is
        changed in place."""
        if not B.VALUES[name].fresh_list or fn is None or fn.memo is None or not fn.comp_vars or fn.lambdas:
            return emit
        key = ("(value)", name)   # (no def is so named)
        m, n = fn.memo.get(key) or (self.fresh("v"), 0)
        fn.memo[key] = m, n + 2   # (kept even when read in one place: it is read each time round)
        return m

    @staticmethod
    def memo_init(key) -> str:
        """What the variable of an expression's memo entry `key` holds as the expression
        starts: a built-in value's list (`value_kept`), an empty dict for a def's calls
        (`call_memo`) or counts by label outside a hint (`label_count_into`), else nothing yet
        (`_MISSING`)."""
        if key[0] == "(value)":
            return B.VALUES[key[1]].emit
        return "{}" if key[0] in ("(calls)", "(counts)") else "_MISSING"
