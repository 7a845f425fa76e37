"""Measured error rates of a comparison rule, from a pool of seeds.

A rule turns samples into an interval and a "significant". Whether its
intervals are 95% intervals and its false-positive rate is alpha is a
property of the data's real distribution (multi-modal seeds, for one),
which a results dir with many seeds per kernel shows. From such a pool:

- false_positive_rate(): draw 2n runs of ONE kernel without replacement,
  split them n against n, compare them as the report compares its A/A
  twin (unpaired); the share called significant.
- coverage(): draw n seeds of a (new, base) pair without replacement,
  compare them paired; the share of intervals that contain the pool's own
  % change (all its seeds).

A rule is a function (new, base) -> stats.compare_* dict; RULES names the
ones the report uses today. analysis/calibrate prints both rates for a
results dir.
"""
import numpy as np

from analysis import stats

ALPHA = stats.ALPHA
RESAMPLES = 1000


def t_paired(new, base):
    """The report's paired rule: Fieller CI, paired t test."""
    return stats.compare_paired(new, base)


def t_unpaired(new, base):
    """The report's unpaired rule (its A/A twin): Fieller CI, Welch t."""
    return stats.compare_unpaired(new, base)


RULES = {"t": (t_paired, t_unpaired)}


def significant(c, alpha=ALPHA):
    """Whether a comparison is called significant: its t p below alpha."""
    return bool(c["p_t"] < alpha)


def covers(c, truth_pct):
    """Whether a comparison's interval contains truth_pct."""
    return bool(c["pct_ci_lo"] <= truth_pct <= c["pct_ci_hi"])


def pct_change(new, base):
    """% change of mean(new) against mean(base)."""
    return 100.0 * (float(np.mean(new)) / float(np.mean(base)) - 1.0)


def false_positive_rate(pool, n, rule=t_unpaired, resamples=RESAMPLES,
                        seed=0, alpha=ALPHA):
    """Share of n-against-n splits of one kernel's runs called significant.
    pool: that kernel's per-run values (at least 2n)."""
    pool = np.asarray(pool, dtype=float)
    if pool.size < 2 * n:
        raise ValueError("an A/A split of %d against %d needs %d runs of "
                         "one kernel, the pool has %d"
                         % (n, n, 2 * n, pool.size))
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(resamples):
        draw = rng.permutation(pool)[:2 * n]
        hits += significant(rule(draw[:n], draw[n:]), alpha)
    return hits / resamples


def coverage(new, base, n, rule=t_paired, resamples=RESAMPLES, seed=0):
    """Share of n-seed intervals that contain the pool's % change. new and
    base: per-seed values, paired by position (at least n + 1 seeds, so
    that draws differ)."""
    new = np.asarray(new, dtype=float)
    base = np.asarray(base, dtype=float)
    if new.size != base.size:
        raise ValueError("paired pools differ in length")
    if new.size <= n:
        raise ValueError("coverage at n=%d needs more than %d paired seeds, "
                         "the pool has %d" % (n, n, new.size))
    truth = pct_change(new, base)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(resamples):
        idx = rng.permutation(new.size)[:n]
        hits += covers(rule(new[idx], base[idx]), truth)
    return hits / resamples


def binomial_ci(rate, resamples):
    """A normal-approximation 95% half-width of a rate from resamples."""
    return 1.96 * float(np.sqrt(max(rate * (1 - rate), 1e-12) / resamples))
