"""The statistics of :mod:`cgl.interpreter.analytics.simulate`, written with :mod:`math` only.

Intervals (Wilson, Newcombe), tests (exact binomial, one- and two-proportion z, Welch t,
chi-square goodness of fit and homogeneity), the distributions behind them (normal,
Student's t, chi-square, by the incomplete gamma and beta functions) and the description
of a sample (quantiles, histogram). See ``docs/analytics.md`` for what each one means and why.
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Optional, Sequence

Z95 = 1.959963984540054      # the 97.5% point of the standard normal distribution
ALPHA = 0.05                 # the level at which a test is called significant


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


def share_test(x: float, n: int, p0: float) -> tuple:
    """Two-sided test of x successes in n against the proportion p0: (p, exact). The exact
    binomial test when x is whole; its normal approximation when shared wins make x fractional."""
    if abs(x - round(x)) < 1e-9:
        return binom_test(int(round(x)), n, p0), True
    return one_prop_z(x, n, p0)[1], False


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


def holm(ps: Sequence[Optional[float]]) -> list:
    """Holm's step-down correction for testing several hypotheses at once: each p-value
    adjusted (None stays None). A difference whose adjusted p is below ALPHA holds with the
    family-wise error rate kept at ALPHA, however many metrics were tested."""
    idx = sorted((i for i, p in enumerate(ps) if p is not None), key=lambda i: ps[i])
    m, out, running = len(idx), [None] * len(ps), 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


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
