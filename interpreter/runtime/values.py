"""Rules values and the operations on them, shared by the tree walker (engine.py and
the closures of compiler.py) and the compiled engine (codegen.py), so that both mean the
same by `+`, `=`, `<` and `in`."""
from __future__ import annotations

from ..base.protocol import MAX_DICE, MAX_LIST, MAX_NUMBER, MAX_TEXT
from .state import Event, Group, Match, Player, ZoneRef


def _rememberable(args: tuple) -> bool:
    """Whether the result of a def that depends only on its arguments and the card data
    (`Facts.static_defs`) may be remembered for these arguments: not when one is a zone,
    whose cards change (`def size(z) = count(z)`). Both engines ask this."""
    for a in args:
        if a.__class__ is ZoneRef:
            return False
    return True


def _truth(v) -> bool:
    return bool(v)


def _eq(a, b) -> bool:
    cls = a.__class__
    if cls is b.__class__ and cls is not list:   # (the commonest: two of a kind, compared as Python does)
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b if isinstance(a, bool) and isinstance(b, bool) else False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    return a == b


def _num(v, node, eng) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise eng.fail(node, f"expected a number, got {_kind(v)}")
    return v


def _apply(op, old, value, node, eng):
    if op == "=":
        return _big(eng, value, node)
    if op == "+=":
        if isinstance(old, list):
            return _big(eng, old + (value if isinstance(value, list) else [value]), node)
        return _big(eng, _num(old, node, eng) + _num(value, node, eng), node)
    return _big(eng, _num(old, node, eng) - _num(value, node, eng), node)


def _dice(eng, node) -> int:
    """Roll dice literal `node` (`2d6`): at most MAX_DICE dice, rolled one by one."""
    n, sides = node.count, node.sides
    if n > MAX_DICE:
        raise eng.fail(node, f"`{n}d{sides}` rolls more than {MAX_DICE:,} dice", code="E017",
                       hint=f"roll fewer dice: the sum of n dice of {sides} sides is at most n × {sides}")
    roll = eng.roll
    return sum(roll(sides) for _ in range(n))


def _big(eng, v, node):
    """`v`, a number or a list a rule computed, within the limits (MAX_NUMBER, MAX_LIST);
    else the error at `node`."""
    if v.__class__ is int:
        if -MAX_NUMBER <= v <= MAX_NUMBER:
            return v
        raise eng.fail(node, f"a number larger than {MAX_NUMBER:,} (10^18): {_digits(v)}", code="E017",
                       hint="numbers in a game are at most 10^18: does something grow without end?")
    if v.__class__ is list and len(v) > MAX_LIST:
        raise _long_list(eng, node, len(v))
    if v.__class__ is str and len(v) > MAX_TEXT:
        raise _long_text(eng, node, len(v))
    return v


def _long_list(eng, node, n: int):
    return eng.fail(node, f"a list of more than {MAX_LIST:,} items ({n:,})", code="E017",
                    hint="does something add to this list without end?")


def _cat(eng, a: list, b: list, node) -> list:
    """`a + b`, two lists, within MAX_LIST (checked before the list is made: a def doubling
    one runs out of memory before any `set` sees it)."""
    if len(a) + len(b) > MAX_LIST:
        raise _long_list(eng, node, len(a) + len(b))
    return a + b


def _text(eng, s: str, node) -> str:
    """`s`, a text interpolated at `node` (`"{a}{b}"`), within MAX_TEXT."""
    if len(s) > MAX_TEXT:
        raise _long_text(eng, node, len(s))
    return s


def _long_text(eng, node, n: int):
    count = f" ({n:,})" if n > MAX_TEXT + 1 else ""   # (a list's text is cut just past the limit: `_show_list`)
    return eng.fail(node, f"a text of more than {MAX_TEXT:,} characters{count}", code="E017",
                    hint="does something add to this text without end?")


def _digits(v: int) -> str:
    """How a very large number reads in a message (never its 5,000 digits)."""
    if abs(v) < 10 ** 30:
        return str(v)
    return f"a number of about {int(abs(v).bit_length() * 0.30103) + 1} digits"


def _fresh(v):
    return list(v) if isinstance(v, list) else v


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    return v


_KINDS = ((bool, "true/false"), (int, "a number"), (str, "a text"), (list, "a list"), (Player, "a player"),
          (ZoneRef, "a zone"), (Match, "a pattern match"), (Group, "a group"), (Event, "an event"), (dict, "a table"))


def _kind(v) -> str:
    """What a value is, as an error message names it."""
    if v is None:
        return "none"
    if hasattr(v, "props"):
        return "a card"
    for t, kind in _KINDS:   # (true/false before numbers: a bool is an int)
        if isinstance(v, t):
            return kind
    return type(v).__name__


