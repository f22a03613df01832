"""`cgl lint`: static checks of a ruleset, each a small registered rule.

Loading already reports syntax errors (E001), unreadable files (E002), card data that
breaks its schema (E003), unknown names (E004), duplicates (E005), bad overrides (E006)
and wrong calls (E009). The rules here look further: wrong types, unused and unreachable
code, triggers that cannot fire, conditions and choices no card can meet, table rows
that never answer, and decks too small for their deal.

A rule is a function `rule(ctx) -> Iterable[Diagnostic]` registered with `@rule(CODE)`;
its docstring says what it looks for. Codes and their documentation live in
:mod:`cgl.interpreter.base.codes`.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Optional

import attrs

from ..base import ast as A
from ..base.codes import CODES
from ..base.diagnostics import CglError, Diagnostic, did_you_mean
from ..base.files import found_in
from ..runtime import builtins as B
from .loader import Ruleset, load
from .resolver import call_meaning, facts, use_of
from .statics import UNKNOWN, Statics
from .typecheck import check_types

_walk = A.walk

RULES: dict[str, Callable] = {}


def rule(code: str):
    """Register a lint rule under a code of the registry."""
    assert code in CODES, code

    def register(fn):
        RULES[code] = fn
        return fn
    return register


@attrs.define
class Context:
    """What the rules look at: the merged ruleset, and facts computed once."""

    rs: Ruleset
    own_paths: set            # the files of this ruleset (its `extends` bases are checked on their own)
    # what expressions are worth without playing: in every game, and at the start of a game
    # for the fewest players (the variables' initial values: a pattern's labels)
    statics: Statics = attrs.field(default=attrs.Factory(lambda self: Statics(self.rs), takes_self=True))
    at_start: Statics = attrs.field(default=attrs.Factory(lambda self: self.statics.at_start(), takes_self=True))
    _values: dict = attrs.Factory(dict)

    def mine(self, node) -> bool:
        return node.span.path in self.own_paths

    def card_values(self, prop: str) -> Optional[set]:
        """Every value a static card property takes over the deck (None if not static)."""
        if prop in self._values:
            return self._values[prop]
        rs = self.rs
        values: Optional[set] = None
        static_props = {p.name for p in rs.cards_decl.props} if rs.cards_decl else set()
        if rs.cards and (prop in static_props or prop == "name" or facts(rs).derive_kinds.get(prop) == "static"):
            values = set()
            for c in rs.cards:
                v = self.statics.attr(c, prop)
                if v is UNKNOWN:
                    values = None
                    break
                values |= set(_flat(v))
        self._values[prop] = values
        return values


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def lint_ruleset(rs: Ruleset, select: Optional[set] = None) -> list:
    """Run every registered rule over a loaded ruleset."""
    ctx = Context(rs, {os.path.abspath(rs.path), rs.path})
    found = []
    for code, fn in RULES.items():
        if not select or code in select:
            found.extend(d for d in fn(ctx) if not _allowed_here(d))
    return sorted(set(found), key=_order)


def _allowed_here(d: Diagnostic) -> bool:
    """True when the diagnostic's line says `# cgl: allow CODE` (warnings only)."""
    if d.level != "warning" or d.span is None or not d.span.line:
        return False
    from ..base.diagnostics import _source_line
    line = _source_line(d.span.path, d.span.line) or ""
    mark = line.find("cgl: allow")
    if mark < 0:
        return False
    codes = {c.strip().upper() for c in line[mark + len("cgl: allow"):].replace(",", " ").split()}
    return d.code in codes


def _order(d: Diagnostic):
    sp = d.span
    return (sp.path if sp else "", sp.line if sp else 0, sp.column if sp else 0, d.code)


def lint_file(path: str) -> list:
    """Diagnostics for one `.cgl` file: load errors, or the rules' findings."""
    try:
        rs = load(path)
    except CglError as e:
        return list(e.diagnostics)
    return lint_ruleset(rs)


