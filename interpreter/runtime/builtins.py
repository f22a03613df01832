"""The registry of built-ins: every built-in function, value and attribute of CGL, each
written once with every fact about it.

One entry says what the name means (its one-line doc), how it is checked (arity, the
static type of its result, whether its value depends on the game being played), how the
tree walker runs it (`run`) and how the code generator writes it (`emit`). The name
checker (`names.py`), the type checker (`types.py`), lint, both engines and the tables
of `docs/language.md` (checked by `tests/test_builtins.py`) all read this module; none
of them lists a built-in of its own.

Static types are those of `types.py`: "int", "bool", "str", "str?", "card", "player",
"zone", "cards", "players", "strs", "list", … or None (unknown: anything may come).
"""
from __future__ import annotations

from typing import Callable, Optional

import attrs

from ..base.diagnostics import did_you_mean
from .state import Player, ZoneRef
from .values import _eq, _kind, _num, _show


@attrs.frozen
class Function:
    """A built-in function: `count(hand(player))`."""

    name: str
    lo: int                          # fewest arguments
    hi: int                          # most arguments
    signature: str                   # as the docs write it
    doc: str
    run: Callable                    # run(engine, call node, [argument values]) -> value
    result: Optional[str] = None     # static type of the result (None: unknown)
    reads_game: bool = False         # its value depends on where cards lie, who plays… (never cached per ruleset)
    # The generator's shortcut when the (single) argument is statically a list: a Python
    # expression with `{0}` for the argument's source (`{node}` for the call's node); None:
    # the generic call of `run`.
    on_list: Optional[str] = None
    # What each argument must be, for the type checker: "player", "card", "int", "list"
    # (a list or a zone), "countable" (a list, a zone or a text), "any".
    args: tuple = ()
    # The result is a list of texts when the argument is one (`unique` of texts).
    keeps_texts: bool = False
    # Of one card, it reads only where that card lies (its zone, its owner): a derive that
    # calls it on `it` is remembered until the card moves (resolver._lifetimes).
    reads_place: bool = False
    # The generator's shortcut when the (single) argument is statically a card: a Python
    # expression with `{0}` for the argument's source (`{where}` for the state's card id ->
    # zone key list); None: the generic call of `run`.
    on_card: Optional[str] = None
    # The generator's direct call of a function of one player, whatever the argument's static
    # type (`{0}` the argument's source, `{node}` the call's node): the function `run` unpacks
    # its argument list into, which checks its argument is a player as `run` would.
    on_player: Optional[str] = None
    # How the generator may write a call whose argument is a loop it writes as statements (a
    # comprehension, a `where`): "count" (the loop only counts; `on_count` gives the result,
    # with `{0}` for the count, None: the count itself) or "items" (the loop collects them;
    # `on_list` gives it).
    loop: Optional[str] = None
    on_count: Optional[str] = None
    # It draws from the game's random source: two calls with the same arguments may differ.
    draws: bool = False


@attrs.frozen
class Value:
    """A built-in value: `current`, `round_no`."""

    name: str
    doc: str
    run: Callable                    # run(engine) -> value
    emit: str                        # the generator's Python expression (`eng` is the engine)
    result: Optional[str] = None
    reads_game: bool = True
    # Each read makes a new list (`players`, `all_cards`): the generator may make it once for
    # a whole expression that reads it in a loop (`Held.value_kept`).
    fresh_list: bool = False


# ---------------------------------------------------------------- functions' run-time meaning

def _count(eng, e, a):
    v = a[0]
    if isinstance(v, ZoneRef):
        return len(eng.state.zones.get(v.key, ()))
    if isinstance(v, (list, tuple, dict, str)):
        return len(v)
    raise eng.fail(e, f"`count` needs a list or a zone, got {_kind(v)}")


def _sum(eng, e, a):
    return sum(_num(x, e, eng) for x in eng.as_list(a[0], e))


def sum_list(eng, items, e):
    """`sum(items)` of a list, as `_sum` (the generator writes this call: no argument list,
    no look-ups on the way; anything but whole numbers goes to `_sum`, which says what is wrong)."""
    if items.__class__ is list:
        total = 0
        for x in items:
            if x.__class__ is not int:
                break
            total += x
        else:
            return total
    return _sum(eng, e, [items])


def _flatten(eng, e, a):
    out = []
    for x in eng.as_list(a[0], e):
        if not isinstance(x, (list, ZoneRef)):
            raise eng.fail(e, f"`flatten` joins a list of lists or zones, and one item is {_kind(x)}",
                           hint="write `flatten([hand(p) for p in players])`")
        out += eng.as_list(x, e)
    return out


