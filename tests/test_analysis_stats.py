"""Unit tests of analysis/stats/stats.py: known answers, no I/O."""
import math
import sys

import numpy as np
import pytest
from scipy import stats as sst

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from analysis.stats import stats  # noqa: E402


def test_describe_known_values():
    d = stats.describe([1.0, 2.0, 3.0, 4.0])
    assert d["n"] == 4 and d["mean"] == 2.5
    assert d["stdev"] == pytest.approx(math.sqrt(5 / 3))
    assert d["cov_pct"] == pytest.approx(100 * math.sqrt(5 / 3) / 2.5)
    half = sst.t.ppf(0.975, 3) * math.sqrt(5 / 3) / 2
    assert (d["ci_lo"], d["ci_hi"]) == pytest.approx((2.5 - half, 2.5 + half))
    one = stats.describe([7.0])
    assert one["mean"] == 7.0 and math.isnan(one["stdev"])
    assert math.isnan(one["ci_lo"])


def test_fieller_without_baseline_noise_is_a_t_interval():
    r, lo, hi = stats.fieller(102.0, 100.0, 4.0, 0.0, 0.0, 9)
    half = sst.t.ppf(0.975, 9) * 2.0 / 100.0
    assert r == pytest.approx(1.02)
    assert (lo, hi) == pytest.approx((1.02 - half, 1.02 + half))


def test_fieller_widens_with_baseline_noise_and_can_be_unbounded():
    _, lo0, hi0 = stats.fieller(102.0, 100.0, 4.0, 0.0, 0.0, 9)
    _, lo1, hi1 = stats.fieller(102.0, 100.0, 4.0, 4.0, 0.0, 9)
    assert lo1 < lo0 and hi1 > hi0
    _, lo, hi = stats.fieller(1.0, 1.0, 1.0, 1.0, 0.0, 3)
    assert lo == -math.inf and hi == math.inf


def test_known_shift_ci_covers_it_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    hits, sims = 0, 400
    for _ in range(sims):
        base = rng.normal(100.0, 1.0, 8)
        new = rng.normal(102.0, 1.5, 6)
        c = stats.compare_unpaired(new, base)
        hits += c["pct_ci_lo"] <= 2.0 <= c["pct_ci_hi"]
    assert 0.92 * sims <= hits <= 0.98 * sims


def test_known_shift_is_detected_and_estimated():
    rng = np.random.default_rng(3)
    base = rng.normal(100.0, 1.0, 30)
    new = rng.normal(102.0, 1.0, 30)
    c = stats.compare_unpaired(new, base)
    assert c["pct_ci_lo"] <= 2.0 <= c["pct_ci_hi"]
    assert c["p_t"] < 0.001 and c["p_rank"] < 0.001
    assert stats.marker(c["p_t"]) == "***"
    assert c["p_t"] == pytest.approx(
        sst.ttest_ind(new, base, equal_var=False).pvalue)


def test_identical_samples_are_not_significant():
    x = [40.1, 40.3, 39.9, 40.0, 40.2]
    c = stats.compare_unpaired(x, list(x))
    assert c["pct_change"] == 0.0
    assert c["p_t"] == pytest.approx(1.0) and c["p_rank"] == pytest.approx(1)
    assert c["pct_ci_lo"] < 0 < c["pct_ci_hi"]
    assert stats.marker(c["p_t"]) == "~"
    p = stats.compare_paired(x, list(x))
    assert p["p_t"] == 1.0 and stats.marker(p["p_t"]) == "~"


def test_paired_resolves_what_unpaired_cannot():
    rng = np.random.default_rng(11)
    seed_effect = rng.normal(0.0, 3.0, 8)          # big spread across seeds
    base = 100.0 + seed_effect
    new = base * 1.005 + rng.normal(0.0, 0.05, 8)  # +0.5%, tightly paired
    un = stats.compare_unpaired(new, base)
    pa = stats.compare_paired(new, base)
    assert pa["paired"] and pa["test_t"] == "paired t"
    assert pa["test_rank"] == "Wilcoxon signed-rank"
    assert pa["p_t"] < 0.001 and un["p_t"] > 0.05
    assert pa["pct_ci_lo"] <= 0.5 <= pa["pct_ci_hi"]
    assert pa["pct_ci_hi"] - pa["pct_ci_lo"] < un["pct_ci_hi"] - \
        un["pct_ci_lo"]
    assert pa["p_t"] == pytest.approx(sst.ttest_rel(new, base).pvalue)


