"""Measured error rates of a comparison rule, from a pool of seeds, and
the committed calibration (analysis/calibration.json).

A rule turns samples into an interval and a "significant". Whether its
intervals are 95% intervals and its false-positive rate is alpha is a
property of the data's real distribution (multi-modal seeds, for one),
which a results dir with many seeds per kernel shows. From such a pool:

- false_positive_rate(): draw 2n runs of ONE kernel without replacement,
  split them n against n, compare them as the report compares its A/A
  twin (paired by position); the share called significant.
- coverage(): draw n seeds of a (new, base) pair without replacement,
  compare them paired; the share of intervals that contain the pool's own
  value of what the rule estimates (all its seeds).
- half_width(): the median half-width of those intervals.

A Rule is its paired and A/A comparisons (stats.compare_*) and the
pool's value they estimate; RULES holds the report's (median) and the one
it replaced (t). write() stores the report rule's rates with the
environment floors (analysis/stats/envfloor.py); load() reads them back for
the report and analysis/compare, and floorfiles.floor() takes a floor from
them.
"""
import json
import os
from collections import namedtuple

import numpy as np

from analysis.results import reference
from analysis.stats import floorfiles, stats
from analysis.results.load import FormatError, ok_rows, per_key, per_run
from lib import ROOT, workloads
from lib.format import schema

ALPHA = stats.ALPHA
RESAMPLES = 1000
# Seeds per kernel of an icount run (bench/tries/plan.py PROFILES, quick;
# tests/test_analysis_calibrate.py keeps the two equal): the smallest n at
# which the median rule's interval is a 95% one.
DEFAULT_SEEDS = 6
# The committed calibration (analysis/calibrate --env ... --write);
# $JLBENCH_CALIBRATION names another (tests use it).
FILE = os.path.join(ROOT, "analysis", "calibration.json")


def path():
    """Where the calibration is read from and written to."""
    return os.environ.get("JLBENCH_CALIBRATION") or FILE


def pct_change(new, base):
    """% change of mean(new) against mean(base)."""
    return 100.0 * (float(np.mean(new)) / float(np.mean(base)) - 1.0)


def median_change(new, base):
    """Median of the per-pair % changes of new against base."""
    return float(np.median(100.0 * (np.asarray(new, dtype=float)
                                    / np.asarray(base, dtype=float) - 1.0)))


# A rule: its paired comparison (seeds of two kernels), its A/A
# comparison (two sets of runs of one kernel) and the pool's own value of
# what its interval estimates, which coverage() checks it against.
Rule = namedtuple("Rule", "paired unpaired truth")


def _lean(compare):
    """compare without its rank test, which no rate here reads."""
    return lambda new, base: compare(new, base, rank=False)


RULES = {
    # Before issue 30: Fieller CI with a paired t test; Welch t for the A/A.
    "t": Rule(_lean(stats.compare_paired), _lean(stats.compare_unpaired),
              pct_change),
    # The report's rule: the distribution-free median interval, the A/A
    # runs paired by position (independent draws of one kernel).
    "median": Rule(_lean(stats.compare_median), _lean(stats.compare_median),
                   median_change),
}
DEFAULT_RULE = "median"


def significant(c, alpha=ALPHA):
    """Whether a comparison is called significant (no environment floor:
    the pool is one results dir, one environment)."""
    return stats.significant(c, alpha=alpha)


def covers(c, truth_pct):
    """Whether a comparison's interval contains truth_pct."""
    return bool(c["pct_ci_lo"] <= truth_pct <= c["pct_ci_hi"])