def _extreme(eng, e, a, pick):
    items = eng.as_list(a[0], e)
    if not items:
        return None
    try:
        return pick(items)
    except TypeError:   # values that cannot be put in order, as `<` says of them
        raise eng.fail(e, f"`{e.name}` cannot order these values: "
                          f"{', '.join(sorted({_kind(x) for x in items}))}") from None


def _max(eng, e, a):
    return _extreme(eng, e, a, max)


def _min(eng, e, a):
    return _extreme(eng, e, a, min)


def _extreme_of_list(pick):
    """`max_list`/`min_list`: `pick(items)` of a list, as `_max`/`_min` (the generator writes
    this call; an empty list, and values that cannot be put in order, go to `_extreme`)."""
    def of_list(eng, items, e):
        if items.__class__ is list and items:
            try:
                return pick(items)
            except TypeError:
                pass
        return _extreme(eng, e, [items], pick)
    return of_list


max_list = _extreme_of_list(max)
min_list = _extreme_of_list(min)


def _first(eng, e, a):
    items = eng.as_list(a[0], e) if a[0] is not None else []
    return items[0] if items else None


def _last(eng, e, a):
    items = eng.as_list(a[0], e)
    return items[-1] if items else None


def _top(eng, e, a):
    n = _num(a[1], e, eng) if len(a) > 1 else 1
    if a[0].__class__ is ZoneRef and n >= 0:   # the top n ids only, not the whole zone's cards
        ids = eng.state.zones.get(a[0].key, ())
        return [eng.cards[i] for i in reversed(ids[max(len(ids) - n, 0):])]
    return eng.cards_of(a[0], e)[:n]


def _bottom(eng, e, a):
    n = _num(a[1], e, eng) if len(a) > 1 else 1
    cards = eng.cards_of(a[0], e)
    return cards[::-1][:n]


def _random(eng, e, a):
    return eng.pick(eng.as_list(a[0], e))


def _lookup(eng, e, a):
    table = a[0]
    if not isinstance(table, dict):
        raise eng.fail(e, f"`lookup` needs a data table, got {_kind(table)}")
    if a[1] in table:
        return table[a[1]]
    if len(a) > 2:
        return a[2]
    raise eng.fail(e, f"the table has no entry `{_show(a[1])}`",
                   hint=did_you_mean(str(a[1]), [str(k) for k in table]))


def _others(eng, e, a):
    return others_of(eng, a[0], e)


def others_of(eng, p, e):
    """`others(p)` (`_others` with its argument unpacked: the generator writes this call)."""
    if p.__class__ is not Player:
        p = eng.as_player(p, e)
    if not eng.state.out:
        return list(eng._others[p.seat])
    return [eng.players[s] for s in eng.seat_order(p.seat, 1) if s != p.seat]


def _others_after(eng, e, a):
    return others_after_of(eng, a[0], e)


def others_after_of(eng, p, e):
    """`others_after(p)` (`_others_after` with its argument unpacked: the generator writes this call)."""
    if p.__class__ is not Player:
        p = eng.as_player(p, e)
    st = eng.state
    if not st.out and st.direction == 1:
        return list(eng._others[p.seat])
    return [eng.players[s] for s in eng.seat_order(p.seat) if s != p.seat]


def _next_after(eng, e, a):
    return eng.players[eng.next_seat(eng.as_player(a[0], e).seat)]


def _prev_after(eng, e, a):
    return eng.players[eng.next_seat(eng.as_player(a[0], e).seat, -eng.state.direction)]


def _seat(eng, e, a):
    return eng.players[(_num(a[0], e, eng) - 1) % eng.n]


def _unique(eng, e, a):
    out = []
    for x in eng.as_list(a[0], e):
        if not any(_eq(x, y) for y in out):
            out.append(x)
    return out


def _owner(eng, e, a):
    return eng.attr_of(a[0], "owner")[1]


def owner_of(eng, c):
    """A card's `owner` (see `Engine._card_attr`), read the short way: a zone's owner never
    changes, so it is remembered per zone (`Engine._key_owners`); a zone under a card is
    asked each time, as its host may move. (found, value), as `attr_of` returns."""
    key = eng.state.where[c.id]
    try:
        return True, eng._key_owners[key]
    except KeyError:
        found = eng._card_attr(c, "owner")
    if key is not None:
        ref = eng.zone_ref(key)
        if ref.card is None or ref.owner is not None:   # (a zone per card per player is its player's)
            eng._key_owners[key] = found[1]
    return found


