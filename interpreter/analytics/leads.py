"""Who leads a score during a game, and what the eventual winner went through.

:class:`LeadTracker` is fed the score of every seat after each turn (``observe``), keeps a
few numbers per seat (no trace), and at the end gives the game's lead changes,
decisiveness and drama (``result``). ``docs/analytics.md`` defines each one:

- the **strict leader** of a check is the one seat with the best score (the highest, or
  the lowest when lower scores are better); a tie for the best has no strict leader;
- **lead changes**: strict leaders different from the previous strict leader;
- **decisiveness** (games with one winner): the fraction of the checks, counted back from
  the end, during which the winner was the strict leader without a break; 1 = it led
  alone from the first turn on, 0 = it did not lead alone at the end;
- **drama** (games with a winner): the winner's mean deficit behind the best score over
  the checks at which it was behind, divided by the game's score range (the highest minus
  the lowest score of any seat at any check); **worst**: its largest deficit, divided
  the same way; **behind**: the fraction of the checks at which it was behind.
"""
from __future__ import annotations

from typing import Optional, Sequence


class LeadTracker:
    """The leader of one score variable, check after check.

    `observe(values)` once per check; `counted=False` for a check that is not after a turn
    (the position before the first turn): it counts for lead changes, not for
    decisiveness or drama."""

    def __init__(self, players: int, lower_is_better: bool = False):
        self.low = lower_is_better
        self.leader: Optional[int] = None   # the last strict leader (0-based seat)
        self.changes = 0
        self.checks = 0                     # counted checks
        self.run_seat: Optional[int] = None  # the strict leader of the latest counted check …
        self.run_start = 0                  # … and the counted check (1-based) from which it led without a break
        self.behind_sum = [0.0] * players   # each seat's deficits behind the best score, added up …
        self.behind_n = [0] * players       # … the checks at which it was behind …
        self.behind_max = [0.0] * players   # … and its largest deficit
        self.lo: Optional[float] = None     # the lowest and highest score of any seat at any counted check
        self.hi: Optional[float] = None

    def observe(self, values: Sequence[float], counted: bool = True) -> None:
        best = min(values) if self.low else max(values)
        seat = values.index(best) if values.count(best) == 1 else None
        if seat is not None:
            if self.leader is not None and seat != self.leader:
                self.changes += 1
            self.leader = seat
        if not counted:
            return
        self.checks += 1
        if seat is None or seat != self.run_seat:
            self.run_seat = seat
            self.run_start = self.checks
        for s, v in enumerate(values):
            d = v - best if self.low else best - v
            if d > 0:
                self.behind_sum[s] += d
                self.behind_n[s] += 1
                if d > self.behind_max[s]:
                    self.behind_max[s] = d
        lo, hi = min(values), max(values)
        self.lo = lo if self.lo is None or lo < self.lo else self.lo
        self.hi = hi if self.hi is None or hi > self.hi else self.hi

    def decisiveness(self, winners: Sequence[int]) -> Optional[float]:
        """For one winner (0-based seat): the fraction of the counted checks from the start of
        its last unbroken run as strict leader to the end (0 if it did not lead alone at the
        end). None for no winner, a shared win, or no counted check."""
        if len(winners) != 1 or not self.checks:
            return None
        if self.run_seat != winners[0]:
            return 0.0
        return (self.checks - self.run_start + 1) / self.checks

    def drama(self, winners: Sequence[int]) -> Optional[dict]:
        """The winners' (0-based seats) deficits: {"drama", "worst", "behind"}, each averaged
        over the winners of a shared win. None for no winner or no counted check."""
        if not winners or not self.checks:
            return None
        span = (self.hi - self.lo) if self.hi is not None else 0
        drama = worst = behind = 0.0
        for w in winners:
            n = self.behind_n[w]
            if n and span > 0:
                drama += self.behind_sum[w] / n / span
                worst += self.behind_max[w] / span
            behind += n / self.checks
        k = len(winners)
        return {"drama": drama / k, "worst": worst / k, "behind": behind / k}


def lead_metrics(values_after_each_turn: Sequence[Sequence[float]], winners: Sequence[int],
                 lower_is_better: bool = False, before_first_turn: Optional[Sequence[float]] = None) -> dict:
    """Lead changes, decisiveness and drama of a whole trace at once (for tests and notebooks):
    the scores of every seat after each turn, and the winners (0-based seats)."""
    players = len(values_after_each_turn[0]) if values_after_each_turn else len(before_first_turn or [])
    t = LeadTracker(players, lower_is_better)
    if before_first_turn is not None:
        t.observe(before_first_turn, counted=False)
    for values in values_after_each_turn:
        t.observe(values)
    drama = t.drama(winners) or {"drama": None, "worst": None, "behind": None}
    return {"lead_changes": t.changes, "decisiveness": t.decisiveness(winners), **drama}
