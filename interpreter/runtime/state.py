"""The game state: plain data, cheap to copy, serialisable; and the values rules see.

Everything that changes during a game lives in :class:`State`. The interpreter's own
objects (the ruleset, the AST) never do, so a state can be copied at any decision.
"""
from __future__ import annotations

import copy
import _random
import random
import weakref
from typing import Optional

import attrs


def _kept(how: str, **kw):
    """A field of `State`, with how `State.copy` copies it: "value" (immutable, shared),
    "list", "dict", "each" (a list of dicts: each copied), "cards" (the card
    variables: each copied, or shared by a trial until written), "zones" (a dict of lists),
    "maybe list" (None or a list), "rng" (the random source), "log", "counters" (a dict a
    trial starts afresh), "known" (what each seat knows: None or a list of sets), "owned
    cards" and "owned zones" (what a trial's copy has made its own)."""
    return attrs.field(metadata={"copy": how}, **kw)


#: How each kind of field is copied (the source of one argument of the copy).
_COPY = {
    "value": "s.{0}", "list": "s.{0}[:]", "dict": "s.{0}.copy()", "each": "list(map(_copied, s.{0}))",
    "cards": "list(map(_copied, s.{0}))", "counters": "s.{0}.copy()", "owned cards": "None", "owned zones": "None",
    "zones": "{{k: v[:] for k, v in s.{0}.items()}}", "maybe list": "None if s.{0} is None else s.{0}[:]",
    "known": "None if s.{0} is None else [x.copy() for x in s.{0}]", "rng": "_rng_copy(s.{0})",
    "log": "s.{0}[:] if log else []",
}

#: How `State.trial_copy` copies a kind of field, where it differs from `copy`. A trial
#: (`walker/trial.py`) moves few cards (most end at their first move), so it shares the
#: zones' lists until it changes one (`zone_store`; a shuffle or a cut, the other changes
#: to a zone's order, puts a new list in its place); it writes few card variables, so it shares their dicts until it writes one
#: (`card_store`); it seldom draws a random number, so it copies the random source when it
#: first does (`_DrawnRandom`); it writes no log and keeps no counters that outlive it.
_TRIAL_COPY = {
    "cards": "s.{0}[:]", "owned cards": "set()", "owned zones": "set()", "zones": "s.{0}.copy()",
    "rng": "_DrawnRandom(s.{0})", "log": "[]", "counters": "{{}}",
}

#: How `State.world_copy` copies a kind of field, where it differs from `copy`. A world
#: (`Game.determinised`: a search's game imagined from one seat) is copied from a state
#: that is never played on again (a snapshot, `Forks.snapshot`), so it may share what it
#: does not change: the card variables' dicts until it writes one (`card_store`: a playout
#: writes few), and the random source until it first draws (`_DrawnRandom`: it deals the
#: world's own source before it plays on). It follows no knowledge (`known`: a world takes
#: no snapshots and is sampled from no more) and keeps no log unless asked to.
_WORLD_COPY = {
    "cards": "s.{0}[:]", "owned cards": "set()", "rng": "_SnapshotRandom(s.{0})", "known": "None",
}


def _rng_copy(rng: random.Random) -> random.Random:
    """A random source in the same state (what `Random(0)` and a seed would set is all replaced)."""
    twin = random.Random.__new__(random.Random)
    twin.setstate(rng.getstate())
    return twin


def seeded_random(n: int) -> random.Random:
    """`random.Random(n)` for a whole number `n`, the same state, made with one call to the
    generator's own seeding: without `Random.__init__` and `Random.seed`'s checks of a seed
    of another type (a search deals each world's random source so: `Game.determinised`)."""
    twin = random.Random.__new__(random.Random)
    _random.Random.seed(twin, n)
    twin.gauss_next = None
    return twin


