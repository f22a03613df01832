"""Scenarios: a designer's test of one rule, in one YAML file.

A scenario names a ruleset and options, sets up a position (cards in zones, whose
turn, variables), scripts the decisions, dice, random picks and shuffles, plays from that position
(the start of a turn, of a round or of the game) for a number of turns, to the round's
end or to the game's end, and checks the outcome. See docs/scenarios.md.

    scenario: MGT-N-MEAN a mean monster costs a random card
    ruleset: mgt.cgl
    players: 2
    setup:
      turn: P1
      zones:
        stock: [Alice]                # top first
        hand P1: [Ant Arachne, Lich]
    turns: 1
    script:
      - P1: Ant Arachne
    random: [Lich]
    expect:
      zones:
        pile: [Lich, Ant Arachne]     # top first
"""
from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable, Optional

import attrs

from ..base import ast as A
from ..base.diagnostics import CglError, Diagnostic, did_you_mean, render_all
from ..walker.engine import AnswerError, Decision
from .game import Game
from ..base.files import MarkedList, found_in, indirect_ruleset, inside, project_roots
from ..check.loader import MarkedDict, load, packaged_rulesets, read_yaml
from ..base.protocol import CARD_STATS, DEFAULT_MAX_STEPS
from ..runtime.state import plain

KNOWN_KEYS = {"scenario", "ruleset", "players", "options", "seed", "setup", "turns", "until", "script", "dice",
              "random", "shuffles", "expect", "about"}

# Where the play begins (`setup: {from: …}`) and where it stops (`until: …`): a game is one match.
_FROM = {"turn start": "turn", "round start": "round", "game start": "game", "match start": "game"}
_UNTIL = {"round end": "round", "game end": "game", "match end": "game"}
# How a scenario names one card as a variable's value: `{card: King, in: pot, at: 1}`.
_CARD_KEYS = ("card", "in", "at")
# One copy among cards of one name: `Gold Mine#2`, the second in the card data's order.
_COPY = re.compile(r"^(.*\S)\s*#(\d+)$")


@attrs.define
class Outcome:
    """The result of running one scenario."""

    name: str
    path: str
    passed: bool
    failures: list
    transcript: list

    def report(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.name}  ({self.path})"
        if self.passed:
            return head
        return "\n".join([head] + [f"    - {f}" for f in self.failures])


def _bad(path, data, key, message, hint=None, value=False):
    """A located E013: at `key` of the mapping `data` (at its value with `value`)."""
    span = data.span(path, key, value) if isinstance(data, MarkedDict) else A.Span(path, 1, 1, 1, 2)
    return CglError(Diagnostic("E013", message, span, hint=hint))


# What each key of a scenario holds: "map", "list", "int", "text", "bool", or a nested schema.
_SHAPE = {
    "scenario": "text", "ruleset": "text", "players": "int", "options": "map", "seed": "int",
    "turns": "int", "until": "text", "script": "list", "dice": "list", "random": "list", "shuffles": "list",
    "about": "text",
    "setup": {"from": "text", "turn": "text", "round": "int", "zones": "map", "rest": "text", "players": "map",
              "cards": "map", "globals": "map", "out_of_round": "list"},
    "expect": {"zones": "map", "players": "map", "cards": "map", "globals": "map", "log": "list",
               "not_log": "list", "winners": "list", "over": "bool", "reason": "text", "round": "int",
               "next": "text", "stats": "map", "out_of_round": "list"},
}
_WORDS = {"map": "a mapping (key: value lines)", "list": "a list", "int": "a whole number", "text": "a text",
          "bool": "yes or no"}


def _check_shape(path, data, shape, where=""):
    for key, want in shape.items():
        if key not in data or data[key] is None:
            continue
        v = data[key]
        if isinstance(want, dict):
            if not isinstance(v, dict):
                raise _bad(path, data, key, f"`{where}{key}` must be a mapping of {', '.join(want)}")
            for k in v:
                if k not in want:
                    raise _bad(path, v, k, f"unknown key `{k}` in `{where}{key}`", hint=did_you_mean(str(k), want))
            _check_shape(path, v, want, f"{where}{key}.")
            continue
        ok = {"map": isinstance(v, dict), "list": isinstance(v, list), "bool": isinstance(v, bool),
              "int": isinstance(v, int) and not isinstance(v, bool), "text": isinstance(v, (str, int))}[want]
        if not ok:
            raise _bad(path, data, key, f"`{where}{key}` must be {_WORDS[want]}")
    if where == "expect." and isinstance(data.get("zones"), dict):
        _check_zone_expectations(path, data["zones"])
    for key in ("zones", "players", "cards"):
        inner = data.get(key) if where in ("setup.", "expect.") else None
        if isinstance(inner, dict) and key != "zones":
            for k, v in inner.items():
                if v is not None and not isinstance(v, dict):
                    raise _bad(path, inner, k, f"`{where}{key}.{k}` must be a mapping of variables")


# What an expected zone may say, as a mapping (a list says the whole zone, top first).
_ZONE_EXPECT = {"contains": "list", "excludes": "list", "count": "int", "top": "text"}


def _check_zone_expectations(path, zones):
    """Each `expect.zones` entry is a list of cards or a mapping of `_ZONE_EXPECT`: a
    misspelt key or a bare number would otherwise assert nothing."""
    for label, want in zones.items():
        if want is None or isinstance(want, list):
            continue
        if not isinstance(want, dict):
            hint = (f"write `{label}: {{count: {want}}}`" if isinstance(want, int) and not isinstance(want, bool)
                    else f"write `{label}: [top card, …]` or `{label}: {{contains: […], count: N}}`")
            raise _bad(path, zones, label, f"the expectation of zone `{label}` must be a list of cards (top first) "
                                           f"or a mapping of {', '.join(_ZONE_EXPECT)}; {hint}", hint=hint)
        for k, v in want.items():
            shape = _ZONE_EXPECT.get(k)
            if shape is None:
                raise _bad(path, want, k, f"unknown key `{k}` in the expectation of zone `{label}`",
                           hint=did_you_mean(str(k), _ZONE_EXPECT) or f"the keys: {', '.join(_ZONE_EXPECT)}")
            ok = {"list": isinstance(v, list), "int": isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                  "text": isinstance(v, (str, int)) and not isinstance(v, bool)}[shape]
            if not ok:
                raise _bad(path, want, k, f"`{k}` must be {_WORDS[shape]} (in the expectation of zone `{label}`)")


