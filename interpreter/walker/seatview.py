"""The seat view: what one seat may know of a game, as plain JSON data.

Everything that shows a game to a player is built from this one structure: the decision's
`view()` a bot reads, `Game.view(seat)`, the terminal table (`cli/table.py`), and the
browser table. Its shape is documented, with a JSON schema, in `docs/view.md`
(`docs/view.schema.json`); `VERSION` names that shape.

What a seat may know is decided here, in one place, from what the ruleset declares:
- a zone's cards are listed when the zone is `public`, or `owner` and the seat's (a zone
  under a card belongs to whoever the card's zone belongs to); otherwise only its size;
- what the ruleset declares to `show` of each player, to everyone (its declaration says
  it reads only what every player may see);
- a variable is listed when the seat may read it (`Engine.may_read`: `public` to all,
  `private` to its own player, `internal` to no one at the table);
- a card's own variables, the same way (only `public` ones are shown on the table);
- a log entry when it is addressed to everyone or to the seat, numbered among the lines the
  seat reads (`readable`: a number that counted the others would tell how many there were);
- a decision's options only to the seat that decides (and a trigger's own question,
  `Decision.private`, not at all to the others), and a card among them only when
  the seat may see its face (`Views.knows_card`: its zone, or a `reveal` to the seat);
  otherwise the option's label, which names no card (a blind pick, `Views.options_for`).

Seat None is a spectator: only what everyone may see. Nothing game-specific: how cards
group, what their text is and which variable is the score all come from the ruleset.
"""
from __future__ import annotations

import os
from typing import Optional

from ..base.diagnostics import CglError
from ..runtime.state import ZoneRef, parse_zone_key, plain

#: The version of the view's shape (`docs/view.md`); a change that removes or renames a
#: field makes a new one.
VERSION = 2
#: The card properties whose text a player reads on a card (the first found).
TEXT_FIELDS = ("text", "about", "effect", "ability", "description", "rules")
#: Log entries a view carries when it is asked for no starting step.
RECENT = 12


def group_property(rs) -> Optional[str]:
    """The card property cards are grouped by in a hand: `derive group`, else the first
    card property of an enum type, else the first declared after `name` (None: no card data)."""
    if "group" in rs.derives:
        return "group"
    decl = rs.cards_decl
    if decl is None:
        return None
    props = [p for p in decl.props if p.name != "name"]
    for p in props:
        if p.type.name in rs.enums and not p.type.is_list:
            return p.name
    return props[0].name if props else None


def group_order(rs, prop: Optional[str]) -> Optional[list]:
    """The order of the groups, when they are the members of an enum (else None)."""
    if prop is None or rs.cards_decl is None:
        return None
    t = next((p.type.name for p in rs.cards_decl.props if p.name == prop), None)
    return [str(m) for m in rs.enums[t]] if t in rs.enums else None


def attr(eng, card, name):
    """A card's property, data or derived, or None when it has none (or it cannot be read)."""
    try:
        found, v = eng.attr_of(card, name)
    except (CglError, KeyError, AttributeError, TypeError, ValueError, ZeroDivisionError):
        return None
    return v if found else None


def start_value(eng, decl):
    """A card variable's initial value (an object equal to nothing when it reads the game)."""
    from .compiler import Env
    try:
        return plain(eng.ev(decl.init, Env()))
    except Exception:   # an initial value that reads the game: every value is worth showing
        return object()


def _public_card_vars(eng) -> list:
    """[(name, declaration, initial value, whether that value reads the game)] of the card
    variables a table shows (`public` ones), worked out once per engine: an initial value
    that reads nothing of the game never changes."""
    got = eng.__dict__.get("_view_card_vars")
    if got is None:
        from ..check.statics import UNKNOWN, statics_of
        statics, got = statics_of(eng.rs), []
        for name, decl in eng.rs.card_vars().items():
            if decl.sight == "public":
                try:
                    v = statics.value(decl.init)
                except CglError:
                    v = UNKNOWN
                got.append((name, decl, None if v is UNKNOWN else plain(v), v is UNKNOWN))
        eng.__dict__["_view_card_vars"] = got
    return got