def zone_name_of(eng, c):
    """A card's `zone` (see `Engine._card_attr`): the name of the zone it lies in, for a
    ruleset whose cards have no data property `zone`. (found, value), as `attr_of` returns."""
    return True, eng.zone_ref(eng.state.where[c.id]).name


def _zone_of(eng, e, a):
    return eng.zone_of_card(a[0]).name


def _host(eng, e, a):
    c = a[0]
    if c is None:
        return None
    if not hasattr(c, "props"):
        raise eng.fail(e.args[0], f"`host` takes a card, got {_kind(c)}")
    key = eng.state.where[c.id]
    ref = None if key is None else eng.zone_ref(key)
    return None if ref is None or ref.card is None else eng.cards[ref.card]


def _deck_of(eng, e, a):
    p = eng.as_player(a[0], e)
    if p.seat not in eng.decks:
        raise eng.fail(e, "no deck lists in this game: the ruleset has no `deck { … }` block")
    return eng.decks[p.seat].as_value()


def _text(eng, e, a):
    if eng.hint_seat is not None:   # inside a hint: a card it may not see (walker/hints.py)
        eng.hint_sees(a[0])
    return _show(a[0])


def _fn(name, lo, hi, signature, doc, run, result=None, reads_game=False, on_list=None, args=("any",),
        keeps_texts=False, reads_place=False, on_card=None, loop=None, on_count=None, draws=False, on_player=None):
    return Function(name, lo, hi, signature, doc, run, result, reads_game, on_list, args, keeps_texts, reads_place,
                    on_card, on_player, loop, on_count, draws)


FUNCTIONS: dict[str, Function] = {f.name: f for f in (
    _fn("count", 1, 1, "count(X)", "how many elements: cards of a zone, items of a list, characters of a text",
        _count, "int", on_list="len({0})", args=("countable",), loop="count"),
    _fn("sum", 1, 1, "sum(LIST)", "the sum of numbers", _sum, "int", args=("list",),
        on_list="_sum_list(eng, {0}, {node})", loop="items"),
    _fn("flatten", 1, 1, "flatten(LIST)",
        "one list of the items of a list of lists or zones, in order: `flatten([squad(s, p) for s in sites])`, "
        "every card of p's sides", _flatten, reads_game=True, args=("list",)),
    _fn("max", 1, 1, "max(LIST)", "the largest (`none` if empty)", _max, args=("list",),
        on_list="_max_list(eng, {0}, {node})", loop="items"),
    _fn("min", 1, 1, "min(LIST)", "the smallest (`none` if empty)", _min, args=("list",),
        on_list="_min_list(eng, {0}, {node})", loop="items"),
    _fn("first", 1, 1, "first(X)", "the first element (`none` if empty); for a zone its top card", _first,
        on_list="_first({0})", args=("list",), loop="items"),
    _fn("last", 1, 1, "last(X)", "the last element (`none` if empty); for a zone its bottom card", _last,
        on_list="_last({0})", args=("list",), loop="items"),
    _fn("top", 1, 2, "top(ZONE, n)", "the n top cards (topmost first); n defaults to 1; a list", _top, "cards",
        args=("any", "int")),
    _fn("bottom", 1, 2, "bottom(ZONE, n)", "the n bottom cards; n defaults to 1; a list", _bottom, "cards",
        args=("any", "int")),
    _fn("random", 1, 1, "random(LIST)", "a random element, from the game's seeded random source", _random,
        reads_game=True, args=("list",), draws=True),
    _fn("lookup", 2, 3, "lookup(TABLE, key[, default])",
        "a value from a data table of the card file (error if missing and no default)", _lookup),
    _fn("others", 1, 1, "others(P)", "every other player still in play, in seat order after P", _others,
        "players", reads_game=True, args=("player",), on_player="_builtins.others_of(eng, {0}, {node})"),
    _fn("others_after", 1, 1, "others_after(P)",
        "every other player still in play, in the order of play after P (it follows `direction`): "
        "the priority order for reactions", _others_after, "players", reads_game=True, args=("player",),
        on_player="_builtins.others_after_of(eng, {0}, {node})"),
    _fn("next_after", 1, 1, "next_after(P)",
        "the player after P in the order of play (it follows `direction`), still in play", _next_after,
        "player", reads_game=True, args=("player",)),
    _fn("prev_after", 1, 1, "prev_after(P)",
        "the player before P in the order of play (it follows `direction`), still in play", _prev_after,
        "player", reads_game=True, args=("player",)),
    _fn("seat", 1, 1, "seat(n)", "the player in seat n (1-based, wraps around)", _seat, "player",
        reads_game=True, args=("int",)),
    _fn("abs", 1, 1, "abs(n)", "absolute value", lambda eng, e, a: abs(_num(a[0], e, eng)), "int",
        args=("int",)),
    _fn("unique", 1, 1, "unique(LIST)", "the list without repeats, in first-seen order", _unique, "list", args=("list",),
        keeps_texts=True),
    _fn("owner", 1, 1, "owner(CARD)", "the player whose zone holds the card (`none` in a shared zone)", _owner,
        reads_game=True, reads_place=True),
    _fn("zone_of", 1, 1, "zone_of(CARD)", "the name of the zone holding the card", _zone_of, "str",
        reads_game=True, args=("card",), reads_place=True, on_card="_ZONE_NAMES[{where}[{0}.id]]"),
    _fn("host", 1, 1, "host(CARD)",
        "the card whose zone holds the card (a zone `per card`, or `per card per player`: the sector a "
        "creature stands in); `none` in any other zone", _host, "card", reads_game=True, args=("card",), reads_place=True),
    _fn("can_move", 2, 2, "can_move(CARD, ZONE)",
        "true when no continuous rule (`forbid leave`/`forbid enter`, section 3.19) would refuse moving the "
        "card to the zone now: offer only what can happen",
        lambda eng, e, a: eng.may_move(a[0], a[1], e), "bool", reads_game=True, args=("card", "any")),
    _fn("target", 1, 2, "target(CARD[, NAME])",
        "the target named for the card's effect by an open `choose targets of` (section 4.11b), by its "
        "`target` declaration's name in quotes when the card has several (an error if it has several and "
        "none is named); `none` when none is, or when it is no longer legal",
        lambda eng, e, a: eng.target_of(a[0], e, a[1] if len(a) > 1 else None), reads_game=True,
        args=("card", "str")),
    _fn("exists", 1, 1, "exists(X)", "true when the list or zone is not empty",
        lambda eng, e, a: _count(eng, e, a) > 0, "bool", on_list="(len({0}) > 0)", args=("countable",),
        loop="count", on_count="({0} > 0)"),
    _fn("text", 1, 1, "text(X)", "a value as text", _text, "str"),
    _fn("deck_of", 1, 1, "deck_of(P)",
        "the deck list P brought (games with a `deck` block, section 3.23): its fields, read with `lookup`, "
        "and `.cards`",
        _deck_of, reads_game=True, args=("player",)),
)}