def _check_steps(path, item):
    """Each die a whole number, each script step `- P1: answer`, each shuffle `- ZONE: [cards]`:
    at the item's line."""
    for key, ok, want in (("dice", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
                           "a die's result, a whole number from 1"),
                          ("script", lambda v: isinstance(v, MarkedDict) and len(v) == 1,
                           "a step `- P1: answer` (one player and their answer)"),
                          ("shuffles", lambda v: isinstance(v, MarkedDict) and len(v) == 1
                           and isinstance(next(iter(v.values())), list),
                           "a shuffle `- ZONE: [cards on top, top first]` (one zone and a list of cards)")):
        steps = item.get(key)
        if isinstance(steps, MarkedList):
            for n, v in enumerate(steps):
                if not ok(v):
                    raise CglError(Diagnostic("E013", f"item {n + 1} of `{key}` must be {want}",
                                              steps.span(path, n)))


def read(path: str) -> list:
    """The scenarios of a YAML file (one document, or a list under `scenarios:`)."""
    data = read_yaml(path, "E013", "the scenario file")
    if isinstance(data, MarkedDict) and "scenarios" in data:
        items = data["scenarios"]
        if not isinstance(items, list):
            raise _bad(path, data, "scenarios", "`scenarios:` must be a list of scenarios, each `- scenario: NAME …`",
                       value=True)
        for k in data:
            if k != "scenarios":
                raise _bad(path, data, k, f"unknown key `{k}` beside `scenarios:` (each scenario's keys go inside "
                           "its `- scenario:` item)", hint=did_you_mean(str(k), ["scenarios"]))
    else:
        items = [data]
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, MarkedDict) or "scenario" not in item:
            span = (item.span(path) if isinstance(item, MarkedDict) else
                    items.span(path, n) if isinstance(items, MarkedList) else A.Span(path, 1, 1, 1, 2))
            raise CglError(Diagnostic("E013", "a scenario needs a `scenario:` name", span,
                                      hint="a scenario file is a mapping that starts `scenario: NAME`, or "
                                           "`scenarios:` and a list of them"))
        for k in item:
            if k not in KNOWN_KEYS:
                raise _bad(path, item, k, f"unknown scenario key `{k}`", hint=did_you_mean(str(k), KNOWN_KEYS))
        _check_shape(path, item, _SHAPE)
        _check_steps(path, item)
        _plan(path, item)
        out.append(item)
    return out


def _words(text) -> str:
    return " ".join(str(text).split()).lower()


def _plan(path, item) -> tuple:
    """Where a scenario's play begins and how far it goes: (begin, max_turns, to_end), begin
    being "turn", "round" or "game". A wrong combination is an E013 at its line."""
    setup = item.get("setup") or MarkedDict()
    begin = "turn"
    if setup.get("from") is not None:
        begin = _FROM.get(_words(setup["from"]))
        if begin is None:
            raise _bad(path, setup, "from", f"`setup.from` must be `turn start` (the default), `round start` or "
                       f"`game start`, not `{setup['from']}`", hint=did_you_mean(_words(setup["from"]), _FROM),
                       value=True)
    if begin != "turn" and setup.get("turn") is not None:
        raise _bad(path, setup, "turn", f"a scenario from the {begin}'s start has no `turn`: the round's `first` "
                   "(and its `start` block) decide who plays first")
    if begin == "game" and setup.get("round") is not None:
        raise _bad(path, setup, "round", "a scenario from the game's start plays from round 1: leave out `round`")
    if setup.get("round") is not None and setup["round"] < 1:
        raise _bad(path, setup, "round", f"`setup.round` counts from 1, not {setup['round']}", value=True)
    until = item.get("until")
    if until is not None:
        if item.get("turns") is not None:
            raise _bad(path, item, "until", "give `turns` (how many turns to play) or `until` (where to stop), "
                       "not both")
        stop = _UNTIL.get(_words(until))
        if stop is None:
            raise _bad(path, item, "until", f"`until` must be `round end` or `game end`, not `{until}` (for a number "
                       "of turns, write `turns: N`)", hint=did_you_mean(_words(until), _UNTIL), value=True)
        return begin, None, stop == "game"
    turns = 1 if item.get("turns") is None else item["turns"]
    if turns < 0:
        raise _bad(path, item, "turns", f"`turns` is how many turns to play: 0 or more, not {turns}", value=True)
    return begin, turns, False


def _seat(path, data, key, text, n) -> int:
    s = str(text).strip()
    if s.upper().startswith("P") and s[1:].isdigit() and 1 <= int(s[1:]) <= n:
        return int(s[1:]) - 1
    raise _bad(path, data, key, f"`{text}` is not a player of this scenario (P1 to P{n})")


def _by_name(engine) -> dict:
    """Card name -> its copies, in the card data's order (the order `NAME#N` counts)."""
    out = engine.__dict__.get("_scenario_copies")
    if out is None:
        out = {}
        for c in engine.cards:
            out.setdefault(c.name, []).append(c)
        engine.__dict__["_scenario_copies"] = out
    return out


def copy_name(engine, card) -> str:
    """How a scenario names this one card: its name, or `NAME#N` when several cards have it."""
    copies = _by_name(engine)[card.name]
    return card.name if len(copies) == 1 else f"{card.name}#{copies.index(card) + 1}"