_CARDS_FROM = re.compile(r'^[ \t]*(?:override[ \t]+)?cards[ \t]+from[ \t]+"([^"]+)"', re.M)
_EXTENDS = re.compile(r'^[ \t]*extends[ \t]+"([^"]+)"', re.M)


def rulesets_reading(data_path: str) -> list:
    """The .cgl files that read this YAML file as card data: by `cards from "…"`, or by
    extending a file that does. Looked for in its folder and the folders above it, up to the
    current folder (a YAML file no ruleset reads: none)."""
    target = os.path.abspath(data_path)
    here = os.path.abspath(os.getcwd())
    folder = os.path.dirname(target)
    texts = {}
    for _ in range(4):
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".cgl"))
        except OSError:
            names = []
        for n in names:
            try:
                with open(os.path.join(folder, n), encoding="utf-8") as f:
                    texts[os.path.join(folder, n)] = f.read()
            except (OSError, UnicodeDecodeError):
                continue
        if folder == here or os.path.dirname(folder) == folder or not (folder + os.sep).startswith(here + os.sep):
            break
        folder = os.path.dirname(folder)

    def refers(path, pattern, to):
        return any(os.path.abspath(os.path.join(os.path.dirname(path), r)) in to
                   for r in pattern.findall(texts[path]))
    found = {p for p in texts if refers(p, _CARDS_FROM, {target})}
    while True:
        more = {p for p in texts if p not in found and refers(p, _EXTENDS, found)}
        if not more:
            break
        found |= more
    return [os.path.relpath(p) if p.startswith(here + os.sep) else p for p in sorted(found)]


def collect_files(paths) -> list:
    """The .cgl files to lint: files, folders searched for *.cgl, and for a card data YAML file,
    the rulesets that read it (so that a hook run on a changed YAML file lints its rulesets)."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files += [found_in(p, os.path.join(root, n)) for n in sorted(names) if n.endswith(".cgl")]
        elif os.path.isfile(p) and p.endswith((".yaml", ".yml")):
            files += rulesets_reading(p)
        elif os.path.lexists(p):   # a special file is refused, with its reason, when it is read
            files.append(p)
        else:
            raise CglError(Diagnostic("E002", f"no such file or folder: `{p}`"))
    return sorted(dict.fromkeys(files))


# ================================================================ helpers over the AST

def _own_items(ctx):
    return [i for i in ctx.rs.items if ctx.mine(i)]


def _blocks(node):
    for n in _walk(node):
        if isinstance(n, A.Block):
            yield n


def _referenced_names(rs, items) -> set:
    """The names the declarations refer to; a bare name as the resolver pass decided (a local
    named like a declaration does not use it)."""
    uses = facts(rs).uses
    used = set()
    for item in items:
        for n in _walk(item):
            if isinstance(n, A.Name):
                u = uses.get(id(n))
                if u is None or u.kind != "local":
                    used.add(u.name if u is not None else n.id)
            elif isinstance(n, (A.Call, A.CallStmt)):
                used.add(n.name)
            elif isinstance(n, A.Attr):
                used.add(n.name)
            elif isinstance(n, A.Deal):
                used.add(n.zone)
            elif isinstance(n, A.EventPat):
                used |= {x for x in (n.source, n.dest) if x}
            elif isinstance(n, A.Rule):
                used.add(n.zone or n.forbid)
            elif isinstance(n, A.Choose) and n.tag:
                used.add(n.tag)
            elif isinstance(n, A.Prop) or isinstance(n, A.Option):
                used.add(n.type.name)
    return used


# ================================================================ the rules

@rule("W101")
def unused_definitions(ctx):
    """A def, table, pattern, procedure, variable, zone, option or enum nothing uses."""
    rs = ctx.rs
    used = _referenced_names(rs, rs.items)
    for item in _own_items(ctx):
        kinds = {A.Def: "definition", A.Table: "table", A.Pattern: "pattern", A.Procedure: "procedure",
                 A.Var: "variable", A.Option: "option", A.Zone: "zone", A.Enum: "enum", A.Derive: "property"}
        kind = kinds.get(type(item))
        if kind is None:
            continue
        name = item.name
        if name in used:
            continue
        if isinstance(item, A.Zone) and item.role:
            continue  # used by draw/discard/deal through its role
        if isinstance(item, A.Derive) and name in ("display", "group"):
            continue  # used to show cards (how a card reads, how a hand is grouped at the table)
        if isinstance(item, A.Enum) and used & set(item.members):
            continue
        yield Diagnostic("W101", f"{kind} `{name}` is never used", _head_span(item, name),
                         hint="remove it, or refer to it where it belongs")


def _head_span(item, name):
    """The span of a declaration's first line (where its name is)."""
    sp = item.span
    return attrs.evolve(sp, end_line=sp.line, end_column=sp.column + len(type(item).__name__) + len(name) + 2)


