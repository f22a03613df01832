"""Designer analytics: play many games of a ruleset and measure them.

    spec = BatchSpec.make("rulesets/mgt.cgl", {"rounds": "3"}, players=4, agents=["random"], seed=1)
    records = run_batch(spec, 200, workers=2)        # one plain dict per game, in game order
    summary = summarize(load(spec.ruleset, dict(spec.options)), spec, records)
    print(format_summary(summary))

and, for two versions played on the same seeds, :func:`compare` and :func:`format_compare`.

Seeds: game ``i`` (1-based) of a batch with seed ``S`` is played with the seed
:func:`game_seed` ``(S, i)`` (a SHA-256 of ``"S:i"``), and its agents are made exactly as
``cgl run`` makes them, so ``cgl run FILE --seed <that seed> …`` replays game ``i`` alone.
Because every game depends on its index only, the results do not depend on how the
games are spread over processes: they are merged in game order, and the output is the
same, byte for byte, for any ``--workers``.

The statistics (Wilson intervals, binomial, z, Welch t and chi-square tests) are written
here with :mod:`math` only; see ``docs/analytics.md`` for what each one means and why.
"""
from __future__ import annotations

import hashlib
import math
import os
import statistics
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import attrs

from . import ast as A
from .diagnostics import CglError, Diagnostic
from .engine import AnswerError
from .game import AGENTS, Game
from .loader import load

MAX_DECISIONS = 1_000_000    # the same guard as game.play()
SEED_SPACE = 1_000_000_000   # game seeds are 0 .. 999 999 999
Z95 = 1.959963984540054      # the 97.5% point of the standard normal distribution
ALPHA = 0.05


# ================================================================ what to play

@dataclass(frozen=True)
class BatchSpec:
    """Everything a worker needs to play games of a batch: plain, picklable data.

    Workers load the ruleset themselves from (`ruleset`, `options`), so a batch can be
    sent to other processes or to a Dask cluster.
    """

    ruleset: str                 # a path (absolute, so workers elsewhere find it) or a shipped name
    options: tuple               # ((name, raw value), …) as given on the command line
    players: int
    agents: tuple                # one agent name per seat
    seed: int
    score: Optional[str] = None  # the player variable whose leader is tracked (lead changes)

    @staticmethod
    def make(ruleset: str, options: Optional[dict], players: int, agents: Sequence[str], seed: int,
             score: Optional[str] = None) -> "BatchSpec":
        agents = list(agents) or ["random"]
        if len(agents) == 1:
            agents = agents * players
        return BatchSpec(ruleset, tuple(sorted((options or {}).items())), players, tuple(agents), seed, score)


