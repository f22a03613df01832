"""Trials: `possible(PROC(args))`, whether a procedure could change the game if it ran now;
a mixin of :class:`~cgl.interpreter.walker.engine.Engine`, for both engines.

"A card whose effect is impossible cannot be played" is one precondition written once,
`action play(c in hand(actor)) when possible(card_effect(actor, c)) { … }`, instead of a
row per card. The engine runs the procedure on a copy of the state, out of sight (nothing
is logged, no listener hears it, no player is asked), answering its decisions itself: the
first option, and then, depth first, the others (yes before no), until one way through
changes the game — a card moves (the trial stops there), or it ends with a variable, who
is out or the turn order changed — or ends the turn or the game. `possible` is false when no way through changes anything (every choice
it needs has nothing to choose from, every draw finds an empty stock …). The real game is
untouched: its state (random source and scripted dice included) is never tried on, only
copies of it (`State.trial_copy`, which shares with it what a trial does not change), and
the caches are as before the trial.
A procedure that may run a required part (`require { … }`, itself or through the
procedures it calls: `Facts.requiring`) is asked about its parts instead: a way through
goes on past moves (copying a zone's list as it first changes it), to its end (or to a part no other can follow,
`Facts.last_parts`, or to a move after a statement no part can follow, `Facts.past_parts`,
which changed the game), and counts when every required part it met was done in full (it ends
at the first that falls short: an effect may require several things of its player, each a
part, with what others must do between them); a way through that meets none counts when
it changed the game, as above.
Targets (`Targets`, below): `choose targets of CARD by P { … }` and `target(CARD)`
(docs/language.md, section 4.11b): what a card's effect targets is declared once (`target
NAME if COND: X in LIST`); the rules name the targets where they say (before a reaction
window, or after it), and they last while that block runs, kept in the state
(`State.targets`). No legal target skips the block: the effect is impossible, which a
trial finds (nothing changed, or its required part fell short). The generator calls
`s_choose_targets` and `targets_end` itself, and compiles the declarations' expressions,
which `target_value` runs (functions of the card and its chooser).
Limits: `MAX_TRIALS` ways through per `possible` (past it, it counts as possible: better to
offer a card that may fizzle than to forbid one that works), and no trial inside a trial
(a `possible` met while trying counts as true).
"""
from __future__ import annotations

from functools import partial

from .compiler import Env
from ..base.protocol import OTHERWISE, Decision, _EndScope, _GameOver, _TrialMoved, _TrialRequired
from ..base import ast as A
from ..check.loader import Card
from ..check.resolver import asks_hidden, call_meaning, deterministic_expr, facts
from ..runtime.state import ZoneRef
from ..runtime.values import _show, _truth

MAX_TRIALS = 32          # ways through one procedure, before `possible` gives it the benefit of the doubt
MAX_ALTERNATIVES = 8     # other options tried at one decision


