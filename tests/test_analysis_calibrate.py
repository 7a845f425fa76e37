"""analysis/stats/calibrate.py: false-positive rate and coverage of a rule by
resampling a pool of seeds, on pools whose answer is known."""
import sys

import numpy as np
import pytest

from conftest import ROOT, run
from analysis.stats import calibrate

COMMITTED = ROOT / "results" / "20261204T002037Z-5f33c7b"


def always(significant, lo=-1.0, hi=1.0):
    """A stand-in rule with a fixed verdict and interval."""
    p = 0.0 if significant else 1.0

    def compare(new, base):
        return {"p_t": p, "pct_ci_lo": lo, "pct_ci_hi": hi}
    return calibrate.Rule(compare, compare, calibrate.pct_change)


T, MEDIAN = calibrate.RULES["t"], calibrate.RULES["median"]


def test_known_answers_of_stand_in_rules():
    pool = np.arange(1.0, 21.0)
    assert calibrate.false_positive_rate(pool, 5, always(True), 200) == 1.0
    assert calibrate.false_positive_rate(pool, 5, always(False), 200) == 0.0
    base = np.full(12, 100.0)
    new = np.full(12, 101.0)         # +1%: inside [0, 2], outside [2, 3]
    assert calibrate.coverage(new, base, 5, always(True, 0, 2), 200) == 1.0
    assert calibrate.coverage(new, base, 5, always(True, 2, 3), 200) == 0.0


def test_t_rule_on_normal_seeds_meets_its_promise():
    rng = np.random.default_rng(1)
    pool = rng.normal(1000.0, 1.0, 400)
    fp = calibrate.false_positive_rate(pool, 5, T, resamples=1000)
    assert 0.02 <= fp <= 0.08, fp
    base = rng.normal(1000.0, 1.0, 400)
    new = base * 1.01 + rng.normal(0.0, 0.5, 400)
    cov = calibrate.coverage(new, base, 5, T, resamples=1000)
    assert 0.92 <= cov <= 0.98, cov


def test_median_rule_error_rates_are_the_binomial_ones():
    """Known answer: with n=6 the median rule's interval is [min, max] of
    the six per-pair changes, which misses the median with probability
    2/64 whatever the distribution: the A/A false-positive rate is
    1/32 and the coverage 31/32 (a little more from a finite pool)."""
    rng = np.random.default_rng(3)
    pool = rng.exponential(1.0, 4000) + 1000.0     # skewed, not normal
    fp = calibrate.false_positive_rate(pool, 6, MEDIAN, resamples=4000)
    assert abs(fp - 1 / 32) < 0.01, fp
    base = rng.normal(1000.0, 1.0, 4000)
    new = base * (1.01 + rng.exponential(0.001, 4000))
    cov = calibrate.coverage(new, base, 6, MEDIAN, resamples=4000)
    assert abs(cov - 31 / 32) < 0.01, cov


def two_mode_pool(seeds=60, share=0.7, gap_pct=0.2, seed=2):
    """Paired seeds whose gain has two modes gap_pct apart (as the distro
    run's did), each mode tight."""
    rng = np.random.default_rng(seed)
    base = 124600.0 + rng.normal(0.0, 5.0, seeds)
    mode = rng.random(seeds) < share
    gain = np.where(mode, 1.0155, 1.0155 - gap_pct / 100.0)
    return base * gain + rng.normal(0.0, 5.0, seeds), base


def test_t_interval_undercovers_two_modes_and_the_median_rule_does_not():
    new, base = two_mode_pool()
    assert calibrate.coverage(new, base, 5, T, resamples=1000) < 0.85
    for n in (6, 9, 12):
        cov = calibrate.coverage(new, base, n, MEDIAN, resamples=1000)
        assert cov >= 0.95, (n, cov)
    # A/A: one kernel's runs in two modes 0.16% apart (the distro run's).
    rng = np.random.default_rng(4)
    runs = np.where(rng.random(60) < 0.6, 124600.0, 124800.0) \
        + rng.normal(0.0, 8.0, 60)
    assert calibrate.false_positive_rate(runs, 6, MEDIAN, resamples=2000) \
        <= 0.05


def test_pool_too_small_is_named():
    with pytest.raises(ValueError, match="needs 10 runs"):
        calibrate.false_positive_rate(np.arange(8.0), 5)
    with pytest.raises(ValueError, match="more than 5 paired seeds"):
        calibrate.coverage(np.arange(5.0), np.arange(5.0), 5)


def test_command_on_a_committed_dir():
    p = run([str(ROOT / "analysis" / "calibrate"), str(COMMITTED), "--n",
             "2", "--resamples", "200", "--metric", "ops_per_s"])
    lines = p.stdout.splitlines()
    for rule in ("t", "median"):
        assert any(line.split()[:2] == ["ops_per_s", rule] and
                   "A/A false positives, atomic-read" in line and
                   "10 runs" in line for line in lines), p.stdout
        assert any(line.split()[:2] == ["ops_per_s", rule] and
                   "coverage, jump-label" in line and "5 seeds" in line
                   for line in lines), p.stdout
    p = run([str(ROOT / "analysis" / "calibrate"), str(COMMITTED), "--n",
             "5"], check=False)
    assert p.returncode == 1 and "more than 5 paired seeds" in p.stderr
    p = run([str(ROOT / "analysis" / "calibrate"), str(COMMITTED),
             "--write"], check=False)
    assert p.returncode == 2 and "--write needs --env" in p.stderr


def test_default_seeds_are_bench_runs():
    sys.path.insert(0, str(ROOT))
    from bench.tries import plan
    assert plan.PROFILES["quick"]["icount"][0] == calibrate.DEFAULT_SEEDS