@rule("W102")
def unreachable_code(ctx):
    """Statements after `end`, `win` or `lose` in one block; phases after a turn always ends."""
    for item in _own_items(ctx):
        for block in _blocks(item):
            for i, s in enumerate(block.stmts[:-1]):
                if isinstance(s, (A.End, A.Win)):
                    nxt = block.stmts[i + 1]
                    yield Diagnostic("W102", "this can never run: the statement before it always ends "
                                     f"{'the ' + s.scope if isinstance(s, A.End) else 'the game'}", nxt.span)
                    break
        if isinstance(item, A.TurnDecl):
            ended = _always_ends_turn(item.start)
            for ph in item.phases:
                if ended:
                    yield Diagnostic("W102", f"phase `{ph.name}` can never be reached: every turn ends before it",
                                     ph.span, related=(f"the turn always ends at {ended}",))
                    continue
                ended = _always_ends_turn(ph.body)


def _always_ends_turn(block) -> Optional[A.Span]:
    if block is None:
        return None
    for s in block.stmts:
        if isinstance(s, A.End) and s.scope in ("turn", "round", "game"):
            return s.span
        if isinstance(s, A.Win):
            return s.span
    return None


@rule("W103")
def triggers_that_never_fire(ctx):
    """Triggers and reactions waiting for an event no statement raises."""
    rs = ctx.rs
    kinds = set()
    dest_zones = set()
    roles = {z.role: z.name for z in rs.zones.values() if z.role}
    for item in rs.items:
        for n in _walk(item):
            if isinstance(n, A.Draw):
                kinds.add("draw")
                dest_zones |= _zone_names(n.dest, rs) if n.dest else {roles.get("hand")}
            elif isinstance(n, A.Discard):
                kinds.add("discard")
                dest_zones |= _zone_names(n.dest, rs) if n.dest else {roles.get("discard")}
            elif isinstance(n, A.Deal):
                kinds.add("deal")
                dest_zones.add(n.zone)
            elif isinstance(n, A.Move):
                kinds.add("move")
                dest_zones |= _zone_names(n.dest, rs)
    for decl in list(rs.triggers) + list(rs.reactions):
        if not ctx.mine(decl):
            continue
        ev = decl.event
        what = "trigger" if isinstance(decl, A.Trigger) else "reaction"
        # (an event nothing raises at all, `on drow`, is an error of the name check: E004)
        if ev.kind in ("draw", "discard", "deal") and ev.kind not in kinds:
            yield Diagnostic("W103", f"{what} `{decl.name}` can never fire: no statement does `{ev.kind}`", ev.span)
        elif ev.kind == "move" and not kinds:
            yield Diagnostic("W103", f"{what} `{decl.name}` can never fire: no card ever moves", ev.span)
        elif ev.kind in ("move", "draw", "discard", "deal") and ev.dest and None not in dest_zones \
                and ev.dest not in dest_zones:
            yield Diagnostic("W103", f"{what} `{decl.name}` can never fire: no card is ever moved to `{ev.dest}`",
                             ev.span)