class Trials:
    """`possible` (see the module doc); a trial's state is marked `trying`."""

    _trial_level = -1   # the event chain's length where the procedure tried runs (its required parts end there)
    _trial_met = False  # a required part of the way through being tried was done in full
    _trial_past = False  # the way through being tried met every required part it can (`trial_past_parts`)

    def possible(self, e, args) -> bool:
        """`possible(P(args))`: could procedure P, run now with these arguments, change the game?"""
        if self.state.trying:
            return True
        if self.hint_seat is not None:   # inside a hint: the procedure is tried as rules
            return self.unwatched(self.possible, e, args)
        proc = self.rs.procedures[e.call.name]
        if len(args) != len(proc.params):
            raise self.fail(e, f"`{proc.name}` takes {len(proc.params)} argument(s), not {len(args)}")
        base = self.state
        # the observers: nothing of a trial is logged or heard
        record, listeners = self.record, self.listeners
        self.record, self.listeners = False, []
        # the derived values cached for the game's state: each way through starts from them
        # (they hold for its copy), and the game gets them back
        kept = self._derived_copy()
        validated = self._validated   # (the trial's decisions pass through it: `_try`)
        try:
            todo = [()]
            through = proc.name in facts(self.rs).requiring
            for k in range(MAX_TRIALS):
                if not todo:
                    return False
                if k:
                    self.derived_put_back(kept)   # (the last way through cached what its state made)
                done, more = self._try(proc, args, todo.pop(), base, through)
                if done:
                    return True
                # depth first: the first alternatives first
                todo.extend(reversed([path + (x,) for path, others in more for x in others]))
            return True
        finally:
            self.state = base   # the game's own state, untouched: everything tried was on copies
            self._trial_level = -1
            self._trial_past = False
            self.record, self.listeners, self._validated = record, listeners, validated
            self.derived_put_back(kept)   # those cached while trying read a trial's state

    def run_procedure(self, proc, args):
        """Procedure `proc` run on `args` (its body's generator; the compiled engine calls the
        procedure's function with them, with no environment made and unpacked)."""
        return self.run_block(proc.body, Env(dict(zip(proc.params, args))))

    def _try(self, proc, args, path: tuple, base, through: bool = False):
        """One way through: the answers of `path`, then first options. (whether it changed
        the game, or did every required part it met in full when `through`; the other ways,
        each a later decision's other answers after the answers before it, as (those answers,
        the others))."""
        trial = self.state = _trial_copy(base)
        self._trial_level = -1
        self._trial_met = self._trial_past = False
        if through:   # past moves (each zone's list the trial's own as it first changes it: `State.zone_store`)
            trial.trial_through = True
            self._trial_level = len(trial.event_chain)
        gen = self.run_procedure(proc, args)
        answers: list = []
        more: list = []
        try:
            d = next(gen)
            while True:
                if len(answers) < len(path):
                    a = path[len(answers)]
                else:
                    a, others = _answers(d)
                    if others:   # (the ways they make are made only if this one fails)
                        more.append((tuple(answers), others))
                answers.append(a)
                if a.__class__ is int and d.kind == "choose":
                    self._validated = d   # (an option's index, as `Game.answer` checks one: `c_took` takes it as it is)
                d = gen.send(a)
        except StopIteration:
            pass
        except _TrialRequired as r:
            return r.done, more
        except (_TrialMoved, _GameOver, _EndScope):
            return True, []
        finally:
            gen.close()
        return self._trial_met or _changed(trial, base), more


    def trial_past_parts(self):
        """A statement of `Facts.past_parts` begins, in a trial: when it runs at the level of
        the procedure tried (not in a trigger), the way through has met every required part it
        can, so a move from here on is all it needs to know (it changed the game: `_place`
        ends it, as in a procedure with none). Both engines call this where the statement
        begins (`Engine.run`, the generator's `stmt`)."""
        if len(self.state.event_chain) == self._trial_level:
            self._trial_past = True


def _answers(d):
    """A decision's first answer while trying, and the other answers to try after it."""
    if d.kind == "may":
        return True, _NO
    n = len(d.options)
    if d.lo <= 1 <= d.hi:
        return 0, range(1, min(n, 1 + MAX_ALTERNATIVES))
    return list(range(d.lo)), ()


_NO = (False,)


def _trial_copy(st):
    """A copy of the state to try things on (`State.trial_copy`: the log left out, what a
    trial does not change shared), marked `trying`, with no `then` block, bulk move or
    `simultaneously` or required part open (the procedure runs on its own)."""
    trial = st.trial_copy()
    trial.trying = True
    trial.deferred, trial.holding, trial.quiet_moves = None, 0, 0
    trial.require_depth = -1   # (a required part open in the game is not the trial's)
    return trial


def _changed(st, base) -> bool:
    """Whether a trial's state differs from the game's in what a trial compares: where the
    cards are, the variables, who is out, the turn order (not the log, the counters or the
    random source). A zone with no card is the same as no zone."""
    if (st.card_vars, st.player_vars, st.globals, st.out, st.finished, st.next_player, st.first_player,
            st.extra_turns, st.first_extra_turns, st.direction) != (
            base.card_vars, base.player_vars, base.globals, base.out, base.finished, base.next_player,
            base.first_player, base.extra_turns, base.first_extra_turns, base.direction):
        return True
    a, b = st.zones, base.zones
    for x, y in ((a, b), (b, a)):
        for k, v in x.items():
            if v and (k not in y or v is not y[k] and v != y[k]):
                return True
    return False