def false_positive_rate(pool, n, rule=RULES[DEFAULT_RULE],
                        resamples=RESAMPLES,
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
        hits += significant(rule.unpaired(draw[:n], draw[n:]), alpha)
    return hits / resamples


def coverage(new, base, n, rule=RULES[DEFAULT_RULE], resamples=RESAMPLES,
             seed=0):
    """Share of n-seed intervals that contain the pool's own value of what
    the rule estimates (rule.truth over all its seeds). new and
    base: per-seed values, paired by position (at least n + 1 seeds, so
    that draws differ)."""
    new = np.asarray(new, dtype=float)
    base = np.asarray(base, dtype=float)
    if new.size != base.size:
        raise ValueError("paired pools differ in length")
    if new.size <= n:
        raise ValueError("coverage at n=%d needs more than %d paired seeds, "
                         "the pool has %d" % (n, n, new.size))
    truth = rule.truth(new, base)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(resamples):
        idx = rng.permutation(new.size)[:n]
        hits += covers(rule.paired(new[idx], base[idx]), truth)
    return hits / resamples


def half_width(new, base, n, rule=RULES[DEFAULT_RULE], resamples=RESAMPLES,
               seed=0):
    """Median half-width (in points of %) of the rule's intervals from n
    of the paired seeds: the smallest change an n-seed run resolves."""
    new = np.asarray(new, dtype=float)
    base = np.asarray(base, dtype=float)
    rng = np.random.default_rng(seed)
    widths = []
    for _ in range(resamples):
        idx = rng.permutation(new.size)[:n]
        c = rule.paired(new[idx], base[idx])
        widths.append((c["pct_ci_hi"] - c["pct_ci_lo"]) / 2.0)
    return float(np.median(widths))


def pools(res, metric):
    """(baseline, paired) of a results dir for metric: every ok run of the
    baseline kernel (meta.json's; its A/A twin included), and {variant:
    (new, base)} of each other kernel's seeds paired with the
    baseline's."""
    runs = res.runs
    ok = ok_rows(runs).copy()
    values, texts = per_run(ok, metric)
    if texts or values.isna().any():
        raise FormatError("%r is not counted in every ok run" % metric)
    ok["value"] = values
    base = ok[ok["variant"] == res.baseline]
    main = base[base["label"] == res.baseline]
    by_seed = per_key(main, main["value"], "perturb_seed")
    paired = {}
    for variant in reference.label_order(set(ok["variant"])
                                         - {res.baseline}):
        runs = ok[ok["label"] == variant]
        new = per_key(runs, runs["value"], "perturb_seed")
        seeds = sorted(set(new.index) & set(by_seed.index))
        paired[variant] = (new[seeds].values, by_seed[seeds].values)
    return base["value"].values, paired


def measure(res, metric, n, rule=DEFAULT_RULE, resamples=RESAMPLES):
    """A rule's error rates on one metric of a results dir: {"rule",
    "n", "false_positive", "aa_runs", "coverage": {variant: rate},
    "half_width": {variant: points}, "seeds": {variant: count}}."""
    r = RULES[rule]
    aa, paired = pools(res, metric)
    out = {"rule": rule, "n": n, "aa_runs": int(len(aa)),
           "false_positive": false_positive_rate(aa, n, r, resamples),
           "coverage": {}, "half_width": {}, "seeds": {}}
    for variant, (new, base) in paired.items():
        out["coverage"][variant] = coverage(new, base, n, r, resamples)
        out["half_width"][variant] = half_width(new, base, n, r, resamples)
        out["seeds"][variant] = int(len(new))
    return out


def binomial_ci(rate, resamples):
    """A normal-approximation 95% half-width of a rate from resamples."""
    return 1.96 * float(np.sqrt(max(rate * (1 - rate), 1e-12) / resamples))


def write(res, env_root, envs, measured, floors, n, resamples, dest=None):
    """Store the report rule's measured rates (and the t rule's, for
    comparison) and the environment floors; returns the path."""
    out = {"rule": DEFAULT_RULE, "alpha": ALPHA, "n": n,
           "resamples": resamples, "study": floorfiles.rel(res.path),
           "environments": {k: floorfiles.rel(v.path)
                            for k, v in envs.items()},
           "environment_study": floorfiles.rel(env_root), "metrics": {}}
    for metric, by_rule in measured.items():
        m = by_rule[DEFAULT_RULE]
        rec = {"false_positive": m["false_positive"],
               "coverage": m["coverage"], "half_width": m["half_width"],
               "aa_runs": m["aa_runs"], "seeds": m["seeds"]}
        if "t" in by_rule:
            rec["t"] = {"false_positive": by_rule["t"]["false_positive"],
                        "coverage": by_rule["t"]["coverage"]}
        rec["floor_level_pct"] = floors[metric]["level"]
        rec["floor_difference_pts"] = floors[metric]["difference"]
        out["metrics"][metric] = rec
    dest = dest or path()
    return floorfiles.replace(dest, json.dumps(out, indent=1, sort_keys=True))


def load(src=None):
    """The committed calibration (write()), or None when there is none."""
    return floorfiles.read(src or path())


def for_workload(workload):
    """The calibration a run of workload is judged by: tbench's (load()),
    or another workload's floors (floorfiles.write_floors(): no error
    rates), or None when its environment was not studied."""
    if workload == workloads.DEFAULT:
        return load()
    return (load(floorfiles.floors_path()) or {}).get(workload)


def for_run(meta):
    """for_workload() of the run whose meta.json is meta."""
    return for_workload(schema.workload(meta))
