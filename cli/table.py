"""The table a person plays at: what one seat may see, laid out to be read.

Built from the engine's state with the visibility rules the engine uses (`sees_zone`),
and nothing game-specific: the ruleset says how its cards group (`derive group`, else
its first enum card property, else its first card property after `name`), what they do
(a text field of the card data, the doc comments of the triggers and rules that fire for
that card), and which player variable is the score (`Ruleset.score`: the one declared
`as score`, else `points`).

Text comes out as rich markup (`render_*`); :func:`plain` strips it, for pipes and tests.
"""
from __future__ import annotations

import difflib
import textwrap
from typing import Optional

from rich.markup import escape
from rich.text import Text

from cgl.interpreter.base import ast as A
from cgl.interpreter.base.diagnostics import CglError
from cgl.interpreter.check.about import doc_comment, rules_about
from cgl.interpreter.runtime.state import ZoneRef, parse_zone_key, plain as plain_value

TEXT_FIELDS = ("text", "about", "effect", "ability", "description", "rules")
WIDTH = 100
PILE = 8          # cards a zone lists before it is shown as its top and its size


def plain(markup: str) -> str:
    """Markup as the plain text a pipe gets."""
    return Text.from_markup(markup).plain


def fmt(v) -> str:
    v = plain_value(v)
    if v is None:
        return "none"
    if isinstance(v, list):
        return ", ".join(fmt(x) for x in v) if v else "(none)"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if hasattr(v, "name") and hasattr(v, "props"):
        return v.name
    return str(v)


# ---------------------------------------------------------------- what the ruleset says

def group_property(rs) -> Optional[str]:
    """The card property a hand is grouped by: `derive group`, else the first card property
    of an enum type, else the first declared after `name` (None: the ruleset has no cards data)."""
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


def score_var(rs) -> Optional[str]:
    """The player variable the ruleset declares its score (`Ruleset.score`), if any."""
    return rs.score[0] if rs.score else None


def _value(eng, card, name):
    try:
        found, v = eng.attr_of(card, name)
    except (CglError, KeyError, AttributeError, TypeError, ValueError, ZeroDivisionError):
        return None
    return v if found else None


def group_of(eng, card, prop) -> str:
    if prop is None:
        return ""
    v = _value(eng, card, prop)
    return "" if v is None else fmt(v)


def card_counters(eng, card) -> list:
    """The card's own variables that differ from where they start (damage taken, where it
    stands, …), as (name, value) pairs in declaration order."""
    out = []
    for name, decl in eng.rs.card_vars().items():
        if decl.sight != "public":
            continue   # (the rules' bookkeeping: no one at the table reads it)
        v = eng.state.card_vars[card.id].get(name)
        if v in (None, [], "") or v == _start_value(eng, decl):
            continue
        out.append((name, fmt(v)))
    return out


def _start_value(eng, decl):
    from cgl.interpreter.walker.compiler import Env
    try:
        return plain_value(eng.ev(decl.init, Env()))
    except Exception:   # an initial value that reads the game: every value is worth showing
        return object()


def card_line(eng, card, counters: bool = True, skip=()) -> str:
    """Markup: how a card reads on the table, its counters beside it (but those in `skip`)."""
    text = escape(eng.show_card(card))
    if counters:
        cs = [(k, v) for k, v in card_counters(eng, card) if k not in skip]
        if cs:
            text += " [dim]\\[" + escape(" · ".join(f"{k} {v}" for k, v in cs)) + "][/dim]"
    return text


# ---------------------------------------------------------------- the table

class Zone:
    """One zone as a seat sees it: its label, whose it is, and its cards (top first) or its size."""

    def __init__(self, key, label, name, owner, cards, size, z):
        self.key, self.label, self.name, self.owner = key, label, name, owner
        self.cards = cards          # list of Card, or None when the seat may not look
        self.size = size
        self.ordered = getattr(z, "ordered", False)
        self.role = getattr(z, "role", None)
        self.visibility = z.visibility


def zone_label(eng, key: str) -> str:
    """How a zone is named on the table: `pile`, `hand P2`, `under Gold Mine`."""
    name, owner, host = parse_zone_key(key)
    if host is not None:
        return f"{name} {eng.cards[host].name}"
    return name if owner is None else f"{name} P{owner + 1}"


