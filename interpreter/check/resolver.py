"""What each name of a ruleset means, decided once when the ruleset is first used.

The name checker (`names.py`), the type checker (`typecheck.py`), lint, the tree walker
(`compiler.py`, `engine.py`) and the code generator (`codegen.py`) read these facts;
none of them decides again what a call or a bare name refers to:

- :func:`call_meaning`: what `f(…)` calls, in the one order of precedence
  (def → table → pattern → zone of each card → zone of each player → built-in);
- :func:`name_meaning`: what a bare name means when it is neither a local nor a property
  of `it` (option → global variable → def without parameters → data table → zone → enum
  member → built-in value);
- :class:`Facts`: per ruleset, the names that can ever be locals, the names a bare name
  may read from `it`, the fields custom events carry, how long each derived property's
  and each function's value lasts, and the caches the engines keep (typed, not a bag of
  string keys).
"""
from __future__ import annotations

from typing import Any, Optional

import attrs

from ..base import ast as A
from ..runtime import builtins as B

# ---------------------------------------------------------------- calls and names

def _def_with_params(rs, name) -> bool:
    d = rs.defs.get(name)
    return d is not None and d.params is not None


def _const_def(rs, name) -> bool:
    d = rs.defs.get(name)
    return d is not None and d.params is None


def _zone_of_each(kind):
    def test(rs, name) -> bool:
        z = rs.zones.get(name)
        return z is not None and getattr(z, kind)
    return test


def _global_var(rs, name) -> bool:
    v = rs.vars.get(name)
    return v is not None and v.scope == "global"


#: How a call `f(…)` resolves: the first of these that `f` is (its meaning, and the test).
_CALLS = (
    ("def", _def_with_params),
    ("table", lambda rs, name: name in rs.table_decls),
    ("pattern", lambda rs, name: name in rs.patterns),
    ("card_zone", _zone_of_each("per_card")),
    ("player_zone", _zone_of_each("per_player")),
    ("builtin", lambda rs, name: name in B.FUNCTIONS),
)
CALL_ORDER = tuple(meaning for meaning, _ in _CALLS)

#: How a bare global name resolves: the first of these that it is (its meaning, and the test).
_NAMES = (
    ("option", lambda rs, name: name in rs.option_values),
    ("global", _global_var),
    ("def", _const_def),
    ("data", lambda rs, name: name in rs.tables),
    ("zone", lambda rs, name: name in rs.zones),
    ("enum", lambda rs, name: name in rs.enum_members),
    ("builtin", lambda rs, name: name in B.VALUES),
)
NAME_ORDER = tuple(meaning for meaning, _ in _NAMES)


def call_meaning(rs, name: str) -> Optional[str]:
    """What `name(…)` calls: the first meaning of CALL_ORDER it has, or None (nothing: an
    unknown function)."""
    for meaning, test in _CALLS:
        if test(rs, name):
            return meaning
    return None


def name_meaning(rs, name: str) -> Optional[str]:
    """What a bare name means globally: the first meaning of NAME_ORDER it has, or None."""
    for meaning, test in _NAMES:
        if test(rs, name):
            return meaning
    return None


def bound_names(node) -> set:
    """The local names a declaration binds: parameters, `let`, loop, choice and action variables."""
    out = set()
    for n in A.walk(node):
        if isinstance(n, (A.Let, A.For, A.Choose, A.Comprehension)):
            out.add(n.name)
        elif isinstance(n, A.Draw) and n.name is not None:
            out.add(n.name)
        elif isinstance(n, (A.Def, A.Procedure, A.Table, A.Pattern)):
            out |= set(n.params or ())
        elif isinstance(n, A.Action) and n.param:
            out.add(n.param)
        elif isinstance(n, A.Check) and n.var:
            out.add(n.var)
        elif isinstance(n, (A.Estimate, A.Show)):
            out.add(n.var)
        elif isinstance(n, A.TargetDecl):
            out |= {n.var, "card", "player"}
    return out


