"""Deck lists: the cards a player brings, and the ruleset's deck-building rules.

A deck list is a YAML file:

    deck: Pozorki starter          # any fields the rules want to read (deck_of(p).race …)
    race: pozorki
    cards:
      - {name: Pozorny Archer, copies: 3}
      - {name: Captain Pozor}       # copies: 1

The ruleset's `deck { … }` block says which list a player brings by default and what a
legal list is (`check` rules over the whole list, `each` rules over every entry).
Illegal lists are reported with the YAML line of the entry (or of `cards:`).
"""
from __future__ import annotations

from typing import Optional

import attrs

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic, did_you_mean
from ..base.files import MAX_CARDS, MAX_COPIES, MarkedDict, MarkedList, load_yaml, project_roots, resolve_ref


@attrs.define
class DeckList:
    """A loaded deck list: its file, its fields, and its entries (card, copies, where)."""

    path: str
    fields: dict
    entries: list          # of (Card, copies, Span)
    cards_span: A.Span
    field_spans: dict = attrs.Factory(dict)   # field -> where its key is

    @property
    def cards(self) -> list:
        """One card per copy (the data's first card of that name stands for every copy)."""
        return [card for card, copies, _ in self.entries for _ in range(copies)]

    def as_value(self) -> dict:
        """What `deck_of(p)` gives the rules: the fields, and `cards`."""
        value = {k: v for k, v in self.fields.items()}
        value["cards"] = self.cards
        return value


def load_deck(rs, path: str, span: Optional[A.Span] = None) -> DeckList:
    """Read a deck list and match its names to the ruleset's cards (`span`: where the
    ruleset names it, for a list it names)."""
    start = A.Span(path, 1, 1, 1, 2)
    data = load_yaml(path, "E003", "the deck list", span)
    if not isinstance(data, MarkedDict) or not isinstance(data.get("cards"), list):
        raise CglError(Diagnostic("E003", "a deck list needs a list of cards under `cards:`",
                                  data.span(path, "cards") if isinstance(data, MarkedDict) else start,
                                  hint="cards:\n    - {name: Some Card, copies: 2}"))
    by_name: dict = {}
    held: dict = {}          # name -> how many copies the card data holds
    for c in rs.cards:
        by_name.setdefault(c.name, c)
        held[c.name] = held.get(c.name, 0) + 1
    asked: dict = {}         # name -> copies the list asks for so far
    over = None              # the first entry that asks for more copies than the data holds
    entries = []
    total = 0
    for n, entry in enumerate(data["cards"]):
        if not isinstance(entry, MarkedDict) or "name" not in entry:
            raise CglError(Diagnostic("E003", "each deck entry is `{name: …, copies: …}`",
                                      data["cards"].span(path, n) if isinstance(data["cards"], MarkedList)
                                      else data.span(path, "cards")))
        for k in entry:
            if k not in ("name", "copies"):
                raise CglError(Diagnostic("E003", f"a deck entry has `name` and `copies`, not `{k}`",
                                          entry.span(path, k), hint=did_you_mean(str(k), ["name", "copies"])))
        if not isinstance(entry["name"], (str, int)) or isinstance(entry["name"], bool):
            raise CglError(Diagnostic("E003", "a deck entry's `name` is the name of a card (a text)",
                                      entry.span(path, "name", value=True)))
        name = str(entry["name"])
        card = by_name.get(name)
        if card is None:
            raise CglError(Diagnostic("E003", f"no card is named `{name}`", entry.span(path, "name", value=True),
                                      hint=did_you_mean(name, by_name)))
        copies = entry.get("copies", 1)
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            raise CglError(Diagnostic("E003", f"`copies` is a whole number of at least 1, not `{copies}`",
                                      entry.span(path, "copies", value=True)))
        if copies > MAX_COPIES:
            raise CglError(Diagnostic("E003", f"`copies: {copies}` is more than the limit of {MAX_COPIES:,}",
                                      entry.span(path, "copies", value=True)))
        total += copies
        if total > MAX_CARDS:
            raise CglError(Diagnostic("E003", f"the deck list holds more than the limit of {MAX_CARDS:,} cards",
                                      entry.span(path, "copies", value=True)))
        asked[name] = asked.get(name, 0) + copies
        if asked[name] > held[name] and over is None:   # (a game would deal fewer, silently)
            over = Diagnostic("E003", f"the deck list asks for {asked[name]} copies of {name}, and the card data "
                              f"holds {held[name]}", entry.span(path, "copies", value=True) if "copies" in entry
                              else entry.span(path), hint=f"list at most {held[name]} of it, or give it more copies "
                                                          "in the card data (`count:`)")
        entries.append((card, copies, entry.span(path)))
    if over is not None:
        raise CglError(over)
    fields = {str(k): v for k, v in data.items() if k != "cards"}
    return DeckList(path, fields, entries, data.span(path, "cards"),
                    {str(k): data.span(path, k) for k in data if k != "cards"})


