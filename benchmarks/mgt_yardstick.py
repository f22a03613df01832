"""The yardstick: Monster Girl Taxonomy v0.2 hand-written in plain Python, random agents.

    python benchmarks/mgt_yardstick.py [--seconds S] [--seed N]   # complete rounds per second
    python benchmarks/mgt_yardstick.py --check [--rounds N]       # invariants and statistics
    python benchmarks/mgt_yardstick.py --check --interpreter      # … side by side with cgl

This is what a programmer would write for this one game without cgl: the same rules as
`rulesets/mgt.cgl` (with the decisions of `rulesets/README.md`), the same decisions asked
as often, answered at random as cgl's `random` agent answers them (uniform choices, "yes"
half the time). It is a yardstick for the interpreter's speed, not a replay: the random
numbers are drawn in a different order, so single games differ, while the statistics of
many rounds (wins, turns, claims) should agree.

One process, one core. The card data is read once; each round then deals (a draw: dealt
honest and impatient monsters act, and whoever holds more than eight discards back before
play), plays turns until a win or an empty stock, and scores. A match is three rounds: a
proud monster's ban and the monster set aside, a lost turn not yet served, and the count of
cards taken from others' discards carry over to its later rounds.

The rules are those of `rulesets/mgt.cgl` after issue 31 (README decisions 6, 9, 10, 14,
21): a nature acts on every discard of its monster, the ones another nature forced
included; every discard still in the pile may be claimed, but only once the discarder has
drawn or discarded back to eight and their hand has been checked for a win, in the order
discarded (a claim's own discard is checked and offered before the next of them).
"""
from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

import yaml

CARDS_FILE = pathlib.Path(__file__).resolve().parent.parent / "rulesets" / "mgt-cards.yaml"
HAND_SIZE = 8
ROUNDS_PER_MATCH = 3
ORPHAN_LABELS = ("orphans", "beastman orphans")
ANY = None                       # the "one other monster" of 7 orphans + 1: any card
ROCK_PAPER_SCISSORS = ("rock", "paper", "scissors")
BEATS = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}


# ---------------------------------------------------------------- card data

@dataclass(slots=True, eq=False)
class Card:
    """One monster: its data (fixed) and what a round does to it."""

    name: str
    key: str                     # collecting key: the family for beastmen, else the type
    base_nature: str
    orphan: str | None           # "orphans", "beastman orphans" or None
    labels_plain: tuple          # the groups it can be collected in...
    labels_cheerful: tuple       # ... and the same when its nature is cheerful
    misc: bool                   # a miscellaneous monster rolls its nature when drawn
    nature: str = ""
    meld: str | None = None      # the label of the exposed set it lies in
    meld_id: int = 0             # which of its owner's exposed sets

    @property
    def labels(self) -> tuple:
        return self.labels_cheerful if self.nature == "cheerful" else self.labels_plain


@dataclass
class Deck:
    """The card data, read once: what each card is, the miscellaneous roll, group sizes."""

    specs: list                  # keyword arguments for Card, one per monster
    misc_nature: dict            # 2d20 - 4 -> nature
    deck_size: dict              # label -> how many monsters of the deck carry it

    def new_cards(self) -> list:
        return [Card(**spec) for spec in self.specs]


_DECK: Deck | None = None