def _show(v) -> str:
    t = type(v)
    if t is str:        # (the common cases first: text interpolation is everywhere)
        return v
    if t is Player:
        return v.name
    if t is int:
        return str(v)
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if hasattr(v, "props"):
        return v.name
    if isinstance(v, list):
        return _show_list(v, MAX_TEXT + 1)
    return str(v)


def _show_list(v: list, room: int) -> str:
    """List `v` as a text, cut to `room` characters once it is longer: a list may hold one
    list twice, and that one another twice, 64 levels down (small, as its parts are shared,
    and 2^64 items long as a text). A text cut to MAX_TEXT + 1 characters is then refused
    where the rules use it, as any text past the limit."""
    parts = []
    n = 1
    for x in v:
        s = _show_list(x, room - n) if isinstance(x, list) else _show(x)
        parts.append(s)
        n += len(s) + 2
        if n > room:
            return ("[" + ", ".join(parts))[:room]
    return "[" + ", ".join(parts) + "]"


def _label(v) -> str:
    return v.name if hasattr(v, "props") else _show(v)


def _explain(x: Exception) -> str:
    if isinstance(x, KeyError):
        return f"no entry {x}"
    return str(x) or x.__class__.__name__


def _attr(eng, o, name, node):
    """`o.name`, with the errors a person reads when there is no such property."""
    if o is None:
        raise eng.fail(node, f"`.{name}` of none", hint="check that the value exists before using it")
    ok, v = eng.attr_of(o, name)
    if not ok:
        raise eng.fail(node, f"{_kind(o)} has no property `{name}`")
    return v


def _add(eng, a, b, node):
    if type(a) is int and type(b) is int:
        return a + b
    if a.__class__ is list and b.__class__ is list:   # (the commonest lists: as below, without as_list)
        return _cat(eng, a, b, node)
    if isinstance(a, (ZoneRef, list)) or isinstance(b, (ZoneRef, list)):
        return _cat(eng, eng.as_list(a, node.left), eng.as_list(b, node.right), node)
    if isinstance(a, str) or isinstance(b, str):
        a, b = _show(a), _show(b)
        if len(a) + len(b) > MAX_TEXT:   # (checked before the text is made: doubling one runs out of memory)
            raise _long_text(eng, node, len(a) + len(b))
        return a + b
    return _num(a, node.left, eng) + _num(b, node.right, eng)


def _arith(eng, a, b, node):
    a = _num(a, node.left, eng)
    b = _num(b, node.right, eng)
    op = node.op
    if op == "-":
        return a - b
    if op == "*":
        return _big(eng, a * b, node)
    if b == 0:
        raise eng.fail(node, "division by zero")
    if op in ("/", "//"):
        return a // b
    return a % b


def _order(eng, a, b, node, fn):
    if a is None or b is None:
        return False
    try:
        return fn(a, b)
    except TypeError:
        raise eng.fail(node, f"cannot compare {_kind(a)} with {_kind(b)}") from None


def _in(eng, a, b, node):
    if b.__class__ is list:
        if type(a) is str:
            return a in b
        return any(_eq(a, x) for x in b)
    if isinstance(b, list):
        return any(_eq(a, x) for x in b)
    if isinstance(b, ZoneRef):
        return hasattr(a, "props") and eng.state.where[a.id] == b.key
    if isinstance(b, (tuple, set, dict)):
        return any(_eq(a, x) for x in b)
    if isinstance(b, str) and isinstance(a, str):
        return a in b
    raise eng.fail(node, f"`in` needs a list or a zone on its right, got {_kind(b)}")


def _value_attr(obj, name: str, players) -> tuple:
    """`obj.name` of a value that is neither a card, a player nor an event, as both engines and
    the static evaluator read it: a pattern's match or group (`shape`, `groups`, `label`,
    `size`, `cards`), a zone's `name` and `owner` (its `size` reads the game: the caller's),
    a data table's row. (found, value)"""
    if isinstance(obj, (Match, Group)):
        if name in ("shape", "groups", "label", "size", "cards"):
            try:
                v = getattr(obj, name)
            except AttributeError:
                return False, None
            return True, list(v) if isinstance(v, tuple) else v
        return False, None
    if isinstance(obj, ZoneRef):
        if name == "name":
            return True, obj.name
        if name == "owner":
            return True, None if obj.owner is None else players[obj.owner]
        return False, None
    if isinstance(obj, dict):
        return (True, obj[name]) if name in obj else (False, None)
    return False, None
