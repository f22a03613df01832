"""The typed AST of CGL: one frozen attrs class per construct, each with its source span.

Every class's docstring shows the CGL it stands for. The transformer in
:mod:`cgl.interpreter.parse.build` is the only code that makes these from Lark trees.
"""
from __future__ import annotations

from typing import Optional

import attrs


@attrs.frozen
class Span:
    """Where a node came from: file, 1-based line and column, and where it ends."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


NOWHERE = Span("<builtin>", 0, 0, 0, 0)


@attrs.frozen
class Node:
    span: Span = attrs.field(kw_only=True, default=NOWHERE, eq=False, repr=False)


# ---------------------------------------------------------------- expressions

class Expr(Node):
    """Base class of expressions."""


@attrs.frozen
class Int(Expr):
    """`8`"""
    value: int


@attrs.frozen
class Text(Expr):
    """`"Discard {card.name}"` — a string; `{expr}` parts are filled in when evaluated."""
    parts: tuple  # of str | Expr

    @property
    def constant(self) -> Optional[str]:
        if all(isinstance(p, str) for p in self.parts):
            return "".join(self.parts)
        return None


@attrs.frozen
class Dice(Expr):
    """`2d20`, `d6` — rolls dice from the game's random source when evaluated."""
    count: int
    sides: int


@attrs.frozen
class Const(Expr):
    """`true`, `false`, `none`"""
    value: object


@attrs.frozen
class Name(Expr):
    """`points` — a local, a property of `it`, an option, a variable, a definition…"""
    id: str


@attrs.frozen
class Call(Expr):
    """`count(hand(p))` — a built-in, a `def`, a pattern, a table or a per-player zone."""
    name: str
    args: tuple


@attrs.frozen
class Possible(Expr):
    """`possible(card_effect(actor, c))` — whether the procedure, were it run now, could
    change the game (tried on a copy of the state: interpreter/walker/trial.py)."""
    call: Call


@attrs.frozen
class ListLit(Expr):
    """`["rock", "paper", "scissors"]`"""
    items: tuple


@attrs.frozen
class Comprehension(Expr):
    """`[c.key for c in hand(p) if c.key != "BEASTMAN"]`"""
    expr: Expr
    name: str
    source: Expr
    cond: Optional[Expr]


@attrs.frozen
class Attr(Expr):
    """`card.nature`, `current.points`, `m.shape`"""
    obj: Expr
    name: str


@attrs.frozen
class BinOp(Expr):
    """`2d20 - 4`, `hand(p) + table(p)`"""
    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Compare(Expr):
    """`nature = proud`, `count(stock) > 0`"""
    op: str
    left: Expr
    right: Expr


@attrs.frozen
class In(Expr):
    """`label in p.banned`, `c not in hand(p)`"""
    left: Expr
    right: Expr
    negated: bool


@attrs.frozen
class And(Expr):
    """`a and b`"""
    left: Expr
    right: Expr


@attrs.frozen
class Or(Expr):
    """`a or b`"""
    left: Expr
    right: Expr


@attrs.frozen
class Not(Expr):
    """`not event.forced`"""
    operand: Expr


@attrs.frozen
class Neg(Expr):
    """`-usefulness(p, c)`"""
    operand: Expr


@attrs.frozen
class IfExpr(Expr):
    """`if type = "BEASTMAN" then family else type`"""
    cond: Expr
    then: Expr
    otherwise: Expr


@attrs.frozen
class Where(Expr):
    """`hand(p) where nature = cheerful` — `it` is each element."""
    source: Expr
    cond: Expr


@attrs.frozen
class GroupBy(Expr):
    """`hand(p) group by key` — a list of groups with `.label`, `.size`, `.cards`."""
    source: Expr
    key: Expr


@attrs.frozen
class SortBy(Expr):
    """`players sort by points` — ascending, stable."""
    source: Expr
    key: Expr


# ---------------------------------------------------------------- statements

class Stmt(Node):
    """Base class of statements."""


@attrs.frozen
class Block(Node):
    """`{ draw 1  discard c }`"""
    stmts: tuple


