"""Rules that hold on every route, for both engines; a mixin of
:class:`~cgl.interpreter.walker.engine.Engine`.

- continuous rules: `rule NAME: forbid TAG` (`allowed`: an action, a reaction's responder
  or a choice's option), `rule NAME: forbid enter|leave ZONE` (`refused`, `refusing_rule`:
  asked by every card statement before a card changes zone; `may_move` for `can_move`);
- state checks: `check NAME: [for X in LIST] if COND { … }` (`settle`: run when the game
  settles: after each statement of `ast.CHANGES`, asked at one place per engine, the
  tree walker's `Engine.run` and the generator's `stmt`; and after each event, scope
  events included).

Conditions are evaluated with `Engine.ev` (a check's with `check_value`, an `instead`
trigger's with `trigger_test`): the compiled engine runs the generator's code for them
(registered by `CodeGen.generate`), the tree walker its closures.
"""
from __future__ import annotations

from typing import Optional

from .compiler import Env, event_env
from ..base.diagnostics import CglError, Diagnostic
from ..base.protocol import MAX_SETTLE
from ..base import ast as A
from ..check.loader import Card
from ..check.resolver import facts, use_of
from ..check.statics import UNKNOWN, statics_of
from ..runtime.state import Event, ZoneRef
from ..runtime.values import _kind, _truth