def load_deck(path=CARDS_FILE) -> Deck:
    global _DECK
    if _DECK is not None and path == CARDS_FILE:
        return _DECK
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    to_nature = data["tables"]["disposition_nature"]
    misc_nature = {int(k): v for k, v in data["tables"]["misc_nature"].items()}
    raw = data["cards"]
    type_size = Counter(c["type"] for c in raw)
    family_size = Counter(c["family"] for c in raw if c["type"] == "BEASTMAN")

    specs = []
    deck_size = Counter()
    for c in raw:
        beastman = c["type"] == "BEASTMAN"
        key = c["family"] if beastman else c["type"]
        natures = [to_nature[d] for d in c["disposition"]]
        # decision 1: the first disposition with an effect, else the first one's
        effective = [n for n in natures if n != "other"]
        base_nature = effective[0] if effective else natures[0]
        if beastman:
            orphan = "beastman orphans" if family_size[c["family"]] == 1 else None
        else:
            orphan = "orphans" if type_size[c["type"]] == 1 else None
        tail = (orphan,) if orphan else ()
        plain = (key,) + tail
        cheerful = (key, "cheerful") + tail
        base_labels = cheerful if base_nature == "cheerful" else plain
        deck_size.update(base_labels)
        specs.append(dict(name=c["name"], key=key, base_nature=base_nature, orphan=orphan,
                          labels_plain=plain, labels_cheerful=cheerful,
                          misc=base_nature == "miscellaneous"))
    deck = Deck(specs, misc_nature, dict(deck_size))
    if path == CARDS_FILE:
        _DECK = deck
    return deck


# ---------------------------------------------------------------- scoring

def how_points(shape: str, taken: int) -> int:
    if shape == "two_fours":
        return 1 if taken >= 2 else 2 if taken == 1 else 3
    if shape == "five_three":
        return 2 if taken >= 1 else 3
    if shape in ("eight", "orphans_and_one"):
        return 4 if taken >= 1 else 5
    return 0


def what_points(label, size: int, deck_size: dict) -> int:
    n = deck_size.get(label, 0)
    if size == 4:
        if label in ORPHAN_LABELS:
            return 2
        return 3 if n == 4 else 2 if 5 <= n <= 7 else 0
    if size == 8:
        return 6 if n == 8 else 3 if 9 <= n <= 12 else 0
    if size == 7 and label in ORPHAN_LABELS:
        return 12
    return 0


# ---------------------------------------------------------------- a match

class RoundOver(Exception):
    """A win or an empty stock ends the round from wherever play is."""

    def __init__(self, winner=None):
        self.winner = winner