@attrs.frozen
class Move(Stmt):
    """`move card to table(responder) bottom [then { … }]`"""
    cards: Expr
    dest: Expr
    position: str  # "top" | "bottom"
    then: Optional[Block] = None   # runs when at least one card moved


@attrs.frozen
class Swap(Stmt):
    """`swap u with v [then { … }]` — two cards trade places, as one event."""
    a: Expr
    b: Expr
    then: Optional[Block] = None


@attrs.frozen
class Draw(Stmt):
    """`draw 1`, `draw 2 from stock to hand(p)`, `draw 1 as c then { say "{c.name}" }`"""
    count: Expr
    source: Optional[Expr]
    dest: Optional[Expr]
    then: Optional[Block] = None
    name: Optional[str] = None   # `as NAME`: what was drawn, bound for the `then` block and the rest of the block

    @property
    def one(self) -> bool:
        """Whether `as NAME` binds one card (or `none`), not a list: the count is the literal 1."""
        return isinstance(self.count, Int) and self.count.value == 1


@attrs.frozen
class Deal(Stmt):
    """`deal 8 to hand` — one card at a time to each player's zone, in seat order."""
    count: Expr
    source: Optional[Expr]
    zone: str
    then: Optional[Block] = None


@attrs.frozen
class Discard(Stmt):
    """`discard c`, `discard random(hand(p)) forced`"""
    cards: Expr
    dest: Optional[Expr]
    forced: bool
    then: Optional[Block] = None


@attrs.frozen
class Shuffle(Stmt):
    """`shuffle stock`"""
    zone: Expr


@attrs.frozen
class Cut(Stmt):
    """`cut stock`, `cut stock at 3` — the top part of an ordered zone goes under the rest:
    a random number of cards (at least one left in each part), or the given number."""
    zone: Expr
    at: Optional[Expr] = None


@attrs.frozen
class Reveal(Stmt):
    """`reveal top(stock, 3) to player` (private) or `reveal card` (to everyone)."""
    what: Expr
    to: Optional[Expr]


@attrs.frozen
class Set(Stmt):
    """`set p.points += 3`"""
    target: Expr  # Name or Attr
    op: str
    value: Expr


@attrs.frozen
class Let(Stmt):
    """`let m = winning(p)`"""
    name: str
    value: Expr


@attrs.frozen
class Choose(Stmt):
    """`choose c in hand(current) by current "Discard a card" prefer -worth(c) { discard c }`

    `may choose …` may be declined (then the `else` block runs); `choose 2..3 cs in …`
    binds a list. Its bounds may be computed, each a name, a call or an expression in
    brackets (`choose 1..(count(hand(p)) - 1) cs in hand(p)`), evaluated when the choice is
    made: a bound below zero counts as zero, HI above the options as all of them, and with
    no count that fits (LO above HI, or above the options) nothing is asked and the `else`
    block runs. (`choose 2 cs` is `2..2`, one `Int` twice; with no count, `lo` and `hi` are
    None and NAME is one value: `Statements.c_ask`.)
    """
    optional: bool
    lo: Optional[Expr]
    hi: Optional[Expr]
    name: str
    domain: Expr
    by: Optional[Expr]
    prompt: Optional[Text]
    prefer: Optional[Expr]
    tag: Optional[str]
    body: Block
    otherwise: Optional[Block]


@attrs.frozen
class ChooseTargets(Stmt):
    """`choose targets of c by p { resolve(p, c) } else { say "no target" }`

    Names the targets of card `c`'s effect: for each `target` declaration whose condition
    holds for `c`, in declaration order, `p` chooses one of its legal options. `target(c)`
    reads them inside the block (dynamically: in the procedures and triggers it runs
    too); they are forgotten when the block ends. A target already named by an enclosing
    `choose targets of` the same card is kept (not asked again); when a target has no
    legal option the block is skipped (the effect is impossible, a shortfall for
    `require` and `possible`), and the `else` block runs.
    """
    card: Expr
    by: Expr
    body: Block
    otherwise: Optional[Block] = None


