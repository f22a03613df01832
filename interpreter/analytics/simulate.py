"""Designer analytics: play many games of a ruleset and measure them.

    spec = BatchSpec.make("rulesets/mgt.cgl", {"rounds": "3"}, players=4, agents=["random"], seed=1)
    records = run_batch(spec, 200, workers=2)        # one plain dict per game, in game order
    summary = summarize(load(spec.ruleset, dict(spec.options)), spec, records)
    print(format_summary(summary))

and, for two versions played on the same seeds, :func:`compare` and :func:`format_compare`.

This module plays the games (one game's record: :func:`play_one`; a batch, in this
process, in local processes or on Dask: :func:`run_batch`) and is the one place to import
the whole from. The rest lives in one module per job, re-exported here:

- :mod:`.batchspec`: what a batch plays (:class:`BatchSpec`) and the seed of each game;
- :mod:`.summary`: the metrics of a batch (:func:`summarize`) and its CSV rows;
- :mod:`.summary_text`: the text report of a batch (:func:`format_summary`);
- :mod:`.comparison`: two versions side by side (:func:`compare`, :func:`format_compare`);
- :mod:`.skill`: the skill gap of a seat-rotated batch (``--skill A,B``) and of two versions;
- :mod:`.leads`: the leader of the score after each turn: lead changes, decisiveness, drama;
- :mod:`.stats`: the statistics (intervals, tests, quantiles).

Seeds: game ``i`` (1-based) of a batch with seed ``S`` is played with the seed
:func:`game_seed` ``(S, i)`` (a SHA-256 of ``"S:i"``) by the agents :func:`seat_agents`
``(spec, i)`` (the lineup, turned by ``i − 1`` seats in a seat-rotated batch), made exactly
as ``cgl run`` makes them, so ``cgl run FILE --agents … --seed <that seed>`` replays game
``i`` alone.
Because every game depends on its index only, the results do not depend on how the
games are spread over processes: they are merged in game order, and the output is the
same, byte for byte, for any ``--workers``.

The statistics (Wilson intervals, binomial, z, Welch t and chi-square tests) are written
with :mod:`math` only, in :mod:`.stats`; see ``docs/analytics.md`` for what each one means and why.
"""
from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import threading
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Optional, Sequence

from ..codegen import compiled_for
from .batchspec import (SEED_SPACE, BatchSpec, default_direction, default_score, game_seed, rerun_command,
                        rotated_seat, seat_agents)
from .comparison import compare, format_compare
from ..base.diagnostics import CglError, Diagnostic
from ..play.game import Game, make_agent, needs_worlds
from .leads import LeadTracker, lead_metrics
from ..check.loader import load
from ..base.protocol import AnswerError
from .skill import compare_skill, skill_gap
from .stats import (ALPHA, Z95, betainc, binom_pmf, binom_test, chi2_homogeneity, chi2_sf, chi2_uniform, describe,
                    histogram, newcombe, normal_cdf, normal_two_sided, one_prop_z, percentile, t_quantile,
                    share_test, t_two_sided, two_prop_z, welch, wilson)
from .summary import KINDS, csv_rows, declared_events, summarize
from .summary_text import format_summary

# The names other code reaches through `simulate` (most of them live in the modules above).
__all__ = [
    "MAX_DECISIONS", "BatchSpec", "SEED_SPACE", "game_seed", "default_score", "default_direction", "rerun_command", "seat_agents",
    "rotated_seat", "LeadTracker", "lead_metrics", "skill_gap", "compare_skill",
    "remember_ruleset", "play_one", "run_chunk", "run_batch", "DaskUnavailable", "ClusterError",
    "summarize", "KINDS", "declared_events", "csv_rows", "format_summary", "compare", "format_compare",
    "Z95", "ALPHA", "wilson", "normal_cdf", "normal_two_sided", "binom_pmf", "binom_test", "one_prop_z",
    "share_test", "two_prop_z", "newcombe", "chi2_sf", "betainc", "t_two_sided", "t_quantile", "welch",
    "chi2_homogeneity", "chi2_uniform", "percentile", "describe", "histogram",
]

MAX_DECISIONS = 1_000_000    # the same guard as game.play()


# ================================================================ playing one game

_RULESETS: dict = {}


def _ruleset(spec: BatchSpec):
    """The spec's ruleset, loaded once per process."""
    key = (spec.ruleset, spec.options)
    rs = _RULESETS.get(key)
    if rs is None:
        rs = _RULESETS[key] = load(spec.ruleset, dict(spec.options))
    return rs


