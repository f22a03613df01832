"""Run-time helpers of generated code: each does what the tree walker's closure for that
node does (`RUNTIME` is the namespace a generated module runs in)."""
from __future__ import annotations

from collections import _count_elements
from itertools import chain, compress, repeat
from operator import is_not, itemgetter

from ..runtime import builtins as B
from ..walker.compiler import Env
from ..base.protocol import MAX_LOOP, OTHERWISE, Decision, _EndScope, _GameOver
from ..check.loader import Card
from ..runtime.state import Event, Group, Match, Player, ZoneRef, parse_zone_key
from ..runtime.values import (
    _add,
    _cat,
    _long_list,
    _text,
    _apply,
    _arith,
    _big,
    _dice,
    _attr,
    _eq,
    _hashable,
    _in,
    _kind,
    _num,
    _order,
    _rememberable,
    _show,
    _truth,
)

PYERR = (RecursionError,)
_MISSING = object()


class _Unset(tuple):
    """What a game's cache of a card's derived property holds for a card whose value is
    not worked out (`CompiledEngine.dcache`): false, so that a read is `cache[id] or
    DV_name(eng, card)` (a false value is found by DV_name in the cache, and returned).
    (An empty tuple, which no rules value is: false without a Python call.)"""
    __slots__ = ()

    def __repr__(self):
        return "_UNSET"


_UNSET = _Unset()
NO_LIMIT = 1 << 62
_CARD_EVENTS = frozenset(("draw", "discard", "deal", "move"))


class Unsupported(Exception):
    """Something the generator does not compile (the ruleset then runs on the tree walker)."""


# ---------------------------------------------------------------- run-time helpers
# (called by the generated code; each does what the tree walker's closure for that node does)

def _everr(eng, node, x):
    return eng.fail(node, "the rules call themselves without end", code="E011")


_runerr = _everr


def _toolong(eng, node):
    return eng.out_of_steps(node)


def _it_attr(eng, it, name):
    """`name` as a property of `it`, or _MISSING."""
    if it is None:
        return _MISSING
    ok, v = eng.attr_of(it, name)
    return v if ok else _MISSING


def _it_or(eng, it, name, glob):
    v = _it_attr(eng, it, name)
    return glob() if v is _MISSING else v


def _it_or_unknown(eng, it, name, node):
    v = _it_attr(eng, it, name)
    if v is _MISSING:
        raise eng.fail(node, f"unknown name `{name}`")
    return v


def _unknown(eng, node, what="name"):
    raise eng.fail(node, f"unknown {what} `{node.id if what == 'name' else node.name}`")