@attrs.frozen
class May(Stmt):
    """`may by player "Draw another card?" { draw 1 }` — a yes/no decision."""
    by: Optional[Expr]
    prompt: Optional[Text]
    body: Block
    otherwise: Optional[Block]


@attrs.frozen
class Require(Stmt):
    """`require { discard_cards(p, 2) } then { draw_cards(p, 2) }`

    The required part of an effect: it is done in full when every card statement run in
    it (in the procedures it calls too, not in the triggers it sets off) moved every card
    it was asked to and at least one, and every choice in it had enough options and was
    not declined. `then` runs only when it was; `possible` reads it.
    """
    body: Block
    then: Optional[Block] = None


@attrs.frozen
class Simultaneously(Stmt):
    """`simultaneously { choose a in hands by p1 {…}  choose b in hands by p2 {…} }`

    Every choice inside is made without seeing the others; each stays its chooser's until
    the ruleset says it.
    """
    body: Block


@attrs.frozen
class If(Stmt):
    """`if count(stock) = 0 { end round } elif … { … } else { … }`"""
    branches: tuple  # of (Expr, Block)
    otherwise: Optional[Block]


@attrs.frozen
class For(Stmt):
    """`for c in hand(p) where nature = cheerful { discard c forced }`; with `ordered by P
    ["prompt"]` (`for c in stable(current) where begins(c) ordered by current { … }`) the
    items happen at once and P puts them in the order they run, before the first: one
    question for each place but the last (`Statements.s_order`); `prefer E` scores each
    item for the bots (NAME and `it` are the item; highest first), a hint like a `choose`'s."""
    name: str
    source: Expr
    body: Block
    by: Optional[Expr] = None
    prompt: Optional[Expr] = None
    prefer: Optional[Expr] = None


@attrs.frozen
class Repeat(Stmt):
    """`repeat 3 { draw 1 }`"""
    count: Expr
    body: Block


@attrs.frozen
class While(Stmt):
    """`while holding(p) < 8 and count(stock) > 0 { draw 1 to hand(p) }`"""
    cond: Expr
    body: Block


@attrs.frozen
class End(Stmt):
    """`end turn`, `end phase`, `end round`, `end game`"""
    scope: str


@attrs.frozen
class Win(Stmt):
    """`win players where points = best` — the game ends with these winners."""
    who: Expr


@attrs.frozen
class Lose(Stmt):
    """`lose p` — p is out; the game ends when one player is left, who wins."""
    who: Expr


@attrs.frozen
class KnockOut(Stmt):
    """`knock out foe` — foe is out of the current round (not the game): no turns, not in
    `players`, until the round is over."""
    who: Expr


@attrs.frozen
class Say(Stmt):
    """`say "{p} wins the round."` (to everyone) or `say "…" to p` (privately)."""
    text: Text
    to: Optional[Expr]


@attrs.frozen
class Emit(Stmt):
    """`emit round_won(player: p, points: pts)` — raises a custom event for triggers."""
    name: str
    fields: tuple  # of (str, Expr)


@attrs.frozen
class CallStmt(Stmt):
    """`refill(current)` — runs a procedure."""
    name: str
    args: tuple


@attrs.frozen
class Give(Stmt):
    """`give turn to next_after(responder)` — who plays the next turn."""
    player: Expr


@attrs.frozen
class GiveExtra(Stmt):
    """`give extra turn to current` — that player takes an extra turn after this one:
    queued, each taken in order before the turn order goes on."""
    player: Expr


@attrs.frozen
class ReverseOrder(Stmt):
    """`reverse turn order` — play goes the other way round the table (`direction`)."""


@attrs.frozen
class Act(Stmt):
    """`act by current` — the player picks one legal action and it runs."""
    by: Expr


@attrs.frozen
class Pass(Stmt):
    """`pass` — does nothing."""


