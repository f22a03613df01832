"""Event runners: one generated function per kind of event, running what waits for it,
with the triggers' conditions and the reaction windows written in."""
from __future__ import annotations

from ..base.protocol import MAX_EVENT_DEPTH

def _runner(triggers: list, reactions: list, module: dict, what: str = ""):
    """One generator function running the triggers and reactions that wait for one kind of
    event, in order (what `Engine.event_run` does with the lists): each condition, then the
    question of a `may`, the body, the reaction windows. Conditions are written in (their
    entry lines once, at the start), not called; `module` is the ruleset's generated module,
    whose names they read."""
    ns: dict = dict(module)
    ns["MAX_EVENT_DEPTH"] = MAX_EVENT_DEPTH
    head = ["def run(eng, ev):",
            "    _st = eng.state",
            "    if len(_st.event_chain) >= MAX_EVENT_DEPTH: raise eng.runaway()",
            "    if 0: yield"]
    entry: dict = {}      # name -> its entry line, read once at the start
    lines: list = []

    def test(src, call):
        """Lines computing the condition into `_ok` ([] and `call` when it is called instead)."""
        if src is None:
            return [], call
        first, rest = src
        targets = dict(first)
        if any(entry.get(t, ln) != ln for t, ln in targets.items()):
            return [], call  # the same name read another way (never seen): call it
        entry.update(targets)
        return rest, "_ok"

    for i, (tr, c) in enumerate(triggers):
        ns.update({f"_rT{i}": tr, f"_rP{i}": c, f"_rC{i}": c.cond, f"_rB{i}": c.body,
                   f"_rK{i}": "trigger:" + tr.name, f"_rN{i}": tr.name})
        conds = []
        if c.cond is not None:
            pre, cond = test(c.cond_src, f"_rC{i}(eng, ev)")
            lines += pre
            conds.append(cond)
        if tr.optional:
            # (`_may` then `yes_no_took`: `ask_yes_no`'s halves, no generator between)
            conds.append(f"eng.yes_no_took((_d := eng._may(_rT{i}, _rP{i}, ev)), (yield _d))")
        lines.append(f"    if {' and '.join(conds) or 'True'}:")
        lines += _fire("        ", f"_rK{i}", f"_rN{i}", f"_rB{i}(eng, ev)")
    for i, (r, c) in enumerate(reactions):
        ns.update({f"_rR{i}": r, f"_rQ{i}": c, f"_rO{i}": c.responders, f"_rD{i}": c.cond, f"_rE{i}": c.eligible,
                   f"_rA{i}": c.ask,
                   f"_rW{i}": c.body, f"_rRK{i}": "reaction:" + r.name, f"_rRN{i}": r.name,
                   f"_rS{i}": f"Respond with {r.name}?"})
        cond = "True"
        if c.cond is not None:
            pre, cond = test(c.cond_src, f"_rD{i}(eng, ev)")
            lines += pre
        lines.append(f"    if {cond}:")       # the window, as `Engine.open_window`
        lines.append(f"        _ruled = _rRN{i} in eng._forbidden")
        if c.responders is not None:   # (what `_responders` does, written in)
            pre, who = test(c.responders_src, f"_rO{i}(eng, ev)")
            lines += ["    " + ln for ln in pre] + [f"        _who = {who}"]
            lines.append("        for e_responder in (_who if _who.__class__ is list else [_who]):")
        else:
            lines.append(f"        for e_responder in eng._responders(_rQ{i}, ev):")
        if c.eligible is not None:
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
        lines += [f"            if _ruled and not eng.allowed(_rRN{i}, eng._event_env(ev).child({{'responder': e_responder}})):",
                  "                continue",
                  f"            _d = eng.yes_no(e_responder.seat, "
                  f"{f'_rA{i}(eng, ev, e_responder)' if c.ask is not None else f'_rS{i}'}, _rR{i}.span, tag=_rRN{i})",
                  "            if not eng.yes_no_took(_d, (yield _d)): continue"]
        lines += _fire("            ", f"_rRK{i}", f"_rRN{i}", f"_rW{i}(eng, ev, e_responder)")
        if r.once:
            lines.append("            break")
    source = "\n".join(head + list(entry.values()) + lines)
    exec(compile(source, f"<cgl event runner{what}>", "exec"), ns)
    return ns["run"]


def _fire(ind: str, key: str, name: str, body: str) -> list:
    """Lines running a trigger's or reaction's body (`body`, a generator), counted under
    `key` and named `name` in the event chain, as `Engine._fire` does (`_st`: the state,
    read once as the runner starts, as generated bodies read it; `cause` called only when a
    log is kept: else it is the name)."""
    return [f"{ind}stats = _st.stats",
            f"{ind}stats[{key}] = stats.get({key}, 0) + 1",
            f"{ind}_st.event_chain.append(eng.cause({name}, ev) if eng.record or eng.listeners else {name})",
            f"{ind}try:",
            f"{ind}    yield from {body}",
            f"{ind}finally:",
            f"{ind}    _st.event_chain.pop()"]