class Match:
    """One match of MGT v0.2 between random agents. A proud monster's ban and the monster
    set aside last the whole match (decision 13), and so do a lost turn not yet served
    (decision 11) and the count of cards taken (decision 14); everything else starts afresh
    each round."""

    def __init__(self, players: int = 4, rng: random.Random | None = None, deck: Deck | None = None,
                 check: bool = False):
        self.n = players
        self.rng = rng or random.Random(0)
        self.deck = deck or load_deck()
        self.cards = self.deck.new_cards()
        self.check = check
        self.points = [0] * players
        self.skip = [0] * players                   # turns still to lose
        self.banned = [set() for _ in range(players)]   # keys a player can no longer collect
        self.aside = [[] for _ in range(players)]   # proud monsters set aside, out of the deck
        self.taken = [0] * players                  # cards taken from others' discards (decision 14)
        self.stats = Counter()

    # -------------------------------------------------------- yes/no and choices of a random agent
    def yes(self) -> bool:
        self.stats["decisions"] += 1
        return self.rng.random() < 0.5

    def pick(self, options: list):
        if len(options) > 1:
            self.stats["decisions"] += 1
        return self.rng.choice(options)

    # -------------------------------------------------------- a round
    def play_round(self, round_no: int):
        """Play round `round_no` (1-based); return the winner's seat or None (empty stock)."""
        n = self.n
        aside = {id(c) for cards in self.aside for c in cards}
        self.stock = [c for c in self.cards if id(c) not in aside]
        self.pile = []
        self.hands = [[] for _ in range(n)]
        self.tables = [[] for _ in range(n)]
        self.melds = [0] * n
        self.unoffered = []                          # discards not yet offered to the others
        self.next_player = None
        for card in self.cards:
            card.nature = card.base_nature
            card.meld = None
            card.meld_id = 0
        self.rng.shuffle(self.stock)
        first = (round_no - 1) % n
        self.stats["rounds"] += 1
        try:
            # decision 21: the deal is a draw, one card at a time round the table from the
            # first player; dealt honest and impatient monsters act (an impatient one may draw
            # another at once), then whoever holds more than eight discards back, in seat order
            for _ in range(HAND_SIZE):
                for i in range(n):
                    if not self.stock:
                        break
                    self.take((first + i) % n, self.stock.pop())
            for i in range(n):
                p = (first + i) % n
                if self.holding(p) > HAND_SIZE:
                    self.after_discard(p)
            seat = self.next_player if self.next_player is not None else first
            while True:
                self.next_player = None
                self.turn(seat)
                if self.check:
                    self.check_invariants(between_turns=True)
                seat = self.next_player if self.next_player is not None else (seat + 1) % n
        except RoundOver as end:
            if self.check:
                self.check_invariants(between_turns=False)
            self.stats["wins" if end.winner is not None else "exhausted"] += 1
            return end.winner

    def turn(self, p: int):
        self.stats["turns"] += 1
        if self.skip[p] > 0:                                # beaten at rock-paper-scissors
            self.skip[p] -= 1
            return
        if not self.stock:                                  # decision 5: exhaustive draw
            raise RoundOver(None)
        self.draw(p)
        hand = self.hands[p]
        if hand:
            self.discard(p, self.pick(hand))
        self.after_discard(p)

    def after_discard(self, p: int):
        """What follows p's discard: back to eight (MGT-EIGHT), the hand checked (decision 6),
        then each card p discarded and still in the pile offered, in order (decision 9)."""
        self.refill(p)
        self.check_win(p)
        cards, self.unoffered = self.unoffered, []
        for card in cards:
            if card in self.pile:
                self.claim_window(p, card)

    def holding(self, p: int) -> int:
        return len(self.hands[p]) + len(self.tables[p])

    def refill(self, p: int):
        """Draw up to eight while the stock lasts; discard (chosen) while over eight."""
        while (self.holding(p) < HAND_SIZE and self.stock) or (self.holding(p) > HAND_SIZE and self.hands[p]):
            if self.holding(p) > HAND_SIZE:
                self.discard(p, self.pick(self.hands[p]))
            else:
                self.draw(p)

    # -------------------------------------------------------- drawing
    def misc_roll(self, card: Card):
        if card.misc:
            self.stats["misc_roll"] += 1
            roll = self.rng.randint(1, 20) + self.rng.randint(1, 20) - 4
            card.nature = self.deck.misc_nature[roll]

    def draw(self, p: int):
        if not self.stock:
            return
        card = self.stock.pop()
        self.take(p, card)
        if self.tables[p]:
            extend = self.extend_labels(p, card)
            if extend and self.yes():                       # extend an exposed set
                self.stats["extend"] += 1
                self.hands[p].remove(card)
                self.add_to_set(p, card, extend[0])

    def take(self, p: int, card: Card):
        """`card`, just taken from the stock (drawn or dealt), goes into p's hand and acts."""
        self.hands[p].append(card)
        self.misc_roll(card)
        if card.nature == "honest":
            self.stats["honest"] += 1
            peek = self.stock[-3:]                          # seen by the player; changes nothing
            del peek
        if card.nature == "impatient" and self.yes():
            self.stats["impatient"] += 1
            self.draw(p)

    def extend_labels(self, p: int, card: Card) -> list:
        """The groups of p's exposed sets (latest first) that `card` may join: it is not of a
        banned type, the table is not full (decision 20) and the set has room for it."""
        table = self.tables[p]
        if len(table) >= HAND_SIZE or card.key in self.banned[p]:
            return []
        sizes = {}
        for c in reversed(table):
            sizes[c.meld] = sizes.get(c.meld, 0) + 1
        labels = card.labels
        return [label for label, size in sizes.items() if size < 8 and label in labels]

    def add_to_set(self, p: int, card: Card, label: str):
        """Put `card` on p's table in the exposed set of `label`."""
        table = self.tables[p]
        card.meld = label
        card.meld_id = next(c.meld_id for c in reversed(table) if c.meld == label)
        table.append(card)

    # -------------------------------------------------------- discarding
    def discard(self, p: int, card: Card):
        """p discards `card` from the hand, chosen or forced: it waits to be offered, and its
        nature acts (decision 10: on every discard; a card already gone stays gone)."""
        hand = self.hands[p]
        hand.remove(card)
        self.pile.append(card)
        self.unoffered.append(card)
        nature = card.nature
        if nature == "aggressive":
            if self.yes():
                self.stats["aggressive"] += 1
                others = [(p + i) % self.n for i in range(1, self.n)]
                target = self.pick(others)
                loser = self.rock_paper_scissors(p, target)
                self.skip[loser] += 1
        elif nature == "cheerful":
            self.stats["cheerful"] += 1
            for c in [c for c in hand if c.nature == "cheerful"]:
                if c in hand:
                    self.discard(p, c)
        elif nature == "mean":
            self.stats["mean"] += 1
            if hand:
                self.discard(p, self.rng.choice(hand))
        elif nature == "proud":
            self.stats["proud"] += 1
            self.pile.pop()                                 # set aside: never offered
            self.aside[p].append(card)
            for c in [c for c in hand if c.key == card.key]:
                if c in hand:
                    self.discard(p, c)
            self.banned[p].add(card.key)

    def rock_paper_scissors(self, a: int, b: int) -> int:
        """The loser's seat; a tie is played again."""
        while True:
            ha = self.pick(ROCK_PAPER_SCISSORS)
            hb = self.pick(ROCK_PAPER_SCISSORS)
            if (ha, hb) in BEATS:
                return b
            if (hb, ha) in BEATS:
                return a

    # -------------------------------------------------------- claims
    def claim_labels(self, q: int, card: Card) -> list:
        """The sets q may take `card` into (decision 8): an exposed set of its group, or a
        new set with three collectable cards of a group in hand, one more left to discard."""
        banned = self.banned[q]
        hand = self.hands[q]
        if not hand or card.key in banned:
            return []
        labels = self.extend_labels(q, card) if self.tables[q] else []
        if len(hand) > 3:                                   # decision 19
            extend = tuple(labels)
            for label in card.labels:
                if label not in extend and sum(1 for c in hand
                                               if label in c.labels and c.key not in banned) >= 3:
                    labels.append(label)
        return labels

    def claim_window(self, p: int, card: Card):
        if card.nature == "loyal":                          # v0.2: a loyal monster stays
            return
        for i in range(1, self.n):
            q = (p + i) % self.n
            labels = self.claim_labels(q, card)
            if labels and self.yes():
                self.claim(q, p, card, labels)
                return

    def claim(self, q: int, p: int, card: Card, labels: list):
        self.stats["claims"] += 1
        label = self.pick(labels)
        self.taken[q] += 1
        self.pile.remove(card)
        hand = self.hands[q]
        if label in self.extend_labels(q, card):            # into an exposed set
            self.add_to_set(q, card, label)
        else:                                               # a new set of four
            self.melds[q] += 1
            table = self.tables[q]
            table.append(card)
            card.meld = label
            card.meld_id = self.melds[q]
            banned = self.banned[q]
            options = [c for c in hand if label in c.labels and c.key not in banned]
            if len(options) > 3:
                self.stats["decisions"] += 1
                three = self.rng.sample(options, 3)
            else:
                three = options
            for c in three:
                hand.remove(c)
                table.append(c)
                c.meld = label
                c.meld_id = self.melds[q]
        if card.nature == "honest":
            seen = list(self.hands[p])                     # the claimer sees the discarder's hand
            del seen
        self.next_player = (q + 1) % self.n               # decision 7: play goes on after the claimer
        if hand:
            self.discard(q, self.pick(hand))
        self.after_discard(q)

    # -------------------------------------------------------- winning
    def check_win(self, p: int):
        points = self.best_reading(p)
        if points is not None:
            self.points[p] += points
            self.stats["points"] += points
            raise RoundOver(p)

    def best_reading(self, p: int):
        """The points of the best reading of p's eight cards as a winning hand, or None."""
        if self.holding(p) != HAND_SIZE:
            return None
        banned = self.banned[p]
        sets = {}                                           # exposed sets stay together
        for c in self.tables[p]:
            label, size = sets.get(c.meld_id, (c.meld, 0))
            sets[c.meld_id] = (label, size + 1)
        sets = list(sets.values())
        hand = [() if c.key in banned else c.labels for c in self.hands[p]]
        support = {}                                        # how many cards could carry a label
        for label, size in sets:
            support[label] = support.get(label, 0) + size
        for labels in hand:
            for label in labels:
                support[label] = support.get(label, 0) + 1
        candidates = sorted(label for label, n in support.items() if n >= 3)

        taken = self.taken[p]
        deck_size = self.deck.deck_size
        best = None
        for a in candidates:
            if support[a] == 8 and fits(sets, hand, a, 8, ANY, 0):
                best = max_points(best, how_points("eight", taken) + what_points(a, 8, deck_size))
            if a in ORPHAN_LABELS and support[a] >= 7 and fits(sets, hand, a, 7, ANY, 1):
                best = max_points(best, how_points("orphans_and_one", taken) + what_points(a, 7, deck_size))
            if support[a] < 4:
                continue
            for b in candidates:
                if b == a:
                    continue
                if a < b and support[b] >= 4 and fits(sets, hand, a, 4, b, 4):
                    best = max_points(best, how_points("two_fours", taken)
                                      + what_points(a, 4, deck_size) + what_points(b, 4, deck_size))
                if support[a] >= 5 and fits(sets, hand, a, 5, b, 3):
                    best = max_points(best, how_points("five_three", taken))
        return best

    # -------------------------------------------------------- checks
    def check_invariants(self, between_turns: bool):
        places = self.stock + self.pile
        for p in range(self.n):
            places += self.hands[p] + self.tables[p] + self.aside[p]
        assert len(places) == len(self.cards), f"{len(places)} cards in play, not {len(self.cards)}"
        assert len({id(c) for c in places}) == len(self.cards), "a card is in two places"
        assert all(len(table) <= HAND_SIZE for table in self.tables), "a table past eight cards"
        if between_turns and self.stock:
            assert all(self.holding(p) == HAND_SIZE for p in range(self.n)), \
                [self.holding(p) for p in range(self.n)]