#: The statements that change the position (where cards lie and in what order, a variable,
#: the turn order, who is out) or raise an event. The game settles (its state checks) after
#: each one that is not inside a trigger's, reaction's or check's body or a `then` block,
#: on both engines (`Engine.run`, the generator's `stmt`); a statement holding others (`if`,
#: `for`, `choose` …) settles through them. docs/language.md, section 3.20, lists them.
CHANGES = frozenset((Move, Swap, Draw, Deal, Discard, Shuffle, Cut, Set, Lose, KnockOut, Give, GiveExtra, ReverseOrder, Emit))


# ---------------------------------------------------------------- declarations

class Decl(Node):
    """Base class of top-level declarations. `key` names it for `override`/`remove`."""

    @property
    def key(self) -> Optional[str]:
        return getattr(self, "name", None)


@attrs.frozen
class Game(Decl):
    """`game "Monster Girl Taxonomy" { version "0.2"  players 2..6 }`"""
    title: str
    version: Optional[str]
    min_players: int
    max_players: int
    about: Optional[str]

    @property
    def key(self):
        return "game{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class Extends(Decl):
    """`extends "mgt.cgl"`"""
    path: str

    @property
    def key(self):
        return None


@attrs.frozen
class TypeRef(Node):
    """`int`, `text`, `bool`, an enum name, or `list of text`."""
    name: str
    is_list: bool = False

    def __str__(self):
        return f"list of {self.name}" if self.is_list else self.name


@attrs.frozen
class Option(Decl):
    """`option rounds: int in 1..10 = 3 "Rounds in a match"`"""
    name: str
    type: TypeRef
    lo: Optional[int]
    hi: Optional[int]
    default: Expr
    doc: Optional[str]


@attrs.frozen
class Enum(Decl):
    """`enum nature { aggressive, cheerful, other }`"""
    name: str
    members: tuple


@attrs.frozen
class Prop(Node):
    """`family: text` inside `cards from …` (optionally `= default`)."""
    name: str
    type: TypeRef
    default: Optional[Expr]


@attrs.frozen
class Cards(Decl):
    """`cards from "mgt-cards.yaml" { name: text  type: text }` — the schema of the card data."""
    path: str
    props: tuple

    @property
    def key(self):
        return "cards{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class Derive(Decl):
    """`derive key = if type = "BEASTMAN" then family else type` — a computed card property."""
    name: str
    expr: Expr


@attrs.frozen
class Zone(Decl):
    """`zone hand: per player, owner, as hand`; `zone under: per card, public` gives every
    card a zone of its own, `under(c)` (attachments: a Joker under a card); `zone squad: per
    card per player` every card one zone per player, `squad(c, p)`, whose owner is that player
    (each player's side of a sector card both fight over)."""
    name: str
    per_player: bool
    ordered: bool
    visibility: str  # public | owner | hidden
    role: Optional[str]
    per_card: bool = False


@attrs.frozen
class Var(Decl):
    """`var points per player = 0`, `var meld per card = none`, `var round_winner = none`,
    `var points per player = 0 as score`, `var penalty per player = 0 as low score`,
    `internal var tries per card = 0`, `private var seen per player = []`"""
    name: str
    scope: str  # global | player | card
    init: Expr
    role: Optional[tuple] = None   # the words after `as`: ("score",), ("low", "score")
    # who at the table may read it: "public" (everyone), "private" (a player variable: its
    # own player only), "internal" (the rules' bookkeeping: no seat, only the rules)
    sight: str = "public"


@attrs.frozen
class Def(Decl):
    """`def holding(p) = count(hand(p)) + count(table(p))` (params None: a constant)."""
    name: str
    params: Optional[tuple]
    expr: Expr


@attrs.frozen
class Procedure(Decl):
    """`procedure refill(p) { … }` — statements run by `refill(current)`."""
    name: str
    params: tuple
    body: Block


@attrs.frozen
class Table(Decl):
    """`table how_points(m, p) { | m.shape = "eight" -> 5  | else -> 0 }` — first row that holds."""
    name: str
    params: tuple
    rows: tuple  # of (Expr, Expr)
    default: Optional[Expr]


@attrs.frozen
class Part(Node):
    """One part of a shape: `4`, `7 if (label in orphan_labels)`, `1 any`."""
    size: int
    any: bool
    cond: Optional[Expr]