class ContinuousRules:
    """`allowed`, `refused`, `refusing_rule`, `may_move` and `settle` (see the module doc)."""

    # ------------------------------------------------------------ continuous rules
    def allowed(self, name: str, env: Env, value=None, names: tuple = ()) -> bool:
        """False when a `rule …: forbid NAME if …` holds in this situation. `value` is what
        `env` binds to each of `names` (an action's parameter, a choice's option): when a card,
        only the rules its data does not rule out are asked (`tag_rules_for`)."""
        rules = self._tag_rules.get(name, ())
        if rules and value.__class__ is Card:
            rules = self.tag_rules_for(name, names, value)
        for r in rules:
            if r.cond is None or _truth(self.ev(r.cond, env)):
                self.bump(f"rule:{r.name}")
                return False
        return True

    def tag_rules_for(self, name: str, names: tuple, card) -> tuple:
        """The `forbid NAME` rules, in order, less those whose condition is false for `card`
        bound to `names` whatever the game: the first parts of its `a and b and …` that read
        no other local are worked out from the card data (`check/statics.py`); one false
        rules the rule out (`limp_horn: forbid play if c.kind = upgrade and …` for a card
        that is no upgrade). Worked out once per ruleset, rule, names and card
        (`Facts.tag_rules_of`)."""
        known = self._tag_rules_of
        key = (name, names, card.id)
        found = known.get(key)
        if found is None:
            given = dict.fromkeys(names, card)
            found = known[key] = tuple(r for r in self._tag_rules.get(name, ()) if self._may_hold(r.cond, given))
        return found

    def _may_hold(self, cond, given: dict) -> bool:
        """False when a first part of `cond`'s `a and b and …` that reads no local but those
        of `given` is false from the card data alone (the engines would find it false there
        too, after the same parts before it)."""
        if cond is None:
            return True
        parts = []
        while isinstance(cond, A.And):
            parts.append(cond.right)
            cond = cond.left
        parts.append(cond)
        static = statics_of(self.rs)
        for part in reversed(parts):
            for n in A.walk(part):
                if n.__class__ is A.Name:
                    u = use_of(self.rs, n)
                    if u.kind != "global" and (u.name if u.kind != "it" else "it") not in given:
                        return True   # (a local the rule sees where it is asked: known only there)
            v = static.value(part, given)
            if v is UNKNOWN:
                return True
            if not _truth(v):
                return False
        return True

    # ------------------------------------------------------------ state checks
    def settle(self, force: bool = False):
        """The game has settled after an event or a change (a statement of `ast.CHANGES`;
        the start or end of a scope): run the body of each
        `check` whose condition holds — the first in declaration order, for the first element
        of its `for` list — and look again from the first check, until none holds. Not while
        a trigger, reaction or check body is running (they settle when the outermost one
        ends) or a `then` block (after it), not before the game has begun (setup) and not
        once it is over; nor in a trial that runs through a required part (`possible`
        asks what the procedure does, not what the game makes of it once settled)."""
        st = self.state
        if st.changes == st.settled and not force:
            return   # nothing changed since the checks last found nothing to do
        if settle_waits(st):
            return
        fired = 0
        while True:
            for chk in self._checks:
                env = self._check_applies(chk)
                if env is not None:
                    break
            else:
                st.settled = st.changes
                return
            fired += 1
            if fired > MAX_SETTLE:
                raise CglError(Diagnostic("E011", f"check `{chk.name}` still applies after the game settled "
                                                  f"{MAX_SETTLE} times", chk.span,
                                          hint="a check's body must make its condition false (or end the game)"))
            yield from self._fire("check", chk.name, chk.body, env)

    def _check_applies(self, chk) -> Optional[Env]:
        """The environment a check's body runs in if its condition holds now, else None."""
        if chk.var is None:
            return Env() if _truth(self.check_value(chk, chk.cond)) else None
        for x in self.as_list(self.check_value(chk, chk.domain), chk.domain):
            if _truth(self.check_value(chk, chk.cond, x)):
                return Env({chk.var: x})
        return None

    def check_value(self, chk, e, *x):
        """Check `chk`'s domain or condition `e` (the condition given the element `x` of its
        `for` list); the compiled engine runs the generator's function of the element."""
        return self.ev(e, Env({chk.var: x[0]}) if x else Env())

    def _index_rules(self) -> None:
        """The continuous rules in declaration order: `rule …: forbid TAG` by tag, and `rule …:
        forbid enter|leave ZONE` by (forbid, zone name), each with the test of its condition
        on a card event (`zone_rule_test`)."""
        self._tag_rules: dict = {}
        self._zone_rules: dict = {}
        self._zone_tests: dict = {}   # id(rule) -> the test of its condition
        f = facts(self.rs)
        self._tag_rules_of = f.tag_rules_of
        for r in self.rs.rules:
            if r.zone is not None:
                holds = self._zone_tests[id(r)] = self.zone_rule_test(r)
                self._zone_rules.setdefault((r.forbid, r.zone), []).append((r, holds))
            else:
                self._tag_rules.setdefault(r.forbid, []).append(r)
        # zone name -> {card id: the rules `zone_rules_for` found}, for the zones with a rule
        self._leave_rules_of = {z: f.zone_rules_of.setdefault(("leave", z), {}) for fb, z in self._zone_rules if fb == "leave"}
        self._enter_rules_of = {z: f.zone_rules_of.setdefault(("enter", z), {}) for fb, z in self._zone_rules if fb == "enter"}

    def trigger_test(self, tr):
        """`holds(engine, event)`: whether trigger `tr`'s condition holds for an event (None:
        it has none)."""
        if tr.cond is None:
            return None
        cond = tr.cond
        return lambda eng, ev: eng.ev(cond, event_env(ev))

    def zone_rule_test(self, r):
        """`holds(engine, event)`: whether zone rule `r`'s condition holds for a card event."""
        if r.cond is None:
            return lambda eng, ev: True
        cond = r.cond
        return lambda eng, ev: _truth(eng.ev(cond, event_env(ev)))

    def refused(self, ev: Event) -> bool:
        """True when a `rule …: forbid leave|enter ZONE if …` refuses this card event (a
        move, draw, deal or discard about to happen): the card stays where it is, and the
        log names the rule. Every route a card takes between zones asks this first."""
        r = self.refusing_rule(ev)
        if r is None:
            return False
        self.bump(f"rule:{r.name}")
        self._log_card_event(ev, refused_by=r.name)
        return True

    def refusing_rule(self, ev: Event):
        """The first `forbid leave` rule of the card's zone, then `forbid enter` rule of the
        zone it would go to, that holds for this card event; None if none does. Only the
        rules the card's data does not rule out are asked (`zone_rules_for`)."""
        card, src = ev.card, ev.source
        if src is not None:
            known = self._leave_rules_of.get(src.name)
            if known is not None:
                rules = known.get(card.id)
                for r in self.zone_rules_for("leave", src.name, card) if rules is None else rules:
                    if self._zone_tests[id(r)](self, ev):
                        return r
        known = self._enter_rules_of.get(ev.dest.name)
        if known is not None:
            rules = known.get(card.id)
            for r in self.zone_rules_for("enter", ev.dest.name, card) if rules is None else rules:
                if self._zone_tests[id(r)](self, ev):
                    return r
        return None

    def zone_rules_for(self, forbid: str, zone: str, card) -> tuple:
        """The `forbid leave|enter ZONE` rules of this zone, in order, less those whose
        condition is false for `card` whatever the game (`card.kind = baby and …`: its value
        from the card data alone, `check/statics.py`, the engines' own meaning): most moves
        have none to ask. Worked out once per ruleset, zone and card (`Facts.zone_rules_of`)."""
        rules = self._zone_rules.get((forbid, zone))
        if not rules:
            return ()
        known = facts(self.rs).zone_rules_of.setdefault((forbid, zone), {})
        found = known.get(card.id)
        if found is None:
            found = known[card.id] = tuple(r for r, _ in rules if self.may_hold(r.cond, card))
        return found

    def may_hold(self, cond, card) -> bool:
        """Whether condition `cond` of an event's `card` (a zone rule's, an `instead`
        trigger's, a `target` declaration's) may hold for this card: False when the card data
        alone makes it false whatever the game (`_may_hold`, with `card` and `it` the card).
        Worked out once per ruleset, condition and card (`Facts.card_conds`)."""
        if cond is None:
            return True
        known = facts(self.rs).card_conds
        key = (id(cond), card.id)
        found = known.get(key)
        if found is None:
            found = known[key] = self._may_hold(cond, {"card": card, "it": card})
        return found

    def _rules_about(self, by_zone: dict, forbid: str, zone: str, card) -> tuple:
        """`zone_rules_for`, looked up in `by_zone` (`_leave_rules_of` or `_enter_rules_of`)."""
        known = by_zone.get(zone)
        if known is None:
            return ()
        rules = known.get(card.id)
        return self.zone_rules_for(forbid, zone, card) if rules is None else rules

    def may_move(self, card, dest, node=None) -> bool:
        """`can_move(card, zone)`: no continuous rule would refuse moving the card there now."""
        if card.__class__ is not Card and not hasattr(card, "props"):
            raise self.fail(node, f"`can_move` needs a card first, got {_kind(card)}")
        if dest.__class__ is not ZoneRef:
            dest = self.as_zone(dest, node)
        if not self._zone_rules:
            return True
        src = None
        known = self._enter_rules_of.get(dest.name)   # (`_rules_about`, written in: every `can_move` asks it)
        rules = None if known is None else known.get(card.id)
        if not (self.zone_rules_for("enter", dest.name, card) if rules is None and known is not None else rules):
            if not self._leave_rules_of:
                return True   # (no rule can refuse this card: no event to make)
            src = self.zone_of_card(card)
            if not self._rules_about(self._leave_rules_of, "leave", src.name, card):
                return True
        if src is None:
            src = self.zone_of_card(card)
        who = dest.owner if dest.owner is not None else (src.owner if src.owner is not None else self.state.current)
        return self.refusing_rule(Event("move", None, card, self.players[who], src, dest)) is None


def settle_waits(st) -> bool:
    """Whether the state checks wait (`ContinuousRules.settle` does nothing): a trigger,
    reaction or check body running, a `then` block open, the game not begun or over, or a
    trial that runs through a required part."""
    return bool(st.event_chain or st.holding or not st.checks_on or st.finished or st.trial_through)