def counters(eng, card) -> dict:
    """The card's own public variables that differ from where they start (damage taken,
    where it stands, …), in declaration order."""
    out = {}
    mine = eng.state.card_vars[card.id]
    for name, decl, start, reads_game in _public_card_vars(eng):   # (no `internal` bookkeeping)
        v = mine.get(name)
        if v is None or v == [] or v == "":
            continue
        v = plain(v)
        if v == (start_value(eng, decl) if reads_game else start):
            continue
        out[name] = v
    return out


def printed(eng, c) -> dict:
    """What is printed on a card (its data, its text), as the view's `cards` gives it: the
    same for the whole game, so made once per card name and engine."""
    cache = eng.__dict__.setdefault("_view_printed", {})
    entry = cache.get(c.name)
    if entry is None:
        entry = {"props": {k: plain(v) for k, v in c.props.items() if k != "name"}}
        text = card_text(c)
        if text is not None:
            entry["text"] = text
        image = eng.rs.images.get(c.name)
        if image is not None:
            entry["image"] = os.path.basename(image)
        cache[c.name] = entry
    return entry


def card_text(card) -> Optional[str]:
    """The text a player reads on the card (its data's text field), if it has one."""
    for f in TEXT_FIELDS:
        v = card.props.get(f)
        if isinstance(v, str) and v not in ("", "none"):
            return v
    return None


class _Builder:
    def __init__(self, eng, seat: Optional[int], everything: bool = False):
        self.eng, self.seat, self.everything = eng, seat, everything
        self.gprop = group_property(eng.rs)
        self.catalog: dict = {}
        self.counted = bool(_public_card_vars(eng))    # (no public card variable: no counters)
        self.printed = eng.__dict__.get("_view_printed", {})   # (`printed`'s, read without a call)

    def sees(self, z: ZoneRef) -> bool:
        return self.everything or self.eng.zone_visible(z, self.seat)

    def may_read(self, var, owner=None) -> bool:
        return self.everything or self.eng.may_read(var, self.seat, owner)

    def card(self, c) -> dict:
        eng = self.eng
        out = {"name": c.name, "label": eng.show_card(c)}
        if self.gprop is not None:
            g = attr(eng, c, self.gprop)
            out["group"] = None if g is None else str(plain(g))
        if self.counted:
            cs = counters(eng, c)
            if cs:
                out["vars"] = cs
        if c.name not in self.catalog:
            self.catalog[c.name] = self.printed.get(c.name) or printed(eng, c)
        return out

    def zone(self, key: str, ids: list) -> Optional[dict]:
        eng = self.eng
        name, owner, host = parse_zone_key(key)
        z = eng.rs.zones[name]
        if host is not None:
            if not ids:
                return None   # most cards have nothing under them
            ref = ZoneRef(name, owner, host)   # (a zone per card per player has its player)
            owner = eng.zone_owner(ref)
        else:
            ref = ZoneRef(name, owner, None)
        label = zone_label(eng, ref)
        visible = self.sees(ref)
        out = {"label": label, "zone": name, "owner": None if owner is None else f"P{owner + 1}",
               "on": None if host is None else eng.cards[host].name,
               "visibility": z.visibility, "role": getattr(z, "role", None),
               "ordered": bool(getattr(z, "ordered", False)), "count": len(ids),
               "cards": [self.card(eng.cards[i]) for i in reversed(ids)] if visible else None}
        if visible:
            out["place"] = place_var(eng, [eng.cards[i] for i in ids])
        return out

    def player(self, p: int) -> dict:
        eng, st = self.eng, self.eng.state
        score = eng.rs.score[0] if eng.rs.score else None
        return {"player": f"P{p + 1}", "you": p == self.seat, "current": p == st.current, "out": p in st.out,
                "score": plain(st.player_vars[p].get(score)) if score and self.may_read(score, p) else None,
                "vars": {k: plain(v) for k, v in st.player_vars[p].items() if self.may_read(k, p)},
                "shown": {s.name: shown(eng, s, p) for s in eng.rs.shows}}

    def option(self, d, i: int, o) -> dict:
        out = {"index": i, "label": d.labels[i]}
        if not hasattr(o, "props"):
            o = getattr(o, "value", None)   # an action on a card ("Play Knight") names it too
        if hasattr(o, "props"):
            eng = self.eng
            where = eng.zone_of_card(o)
            if self.everything or eng.knows_card(o, self.seat):
                out["card"] = self.card(o)
            owner = eng.zone_owner(where)
            out["zone"] = where.name
            out["where"] = zone_label(eng, where)
            out["whose"] = None if owner is None else f"P{owner + 1}"
        return out

    def decision(self, d) -> Optional[dict]:
        if d is None:
            return None
        if d.private and d.player != self.seat and not self.everything:
            return None  # a trigger's own question: that it is asked tells what fired it
        out = {"player": f"P{d.player + 1}", "kind": d.kind}
        if d.player != self.seat and not self.everything:
            return out   # others see who decides, not what they may choose
        out.update({"prompt": d.prompt, "min": d.lo, "max": d.hi, "optional": bool(d.optional)})
        out["options"] = [] if d.kind == "may" else [self.option(d, i, o) for i, o in enumerate(d.options)]
        return out


