"""Pure statistical functions for jlbench (numpy + scipy, no I/O).

Conventions: samples are 1-D sequences of floats; percentages are in %;
undefined figures are float('nan'), never 0.
"""
import functools
import math
import warnings

import numpy as np
from scipy import optimize, stats

ALPHA = 0.05
POWER = 0.8
NAN = float("nan")


def describe(values, conf=0.95):
    """n, mean, stdev, CoV %, min, max and the t-based CI of the mean."""
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    out = {"n": n, "mean": NAN, "stdev": NAN, "cov_pct": NAN, "min": NAN,
           "max": NAN, "ci_lo": NAN, "ci_hi": NAN}
    if n == 0:
        return out
    mean = float(x.mean())
    out.update(mean=mean, min=float(x.min()), max=float(x.max()))
    if n >= 2:
        sd = float(x.std(ddof=1))
        half = stats.t.ppf(0.5 + conf / 2, n - 1) * sd / math.sqrt(n)
        out.update(stdev=sd, ci_lo=mean - half, ci_hi=mean + half)
        if mean != 0:
            out["cov_pct"] = 100.0 * sd / abs(mean)
    return out


def fieller(a, b, v11, v22, v12, df, conf=0.95):
    """CI of the ratio a/b of two estimated means (Fieller's theorem).

    v11 and v22 are the variances of the estimates a and b, v12 their
    covariance, df the degrees of freedom of the t quantile. Returns
    (ratio, lo, hi); (ratio, -inf, inf) when b is not clearly non-zero.
    Unlike the delta method it accounts for the noise in the denominator.
    """
    r = a / b
    if not df > 0:
        return r, NAN, NAN
    t = stats.t.ppf(0.5 + conf / 2, df)
    g = t * t * v22 / (b * b)
    if g >= 1:
        return r, -math.inf, math.inf
    shift = g * v12 / v22 if v22 > 0 else 0.0
    resid = v11 - v12 * v12 / v22 if v22 > 0 else v11
    disc = v11 - 2 * r * v12 + r * r * v22 - g * resid
    half = (t / abs(b)) * math.sqrt(max(disc, 0.0))
    return r, (r - shift - half) / (1 - g), (r - shift + half) / (1 - g)


def welch_df(v1, n1, v2, n2):
    """Welch-Satterthwaite degrees of freedom for variances of two means."""
    num = (v1 + v2) ** 2
    den = 0.0
    if n1 > 1:
        den += v1 * v1 / (n1 - 1)
    if n2 > 1:
        den += v2 * v2 / (n2 - 1)
    return num / den if den > 0 else math.inf