class _DrawnRandom:
    """A trial's random source: a copy of the game's, made when the trial first draws from it
    (most draw nothing, and a copy of a Mersenne Twister is the dearest part of a state's).
    The game's own source does not move while the trial runs (only the trial's state is
    played on), so the copy made then is the copy made at the start."""

    __slots__ = ("_of", "_own")

    def __init__(self, of):
        self._of = of
        self._own = None

    def __getattr__(self, name):   # (only the Random's own attributes come here)
        if name in _DrawnRandom.__slots__:
            raise AttributeError(name)   # (an instance made without __init__)
        own = self._own
        if own is None:
            own = self._own = self._copy()
        return getattr(own, name)

    def _copy(self) -> random.Random:
        return _rng_copy(self._of)


# the state of each snapshot's random source (`_SnapshotRandom`), read once
_SNAPSHOT_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _SnapshotRandom(_DrawnRandom):
    """A world's random source (`State.world_copy`): as `_DrawnRandom`, a copy made when first
    drawn from, here of a snapshot's source, which is never drawn from again; so its state is
    read once (`getstate`, the dearer half of a copy) and kept for every world copied from the
    snapshot that draws (a search's worlds replay the same answers from the same snapshot)."""

    __slots__ = ()

    def _copy(self) -> random.Random:
        of = self._of
        state = _SNAPSHOT_STATES.get(of)
        if state is None:
            state = _SNAPSHOT_STATES[of] = of.getstate()
        twin = random.Random.__new__(random.Random)
        twin.setstate(state)
        return twin