@attrs.frozen
class Shape(Node):
    """`shape five_three: 5 + 3`"""
    name: str
    parts: tuple


@attrs.frozen
class Pattern(Decl):
    """`pattern winning(p) { cards hand(p)  labels labels  fixed meld_id  shape eight: 8  best by points(it) }`

    Called like a function; gives a match (`.shape`, `.groups`) or `none`. Without
    `best by`, the first reading (shapes in order); with it, the reading (shape and
    labels) for which the expression, with `it` the match, is highest.
    """
    name: str
    params: tuple
    cards: Expr
    labels: Expr
    fixed: Optional[Expr]
    shapes: tuple
    best: Optional[Expr] = None


@attrs.frozen
class Setup(Decl):
    """`setup { … }` — runs once before the first round."""
    body: Block

    @property
    def key(self):
        return "setup{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class MatchDecl(Decl):
    """`match { rounds rounds  end { win … } }`"""
    rounds: Optional[Expr]
    start: Optional[Block]
    end: Optional[Block]

    @property
    def key(self):
        return "match{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class RoundDecl(Decl):
    """`round { first seat(round_no)  start { deal 8 to hand }  until count(stock) = 0 }`"""
    start: Optional[Block]
    end: Optional[Block]
    first: Optional[Expr]
    until: Optional[Expr]

    @property
    def key(self):
        return "round{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class Phase(Node):
    """`phase draw { draw 1 }`"""
    name: str
    body: Block


@attrs.frozen
class TurnDecl(Decl):
    """`turn { start { … }  phase draw { … }  phase discard { … } }`"""
    start: Optional[Block]
    end: Optional[Block]
    phases: tuple
    order: Optional[Expr]

    @property
    def key(self):
        return "turn{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class EventPat(Node):
    """`discard`, `move from stock to hand`, `start of turn`, `end of phase draw`, `round_won`"""
    kind: str            # draw | discard | deal | move | start | end | custom
    name: Optional[str] = None       # custom event name, or scope for start/end
    source: Optional[str] = None     # move from
    dest: Optional[str] = None       # move to
    phase: Optional[str] = None

    def __str__(self):
        if self.kind in ("start", "end"):
            return f"{self.kind} of {self.name}" + (f" {self.phase}" if self.phase else "")
        if self.kind == "custom":
            return self.name
        s = self.kind
        if self.source:
            s += f" from {self.source}"
        if self.dest:
            s += f" to {self.dest}"
        return s


@attrs.frozen
class Trigger(Decl):
    """`on discard if nature = proud as proud { … }`; with `may "…"` it is optional.

    With `instead` it is a replacement: `on move to pile if kind = baby instead { move card
    to nursery }` runs its body in place of the card's move, which then never happens.

    With `ordered by P` (`on draw if nature = honest as honest ordered by player { … }`) it
    happens at once with the other triggers of the same event that name the same player,
    and that player orders them (`Events.trigger_order`); `ordered by player prefer E` scores
    the trigger for the bots ordering them (E read as its condition is, in the orderer's view;
    highest first; a trigger of the group without one scores 0).
    """
    name: str
    event: EventPat
    cond: Optional[Expr]
    optional: bool
    ask_by: Optional[Expr]
    prompt: Optional[Text]
    body: Block
    instead: bool = False
    order_by: Optional[Expr] = None
    prefer: Optional[Expr] = None


@attrs.frozen
class Reaction(Decl):
    """`reaction claim after discard { responders others_after(player)  eligible …  ask "…"  once  do { … } }`"""
    name: str
    event: EventPat
    cond: Optional[Expr]
    responders: Optional[Expr]
    eligible: Optional[Expr]
    ask: Optional[Text]
    once: bool
    body: Block


@attrs.frozen
class Action(Decl):
    """`action play(c in hand(current)) "Play {c.name}" when c.kind != instant { … }`"""
    name: str
    param: Optional[str]
    domain: Optional[Expr]
    label: Optional[Text]
    when: Optional[Expr]
    prefer: Optional[Expr]
    body: Block