def _safe_p(fn, *args, **kw):
    """p-value of a scipy test; nan when the test is undefined."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return float(fn(*args, **kw).pvalue)
    except ValueError:
        return NAN


def _all_equal(*samples):
    vals = np.concatenate([np.asarray(s, dtype=float) for s in samples])
    return vals.size > 0 and bool(np.all(vals == vals[0]))


def min_p_mannwhitney(n1, n2):
    """Smallest two-sided p the exact Mann-Whitney U test can give."""
    if n1 < 1 or n2 < 1:
        return 1.0
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def min_p_wilcoxon(n):
    """Smallest two-sided p the exact Wilcoxon signed-rank test can give."""
    if n < 1:
        return 1.0
    return min(1.0, 2.0 ** (1 - n))


def marker(p, alpha=ALPHA):
    """benchstat-like significance marker: ***, **, * or ~ (or ?)."""
    if p is None or not p == p:
        return "?"
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < alpha:
        return "*"
    return "~"


def _power(ncp, df, alpha=ALPHA):
    tc = stats.t.ppf(1 - alpha / 2, df)
    with np.errstate(all="ignore"):
        return stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp)


def mde_pct(cov_pct, n1, n2=None, paired=False, alpha=ALPHA, power=POWER):
    """Minimum detectable effect (in %) of a two-sided t test.

    cov_pct is the noise in % of the baseline mean: the pooled CoV of the
    two samples, or for paired data the stdev of the paired differences.
    Uses the noncentral t distribution (no normal approximation).
    """
    if paired:
        if n1 < 2:
            return NAN
        df, se = n1 - 1, math.sqrt(1.0 / n1)
    else:
        n2 = n1 if n2 is None else n2
        if n1 < 2 or n2 < 2:
            return NAN
        df, se = n1 + n2 - 2, math.sqrt(1.0 / n1 + 1.0 / n2)
    if not cov_pct == cov_pct:
        return NAN
    return _ncp_for_power(df, alpha, power) * se * cov_pct


@functools.lru_cache(maxsize=None)
def _ncp_for_power(df, alpha, power):
    """The noncentrality at which a two-sided t test with df degrees of
    freedom has the power asked for (kept: calibrations ask thousands of
    times for the same few)."""
    hi = 4.0
    while _power(hi, df, alpha) < power:
        hi *= 2
    return optimize.brentq(lambda d: _power(d, df, alpha) - power, 0.0, hi)


def n_needed(cov_pct, effect_pct, paired=False, alpha=ALPHA, power=POWER,
             limit=100000):
    """Smallest n (per variant, or pairs) that detects effect_pct."""
    if not (cov_pct == cov_pct and effect_pct) or cov_pct <= 0:
        return None
    n = 2
    while n <= limit:
        if mde_pct(cov_pct, n, n, paired, alpha, power) <= abs(effect_pct):
            return n
        n = n + 1 if n < 64 else int(n * 1.05) + 1
    return None


def _pct(r):
    return 100.0 * (r - 1.0)


def compare_unpaired(new, base, conf=0.95, rank=True):
    """% change of mean(new) vs mean(base) from independent samples.

    CI: Fieller with Welch-Satterthwaite df; tests: Welch t and
    Mann-Whitney U. MDE from the pooled CoV.
    """
    x = np.asarray(new, dtype=float)
    y = np.asarray(base, dtype=float)
    n1, n2 = x.size, y.size
    out = {"paired": False, "n": int(n1), "n_baseline": int(n2),
           "test_t": "Welch t", "test_rank": "Mann-Whitney U",
           "pct_change": NAN, "pct_ci_lo": NAN, "pct_ci_hi": NAN,
           "p_t": NAN, "p_rank": NAN, "noise_pct": NAN, "mde_pct": NAN,
           "min_p_rank": min_p_mannwhitney(n1, n2)}
    if n1 == 0 or n2 == 0 or not y.mean():
        return out
    a, b = float(x.mean()), float(y.mean())
    out["pct_change"] = _pct(a / b)
    if n1 < 2 or n2 < 2:
        return out
    s1, s2 = float(x.var(ddof=1)), float(y.var(ddof=1))
    v11, v22 = s1 / n1, s2 / n2
    r = a / b
    df = welch_df(v11, n1, r * r * v22, n2)
    _, lo, hi = fieller(a, b, v11, v22, 0.0, df, conf)
    pooled = math.sqrt(((n1 - 1) * s1 + (n2 - 1) * s2) / (n1 + n2 - 2))
    noise = 100.0 * pooled / abs(b)
    out.update(pct_ci_lo=_pct(lo), pct_ci_hi=_pct(hi), noise_pct=noise,
               mde_pct=mde_pct(noise, n1, n2))
    if _all_equal(x, y):
        out.update(p_t=1.0, p_rank=1.0)
    else:
        if s1 + s2 > 0:
            out["p_t"] = _safe_p(stats.ttest_ind, x, y, equal_var=False)
        if rank:
            out["p_rank"] = _safe_p(stats.mannwhitneyu, x, y,
                                    alternative="two-sided")
    return out


def compare_paired(new, base, conf=0.95, rank=True):
    """% change of mean(new) vs mean(base) from pairs (new[i], base[i]).

    CI: Fieller with the pairs' covariance, df = pairs - 1 (equivalent
    to a paired t test of new - ratio * base); tests: paired t and
    Wilcoxon signed-rank. MDE from the stdev of the differences.
    """
    x = np.asarray(new, dtype=float)
    y = np.asarray(base, dtype=float)
    if x.size != y.size:
        raise ValueError("paired samples differ in length")
    n = int(x.size)
    out = {"paired": True, "n": n, "n_baseline": n, "pairs": n,
           "test_t": "paired t", "test_rank": "Wilcoxon signed-rank",
           "pct_change": NAN, "pct_ci_lo": NAN, "pct_ci_hi": NAN,
           "p_t": NAN, "p_rank": NAN, "noise_pct": NAN, "mde_pct": NAN,
           "min_p_rank": min_p_wilcoxon(n)}
    if n == 0 or not y.mean():
        return out
    a, b = float(x.mean()), float(y.mean())
    out["pct_change"] = _pct(a / b)
    if n < 2:
        return out
    cov = np.cov(x, y, ddof=1)
    _, lo, hi = fieller(a, b, cov[0, 0] / n, cov[1, 1] / n, cov[0, 1] / n,
                        n - 1, conf)
    d = x - y
    noise = 100.0 * float(d.std(ddof=1)) / abs(b)
    out.update(pct_ci_lo=_pct(lo), pct_ci_hi=_pct(hi), noise_pct=noise,
               mde_pct=mde_pct(noise, n, paired=True))
    if bool(np.all(d == 0)):
        out.update(p_t=1.0, p_rank=1.0)
    else:
        out["p_t"] = _safe_p(stats.ttest_rel, x, y)
        if rank:
            out["p_rank"] = _safe_p(stats.wilcoxon, d)
    return out


@functools.lru_cache(maxsize=None)
def median_k(n, alpha=ALPHA):
    """k of the distribution-free interval [d(k), d(n+1-k)] of a median
    from n sorted draws: the largest k whose interval misses the median
    with probability at most alpha (2 P(Bin(n, 1/2) < k)); 0 when even
    [min, max] misses it more often (n < 6 at alpha 0.05)."""
    k = 0
    while k + 1 <= (n + 1) // 2 and \
            2 * stats.binom.cdf(k, n, 0.5) <= alpha + 1e-12:
        k += 1
    return k


def median_conf(n, k):
    """Coverage of [d(k), d(n+1-k)] for the median of n draws."""
    if k < 1:
        return NAN
    return 1.0 - 2 * float(stats.binom.cdf(k - 1, n, 0.5))


def holm(pvalues, alpha=ALPHA):
    """Which of the p-values a family-wise test at alpha rejects (Holm's
    step-down rule): a list of booleans in the given order."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    out = [False] * len(pvalues)
    for rank, i in enumerate(order):
        if pvalues[i] >= alpha / (len(pvalues) - rank):
            break
        out[i] = True
    return out