def zones_seen(eng, seat: Optional[int]) -> list:
    """Every zone, as `seat` may see it (seat None: only what everybody sees)."""
    out = []
    for key, ids in eng.state.zones.items():
        name, owner, host = parse_zone_key(key)
        z = eng.rs.zones[name]
        if host is not None:
            if not ids:
                continue
            owner = eng.zone_owner(ZoneRef(name, None, host))
        label = zone_label(eng, key)
        visible = z.visibility == "public" or (seat is not None and z.visibility == "owner" and owner == seat)
        cards = [eng.cards[i] for i in reversed(ids)] if visible else None
        out.append(Zone(key, label, name, owner, cards, len(ids), z))
    return out


def grouped(eng, cards: list) -> list:
    """[(group, [cards])]: the biggest group first, then by name; cards by how they read."""
    prop = group_property(eng.rs)
    groups: dict = {}
    for c in cards:
        groups.setdefault(group_of(eng, c, prop), []).append(c)
    enum_order = None
    if prop is not None and eng.rs.cards_decl is not None:
        t = next((p.type.name for p in eng.rs.cards_decl.props if p.name == prop), None)
        if t in eng.rs.enums:
            enum_order = [str(m) for m in eng.rs.enums[t]]
    if enum_order is not None:
        key = (lambda g: (enum_order.index(g) if g in enum_order else len(enum_order), g))
    else:
        key = (lambda g: (-len(groups[g]), g))
    return [(g, sorted(groups[g], key=lambda c: (eng.show_card(c), c.id))) for g in sorted(groups, key=key)]


def _same(items: list) -> list:
    """Items in order, repeats of one (identical copies) written once with their count."""
    out: list = []
    for x in items:
        if out and out[-1][0] == x:
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return [x if n == 1 else f"{x} ×{n}" for x, n in out]


def wrap(head: str, items: list, indent: int = 4) -> list:
    """Markup lines: `head` then the items (identical neighbours counted), wrapped on their
    plain width."""
    items = _same(items)
    lines, cur, width = [], head, len(plain(head))
    for i, item in enumerate(items):
        piece = ("" if i == 0 else " · ") + item
        w = len(plain(piece))
        if i and width + w > WIDTH:
            lines.append(cur + " ·")
            cur, width = " " * indent + item, indent + len(plain(item))
        else:
            cur, width = cur + piece, width + w
    lines.append(cur)
    return lines


def render_hand(eng, zone: Zone) -> list:
    groups = grouped(eng, zone.cards)
    named = any(g for g, _ in groups)
    out = [f"[bold]Your {escape(zone.name)}[/bold] ({zone.size}):"]
    if not groups:
        out[0] += " (empty)"
    wide = max((len(g) for g, _ in groups), default=0)
    for g, cards in groups:
        head = f"  [cyan]{escape(g.ljust(wide))}[/cyan]  " if named else "  "
        out += wrap(head, [card_line(eng, c) for c in cards], indent=len(g.ljust(wide)) + 4 if named else 4)
    return out


def render_zone(eng, zone: Zone, full: bool = False) -> list:
    """One zone's lines: a pile (ordered, or a discard pile) shows its top card and its size,
    other zones their cards (the first few, unless `full`); a hidden zone only its size."""
    n = zone.size
    size = f"{n} card{'s' if n != 1 else ''}"
    if zone.cards is None:
        return [f"  {escape(zone.label)}: {size} (hidden)"]
    if not zone.cards:
        return [f"  {escape(zone.label)}: (empty)"]
    if not full and (zone.role == "discard" or (zone.ordered and n > PILE)) and n > 1:
        return [f"  {escape(zone.label)}: top {card_line(eng, zone.cards[0])} ({size}; `look {escape(zone.name)}` for all)"]
    place = place_var(eng, zone.cards)
    if place is not None:   # cards that stand somewhere: one line per place
        out = [f"  {escape(zone.label)} ({n}):"]
        at: dict = {}
        for c in zone.cards:
            at.setdefault(fmt(eng.state.card_vars[c.id][place]), []).append(c)
        for where, cards in at.items():
            # what all the cards of a place share is said once, not beside each
            common = set.intersection(*(set(card_counters(eng, c)) for c in cards)) if len(cards) > 1 else set()
            skip = {place} | {k for k, _ in common}
            shared = [f"{k} {v}" for k, v in card_counters(eng, cards[0]) if k in skip and k != place]
            also = " [dim]\\[" + escape(" · ".join(shared)) + "][/dim]" if shared else ""
            out += wrap(f"    [cyan]{escape(place)} {escape(where)}[/cyan]{also}: ",
                         [card_line(eng, c, skip=skip) for c in cards], 8)
        return out
    if full:
        return wrap(f"  {escape(zone.label)} ({n}): ", [card_line(eng, c) for c in zone.cards], 6)
    shown = [card_line(eng, c) for c in zone.cards[:PILE]]
    if n > PILE:
        shown.append(f"… {n - PILE} more (`look {escape(zone.name)}`)")
    return wrap(f"  {escape(zone.label)}: ", shown, 6)