def game_seed(base: int, index: int) -> int:
    """The seed of game `index` (1-based) of a batch with seed `base`.

    The first 8 bytes of SHA-256(f"{base}:{index}") as a big-endian integer, modulo 10**9:
    stable across Python versions and processes (unlike the salted built-in `hash`).
    """
    digest = hashlib.sha256(f"{base}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_SPACE


def default_score(rs) -> Optional[str]:
    """The score variable tracked for lead changes: `points` if the ruleset has it."""
    return "points" if "points" in rs.player_vars() else None


def rerun_command(label: str, spec: BatchSpec, seed="<seed>") -> Optional[str]:
    """The `cgl run` command that replays one game, or None when `cgl run` cannot (mixed agents)."""
    if len(set(spec.agents)) != 1:
        return None
    opts = "".join(f" -o {k}={v}" for k, v in spec.options)
    return f"cgl run {label} --players {spec.players} --agent {spec.agents[0]}{opts} --seed {seed}"


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
    """Watches one game: the leader after each turn, and the custom events emitted."""

    def __init__(self, engine, score: Optional[str]):
        self.engine = engine
        self.score = score
        self.leader: Optional[int] = None
        self.changes = 0
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

    def check_leader(self):
        if self.score is None:
            return
        values = [pv.get(self.score) for pv in self.engine.state.player_vars]
        if not values or not all(_number(v) for v in values):
            return
        best = max(values)
        if values.count(best) != 1:
            return                         # a tie: no strict leader, the last one is remembered
        seat = values.index(best)
        if self.leader is not None and seat != self.leader:
            self.changes += 1
        self.leader = seat


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
    game = Game(rs, spec.players, seed, record=False)   # the statistics need no transcript
    n = game.players
    agents = [AGENTS[name](seat, seed) for seat, name in enumerate(spec.agents[:n])]
    watch = _Watcher(game.engine, spec.score)
    game.engine.turn_hooks.append(watch.check_leader)   # a new turn: the previous one is over
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
    watch.check_leader()
    res = game.result
    scores = {}
    for var in rs.player_vars():
        vals = [pv.get(var) for pv in res.players]
        if vals and all(_number(v) for v in vals):
            scores[var] = vals
    return {
        "game": index, "seed": seed, "winners": list(res.winners), "reason": res.reason,
        "out": sorted(s + 1 for s in game.state.out), "turns": res.turns, "rounds": res.rounds,
        "decisions": decisions, "options": dict(options_hist), "kinds": kinds, "scores": scores,
        "stats": dict(res.stats), "custom": watch.custom, "custom_spied": watch.spied,
        "lead_changes": watch.changes if spec.score is not None else None, "error": error,
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
              progress: Optional[Callable[[int, int], None]] = None, dask: Optional[str] = None) -> list:
    """Play games 1..`games` of the batch; the records come back in game order.

    `workers` local processes (default: one per core; 1 plays in this process), or the
    Dask cluster at address `dask`. The records do not depend on either.
    """
    indices = list(range(1, games + 1))
    tick = progress or (lambda done, total: None)
    if dask is not None:
        records = _run_dask(spec, indices, dask, tick)
    else:
        workers = max(1, min(workers or os.cpu_count() or 1, games))
        if workers == 1:
            rs = _ruleset(spec)
            records = []
            for i in indices:
                records.append(play_one(rs, spec, i))
                tick(len(records), games)
        else:
            records = _run_local(spec, indices, workers, tick)
    records.sort(key=lambda r: r["game"])
    return records


def _run_local(spec, indices, workers, tick) -> list:
    chunks = _chunks(indices, workers)
    out: list = []
    ex = ProcessPoolExecutor(max_workers=workers)
    try:
        pending = {ex.submit(run_chunk, spec, c) for c in chunks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                out.extend(f.result())
            tick(len(out), len(indices))
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
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


# ================================================================ statistics (math only)

def wilson(k: float, n: int, z: float = Z95) -> tuple:
    """Wilson score interval for a proportion k/n (k may be fractional: shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def normal_two_sided(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def binom_pmf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 1.0 if k == 0 else 0.0
    if p >= 1:
        return 1.0 if k == n else 0.0
    return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                    + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_test(k: int, n: int, p: float) -> float:
    """Exact two-sided binomial test: the probability of outcomes no likelier than k
    (the method of R's binom.test)."""
    if n == 0:
        return 1.0
    d = binom_pmf(k, n, p)
    limit = d * (1 + 1e-7)
    return min(1.0, sum(q for q in (binom_pmf(i, n, p) for i in range(n + 1)) if q <= limit))


def one_prop_z(x: float, n: int, p0: float) -> tuple:
    """Normal approximation to the binomial test of x successes in n against p0: (z, p)."""
    if n == 0 or p0 <= 0 or p0 >= 1:
        return (0.0, 1.0)
    z = (x / n - p0) / math.sqrt(p0 * (1 - p0) / n)
    return (z, normal_two_sided(z))


def two_prop_z(x1: float, n1: int, x2: float, n2: int) -> tuple:
    """Two-proportion z-test (pooled variance) of x1/n1 against x2/n2: (z, p)."""
    if n1 == 0 or n2 == 0:
        return (0.0, 1.0)
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    diff = x1 / n1 - x2 / n2
    if se == 0:
        return (0.0, 1.0) if diff == 0 else (math.copysign(math.inf, diff), 0.0)
    z = diff / se
    return (z, normal_two_sided(z))


def newcombe(x1: float, n1: int, x2: float, n2: int, z: float = Z95) -> tuple:
    """Newcombe's hybrid score interval (his method 10) for p1 - p2, from Wilson intervals."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def _gamma_p(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x)."""
    if x <= 0:
        return 0.0
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return min(1.0, total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    return 1.0 - _gamma_q_cf(a, x)


def _gamma_q_cf(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with df degrees of freedom."""
    if df <= 0:
        return 1.0
    if x <= 0:
        return 1.0
    if x < df / 2 + 1:
        return max(0.0, 1.0 - _gamma_p(df / 2, x / 2))
    return _gamma_q_cf(df / 2, x / 2)


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c = 1.0
    d = 1 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1 / d
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def t_two_sided(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with df degrees of freedom (normal when df is huge)."""
    if math.isinf(t):
        return 0.0
    if df > 1e6 or math.isinf(df):
        return normal_two_sided(t)
    return min(1.0, betainc(df / 2, 0.5, df / (df + t * t)))


def t_quantile(df: float, level: float = 0.95) -> float:
    """The t value with a two-sided tail of 1 - level (1.96-ish for large df)."""
    if df > 1e6 or math.isinf(df):
        return Z95 if level == 0.95 else _bisect(lambda t: normal_two_sided(t) - (1 - level))
    return _bisect(lambda t: t_two_sided(t, df) - (1 - level))


def _bisect(f, lo=0.0, hi=1e4) -> float:
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def welch(a: Sequence[float], b: Sequence[float]) -> dict:
    """Welch's t-test of mean(b) - mean(a), with its 95% interval (t with Welch–Satterthwaite df)."""
    na, nb = len(a), len(b)
    ma = statistics.fmean(a) if na else 0.0
    mb = statistics.fmean(b) if nb else 0.0
    diff = mb - ma
    if na < 2 or nb < 2:
        return {"diff": diff, "ci95": [diff, diff], "t": None, "df": None, "p": None}
    va, vb = statistics.variance(a), statistics.variance(b)
    se2 = va / na + vb / nb
    if se2 == 0:
        return {"diff": diff, "ci95": [diff, diff], "t": None, "df": None, "p": 1.0 if diff == 0 else 0.0}
    se = math.sqrt(se2)
    df = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1)) if va or vb else math.inf
    t = diff / se
    q = t_quantile(df)
    return {"diff": diff, "ci95": [diff - q * se, diff + q * se], "t": t, "df": df, "p": t_two_sided(t, df)}


def chi2_homogeneity(rows: Sequence[Sequence[float]]) -> Optional[dict]:
    """Chi-square test that the rows (samples) share one distribution over the columns.

    Columns empty in every row are dropped; None when fewer than two columns remain.
    """
    cols = [j for j in range(len(rows[0])) if sum(r[j] for r in rows) > 0]
    if len(cols) < 2 or len(rows) < 2:
        return None
    table = [[r[j] for j in cols] for r in rows]
    row_tot = [sum(r) for r in table]
    if any(t == 0 for t in row_tot):
        return None
    col_tot = [sum(r[j] for r in table) for j in range(len(cols))]
    total = sum(row_tot)
    chi = 0.0
    small = 0
    for i, r in enumerate(table):
        for j, o in enumerate(r):
            e = row_tot[i] * col_tot[j] / total
            small += e < 5
            chi += (o - e) ** 2 / e
    df = (len(table) - 1) * (len(cols) - 1)
    return {"chi2": chi, "df": df, "p": chi2_sf(chi, df), "small_expected": small}


def chi2_uniform(observed: Sequence[float]) -> Optional[dict]:
    """Chi-square goodness of fit of `observed` against equal shares."""
    total = sum(observed)
    k = len(observed)
    if k < 2 or total <= 0:
        return None
    e = total / k
    chi = sum((o - e) ** 2 / e for o in observed)
    return {"chi2": chi, "df": k - 1, "p": chi2_sf(chi, k - 1), "small_expected": k if e < 5 else 0}


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th quantile (0..1), linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return 0.0
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def describe(values: Sequence[float]) -> dict:
    """mean, median, p10, p90, min, max (and n) of a sample."""
    v = sorted(values)
    if not v:
        return {"n": 0, "mean": None, "median": None, "p10": None, "p90": None, "min": None, "max": None}
    return {"n": len(v), "mean": statistics.fmean(v), "median": percentile(v, 0.5), "p10": percentile(v, 0.1),
            "p90": percentile(v, 0.9), "min": v[0], "max": v[-1]}


def histogram(values: Sequence[int], bins: int = 12) -> list:
    """[[low, high, count], …] over whole-number values, with a round bin width."""
    if not values:
        return []
    lo, hi = int(min(values)), int(max(values))
    raw = (hi - lo + 1) / bins
    width = 1
    for w in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000):
        width = w
        if w >= raw:
            break
    else:
        width = 10 ** math.ceil(math.log10(raw))
    start = (lo // width) * width
    counts = Counter((int(x) - start) // width for x in values)
    top = (hi - start) // width
    return [[start + b * width, start + (b + 1) * width - 1, counts.get(b, 0)] for b in range(top + 1)]


def _r(x, digits=6):
    """Round floats for output (so JSON does not show float noise)."""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return None
        return round(x, digits)
    if isinstance(x, dict):
        return {k: _r(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_r(v, digits) for v in x]
    return x


# ================================================================ the metrics of a batch

KINDS = (("triggers", "trigger"), ("reactions", "reaction"), ("rules", "rule"), ("actions", "action"))


def _walk(node):
    """Every AST node under `node` (attrs classes, tuples and lists)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif attrs.has(type(x)):
            yield x
            stack.extend(getattr(x, f.name) for f in attrs.fields(type(x)))


def declared_events(rs) -> list:
    """Names of the custom events the ruleset can `emit`."""
    return sorted({n.name for n in _walk(rs.items) if isinstance(n, A.Emit)})


def _where(decl) -> Optional[str]:
    sp = getattr(decl, "span", None)
    if sp is None or not getattr(sp, "line", None):
        return None
    return f"{os.path.relpath(sp.path) if os.path.isabs(sp.path) else sp.path}:{sp.line}"


def summarize(rs, spec: BatchSpec, records: list, label: Optional[str] = None) -> dict:
    """Every metric of a batch, as JSON-ready data in a stable order."""
    n_players = spec.players
    failed = [r for r in records if r["error"]]
    ok = [r for r in records if not r["error"]]
    n = len(ok)
    opts = {k: rs.option_values[k] for k in sorted(rs.option_values)}
    g = rs.game
    out: dict = {
        "ruleset": {"title": g.title, "version": g.version, "file": label or spec.ruleset, "options": _plainv(opts),
                    "set_options": dict(spec.options)},
        "players": n_players,
        "games": len(records),
        "seed": spec.seed,
        "agents": list(spec.agents),
        "seeds": {"rule": "game i (1-based) is played with int.from_bytes(sha256(f'{seed}:{i}')[:8], 'big') % 10**9",
                  "rerun": rerun_command(label or spec.ruleset, spec),
                  "first": [{"game": r["game"], "seed": r["seed"]} for r in records[:3]]},
    }

    # ---- results by seat
    wins = [0.0] * n_players
    alone = [0] * n_players
    shared = [0] * n_players
    single = shared_games = all_share = no_winner = everyone_lost = 0
    for r in ok:
        w = r["winners"]
        if not w:
            if len(r["out"]) >= n_players:
                everyone_lost += 1
            else:
                no_winner += 1
            continue
        if len(w) == 1:
            single += 1
        else:
            shared_games += 1
            if len(w) == n_players:
                all_share += 1
        for s in w:
            wins[s - 1] += 1 / len(w)
            if len(w) == 1:
                alone[s - 1] += 1
            else:
                shared[s - 1] += 1
    decided = single + shared_games
    seats = []
    for i in range(n_players):
        lo, hi = wilson(wins[i], n)
        seats.append({"seat": i + 1, "agent": spec.agents[i], "wins": wins[i], "won_alone": alone[i],
                      "shared": shared[i], "win_rate": wins[i] / n if n else 0.0, "ci95": [lo, hi],
                      "share_of_decided": wins[i] / decided if decided else None})
    fair = 1 / n_players
    first = None
    if decided:
        w1 = wins[0]
        whole = abs(w1 - round(w1)) < 1e-9
        if whole:
            p = binom_test(int(round(w1)), decided, fair)
            test = "exact binomial test, two-sided"
        else:
            p = one_prop_z(w1, decided, fair)[1]
            test = "binomial test, normal approximation (shared wins make seat 1's count fractional), two-sided"
        lo, hi = wilson(w1, decided)
        first = {"share": w1 / decided, "fair": fair, "advantage": w1 / decided - fair, "ci95": [lo, hi],
                 "decided_games": decided, "test": test, "p": p, "significant": p < ALPHA,
                 "note": "the seats have different agents: this measures seat and agent together"
                 if len(set(spec.agents)) > 1 else None}
    eq = chi2_uniform(wins) if decided else None
    out["results"] = {
        "counting": "a win shared by k players counts 1/k to each; rates are of all games, shares of decided games",
        "seats": seats,
        "decided": decided, "single_winner": single, "shared_win": shared_games, "draw_all_share": all_share,
        "no_winner": no_winner, "everyone_lost": everyone_lost, "failed": len(failed),
        "first_seat": first,
        "seats_equal": dict(eq, test="chi-square goodness of fit of the seats' wins against equal shares")
        if eq else None,
    }

    # ---- length
    def lengths(key):
        vals = [r[key] for r in ok]
        return dict(describe(vals), histogram=histogram(vals))
    out["length"] = {"turns": lengths("turns"), "rounds": lengths("rounds"), "decisions": lengths("decisions")}
    if ok:
        longest = max(ok, key=lambda r: (r["turns"], -r["game"]))
        shortest = min(ok, key=lambda r: (r["turns"], r["game"]))
        out["length"]["longest"] = {"game": longest["game"], "seed": longest["seed"], "turns": longest["turns"]}
        out["length"]["shortest"] = {"game": shortest["game"], "seed": shortest["seed"], "turns": shortest["turns"]}

    # ---- how games end
    reasons = Counter(r["reason"] for r in ok)
    events_declared = declared_events(rs)
    ev_names = sorted(set(events_declared) | {k.split(":", 1)[1] for r in ok for k in r["stats"]
                                               if k.startswith("event:")})
    spied = all(r["custom_spied"] for r in ok)
    events = {}
    for name in ev_names:
        per_game = [r["stats"].get(f"event:{name}", 0) for r in ok]
        values: dict = {}
        numbers: dict = {}
        caught = 0
        for r in ok:
            c = r["custom"].get(name)
            if not c:
                continue
            caught += c["count"]
            for field, counts in c["values"].items():
                slot = values.setdefault(field, Counter())
                slot.update(counts)
            for field, nums in c["numbers"].items():
                numbers.setdefault(field, []).extend(nums)
        fields_ok = spied and caught == sum(per_game)
        events[name] = {
            "total": sum(per_game), "per_game": statistics.fmean(per_game) if per_game else 0.0,
            "games": sum(1 for x in per_game if x), "declared": name in events_declared,
            "by_field": {f: dict(sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0]))))
                         for f, c in sorted(values.items())} if fields_ok else None,
            "numbers": {f: describe(v) for f, v in sorted(numbers.items())} if fields_ok else None,
        }
    out["endings"] = {"reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))), "events": events}

    # ---- scores
    score_vars = sorted({v for r in ok for v in r["scores"]}, key=lambda v: (v != "points", v))
    scores = {}
    for var in score_vars:
        rows = [r["scores"][var] for r in ok if var in r["scores"]]
        scores[var] = {"seats": [describe([row[i] for row in rows]) for i in range(n_players)],
                       "all": describe([x for row in rows for x in row])}
    out["scores"] = scores

    # ---- what fired, and what never did
    totals: Counter = Counter()
    games_with: Counter = Counter()
    for r in ok:
        for k, v in r["stats"].items():
            totals[k] += v
            if v:
                games_with[k] += 1
    fired: dict = {}
    never: dict = {}
    for plural, prefix in KINDS:
        decls = getattr(rs, plural)
        names = [d.name for d in decls]
        extra = sorted({k.split(":", 1)[1] for k in totals if k.startswith(prefix + ":")} - set(names))
        fired[plural] = {nm: {"total": totals.get(f"{prefix}:{nm}", 0), "games": games_with.get(f"{prefix}:{nm}", 0)}
                         for nm in names + extra}
        never[plural] = [{"name": d.name, "where": _where(d)} for d in decls
                         if not totals.get(f"{prefix}:{d.name}", 0)]
    fired["events"] = {nm: {"total": events[nm]["total"], "games": events[nm]["games"]} for nm in ev_names}
    never["events"] = [nm for nm in events_declared if not events[nm]["total"]]
    out["fired"] = fired

    card_names = list(dict.fromkeys(c.name for c in rs.cards))
    drawn = {nm: totals.get(f"card drawn:{nm}", 0) for nm in card_names}
    discarded = {nm: totals.get(f"card discarded:{nm}", 0) for nm in card_names}
    out["cards"] = {"kinds": len(card_names), "copies": len(rs.cards), "drawn": drawn, "discarded": discarded}
    never["cards_never_drawn"] = [nm for nm in card_names if not drawn[nm]]
    never["cards_never_discarded"] = [nm for nm in card_names if not discarded[nm]]
    never["dead_cards"] = [nm for nm in card_names if not drawn[nm] and not discarded[nm]]
    out["never"] = never

    # ---- decisions
    total_dec = sum(r["decisions"] for r in ok)
    total_turns = sum(r["turns"] for r in ok)
    hist: Counter = Counter()
    kinds: dict = {}
    for r in ok:
        for k, c in r["options"].items():
            hist[int(k)] += c
        for kind, (cnt, opt) in r["kinds"].items():
            slot = kinds.setdefault(kind, [0, 0])
            slot[0] += cnt
            slot[1] += opt
    flat_sorted = sorted(hist.items())
    out["decisions"] = {
        "total": total_dec,
        "per_game": total_dec / n if n else 0.0,
        "per_turn": total_dec / total_turns if total_turns else None,
        "options_per_decision": {
            "mean": sum(k * c for k, c in hist.items()) / total_dec if total_dec else None,
            "median": _weighted_median(flat_sorted),
            "max": max(hist) if hist else None,
            "histogram": [[k, c] for k, c in flat_sorted],
        },
        "by_kind": {kind: {"count": c, "mean_options": o / c if c else None} for kind, (c, o) in sorted(kinds.items())},
    }

    # ---- lead changes
    if spec.score is not None:
        lc = [r["lead_changes"] for r in ok if r["lead_changes"] is not None]
        out["lead_changes"] = dict(variable=spec.score, **describe(lc),
                                   games_with_a_change=sum(1 for x in lc if x > 0))
    else:
        out["lead_changes"] = None

    out["failed"] = [{"game": r["game"], "seed": r["seed"], "error": r["error"]} for r in failed]
    return _r(out)


def _weighted_median(pairs):
    total = sum(c for _, c in pairs)
    if not total:
        return None
    half = (total + 1) / 2
    run = 0
    for k, c in pairs:
        run += c
        if run >= half:
            return k
    return pairs[-1][0]


def _plainv(v):
    if isinstance(v, dict):
        return {k: _plainv(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plainv(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return str(v)


# ================================================================ per-game rows (CSV)

def csv_rows(records: list, players: int) -> tuple:
    """(header, rows): one row per game."""
    score_vars = sorted({v for r in records for v in r["scores"]}, key=lambda v: (v != "points", v))
    header = ["game", "seed", "winners", "reason", "turns", "rounds", "decisions", "lead_changes"]
    header += [f"{v}_P{i + 1}" for v in score_vars for i in range(players)]
    header += ["error"]
    rows = []
    for r in records:
        row = [r["game"], r["seed"], " ".join(f"P{w}" for w in r["winners"]), r["reason"], r["turns"], r["rounds"],
               r["decisions"], "" if r["lead_changes"] is None else r["lead_changes"]]
        for v in score_vars:
            vals = r["scores"].get(v) or [""] * players
            row += list(vals)
        row.append(r["error"] or "")
        rows.append(row)
    return header, rows


# ================================================================ text report

def _pct(x, digits=1) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def _num(x, digits=1) -> str:
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def _sig(x, sign: bool = False) -> str:
    """A mean or a difference: whole numbers plain, 2 decimals from 1 up, 2 significant digits below."""
    if x is None:
        return "-"
    plus = "+" if sign else ""
    if float(x).is_integer():
        return f"{int(x):{plus}d}"
    if abs(x) >= 100:
        return f"{x:{plus}.1f}"
    if abs(x) >= 1:
        return f"{x:{plus}.2f}"
    return f"{x:{plus}.2g}" if abs(x) >= 1e-4 else f"{x:{plus}.1e}"


def _p(p) -> str:
    if p is None:
        return "p = -"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _agents_text(agents) -> str:
    if len(set(agents)) == 1:
        return f"{agents[0]} (every seat)"
    return ", ".join(f"P{i + 1} {a}" for i, a in enumerate(agents))


def _table(rows, aligns=None) -> list:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    aligns = aligns or ["<"] + [">"] * (len(rows[0]) - 1)
    return ["  " + "  ".join(f"{str(c):{a}{w}}" for c, a, w in zip(r, aligns, widths)).rstrip() for r in rows]


def _bars(hist, width=40) -> list:
    top = max((c for _, _, c in hist), default=0) or 1
    lab = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi, _ in hist]
    lw = max(len(x) for x in lab) if lab else 0
    return [f"    {lb:>{lw}} | {'#' * max(1 if c else 0, round(width * c / top))} {c}"
            for lb, (_, _, c) in zip(lab, hist)]


def _names(items, limit=24) -> str:
    items = list(items)
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return shown + (f", … ({len(items) - limit} more; see --json)" if len(items) > limit else "")


def format_summary(s: dict) -> str:
    """The readable report of a batch."""
    L: list = []
    rs = s["ruleset"]
    title = f"{rs['title']} {rs['version'] or ''}".strip()
    L.append(f"{title} · {rs['file']} · {s['players']} players · {s['games']} games · seed {s['seed']}")
    L.append(f"agents: {_agents_text(s['agents'])}")
    if rs["options"]:
        L.append("options: " + ", ".join(f"{k}={v}" for k, v in rs["options"].items()))
    res = s["results"]
    n_ok = s["games"] - res["failed"]

    L.append("")
    L.append("Results by seat (a win shared by k players counts 1/k to each; 95% CI: Wilson score interval)")
    rows = [["seat", "agent", "wins", "alone", "shared", "win rate", "95% CI", "share of decided"]]
    for st in res["seats"]:
        rows.append([f"P{st['seat']}", st["agent"], _num(st["wins"]), st["won_alone"], st["shared"],
                     _pct(st["win_rate"]), f"[{_pct(st['ci95'][0])}, {_pct(st['ci95'][1])}]",
                     _pct(st["share_of_decided"])])
    L += _table(rows)
    L.append(f"  decided games {res['decided']} ({_pct(res['decided'] / n_ok if n_ok else None)}): "
             f"single winner {res['single_winner']}, shared win {res['shared_win']}"
             f" (every seat sharing: {res['draw_all_share']})")
    L.append(f"  no winner {res['no_winner']} ({_pct(res['no_winner'] / n_ok if n_ok else None)}), "
             f"everyone lost {res['everyone_lost']}" + (f", failed {res['failed']}" if res["failed"] else ""))
    fs = res["first_seat"]
    if fs:
        sig = "significant at 5%" if fs["significant"] else "not significant at 5%"
        L.append(f"  first seat: P1 won {_pct(fs['share'])} of the {fs['decided_games']} decided games "
                 f"[{_pct(fs['ci95'][0])}, {_pct(fs['ci95'][1])}] against a fair {_pct(fs['fair'])} "
                 f"({fs['advantage'] * 100:+.1f} points)")
        L.append(f"    {fs['test']}: {_p(fs['p'])}, {sig}")
        if fs["note"]:
            L.append(f"    ({fs['note']})")
    eq = res["seats_equal"]
    if eq:
        L.append(f"  all seats equal? chi-square goodness of fit: χ² = {eq['chi2']:.2f}, df {eq['df']}, {_p(eq['p'])}"
                 + ("  (few decided games: the test is rough)" if eq["small_expected"] else ""))

    L.append("")
    L.append("Game length")
    rows = [["", "mean", "median", "p10", "p90", "min", "max"]]
    for key in ("turns", "rounds", "decisions"):
        d = s["length"][key]
        rows.append([key, _num(d["mean"]), _num(d["median"]), _num(d["p10"]), _num(d["p90"]), _num(d["min"]),
                     _num(d["max"])])
    L += _table(rows)
    if s["length"]["turns"]["histogram"]:
        L.append("  turns per game:")
        L += _bars(s["length"]["turns"]["histogram"])
    if "longest" in s["length"]:
        lg, sh = s["length"]["longest"], s["length"]["shortest"]
        L.append(f"  longest: game {lg['game']} (seed {lg['seed']}, {lg['turns']} turns); "
                 f"shortest: game {sh['game']} (seed {sh['seed']}, {sh['turns']} turns)")

    L.append("")
    L.append("How games end")
    total = sum(s["endings"]["reasons"].values()) or 1
    rows = [[reason, c, _pct(c / total)] for reason, c in s["endings"]["reasons"].items()]
    if rows:
        L += _table(rows)
    evs = s["endings"]["events"]
    if evs:
        L.append("  custom events (emit): total · per game · games with it")
        for name, e in evs.items():
            L.append(f"    {name}: {e['total']} · {_num(e['per_game'], 2)} · {e['games']}")
            if e["by_field"] is None and e["total"]:
                L.append("      (its fields could not be read: see docs/analytics.md)")
            for field, counts in (e["by_field"] or {}).items():
                tot = sum(counts.values()) or 1
                L.append(f"      by {field}: " + ", ".join(f"{k} {c} ({_pct(c / tot)})" for k, c in counts.items()))
            for field, d in (e["numbers"] or {}).items():
                L.append(f"      {field}: mean {_num(d['mean'], 2)}, median {_num(d['median'])}, "
                         f"min {_num(d['min'])}, max {_num(d['max'])}")

    if s["scores"]:
        L.append("")
        L.append("Scores at the end (player variables that are numbers)")
        for var, d in s["scores"].items():
            rows = [[var, "mean", "median", "p10", "p90", "min", "max"]]
            for i, st in enumerate(d["seats"], 1):
                rows.append([f"P{i}", _num(st["mean"], 2), _num(st["median"]), _num(st["p10"]), _num(st["p90"]),
                             _num(st["min"]), _num(st["max"])])
            a = d["all"]
            rows.append(["all", _num(a["mean"], 2), _num(a["median"]), _num(a["p10"]), _num(a["p90"]), _num(a["min"]),
                         _num(a["max"])])
            L += _table(rows)

    lc = s["lead_changes"]
    if lc:
        L.append("")
        L.append(f"Lead changes ({lc['variable']}; the strict leader after each turn, ties skipped): "
                 f"mean {_num(lc['mean'], 2)}, median {_num(lc['median'])}, max {_num(lc['max'])}; "
                 f"games with a change: {lc['games_with_a_change']}")

    dec = s["decisions"]
    L.append("")
    opd = dec["options_per_decision"]
    L.append(f"Decisions: {dec['total']} in all, {_num(dec['per_game'])} per game, "
             f"{_num(dec['per_turn'], 2)} per turn; options per decision (branching factor): "
             f"mean {_num(opd['mean'], 2)}, median {_num(opd['median'])}, max {_num(opd['max'])}")
    if dec["by_kind"]:
        L.append("  by kind: " + ", ".join(f"{k} {v['count']} (mean {_num(v['mean_options'], 2)} options)"
                                           for k, v in dec["by_kind"].items()))

    L.append("")
    L.append("What fired (times in all · games in which it fired)")
    for plural, _ in KINDS + (("events", "event"),):
        items = s["fired"][plural]
        if items:
            L.append(f"  {plural}: " + ", ".join(f"{k} {v['total']}·{v['games']}" for k, v in items.items()))
    cards = s["cards"]
    if cards["kinds"]:
        drawn = sorted(cards["drawn"].items(), key=lambda kv: (-kv[1], kv[0]))
        L.append(f"  cards: {cards['kinds']} kinds ({cards['copies']} cards); most drawn: "
                 + ", ".join(f"{k} {v}" for k, v in drawn[:3])
                 + "; least drawn: " + ", ".join(f"{k} {v}" for k, v in drawn[-3:]))

    nv = s["never"]
    L.append("")
    L.append(f"Never fired in {n_ok} games (dead rules and dead cards)")
    any_dead = False
    for plural, _ in KINDS:
        if nv[plural]:
            any_dead = True
            L.append(f"  {plural}: " + ", ".join(f"{d['name']}" + (f" ({d['where']})" if d["where"] else "")
                                                 for d in nv[plural]))
    if nv["events"]:
        any_dead = True
        L.append("  events never emitted: " + ", ".join(nv["events"]))
    if cards["kinds"]:
        if nv["dead_cards"]:
            any_dead = True
        L.append(f"  cards never drawn nor discarded: {_names(nv['dead_cards'])}")
        L.append(f"  cards never drawn: {_names(nv['cards_never_drawn'])}")
        L.append(f"  cards never discarded: {_names(nv['cards_never_discarded'])}")
    if not any_dead:
        L.append("  every trigger, reaction, rule, action and event fired at least once")
    L.append("  (a rule counts when it forbade something; a card is drawn by `draw`, not by `deal`)")

    if s["failed"]:
        L.append("")
        L.append(f"Failed games ({len(s['failed'])}): these stopped with an error")
        for f in s["failed"][:10]:
            L.append(f"  game {f['game']} (seed {f['seed']}): {f['error']}")

    L.append("")
    first = s["seeds"]["first"]
    L.append(f"Seeds: game i plays with a seed made from sha256(\"{s['seed']}:i\") (see docs/analytics.md); "
             + ", ".join(f"game {x['game']}: {x['seed']}" for x in first) + ", … (--csv lists them all)")
    if s["seeds"]["rerun"]:
        L.append(f"  replay one game: {s['seeds']['rerun']}")
    else:
        L.append("  replay one game: `cgl run` has one --agent for every seat; with mixed agents use Python:")
        L.append(f"    play(load(FILE, options), {s['players']}, seed=<seed>, agents={list(s['agents'])})")
    return "\n".join(L)


# ================================================================ comparing two batches

def _col(records, key):
    return [r[key] for r in records if not r["error"]]


def _per_game_ratio(records, num, den):
    return [r[num] / r[den] for r in records if not r["error"] and r[den]]


def _options_mean(records):
    out = []
    for r in records:
        if r["error"] or not r["decisions"]:
            continue
        out.append(sum(int(k) * c for k, c in r["options"].items()) / r["decisions"])
    return out


def compare(sa: dict, ra: list, sb: dict, rb: list) -> dict:
    """Differences B - A of two batches played on the same seeds, each with its test."""
    rows: list = []

    def prop(metric, xa, na, xb, nb):
        if not na or not nb:
            return
        z, p = two_prop_z(xb, nb, xa, na)
        lo, hi = newcombe(xb, nb, xa, na)
        rows.append({"metric": metric, "kind": "proportion", "a": xa / na, "b": xb / nb, "diff": xb / nb - xa / na,
                     "ci95": [lo, hi], "p": p, "significant": p < ALPHA,
                     "test": "two-proportion z-test (pooled); CI: Newcombe hybrid score"})

    def mean(metric, a, b):
        if not a or not b:
            return
        w = welch(a, b)
        rows.append({"metric": metric, "kind": "mean", "a": statistics.fmean(a), "b": statistics.fmean(b),
                     "diff": w["diff"], "ci95": w["ci95"], "p": w["p"],
                     "significant": w["p"] is not None and w["p"] < ALPHA,
                     "test": "Welch t-test (Welch–Satterthwaite df)", "df": w["df"]})

    na = sa["games"] - sa["results"]["failed"]
    nb = sb["games"] - sb["results"]["failed"]
    ra_, rb_ = sa["results"], sb["results"]
    for st_a, st_b in zip(ra_["seats"], rb_["seats"]):
        prop(f"P{st_a['seat']} win rate", st_a["wins"], na, st_b["wins"], nb)
    if ra_["decided"] and rb_["decided"]:
        prop("P1 share of decided games", ra_["seats"][0]["wins"], ra_["decided"], rb_["seats"][0]["wins"],
             rb_["decided"])
    prop("decided games", ra_["decided"], na, rb_["decided"], nb)
    prop("shared wins", ra_["shared_win"], na, rb_["shared_win"], nb)
    prop("no winner", ra_["no_winner"], na, rb_["no_winner"], nb)
    prop("everyone lost", ra_["everyone_lost"], na, rb_["everyone_lost"], nb)
    for key in ("turns", "rounds", "decisions"):
        mean(f"{key} per game", _col(ra, key), _col(rb, key))
    mean("decisions per turn", _per_game_ratio(ra, "decisions", "turns"), _per_game_ratio(rb, "decisions", "turns"))
    mean("options per decision", _options_mean(ra), _options_mean(rb))
    if sa["lead_changes"] and sb["lead_changes"] and sa["lead_changes"]["variable"] == sb["lead_changes"]["variable"]:
        mean(f"lead changes ({sa['lead_changes']['variable']})", _col(ra, "lead_changes"), _col(rb, "lead_changes"))
    for var in [v for v in sa["scores"] if v in sb["scores"]]:
        a = [statistics.fmean(r["scores"][var]) for r in ra if not r["error"] and var in r["scores"]]
        b = [statistics.fmean(r["scores"][var]) for r in rb if not r["error"] and var in r["scores"]]
        mean(f"{var} at the end (seat average)", a, b)
    for name in [e for e in sa["endings"]["events"] if e in sb["endings"]["events"]]:
        mean(f"event {name} per game", [r["stats"].get(f"event:{name}", 0) for r in ra if not r["error"]],
             [r["stats"].get(f"event:{name}", 0) for r in rb if not r["error"]])

    tables = []

    def table(title, ca: dict, cb: dict):
        cats = sorted(set(ca) | set(cb), key=lambda k: (-(ca.get(k, 0) + cb.get(k, 0)), str(k)))
        test = chi2_homogeneity([[ca.get(k, 0) for k in cats], [cb.get(k, 0) for k in cats]])
        tables.append({"title": title, "categories": [str(k) for k in cats], "a": [ca.get(k, 0) for k in cats],
                       "b": [cb.get(k, 0) for k in cats],
                       "test": "chi-square test of homogeneity" if test else None,
                       "chi2": test["chi2"] if test else None, "df": test["df"] if test else None,
                       "p": test["p"] if test else None, "significant": bool(test and test["p"] < ALPHA),
                       "small_expected": test["small_expected"] if test else 0})

    table("how games end (reason)", sa["endings"]["reasons"], sb["endings"]["reasons"])
    for name in [e for e in sa["endings"]["events"] if e in sb["endings"]["events"]]:
        fa = sa["endings"]["events"][name]["by_field"] or {}
        fb = sb["endings"]["events"][name]["by_field"] or {}
        for field in sorted(set(fa) & set(fb)):
            table(f"event {name} by {field}", fa[field], fb[field])

    def side(s):
        return {"title": s["ruleset"]["title"], "version": s["ruleset"]["version"], "file": s["ruleset"]["file"],
                "options": s["ruleset"]["options"], "players": s["players"], "games": s["games"],
                "failed": s["results"]["failed"]}

    never = {}
    for key in ("triggers", "reactions", "rules", "actions"):
        never[key] = {"a": [d["name"] for d in sa["never"][key]], "b": [d["name"] for d in sb["never"][key]]}
    never["events"] = {"a": sa["never"]["events"], "b": sb["never"]["events"]}
    never["dead_cards"] = {"a": sa["never"]["dead_cards"], "b": sb["never"]["dead_cards"]}
    tests = len(rows) + sum(1 for t in tables if t["test"])
    return _r({
        "a": side(sa), "b": side(sb), "seed": sa["seed"], "agents": sa["agents"],
        "paired": "both versions play game i with the same seed; the tests treat the two batches as independent "
                  "samples (once the rules differ the games diverge, so pairing adds little)",
        "rows": rows, "tables": tables, "never": never,
        "tests": tests, "significant": sum(1 for x in rows if x["significant"]) + sum(1 for t in tables
                                                                                    if t["significant"]),
        "metrics_a": sa, "metrics_b": sb,
    })


def format_compare(c: dict) -> str:
    """The side-by-side report of :func:`compare`."""
    a, b = c["a"], c["b"]
    L = []

    def name(x):
        return f"{x['title']} {x['version'] or ''}".strip() + f" ({x['file']}" + (
            "; " + ", ".join(f"{k}={v}" for k, v in x["options"].items()) if x["options"] else "") + ")"
    L.append(f"A: {name(a)}")
    L.append(f"B: {name(b)}")
    L.append(f"{a['games']} games each, on the same seeds (seed {c['seed']}) · players A {a['players']}, "
             f"B {b['players']} · agents: {_agents_text(c['agents'])}")
    if a["failed"] or b["failed"]:
        L.append(f"failed games (left out): A {a['failed']}, B {b['failed']}")
    L.append("")
    rows = [["metric", "A", "B", "B − A", "95% CI of B − A", "p", ""]]
    for r in c["rows"]:
        if r["kind"] == "proportion":
            fa, fb = _pct(r["a"]), _pct(r["b"])
            fd = f"{r['diff'] * 100:+.1f} pts"
            ci = f"[{r['ci95'][0] * 100:+.1f}, {r['ci95'][1] * 100:+.1f}]"
        else:
            fa, fb = _sig(r["a"]), _sig(r["b"])
            fd = _sig(r["diff"], sign=True)
            ci = f"[{_sig(r['ci95'][0], sign=True)}, {_sig(r['ci95'][1], sign=True)}]"
        p = "-" if r["p"] is None else ("<0.001" if r["p"] < 0.001 else f"{r['p']:.3f}")
        rows.append([r["metric"], fa, fb, fd, ci, p, "*" if r["significant"] else ""])
    L += _table(rows, ["<", ">", ">", ">", ">", ">", "<"])
    for t in c["tables"]:
        L.append("")
        if t["test"]:
            sig = "  *" if t["significant"] else ""
            L.append(f"{t['title']}: chi-square test of homogeneity, χ² = {t['chi2']:.2f}, df {t['df']}, "
                     f"{_p(t['p'])}{sig}" + ("  (some expected counts < 5: rough)" if t["small_expected"] else ""))
        else:
            L.append(f"{t['title']}: (one category only: no test)")
        ta, tb = sum(t["a"]) or 1, sum(t["b"]) or 1
        trows = [["", "A", "", "B", ""]]
        for k, x, y in zip(t["categories"], t["a"], t["b"]):
            trows.append([k, x, _pct(x / ta), y, _pct(y / tb)])
        L += _table(trows)
    dead = []
    for key, v in c["never"].items():
        if v["a"] != v["b"]:
            only_a = [x for x in v["a"] if x not in v["b"]]
            only_b = [x for x in v["b"] if x not in v["a"]]
            if only_a:
                dead.append(f"  {key} dead in A only: {_names(only_a, 12)}")
            if only_b:
                dead.append(f"  {key} dead in B only: {_names(only_b, 12)}")
    if dead:
        L.append("")
        L.append("Never fired (in one version only)")
        L += dead
    L.append("")
    L.append(f"* significant at 5% (p < 0.05). Proportions: two-proportion z-test (pooled), CI by Newcombe's hybrid "
             f"score method; means: Welch's t-test (t distribution, Welch–Satterthwaite df); end causes and event "
             f"fields: chi-square test of homogeneity. The batches are treated as independent samples (same seeds, "
             f"but the games diverge). {c['tests']} tests: at 5% about {c['tests'] / 20:.1f} may come out "
             f"significant by chance alone.")
    return "\n".join(L)