def fits(sets: list, hand: list, a, size_a: int, b, size_b: int) -> bool:
    """Can the exposed sets and hand cards be split into `size_a` cards of label `a` and
    `size_b` of label `b` (ANY: any card)? Sets go whole into the group of their label."""
    need_a = need_b = 0
    for label, size in sets:
        if label == a:
            need_a += size
        elif b is ANY and size_b >= size or label == b:
            need_b += size
        else:
            return False
    for labels in hand:
        in_a = a in labels
        in_b = b is ANY and size_b > 0 or b in labels
        if in_a and not in_b:
            need_a += 1
        elif in_b and not in_a:
            need_b += 1
        elif not in_a:
            return False
    return need_a <= size_a and need_b <= size_b


def max_points(best, points):
    return points if best is None or points > best else best


# ---------------------------------------------------------------- measuring

def _rounds(players: int, seed: int, check: bool = False, stats: Counter | None = None):
    """Rounds forever: matches of three rounds (round r starts with seat r)."""
    rng = random.Random(seed)
    deck = load_deck()
    while True:
        match = Match(players, rng, deck, check)
        for r in range(1, ROUNDS_PER_MATCH + 1):
            yield match.play_round(r)
        if stats is not None:
            stats.update(match.stats)


def simulate_rounds(n_rounds: int, players: int = 4, seed: int = 0):
    """Play `n_rounds` complete rounds; return (rounds, seconds)."""
    load_deck()
    rounds = _rounds(players, seed)
    t0 = time.perf_counter()
    for _ in range(n_rounds):
        next(rounds)
    return n_rounds, time.perf_counter() - t0


