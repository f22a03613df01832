"""The table a person plays at: what one seat may see, laid out to be read.

The table is drawn from the seat view alone (`Game.view(seat)`, built by
`cgl.interpreter.walker.seatview`; its shape in docs/view.md), so it shows exactly what the
seat may know and nothing of the engine. Nothing game-specific: the view says how cards
group and which variable is the score. `about CARD` reads what is printed on a card the
seat can see (a text field of the card data, the player text of the triggers and rules
that meet it: `##` lines, never a designer's `#` notes) from the ruleset.

Text comes out as rich markup (`render_*`); :func:`plain` strips it, for pipes and tests.
"""
from __future__ import annotations

import difflib
import textwrap
from typing import Optional

from rich.markup import escape
from rich.text import Text

from cgl.interpreter.base import ast as A
from cgl.interpreter.check.about import player_text, rules_about
from cgl.interpreter.runtime.state import plain as plain_value
from cgl.interpreter.walker.seatview import TEXT_FIELDS, attr, counters

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


# ---------------------------------------------------------------- the table, from the seat view

def score_var(rs) -> Optional[str]:
    """The player variable the ruleset declares its score (`Ruleset.score`), if any."""
    return rs.score[0] if rs.score else None


def card_line(card: dict, counters: bool = True, skip=()) -> str:
    """Markup: how a card of the view reads on the table, its counters beside it (but those
    in `skip`)."""
    text = escape(card["label"])
    if counters:
        cs = [(k, fmt(v)) for k, v in card.get("vars", {}).items() if k not in skip]
        if cs:
            text += " [dim]\\[" + escape(" · ".join(f"{k} {v}" for k, v in cs)) + "][/dim]"
    return text


def grouped(view: dict, cards: list) -> list:
    """[(group, [cards])]: in the order of the ruleset's enum when the groups are its
    members, else the biggest group first, then by name; cards by how they read."""
    groups: dict = {}
    for c in cards:
        g = c.get("group")
        groups.setdefault("" if g is None else str(g), []).append(c)
    order = view["groups"]["order"]
    if order is not None:
        key = (lambda g: (order.index(g) if g in order else len(order), g))
    else:
        key = (lambda g: (-len(groups[g]), g))
    return [(g, sorted(groups[g], key=lambda c: c["label"])) for g in sorted(groups, key=key)]


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


def render_hand(view: dict, zone: dict) -> list:
    groups = grouped(view, zone["cards"])
    named = any(g for g, _ in groups)
    out = [f"[bold]Your {escape(zone['zone'])}[/bold] ({zone['count']}):"]
    if not groups:
        out[0] += " (empty)"
    wide = max((len(g) for g, _ in groups), default=0)
    for g, cards in groups:
        head = f"  [cyan]{escape(g.ljust(wide))}[/cyan]  " if named else "  "
        out += wrap(head, [card_line(c) for c in cards], indent=len(g.ljust(wide)) + 4 if named else 4)
    return out


def render_zone(zone: dict, full: bool = False) -> list:
    """One zone's lines: a pile (ordered, or a discard pile) shows its top card and its size,
    other zones their cards (the first few, unless `full`); a hidden zone only its size."""
    n, label, cards = zone["count"], escape(zone["label"]), zone["cards"]
    size = f"{n} card{'s' if n != 1 else ''}"
    if cards is None:
        return [f"  {label}: {size} (hidden)"]
    if not cards:
        return [f"  {label}: (empty)"]
    if not full and (zone["role"] == "discard" or (zone["ordered"] and n > PILE)) and n > 1:
        return [f"  {label}: top {card_line(cards[0])} ({size}; `look {escape(zone['zone'])}` for all)"]
    place = zone.get("place")
    if place is not None:   # cards that stand somewhere: one line per place
        out = [f"  {label} ({n}):"]
        at: dict = {}
        for c in cards:
            at.setdefault(fmt(c["vars"][place]), []).append(c)
        for where, here in at.items():
            # what all the cards of a place share is said once, not beside each
            common = set.intersection(*(set((k, fmt(v)) for k, v in c.get("vars", {}).items()) for c in here)) \
                if len(here) > 1 else set()
            skip = {place} | {k for k, _ in common}
            shared = [f"{k} {fmt(v)}" for k, v in here[0].get("vars", {}).items() if k in skip and k != place]
            also = " [dim]\\[" + escape(" · ".join(shared)) + "][/dim]" if shared else ""
            out += wrap(f"    [cyan]{escape(place)} {escape(where)}[/cyan]{also}: ",
                        [card_line(c, skip=skip) for c in here], 8)
        return out
    if full:
        return wrap(f"  {label} ({n}): ", [card_line(c) for c in cards], 6)
    shown = [card_line(c) for c in cards[:PILE]]
    if n > PILE:
        shown.append(f"… {n - PILE} more (`look {escape(zone['zone'])}`)")
    return wrap(f"  {label}: ", shown, 6)


