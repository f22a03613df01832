"""Event runners: one generated function per kind of event, running what waits for it,
with the triggers' conditions and the reaction windows written in.

A runner is a plain function with a generator behind it. The plain function (`run`) goes
through the triggers and windows in order as far as it can without pausing: a condition
that is false, a trigger whose body never pauses (`_Pieces.body_plain`), a window whose
responders are none of them eligible. It returns None when it got to the end (most card
events: nothing to ask, no generator made), or, at the first thing that may pause (a `may`
question, a body that asks, a window with an eligible responder), the generator `_go`
started from there, which runs the rest as the runner always did. The two are written from
the same pieces, so they mean the same."""
from __future__ import annotations

from inspect import CO_GENERATOR

from ..base.protocol import MAX_EVENT_DEPTH


def plain_bodies(ns: dict, names) -> dict:
    """The bodies among the generated functions `names` that never pause, as Python compiled
    them (no `yield` in them: the code object is not a generator's), by name; each is replaced
    in `ns` by a generator function calling it, for the callers that run a body as a
    generator (`run_block`, `_ordered_run`, a runner's `_go`)."""
    plain = {}
    for name in map(str, names):
        # (`str`: a name the generator made may be a `writer.Var`, a subclass; one such key
        # written into the module's dict makes its keys general, and then no `LOAD_GLOBAL`
        # of the module's functions is ever specialized: about 14 % more instructions)
        fn = ns[name]
        if not fn.__code__.co_flags & CO_GENERATOR:
            plain[name] = fn
            ns[name] = _pausing(fn)
    return plain


def _pausing(fn):
    """`fn` as a generator function that never pauses."""
    def body(*args):
        fn(*args)
        return
        yield  # (a generator function)
    body.__name__ = body.__qualname__ = fn.__name__
    return body


def _runner(triggers: list, reactions: list, module: dict, what: str = ""):
    """The runner of the triggers and reactions that wait for one kind of event, in order
    (what `Engine.event_run` does with the lists): each condition, then the question of a
    `may`, the body, the reaction windows. Conditions are written in (their entry lines
    once, at the start of each of its two functions), not called; `module` is the
    ruleset's generated module, whose names they read."""
    w = _Writing(module)
    for i, (tr, c) in enumerate(triggers):
        w.trigger(i, tr, c)
    for i, (r, c) in enumerate(reactions):
        w.window(i, len(triggers) + i, r, c)
    source = "\n".join(["def run(eng, ev):",
                        "    _st = eng.state",
                        "    if len(_st.event_chain) >= MAX_EVENT_DEPTH: raise eng.runaway()"]
                       + list(w.entry.values()) + w.head + ["    return None", "",
                                                            "def _go(eng, ev, _k, _kw=None, _kj=-1):",
                                                            "    _st = eng.state",
                                                            "    if 0: yield"] + list(w.entry.values()) + w.gen)
    exec(compile(source, f"<cgl event runner{what}>", "exec"), w.ns)
    return w.ns["run"]