def card_attr_meaning(rs, name: str) -> str:
    """What `card.name` reads, in the one order of precedence: the card's variable ("var"),
    a derived property ("derive"), else its data or a built-in attribute ("data": the
    card's property of that name if it has one, else `name`, `id`, `zone`, `owner`)."""
    v = rs.vars.get(name)
    if v is not None and v.scope == "card":
        return "var"
    if name in rs.derives:
        return "derive"
    return "data"


# ---------------------------------------------------------------- what each use of a name means

@attrs.frozen(slots=True)
class Binder:
    """Where a local name is bound: how (`let`, `for`, `choose`, a parameter, an event's
    name, the engine's `actor` …), the node that binds it and its span."""

    name: str
    how: str                     # "let" | "for" | "choose" | "draw" | "it" | "parameter" | "event" | "engine"
    node: Any = attrs.field(eq=False, repr=False)       # the binding node (a Let, For, Def, Trigger …)

    @property
    def span(self):
        return getattr(self.node, "span", None)


@attrs.frozen(slots=True)
class Use:
    """What one use of a bare name means, decided once by the resolver pass (`check/names.py`
    walks every declaration with its scopes and records one `Use` per `A.Name` node and per
    `set NAME` target). The tree walker, the generator, lint and the language server read it;
    none of them decides again.

    - "local": a local the rules bind around this use (`binder`), always bound when it runs;
    - "maybe": a local the engine may leave unbound here (a custom event's field, a name a
      `forbid TAG` rule reads where the tag is offered): its value if bound, else as "it";
    - "it": a property of the nearest `it` (a card's variable, derived property or data; a
      player's variable), else `meaning`;
    - "global": `meaning`, what `name_meaning` says (None: unknown)."""

    kind: str
    name: str
    meaning: Optional[str] = None
    binder: Optional[Binder] = None
    it: bool = False            # ("maybe") whether the name may be a property of `it` when unbound


def uses(rs) -> dict:
    """id(name node) -> its `Use`, for every bare name and `set NAME` target of the ruleset."""
    return facts(rs).uses


def use_of(rs, node) -> Use:
    """The recorded meaning of one `A.Name` node; for a name of an expression that is not
    part of the ruleset's declarations (a test's, a tool's), `free_use`."""
    u = facts(rs).uses.get(id(node))
    return u if u is not None else free_use(rs, node)


def free_use(rs, node) -> Use:
    """What a bare name means in an expression read outside the ruleset's declarations, whose
    scopes are unknown: a local if one is bound where it is evaluated, else a property of
    `it`, else its global meaning."""
    return Use("maybe", node.id, name_meaning(rs, node.id), None, node.id in facts(rs).it_names)


# ---------------------------------------------------------------- per-ruleset facts