def _zone_names(expr, rs) -> set:
    """The zones an expression can name (None in the set: it could be any zone)."""
    if isinstance(expr, A.Name) and expr.id in rs.zones:
        return {expr.id}
    if isinstance(expr, A.Call) and expr.name in rs.zones:
        return {expr.name}
    if isinstance(expr, A.IfExpr):
        return _zone_names(expr.then, rs) | _zone_names(expr.otherwise, rs)
    return {None}


def _const(expr, rs):
    """The value of a constant expression (text, number, enum member), else a marker."""
    if isinstance(expr, A.Text) and expr.constant is not None:
        return expr.constant
    if isinstance(expr, A.Int):
        return expr.value
    if isinstance(expr, A.Name) and expr.id in rs.enum_members:
        return expr.id
    return _NOT_CONST


_NOT_CONST = object()


@rule("W104")
def conditions_no_card_meets(ctx):
    """`prop = value` where no card of the data has that value for that property."""
    rs = ctx.rs
    if not rs.cards:
        return
    props = set(rs.derives) | ({p.name for p in rs.cards_decl.props} if rs.cards_decl else set()) | {"name"}
    uses = facts(rs).uses
    for item in _own_items(ctx):
        for n in _walk(item):
            if not (isinstance(n, A.Compare) and n.op in ("=", "!=")):
                continue
            for side, other in ((n.left, n.right), (n.right, n.left)):
                prop = None
                if isinstance(side, A.Name) and side.id in props and uses[id(side)].kind in ("it", "global"):
                    prop = side.id
                elif isinstance(side, A.Attr) and side.name in props and side.name not in ctx.rs.vars:
                    prop = side.name
                if prop is None:
                    continue
                value = _const(other, rs)
                if value is _NOT_CONST:
                    continue
                values = ctx.card_values(prop)
                if values is None or value in values:
                    continue
                hint = did_you_mean(str(value), [str(v) for v in values if v is not None])
                yield Diagnostic("W104", f"no card has {prop} = {value!r}: this condition never holds",
                                 other.span, hint=hint)


@rule("W105")
def choices_without_options(ctx):
    """`choose` over a literal list that is too short, or over cards no card can be."""
    for item in _own_items(ctx):
        for n in _walk(item):
            if not isinstance(n, A.Choose):
                continue
            need = 1 if n.lo is None else ctx.statics.value(n.lo)
            if need is UNKNOWN or not isinstance(need, int) or isinstance(need, bool):
                need = 0   # (a computed least, known only as the game is played)
            if isinstance(n.domain, A.ListLit) and len(n.domain.items) < need:
                yield Diagnostic("W105", f"this choice needs {need} option(s) but its list has "
                                 f"{len(n.domain.items)}", n.domain.span)
            elif isinstance(n.domain, A.Where) and isinstance(n.domain.source, A.Name) \
                    and n.domain.source.id == "all_cards":
                passing = ctx.statics.value(n.domain)
                if passing is not UNKNOWN and len(passing) < need:
                    yield Diagnostic("W105", "no card passes this filter, so the choice never has an option",
                                     n.domain.span)


@rule("W114")
def choice_counts_never_legal(ctx):
    """`choose LO..HI` whose bounds, known without playing, leave no count: LO above HI (a
    bound below zero counting as zero), so the choice is never made and its `else` runs."""
    for item in _own_items(ctx):
        for n in _walk(item):
            if not isinstance(n, A.Choose) or n.lo is None or n.lo is n.hi:
                continue
            lo, hi = ctx.statics.value(n.lo), ctx.statics.value(n.hi)
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)):
                continue
            if max(lo, 0) > max(hi, 0):
                yield Diagnostic("W114", f"this choice asks for at least {lo} and at most {hi}: no count fits, "
                                 f"so it is never made and its `else` block always runs", n.lo.span,
                                 hint=f"write the least first: `choose {hi}..{lo}`" if hi >= 0 else None)