def _sub(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a - b
    return _arith(eng, a, b, node)


def _ne(a, b):
    if type(a) is str and type(b) is str:
        return a != b
    return not _eq(a, b)


def _eqs(a, b):
    if type(a) is str and type(b) is str:
        return a == b
    return _eq(a, b)


def _lt(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a < b
    return _order(eng, a, b, node, lambda x, y: x < y)


def _le(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a <= b
    return _order(eng, a, b, node, lambda x, y: x <= y)


def _gt(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a > b
    return _order(eng, a, b, node, lambda x, y: x > y)


def _ge(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a >= b
    return _order(eng, a, b, node, lambda x, y: x >= y)


def _aslist(eng, v, node):
    cls = v.__class__
    if cls is list:
        return v
    if cls is ZoneRef:   # (`Engine.as_list` of a zone: its `cards_of`, top first, written in)
        return list(map(eng.cards.__getitem__, reversed(eng.state.zones.get(v.key, ()))))
    return eng.as_list(v, node)


_COUNT = B.FUNCTIONS["count"].run


def _count(eng, v, node):
    if v.__class__ is list:
        return len(v)
    if v.__class__ is ZoneRef:
        return len(eng.state.zones.get(v.key, ()))
    return _COUNT(eng, node, [v])


def _group_by(eng, items, key):
    groups: dict = {}
    for x in items:
        k = key(x)
        hk = _hashable(k) if isinstance(k, list) else k   # (`_hashable`, its call saved for the usual key)
        if hk not in groups:
            groups[hk] = (k, [])
        groups[hk][1].append(x)
    if not groups:
        return []   # (an empty zone, often: no comprehension to run)
    return [Group(k, tuple(xs)) for k, xs in groups.values()]


def _group_by_var(eng, ids, name):
    """`ZONE group by VAR`, VAR a variable of each card: `_group_by` over the ids of the
    zone's cards (top first), each card's VAR read in place, not by a function per card
    (the claim window's `table(p) group by meld`, asked for each responder)."""
    groups: dict = {}
    cv = eng.state.card_vars
    last = xs = _MISSING
    for i in ids:
        k = cv[i][name]
        if k is last:   # (the same value as the card before's, as in a set laid out together)
            xs.append(i)
            continue
        hk = _hashable(k) if isinstance(k, list) else k
        found = groups.get(hk)
        if found is None:
            xs = [i]
            groups[hk] = (k, xs)
        else:
            xs = found[1]
            xs.append(i)
        last = k
    if not groups:
        return []
    cards = eng.cards.__getitem__
    return [Group(k, tuple(map(cards, xs))) for k, xs in groups.values()]


def _sort_by(eng, items, key, node):
    keyed = [(key(x), i, x) for i, x in enumerate(items)]
    try:
        keyed.sort(key=lambda t: (t[0] is None, t[0] if t[0] is not None else 0, t[1]))
    except TypeError:
        raise eng.fail(node, "these values cannot be put in order") from None
    return [x for _, _, x in keyed]


def _zone_of_player(eng, name, p, node, cache):
    if p.__class__ is Player:
        z = cache.get(p.seat)
        if z is None:
            z = cache[p.seat] = ZoneRef(name, p.seat)
        return z
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _cards_at(eng, key):
    """The cards of a zone, top first (`Engine.cards_of`)."""
    return list(map(eng.cards.__getitem__, reversed(eng.state.zones.get(key, ()))))


def _pz_cards(eng, keys, p, node):
    """The cards of a player's zone (`hand(p)`), top first."""
    if p.__class__ is Player:
        return list(map(eng.cards.__getitem__, reversed(eng.state.zones.get(keys[p.seat], ()))))
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _pz_ids(eng, keys, p, node):
    """The card ids of a player's zone, bottom first (the state's own list: read, never kept)."""
    if p.__class__ is Player:
        return eng.state.zones.get(keys[p.seat], ())
    raise eng.fail(node, f"expected a player, got {_kind(p)}")


def _count_labels(counts, flat):
    """How many times each label of `flat` occurs (none left out), into `counts`, keyed as
    `_hashable` keys them (a pattern's scan)."""
    try:
        _count_elements(counts, flat)   # (in C)
    except TypeError:   # a list among them: keyed as a tuple
        counts.clear()
        get = counts.get
        for x in flat:
            if x is not None:
                x = _hashable(x)
                counts[x] = get(x, 0) + 1
        return
    counts.pop(None, None)


def _first(items):
    return items[0] if items else None


def _last(items):
    return items[-1] if items else None


class _ZoneNames(dict):
    """Zone key -> the zone's name ("hand:2" -> "hand"), worked out once per key: the
    generated code reads the name of the zone a card lies in (`zone`: builtins.zone_name_of)
    as `_ZONE_NAMES[where[id]]`, no call."""

    def __missing__(self, key):
        name = self[key] = parse_zone_key(key)[0]
        return name


_ZONE_NAMES = _ZoneNames()


def _in_list(a, b):
    cls = a.__class__
    if cls is str or cls is Card or cls is Player or a is None:   # (`_eq` is `==` for these, whatever the other)
        return a in b
    return any(_eq(a, x) for x in b)


def _first_equal(v, table):
    """The branch of the first text in `table` ({text: branch}, in the conditions' order)
    that `v`, not of class str, equals with Python's `==` (`codegen.switch`), or None."""
    for text, branch in table.items():
        if v == text:
            return branch
    return None


def _cards_in_zones(eng, name):
    """The cards lying in the zones named `name` ("stable": every player's), in the order of
    `all_cards` (by id)."""
    ids = []
    for key, zone in eng.state.zones.items():
        if zone and _ZONE_NAMES[key] == name:
            ids += zone
    ids.sort()
    return list(map(eng.cards.__getitem__, ids))


def _cards_with_var(eng, name):
    """The cards whose variable `name` is not none, in id order (all of `all_cards where
    NAME != none and …` that its first test keeps: `Expressions.all_cards_with_var`), each
    card's variable read in C, not by a loop of bytecodes over every card. Mostly none is set
    (a borrowed card's home): the state's count of the values that are not none says so at
    once (`State.var_counts`, which counts every variable such a test names)."""
    if eng.state.var_counts.get(name) == 0:
        return ()
    return compress(eng.cards, map(is_not, map(itemgetter(name), eng.state.card_vars), repeat(None)))


def _owner_card(eng, c, node):
    """`owner(c)` in a ruleset whose cards' `owner` is the built-in one (no variable, derived
    property or data of that name): `builtins.owner_of`, its zone's owner read at once."""
    if c.__class__ is Card:
        try:
            return eng._key_owners[eng.state.where[c.id]]
        except KeyError:
            return B.owner_of(eng, c)[1]
    return B.FUNCTIONS["owner"].run(eng, node, [c])


def _pz_count(eng, keys, p, node):
    return len(_pz_ids(eng, keys, p, node))


def _zone_of_card(eng, name, c, node, p=None, pnode=None):
    if not hasattr(c, "props"):
        raise eng.fail(node, f"`{name}(…)` takes a card, got {_kind(c)}")
    if pnode is None:
        return ZoneRef(name, None, c.id, c.name)
    if p.__class__ is not Player:   # `per card per player`: `squad(c, p)`
        raise eng.fail(pnode, f"`{name}(c, p)` takes a player after the card, got {_kind(p)}")
    return ZoneRef(name, p.seat, c.id, c.name)


def _seat_of(eng, p, node):
    if p.__class__ is Player:
        return p.seat
    return eng.as_player(p, node).seat


def _asker_seat(eng, player):
    return player.seat if isinstance(player, Player) else eng.state.current


def _mkenv(d):
    return Env({k: v for k, v in d.items() if v is not _MISSING})


def _memo_call1(memo, body, eng, a):
    """`body(eng, a)`, a deterministic def's function, remembered in `memo` (the dict of one
    expression being evaluated: `Expressions.call_memo`) by its argument's value and class
    (1 and true are not the same argument); an unhashable argument (a list) is not remembered."""
    key = (a.__class__, a)
    try:
        v = memo.get(key, _MISSING)
    except TypeError:
        return body(eng, a)
    if v is _MISSING:
        v = memo[key] = body(eng, a)
    return v


def _memo_call2(memo, body, eng, a, b):
    """`_memo_call1` for a def of two parameters."""
    key = (a.__class__, a, b.__class__, b)
    try:
        v = memo.get(key, _MISSING)
    except TypeError:
        return body(eng, a, b)
    if v is _MISSING:
        v = memo[key] = body(eng, a, b)
    return v


def _static_call(memo, body, eng, args):
    if not _rememberable(args):
        return body(eng, *args)
    try:
        return memo[args]
    except KeyError:
        pass
    except TypeError:  # a list argument: nothing to remember it by
        return body(eng, *args)
    memo[args] = result = body(eng, *args)
    return result


def _entry(env, name):
    """A name the engine bound before running a body (event, card, parameters, …): `Env.lookup`
    written in place (a call fewer; it runs for each name an entry function reads)."""
    while env is not None:
        v = env.vars
        if name in v:
            return v[name]
        env = env.parent
    return _MISSING


def _label_count(memo, v, cards, labels_of, keep):
    """`count(cards() where v in labels_of(it) and keep(it))`, the generator's `label_count`:
    `memo` (one evaluation's) keeps each value counted and, under _MISSING, the cards
    holding each label, noted as the first count goes round the cards in their order,
    testing as the `where` does. A later value's count tests `keep` on the cards holding it,
    in order: what the `where` would test it on. Without a memo, the `where`'s count."""
    if memo is None:
        return sum(1 for c in cards() if v in labels_of(c) and (keep is None or keep(c)))
    n = memo.get(v)
    if n is not None:
        return n
    index = memo.get(_MISSING)
    if index is None:
        index = memo[_MISSING] = {}
        n = 0
        for c in cards():
            labels = labels_of(c)
            if v in labels and (keep is None or keep(c)):
                n += 1
            for label in (dict.fromkeys(labels) if len(labels) > 1 else labels):   # (each card once a label)
                held = index.get(label)
                if held is None:
                    index[label] = [c]
                else:
                    held.append(c)
    else:
        held = index.get(v, ())
        n = len(held) if keep is None else sum(1 for c in held if keep(c))
    memo[v] = n
    return n


def _eval_memo(eng, key, alone):
    """What one hint's evaluation keeps under `key` (a count's place and the values it
    depends on: `Hints.eval_memo`); outside one, `alone`."""
    memo = eng.eval_memo
    if memo is None:
        return alone
    try:
        found = memo.get(key)
    except TypeError:   # (a value that cannot key it: a list)
        return alone
    if found is None:
        found = memo[key] = {}
    return found


RUNTIME = {
    "_label_count": _label_count, "_eval_memo": _eval_memo,
    "_max_list": B.max_list, "_min_list": B.min_list, "_sum_list": B.sum_list,
    "_everr": _everr, "_runerr": _runerr, "_toolong": _toolong, "_attr": _attr, "_it_attr": _it_attr,
    "_it_or": _it_or, "_it_or_unknown": _it_or_unknown, "_unknown": _unknown, "_add": _add, "_cat": _cat, "_long_list": _long_list, "_text": _text, "_arith": _arith, "_big": _big, "_count_labels": _count_labels, "_dice": _dice,
    "_sub": _sub, "_ne": _ne, "_eqs": _eqs, "_eq": _eq, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge,
    "_in": _in, "_aslist": _aslist, "_count": _count, "_group_by": _group_by, "_group_by_var": _group_by_var, "_sort_by": _sort_by,
    "_zone_of_player": _zone_of_player, "_cards_at": _cards_at, "_pz_cards": _pz_cards, "_pz_count": _pz_count,
    "_pz_ids": _pz_ids, "_first": _first, "_ZONE_NAMES": _ZONE_NAMES, "_last": _last, "_in_list": _in_list, "_first_equal": _first_equal, "_owner_card": _owner_card, "_cards_in_zones": _cards_in_zones, "_cards_with_var": _cards_with_var, "_chain": chain, "_zone_of_card": _zone_of_card, "_seat_of": _seat_of,
    "_asker_seat": _asker_seat, "_mkenv": _mkenv, "_static_call": _static_call, "_memo_call1": _memo_call1, "_memo_call2": _memo_call2, "_entry": _entry,
    "_num": _num, "_show": _show, "_truth": _truth, "_apply": _apply, "_MISSING": _MISSING, "_UNSET": _UNSET, "_PE": PYERR,
    "_EndScope": _EndScope, "_GameOver": _GameOver, "Env": Env, "Card": Card, "Player": Player,
    "ZoneRef": ZoneRef, "Event": Event, "OTHERWISE": OTHERWISE, "Decision": Decision, "MAX_LOOP": MAX_LOOP, "_BUILTIN": {name: f.run for name, f in B.FUNCTIONS.items()}, "_builtins": B,
    "_Match": Match, "_Group": Group, "_hashable": _hashable,
}