def _fields_read(rule) -> list:
    """The deck-list fields a rule reads with `lookup(decklist, "field", …)`, in order."""
    calls = [n for n in A.walk(rule.cond)
             if isinstance(n, A.Call) and n.name == "lookup" and len(n.args) >= 2
             and n.args[0] == A.Name("decklist") and isinstance(n.args[1], A.Text) and n.args[1].constant]
    out = []
    for n in sorted(calls, key=lambda n: (n.span.line, n.span.column)):
        if n.args[1].constant not in out:
            out.append(n.args[1].constant)
    return out


def _by_card(entries) -> list:
    """(card, copies, the spans of its entries) once per card name, in the list's order: a
    card listed twice ("Wild Goat, 2" and again "Wild Goat, 2") is four copies of it."""
    out: dict = {}
    for card, copies, span in entries:
        g = out.setdefault(card.name, [card, 0, []])
        g[1] += copies
        g[2].append(span)
    return [tuple(g) for g in out.values()]


def check_deck(engine, deck: DeckList) -> list:
    """Every deck-building rule the list breaks, as E016 diagnostics pointing into the YAML."""
    from ..walker.compiler import Env
    rules = engine.rs.deck.rules if engine.rs.deck else ()
    value = deck.as_value()
    found = []
    for r in rules:
        base = {"cards": value["cards"], "decklist": value}
        if r.per_entry:   # once per card of the list, its copies counted over all the entries naming it
            for card, copies, spans in _by_card(deck.entries):
                env = Env({**base, "card": card, "copies": copies, "it": card})
                if not engine.ev(r.cond, env):
                    also = tuple(f"{card.name} is listed also at {sp}" for sp in spans[:-1])
                    found.append(Diagnostic("E016", f"{card.name}: {r.message} (rule `{r.name}`)", spans[-1],
                                            related=(f"the rule is at {r.span}", *also)))
        elif not engine.ev(r.cond, Env(base)):
            where = next((deck.field_spans[f] for f in _fields_read(r) if f in deck.field_spans), deck.cards_span)
            found.append(Diagnostic("E016", f"{r.message} (rule `{r.name}`)", where,
                                    related=(f"the rule is at {r.span}",)))
    return found


def default_deck_path(engine, seat: int) -> Optional[str]:
    """The list a player brings when none is named: the ruleset's `default`, per player."""
    from ..walker.compiler import Env
    decl = engine.rs.deck
    if decl is None or decl.default is None:
        return None
    rel = engine.ev(decl.default, Env({"player": engine.players[seat]}))
    if not isinstance(rel, str):
        raise CglError(Diagnostic("E008", "a deck's `default` must give a file name (a text)", decl.default.span))
    return resolve_ref(rel, decl.span.path, engine.rs.roots or project_roots(decl.span.path), "deck list",
                       decl.default.span)


def attach_decks(engine, chosen: dict) -> None:
    """Load and check every player's deck list (chosen: seat -> path; the rest by default)."""
    decks = {}
    for seat in range(engine.n):
        named = chosen.get(seat)
        path = named or default_deck_path(engine, seat)
        if path is None:
            raise CglError(Diagnostic("E002", f"P{seat + 1} has no deck list: name one with --deck "
                                      f"{seat + 1}=FILE, or give the ruleset's `deck` a `default`",
                                      engine.rs.deck.span))
        deck = load_deck(engine.rs, path, None if named else engine.rs.deck.default.span)
        problems = check_deck(engine, deck)
        if problems:
            raise CglError(problems)
        decks[seat] = deck
    engine.decks = decks