def _named(engine, path, data, key, text, value=False):
    """(the card name, the one copy named or None) of a scenario's card name: `Gold Mine` (any
    copy) or `Gold Mine#2` (the second card of that name in the card data's order). A copy
    number out of range is an E013 at `key` of `data`; an unknown name is left to the caller."""
    text = str(text).strip()
    copies = _by_name(engine)
    if text in copies:
        return text, None
    m = _COPY.match(text)
    if m is None or m.group(1) not in copies:
        return text, None
    name, n = m.group(1), int(m.group(2))
    found = copies[name]
    if not 1 <= n <= len(found):
        raise _bad(path, data, key, f"`{text}`: there {'is one card' if len(found) == 1 else f'are {len(found)} cards'}"
                   f" named `{name}`, " + ("so no copy number is needed" if len(found) == 1 else
                                           f"#1 to #{len(found)} in the card data's order"),
                   hint=f"write `{name}`" + ("" if len(found) == 1 else f" or `{name}#1` … `{name}#{len(found)}`"),
                   value=value)
    return name, found[n - 1]


def _zone_key(engine, path, data, label, key=None) -> str:
    """The state's key of the zone a scenario names (`pile`, `hand P1`, `under Drache`,
    `under Gold Mine#2`, `squad Gold Mine#2 P1`); an error points at `key` of `data`
    (default: the label itself, a key of `data`)."""
    rs = engine.rs
    at, on_value = (label, False) if key is None else (key, True)
    parts = str(label).split()
    name = parts[0] if parts else ""
    z = rs.zones.get(name)
    if z is None:
        raise _bad(path, data, at, f"unknown zone `{name}`", hint=did_you_mean(name, rs.zones), value=on_value)
    if z.per_card:
        rest, seat = parts[1:], None
        if z.per_player:   # `per card per player`: the card, then the player
            if len(rest) < 2:
                raise _bad(path, data, at, f"`{name}` belongs to each card and player: write `{name} CARD NAME P1`",
                           value=on_value)
            seat = _seat(path, data, at, rest[-1], engine.n)
            rest = rest[:-1]
        host, copy = _named(engine, path, data, at, " ".join(rest), on_value)
        card = copy or next((c for c in engine.cards if c.name == host), None)
        if card is None:
            write = f"{name} CARD NAME" + (" P1" if z.per_player else "")
            raise _bad(path, data, at, f"`{name}` belongs to each card: write `{write}`",
                       hint=did_you_mean(host, [c.name for c in engine.cards]) if host else None, value=on_value)
        return f"{name}@{card.id}" + ("" if seat is None else f":{seat}")
    if z.per_player:
        if len(parts) != 2:
            raise _bad(path, data, at, f"`{name}` belongs to each player: write `{name} P1`", value=on_value)
        return f"{name}:{_seat(path, data, at, parts[1], engine.n)}"
    if len(parts) != 1:
        raise _bad(path, data, at, f"`{name}` is shared: write just `{name}`", value=on_value)
    return name


def _value(engine, v, path="", data=None, key=None):
    """A scenario value for a variable: `P1` is a player; a mapping `{card: …}` is one card
    (see `_card`); a list holds such values; anything else (a number, a text, an enum
    member) is itself. `data`/`key`: where the value is, for errors."""
    if isinstance(v, str) and v.upper().startswith("P") and v[1:].isdigit() and 1 <= int(v[1:]) <= engine.n:
        return engine.players[int(v[1:]) - 1]
    if isinstance(v, list):
        return [_value(engine, x, path, data, key) for x in v]
    if isinstance(v, dict):
        return _card(engine, path, v, data, key)
    return v


def _card(engine, path, spec, data=None, key=None):
    """The one card a scenario names as a value: `{card: NAME}` when a single card has that
    name; `{card: NAME, in: ZONE}` for the copy lying in that zone (as the setup placed it);
    `{card: NAME, in: ZONE, at: N}` for the Nth card from the top when several copies lie
    there. Anything else is an E013 at its line."""
    where = spec if isinstance(spec, MarkedDict) else data
    for k in spec:
        if k not in _CARD_KEYS:
            raise _bad(path, spec, k, f"unknown key `{k}` in a card: write `{{card: NAME}}`, or "
                       "`{card: NAME, in: ZONE}` (and `at: N`, counted from the top) when several cards have "
                       "that name", hint=did_you_mean(str(k), _CARD_KEYS))
    name = spec.get("card")
    if name is None or isinstance(name, (bool, list, dict)):
        raise _bad(path, where, key if where is data else "card",
                   "a card as a value is written `{card: NAME}` (`{card: NAME, in: ZONE}` to say which copy)")
    name, copy = _named(engine, path, spec, "card", name, True)
    copies = [copy] if copy is not None else [c for c in engine.cards if c.name == name]
    if not copies:
        raise _bad(path, spec, "card", f"no card is named `{name}`",
                   hint=did_you_mean(name, [c.name for c in engine.cards]), value=True)
    at = spec.get("at")
    if at is not None and (not isinstance(at, int) or isinstance(at, bool) or at < 1):
        raise _bad(path, spec, "at", f"`at` is a position from the top of the zone (1 is the top), not `{at}`",
                   value=True)
    if spec.get("in") is None:
        if at is not None:
            raise _bad(path, spec, "at", "`at` counts from the top of a zone: name the zone with `in: ZONE`")
        if len(copies) > 1:
            raise _bad(path, spec, "card", f"{len(copies)} cards are named `{name}`: say which with "
                       f"`{{card: {name}, in: ZONE}}` or `{{card: {name}#N}}` (the Nth in the card data's order)",
                       value=True)
        return copies[0]
    label = spec["in"]
    if not isinstance(label, (str, int)) or isinstance(label, bool):
        raise _bad(path, spec, "in", "`in` names a zone: `pile`, `hand P1`, `under CARD NAME`", value=True)
    st = engine.state
    ids = list(reversed(st.zones.get(_zone_key(engine, path, spec, label, "in"), [])))   # top first
    if at is not None:
        if at > len(ids):
            raise _bad(path, spec, "at", f"`{label}` holds {len(ids)} card(s): nothing lies at {at}", value=True)
        found = engine.cards[ids[at - 1]]
        if found not in copies:
            raise _bad(path, spec, "at", f"the card at {at} in `{label}` is `{found.name}`, not "
                       f"`{spec['card']}`", value=True)
        return found
    here = [pos for pos, cid in enumerate(ids, 1) if engine.cards[cid] in copies]
    if not here:
        raise _bad(path, spec, "in", f"no `{spec['card']}` lies in `{label}`", value=True)
    if len(here) > 1:
        raise _bad(path, spec, "in", f"{len(here)} cards named `{name}` lie in `{label}` (at "
                   f"{', '.join(map(str, here))} from the top): say which with `at: N`", value=True)
    return engine.cards[ids[here[0] - 1]]