@rule("W106")
def table_rows_never_used(ctx):
    """A table row whose condition repeats an earlier row's (or comes after `true`)."""
    for t in ctx.rs.table_decls.values():
        if not ctx.mine(t):
            continue
        seen = {}
        for cond, _ in t.rows:
            if cond in seen:
                yield Diagnostic("W106", "this row can never be used: an earlier row has the same condition",
                                 cond.span, related=(f"the earlier row is at {seen[cond]}",))
            elif any(isinstance(c, A.Const) and c.value is True for c in seen):
                yield Diagnostic("W106", "this row can never be used: an earlier row's condition is `true`",
                                 cond.span)
            else:
                seen[cond] = cond.span


@rule("W107")
def locals_hiding_properties(ctx):
    """A local name (let, loop, choice, parameter) named like a card property."""
    rs = ctx.rs
    props = set(rs.derives) | {n for n, v in rs.vars.items() if v.scope == "card"}
    if rs.cards_decl:
        props |= {p.name for p in rs.cards_decl.props}
    for item in _own_items(ctx):
        for n in _walk(item):
            name = None
            if isinstance(n, A.Let):
                name = n.name
            elif isinstance(n, (A.For, A.Choose, A.Comprehension, A.Draw)):
                name = n.name
            if name in props:
                yield Diagnostic("W107", f"the local name `{name}` hides the card property `{name}`", n.span,
                                 hint="rename the local")
        for p in getattr(item, "params", None) or ():
            if p in props:
                yield Diagnostic("W107", f"the parameter `{p}` hides the card property `{p}`",
                                 _head_span(item, item.name), hint="rename the parameter")


@rule("W108")
def patterns_the_deck_cannot_make(ctx):
    """A pattern shape needing more cards of one label than the whole deck has."""
    rs, st = ctx.rs, ctx.at_start
    if not rs.cards:
        return
    for p in rs.patterns.values():
        if not ctx.mine(p):
            continue
        counts = _pattern_label_counts(st, p)
        if counts is None:
            continue
        env = _first_player(st, p)
        for shape in p.shapes:
            for part in shape.parts:
                if part.any:
                    continue
                ok = [n for lab, n in counts.items()
                      if part.cond is None or _may_hold(st.value(part.cond, {**env, "label": lab}))]
                if max(ok, default=0) < part.size:
                    yield Diagnostic("W108", f"shape `{shape.name}` can never be made: no label has "
                                     f"{part.size} cards in the deck (the most is {max(ok, default=0)})",
                                     part.span)
                    break


def _may_hold(v) -> bool:
    """A condition that holds, or that cannot be judged without playing."""
    return v is UNKNOWN or bool(v)


def _first_player(st: Statics, p) -> dict:
    """A pattern's parameters, each the first player."""
    return {name: st.context.players[0] for name in p.params}


def _pattern_label_counts(st: Statics, p) -> Optional[dict]:
    """How many cards of the deck carry each label of pattern `p`, at the start of a game
    (for the first player); None when the labels cannot be judged without playing."""
    env = _first_player(st, p)
    counts: dict = {}
    for c in st.rs.cards:
        labs = st.value(p.labels, {**env, "it": c})
        if labs is UNKNOWN:
            return None
        for lab in set(_flat(labs if isinstance(labs, list) else [labs])):
            counts[lab] = counts.get(lab, 0) + 1
    return counts


def _deck_label_counts(ctx) -> Optional[dict]:
    """The most cards of the deck carrying each label, over all the ruleset's patterns."""
    rs = ctx.rs
    if not rs.cards or not rs.patterns:
        return None
    counts: dict = {}
    for p in rs.patterns.values():
        for lab, n in (_pattern_label_counts(ctx.at_start, p) or {}).items():
            counts[lab] = max(counts.get(lab, 0), n)
    return counts