class _Writing:
    """A runner being written: its plain function's lines (`head`) and its generator's
    (`gen`), after the entry lines both read as they start (`entry`)."""

    def __init__(self, module: dict):
        self.ns: dict = dict(module)
        self.ns["MAX_EVENT_DEPTH"] = MAX_EVENT_DEPTH
        self.entry: dict = {}      # name -> its entry line, read once at the start
        self.head: list = []
        self.gen: list = []
        self.open_head = True      # (False once the plain function has handed over for good)

    def test(self, src, call):
        """Lines computing the condition into `_ok` ([] and `call` when it is called instead)."""
        if src is None:
            return [], call
        first, rest = src
        targets = dict(first)
        if any(self.entry.get(t, ln) != ln for t, ln in targets.items()):
            return [], call  # the same name read another way (never seen): call it
        self.entry.update(targets)
        return rest, "_ok"

    def trigger(self, i: int, tr, c) -> None:
        """Trigger `i`: fired in the plain function when its body never pauses and it is no
        `may`; else the plain function hands over to the generator there."""
        self.ns.update({f"_rT{i}": tr, f"_rP{i}": c, f"_rC{i}": c.cond, f"_rB{i}": c.body, f"_rBP{i}": c.body_plain,
                        f"_rK{i}": "trigger:" + tr.name, f"_rN{i}": tr.name})
        pre, cond = self.test(c.cond_src, f"_rC{i}(eng, ev)") if c.cond is not None else ([], None)
        if self.open_head:
            self.head += pre
            self.head.append(f"    if {cond or 'True'}:")
            if c.body_plain is not None and not tr.optional:
                self.head += _fire("        ", f"_rK{i}", f"_rN{i}", f"_rBP{i}(eng, ev)", pauses=False)
            else:
                self.head.append(f"        return _go(eng, ev, {i})")
                self.open_head = cond is not None
        self.gen += _known_at(i, pre, cond)
        conds = ["_on"]
        if tr.optional:
            # (`_may` then `yes_no_took`: `ask_yes_no`'s halves, no generator between)
            conds.append(f"eng.yes_no_took((_d := eng._may(_rT{i}, _rP{i}, ev)), (yield _d))")
        self.gen.append(f"    if {' and '.join(conds)}:")
        self.gen += _fire("        ", f"_rK{i}", f"_rN{i}", f"_rB{i}(eng, ev)")

    def window(self, i: int, k: int, r, c) -> None:
        """Reaction `i`'s window, the runner's `k`th piece (as `Engine.open_window`): the plain
        function goes through its responders up to the first eligible one, and hands over to
        the generator there, which asks."""
        self.ns.update({f"_rR{i}": r, f"_rQ{i}": c, f"_rO{i}": c.responders, f"_rD{i}": c.cond, f"_rE{i}": c.eligible,
                        f"_rA{i}": c.ask, f"_rW{i}": c.body, f"_rRK{i}": "reaction:" + r.name, f"_rRN{i}": r.name,
                        f"_rS{i}": f"Respond with {r.name}?"})
        pre, cond = self.test(c.cond_src, f"_rD{i}(eng, ev)") if c.cond is not None else ([], None)
        who = _responders(c, i, self.test)
        eligible = _eligible(c, i, self.test, self.entry)
        if self.open_head:
            self.head += pre + [f"    if {cond or 'True'}:"] + who
            self.head.append("        for _j, e_responder in enumerate(_who):")
            self.head += eligible + [f"            return _go(eng, ev, {k}, _who, _j)"]
        gen = _known_at(k, pre, cond)
        gen += ["    if _on:",
                f"        _ruled = _rRN{i} in eng._forbidden",
                f"        if _k < {k}:"] + ["    " + ln for ln in who]
        gen += ["            _j0 = -1",
                "        else:",
                "            _who, _j0 = _kw, _kj   # (the plain function found responder _j0 eligible)",
                "        for _j, e_responder in enumerate(_who):",
                "            if _j < _j0: continue"]
        if eligible:
            gen += ["            if _j > _j0:"] + ["    " + ln for ln in eligible]
        gen += [f"            if _ruled and not eng.allowed(_rRN{i}, eng._event_env(ev).child({{'responder': e_responder}})):",
                "                continue",
                f"            _d = eng.yes_no(e_responder.seat, "
                f"{f'_rA{i}(eng, ev, e_responder)' if c.ask is not None else f'_rS{i}'}, _rR{i}.span, tag=_rRN{i})",
                "            if not eng.yes_no_took(_d, (yield _d)): continue"]
        gen += _fire("            ", f"_rRK{i}", f"_rRN{i}", f"_rW{i}(eng, ev, e_responder)")
        if r.once:
            gen.append("            break")
        self.gen += gen


def _known_at(k: int, pre: list, cond) -> list:
    """The generator's lines setting `_on`, whether trigger or window `k` goes ahead: its
    condition, evaluated when the generator started before it (`_k < k`); true when it
    started there (the plain function found the condition true); false when it started
    after it (the plain function went past it)."""
    if cond is None:
        return [f"    _on = _k <= {k}"]
    return ([f"    if _k < {k}:"] + ["    " + ln for ln in pre] + [f"        _on = {cond}", "    else:",
                                                                   f"        _on = _k == {k}"])


def _responders(c, i: int, test) -> list:
    """Lines setting `_who`, the list of a window's responders in order (what
    `_responders` does, written in), inside the window's `if`."""
    if c.responders is None:
        return [f"        _who = eng._responders(_rQ{i}, ev)"]
    pre, who = test(c.responders_src, f"_rO{i}(eng, ev)")
    return (["    " + ln for ln in pre]
            + [f"        _who = {who}", "        _who = _who if _who.__class__ is list else [_who]"])


def _eligible(c, i: int, test, entry: dict) -> list:
    """Lines that go on to the next responder unless `e_responder` is eligible, inside the
    window's loop over its responders (none: every responder is)."""
    if c.eligible is None:
        return []
    lines = []
    pre, ok = test(c.eligible_src, f"_rE{i}(eng, ev, e_responder)")
    typed = c.eligible_card_src if ok == "_ok" and "e_card" in entry else None
    pre_card, ok_card = test(typed, None) if typed is not None else ([], None)
    if ok_card == "_ok":
        # a custom event's `card`: when it is a card, the eligibility written for one
        lines.append("            if e_card.__class__ is Card:")
        lines += ["            " + ln for ln in pre_card]
        lines.append("            else:")
        lines += ["            " + ln for ln in pre]
    else:
        lines += ["        " + ln for ln in pre]
    lines.append(f"            if not {ok}: continue")
    return lines


def _fire(ind: str, key: str, name: str, body: str, pauses: bool = True) -> list:
    """Lines running a trigger's or reaction's body (`body`, a generator, or with `pauses`
    false a plain call), counted under `key` and named `name` in the event chain, as
    `Engine._fire` does (`_st`: the state, read once as the runner starts, as generated
    bodies read it; `cause` called only when a log is kept: else it is the name)."""
    return [f"{ind}stats = _st.stats",
            f"{ind}stats[{key}] = stats.get({key}, 0) + 1",
            f"{ind}_st.event_chain.append(eng.cause({name}, ev) if eng.record or eng.listeners else {name})",
            f"{ind}try:",
            f"{ind}    {'yield from ' if pauses else ''}{body}",
            f"{ind}finally:",
            f"{ind}    _st.event_chain.pop()"]