def _want(engine, path, v, data=None, key=None):
    """An expected value: players as for `_value`; a card by its name (`King` or `{card: King}`),
    or one copy by its number (`King#3`: that card itself, see `_agrees`)."""
    if isinstance(v, list):
        return [_want(engine, path, x, data, key) for x in v]
    if isinstance(v, dict):
        extra = [k for k in v if k != "card"]
        if extra or v.get("card") is None:
            raise _bad(path, v if isinstance(v, MarkedDict) else data, extra[0] if extra else key,
                       "an expected card is compared by its name: write `NAME` or `{card: NAME}`")
        v = v["card"]
        _, copy = _named(engine, path, data, key, v, True)
        return copy if copy is not None else str(v)
    if isinstance(v, str):
        _, copy = _named(engine, path, data, key, v, True)
        if copy is not None:
            return copy
    return _value(engine, v)


def _agrees(have, want) -> bool:
    """Whether a variable's value is the expected one: a copy named by its number is that
    very card; anything else is compared as plain data (a card by its name)."""
    if hasattr(want, "props"):
        return have is want
    if isinstance(want, list):
        return isinstance(have, list) and len(have) == len(want) and all(map(_agrees, have, want))
    return plain(have) == plain(want)


def _lay_out(eng, path, zones) -> tuple:
    """The cards of a scenario's `zones:`: (zone key -> card ids bottom first, the ids placed)."""
    by_name = _by_name(eng)
    placed: set = set()
    layout = {}
    # A copy named by its number (`Gold Mine#2`) goes where it is named; the other names take
    # the first copies left, in the card data's order, as the zones are listed.
    named: dict = {}
    for label, names in zones.items():
        if not isinstance(names, list):
            raise _bad(path, zones, label, "list the cards of a zone: `[Name, Name]`, top first")
        for nm in names:
            _, copy = _named(eng, path, zones, label, nm)
            if copy is not None:
                if copy.id in named:
                    raise _bad(path, zones, label, f"`{nm}` is placed twice (also in `{named[copy.id]}`)")
                named[copy.id] = label
    for label, names in zones.items():
        zkey = _zone_key(eng, path, zones, label)
        ids = []
        for nm in names:
            nm, copy = _named(eng, path, zones, label, nm)
            if copy is not None:
                placed.add(copy.id)
                ids.append(copy.id)
                continue
            pool = [c for c in by_name.get(nm, []) if c.id not in placed and c.id not in named]
            if not pool:
                if nm in by_name:
                    raise _bad(path, zones, label, f"no copy of `{nm}` is left to place here")
                raise _bad(path, zones, label, f"no card is named `{nm}`", hint=did_you_mean(nm, by_name))
            placed.add(pool[0].id)
            ids.append(pool[0].id)
        layout[zkey] = list(reversed(ids))  # stored bottom first
    return layout, placed


def setup_position(game: Game, path: str, setup: MarkedDict) -> int:
    """Put the cards and variables where the scenario says; returns the seat to start."""
    eng = game.engine
    st = eng.state
    by_name = _by_name(eng)
    zones = setup.get("zones") or {}
    for key in st.zones:
        st.zones[key] = []
    layout, placed = _lay_out(eng, path, zones)
    rest_label = setup.get("rest")
    if rest_label is not None:
        rest_key = _zone_key(eng, path, setup, rest_label)
    else:
        deck = eng.rs.zone_with_role("deck")
        rest_key = deck.name if deck else next(iter(st.zones), None)
    rest = [c.id for c in eng.cards if c.id not in placed]
    for key, ids in layout.items():
        st.zones[key] = ids
    if rest_key is not None:
        st.zones[rest_key] = list(reversed(rest)) + st.zones.get(rest_key, [])
    for key, ids in st.zones.items():
        for i in ids:
            st.where[i] = key
    for label, values in (setup.get("players") or {}).items():
        seat = _seat(path, setup.get("players"), label, label, eng.n)
        for k, v in (values or {}).items():
            if k not in eng.player_var_names:
                raise _bad(path, values, k, f"no player variable `{k}`", hint=did_you_mean(str(k), eng.player_var_names))
            st.player_vars[seat][k] = _value(eng, v, path, values, k)
    for name, values in (setup.get("cards") or {}).items():
        nm, copy = _named(eng, path, setup.get("cards"), name, name)
        cards = [copy] if copy is not None else by_name.get(nm)
        if not cards:
            raise _bad(path, setup.get("cards"), name, f"no card is named `{name}`", hint=did_you_mean(str(name), by_name))
        for k, v in (values or {}).items():
            if k not in eng.card_var_names:
                raise _bad(path, values, k, f"no card variable `{k}`", hint=did_you_mean(str(k), eng.card_var_names))
            for c in cards:
                store = st.card_store(c.id)
                old = store[k]
                store[k] = new = _value(eng, v, path, values, k)
                st.count_var(k, old, new)
    for k, v in (setup.get("globals") or {}).items():
        if k not in st.globals:
            raise _bad(path, setup.get("globals"), k, f"no global variable `{k}`", hint=did_you_mean(str(k), st.globals))
        st.globals[k] = _value(eng, v, path, setup.get("globals"), k)
    st.round_no = int(setup.get("round") or 1)
    first = _seat(path, setup, "turn", setup.get("turn") or "P1", eng.n)
    for label in setup.get("out_of_round") or []:
        # knocked out of this round (`knock out`): no turns, not in `players`, back when it is over
        seat = _seat(path, setup, "out_of_round", label, eng.n)
        if seat == first and setup.get("from", "turn start") == "turn start":
            raise _bad(path, setup, "out_of_round", f"P{seat + 1} has the turn (`turn: P{seat + 1}`): a player "
                       "out of the round takes no turn in it", hint="give the turn to a player in the round")
        if seat not in st.out:
            st.out.append(seat)
            st.out_of_round.append(seat)
    if st.out and len(st.out) >= eng.n:
        raise _bad(path, setup, "out_of_round", "every player is out of the round: leave one in it")
    eng.forget_all()   # (cards and their variables were put in place: nothing cached holds)
    return first