@attrs.define
class Facts:
    """Facts about one ruleset, computed once and shared by every game played with it."""

    local_names: frozenset          # names the ruleset can bind locally anywhere
    it_names: frozenset             # names a bare name may read from `it`
    emitted_fields: frozenset       # fields of custom events (`emit NAME(field: …)`)
    derive_kinds: dict              # derive -> "static" | "card" | "place" | "dynamic"
    static_defs: frozenset          # defs whose value depends only on their arguments and the card data
    decl_order: dict                # id(declaration) -> its place in the ruleset
    # card variable -> the cached ("card") derived properties whose value can depend on it:
    # what a `set` of the variable makes both engines forget (unless the value is the same)
    derives_reading: dict
    # The engines' caches, kept with the ruleset (every game of it shares them):
    static_derives: dict = attrs.field(factory=dict)   # "static" derived properties: name -> {card id: value}
    def_memos: dict = attrs.field(factory=dict)        # static def -> {arguments: value}
    compiler: Any = None                               # the tree walker's closures (compiler.Compiler)
    compiled: dict = attrs.field(factory=dict)         # budget (bool) -> codegen.Compiled, or None
    compiled_why: Optional[str] = None                 # why the generator could not compile the ruleset
    # What the state checks read (`what_checks_read`): the zones (None: any zone), and
    # whether any variable. Engine.settle need not look again until one of them changed.
    check_zones: Optional[frozenset] = None
    check_vars: bool = True
    # Card names a log line can name (`views._named_cards`): [(name, pattern)] longest
    # first, name -> the ids of the cards with it, and text -> the id lists of the names it
    # holds (remembered as texts are read). Made on first use.
    card_names: Optional[tuple] = None
    # id(A.Name node) -> its Use: the resolver pass's record (`uses`, `check/names.py`)
    uses: dict = attrs.field(factory=dict)
    # The procedures that may run a required part (`require { … }`), themselves or through
    # the procedures they call: what `possible` reads (walker/trial.py).
    requiring: frozenset = frozenset()
    # card id -> the `target` declarations whose condition the card data alone does not
    # rule out (`Targets.targets_for`, walker/trial.py): made on first use of each card
    targets_of: dict = attrs.field(factory=dict)
    # (id of a choice's domain, its tag), or "act" -> `reads_hidden`; id of a choice statement -> (it, that)
    hidden_asks: dict = attrs.field(factory=dict)
    # id(A.Require node) of the required parts after which no other can run at the same
    # level, wherever their procedure is called (`last_parts`): a trial stops there.
    last_parts: frozenset = frozenset()
    # id of the card statements and procedure calls (of a procedure that runs no required
    # part) outside any required part, from which on no required part can run at their
    # level, wherever their procedure is called (`last_parts`): a trial's way through that
    # comes to one ends at its next move (walker/trial.py, `Trials.trial_past_parts`).
    past_parts: frozenset = frozenset()
    # def, derive or table -> whether it is deterministic (`deterministic`), made on first use
    deterministic: dict = attrs.field(factory=dict)
    # target declaration's name -> how `target(c)` tests its value alone against its domain,
    # through the `LIST where COND` and the defs it calls (`legal_plan`, walker/trial.py;
    # (): the whole domain is worked out)
    target_tests: dict = attrs.field(factory=dict)
    target_asks: dict = attrs.field(factory=dict)     # its name -> the `choose` it asks (`Targets`), read only
    target_decls: dict = attrs.field(factory=dict)    # its name -> the target declaration (made on first use)
    # (forbid, zone name) -> {card id: the `forbid enter|leave ZONE` rules whose condition the
    # card data alone does not rule out} (`ContinuousRules.zone_rules_for`), made on first use
    zone_rules_of: dict = attrs.field(factory=dict)
    # (tag, the names bound to a card, card id) -> the `forbid TAG` rules the card data does not
    # rule out (`ContinuousRules.tag_rules_for`), made on first use
    tag_rules_of: dict = attrs.field(factory=dict)
    # (kind, name, from, to, phase) of a card event -> (the `instead` triggers waiting for it,
    # {card id: those of them whose condition the card data does not rule out})
    # (`Events.replacements`), made on first use
    instead_of: dict = attrs.field(factory=dict)
    # (id of a condition of an event's card, card id) -> whether the card data leaves it
    # possible (`ContinuousRules.may_hold`), made on first use
    card_conds: dict = attrs.field(factory=dict)
    statics: Any = None                               # the ruleset's `check.statics.Statics`, made on first use
    # The card variables a `VAR != none` test names: how many cards' VAR is not none is kept
    # with the state (`State.var_counts`), so that `all_cards where VAR != none and …` knows
    # at once when there is none (`codegen.runtime._cards_with_var`)
    counted_vars: frozenset = frozenset()

    def memo(self, def_name: str) -> dict:
        m = self.def_memos.get(def_name)
        if m is None:
            m = self.def_memos[def_name] = {}
        return m


def facts(rs) -> Facts:
    """The facts of a ruleset (made on first use)."""
    f = rs.analysis
    if f is None:
        f = rs.analysis = _make_facts(rs)
    return f


def deterministic(rs, name: str, seen=frozenset()) -> bool:
    """Whether def, derive or table `name` gives the same value for the same arguments while
    the game does not change: no dice, `random` or `possible` in it, nor in what it calls or
    reads (a pattern is not)."""
    memo = facts(rs).deterministic
    if name in memo:
        return memo[name]
    decl = rs.defs.get(name) or rs.derives.get(name) or rs.table_decls.get(name)
    if decl is None or name in seen:
        return name not in rs.patterns
    parts = [decl.expr] if not isinstance(decl, A.Table) else \
        [x for row in decl.rows for x in row] + ([decl.default] if decl.default is not None else [])
    ok = all(deterministic_expr(rs, part, seen | {name}) for part in parts)
    memo[name] = ok
    return ok