def test_mde_matches_the_design_rule_of_thumb():
    # n = 15.7 (c/d)^2 + 2  <=>  d = c * sqrt(15.7 / (n - 2)) (approximately)
    for cov, n in ((0.5, 10), (2.0, 29), (1.0, 50)):
        rule = cov * math.sqrt(15.7 / (n - 2))
        assert stats.mde_pct(cov, n) == pytest.approx(rule, rel=0.12)
    assert stats.n_needed(0.5, 1.5) == 4
    assert stats.n_needed(2.0, 1.5) in range(28, 32)
    assert math.isnan(stats.mde_pct(1.0, 1))


def test_smallest_rank_test_p_values():
    assert stats.min_p_mannwhitney(3, 3) == pytest.approx(0.1)
    assert stats.min_p_mannwhitney(5, 5) == pytest.approx(2 / 252)
    assert stats.min_p_wilcoxon(5) == pytest.approx(0.0625)
    assert stats.min_p_wilcoxon(6) == pytest.approx(0.03125)


def test_drift_by_halves_of_rounds():
    assert stats.drift_pct([1, 2, 3, 4], [10, 10, 11, 11]) == \
        pytest.approx(10.0)
    # odd count: the middle round belongs to neither half
    assert stats.drift_pct([1, 2, 3], [10, 99, 12]) == pytest.approx(20.0)
    assert math.isnan(stats.drift_pct([1, 1], [3, 4]))


def test_zero_baseline_gives_no_percentage():
    c = stats.compare_paired([40.0, 40.0], [0.0, 0.0])
    assert math.isnan(c["pct_change"])
    assert stats.marker(float("nan")) == "?"


def test_median_rule_order_statistics_known_answers():
    # n=6: [min, max] at 1 - 2/64; n=9: [d(2), d(8)] at 1 - 20/512.
    assert stats.median_k(5) == 0 and stats.median_k(6) == 1
    assert stats.median_k(9) == 2 and stats.median_k(30) == 10
    assert stats.median_conf(6, 1) == pytest.approx(1 - 2 / 64)
    assert stats.median_conf(9, 2) == pytest.approx(1 - 20 / 512)
    base = np.full(9, 1000.0)
    gains = np.array([0.5, -0.1, 0.2, 0.9, 0.3, 0.4, 0.1, 0.6, 0.7])
    c = stats.compare_median(base * (1 + gains / 100), base)
    assert c["pct_change"] == pytest.approx(0.4)
    assert (c["pct_ci_lo"], c["pct_ci_hi"]) == pytest.approx((0.1, 0.7))
    # 8 of 9 positive: exact two-sided sign test.
    assert c["p_t"] == pytest.approx(2 * 10 / 512)
    assert stats.significant(c)
    assert not stats.significant(c, floor_pct=0.15)   # 0.1 - 0.15 < 0


def test_median_rule_has_no_interval_below_six_pairs():
    base = np.full(5, 1000.0)
    c = stats.compare_median(base * 1.01, base)
    assert c["pct_change"] == pytest.approx(1.0)
    assert math.isnan(c["pct_ci_lo"]) and not stats.significant(c)
    assert c["p_t"] == pytest.approx(2 / 32)


def test_significant_of_the_t_rules_is_their_p():
    assert stats.significant({"p_t": 0.01}) and \
        not stats.significant({"p_t": 0.2})
    assert not stats.significant({"p_t": float("nan")})


def test_holm_rejects_step_down_at_the_family_level():
    # 4 tests: 0.01 < 0.05/4, 0.015 < 0.05/3, 0.03 >= 0.05/2 stops there
    assert stats.holm([0.03, 0.01, 0.015, 0.5]) == [False, True, True,
                                                    False]
    # three p-values just under 0.05 each: none for the family
    assert stats.holm([0.016, 0.043, 0.043] + [1.0] * 7) == [False] * 10
    assert stats.holm([]) == []


def test_aa_verdict_is_family_wise_beside_the_headline():
    from analysis.sections import verdict

    def st(*ps):
        return {"headline": "m0", "metrics": [
            {"metric": "m%d" % i, "comparisons": [
                {"group": "aa", "label": "x.aa", "p_t": p,
                 "significant": p < 0.05}]} for i, p in enumerate(ps)]}
    # the other metrics: one family
    text = verdict.aa_verdict(st(0.6, 0.016, 0.043, *[0.9] * 6), "x.aa")
    assert text.startswith("**passed**") and "alone, m1, m2 have" in text
    text = verdict.aa_verdict(st(0.6, 0.001, 0.9), "x.aa")
    assert text.startswith("**FAILED** on m1 ("), text
    # the headline at 5% on its own (6 seeds: the sign test's least p)
    text = verdict.aa_verdict(st(0.031, 0.5, 0.9), "x.aa")
    assert text.startswith("**FAILED** on m0 ("), text
    assert "alone" not in verdict.aa_verdict(st(0.3, 0.6), "x.aa")