def _project_of(path: str) -> str:
    """The project a scenario file belongs to: the nearest folder above it that holds a
    ruleset (a `.cgl` file), a `.git` or a `pyproject.toml` (so `my-game/scenarios/x.yaml`
    may name `../my-game.cgl`); its own folder when none does."""
    here = start = os.path.dirname(os.path.realpath(path))
    for _ in range(32):
        try:
            names = os.listdir(here)
        except OSError:
            break
        if any(n.endswith(".cgl") or n in (".git", "pyproject.toml") for n in names):
            return here
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    return start


def ruleset_path_unsaved(path: str, item: MarkedDict) -> str:
    """`ruleset_path` for a ruleset an editor holds but has not saved yet: the same sandbox,
    without the file on disk."""
    ref = str(item["ruleset"])
    candidate = os.path.join(os.path.dirname(path), ref)
    roots = project_roots(path) + (os.path.realpath(os.getcwd()), _project_of(path))
    if not inside(candidate, roots):
        raise CglError(Diagnostic("E002", f"the ruleset `{ref}` lies outside the scenario's project, the working "
                                  "folder or the shipped rulesets", item.span(path, "ruleset", value=True),
                                  hint="README, \"Security and limits\": a scenario names a ruleset of its project"))
    return candidate


def ruleset_path(path: str, item: MarkedDict) -> str:
    """The ruleset a scenario names with `ruleset:`: a `.cgl` file (relative to the scenario's
    folder) inside the scenario's project (`_project_of`), the working folder's tree or the shipped
    rulesets, or a shipped ruleset's name (`mgt`). Anything else is an E002 at `ruleset:`,
    which never reads (nor quotes) the file it names."""
    if item.get("ruleset") is None:
        raise _bad(path, item, "scenario", "a scenario names its ruleset: `ruleset: mgt` or `ruleset: my-game.cgl`")
    ref = str(item["ruleset"])
    span = item.span(path, "ruleset", value=True)
    candidate = os.path.join(os.path.dirname(path), ref)
    shipped = packaged_rulesets()
    if not os.path.lexists(candidate) and ref.removesuffix(".cgl") in shipped and "/" not in ref:
        return shipped[ref.removesuffix(".cgl")]
    roots = project_roots(path) + (os.path.realpath(os.getcwd()), _project_of(path))
    where = "the scenario's project, the working folder or the shipped rulesets"
    if not inside(candidate, roots):
        raise CglError(Diagnostic("E002", f"the ruleset `{ref}` lies outside {where}", span,
                                  hint="README, \"Security and limits\": a scenario names a ruleset of its project"))
    if not os.path.lexists(candidate):
        hint = did_you_mean(ref, shipped) or did_you_mean(os.path.basename(ref), os.listdir(os.path.dirname(candidate) or ".")
                                                            if os.path.isdir(os.path.dirname(candidate) or ".") else [])
        raise CglError(Diagnostic("E002", f"the ruleset `{ref}` is neither a file (looked in "
                                  f"{os.path.dirname(path) or '.'}) nor a shipped ruleset", span,
                                  hint=hint or "shipped rulesets: " + ", ".join(sorted(shipped))))
    return indirect_ruleset(candidate, "ruleset", span)


def _shuffles(engine, path, steps) -> list:
    """A scenario's `shuffles:`, each `- ZONE: [cards on top, top first]`, as the state keeps
    them: (zone key, label, names). An unknown zone or card is an E013 at its line."""
    names = {c.name for c in engine.cards}
    out = []
    for step in steps:
        (label, cards), = step.items()
        key = _zone_key(engine, path, step, label)
        for n, name in enumerate(cards):
            if str(name) not in names:
                raise CglError(Diagnostic("E013", f"no card is named `{name}`", cards.span(path, n)
                                          if isinstance(cards, MarkedList) else step.span(path, label),
                                          hint=did_you_mean(str(name), names)))
        out.append((key, str(label), [str(x) for x in cards]))
    return out


def _answer_for(d: Decision, want, path) -> Any:
    """Turn a scripted answer (a label, a list of labels, yes/no, a number) into an engine answer."""
    if d.kind == "may":
        if isinstance(want, bool):
            return want
        if str(want).lower() in ("yes", "y", "true"):
            return True
        if str(want).lower() in ("no", "n", "false"):
            return False
        raise AnswerError(f"`{want}` is not yes or no (asked: {d.prompt})")
    if want is None or str(want).lower() in ("decline", "none", "no"):
        return None
    wants = want if isinstance(want, list) else [want]
    picked = []
    for w in wants:
        if hasattr(w, "props"):
            w = w.name
        if isinstance(w, int) and not isinstance(w, bool):
            picked.append(w - 1)
            continue
        matches = [i for i, (lab, opt) in enumerate(zip(d.labels, d.options))
                   if (lab == str(w) or getattr(opt, "name", None) == str(w)) and i not in picked]
        if not matches:
            raise AnswerError(f"`{w}` is not an option of \"{d.prompt}\"; options: " + ", ".join(d.labels))
        picked.append(matches[0])
    if d.hi == 1 and not isinstance(want, list):
        return picked[0]
    return sorted(picked)