@attrs.define
class State:
    """Everything about a game that changes as it is played: zones, variables, whose turn,
    the random source, the result, the log, what each seat has read and knows, and where
    the running rules are (the triggers running, a `then` block held, a `simultaneously`
    open). A copy (`copy`) goes on as the game would: forks, `possible`'s trials and search
    copy the state and nothing else. Each field says how it is copied (`_kept`)."""

    zones: dict = _kept("zones")                 # zone key ("stock", "hand:0") -> card ids, bottom first, top last
    where: list = _kept("list")                  # card id -> zone key
    card_vars: list = _kept("cards")             # card id -> {var: value} (written through `card_store`)
    player_vars: list = _kept("each")            # seat -> {var: value}
    globals: dict = _kept("dict")                # global variables
    rng: random.Random = _kept("rng")
    players: int = _kept("value")
    out: list = _kept("list", factory=list)      # seats out of play: lost, or out of this round
    out_of_round: list = _kept("list", factory=list)   # those of `out` only out of this round (`knock out`)
    current: int = _kept("value", default=0)
    round_no: int = _kept("value", default=0)
    turn_no: int = _kept("value", default=0)
    phase: Optional[str] = _kept("value", default=None)
    # The turn order (section 1.2 of docs/language.md, interpreter/walker/turn_order.py).
    # `next_player`: who a `give turn to` made during a round's turns named for the next
    # turn; `first_player`: who one made outside them (setup, a match's start, a round's
    # start or end) named for the first turn of the round to come; `extra_turns`: the seats
    # of the extra turns still to be taken, first first (`give extra turn to`);
    # `first_extra_turns`: those given outside a round's turns, taken first in the round to
    # come; `resume_from`: while extra turns are taken, the seat whose turn they follow,
    # from which the order goes on; `direction`: 1 while play goes up the seats, -1 after
    # `reverse turn order`; `in_turns`: a round's turns are being played.
    next_player: Optional[int] = _kept("value", default=None)
    first_player: Optional[int] = _kept("value", default=None)
    extra_turns: list = _kept("list", factory=list)
    first_extra_turns: list = _kept("list", factory=list)
    resume_from: Optional[int] = _kept("value", default=None)
    direction: int = _kept("value", default=1)
    in_turns: bool = _kept("value", default=False)
    # `stopped_before`: the seat whose turn was about to begin when a turn limit (a
    # scenario's `turns: N`) stopped the play: whose turn comes next (`expect: next`).
    stopped_before: Optional[int] = _kept("value", default=None)
    finished: bool = _kept("value", default=False)
    winners: Optional[list] = _kept("maybe list", default=None)
    end_reason: Optional[str] = _kept("value", default=None)
    log: list = _kept("log", factory=list)
    steps: int = _kept("value", default=0)                 # the game's budget of steps used
    stats: dict = _kept("counters", factory=dict)          # counters: trigger fires, cards played, …
    # What each seat knows of the cards it cannot see: per seat, the ids of the cards in
    # zones hidden from it whose place it saw them take (a public move, a move into or out
    # of its own zone, a reveal to it) and has not lost (a move it did not see, a shuffle).
    # None: not followed (only search needs it: `Game(forkable=True)`, `Game.determinised`).
    known: Optional[list] = _kept("known", default=None)
    # The cards shown by `reveal` that have not moved since (nor been shuffled or cut with
    # their zone): card id -> the seats shown it
    # (a tuple), or None when it was shown to everyone. Kept in every game (a hint may read
    # what its seat was shown: walker/hints.py), forgotten as the card moves (`_place`) or its
    # zone is reordered (`_reordered`).
    shown: dict = _kept("dict", factory=dict)
    # per seat, how much of the log it had been shown at its last decision
    last_seen: dict = _kept("dict", factory=dict)
    # Scripted randomness (a scenario's `dice:`, `random:` and `shuffles:`), used before the
    # random source. A scripted shuffle is (zone key, the zone's label, the names of the
    # cards it puts on top, top first).
    forced_dice: list = _kept("list", factory=list)
    forced_random: list = _kept("list", factory=list)
    forced_shuffles: list = _kept("list", factory=list)
    # Where the running rules are. `event_chain`: the names of the triggers, reactions and
    # checks now running, innermost last; `holding`: `… then { … }` blocks open (the game
    # settles after them); `checks_on`: the game has begun, so state checks run; `changes`:
    # changes to the position so far, and `settled`: how many there had been when the checks
    # last found nothing to do (a settle with none since is a no-op); `secret_depth`,
    # `simul_no`, `deferred`: `simultaneously` blocks open, entered so far, and the choice
    # bodies waiting for the open one to end; `quiet_moves`: inside a bulk `move` (its cards
    # logged as one line); `trying`: this is a copy on which `possible` tries a procedure.
    event_chain: list = _kept("list", factory=list)
    holding: int = _kept("value", default=0)
    checks_on: bool = _kept("value", default=False)
    changes: int = _kept("value", default=0)
    settled: int = _kept("value", default=-1)
    secret_depth: int = _kept("value", default=0)
    simul_no: int = _kept("value", default=0)
    deferred: Optional[list] = _kept("maybe list", default=None)
    quiet_moves: int = _kept("value", default=0)
    trying: bool = _kept("value", default=False)
    # The targets named by the open `choose targets of` blocks: card id -> a tuple of
    # (target declaration's name, value, the chooser's seat), replaced, never changed in place.
    targets: dict = _kept("dict", factory=dict)
    # `require { … }` (a required part): `require_depth`, the length of the event chain
    # where the innermost open one runs (-1: none); `shortfall`, the failures counted so
    # far (a card statement that moved fewer cards than asked, a choice with too few
    # options or declined); `trial_through`: a trial of a procedure that may run a required
    # part, which goes on past moves (each zone's list its own as it first changes it: `zone_store`).
    require_depth: int = _kept("value", default=-1)
    shortfall: int = _kept("value", default=0)
    trial_through: bool = _kept("value", default=False)
    # A trial's copy (`trial_copy`): the ids of the cards whose variables it has made its
    # own (`card_store`), and the keys of the zones whose lists it has (`zone_store`); a
    # world's (`world_copy`): the cards only. None in any other state, whose card variables
    # and zones' lists are all its own.
    own_cards: Optional[set] = _kept("owned cards", default=None)
    own_zones: Optional[set] = _kept("owned zones", default=None)
    # For each card variable of `Facts.counted_vars`: how many cards' value is not none
    # (made with the game's first state; kept by `count_var` wherever a card variable is
    # written). A variable with no count here is not counted.
    var_counts: dict = _kept("dict", factory=dict)

    def copy(self, log: bool = True) -> "State":
        """An independent copy (the random source included; the log left out with `log=False`).

        One level deep: rules values are never changed in place (`set x += [c]` makes a new
        list; cards, players and zones are immutable), and log entries are never changed
        once written, so containers are copied and the values in them shared. (Written
        once, from the fields' `_kept` declarations: see `_make_copy`.)"""
        raise NotImplementedError   # replaced by _make_copy below

    def trial_copy(self) -> "State":
        """A copy for `possible` to try a procedure on, while this state waits unchanged:
        what a trial does not change is shared with this state (`_TRIAL_COPY`); the log
        left out."""
        raise NotImplementedError   # replaced by _make_copy below

    def world_copy(self, log: bool = False) -> "State":
        """A copy to imagine a world on (`Forks.clone` for `Game.determinised`), taken from a
        state that is never changed afterwards (a snapshot): what the world does not change
        is shared with it until changed (`_WORLD_COPY`); no knowledge followed."""
        raise NotImplementedError   # replaced by _make_copy below

    def card_store(self, cid: int) -> dict:
        """Card `cid`'s variables, to change: the one way they are written (a trial's copy
        shares them with the game's state until then, a world's with its snapshot's)."""
        d = self.card_vars[cid]
        own = self.own_cards
        if own is not None and cid not in own:
            own.add(cid)
            d = self.card_vars[cid] = d.copy()
        return d

    def count_var(self, name: str, old, new) -> None:
        """Card variable `name` went from `old` to `new`: its count of values that are not
        none (`var_counts`) follows, when it is counted. Every write of a card variable calls
        this, or tests first whether one of the two is none and the other not."""
        counts = self.var_counts
        if name in counts and (old is None) is not (new is None):
            counts[name] += 1 if old is None else -1

    def zone_store(self, key: str) -> list:
        """The list of card ids of zone `key`, to change in place (made, empty, when the
        state has none): the one way a zone's list is changed in place (`Engine._place`,
        `swap`; a trial's copy shares the lists with the game's state until then)."""
        ids = self.zones.get(key)
        own = self.own_zones
        if own is not None and key not in own:
            own.add(key)
            ids = self.zones[key] = [] if ids is None else ids[:]
        elif ids is None:
            ids = self.zones[key] = []
        return ids

    def deep_copy(self) -> "State":
        """A copy sharing nothing with this state (what `copy` is checked against)."""
        return copy.deepcopy(self)

    def to_json(self, rs) -> dict:
        """A JSON-ready picture of the state, with card names instead of ids."""
        names = [c.name for c in rs.cards]
        return {
            "zones": {k: [names[i] for i in v] for k, v in self.zones.items()},
            "players": [{k: plain(x) for k, x in v.items()} for v in self.player_vars],
            "cards": {names[i]: {k: plain(x) for k, x in v.items()} for i, v in enumerate(self.card_vars) if v},
            "globals": {k: plain(x) for k, x in self.globals.items()},
            "current": self.current + 1,
            "round": self.round_no,
            "turn": self.turn_no,
            "phase": self.phase,
            "direction": self.direction,
            "next_player": None if self.next_player is None else self.next_player + 1,
            "first_player": None if self.first_player is None else self.first_player + 1,
            "extra_turns": [s + 1 for s in self.extra_turns],
            "first_extra_turns": [s + 1 for s in self.first_extra_turns],
            "resume_from": None if self.resume_from is None else self.resume_from + 1,
            "winners": None if self.winners is None else [w + 1 for w in self.winners],
        }