def deterministic_expr(rs, e, seen=frozenset()) -> bool:
    """Whether expression `e` gives the same value each time while the game does not change
    (as `deterministic`: no dice, `random`, `possible` or pattern in it or what it calls)."""
    for n in A.walk(e):
        if isinstance(n, (A.Dice, A.Possible)) or isinstance(n, A.Call) and n.name in rs.patterns or \
                isinstance(n, A.Call) and call_meaning(rs, n.name) == "builtin" and B.FUNCTIONS[n.name].draws:
            return False
        if isinstance(n, (A.Call, A.Name, A.Attr)):
            ref = n.id if isinstance(n, A.Name) else n.name
            if (ref in rs.defs or ref in rs.derives or ref in rs.table_decls or ref in rs.patterns) \
                    and not deterministic(rs, ref, seen):
                return False
    return True


def local_names(rs) -> frozenset:
    """The names the ruleset can bind locally anywhere (and the engine binds)."""
    local = set(B.BOUND_BY_ENGINE) | frozenset().union(*rs.emits.values())
    for item in rs.items:
        local |= bound_names(item)
    return frozenset(local)


def it_names(rs) -> frozenset:
    """The names a bare name may read from `it`: card and player variables, derived
    properties, card data, the built-in attributes and custom events' fields."""
    props = set(rs.derives) | {n for n, v in rs.vars.items() if v.scope in ("card", "player")}
    if rs.cards_decl:
        props |= {p.name for p in rs.cards_decl.props}
    return frozenset(props | B.IT_ATTRS | frozenset().union(*rs.emits.values()))


def _make_facts(rs) -> Facts:
    emitted = frozenset().union(*rs.emits.values())
    derive_kinds, static_defs = _lifetimes(rs)
    check_zones, check_vars = what_checks_read(rs)
    assert rs.uses is not None, "the loader's name pass (check/names.py) records what each name means"
    return Facts(uses=rs.uses, local_names=local_names(rs), it_names=it_names(rs),
                 emitted_fields=emitted, derive_kinds=derive_kinds, static_defs=frozenset(static_defs),
                 decl_order={id(d): i for i, d in enumerate(rs.items)},
                 derives_reading=_derives_reading(rs, derive_kinds), check_zones=check_zones,
                 check_vars=check_vars, requiring=(requiring := requiring_procedures(rs)),
                 counted_vars=counted_vars(rs),
                 **dict(zip(("last_parts", "past_parts"), required_tails(rs, requiring))))


def counted_vars(rs) -> frozenset:
    """The card variables named by a test `VAR != none` anywhere in the rules (`Facts.counted_vars`)."""
    card_vars = set(rs.card_vars())
    return frozenset(n.left.id for item in rs.items for n in A.walk(item)
                     if isinstance(n, A.Compare) and n.op == "!=" and isinstance(n.left, A.Name)
                     and n.left.id in card_vars and isinstance(n.right, A.Const) and n.right.value is None)


#: The statements that move cards (`past_parts`: a trial's way through ends at its next move).
_CARD_STATEMENTS = (A.Move, A.Swap, A.Draw, A.Deal, A.Discard)


def last_parts(rs, requiring: frozenset) -> frozenset:
    """The `require` blocks of procedures after which no other `require` can run in the
    same procedure or in any procedure that calls it (statically, conservatively: a part
    in a loop, or followed by a statement that may run one, is not last; nor is a part of
    a procedure called where one may follow, or called recursively). `possible` reads every
    part a way through meets; after a last part done in full there is nothing left to ask."""
    return required_tails(rs, requiring)[0]