def zone_label(eng, z: ZoneRef) -> str:
    """How a zone is named at the table: `pile`, `hand P2`, `under Gold Mine`; a side of a card
    (`per card per player`) with the card as the table shows it, `squad Gold Mine of P2 P1`."""
    if z.card is not None:
        if z.owner is not None:
            return f"{z.name} {eng.show_card(eng.cards[z.card])} P{z.owner + 1}"
        return f"{z.name} {eng.cards[z.card].name}"
    return z.name if z.owner is None else f"{z.name} P{z.owner + 1}"


def which_copy(eng, seat: Optional[int], cards: list) -> list:
    """What tells apart, to `seat`, copies offered in one choice under one label (cards whose
    faces it sees): for each card, its zone when they lie in several, and the public
    variables in which they differ ("damage: 2", "at: Gold Mine of P1"); "" for a card
    nothing sets apart. Read from what this view shows (`zone_label`, `counters`). Copies
    alike in both stay alike: which of them is taken leaves positions the seat can tell
    apart only by the order of a zone (a search bot keys its answers by these labels)."""
    from ..runtime.values import _show
    st = eng.state
    zones = [eng.zone_of_card(c) for c in cards]
    parts: list = [[] for _ in cards]
    if len({z.key for z in zones}) > 1:
        for i, z in enumerate(zones):
            parts[i].append(f"in {zone_label(eng, z)}")
    names: list = []
    for c in cards:
        names += [n for n in counters(eng, c) if n not in names]
    for name in names:
        values = [_show(st.card_vars[c.id].get(name)) for c in cards]
        if len(set(values)) > 1:
            for i, v in enumerate(values):
                parts[i].append(f"{name}: {v}")
    return [", ".join(p) for p in parts]


def shown(eng, decl, p: int):
    """The value a `show` declaration gives player `p` now (None when it cannot be read)."""
    from .compiler import Env
    try:
        return plain(eng.ev(decl.value, Env({decl.var: eng.players[p]})))
    except CglError:
        return None


def place_var(eng, cards: list) -> Optional[str]:
    """The public card variable that says where the cards of a zone stand (a creature's
    sector, the set a card lies in): the first text or card variable set on every one of
    them, away from its initial value."""
    if len(cards) < 2:
        return None
    for name, decl in eng.rs.card_vars().items():
        if decl.sight != "public":
            continue
        values = [plain(eng.state.card_vars[c.id].get(name)) for c in cards]
        if all(isinstance(v, str) for v in values) and all(v != start_value(eng, decl) for v in values):
            return name
    return None


def readable(eng, seat: Optional[int]) -> list:
    """The places in the game's log of the lines `seat` (None: a spectator) may read, in
    order: its line numbered `k` (the view's `step`) is `log[readable(eng, seat)[k]]`. A
    seat's lines are numbered among themselves, with no gaps: a gap would count the lines
    it may not read, and so tell how many hidden things happened, and when.

    Only the entries logged since the engine last asked are read (a log only grows, and its
    entries never change; a state swapped in has a new list, read anew), so the lines of a
    long game are not counted again at every view. The list is the engine's own, kept
    growing: read it, do not change it."""
    log = eng.state.log
    memo = eng.__dict__.get("_view_steps")
    if memo is None or memo[0] is not log:   # (a new log; a fork's engine starts with its maker's memo)
        memo = eng.__dict__["_view_steps"] = (log, {})
    got = memo[1].get(seat)
    if got is None or got[0] > len(log):
        got = memo[1][seat] = [0, []]
    places, n = got[1], len(log)
    for i in range(got[0], n):
        to = log[i].get("to")
        if to is None or seat in to:
            places.append(i)
    got[0] = n
    return places


