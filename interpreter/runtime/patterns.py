"""Hand patterns: can these cards be split into groups of the given sizes?

A pattern names the cards, the labels each card may be grouped under, an optional
"fixed" key (cards sharing a key must stay together: exposed sets), and shapes such as
`4 + 4`. Groups of one shape carry different labels; an `any` part takes any cards.
The solver is a small backtracking search: hands are small (about 8 to 15 cards).
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence


class _Unit:
    """A card, or a fixed group of cards that must go into one group together."""

    __slots__ = ("cards", "labels")

    def __init__(self, cards, labels):
        self.cards = cards
        self.labels = labels


def _units(cards: Sequence, labels: Sequence[Sequence], fixed: Sequence) -> list[_Unit]:
    units: list[_Unit] = []
    by_key: dict = {}
    for card, labs, key in zip(cards, labels, fixed):
        if key in (None, 0, False, ""):
            units.append(_Unit([card], frozenset(labs)))
        elif key in by_key:
            u = by_key[key]
            u.cards.append(card)
            u.labels = u.labels & frozenset(labs)
        else:
            u = _Unit([card], frozenset(labs))
            by_key[key] = u
            units.append(u)
    return units


def _subsets_of_size(units: list[_Unit], size: int):
    """Every choice of units whose card counts add up to `size` (in a stable order)."""
    def rec(start, need, chosen):
        if need == 0:
            yield list(chosen)
            return
        for i in range(start, len(units)):
            n = len(units[i].cards)
            if n <= need:
                chosen.append(i)
                yield from rec(i + 1, need - n, chosen)
                chosen.pop()
    yield from rec(0, size, [])


def solve(cards: Sequence, labels: Sequence[Sequence], fixed: Sequence,
          shapes: Sequence[tuple[str, Sequence[tuple[int, bool, Optional[Callable]]]]]):
    """The first reading of the cards (shapes in order) as (shape name, [(label, [cards])]), or None.

    Each shape is (name, parts); a part is (size, is_any, label_ok) where label_ok(label)
    may restrict the labels that part accepts.
    """
    return next(solve_all(cards, labels, fixed, shapes), None)


def solve_all(cards: Sequence, labels: Sequence[Sequence], fixed: Sequence,
              shapes: Sequence[tuple[str, Sequence[tuple[int, bool, Optional[Callable]]]]]):
    """Every distinct reading (shape, labels and group sizes), shapes in order."""
    units = _units(cards, labels, fixed)
    total = len(cards)
    counts: dict = {}
    for u in units:
        for label in u.labels:
            counts[label] = counts.get(label, 0) + len(u.cards)
    largest = sorted(counts.values(), reverse=True)
    for name, parts in shapes:
        if sum(p[0] for p in parts) != total:
            continue
        # quick rejection: the k largest groups need k different labels with enough cards
        need = sorted((p[0] for p in parts if not p[1]), reverse=True)
        if len(need) > len(largest) or any(n > have for n, have in zip(need, largest)):
            continue
        order = sorted(range(len(parts)), key=lambda i: (parts[i][1], -parts[i][0]))
        seen = set()
        for found in _assign([parts[i] for i in order], units, frozenset()):
            by_pos = dict(zip(order, found))
            groups = [by_pos[i] for i in range(len(parts))]
            key = tuple((label, len(cs)) for label, cs in groups)
            if key not in seen:
                seen.add(key)
                yield name, groups


def _assign(parts, units: list[_Unit], used: frozenset):
    if not parts:
        if not units:
            yield []
        return
    size, is_any, label_ok = parts[0]
    if is_any:
        for chosen in _subsets_of_size(units, size):
            rest = [u for i, u in enumerate(units) if i not in chosen]
            for tail in _assign(parts[1:], rest, used):
                yield [("any", [c for i in chosen for c in units[i].cards])] + tail
        return
    candidates = set()
    for u in units:
        candidates |= u.labels
    for label in sorted(candidates - used, key=str):
        if label_ok is not None and not label_ok(label):
            continue
        eligible = [i for i, u in enumerate(units) if label in u.labels]
        if sum(len(units[i].cards) for i in eligible) < size:
            continue
        sub = [units[i] for i in eligible]
        for chosen in _subsets_of_size(sub, size):
            picked = {eligible[j] for j in chosen}
            rest = [u for i, u in enumerate(units) if i not in picked]
            for tail in _assign(parts[1:], rest, used | {label}):
                yield [(label, [c for i in sorted(picked) for c in units[i].cards])] + tail