def remember_ruleset(spec: BatchSpec, rs) -> None:
    """Seed the per-process cache (forked workers then inherit the loaded ruleset)."""
    _RULESETS[(spec.ruleset, spec.options)] = rs


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _field_value(v):
    """A custom event's field as something to count or average (None: neither)."""
    if _number(v):
        return v
    if isinstance(v, (str, bool)):
        return v
    if hasattr(v, "props"):          # a card
        return v.name
    if hasattr(v, "seat") and isinstance(getattr(v, "seat"), int):   # a player
        return f"P{v.seat + 1}"
    return None


class _Watcher:
    """Watches one game: the leader of the score after each turn (:class:`LeadTracker`), and
    the custom events emitted."""

    def __init__(self, engine, score: Optional[str], low: bool = False):
        self.engine = engine
        self.score = score
        self.low = low
        self.lead: Optional[LeadTracker] = None   # made at the first check (it needs the number of seats)
        self.calls = 0
        self.trace: list = []           # the score of every seat at each check (the trajectory)
        self.custom: dict = {}          # name -> {"count", "values": {field: {value: n}}, "numbers": {field: [...]}}
        self.spied = False
        original = getattr(engine, "s_emit", None)
        if callable(original):
            # `emit` writes no log entry, so its fields are caught where the statement runs.
            def spy(s, fields, _original=original):
                self._custom(s.name, fields)
                return _original(s, fields)
            engine.s_emit = spy
            self.spied = True

    def _custom(self, name, fields):
        slot = self.custom.setdefault(name, {"count": 0, "values": {}, "numbers": {}})
        slot["count"] += 1
        for k, v in fields.items():
            v = _field_value(v)
            if v is None:
                continue
            if _number(v):
                slot["numbers"].setdefault(k, []).append(v)
            else:
                counts = slot["values"].setdefault(k, {})
                key = str(v).lower() if isinstance(v, bool) else v
                counts[key] = counts.get(key, 0) + 1

    def check_leader(self, final: bool = False):
        """A check of the score: as each turn starts (the previous one is over), and once at the end.
        The first check, before the first turn, counts for lead changes only."""
        if self.score is None:
            return
        values = [pv.get(self.score) for pv in self.engine.state.player_vars]
        if not values or not all(_number(v) for v in values):
            return
        if self.lead is None:
            self.lead = LeadTracker(len(values), self.low)
        self.calls += 1
        self.trace.append(values)
        self.lead.observe(values, counted=final or self.calls > 1)

    def lead_record(self, winners: list) -> dict:
        """The game's lead metrics (winners: 1-based seats), None where they do not apply."""
        t = self.lead
        if self.score is None:
            return {"lead_changes": None, "decisiveness": None, "drama": None, "drama_worst": None,
                    "winner_behind": None}
        if t is None:
            return {"lead_changes": 0, "decisiveness": None, "drama": None, "drama_worst": None,
                    "winner_behind": None}
        seats = [w - 1 for w in winners]
        d = t.drama(seats) or {}
        return {"lead_changes": t.changes, "decisiveness": t.decisiveness(seats), "drama": d.get("drama"),
                "drama_worst": d.get("worst"), "winner_behind": d.get("behind")}


class _CardWatcher:
    """Which seat had which kinds of card (by name) in one game, for the per-card impact
    (`summary._card_impact`): the cards that left a seat's hand (the zone marked `as
    hand`: played, discarded, given away), the cards in its hand as the first turn starts
    (the opening hand), and at the end the cards in a zone of its own (a hand, a table, a
    stable; a card under one of its cards too). Without a hand zone only the end is known."""

    def __init__(self, engine, rs):
        self.engine = engine
        self.names = [c.name for c in engine.cards]
        n = engine.n
        hand = rs.zone_with_role("hand")
        self.hands = {f"{hand.name}:{p}": p for p in range(n)} if hand is not None and hand.per_player else {}
        self.played: list = [set() for _ in range(n)]
        self.opening: Optional[list] = None
        if self.hands:
            engine.move_hooks.append(self.moved)
            engine.turn_hooks.append(self.turn)

    def moved(self, cid: int, old: str, new: str) -> None:
        seat = self.hands.get(old)
        if seat is not None:
            self.played[seat].add(self.names[cid])

    def turn(self) -> None:
        if self.opening is None:   # the first turn starts: the hands as dealt
            zones, names = self.engine.state.zones, self.names
            self.opening = [sorted({names[i] for i in zones.get(key, ())}) for key in self.hands]

    def record(self) -> dict:
        eng = self.engine
        held: list = [set() for _ in range(eng.n)]
        for cid, key in enumerate(eng.state.where):
            if key is not None:
                owner = eng.zone_owner(eng.zone_ref(key))
                if owner is not None:
                    held[owner].add(self.names[cid])
        return {"played": [sorted(x) for x in self.played] if self.hands else None,
                "opening": (self.opening or [[] for _ in range(eng.n)]) if self.hands else None,
                "held": [sorted(x) for x in held]}