def place_var(eng, cards: list) -> Optional[str]:
    """The card variable that says where the cards of a zone stand (a creature's sector, the
    set a card lies in): the first text or card variable set on every one of them."""
    if len(cards) < 2:
        return None
    for name, decl in eng.rs.card_vars().items():
        values = [plain_value(eng.state.card_vars[c.id].get(name)) for c in cards]
        if all(isinstance(v, str) or hasattr(v, "props") for v in values) and \
                all(v != _start_value(eng, decl) for v in values):
            return name
    return None


def render_table(eng, seat: Optional[int], full: bool = False) -> list:
    """Markup lines of the table as `seat` sees it: its own zones first (grouped), then the
    shared and other players' zones compact; empty and hidden zones only when `full`."""
    st = eng.state
    out = []
    zones = zones_seen(eng, seat)
    mine = [z for z in zones if seat is not None and z.owner == seat and z.cards is not None
            and z.visibility == "owner"]
    for z in mine:
        out += render_hand(eng, z)
    rest = [z for z in zones if z not in mine]
    shown = [z for z in rest if full or (z.cards and z.size)]
    if shown:
        out.append("[bold]Table[/bold]:")
        for z in shown:
            out += render_zone(eng, z, full=full)
    out.append(render_players(eng, seat, full=full))
    shared = {k: v for k, v in st.globals.items() if eng.may_read(k, seat)}
    if full and shared:
        out.append("  " + escape(", ".join(f"{k} {fmt(v)}" for k, v in shared.items())))
    return out


def render_players(eng, seat: Optional[int], full: bool = False) -> str:
    """The scores line (every player variable when `full`)."""
    st, score = eng.state, score_var(eng.rs)
    parts = []
    for p in range(eng.n):
        who = f"P{p + 1}" + (" (you)" if p == seat else "") + (" (out)" if p in st.out else "")
        if full:
            vals = ", ".join(f"{k} {fmt(v)}" for k, v in st.player_vars[p].items() if eng.may_read(k, seat, p))
            parts.append(f"  {who}: {vals}")
        elif score is not None:
            parts.append(f"{who} {fmt(st.player_vars[p][score])}")
        else:
            parts.append(who)
    if full:
        return "\n".join(escape(x) for x in parts)
    return "[bold]" + escape(score.capitalize() if score else "Players") + "[/bold]: " + escape(" · ".join(parts))


def last_shown(eng) -> list:
    """The cards of the last reveal to everyone in the round now ending (a winning hand
    shown), where they are now: [] when none."""
    log = eng.state.log
    for entry in reversed(log[:-1]):
        if entry["type"] == "round":
            return []
        if entry["type"] == "reveal" and "to" not in entry and entry.get("cards"):
            names = list(entry["cards"])
            out = []
            for name in names:
                c = next((c for c in eng.cards if c.name == name and c not in out), None)
                if c is not None:
                    out.append(c)
            return out
    return []


# ---------------------------------------------------------------- `about`

def visible_cards(eng, seat: Optional[int]) -> list:
    """Every card the seat can see now, once each."""
    seen, out = set(), []
    for z in zones_seen(eng, seat):
        for c in z.cards or ():
            if c.id not in seen:
                seen.add(c.id)
                out.append(c)
    return out