def _make_copy(cls):
    """`cls.copy` and `cls.trial_copy`, written once from how each field is kept (faster
    than a loop over fields)."""
    for name, how in (("copy", _COPY), ("trial_copy", {**_COPY, **_TRIAL_COPY}),
                      ("world_copy", {**_COPY, **_WORLD_COPY})):
        # (each field set in turn on a new instance: `State(...)`'s 48 keywords cost more)
        sets = "".join(f"    n.{f.name} = {how[f.metadata['copy']].format(f.name)}\n" for f in attrs.fields(cls))
        src = f"def {name}(s{', log=True' if name == 'copy' else ', log=False' if name == 'world_copy' else ''}):\n    n = _new(State)\n{sets}    return n\n"
        ns = {"State": cls, "_rng_copy": _rng_copy, "_DrawnRandom": _DrawnRandom,
              "_SnapshotRandom": _SnapshotRandom, "_new": object.__new__,
              "_copied": dict.copy}   # (each dict's copy, called from C: no comprehension's frame, no method looked up)
        exec(compile(src, f"<State.{name}>", "exec"), ns)
        ns[name].__doc__ = getattr(cls, name).__doc__
        setattr(cls, name, ns[name])


_make_copy(State)


_SEAT_NAMES = tuple(f"P{s + 1}" for s in range(16))