def visible_log(eng, seat: Optional[int], since: Optional[int] = None, everything: bool = False) -> list:
    """The log entries `seat` may read (addressed to all or to it), each with its `step`,
    its number among those lines (`readable`; the designer, `everything`, reads every line,
    numbered by its place in the game's log), from step `since` on (None: the last
    `RECENT` for a seat, every line for the designer)."""
    log = eng.state.log
    if everything:
        return [_entry(log[i], seat, True, i) for i in range(since or 0, len(log))]
    places = readable(eng, seat)
    start = max(len(places) - RECENT, 0) if since is None else since
    return [_entry(log[places[k]], seat, False, k) for k in range(start, len(places))]


def _entry(e: dict, seat: Optional[int], everything: bool, step: int) -> dict:
    """A copy of log entry `e` as `seat` reads it, numbered `step` (its reader may change it;
    the log stays the game's: the entry's values are texts, numbers and lists of them). Its
    `cause`, the trigger or reaction that wrote it, only when the seat may know that it fired
    (`cause_to`, `Views.cause`): a trigger's name can tell what set it off."""
    out = {k: list(v) if v.__class__ is list else v for k, v in e.items()}
    out["step"] = step
    to = out.pop("cause_to", None)
    if to is not None and not everything and seat not in to:
        del out["cause"]
    return out


def seat_view(eng, seat: Optional[int], since: Optional[int] = None, decision=None,
              everything: bool = False) -> dict:
    """What player `seat` (0-based; None: a spectator) may know now, as JSON data (the
    module doc says what; `docs/view.md` the shape). `since`: the first log step to include,
    in the seat's own numbering of the lines it reads (`readable`; None: the last few
    entries); `decision`: the pending decision, shown as this seat may see it;
    `everything`: the designer's view, every card and variable (never a player's)."""
    st, rs = eng.state, eng.rs
    b = _Builder(eng, seat, everything)
    zones = []
    for key, ids in st.zones.items():
        z = b.zone(key, ids)
        if z is not None:
            zones.append(z)
    out = {
        "version": VERSION,
        "game": rs.game.title,
        "you": None if seat is None else f"P{seat + 1}",
        "players": [b.player(p) for p in range(eng.n)],
        "round": st.round_no, "turn": st.turn_no, "current": f"P{st.current + 1}", "phase": st.phase,
        "over": bool(st.finished),
        "winners": [f"P{w + 1}" for w in st.winners] if st.finished and st.winners else [],
        "score": {"var": rs.score[0], "lowest_leads": rs.score[1] == "low"} if rs.score else None,
        "shown": [{"name": s.name, "label": s.label or s.name} for s in rs.shows],
        "zones": zones,
        "globals": {k: plain(v) for k, v in st.globals.items() if b.may_read(k)},
        "groups": {"by": b.gprop, "order": group_order(rs, b.gprop)},
        "log": visible_log(eng, seat, since, everything),
        "decision": b.decision(decision),
    }
    out["revealed"] = revealed(b, st.log)
    out["cards"] = b.catalog
    return out


def revealed(b: _Builder, log: list) -> list:
    """The cards of the last reveal to everyone in the round now going on (a winning hand
    shown), as they are now: [] when none."""
    entry = _last_mark(b.eng, log)
    if entry is None or entry["type"] == "round":
        return []
    out, used = [], set()
    for name in entry["cards"]:
        c = next((c for c in b.eng.cards if c.name == name and c.id not in used), None)
        if c is not None:
            used.add(c.id)
            out.append(b.card(c))
    return out


def _last_mark(eng, log: list) -> Optional[dict]:
    """The newest entry but the last of `log` that starts a round or reveals cards to
    everyone (None: none). Only the entries logged since the engine last asked are read:
    a log only grows, and its entries never change (a state swapped in has a new list,
    read anew); reading back through the round for every view took a fifth of its time."""
    end = len(log) - 1
    start, found = 0, None
    memo = eng.__dict__.get("_view_mark")
    if memo is not None and memo[0] is log and memo[1] <= end:
        start, found = memo[1], memo[2]
    for i in range(end - 1, start - 1, -1):
        entry = log[i]
        kind = entry["type"]
        if kind == "round" or kind == "reveal" and "to" not in entry and entry.get("cards"):
            found = entry
            break
    eng.__dict__["_view_mark"] = (log, max(end, 0), found)
    return found