def sign_test_p(d):
    """Exact two-sided sign test of median 0 (zeros left out)."""
    d = np.asarray(d, dtype=float)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return 1.0
    return min(1.0, 2 * float(stats.binom.cdf(min(pos, neg), pos + neg,
                                              0.5)))


def median_interval(d, alpha=ALPHA):
    """(median, lo, hi) of the draws d with the distribution-free interval
    [d(k), d(n+1-k)] of their median (median_k); lo and hi are nan when
    there are too few draws for one. d may be 2-D: draws along the first
    axis, one median and interval per column (numpy arrays)."""
    d = np.sort(np.asarray(d, dtype=float), axis=0)
    n = d.shape[0]
    nan = np.full(d.shape[1:], NAN)
    if n == 0:
        return nan, nan, nan
    k = median_k(n, alpha)
    med = np.median(d, axis=0)
    return (med, nan, nan) if not k else (med, d[k - 1], d[n - k])


def compare_median(new, base, alpha=ALPHA, rank=True):
    """Median of the per-pair % changes of new[i] against base[i], with its
    distribution-free interval and the sign test.

    The interval is made of order statistics: it holds the median of the
    per-pair change with probability at least 1 - alpha whatever the
    distribution's shape (several modes included), where a t interval
    over a few draws of a two-mode distribution does not. Pairs: the same
    perturbation seed (two kernels), or any pairing of independent draws
    (an A/A control, whose per-pair change has median 0). Needs 6 pairs
    at alpha 0.05; with fewer the interval is undefined.
    """
    x = np.asarray(new, dtype=float)
    y = np.asarray(base, dtype=float)
    if x.size != y.size:
        raise ValueError("paired samples differ in length")
    n = int(x.size)
    k = median_k(n, alpha)
    out = {"paired": True, "n": n, "n_baseline": n, "pairs": n,
           "test_t": "sign test", "test_rank": "Wilcoxon signed-rank",
           "estimate": "median of per-seed % changes",
           "pct_change": NAN, "pct_ci_lo": NAN, "pct_ci_hi": NAN,
           "ci_conf": median_conf(n, k),
           "p_t": NAN, "p_rank": NAN, "noise_pct": NAN, "mde_pct": NAN,
           "min_p_rank": min_p_wilcoxon(n)}
    if n == 0 or not np.all(y != 0):
        return out
    d = 100.0 * (x / y - 1.0)
    med, lo, hi = median_interval(d, alpha)
    out["pct_change"] = float(med)
    out["p_t"] = sign_test_p(d)
    if k:
        out.update(pct_ci_lo=float(lo), pct_ci_hi=float(hi))
    if n >= 2:
        out["noise_pct"] = float(d.std(ddof=1))
        out["mde_pct"] = mde_pct(out["noise_pct"], n, paired=True)
        if rank:
            out["p_rank"] = 1.0 if bool(np.all(d == 0)) \
                else _safe_p(stats.wilcoxon, d)
    return out


def significant(c, floor_pct=0.0, alpha=ALPHA):
    """Whether a comparison tells its two sides apart: for the median rule
    its interval, widened by floor_pct on each side (the environment's
    share, analysis/stats/envfloor.py), excludes 0; for the t rules its p is
    below alpha (they carry no floor)."""
    if c.get("estimate", "").startswith("median"):
        return excludes_zero(c["pct_ci_lo"], c["pct_ci_hi"], floor_pct)
    p = c["p_t"]
    return bool(p is not None and p == p and p < alpha)


def excludes_zero(lo, hi, floor=0.0):
    """Whether the interval [lo, hi], widened by floor on each side,
    excludes 0; False without an interval (None or nan: stats.json writes
    nan as null)."""
    if lo is None or hi is None or not (lo == lo and hi == hi):
        return False
    return bool(lo - floor > 0 or hi + floor < 0)


def halves(keys):
    """Split sorted unique keys (e.g. rounds) into a first and a second
    half; with an odd count the middle key belongs to neither."""
    k = sorted(set(keys))
    h = len(k) // 2
    return k[:h], k[len(k) - h:]


def drift_pct(order, values):
    """(mean of the second half - mean of the first half) / first, in %.

    order gives each value's position (e.g. its round); nan with fewer
    than two distinct positions.
    """
    order = list(order)
    first, second = halves(order)
    if not first:
        return NAN
    v = np.asarray(values, dtype=float)
    a = v[[o in first for o in order]].mean()
    b = v[[o in second for o in order]].mean()
    return 100.0 * (b - a) / a