class Targets:
    """`choose targets of` and `target(c)` (see the module doc)."""

    # `choose targets of c by p { … }` (docs/language.md, section 4.11b): each `target`
    # declaration whose condition holds for the card, in order, is chosen by p among its
    # legal options, unless an open `choose targets of` the same card named it already;
    # the block runs with them (`target(c)` reads them) and they are forgotten after it.
    # A target with no legal option skips the block: the effect is impossible (a shortfall);
    # the `else` block runs instead.
    def x_choose_targets(self, s, env):
        card = self.ev(s.card, env)
        chooser = self.as_player(self.ev(s.by, env), s.by)
        added = yield from self.s_choose_targets(s, card, chooser)
        if added is None:
            yield from self.run_block(s.otherwise, env)
            return
        try:
            yield from self.run_block(s.body, env)
        finally:
            self.targets_end(card, added)

    def s_choose_targets(self, s, card, chooser):
        """Name the targets of `card` not yet named (a generator): the number added to its
        targets (for `targets_end`), or None when one had no legal option (nothing added)."""
        if card.__class__ is not Card and not hasattr(card, "props"):
            raise self.fail(s.card, f"`choose targets of` needs a card, not {_show(card)}")
        f = facts(self.rs)
        decls = f.targets_of.get(card.id)
        if decls is None:
            decls = self.targets_for(card)
        if not decls:
            return 0   # (no declaration can concern the card: nothing to name)
        st = self.state
        have = st.targets.get(card.id, ())
        named = {t[0] for t in have} if have else ()
        new = []
        asks = f.target_asks
        trying = st.trying
        for t in decls:
            if t.name in named:
                continue
            if t.cond is not None and not _truth(self.target_value(t.cond, card, chooser)):
                continue
            domain = self.target_value(t.domain, card, chooser)
            options = list(self.cards_of(domain) if domain.__class__ is ZoneRef else self.as_list(domain, t.domain))
            ask = asks.get(t.name)
            if ask is None:   # (kept with the ruleset: `c_ask` finds whether it asks from hidden things by its id)
                ask = asks[t.name] = _TargetAsk(t)
                f.hidden_asks[id(ask)] = (ask, asks_hidden(self.rs, ask))
            if trying:   # (a trial answers its decisions itself, unseen: no prompt to word, nothing to prefer)
                prompt, scores = t.name, None
            else:
                prompt = (lambda t=t: self.target_value(t.prompt, card, chooser)) if t.prompt is not None else \
                    f"{card.name}: choose its target ({t.name})"
                scores = None if t.prefer is None else \
                    self.target_scores(t, ask, Env({"card": card, "player": chooser, "it": card}))
            value = self.c_ask(ask, options, chooser, prompt, scores)   # (`c_decide`'s two halves: one generator fewer)
            if value.__class__ is Decision:
                value = self.c_took(ask, value, (yield value))
            if value is OTHERWISE:   # (c_ask counted the shortfall)
                return None
            new.append((t.name, value, chooser.seat))
        if new:
            st.targets = {**st.targets, card.id: have + tuple(new)}
        return len(new)

    def targets_for(self, card) -> tuple:
        """The `target` declarations, in order, less those whose condition is false for
        `card` whatever the game (`if kind = upgrade`, `if name = "BABY TRAP" and …`: its
        value from the card data alone, `check/statics.py`, the engines' own meaning): a
        card's effect asks only the few that can concern it (Unstable Unicorns has 19)."""
        known = facts(self.rs).targets_of
        found = known.get(card.id)
        if found is None:
            found = known[card.id] = tuple(t for t in self.rs.targets if self.may_hold(t.cond, card))
        return found

    def target_value(self, e, card, player):
        """A `target` declaration's condition, domain or prompt `e` for `card` chosen by
        `player` (the compiled engine runs the generator's function of the two)."""
        return self.ev(e, Env({"card": card, "player": player, "it": card}))

    def target_scores(self, t, ask, env):
        """The function giving the `prefer` values of target `t`'s options (the compiled
        engine's is its generated hint: `CompiledEngine.target_scores`)."""
        return partial(self.choose_hints, ask, env)

    def targets_end(self, card, added: int):
        """The block of a `choose targets of` ends: the targets it named are forgotten."""
        if added:
            st = self.state
            left = st.targets.get(card.id, ())[:-added]
            targets = st.targets = dict(st.targets)   # (replaced, never changed in place)
            targets.pop(card.id, None)
            if left:
                targets[card.id] = left

    def target_of(self, card, node=None, name=None):
        """`target(c)`, `target(c, NAME)`: the target named for card c by an open `choose
        targets of` (by declaration `NAME`; with no name, its one target: an error when it
        has several); `none` when none is, or when it is no longer legal (no longer in its
        declaration's domain, evaluated now for the same card and chooser)."""
        if card.__class__ is not Card and not hasattr(card, "props"):
            if card is None:
                return None
            raise self.fail(node, f"`target` needs a card, not {_show(card)}")
        decls = facts(self.rs).target_decls
        if not decls:
            decls.update((t.name, t) for t in self.rs.targets)
        if name is not None and name not in decls:
            raise self.fail(node, f"no `target` declaration is named {_show(name)}")
        have = self.state.targets.get(card.id)
        if not have:
            return None
        if name is None:
            if len(have) > 1:
                names = ", ".join(f'"{h[0]}"' for h in have)
                raise self.fail(node, f"{card.name} has {len(have)} targets ({names}): say which, "
                                      f"`target(c, \"{have[0][0]}\")`")
            entry = have[0]
        else:
            entry = next((h for h in have if h[0] == name), None)
            if entry is None:
                return None
        name, value, seat = entry
        t = decls[name]
        return value if self.target_legal(t, value, card, self.players[seat]) else None

    def target_legal(self, t, value, card, player) -> bool:
        """Whether `value` is in target declaration `t`'s domain now (for `card` chosen by
        `player`). A domain whose conditions give the same value each time is asked about
        `value` alone, through its plan (`legal_plan`): it is in the innermost list and each
        condition holds for it, which is what being in the list kept means (the other
        values' tests are not run)."""
        plans = facts(self.rs).target_tests
        plan = plans.get(t.name)
        if plan is None:
            plan = plans[t.name] = legal_plan(self.rs, t.domain)
        if not plan:
            domain = self.target_value(t.domain, card, player)
            options = self.cards_of(domain) if domain.__class__ is ZoneRef else self.as_list(domain, t.domain)
            return value in options
        values = (card, player)   # (the names bound where a step is: a target's own, or a def's parameters)
        conds = []
        for kind, node, names, own in plan:
            if kind == "cond":   # (tested last, innermost first: the order the list was made in)
                conds.append((node, names, values))
                continue
            at = values + (card,) if own else values   # (`it` is the card itself in a target's own expressions)
            if kind == "bind":   # a def's parameters: its arguments' values
                values = tuple([self.legal_value(a, names, at) for a in node])
            else:
                src = self.legal_value(node, names, at)
                options = self.cards_of(src) if src.__class__ is ZoneRef else self.as_list(src, node)
                if value not in options:
                    return False
        for node, names, at in reversed(conds):
            if not _truth(self.legal_value(node, names, at + (value,))):
                return False
        return True

    def legal_value(self, e, names: tuple, values: tuple):
        """Expression `e` of a `legal_plan`, with `names` bound to `values` (the compiled
        engine runs the generator's function of them)."""
        return self.ev(e, Env(dict(zip(names, values))))


