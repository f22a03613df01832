"""The generator's patterns: a `pattern`'s pieces as functions of its parameters, and its
scan (the cards and labels a win check reads, and whether any shape may fit) written out."""
from __future__ import annotations

from ..base import ast as A
from ..check.typecheck import Scope
from ..check.typecheck import Binding as _Binding
from .writer import _Fn


class Patterns:
    """A pattern's compiled pieces (a mixin of CodeGen, used by `call_pattern`)."""

    def pattern(self, p: A.Pattern, types=None):
        """Compile a pattern's pieces: each is a function of the pattern's parameters.
        With `types` (of the arguments), a specialised set, named by the module dict returned."""
        suffix = self.variant(types)
        key = p.name + suffix
        if key in self.patterns:
            return "PV_" + key
        names = self.patterns[key] = {}
        params = list(p.params)
        types = types or (None,) * len(params)
        psc = Scope()
        for q, ty in zip(params, types):
            psc.names[q] = _Binding("v_" + q, False, None, ty)
        it_ty = self.elem_ty(self.ty(p.cards, psc))
        extra_ty = {"it": it_ty}

        def piece(key, expr, extra):
            fname = f"PT_{p.name}{suffix}_{key}"
            sc = Scope()
            f = _Fn.function(self, fname, ["v_" + q for q in params] + [v for _, v in extra])
            f.pure = True
            sc.fn = f
            for q, ty in zip(params, types):
                sc.names[q] = _Binding("v_" + q, False, f, ty)
            for name, v in extra:
                sc.names[name] = _Binding(v, False, f, extra_ty.get(name) if key in ("labels", "fixed") else None)
            f.emit("try:")
            f.emit(f"    return {self.x(expr, sc, f)}")
            f.emit(f"except _PE as _x: raise _everr(eng, {self.k(expr)}, _x) from None")
            self.defs += f.source() + [""]
            names[key] = fname

        piece("cards", p.cards, [])
        piece("labels", p.labels, [("it", "v_it")])
        if p.fixed is not None:
            piece("fixed", p.fixed, [("it", "v_it")])
        for i, shape in enumerate(p.shapes):
            for j, part in enumerate(shape.parts):
                if part.cond is not None:
                    piece(f"cond_{i}_{j}", part.cond, [("label", "v_label")])
        if p.best is not None:
            piece("best", p.best, [("it", "v_it")])
        self.pattern_scan(p, suffix, params, types, it_ty, names)
        self.defs += [f"PV_{p.name}{suffix} = {{" + ", ".join(f"{k!r}: {v}" for k, v in names.items()) + "}", ""]
        return "PV_" + p.name + suffix

    def pattern_scan(self, p, suffix, params, types, it_ty, names):
        """One function for the first pass of a match: the cards, each card's labels, and how
        many cards carry each label, the labels expression written inline in the loop."""
        fname = f"PT_{p.name}{suffix}_scan"
        f = _Fn.function(self, fname, ["v_" + q for q in params])
        f.pure = True
        sc = Scope(fn=f)
        for q, ty in zip(params, types):
            sc.names[q] = _Binding("v_" + q, False, f, ty)
        inner = sc.child()
        b = inner.names["it"] = _Binding("v_it", False, f, it_ty)
        ids = self.ids_of(p.cards, sc, f) if it_ty == "card" else None
        if ids is not None and self.only_id_reads([p.labels], inner, b):
            # the labels read nothing of a card but its id and derived properties: scan the
            # ids, and make the cards only when a shape may fit
            b.var = self.fresh("i")
            self._id_vars.add(b.var)
            cards, loop = ids, f"    for {b.var} in _cards:"
        else:
            cards = self.cards_src(p.cards, sc, f)
            if cards is None:
                cards = f"eng.as_list({self.x(p.cards, sc, f)}, {self.k(p.cards)})"
            ids, loop = None, "    for v_it in _cards:"
        f.emit("try:")
        f.emit(f"    _cards = {cards}")
        f.emit(f"except _PE as _x: raise _everr(eng, {self.k(p.cards)}, _x) from None")
        listy = self.ty(p.labels, inner) in self.LISTY   # a list for sure: no test of what it is
        f.emit("_labels = []")
        f.emit("_counts = {}")
        f.emit("_flat = []" if listy else "_get = _counts.get")
        f.emit("try:")
        f.emit(loop)
        f.ind += 2
        f.inloop += 1
        f.emit(f"_labs = {self.ev_into(f, p.labels, inner)}")
        f.inloop -= 1
        f.ind -= 2
        f.emit("        _labels.append(_labs)")   # as given: cleaned only if a shape may fit
        f.ind += 2
        if listy:   # counted at once, after the loop
            f.emit("_flat += _labs")
        else:
            f.emit("if _labs.__class__ is list:")
            f.ind += 1
            f.emit("for _l in _labs:")
            f.emit("    if _l.__class__ is str:")
            f.emit("        _counts[_l] = _get(_l, 0) + 1")
            f.emit("    elif _l is not None:")
            f.emit("        _l = _hashable(_l)")
            f.emit("        _counts[_l] = _get(_l, 0) + 1")
            f.ind -= 1
            f.emit("elif _labs is not None:")
            f.emit("    _l = _hashable(_labs)")
            f.emit("    _counts[_l] = _get(_l, 0) + 1")
        f.ind -= 2
        f.emit(f"except _PE as _x: raise _everr(eng, {self.k(p.labels)}, _x) from None")
        if listy:
            f.emit("_count_labels(_counts, _flat)")
        f.emit("_n = len(_cards)")
        fit, pad = self.shapes_may_fit(p)
        f.emit("_top = sorted(_counts.values(), reverse=True)" + (f" + [{', '.join(['0'] * pad)}]" if pad else ""))
        f.emit(f"if not ({fit}):")
        f.emit("    return None")
        if ids is not None:
            f.emit("_cards = list(map(eng.cards.__getitem__, _cards))")
        f.emit("return _cards, _labels, _counts")
        self.defs += f.source() + [""]
        names["scan"] = fname

    @staticmethod
    def shapes_may_fit(p: A.Pattern) -> tuple:
        """The solver's quick rejection, as the scan writes it (`_n` cards, `_top` the label
        counts, largest first): a shape can fit only if it takes this many cards and its
        largest groups find as many different labels on enough cards (card by card, the
        counts can only be larger than the solver's, so nothing it finds is lost; a label
        twice on one card counts twice: still an upper bound). (The test, how many zeros
        `_top` is padded with.) The shapes are tested by their number of cards, each number
        once; where every group needs a card, `_top` is padded with zeros so that no length
        need be asked (a missing count reads 0, which no group's need passes)."""
        by_total: dict = {}
        for shape in p.shapes:
            total = sum(part.size for part in shape.parts)
            need = sorted((part.size for part in shape.parts if not part.any), reverse=True)
            by_total.setdefault(total, []).append(need)
        needs = [need for group in by_total.values() for need in group]
        pad = max(map(len, needs), default=0) if all(want >= 1 for need in needs for want in need) else 0
        fits = []
        for total, group in by_total.items():
            tests = []
            for need in group:
                if not need:
                    tests = []   # a shape of `any` cards only: the number of cards is enough
                    break
                test = (f"len(_top) >= {len(need)} and " if not pad else "") + " and ".join(
                    f"_top[{i}] >= {want}" for i, want in enumerate(need))
                if test not in tests:
                    tests.append(test)
            fits.append(f"_n == {total}" + (f" and ({' or '.join(tests)})" if tests else ""))
        return " or ".join(f"({t})" for t in fits) or "False", pad