def required_tails(rs, requiring: frozenset) -> tuple:
    """(`last_parts`, `past_parts`): the required parts no other can follow (above), and the
    card statements and calls of procedures that run no required part, outside any required
    part, that no required part can follow, nor any in the procedures that call theirs
    (those calls outside required parts too), as `last_parts` reads "follow". A way through
    that comes to one has done every required part it will meet: from there on, a move
    is all `possible` needs to know (it changed the game), as for a procedure with none."""
    loops = (A.For, A.Repeat, A.While, A.Simultaneously)

    def may_require(node) -> bool:
        return any(isinstance(n, A.Require) or isinstance(n, A.CallStmt) and n.name in requiring
                   for n in A.walk(node))

    parts: list = []          # (Require node, owner procedure, nothing may follow it there)
    past: list = []           # (card statement or call, owner procedure), nothing may follow it there
    sites: dict = {}          # procedure -> [(calling procedure, nothing may follow the call there)]
    bare: dict = {}           # procedure -> [(calling procedure, as sites, and outside any required part)]

    def block(b, owner, clean, inside):
        if b is None:
            return
        stmts = b.stmts
        for i, st in enumerate(stmts):
            stmt(st, owner, clean and not any(may_require(x) for x in stmts[i + 1:]), inside)

    def stmt(st, owner, clean, inside):
        if isinstance(st, A.Require):
            inner = clean and not may_require(st.then)
            parts.append((st, owner, inner))
            block(st.body, owner, inner, True)
            block(st.then, owner, clean, inside)
            return
        if isinstance(st, A.CallStmt):
            sites.setdefault(st.name, []).append((owner, clean))
            bare.setdefault(st.name, []).append((owner, clean and not inside))
            if clean and not inside and st.name not in requiring:
                past.append((st, owner))
            return
        if isinstance(st, _CARD_STATEMENTS) and clean and not inside and not may_require(st):
            past.append((st, owner))
        if isinstance(st, loops):
            block(st.body, owner, clean and not may_require(st.body), inside)
        elif isinstance(st, A.If):
            for _, b in st.branches:
                block(b, owner, clean, inside)
            block(st.otherwise, owner, clean, inside)
        else:   # alternatives (choose, may, targets: body or else) or a card statement's `then`
            for f in attrs.fields(type(st)):
                v = getattr(st, f.name)
                if isinstance(v, A.Block):
                    block(v, owner, clean, inside)

    for name, proc in rs.procedures.items():
        block(proc.body, name, True, False)

    def tail_clean(calls, tails, name, seen=()) -> bool:
        if name in seen:
            return False
        if name not in tails:
            tails[name] = all(clean and tail_clean(calls, tails, caller, seen + (name,))
                              for caller, clean in calls.get(name, ()))
        return tails[name]

    last, free = {}, {}
    return (frozenset(id(r) for r, owner, clean in parts if clean and tail_clean(sites, last, owner)),
            frozenset(id(st) for st, owner in past if tail_clean(bare, free, owner)))


def requiring_procedures(rs) -> frozenset:
    """The procedures that may run a `require` block: one in their body, or a call of a
    procedure that may (a trigger it sets off is not counted: its required parts are its own)."""
    calls: dict = {}
    found: set = set()
    for name, proc in rs.procedures.items():
        nodes = list(A.walk(proc.body))
        if any(isinstance(n, A.Require) for n in nodes):
            found.add(name)
        calls[name] = {n.name for n in nodes if isinstance(n, A.CallStmt) and n.name in rs.procedures}
    grew = True
    while grew:
        grew = False
        for name, callees in calls.items():
            if name not in found and callees & found:
                found.add(name)
                grew = True
    return frozenset(found)


def what_checks_read(rs) -> tuple:
    """The zones the `check` declarations' lists and conditions read, with everything they
    call (defs, tables, derived properties), as a frozenset of zone names — None when they
    may read any zone (a pattern, `all_cards`, `owner`, `zone_of`, a card's `zone` …) — and
    whether they read any variable. Conservative: what it cannot follow counts as anything."""
    zones: set = set()
    reads_vars = False
    seen: set = set()
    todo = [x for chk in rs.checks for x in (chk.domain, chk.cond) if x is not None]
    var_names = set(rs.vars)

    def follow(name, node):
        if name not in seen:
            seen.add(name)
            todo.append(node)

    while todo:
        for n in A.walk(todo.pop()):
            name = n.name if isinstance(n, (A.Call, A.Attr)) else n.id if isinstance(n, A.Name) else None
            if name is None:
                continue
            if name in B.READS_ANY_ZONE:
                return None, True
            if name in var_names:
                reads_vars = True
            meaning = _follow_use(rs, n, name, follow)
            if isinstance(n, A.Call):
                if meaning in ("card_zone", "pattern"):
                    return None, True
                if meaning == "player_zone":
                    zones.add(name)
            elif meaning == "zone":
                zones.add(name)
    return frozenset(zones), reads_vars