def simulate_for(seconds: float, players: int = 4, seed: int = 0):
    """Play complete rounds until `seconds` have passed; return (rounds, seconds)."""
    load_deck()
    rounds = _rounds(players, seed)
    done = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        next(rounds)
        done += 1
    return done, time.perf_counter() - t0


def self_check(n_rounds: int = 200, players: int = 4, seed: int = 0) -> Counter:
    """Play with the invariants checked after every turn; return the statistics."""
    stats = Counter()
    rng = random.Random(seed)
    deck = load_deck()
    played = 0
    while played < n_rounds:
        match = Match(players, rng, deck, check=True)
        for r in range(1, ROUNDS_PER_MATCH + 1):
            if played == n_rounds:
                break
            match.play_round(r)
            played += 1
        stats.update(match.stats)
    return stats


TRIGGERS = ("misc_roll", "honest", "impatient", "extend", "aggressive", "cheerful", "mean", "proud")


def interpreter_stats(n_rounds: int, players: int = 4, seed: int = 0) -> Counter:
    """The same statistics from cgl's interpreter (random agents), for comparison."""
    from cgl.interpreter.play.game import play
    from cgl.interpreter.check.loader import load

    rs = load("mgt")
    stats = Counter()
    while stats["rounds"] < n_rounds:
        g = play(rs, players, seed, agents=["random"] * players)
        s = g.result.stats
        stats["rounds"] += g.result.rounds
        stats["turns"] += s.get("turns", 0)
        stats["claims"] += s.get("reaction:claim", 0)
        stats["wins"] += s.get("event:round_won", 0)
        stats["exhausted"] += s.get("event:exhausted", 0)
        stats["decisions"] += g.result.decisions
        stats["points"] += sum(p["points"] for p in g.result.players)
        for t in TRIGGERS:
            stats[t] += s.get(f"trigger:{t}", 0)
        seed += 1
    return stats