@attrs.frozen
class Rule(Decl):
    """`rule loyal_stays: forbid claim if card.nature = loyal` — a continuous rule.

    With `zone`, `forbid` is "enter" or "leave": `rule no_babies: forbid enter stable if …`
    refuses every card move into (out of) that zone while the condition holds."""
    name: str
    forbid: str
    cond: Optional[Expr]
    zone: Optional[str] = None

    @property
    def tag(self) -> Optional[str]:
        """The action, reaction or choice tag it forbids (None for a zone rule)."""
        return None if self.zone else self.forbid


@attrs.frozen
class Check(Decl):
    """`check goal: for p in players if score(p) >= goal { win p }` — a state check.

    Whenever the game settles after an event, the engine runs the body of each check whose
    condition holds (for the first element of `domain` it holds for), until none does."""
    name: str
    var: Optional[str]
    domain: Optional[Expr]
    cond: Expr
    body: Block


@attrs.frozen
class TargetDecl(Decl):
    """`target hoof_job if name = "HOOF JOB": q in others(player) where count(hand(it)) > 0 "Whose hand?" prefer count(hand(q))`

    What the effect of a card targets: a card the condition holds for (its bare names are
    the card's properties; `card` is the card, `player` who plays it) targets one value of
    the domain, chosen by `choose targets of card by player`, read by `target(card)`,
    which gives `none` once the value is no longer in the domain (an illegal target)."""
    name: str
    cond: Optional[Expr]
    var: str
    domain: Expr
    prompt: Optional[Text]
    prefer: Optional[Expr]


@attrs.frozen
class Estimate(Decl):
    """`estimate p: p.points * 10 + best_set(p)` — how well player `p` stands, a number,
    bigger is better. Search bots (`mcts`) score a game they cut short with it (a ruleset
    without one: its `points`). One per ruleset; a ruleset that extends another may give
    its own."""
    var: str
    value: Expr

    @property
    def key(self):
        return "estimate{}"  # one per ruleset: a later one (an extending file's) replaces it


@attrs.frozen
class Show(Decl):
    """`show unicorns for p: count(stable(p) where unicorn) "unicorns (7 win)"` — a value
    of each player that the table shows everyone beside the player (progress toward the
    goal, resources, what it controls), worked out from the game whenever it is shown.
    Everyone is told it: it must read only what every player may see."""
    name: str
    var: str
    value: Expr
    label: Optional[str] = None

    @property
    def key(self):
        return f"show {self.name}"


@attrs.frozen
class Invariant(Decl):
    """`invariant eight_cards: count(players where holding(it) != hand_size) = 0`

    A promise the rules make: checked at the end of every turn when invariants are on
    (always in tests, `cgl run --check`); a broken one stops the game with an error.
    """
    name: str
    cond: Expr


@attrs.frozen
class DeckRule(Node):
    """`check size: count(cards) <= 25 "…"` or `each copies: copies <= 3 "…"`."""
    name: str
    per_entry: bool
    cond: Expr
    message: str


@attrs.frozen
class DeckDecl(Decl):
    """`deck { default "decks/" + race1 + ".yaml"  check …  each … }` — each player brings a
    deck list (a YAML file of card names and copies); the rules say what a legal deck is."""
    default: Optional[Expr]
    rules: tuple

    @property
    def key(self):
        return "deck{}"  # a block, not a name: it never clashes with a definition


@attrs.frozen
class Override(Decl):
    """`override def deck_size(l) = …` — replaces the definition of the file it extends."""
    item: Decl

    @property
    def key(self):
        return self.item.key


@attrs.frozen
class Remove(Decl):
    """`remove loyal_stays` — drops a definition of the file it extends."""
    name: str

    @property
    def key(self):
        return self.name


@attrs.frozen
class Module(Node):
    """One parsed `.cgl` file."""
    path: str
    items: tuple


def walk(node):
    """Every AST node at or below `node`, depth first (order not guaranteed)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif attrs.has(type(n)):
            yield n
            for f in attrs.fields(type(n)):
                if f.name != "span":
                    stack.append(getattr(n, f.name))