def _follow_use(rs, n, name, follow):
    """What the use `n` of `name` is (`call_meaning` of a call, `name_meaning` of a name,
    None else), after handing `follow` what it leads to: a derived property, a def, a
    table (the walks of `what_checks_read` and `reads_hidden`)."""
    if name in rs.derives:
        follow("derive " + name, rs.derives[name])
    if isinstance(n, A.Call):
        meaning = call_meaning(rs, name)
        if meaning == "table":
            follow(name, rs.table_decls[name])
    elif isinstance(n, A.Name):
        meaning = name_meaning(rs, name)
    else:
        return None
    if meaning == "def":
        follow(name, rs.defs[name])
    return meaning


def reads_hidden(rs, nodes) -> bool:
    """Whether evaluating `nodes` (with everything they call: defs, tables, derived
    properties) may read what some seat cannot see: the cards of a zone that is not
    `public` (how many it holds is public: a zone counted, `count(hand(p))`, is not read), a
    variable that is not `public`, the random source, a `possible` trial, or what cannot be
    followed (a pattern, `all_cards`); where a card lies (`zone_of`,
    `owner`) is public, and `can_move` reads the zone rules' conditions. Conservative. A
    question whose options such an expression computes is its chooser's alone
    (`Decision.private`): whether it is asked at all (one legal answer is not) can tell
    what its chooser holds (`asks_hidden`; docs/view.md)."""
    hidden_zones = {name for name, z in rs.zones.items() if z.visibility != "public"}
    hidden_vars = {name for name, v in rs.vars.items() if v.sight != "public"}
    if not hidden_zones and not hidden_vars:
        return False
    seen: set = set()
    todo = [x for x in nodes if x is not None]

    def follow(name, node):
        if name not in seen:
            seen.add(name)
            todo.append(node)

    def counted(n) -> bool:
        """A zone given to a call that only counts its cards (`count`, `exists`)."""
        if not isinstance(n, A.Call) or len(n.args) != 1 or call_meaning(rs, n.name) != "builtin":
            return False
        arg = n.args[0]
        return B.FUNCTIONS[n.name].loop == "count" and (
            isinstance(arg, A.Name) and name_meaning(rs, arg.id) == "zone"
            or isinstance(arg, A.Call) and call_meaning(rs, arg.name) in ("player_zone", "card_zone"))

    while todo:
        stack = [todo.pop()]
        while stack:
            n = stack.pop()
            if isinstance(n, tuple):
                stack.extend(n)
                continue
            if not attrs.has(type(n)):
                continue
            if isinstance(n, (A.Possible, A.Dice)):
                return True
            if counted(n):
                arg = n.args[0]
                stack.extend(arg.args if isinstance(arg, A.Call) else ())
                continue
            name = n.name if isinstance(n, (A.Call, A.Attr)) else n.id if isinstance(n, A.Name) else None
            if name is not None:
                if name in B.ASKS_ZONE_RULES:
                    for r in rs.rules:
                        if r.zone is not None:
                            follow("rule " + r.name, r.cond)
                elif name in B.TELLS_PLACE:
                    pass                   # where a card lies is public
                elif name in B.READS_ANY_ZONE or name in hidden_vars:
                    return True
                meaning = _follow_use(rs, n, name, follow)
                if isinstance(n, A.Call):
                    if meaning == "pattern" or meaning in ("card_zone", "player_zone") and name in hidden_zones:
                        return True
                elif meaning == "zone" and name in hidden_zones:
                    return True
            stack.extend(getattr(n, f.name) for f in attrs.fields(type(n)) if f.name != "span")
    return False


