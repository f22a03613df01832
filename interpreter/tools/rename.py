"""References and rename of a ruleset's declarations (defs, variables, zones, procedures,
patterns, tables, the events it emits, the properties of its card data) across its
`extends` chain; in the scenario files that play one of its rulesets (a zone, a variable or
an emitted event named there), and in its card data (a property: each card's key).

What each use of a name means is read from the resolver: a bare name from the resolver
pass's record (`facts(rs).uses`), a call from `call_meaning`, a property from the
ruleset's variables; this module only finds where, inside a node's span, the name is
written. Every file of the family (the files the document extends, and the rulesets
beside them that extend one of those) is loaded as its own ruleset, so a declaration an
`override` replaces is found in the file that declares it.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Optional

from ..base import ast as A
from ..base.diagnostics import CglError
from ..check.loader import Ruleset, load, read_yaml, unsaved_texts
from ..check.resolver import bound_names, call_meaning, facts
from ..base.files import MarkedDict
from ..parse.build import parse
from ..play import scenario
from ..runtime import builtins as B

#: The declarations that can be renamed, and what this module calls them.
KINDS = {A.Def: "def", A.Var: "variable", A.Zone: "zone", A.Procedure: "procedure", A.Pattern: "pattern",
         A.Table: "table"}
_HEAD = r"\b(?:def|var|zone|procedure|pattern|table)\s+"
_CALLS = {"def": "def", "table": "table", "pattern": "pattern", "card_zone": "zone", "player_zone": "zone"}
_NAMES = {"global": "variable", "def": "def", "zone": "zone"}

Lines = Callable[[str, int], str]   # (path, 0-based line) -> its text


def _find(line: Lines, sp: Optional[A.Span], name: str, before: str = "", last: bool = False) -> Optional[A.Span]:
    """Where the word `name` is written inside the span `sp` (the first, or the `last`,
    right after a match of the pattern `before`)."""
    if sp is None or not sp.line or not name:
        return None
    found = None
    for n in range(sp.line, (sp.end_line or sp.line) + 1):
        text = line(sp.path, n - 1)
        lo = sp.column - 1 if n == sp.line else 0
        hi = sp.end_column - 1 if n == sp.end_line else len(text)
        for m in re.finditer(before + r"(?<![\w])(" + re.escape(name) + r")(?![\w])", text):
            if lo <= m.start() and m.end(1) <= hi:
                found = A.Span(sp.path, n, m.start(1) + 1, n, m.end(1) + 1)
                if not last:
                    return found
    return found


def _card_props(rs: Ruleset) -> set:
    return {p.name for p in rs.cards_decl.props} if rs.cards_decl is not None else set()


def _property_kind(rs: Ruleset, name: str) -> Optional[str]:
    """What `c.name` (or a bare `name` read from `it`) names: a card's or player's variable,
    or a property of the card data."""
    v = rs.vars.get(name)
    if v is not None and v.scope != "global":
        return "variable"
    return "property" if v is None and name in _card_props(rs) else None


def _name_kind(rs: Ruleset, use) -> Optional[str]:
    """What declaration a bare name reads, from its recorded Use."""
    if use.kind == "global":
        return _NAMES.get(use.meaning)
    if use.kind == "it" or (use.kind == "maybe" and use.binder is None and use.it):
        return _property_kind(rs, use.name)
    return None


def occurrences(rs: Ruleset, item, line: Lines) -> list:
    """(span, kind, name) of each place a declaration is named in `item`: its own name,
    the uses of its name, calls, properties, `emit`, events, the zones of `deal`, of an
    event and of `forbid enter`; kind None for `remove NAME` (any kind)."""
    uses = facts(rs).uses
    out: list = []

    def add(sp, kind, name, before="", last=False):
        found = _find(line, sp, name, before, last)
        if found is not None:
            out.append((found, kind, name))
    decl = item.item if isinstance(item, A.Override) else item
    if type(decl) in KINDS:
        add(decl.span, KINDS[type(decl)], decl.name, _HEAD)
    elif isinstance(decl, A.Cards):
        for prop in decl.props:
            add(prop.span, "property", prop.name)
    for n in A.walk(item):
        t = type(n)
        if t is A.Name:
            u = uses.get(id(n))
            kind = _name_kind(rs, u) if u is not None else None
            if kind is not None and n.span is not None:
                out.append((n.span, kind, n.id))
        elif t is A.Call:
            add(n.span, _CALLS.get(call_meaning(rs, n.name)), n.name)
        elif t is A.Possible:
            add(n.span, "procedure", n.call.name, r"possible\s*\(\s*")
        elif t is A.CallStmt:
            add(n.span, "procedure", n.name)
        elif t is A.Attr:
            add(n.span, _property_kind(rs, n.name), n.name, r"\.\s*", last=True)
        elif t is A.Emit:
            add(n.span, "event", n.name, r"\bemit\s+")
        elif t is A.EventPat:
            if n.kind == "custom":
                add(n.span, "event", n.name)
            add(n.span, "zone", n.source, r"\bfrom\s+")
            add(n.span, "zone", n.dest, r"\bto\s+")
        elif t is A.Deal:
            add(n.span, "zone", n.zone, r"\bto\s+")
        elif t is A.Rule and n.zone:
            add(n.span, "zone", n.zone, r"\b(?:enter|leave)\s+")
    return [o for o in out if o[1] is not None]


def kind_of(rs: Ruleset, name: str) -> Optional[str]:
    """What a ruleset declares under `name`, among the kinds that can be renamed."""
    for item in rs.items:
        if type(item) in KINDS and item.name == name:
            return KINDS[type(item)]
    if name in _card_props(rs):
        return "property"
    return "event" if name in rs.emits else None


class Family:
    """The rulesets of a document's `extends` family, each loaded from its own file."""

    def __init__(self, path: str, texts: dict, text: Callable[[str], str], line: Lines, norm):
        self.line, self.norm, self.texts, self.text = line, norm, texts, text
        self.rulesets: dict = {}     # .cgl path -> its Ruleset
        self.problem: Optional[str] = None
        self.modules: dict = {}      # .cgl path -> its parsed Module (for its `remove` lines)
        with unsaved_texts(texts):
            own = self._load(path)
            if own is None:
                return
            chain = {norm(s) for s in own.sources if s.endswith(".cgl")}
            folders = {os.path.dirname(p) for p in chain}
            near = {p for p in texts if p.endswith(".cgl")}
            for folder in folders:
                try:
                    near |= {norm(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(".cgl")}
                except OSError:
                    pass
            for p in sorted(near - chain):
                if "extends" not in text(p):
                    continue
                try:
                    rs = load(p)
                except CglError:
                    continue
                if chain & {norm(s) for s in rs.sources}:
                    chain |= {norm(s) for s in rs.sources if s.endswith(".cgl")}
            for p in sorted(chain):
                if self._load(p) is None:
                    return
            self.modules = {p: parse(text(p), p) for p in chain}

    def _load(self, path: str) -> Optional[Ruleset]:
        try:
            rs = self.rulesets[path] = load(path)
            return rs
        except CglError as e:
            self.problem = f"`{os.path.basename(path)}` does not load ({e.diagnostics[0].message}): fix it first"
            return None

    def places(self, name: str, kind: str) -> list:
        """(span, the declaration it is in) of each place the declaration is named, in every file."""
        out = []
        for path, rs in self.rulesets.items():
            for item in rs.items:
                if item is None or self.norm(item.span.path) != path:
                    continue
                out += [(sp, item) for sp, k, n in occurrences(rs, item, self.line)
                        if n == name and k in (kind, None)]
            for item in self.modules[path].items:
                if isinstance(item, A.Remove) and item.name == name:
                    sp = _find(self.line, item.span, name, r"\bremove\s+")
                    if sp is not None:
                        out.append((sp, item))
        return out

    def kinds(self, name: str) -> set:
        return {k for k in (kind_of(rs, name) for rs in self.rulesets.values()) if k}

    def taken(self, new: str, kind: str) -> Optional[str]:
        """Why `new` cannot name a declaration of this kind in the family (None: it can)."""
        if kind == "event":
            if new in B.EVENTS or any(new in rs.emits for rs in self.rulesets.values()):
                return f"`{new}` is already an event"
            return None
        for rs in self.rulesets.values():
            names = {i.key for i in rs.items if i is not None and i.key} | set(rs.tables) | set(rs.enum_members)
            if rs.cards_decl is not None:
                names |= {p.name for p in rs.cards_decl.props}
            if rs.turn is not None:
                names |= {p.name for p in rs.turn.phases}
            if new in names:
                return f"`{new}` is already a name of the ruleset: renaming to it would change what a name means"
        if new in B.FUNCTIONS or new in B.VALUES or new in B.ATTRS or new in B.BOUND_BY_ENGINE:
            return f"`{new}` is a built-in name"
        return None


    # ------------------------------------------------------------ scenario files
    def scenario_files(self, limit: int = 2000) -> list:
        """The YAML files that may play a ruleset of the family: under the folders of its
        files (three levels down, the way `cgl new` lays out `scenarios/`), and the editor's
        open ones."""
        found = {p for p in self.texts if p.endswith((".yaml", ".yml"))}
        for folder in sorted({os.path.dirname(p) for p in self.rulesets}):
            depth0 = folder.count(os.sep)
            for here, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules"
                                 and here.count(os.sep) - depth0 < 3)
                found |= {self.norm(os.path.join(here, f)) for f in files if f.endswith((".yaml", ".yml"))}
                if len(found) > limit:
                    break
        return sorted(found)[:limit]

    def scenario_places(self, name: str, kind: str) -> list:
        """The spans where the family's scenario files name the declaration: a zone (a key of
        `zones:`, `rest:`, a `cards moved:A>B` stat), a variable (a key under `players:`,
        `cards:` or `globals:`, by its scope), an event (an `event:NAME` stat); in both
        `setup:` and `expect:`."""
        if kind not in ("zone", "variable", "event"):
            return []
        scope = None
        if kind == "variable":
            scopes = {rs.vars[name].scope for rs in self.rulesets.values() if name in rs.vars}
            if len(scopes) != 1:
                return []
            scope = scopes.pop()
        out = []
        for path in self.scenario_files():
            text = self.text(path)
            if name not in text or not re.search(r"^\s*(?:-\s*)?scenarios?\s*:", text, re.M):
                continue
            try:
                with unsaved_texts(self.texts):
                    items = scenario.read(path)
            except CglError:
                continue
            for item in items:
                try:
                    with unsaved_texts(self.texts):
                        rs_path = self.norm(scenario.ruleset_path(path, item))
                except CglError:
                    continue
                if rs_path in self.rulesets:
                    out += _scenario_places(path, item, name, kind, scope, self.line)
        return out


    def card_data_places(self, name: str) -> list:
        """The spans of a card data property's key, in each card of the family's card data."""
        out, seen = [], set()
        for rs in self.rulesets.values():
            decl = rs.cards_decl
            if decl is None or name not in _card_props(rs):
                continue
            path = self.norm(os.path.join(os.path.dirname(decl.span.path), decl.path))
            if path in seen:
                continue
            seen.add(path)
            try:
                with unsaved_texts(self.texts):
                    data = read_yaml(path, "E003", "the card data")
            except CglError:
                continue
            for card in (data.get("cards") or []) if isinstance(data, MarkedDict) else []:
                if isinstance(card, MarkedDict) and name in card:
                    sp = card.span(path, name)
                    if self.line(path, sp.line - 1)[sp.column - 1:sp.column - 1 + len(name)] == name:
                        out.append(sp)
        return out

    def yaml_places(self, name: str, kind: str) -> list:
        """Where the family's YAML names the declaration: its scenarios, its card data."""
        return self.scenario_places(name, kind) + (self.card_data_places(name) if kind == "property" else [])


