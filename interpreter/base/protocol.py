"""What the engines and their drivers share: the limits, the exceptions that unwind the
rules (`end turn`, a decided game), and the decision API (:class:`Decision`,
:class:`ActionChoice`, :class:`AnswerError`)."""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs

from . import ast as A

MAX_EVENT_DEPTH = 60      # nested events before a trigger chain counts as runaway
MAX_LOOP = 10_000         # iterations of one `while` / `repeat`
MAX_SETTLE = 1_000        # state checks run while the game settles once, before they count as runaway
MAX_TURNS = 100_000       # turns in one round
MAX_ROUNDS = 10_000
# Limits a ruleset cannot blow (docs/language.md, "Limits"): a game's whole budget of steps
# (each statement run and each turn played is one; every event is raised by one of them),
# and the sizes of what the rules may build. Each is one number, read by both engines and
# by the parser.
DEFAULT_MAX_STEPS = 200_000     # steps in one game, unless `max_steps` says otherwise
MAX_NESTING = 64          # blocks and brackets open at once in a ruleset file
MAX_DEPTH = 200           # levels of the parse tree (a block is about two, each operator of a chain one)
MAX_NUMBER = 10 ** 18     # the largest magnitude of a number, written or computed
MAX_DICE = 1_000          # dice in one roll (`1000d6`)
MAX_LIST = 100_000        # items in a list a variable holds
MAX_TEXT = 1_000_000      # characters in a text a rule builds
MAX_CALLS = 100_000       # calls of defs and tables while one step runs (a doubling recursion runs no statement)

#: What a game counts of each card's moves (`Result.stats`: `card drawn:NAME` …), once for the
#: engines, the batch reports and the scenarios' `expect: stats:`. `draw`, `deal` and
#: `discard` count those statements' cards by name; `move` counts every change of zone a card
#: makes, whatever made it (a deal, a draw, a `move`, a `swap`, a discard …), by name, and
#: `flow` the same changes by the zones involved (`cards moved:deck>hand`): both are counted
#: where a card changes zone (`Engine._place`, `Engine._count_move`). A card at its starting
#: zone is not counted; one that never left it is a dead card.
CARD_STATS = {"draw": "card drawn:", "deal": "card dealt:", "discard": "card discarded:", "move": "card moved:",
              "flow": "cards moved:"}
EVENT_STAT = "event:"   # a custom event's count: `event:NAME`


# ---------------------------------------------------------------- control flow

class _EndScope(Exception):
    """`end turn|phase|round|game` unwinding to the matching level."""

    def __init__(self, scope: str):
        self.scope = scope


class _GameOver(Exception):
    """`win`/`lose` decided the game."""


class _TrialMoved(Exception):
    """A card moved while a procedure was being tried (`possible`): it can change the game."""


class _TrialRequired(Exception):
    """The required part of a procedure being tried (`possible`) ended: `done`, whether in full."""

    def __init__(self, done: bool):
        self.done = done


# ---------------------------------------------------------------- decisions

_PLAIN = object()   # (see `Decision._hint`)


@attrs.define
class Decision:
    """A point where a player must decide. Answer with :meth:`Game.answer`.

    - kind "choose": pick `lo`..`hi` of `options` (an index, or a list of indices when
      `hi` > 1); when `optional`, None declines.
    - kind "may": answer True or False.
    - kind "action": pick one of `options` (legal actions) by index.
    """

    player: int                  # 0-based seat
    kind: str
    prompt: str
    options: list                # values (cards, players, texts, actions)
    _labels: Any                 # how each option reads (or a function that tells, called once when read)
    lo: int = 1
    hi: int = 1
    optional: bool = False
    tag: Optional[str] = None
    secret: bool = False
    span: Optional[A.Span] = None
    _scores: Optional[Callable] = None
    _view: Optional[Callable] = None
    _sampler: Optional[Callable] = None   # set by a forkable Game: `sample`
    # asked out of the other seats' sight: a trigger's own question (the order of its
    # player's triggers that happen at once), every yes or no (an optional trigger's, a
    # reaction window's, a `may`), every question asked while a reaction runs, and every
    # choice or `act` whose options are worked out from what some seat cannot see
    # (`resolver.asks_hidden`, `acts_hidden`: one legal answer is not asked), whose
    # being asked can tell what fired it or what its player holds; the other seats see
    # neither it nor its answer's line (`seat_view`, `Statements.c_took`, `yes_no`;
    # docs/language.md sections 8 and 9.1, docs/view.md)
    private: bool = False
    # the engine that asked, which tells how each option reads when `labels` is first read
    # and `_labels` is None (`Views.options_for`): no function made per question
    _asker: Any = attrs.field(default=None, repr=False, eq=False)
    # `_scores` as a choice's hint (`Statements.c_ask`): its `prefer` node, whose reads the
    # asker watches for this seat (`hint_values`) when the scores are read; `_PLAIN`: `_scores()`
    # gives them. Kept as its pieces, not a function made per question: most bots never read it.
    _hint: Any = attrs.field(default=_PLAIN, repr=False, eq=False)

    @property
    def labels(self) -> list:
        """How each option reads."""
        if callable(self._labels):
            self._labels = self._labels()
        elif self._labels is None and self._asker is not None:
            self._labels = self._asker.options_for(self.player, self.options)
        return self._labels

    def scores(self) -> Optional[list]:
        """The ruleset's `prefer` values for each option (bigger is better), if it gave any."""
        fn = self._scores
        if fn is None:
            return None
        if self._hint is _PLAIN:
            return fn()
        return self._asker.hint_values(self.player, self._hint, fn, self.options)

    def view(self) -> dict:
        """What the deciding player may know, this decision included: the seat view
        (`docs/view.md`)."""
        return self._view(self) if self._view else {}

    def sample(self, rng):
        """A whole game at this decision, as the deciding player may imagine it: what it
        cannot see dealt anew at random (`Game.determinised`), its own pending decision
        this one. For search bots; only a `forkable` game offers it (else None)."""
        return self._sampler(rng) if self._sampler is not None else None

    def describe(self) -> str:
        return f"P{self.player + 1} {self.kind}: {self.prompt}"


@attrs.define
class ActionChoice:
    """One legal action instance offered by `act`."""

    decl: A.Action
    value: Any
    label: str


OTHERWISE = object()   # what `c_decide` returns when the `otherwise` block runs


class AnswerError(Exception):
    """An answer that does not fit the decision (a human's typo, a buggy bot)."""