def _derives_reading(rs, derive_kinds) -> dict:
    """card variable -> the cached ("card", "place") derived properties whose value can depend on it."""
    card_vars = set(rs.card_vars())

    def names_in(node, seen):
        out = set()
        for n in A.walk(node):
            ref = n.id if isinstance(n, A.Name) else n.name if isinstance(n, (A.Attr, A.Call)) else None
            if ref is None:
                continue
            if ref in card_vars:
                out.add(ref)
            if ref in seen:
                continue
            seen.add(ref)
            if ref in rs.derives:
                out |= names_in(rs.derives[ref].expr, seen)
            if ref in rs.defs:
                out |= names_in(rs.defs[ref].expr, seen)
            if ref in rs.table_decls:
                tb = rs.table_decls[ref]
                for c, val in tb.rows:
                    out |= names_in(c, seen) | names_in(val, seen)
                if tb.default is not None:
                    out |= names_in(tb.default, seen)
        return out
    reads = {d: names_in(rs.derives[d].expr, {d}) for d, k in derive_kinds.items() if k in ("card", "place")}
    return {v: tuple(sorted(d for d, vs in reads.items() if v in vs)) for v in card_vars}


# ---------------------------------------------------------------- how long a value lasts

#: Attributes that read the game (where a card lies, whose it is), not the card data.
_GAME_ATTRS = frozenset(("zone", "owner", "seat"))
#: What reads where the card itself lies: `zone`, `owner`, `it.zone`, `owner(it)`, `zone_of(it)`.
_PLACE_ATTRS = frozenset(("zone", "owner"))
_PLACE_FUNCTIONS = frozenset(n for n, f in B.FUNCTIONS.items() if f.reads_place)
#: How long a derived property's value lasts (`_lifetimes`): "static" (the card's data only:
#: computed once per ruleset), "card" (also the card's own variables: cached until one of
#: them changes), "place" (also where the card itself lies, its zone and owner: cached also
#: until it moves, or the card it lies under moves), "dynamic" (computed at every use).
_RANK = {"static": 0, "card": 1, "place": 2, "dynamic": 3}


def _rebinds_it(node) -> bool:
    """Whether `it` means another card somewhere inside `node` (a `where`, `sort by`,
    `group by`, or a comprehension over `it`)."""
    return any(isinstance(n, (A.Where, A.SortBy, A.GroupBy)) or (isinstance(n, A.Comprehension) and n.name == "it")
               for n in A.walk(node))


def _dynamic_names(rs) -> set:
    """Names that read the game, not the card data: where cards lie, who plays, how many.
    (Per-ruleset caches are shared by games of every player count.)"""
    return set(rs.player_vars()) | set(rs.global_vars()) | set(rs.zones) | _GAME_ATTRS | {
        n for n in (*B.FUNCTIONS, *B.VALUES) if B.reads_game(n)}