def my_zones(view: dict) -> list:
    """The seat's own zones that only it sees (its hand): shown first, grouped."""
    return [z for z in view["zones"] if view["you"] is not None and z["owner"] == view["you"]
            and z["cards"] is not None and z["visibility"] == "owner"]


def render_table(view: dict, full: bool = False) -> list:
    """Markup lines of the table as the view's seat sees it: its own zones first (grouped),
    then the shared and other players' zones compact; empty and hidden zones only when `full`."""
    out = []
    mine = my_zones(view)
    for z in mine:
        out += render_hand(view, z)
    rest = [z for z in view["zones"] if z not in mine]
    shown = [z for z in rest if full or (z["cards"] and z["count"])]
    if shown:
        out.append("[bold]Table[/bold]:")
        for z in shown:
            out += render_zone(z, full=full)
    out.append(render_players(view, full=full))
    if full and view["globals"]:
        out.append("  " + escape(", ".join(f"{k} {fmt(v)}" for k, v in view["globals"].items())))
    return out


def render_players(view: dict, full: bool = False) -> str:
    """The scores line (every variable the seat may read of each player when `full`)."""
    score = view["score"]["var"] if view["score"] else None
    parts = []
    for p in view["players"]:
        who = p["player"] + (" (you)" if p["you"] else "") + (" (out)" if p["out"] else "")
        shown = ", ".join(f"{k} {fmt(v)}" for k, v in p["shown"].items())
        if full:
            parts.append(f"  {who}: " + ", ".join(f"{k} {fmt(v)}" for k, v in [*p["shown"].items(), *p["vars"].items()]))
        elif score is not None:
            parts.append(f"{who} {fmt(p['score'])}" + (f" ({shown})" if shown else ""))
        else:
            parts.append(who + (f" ({shown})" if shown else ""))
    if full:
        return "\n".join(escape(x) for x in parts)
    return "[bold]" + escape(score.capitalize() if score else "Players") + "[/bold]: " + escape(" · ".join(parts))


# ---------------------------------------------------------------- `about`

def visible_cards(eng, view: dict) -> list:
    """Every card of the game the view's seat can see now (in a zone it may look at), once each."""
    seat = None if view["you"] is None else int(view["you"][1:]) - 1
    names = {c["name"] for z in view["zones"] for c in z["cards"] or ()}
    out = []
    for c in eng.cards:
        if c.name in names and eng.zone_visible(eng.zone_of_card(c), seat):
            out.append(c)
    return out


def find_card(eng, view, name: str, extra=()):
    """(card, None) for a card called `name` (any case): one the seat can see if there is
    one, else any card of the game (its printed data is no secret); else (None, message)."""
    cards = list(extra) + visible_cards(eng, view)
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
    its player text (`##` lines; a designer's `#` notes never). Nothing is evaluated under
    a made-up event."""
    values = dict(card.props)
    for name in eng.rs.derives:
        v = attr(eng, card, name)
        if v is not None:
            values[name] = v
    return [(_RULE_KINDS[type(d)], d.name, player_text(d.span))
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
        v = attr(eng, card, name)
        if v is None or isinstance(v, (list, dict)):
            continue
        derived.append(f"{name} {fmt(v)}")
    for t in texts:
        out += ["  " + escape(x) for x in textwrap.wrap(t, WIDTH - 2)]
    if data:
        out += wrap("  [dim]data:[/dim] ", [escape(x) for x in data], 8)
    if derived:
        out += wrap("  [dim]so:[/dim] ", [escape(x) for x in derived], 6)
    cs = [(k, fmt(v)) for k, v in counters(eng, card).items()] if seen else []
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