def legal_plan(rs, domain) -> tuple:
    """How `target(c)` tests one value against a target's `domain` (`Targets.target_legal`),
    outermost first; () when the whole domain must be worked out. Each step is (kind, node,
    the names bound for it, whether it is the target's own expression): "cond", the
    condition of a `LIST where COND` whose COND gives the same value each time
    (`resolver.deterministic_expr`), its last name `it`, the value tested; "bind", a call
    of a def whose body is such a list (`stealable(player)`, or a name, `any_stable_cards`):
    its arguments (node) give the def's parameters, the names of the steps after it; "in",
    the innermost list, which the value must be in. A target's own names are card, player
    and `it` (the card itself, or the value in a condition)."""
    f = facts(rs)
    steps: list = []
    names, own = ("card", "player"), True
    node = domain
    for _ in range(MAX_UNFOLDED):
        if isinstance(node, A.Where) and deterministic_expr(rs, node.cond):
            steps.append(("cond", node.cond, names + ("it",), own))
            node = node.source
            continue
        d = _unfolded_def(rs, f, node)
        if d is None:
            break
        steps.append(("bind", tuple(node.args) if isinstance(node, A.Call) else (), names + ("it",) if own else names, own))
        names, own, node = tuple(d.params or ()), False, d.expr
    if not steps:
        return ()
    steps.append(("in", node, names + ("it",) if own else names, own))
    return tuple(steps)


MAX_UNFOLDED = 8   # the steps of a `legal_plan` (a def calling itself is not followed for ever)


def _unfolded_def(rs, f, node):
    """The def `node` calls (or names, with no parameters) when its body is a `LIST where
    COND` that `legal_plan` can go into; else None."""
    if isinstance(node, A.Call):
        d = rs.defs.get(node.name)
        if d is None or call_meaning(rs, node.name) != "def" or len(node.args) != len(d.params or ()):
            return None
    elif isinstance(node, A.Name):
        use = f.uses.get(id(node))
        if use is None or use.kind != "global" or use.meaning != "def":
            return None
        d = rs.defs[node.id]
        if d.params is not None:
            return None
    else:
        return None
    if "it" in (d.params or ()) or not isinstance(d.expr, A.Where) or not deterministic_expr(rs, d.expr.cond):
        return None
    return d


class _TargetAsk:
    """A `target` declaration as the `choose` whose decision it asks (`c_ask`, `c_took`)."""

    __slots__ = ("lo", "hi", "optional", "name", "prompt", "prefer", "tag", "span", "domain", "cond")

    def __init__(self, t):
        self.lo = self.hi = None
        self.optional = False
        self.name, self.prompt, self.prefer, self.tag, self.span, self.domain, self.cond = (
            t.var, t.prompt, t.prefer, None, t.span, t.domain, t.cond)