def _error_text(e: Exception) -> str:
    """One line naming the error and where, the same whichever process loaded the ruleset."""
    if isinstance(e, CglError) and e.diagnostics:
        d = e.diagnostics[0]
        sp = d.span
        where = f"{os.path.basename(sp.path)}:{sp.line}:{sp.column}: " if sp is not None and sp.line else ""
        return f"{where}{d.code} {d.message}"
    return f"a bot gave an answer the game refused: {e}"


def play_one(rs, spec: BatchSpec, index: int) -> dict:
    """Play game `index` (1-based) of the batch; return its record (plain data)."""
    seed = game_seed(spec.seed, index)
    # the statistics need no transcript; a search bot needs the game forkable
    game = Game(rs, spec.players, seed, record=False, forkable=needs_worlds(spec.agents[:spec.players]),
                max_steps=spec.max_steps, engine=spec.engine)
    n = game.players
    agents = [make_agent(name, seat, seed) for seat, name in enumerate(seat_agents(spec, index)[:n])]
    watch = _Watcher(game.engine, spec.score, spec.score_direction == "low")
    game.engine.turn_hooks.append(watch.check_leader)   # a new turn: the previous one is over
    cards = _CardWatcher(game.engine, rs)
    decisions = 0
    options_hist: Counter = Counter()
    kinds: dict = {}
    error = None
    try:
        d = game.start()
        while d is not None:
            decisions += 1
            if decisions > MAX_DECISIONS:
                raise CglError(Diagnostic("E011", f"the game asked more than {MAX_DECISIONS} decisions without ending"))
            k = len(d.options)
            options_hist[k] += 1
            slot = kinds.setdefault(d.kind, [0, 0])
            slot[0] += 1
            slot[1] += k
            d = game.answer(agents[d.player].decide(d))
    except (CglError, AnswerError) as e:
        error = _error_text(e)
    watch.check_leader(final=True)
    res = game.result
    scores = {}
    for var in rs.player_vars():
        vals = [pv.get(var) for pv in res.players]
        if vals and all(_number(v) for v in vals):
            scores[var] = vals
    return {
        "game": index, "seed": seed, "winners": list(res.winners), "reason": res.reason,
        "out": sorted(s + 1 for s in game.state.out if s not in game.state.out_of_round), "turns": res.turns, "rounds": res.rounds,
        "decisions": decisions, "options": dict(options_hist), "kinds": kinds, "scores": scores,
        "stats": dict(res.stats), "custom": watch.custom, "custom_spied": watch.spied,
        **watch.lead_record(list(res.winners)), "trajectory": watch.trace if spec.score is not None else None,
        "cards": cards.record(), "error": error,
    }


def run_chunk(spec: BatchSpec, indices: Sequence[int]) -> list:
    """Play the games `indices` of a batch (what one worker does)."""
    rs = _ruleset(spec)
    return [play_one(rs, spec, i) for i in indices]


# ================================================================ running a batch

class DaskUnavailable(Exception):
    """`--dask` was asked for but dask.distributed is not installed."""


class ClusterError(Exception):
    """The Dask cluster could not be reached."""


def _chunks(indices: list, workers: int) -> list:
    size = max(1, min(25, math.ceil(len(indices) / (workers * 8))))
    return [indices[i:i + size] for i in range(0, len(indices), size)]


def run_batch(spec: BatchSpec, games: int, workers: Optional[int] = None,
              progress: Optional[Callable[[int, int], None]] = None, dask: Optional[str] = None,
              first: int = 1) -> list:
    """Play games `first`..`first + games - 1` of the batch (1..`games` by default); the
    records come back in game order. A game's record depends only on the batch and its
    number, so a batch can be played in parts (`benchmarks/skill.py --keep`).

    `workers` local processes (default: one per core; 1 plays in this process), or the
    Dask cluster at address `dask`. The records do not depend on either.
    """
    indices = range(first, first + games)   # (not a list: a batch may be large)
    tick = progress or (lambda done, total: None)
    if dask is not None:
        records = _run_dask(spec, indices, dask, tick)
    else:
        workers = max(1, min(workers or os.cpu_count() or 1, games))
        if workers == 1:
            rs = _ruleset(spec)
            records = []
            with _stopping(records) as stop:
                for i in indices:
                    records.append(play_one(rs, spec, i))
                    tick(len(records), games)
                    stop.check()
        else:
            records = _run_local(spec, indices, workers, tick)
    records.sort(key=lambda r: r["game"])
    return records