def _lifetimes(rs):
    """How long each derived property's value lasts (see `_RANK`), and the functions
    (`def f(x) = …`) whose value depends only on their arguments and the card data, such as
    deck statistics, whose results are remembered per ruleset."""
    card_vars, player_vars, dynamic_names = set(rs.card_vars()), set(rs.player_vars()), _dynamic_names(rs)
    memo: dict = {}
    it = A.Name("it")

    def kind_of_name(n, seen):
        if n.id in card_vars:
            return "card"
        if n.id in _PLACE_ATTRS and n.id not in rs.defs and n.id not in rs.vars and n.id not in rs.derives:
            return "place"   # (the card's own `zone`, `owner`, read through `it`)
        if n.id in dynamic_names:
            return "dynamic"
        if n.id in rs.derives and n.id not in seen:
            return derive_kind(n.id, seen)
        d = rs.defs.get(n.id)
        if d is not None and d.params is None and n.id not in seen:
            return kind_of(d.expr, seen | {n.id})
        return "static"

    def kind_of_attr(n, seen):
        if n.name in card_vars:
            return "card" if n.obj == it else "dynamic"
        if n.name in rs.derives:
            dk = derive_kind(n.name, seen) if n.name not in seen else "dynamic"
            return dk if dk == "static" or n.obj == it else "dynamic"
        if n.name in _PLACE_ATTRS and n.name not in player_vars:
            return "place" if n.obj == it else "dynamic"
        if n.name in player_vars or n.name in _GAME_ATTRS:
            return "dynamic"
        return "static"

    def kind_of_call(n, seen):
        if n.name in _PLACE_FUNCTIONS and n.name not in rs.defs and n.args == (it,):
            return "place"
        if n.name in dynamic_names:
            return "dynamic"
        if n.name in rs.defs and n.name not in seen:
            k = kind_of(rs.defs[n.name].expr, seen | {n.name})
            return "dynamic" if k in ("card", "place") else k   # a function's parameters are not `it`
        if n.name in rs.table_decls and n.name not in seen:
            t = rs.table_decls[n.name]
            parts = [e for row in t.rows for e in row] + ([t.default] if t.default else [])
            return max((kind_of(e, seen | {n.name}) for e in parts), key=_RANK.get, default="static")
        if n.name in rs.patterns:
            return "dynamic"
        return "static"

    def kind_of(node, seen) -> str:
        worst = "static"
        for n in A.walk(node):
            if isinstance(n, A.Dice):
                k = "dynamic"
            elif isinstance(n, A.Name):
                k = kind_of_name(n, seen)
            elif isinstance(n, A.Attr):
                k = kind_of_attr(n, seen)
            elif isinstance(n, A.Call):
                k = kind_of_call(n, seen)
            else:
                continue
            if _RANK[k] > _RANK[worst]:
                worst = k
                if worst == "dynamic":
                    break
        if worst in ("card", "place") and _rebinds_it(node):
            return "dynamic"   # (which card's variables, or place, `it` reads there is not followed)
        return worst

    def derive_kind(name, seen=frozenset()) -> str:
        if name not in memo:
            memo[name] = "dynamic"  # a derive that refers to itself is never cached
            memo[name] = kind_of(rs.derives[name].expr, seen | {name})
        return memo[name]

    derives = {n: derive_kind(n) for n in rs.derives}
    defs = {n for n, d in rs.defs.items() if d.params is not None and kind_of(d.expr, {n}) == "static"}
    return derives, defs


def asks_hidden(rs, s) -> bool:
    """Whether the options of choice `s` (a `choose`, a target's) are computed from what
    some seat cannot see (`reads_hidden`: its domain, a target's condition, the `forbid`
    rules of its tag), worked out once per choice. Such a question is its chooser's alone
    (`Decision.private`): one with a single legal answer is not asked, so that it is asked
    would tell the others what its chooser holds.

    A fact of the ruleset, kept in `Facts.hidden_asks` by the choice's domain and tag, and
    for a statement of the ruleset also by the statement's id, with the statement kept
    beside it (so that the id stays its own): `Statements.c_ask` reads that entry first, a
    dictionary look-up per question asked. (A target's question is asked through an object
    made once per declaration and kept with the ruleset, `_TargetAsk`, whose entry
    `Targets.s_choose_targets` makes when it makes the object.)"""
    known = facts(rs).hidden_asks
    hit = known.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    domain = getattr(s, "domain", None)
    if domain is None:
        return False
    key = (id(domain), s.tag)
    found = known.get(key)
    if found is None:
        found = known[key] = reads_hidden(rs, [domain, getattr(s, "cond", None)] +
                                          [r.cond for r in rs.rules if r.zone is None and r.forbid == s.tag])
    if isinstance(s, A.Node):
        known[id(s)] = (s, found)
    return found


def acts_hidden(rs) -> bool:
    """Whether the list of legal actions is computed from what some seat cannot see (as
    `asks_hidden`: the actions' domains and `when` conditions, the `forbid` rules of their
    names): then an `act` question is its player's alone (`Decision.private`), since
    whether it is asked (one legal action is not) tells what its player holds; its line,
    written either way, is logged as before."""
    known = facts(rs).hidden_asks
    found = known.get("act")
    if found is None:
        names = {a.name for a in rs.actions}
        found = known["act"] = reads_hidden(rs, [x for a in rs.actions for x in (a.domain, a.when)] +
                                            [r.cond for r in rs.rules if r.zone is None and r.forbid in names])
    return found