# ---------------------------------------------------------------- values

def _players(eng):
    out = eng.state.out
    return [p for p in eng.players if p.seat not in out]


VALUES: dict[str, Value] = {v.name: v for v in (
    Value("players", "every player still in play (in the game, and not knocked out of this round), in seat order", _players,
          "[p for p in eng.players if p.seat not in eng.state.out]", "players", fresh_list=True),
    Value("all_players", "every player, out or not", lambda eng: list(eng.players),
          "list(eng.players)", "players", fresh_list=True),
    Value("current", "the player whose turn it is", lambda eng: eng.players[eng.state.current],
          "eng.players[eng.state.current]", "player"),
    Value("all_cards", "every card of the game", lambda eng: list(eng.cards),
          "list(eng.cards)", "cards", reads_game=False, fresh_list=True),
    # (per-ruleset caches are shared by games of every player count)
    Value("player_count", "the number of players the game started with", lambda eng: eng.n, "eng.n", "int"),
    Value("round_no", "the current round (1-based)", lambda eng: eng.state.round_no, "eng.state.round_no", "int"),
    Value("turn_no", "the current turn of the round (1-based)", lambda eng: eng.state.turn_no,
          "eng.state.turn_no", "int"),
    Value("phase", "the current phase's name (`none` outside phases)", lambda eng: eng.state.phase,
          "eng.state.phase", "str?"),
    Value("direction", "the direction of play: 1 up the seats (the start), -1 after a `reverse turn order`",
          lambda eng: eng.state.direction, "eng.state.direction", "int"),
)}


# ---------------------------------------------------------------- attributes