def describe(stats: Counter) -> str:
    r = stats["rounds"]
    return (f"{r} rounds: {stats['wins'] / r:6.1%} won, {stats['exhausted'] / r:6.1%} exhausted; "
            f"per round {stats['turns'] / r:6.1f} turns, {stats['claims'] / r:5.2f} claims, "
            f"{stats['decisions'] / r:6.1f} decisions, {stats['points'] / r:5.2f} points\n"
            + " " * 13 + "nature effects per round: "
            + ", ".join(f"{t} {stats[t] / r:.2f}" for t in TRIGGERS))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="wall-clock budget for the speed figure")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="check invariants and print statistics instead")
    ap.add_argument("--rounds", type=int, default=200, help="rounds for --check")
    ap.add_argument("--interpreter", action="store_true", help="with --check: the same statistics from cgl")
    args = ap.parse_args(argv)
    if args.check:
        stats = self_check(args.rounds, args.players, args.seed)
        assert stats["rounds"] == stats["wins"] + stats["exhausted"]
        print(f"invariants held after every turn of {stats['rounds']} rounds ({args.players} players)")
        print(f"yardstick    {describe(stats)}")
        if args.interpreter:
            print(f"interpreter  {describe(interpreter_stats(args.rounds, args.players, args.seed))}")
        return
    rounds, seconds = simulate_for(args.seconds, args.players, args.seed)
    print(f"MGT v0.2 yardstick, {args.players} players, random agents, one core: "
          f"{rounds} rounds in {seconds:.2f} s = {rounds / seconds:,.0f} rounds/s")


if __name__ == "__main__":
    main(sys.argv[1:])