def run(path: str, item: MarkedDict, check_invariants: bool = True,
        loader: Optional[Callable] = None, max_steps: Optional[int] = DEFAULT_MAX_STEPS) -> Outcome:
    """Play one scenario of the file `path`. `loader` loads its ruleset (`load`, or a cached load)."""
    name = str(item.get("scenario"))
    options = {str(k): (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (item.get("options") or {}).items()}
    try:
        rs = (loader or load)(ruleset_path(path, item), options)
    except CglError as e:   # a bad option: at its key in the scenario
        d = e.diagnostics[0]
        given = item.get("options")
        at = next((k for k in (given or {}) if d.code == "E007" and d.span is None and f"`{k}`" in d.message), None)
        if at is None:
            raise
        raise CglError(Diagnostic(d.code, d.message, given.span(path, at), hint=d.hint)) from None
    game = Game(rs, item.get("players"), int(item.get("seed") or 0), check_invariants, max_steps=max_steps)
    eng = game.engine
    eng.state.forced_dice = list(item.get("dice") or [])
    eng.state.forced_random = [str(x) for x in (item.get("random") or [])]
    transcript: list = []
    eng.listeners.append(lambda e: transcript.append(e["text"]))
    failures: list = []
    setup = item.get("setup") or MarkedDict()
    begin, turns, to_end = _plan(path, item)
    start = setup_position(game, path, setup)
    eng.state.forced_shuffles = _shuffles(eng, path, item.get("shuffles") or [])
    if begin != "turn":
        # the round (or the game) is about to start: `play_round` counts it
        eng.state.round_no = (setup.get("round") or 1) - 1 if begin == "round" else 0
    script = list(item.get("script") or [])
    try:
        d = game.start(start_turn=start if begin == "turn" else None, max_turns=turns,
                       start_round=begin == "round", to_end=to_end)
        while d is not None:
            if not script:
                failures.append(f"the game asks P{d.player + 1} \"{d.prompt}\" ({', '.join(d.labels[:8])}) "
                                "but the script has no answer left")
                break
            step = script.pop(0)
            if not isinstance(step, dict) or len(step) != 1:
                raise _bad(path, item, "script", "each script step is `- P1: answer`")
            (who, want), = step.items()
            seat = _seat(path, item, "script", who, eng.n)
            if seat != d.player:
                failures.append(f"the script expects {who} to answer `{want}`, but P{d.player + 1} is asked: "
                                f"\"{d.prompt}\"")
                break
            try:
                d = game.answer(_answer_for(d, want, path))
            except AnswerError as e:
                failures.append(f"script step `{who}: {want}`: {e}")
                break
    except CglError as e:
        failures.append("game error: " + "; ".join(f"{x.code} {x.message}" + (f" at {x.span}" if x.span else "")
                                                    for x in e.diagnostics))
    if script and not failures:
        failures.append(f"{len(script)} scripted answer(s) were never asked for: {script[0]}")
    if eng.state.forced_dice and not failures:
        failures.append(f"scripted dice never rolled: {eng.state.forced_dice}")
    if eng.state.forced_random and not failures:
        failures.append(f"scripted random picks never made: {eng.state.forced_random}")
    if eng.state.forced_shuffles and not failures:
        failures.append("scripted shuffles never made: " + ", ".join(label for _, label, _ in eng.state.forced_shuffles))
    failures += check_expectations(game, path, item.get("expect") or {}, transcript)
    return Outcome(name, path, not failures, failures, transcript)


def stat_keys(rs) -> dict:
    """What a game counts (`Result.stats`, a scenario's `expect: stats:`): kind -> the names
    it counts ("" for a count with no name: `rounds`, `turns`)."""
    triggers = {t.name for t in rs.triggers}
    return {"": {"rounds", "turns"}, "trigger": triggers, "instead": triggers,
            "reaction": {r.name for r in rs.reactions}, "rule": {r.name for r in rs.rules},
            "check": {c.name for c in rs.checks}, "event": set(rs.emits), "action": {a.name for a in rs.actions},
            **{prefix.rstrip(":"): {c.name for c in rs.cards} for kind, prefix in CARD_STATS.items() if kind != "flow"},
            # (a move between two zones of one name is counted too: hand(P1) to hand(P2), side to side)
            CARD_STATS["flow"].rstrip(":"): {f"{a}>{b}" for a in rs.zones for b in rs.zones
                                             if a != b or rs.zones[a].per_player or rs.zones[a].per_card}}


def _check_stat_key(rs, path, data, key) -> None:
    """A stat a scenario expects must be one the game can count (else it asserts nothing)."""
    key = str(key)
    kinds = stat_keys(rs)
    kind, _, name = key.partition(":") if ":" in key else ("", "", key)
    if kind in kinds and name in kinds[kind]:
        return
    known = [f"{k}:{n}" if k else n for k, names in kinds.items() for n in names]
    raise _bad(path, data, key, f"`{key}` is nothing the game counts, so expecting it proves nothing",
               hint=did_you_mean(key, known) or "a stat is `trigger:NAME`, `reaction:NAME`, `rule:NAME`, "
               "`check:NAME`, `event:NAME`, `action:NAME`, `card drawn:CARD` (dealt, discarded, moved), "
               "`cards moved:ZONE>ZONE`, `rounds` or `turns`")


def _out_of_round_failures(eng, path: str, expect: dict) -> list:
    """`expect: {out_of_round: [P2]}`: who is out of the round now (knocked out)."""
    if "out_of_round" not in expect:
        return []
    want = sorted(_seat(path, expect, "out_of_round", w, eng.n) for w in (expect["out_of_round"] or []))
    have = sorted(eng.state.out_of_round)
    if want == have:
        return []
    return [f"out of the round: expected {[f'P{w + 1}' for w in want] or 'nobody'}, "
            f"found {[f'P{h + 1}' for h in have] or 'nobody'}"]


def _zone_failures(eng, path: str, zones: dict) -> list:
    """What differs from a scenario's `expect.zones`."""
    st = eng.state
    names = [c.name for c in eng.cards]
    out = []

    def fits(cid, w, label):   # a card and an expected name: `Gold Mine` (any copy) or `Gold Mine#2` (that one)
        nm, copy = _named(eng, path, zones, label, w)
        return eng.cards[cid] is copy if copy is not None else names[cid] == nm
    for label, want in zones.items():
        key = _zone_key(eng, path, zones, label)
        ids = list(reversed(st.zones.get(key, [])))   # (a card's zone is made on first use)
        have = [names[i] for i in ids]
        if isinstance(want, list):
            if len(ids) != len(want) or not all(fits(i, w, label) for i, w in zip(ids, want)):
                out.append(f"zone {label}: expected {want}, found {have}")
        elif isinstance(want, dict):
            for w in want.get("contains", []) or []:
                if not any(fits(i, w, label) for i in ids):
                    out.append(f"zone {label}: expected to contain {w}, found {have}")
            for w in want.get("excludes", []) or []:
                if any(fits(i, w, label) for i in ids):
                    out.append(f"zone {label}: expected not to contain {w}")
            if "count" in want and len(have) != want["count"]:
                out.append(f"zone {label}: expected {want['count']} cards, found {len(have)}")
            if "top" in want and (not ids or not fits(ids[0], want["top"], label)):
                out.append(f"zone {label}: expected {want['top']} on top, found {have[:1]}")
    return out


def _shown(eng, v):
    """A value as a failure shows it: a card by the name a scenario gives it (`Gold Mine#2`)."""
    if hasattr(v, "props"):
        return copy_name(eng, v)
    if isinstance(v, list):
        return [_shown(eng, x) for x in v]
    return plain(v)


def check_expectations(game: Game, path: str, expect: dict, transcript: list) -> list:
    eng = game.engine
    st = eng.state
    names = [c.name for c in eng.cards]
    out = _zone_failures(eng, path, expect.get("zones") or {})
    for label, values in (expect.get("players") or {}).items():
        seat = _seat(path, expect.get("players"), label, label, eng.n)
        for k, v in (values or {}).items():
            if k not in eng.player_var_names:
                raise _bad(path, values, k, f"no player variable `{k}`", hint=did_you_mean(str(k), eng.player_var_names))
            have = st.player_vars[seat].get(k, "<no such variable>")
            if not _agrees(have, _want(eng, path, v, values, k)):
                out.append(f"{label}.{k}: expected {v}, found {_shown(eng, have)}")
    for name, values in (expect.get("cards") or {}).items():
        nm, copy = _named(eng, path, expect.get("cards"), name, name)
        cards = [copy] if copy is not None else [c for c in eng.cards if c.name == nm]
        if not cards:
            raise _bad(path, expect.get("cards"), name, f"no card is named `{name}`", hint=did_you_mean(str(name), names))
        for k, v in (values or {}).items():
            if k not in eng.card_var_names:
                raise _bad(path, values, k, f"no card variable `{k}`", hint=did_you_mean(str(k), eng.card_var_names))
            have = st.card_vars[cards[0].id].get(k) if cards else None
            if not _agrees(have, _want(eng, path, v, values, k)):
                out.append(f"{name}.{k}: expected {v}, found {_shown(eng, have)}")
    for k, v in (expect.get("globals") or {}).items():
        if k not in st.globals:
            raise _bad(path, expect.get("globals"), k, f"no global variable `{k}`", hint=did_you_mean(str(k), st.globals))
        have = st.globals.get(k)
        if not _agrees(have, _want(eng, path, v, expect.get("globals"), k)):
            out.append(f"{k}: expected {v}, found {_shown(eng, have)}")
    for line in expect.get("log") or []:
        if not any(str(line) in t for t in transcript):
            out.append(f"log: expected a line containing \"{line}\"")
    for line in expect.get("not_log") or []:
        if any(str(line) in t for t in transcript):
            out.append(f"log: expected no line containing \"{line}\"")
    if "winners" in expect:
        want = sorted(str(w) for w in (expect["winners"] or []))
        have = sorted(f"P{w + 1}" for w in (st.winners or []))
        if want != have:
            out.append(f"winners: expected {want or 'none'}, found {have or 'none'}"
                       + ("" if st.finished else " (the game has not ended)"))
    if expect.get("over") is not None and expect["over"] != st.finished:
        out.append("the game: expected it to " + ("have ended" if expect["over"] else "go on")
                   + (f", but it ended ({st.end_reason})" if st.finished else ", but it has not ended"))
    if expect.get("reason") is not None:
        if not st.finished:
            out.append(f"end reason: expected \"{expect['reason']}\", but the game has not ended")
        elif str(expect["reason"]) != st.end_reason:
            out.append(f"end reason: expected \"{expect['reason']}\", found \"{st.end_reason}\"")
    if expect.get("round") is not None and expect["round"] != st.round_no:
        out.append(f"round: expected {expect['round']}, found {st.round_no}")
    if "next" in expect:
        # the turn limit stopped the play before a turn began (after `turns: 0`, before the
        # first one): that turn's player; else whose turn follows the current player's
        nxt = st.stopped_before if st.stopped_before is not None else eng.following_seat(st.current)
        if f"P{nxt + 1}" != str(expect["next"]):
            out.append(f"next player: expected {expect['next']}, found P{nxt + 1}")
    out += _out_of_round_failures(eng, path, expect)
    for k, v in (expect.get("stats") or {}).items():
        _check_stat_key(eng.rs, path, expect["stats"], k)
        if st.stats.get(k, 0) != v:
            out.append(f"stat {k}: expected {v}, found {st.stats.get(k, 0)}")
    return out


_SCENARIO_KEY = re.compile(r"^scenarios?\s*:", re.M)


def is_scenario_file(path: str) -> bool:
    """Whether a YAML file in a folder is a scenario file: a mapping with a top-level
    `scenario:` or `scenarios:` key (card data and deck lists have neither). A file that
    cannot be read counts as one, so that reading it says why."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 20).decode("utf-8", errors="replace")
    except OSError:
        return True
    return bool(_SCENARIO_KEY.search(head))


def collect(paths, skipped: Optional[list] = None) -> list:
    """Scenario files under the given files and folders, sorted. In a folder, YAML files
    that are not scenario files (card data, deck lists: `is_scenario_file`) are left out,
    and listed in `skipped` if given; a file named on its own is always read."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in names:
                    if n.endswith((".yaml", ".yml")):
                        f = found_in(p, os.path.join(root, n))
                        if is_scenario_file(f):
                            files.append(f)
                        elif skipped is not None:
                            skipped.append(f)
        elif os.path.lexists(p):   # a special file is refused, with its reason, when it is read
            files.append(p)
        else:
            raise CglError(Diagnostic("E002", f"no such file or folder: `{p}`"))
    return sorted(files)


@functools.lru_cache(maxsize=64)
def _load_once(path: str, options: tuple):
    return load(path, dict(options))


def load_cached(path: str, options: dict):
    """`load`, once per ruleset file and options in this process: a game never changes its
    Ruleset, and loading costs several times what a scenario's game does. For one run of
    `cgl test` (the files do not change while it runs)."""
    return _load_once(path, tuple(sorted(options.items())))


def run_file(path: str, pattern: Optional[str] = None, check_invariants: bool = True,
             max_steps: Optional[int] = DEFAULT_MAX_STEPS) -> list[dict]:
    """Run the scenarios of one file (those whose name contains `pattern`) and say how each went,
    in plain values (a worker process of `cgl test -j N` sends them back): a list of
    {"name", "path", "passed", "report", "transcript", "diagnostics"}; "diagnostics" is the
    rendered error when the file or a scenario could not be run (then "passed" is False)."""
    def broken(name, e):
        return {"name": name, "path": path, "passed": False, "report": None, "transcript": [],
                "diagnostics": render_all(e.diagnostics)}
    try:
        items = read(path)
    except CglError as e:
        return [broken(None, e)]
    out = []
    for item in items:
        name = str(item.get("scenario"))
        if pattern and pattern not in name:
            continue
        try:
            o = run(path, item, check_invariants, loader=load_cached, max_steps=max_steps)
        except CglError as e:
            out.append(broken(name, e))
            continue
        out.append({"name": name, "path": path, "passed": o.passed, "report": o.report(),
                    "transcript": list(o.transcript), "diagnostics": None})
    return out


def _shares(files: list, jobs: int) -> list:
    """Split the files (indices) among `jobs` processes. Files of one folder mostly play one
    ruleset, and loading it costs more than its scenarios: a folder stays in one process
    (cut in pieces only when it is more than a process's share), biggest first, each to the
    process with the fewest files so far."""
    folders: dict = {}
    for i, f in enumerate(files):
        folders.setdefault(os.path.dirname(f), []).append(i)
    share = -(-len(files) // jobs)
    pieces = []
    for idx in folders.values():
        n = -(-len(idx) // share)
        size = -(-len(idx) // n)
        pieces += [idx[k:k + size] for k in range(0, len(idx), size)]
    pieces.sort(key=lambda p: (-len(p), p[0]))
    out: list = [[] for _ in range(jobs)]
    for piece in pieces:
        min(out, key=len).extend(piece)
    return [sorted(o) for o in out if o]


def _worker(files, indices, pattern, queue, max_steps):
    try:
        for i in indices:
            queue.put((i, run_file(files[i], pattern, max_steps=max_steps)))
    except BaseException as e:   # an internal error: the parent says so (no results are lost silently)
        queue.put((None, f"{e.__class__.__name__}: {e}"))


def run_many(files: list, pattern: Optional[str] = None, jobs: int = 1, max_steps: Optional[int] = DEFAULT_MAX_STEPS):
    """Run the scenario files, `jobs` processes at once (1: in this process), yielding
    (index of the file, run_file's results) as each file is done: in file order with one
    job, in the order they finish with more."""
    jobs = max(1, min(jobs, len(files)))
    if jobs == 1:
        for i, f in enumerate(files):
            yield i, run_file(f, pattern, max_steps=max_steps)
        return
    import multiprocessing
    import queue as queues
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(files, share, pattern, q, max_steps), daemon=True)
             for share in _shares(files, jobs)]
    for p in procs:
        p.start()
    try:
        left = len(files)
        while left:
            try:
                i, results = q.get(timeout=1.0)
            except queues.Empty:
                if not any(p.is_alive() for p in procs) and q.empty():
                    raise RuntimeError("a worker process of `cgl test` stopped without its results")
                continue
            if i is None:
                raise RuntimeError(f"in a worker process of `cgl test`: {results}")
            left -= 1
            yield i, results
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()


def run_paths(paths, check_invariants=True) -> list:
    out = []
    for f in collect(paths):
        for item in read(f):
            try:
                out.append(run(f, item, check_invariants))
            except CglError as e:
                out.append(Outcome(str(item.get("scenario")), f, False,
                                   [f"{d.code} {d.message}" + (f" at {d.span}" if d.span else "") for d in e.diagnostics],
                                   []))
    return out