@attrs.frozen
class Player:
    """A seat at the table, as rules see it (`current`, `p.points`)."""

    seat: int  # 0-based

    @property
    def name(self) -> str:
        return _SEAT_NAMES[self.seat] if 0 <= self.seat < len(_SEAT_NAMES) else f"P{self.seat + 1}"

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class ZoneRef:
    """A zone as a value: `stock`, `hand(p)`, `under(c)`, `squad(c, p)`."""

    name: str
    owner: Optional[int]                 # seat, for per-player zones (and per card per player)
    card: Optional[int] = None           # card id, for per-card zones
    host: str = attrs.field(default="", eq=False)   # that card's name, for reading
    # where the state keeps its cards ("stock", "hand:0", "under@12", "squad@12:0"), worked out once
    key: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self):
        key = self.name if self.card is None else f"{self.name}@{self.card}"
        if self.owner is not None:
            key += f":{self.owner}"
        object.__setattr__(self, "key", key)

    def __str__(self) -> str:
        if self.card is not None:
            host = self.host or '#' + str(self.card)
            return f"{self.name}({host})" if self.owner is None else f"{self.name}({host}, P{self.owner + 1})"
        return self.name if self.owner is None else f"{self.name}(P{self.owner + 1})"


def parse_zone_key(key: str):
    """(name, owner seat or None, card id or None) of a zone key."""
    name, _, owner = key.partition(":")
    card = None
    if "@" in name:
        name, _, host = name.partition("@")
        card = int(host)
    return name, (int(owner) if owner else None), card


@attrs.frozen
class Group:
    """One group of a pattern match, or of `group by`: `.label`, `.size`, `.cards`."""

    label: object
    cards: tuple

    @property
    def size(self) -> int:
        return len(self.cards)


@attrs.frozen
class Match:
    """What a pattern found: the shape's name and its groups."""

    shape: str
    groups: tuple


_NO_FIELDS: dict = {}   # the fields of every event that has none: shared, never written


@attrs.define
class Event:
    """Something that happened: a card moved, a turn started, a custom `emit`."""

    kind: str                  # draw | discard | deal | move | start | end | custom
    name: Optional[str] = None  # scope for start/end, the custom event's name
    card: object = None
    player: object = None
    source: Optional[ZoneRef] = None
    dest: Optional[ZoneRef] = None
    forced: bool = False
    phase: Optional[str] = None
    fields: dict = _NO_FIELDS   # a custom event's own fields (never changed once made)
    cancelled: bool = False

    def get(self, attr: str):
        if attr == "from":
            return self.source.name if self.source else None
        if attr == "to":
            return self.dest.name if self.dest else None
        if attr in ("card", "player", "forced", "kind", "phase"):
            return getattr(self, attr)
        if attr == "name":
            return self.name
        if attr in self.fields:
            return self.fields[attr]
        raise KeyError(attr)


def custom_event(name: str, fields: dict, phase: Optional[str]) -> Event:
    """The event `emit NAME(fields)` raises (for both engines): its `card` and `player` are the
    fields of those names (`player` only when it is a player)."""
    player = fields.get("player")
    return Event("custom", name, fields.get("card"), player if isinstance(player, Player) else None,
                 None, None, False, phase, fields)


_SCALARS = frozenset((str, int, bool, float, type(None)))


def plain(v):
    """A rules value as plain JSON data: cards and players by name, groups as lists."""
    if type(v) in _SCALARS:   # (most values: the seat view asks this for every card it shows)
        return v
    if hasattr(v, "props"):
        return v.name
    if isinstance(v, Player):
        return v.name
    if isinstance(v, ZoneRef):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, Group):
        return {"label": plain(v.label), "cards": plain(v.cards)}
    if isinstance(v, Match):
        return {"shape": v.shape, "groups": plain(v.groups)}
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    return v