def _start_method():
    """How worker processes start: forked from this one where the system can, so that each
    begins with the ruleset already loaded and compiled here (`benchmarks/workers.py`)."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


class Stopped(BaseException):
    """The batch was stopped (SIGTERM, SIGINT): its workers are stopped too; `records` holds
    the games that finished. Not an `Exception`, as KeyboardInterrupt is not: no catch-all of
    errors in the engines or the views may take it for one and play on."""

    def __init__(self, records: list, signum: int):
        super().__init__(f"stopped by signal {signum}")
        self.records, self.signum = records, signum


class _Stop:
    """What `_stopping` yields: `check()` raises `Stopped` if a signal has come. (Python runs
    a handler wherever the main thread is, and what it raises inside a finaliser, or inside C
    code that clears errors, is lost: the batch then stops at its next check, once the game
    being played has finished.)"""

    def __init__(self, out: list):
        self.out, self.signum = out, None

    def check(self):
        if self.signum is not None:
            raise Stopped(self.out, self.signum)


@contextlib.contextmanager
def _stopping(out: list):
    """SIGTERM and SIGINT stop the batch with `Stopped`, holding `out`, the records of the
    games that finished (a game being played when the signal came is left out), so that the
    caller can still write them. Only in the main thread, where Python runs handlers."""
    handled, stop = {}, _Stop(out)

    def on_signal(signum, frame):
        for sig in handled:   # (a second signal must not cut the stopping short)
            signal.signal(sig, signal.SIG_IGN)
        stop.signum = signum
        raise Stopped(out, signum)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            handled[sig] = signal.signal(sig, on_signal)
    try:
        yield stop
    finally:
        for sig, old in handled.items():
            signal.signal(sig, old)


def _restore(handlers: dict):
    """A worker's first step: the signal handlers its parent had before the batch's own
    (`_stopping`), whose `Stopped` is for the parent alone; `None` (set outside Python)
    stays as it is."""
    for sig, handler in handlers.items():
        if handler is not None:
            signal.signal(sig, handler)


def _run_local(spec, indices, workers, tick) -> list:
    chunks = _chunks(indices, workers)
    out: list = []
    rs = _ruleset(spec)            # loaded, and its code generated, once, before the workers fork
    compiled_for(rs, budget=spec.max_steps is not None)
    # The handlers that stop the batch are in place before the first worker forks: a signal
    # that came while the workers were starting used to end this process by SIGTERM's default
    # action, leaving both workers playing, holding its output open. Each worker takes back
    # the handlers this process had before (`_restore`), so the batch's are this process's only.
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=_start_method(), initializer=_restore,
                             initargs=(before,))
    pending: set = set()

    def kill():
        # the workers go down with the batch, whatever stopped it (none is left playing)
        for proc in list((getattr(ex, "_processes", None) or {}).values()):
            proc.kill()
        # A worker killed halfway through sending its games leaves the pool's thread reading
        # the rest of that message, and Python joins that thread at exit: it would wait for
        # ever, as this process holds the pipe's writing end too. Closed here, the thread
        # reads an end of file instead, finds the pool broken and ends.
        results = getattr(ex, "_result_queue", None)
        if results is not None:
            results._writer.close()
        ex.shutdown(wait=False, cancel_futures=True)
    # a signal becomes an exception here, in this process only (the workers take back the old handlers)
    with _stopping(out) as stop:
        try:
            pending = {ex.submit(run_chunk, spec, c) for c in chunks}   # (the workers start here)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    out.extend(f.result())
                tick(len(out), len(indices))
                stop.check()
        except BaseException:
            kill()
            raise
    ex.shutdown(wait=True)
    return out


def _run_dask(spec, indices, address, tick) -> list:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise DaskUnavailable() from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at `{address}`: {e}") from None
    try:
        workers = max(1, sum(client.nthreads().values()))
        chunks = _chunks(indices, workers)
        futures = client.map(run_chunk, [spec] * len(chunks), chunks, pure=False)
        out: list = []
        for fut in as_completed(futures):
            out.extend(fut.result())
            tick(len(out), len(indices))
        return out
    finally:
        client.close()