def _conjuncts(e):
    if isinstance(e, A.And):
        yield from _conjuncts(e.left)
        yield from _conjuncts(e.right)
    else:
        yield e


@rule("W109")
def table_rows_no_group_satisfies(ctx):
    """`| g.size = N and g.label in [...] -> …` where no N cards of the deck share such a label."""
    counts = None
    for t in ctx.rs.table_decls.values():
        if not ctx.mine(t):
            continue
        for cond, _ in t.rows:
            need, labels = None, None
            for atom in _conjuncts(cond):
                if isinstance(atom, A.Compare) and isinstance(atom.left, A.Attr) and atom.left.name == "size" \
                        and isinstance(atom.right, A.Int) and atom.op in ("=", ">="):
                    need = atom.right.value
                elif isinstance(atom, A.Compare) and atom.op == ">" and isinstance(atom.left, A.Attr) \
                        and atom.left.name == "size" and isinstance(atom.right, A.Int):
                    need = atom.right.value + 1
                elif isinstance(atom, A.In) and not atom.negated and isinstance(atom.left, A.Attr) \
                        and atom.left.name == "label":
                    value = ctx.statics.value(atom.right)
                    if value is UNKNOWN:
                        continue
                    labels = list(_flat(value)) if isinstance(value, list) else None
                elif isinstance(atom, A.Compare) and atom.op == "=" and isinstance(atom.left, A.Attr) \
                        and atom.left.name == "label" and _const(atom.right, ctx.rs) is not _NOT_CONST:
                    labels = [_const(atom.right, ctx.rs)]
            if need is None or labels is None:
                continue
            if counts is None:
                counts = _deck_label_counts(ctx)
                if counts is None:
                    return
            most = max((counts.get(lab, 0) for lab in labels), default=0)
            if most < need:
                yield Diagnostic("W109", f"no group of the deck can satisfy this row: it needs {need} cards "
                                 f"labelled {' or '.join(map(str, labels))}, and the deck has at most {most}",
                                 cond.span)


@rule("W110")
def turn_given_where_no_turn_follows(ctx):
    """`give turn to` / `give extra turn to` in the match's `end` block or an `on end of game`
    trigger: the game is over, no turn follows (section 4.22 of docs/language.md)."""
    rs = ctx.rs
    places = []
    if rs.match is not None and rs.match.end is not None and ctx.mine(rs.match):
        places.append(("the match's `end` block", rs.match.end))
    for tr in rs.triggers:
        if tr.event.kind == "end" and tr.event.name == "game" and ctx.mine(tr):
            places.append((f"`{tr.name}` (on end of game)", tr.body))
    for where, block in places:
        for n in _walk(block):
            if isinstance(n, (A.Give, A.GiveExtra)):
                yield Diagnostic("W110", f"no turn follows {where}: the game is over, so this gives nothing",
                                 n.span, hint="give the turn where a turn or round follows (a round's `end`, say)")


@rule("W111")
def knocked_out_in_a_round_that_goes_on(ctx):
    """`knock out` in the rules, and a round whose `until` never reads `players` (through
    the defs and tables it calls): one player left in a round plays on alone."""
    rs = ctx.rs
    knocks = [n for item in _own_items(ctx) for n in _walk(item) if isinstance(n, A.KnockOut)]
    if not knocks:
        return
    seen, todo = set(), [rs.round.until] if rs.round is not None and rs.round.until is not None else []
    while todo:
        for n in _walk(todo.pop()):
            if isinstance(n, A.Name) and n.id == "players":
                return
            name = n.name if isinstance(n, A.Call) else n.id if isinstance(n, A.Name) else None
            if name is not None and name not in seen:   # a def or table it calls (a bare name: `def alone = …`)
                seen.add(name)
                decl = rs.defs.get(name) or rs.table_decls.get(name)
                if decl is not None:
                    todo.append(decl)
    yield Diagnostic("W111", "players are knocked out of the round, but the round's `until` never reads "
                     "`players`: one player left in a round plays on alone", knocks[0].span,
                     hint="end the round when one player is left: `round { until count(players) < 2 }`")