def find_card(eng, seat, name: str, extra=()):
    """(card, None) for a card called `name` (any case): one the seat can see if there is
    one, else any card of the game (its printed data is no secret); else (None, message)."""
    cards = list(extra) + visible_cards(eng, seat)
    want = " ".join(name.split()).lower()
    for c in cards:
        if c.name.lower() == want:
            return c, None
    for c in eng.cards:
        if c.name.lower() == want:
            return c, None
    starts = sorted({c.name for c in cards if c.name.lower().startswith(want)})
    if len(starts) == 1:
        return next(c for c in cards if c.name == starts[0]), None
    names = sorted({c.name for c in cards} | {c.name for c in eng.cards})
    lower = {n.lower(): n for n in names}
    close = [lower[x] for x in difflib.get_close_matches(want, list(lower), n=3, cutoff=0.6)]
    if starts:
        close = starts[:5]
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return None, f"No card is called `{name}`.{hint}"


#: The declarations `about` lists for a card, by what they are called.
_RULE_KINDS = {A.Trigger: "trigger", A.Reaction: "reaction", A.Rule: "rule", A.Action: "action", A.Check: "check"}


def rules_for(eng, card, seat) -> list:
    """[(kind, name, doc)]: the triggers, reactions, rules, actions and checks whose
    conditions single out this card by its properties, its data and what it derives now
    (`check.about.rules_about`, what the language server's hover lists too), each with
    its doc comment. Nothing is evaluated under a made-up event."""
    values = dict(card.props)
    for name in eng.rs.derives:
        v = _value(eng, card, name)
        if v is not None:
            values[name] = v
    return [(_RULE_KINDS[type(d)], d.name, doc_comment(d.span))
            for d in rules_about(eng.rs, values) if type(d) in _RULE_KINDS]


def render_about(eng, card, seat, seen: bool = True) -> list:
    """Markup lines: what a card is and does, in the ruleset's words. A card the seat cannot
    see now (`seen` False) shows only its printed data: its state, what it derives from it
    and the rules that meet it would tell where it is or what became of it."""
    rs = eng.rs
    shown = eng.show_card(card) if seen else card.name
    out = [f"[bold]{escape(card.name)}[/bold]" + (f" — {escape(shown)}" if shown != card.name else "")]
    texts, data = [], []
    decl = rs.cards_decl.props if rs.cards_decl is not None else ()
    for p in decl:
        if p.name == "name" or p.name not in card.props:
            continue
        v = card.props[p.name]
        if p.name in TEXT_FIELDS and isinstance(v, str) and v not in ("", "none"):
            texts.append(v)
            continue
        if p.default is not None and v == _default(eng, p):
            continue
        data.append(f"{p.name} {fmt(v)}")
    derived = []
    for name in (rs.derives if seen else ()):
        if name in ("display", "group"):
            continue
        v = _value(eng, card, name)
        if v is None or isinstance(v, (list, dict)):
            continue
        derived.append(f"{name} {fmt(v)}")
    for t in texts:
        out += ["  " + escape(x) for x in textwrap.wrap(t, WIDTH - 2)]
    if data:
        out += wrap("  [dim]data:[/dim] ", [escape(x) for x in data], 8)
    if derived:
        out += wrap("  [dim]so:[/dim] ", [escape(x) for x in derived], 6)
    cs = card_counters(eng, card) if seen else []
    if cs:
        out.append("  [dim]now:[/dim] " + escape(" · ".join(f"{k} {v}" for k, v in cs)))
    for kind, name, doc in (rules_for(eng, card, seat) if seen else ()):
        head = f"  [yellow]{kind} {escape(name)}[/yellow]"
        if doc:
            body = textwrap.wrap(doc, WIDTH - 6, initial_indent=" " * (len(plain(head)) - 4))
            out.append(f"{head}: {escape(body[0].lstrip())}")
            out += ["      " + escape(x) for x in body[1:]]
        else:
            out.append(head)
    if not seen:
        out.append("  [dim](not in sight: its state and the rules it meets now are not shown)[/dim]")
    if len(out) == 1:
        out.append("  (the ruleset says nothing more about this card)")
    return out


def _default(eng, prop):
    from cgl.interpreter.walker.compiler import Env
    try:
        return eng.ev(prop.default, Env())
    except Exception:
        return object()