#: Attributes every value of a kind has, besides declared properties and variables:
#: name -> (the kinds of value that have it, one-line doc).
ATTRS: dict[str, tuple[str, str]] = {
    "name": ("card, player, event, zone", "a card's or player's name; a custom event's name, or a start/end event's scope"),
    "id": ("card", "the card's number in the deck (0-based)"),
    "seat": ("player", "the player's seat (1-based)"),
    "zone": ("card", "the name of the zone holding the card"),
    "owner": ("card, zone", "the player whose zone holds it (`none` for shared zones)"),
    "card": ("event", "the card the event is about"),
    "player": ("event", "the player the event is about"),
    "phase": ("event", "the phase the event happened in"),
    "shape": ("match", "the name of the shape a pattern matched"),
    "groups": ("match", "the groups of a pattern match"),
    "cards": ("match, group", "the cards"),
    "label": ("group", "what the group's cards share"),
    "size": ("group, zone", "how many cards"),
    "kind": ("event", "`draw`, `discard`, `deal`, `move`, `start`, `end` or `custom`"),
    "from": ("event", "the name of the zone a card left"),
    "to": ("event", "the name of the zone a card entered"),
    "forced": ("event", "whether a discard was forced"),
}

#: The value that is every card of the game: the generator looks for the cards of
#: `all_cards where zone = "Z" and …` in the zones named Z only (`all_cards_in_zone`).
EVERY_CARD = "all_cards"

#: Built-in functions, values and card attributes whose value depends on where any card
#: lies, not only on the zones their arguments name (`resolver.what_checks_read` cannot
#: narrow down what a state check reads through them).
READS_ANY_ZONE = frozenset({"owner", "zone_of", "host", "random", "can_move", "all_cards", "zone"})

#: Of these, the ones that tell only where a card lies, which every seat may know
#: (docs/view.md), and the one that asks the zone rules' conditions (`resolver.reads_hidden`).
TELLS_PLACE = frozenset({"owner", "zone_of", "zone", "host"})
ASKS_ZONE_RULES = frozenset({"can_move"})

#: The events the engine raises itself (a ruleset's own are raised by `emit NAME(…)`):
#: kind -> what raises it.
EVENTS: dict[str, str] = {
    "draw": "a card is drawn (`draw`)",
    "discard": "a card is discarded (`discard`)",
    "deal": "a card is dealt (`deal`)",
    "move": "any card movement, `draw`, `discard` and `deal` included",
    "start": "the start of the game, a round, a turn or a phase (`start of turn`)",
    "end": "the end of the game, a round, a turn or a phase (`end of round`)",
}

#: The attributes a bare name may read from `it` (in `where`, `sort by`, derives and
#: conditions) besides a ruleset's own card and player properties.
IT_ATTRS = frozenset(ATTRS) - {"card", "player"}

#: What a trigger, reaction, replacement or zone rule sees of its event, besides a custom
#: event's own fields: each name, and the attribute of the event it is (None: the event).
#: The tree walker (`walker.compiler.event_env`), the generator (`CodeGen.event_entry`) and
#: the name checker bind these and no others.
EVENT_BINDINGS = {"event": None, "card": "card", "player": "player", "it": "card"}

#: Names the engine binds in a trigger, reaction, action or deck check.
BOUND_BY_ENGINE = frozenset((*EVENT_BINDINGS, "responder", "actor", "option", "label", "cards", "decklist", "copies"))


def reads_game(name: str) -> bool:
    """Whether a built-in function or value named `name` depends on the game being played."""
    b = FUNCTIONS.get(name) or VALUES.get(name)
    return b is not None and b.reads_game


# ---------------------------------------------------------------- the reference's tables

_TYPE_WORDS = {"int": "a number", "bool": "true/false", "str": "a text", "player": "a player", "cards": "a list of cards",
               "players": "a list of players", "list": "a list", "str?": "a text, or none", "card": "a card, or none",
               None: "depends on the argument"}


def markdown_functions() -> str:
    """The table of built-in functions in `docs/language.md` (section 6.1)."""
    rows = ["| function | gives | result |", "|---|---|---|"]
    rows += [f"| `{f.signature}` | {f.doc} | {_TYPE_WORDS.get(f.result, f.result)} |" for f in FUNCTIONS.values()]
    return "\n".join(rows)


def markdown_values() -> str:
    """The table of built-in values in `docs/language.md` (section 6.2)."""
    rows = ["| name | value | type |", "|---|---|---|"]
    rows += [f"| `{v.name}` | {v.doc} | {_TYPE_WORDS.get(v.result, v.result)} |" for v in VALUES.values()]
    return "\n".join(rows)


if __name__ == "__main__":   # python -m cgl.interpreter.runtime.builtins: the tables, to paste into the docs
    print(markdown_functions(), markdown_values(), sep="\n\n")