@rule("W112")
def required_part_that_cannot_fall_short(ctx):
    """`require { … }` holding nothing that can fall short (section 4.11a of docs/language.md)."""
    can_fall_short = (A.Move, A.Draw, A.Deal, A.Discard, A.Swap, A.Choose, A.ChooseTargets, A.CallStmt)
    for item in _own_items(ctx):
        for n in _walk(item):
            if isinstance(n, A.Require) and not any(isinstance(m, can_fall_short) for m in _walk(n.body)):
                yield Diagnostic("W112", "this required part can never fall short: it moves no card, chooses "
                                 "nothing and calls no procedure, so it is always done in full", n.span,
                                 hint="put the part the effect requires (a card statement, a choice) inside `require`")


@rule("W113")
def target_never_named_or_read(ctx):
    """A `target` declaration never named (no `choose targets of`) or never read (no
    `target(…)`), and a `target(…)` that can only read `none` (section 4.11b)."""
    rs = ctx.rs
    named = reads = None
    unnamed_read = False    # a `target(c)`, which may read any declaration's target
    by_name = set()         # the declarations a `target(c, "NAME")` reads
    for item in rs.items:
        for n in _walk(item):
            if isinstance(n, A.ChooseTargets):
                named = named or n
            elif isinstance(n, A.Call) and n.name == "target" and "target" not in rs.defs:
                reads = reads or n
                which = n.args[1] if len(n.args) == 2 else None
                if which is None or not isinstance(which, A.Text) or which.constant is None:
                    unnamed_read = True
                else:
                    by_name.add(which.constant)
    for t in rs.targets:
        if not ctx.mine(t):
            continue
        if named is None:
            yield Diagnostic("W113", f"target `{t.name}` is never named: no `choose targets of` in the rules",
                             t.span, hint="name the targets where the rules say, `choose targets of c by p { … }`, "
                                          "and read them in the block with `target(c)`")
        elif reads is None:
            yield Diagnostic("W113", f"target `{t.name}` is never read: no `target(…)` in the rules", t.span,
                             hint="the effect reads its target with `target(c)` inside `choose targets of c`")
        elif not unnamed_read and t.name not in by_name:
            yield Diagnostic("W113", f"target `{t.name}` is never read: no `target(c)` in the rules, and no "
                             f"`target(c, \"{t.name}\")`", t.span,
                             hint=f"read it in the effect with `target(c, \"{t.name}\")`")
    if reads is not None and (not rs.targets or named is None) and ctx.mine(reads):
        why = "declares no target" if not rs.targets else "never names one (no `choose targets of`)"
        yield Diagnostic("W113", f"`target(…)` is always `none`: the rules {why}", reads.span,
                         hint="declare what the effect targets, `target NAME if COND: x in LIST`, and name it "
                              "with `choose targets of c by p { … }`")


@rule("E015")
def deck_too_small_for_the_deal(ctx):
    """`deal N to zone` at set-up needing more cards than the deck has for the most players."""
    rs = ctx.rs
    if not rs.cards:
        return
    blocks = [b for b in (rs.setup.body if rs.setup else None, rs.match.start if rs.match else None,
                          rs.round.start if rs.round else None) if b is not None]
    total = 0
    first = None
    for b in blocks:
        for s in b.stmts:
            if isinstance(s, A.Deal):
                n = ctx.statics.value(s.count)
                if isinstance(n, int):
                    total += n
                    first = first or s
    most = rs.game.max_players
    if first is not None and total * most > len(rs.cards) and ctx.mine(first):
        yield Diagnostic("E015", f"dealing {total} cards to each of {most} players needs {total * most} cards, "
                         f"and the deck has {len(rs.cards)}", first.span,
                         related=(f"the player range is set at {rs.game.span}",),
                         hint=f"allow at most {len(rs.cards) // total} player{'s' if len(rs.cards) // total != 1 else ''}, or deal fewer cards")