def _scenario_places(path: str, item: MarkedDict, name: str, kind: str, scope: Optional[str], line: Lines) -> list:
    out = []

    def at(d: MarkedDict, key, offset: int = 0, value: bool = False):
        sp = d.span(path, key, value)
        written = str(d[key] if value else key)
        text = line(path, sp.line - 1)
        col = sp.column - 1
        if text[col:col + 1] in ("'", '"') and text[col + 1:col + 1 + len(written)] == written:
            col += 1
        if text[col + offset:col + offset + len(name)] == name:
            out.append(A.Span(path, sp.line, col + offset + 1, sp.line, col + offset + len(name) + 1))

    def mapping(d, key):
        v = d.get(key) if isinstance(d, MarkedDict) else None
        return v if isinstance(v, MarkedDict) else None
    for section in ("setup", "expect"):
        part = mapping(item, section)
        if part is None:
            continue
        if kind == "zone":
            for key in mapping(part, "zones") or {}:
                if str(key).split(" ", 1)[0] == name:
                    at(part["zones"], key)
            if section == "setup" and part.get("rest") == name:
                at(part, "rest", value=True)
        elif kind == "variable" and scope == "global":
            if name in (mapping(part, "globals") or {}):
                at(part["globals"], name)
        elif kind == "variable":
            for values in (mapping(part, "players" if scope == "player" else "cards") or {}).values():
                if isinstance(values, MarkedDict) and name in values:
                    at(values, name)
        stats = mapping(part, "stats") if section == "expect" else None
        for key in stats or {}:
            what, _, rest = str(key).partition(":")
            if kind == "event" and what == "event" and rest == name:
                at(stats, key, len("event:"))
            elif kind == "zone" and what == "cards moved":
                offset = len("cards moved:")
                for zone in rest.split(">"):
                    if zone == name:
                        at(stats, key, offset)
                    offset += len(zone) + 1
    return out


def rename_problem(fam: Family, name: str, kind: str, new: str, places: list) -> Optional[str]:
    """Why renaming the declaration `name` to `new` is not safe (None: it is)."""
    if fam.problem:
        return fam.problem
    if len(fam.kinds(name)) > 1:
        return f"`{name}` names declarations of different kinds in this family of files"
    if kind == "event" and name in B.EVENTS:
        return f"`{name}` is an event of the engine: it keeps its name"
    if kind == "property" and (name in B.ATTRS or name in B.VALUES):
        return f"`{name}` is also a built-in attribute: which one `.{name}` reads is not the card data's alone"
    if kind in ("variable", "property"):
        for rs in fam.rulesets.values():
            if name in rs.derives or name in set().union(*rs.emits.values()) or (
                    name in _card_props(rs) if kind == "variable" else name in rs.vars):
                return f"`{name}` is also a card's property or an event's field: which one a bare `{name}` reads " \
                       "is decided as the game runs"
    why = fam.taken(new, kind)
    if why:
        return why
    for _, item in places:
        if kind != "event" and (new in bound_names(item) or any(
                isinstance(n, A.Name) and n.id == new for n in A.walk(item))):
            return f"`{new}` is already a name in `{getattr(item, 'name', '')}`: renaming to it would change " \
                   "what a name means"
    return None


def declaration_at(rs: Ruleset, item, line: Lines, at: tuple) -> Optional[tuple]:
    """(kind, name) of the declaration named under the cursor (`at`: 0-based line and code
    point) in `item`, or None."""
    for sp, kind, name in occurrences(rs, item, line):
        if (sp.line - 1, sp.column - 1) <= at <= (sp.end_line - 1, sp.end_column - 1):
            return kind, name
    return None