# ---------------------------------------------------------------- types (E008)

@rule("E008")
def wrong_types(ctx):
    """Values of the wrong kind: a zone where a number is needed, a card compared with a player,
    arithmetic on text… (the one type checker of `typecheck.py`, which the code generator reads too)."""
    yield from check_types(ctx.rs, _own_items(ctx))


def _counting(name: str) -> bool:
    """Whether built-in `name` reads of a zone only how many cards it holds (`count`, `exists`)."""
    f = B.FUNCTIONS.get(name)
    return f is not None and f.loop == "count"


def _hint_reads(rs, expr, seen: set):
    """(node, what) for each read of hint `expr`, through the defs and tables it calls, that no
    seat may make: an `internal` variable, the cards of a `hidden` zone (but how many)."""
    stack = [(expr, None)]
    while stack:
        n, parent = stack.pop()
        if isinstance(n, tuple):
            stack.extend((x, parent) for x in n)
            continue
        if not attrs.has(type(n)):
            continue
        zone = None
        if isinstance(n, A.Name):
            use = use_of(rs, n)
            if use.kind == "global" and use.meaning == "global" and rs.vars[n.id].sight == "internal":
                yield n, f"`{n.id}`, which is internal"
            elif use.kind == "global" and use.meaning == "zone":
                zone = n.id
            elif use.kind == "global" and use.meaning == "def" and n.id not in seen:
                seen.add(n.id)
                stack.append((rs.defs[n.id], None))
        elif isinstance(n, A.Attr):
            v = rs.vars.get(n.name)
            if v is not None and v.scope == "player" and v.sight == "internal":
                yield n, f"`{n.name}`, which is internal"
        elif isinstance(n, A.Call):
            meaning = call_meaning(rs, n.name)
            if meaning == "zone":
                zone = n.name
            elif meaning in ("def", "table") and n.name not in seen:
                seen.add(n.name)
                body = rs.defs[n.name] if meaning == "def" else rs.table_decls[n.name]
                stack.append((body, None))
        if zone is not None and rs.zones[zone].visibility == "hidden" and not (
                isinstance(parent, A.Call) and call_meaning(rs, parent.name) == "builtin" and _counting(parent.name)
                or isinstance(parent, A.Attr) and parent.name == "size"):
            yield n, f"the cards of `{zone}`, a hidden zone"
        for f in attrs.fields(type(n)):
            if f.name != "span":
                stack.append((getattr(n, f.name), n))


@rule("E019")
def hints_reading_what_no_seat_sees(ctx):
    """A `prefer` hint (of a `choose`, an action, an `ordered by`) that reads, whoever
    decides, what its player cannot see: an `internal` variable, or the cards of a `hidden`
    zone (not just how many). The rest (another player's hand, another's `private`
    variable) is refused as the game is played."""
    rs = ctx.rs
    for item in _own_items(ctx):
        for n in _walk(item):
            hint = n.prefer if isinstance(n, (A.Choose, A.Action, A.For, A.Trigger)) else None
            if hint is None:
                continue
            found = next(_hint_reads(rs, hint, set()), None)
            if found is not None:
                node, what = found
                yield Diagnostic("E019", f"this hint reads {what}, which its player cannot see", hint.span,
                                 hint="a hint may read only what its player sees: its own zones, the public "
                                      "ones, how many cards a hidden zone holds, and the variables it may read "
                                      "(declare a variable every player may know `public`)")
