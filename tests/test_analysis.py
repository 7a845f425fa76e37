"""analysis/analyze and analysis/compare on synthetic results dirs."""
import json
import sys

import pandas as pd
import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

JL = [40.21, 40.42, 40.13, 40.52, 40.33, 40.27]
AR = [40.02, 40.11, 39.93, 40.24, 40.05, 40.10]
PR = [40.05, 40.16, 39.97, 40.27, 40.06, 40.13]
PER_OP = {
    "jump-label": {"kernel_insns": 50000, "kernel_branches": 9000,
                   "user_insns": 3000, "user_branches": 500,
                   "site_execs": 40},
    "atomic-read": {"kernel_insns": 50100, "kernel_branches": 9040,
                    "user_insns": 3000, "user_branches": 500,
                    "site_execs": 0},
}


def analyze(path, *extra, check=True):
    return run([PYTHON, str(ROOT / "analysis" / "analyze"), str(path)]
               + list(extra), check=check)


def stats_of(path):
    with open(path + "/stats.json") as f:
        return json.load(f)


def comparison(st, label, metric="throughput_mbps"):
    m = next(m for m in st["metrics"] if m["metric"] == metric)
    return next(c for c in m["comparisons"] if c["label"] == label)


def test_icount_runs_are_paired_by_seed(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR,
                                           "plain-read": PR})
    analyze(d, "--no-history")
    st = stats_of(d)
    c = comparison(st, "jump-label")
    assert c["paired"] and c["test_t"] == "sign test"
    assert c["test_rank"] == "Wilcoxon signed-rank"
    assert c["seeds"] == [str(1000 + r) for r in range(1, 7)]
    # the median rule: the median per-seed change, [min, max] at n=6
    changes = sorted(100 * (j / a - 1) for j, a in zip(JL, AR))
    assert c["pct_change"] == pytest.approx((changes[2] + changes[3]) / 2)
    assert (c["pct_ci_lo"], c["pct_ci_hi"]) == pytest.approx(
        (changes[0], changes[-1]))
    assert c["marker"] in ("*", "**", "***")
    assert st["accel"] == "icount"
    summary = pd.read_csv(d + "/summary.csv")
    row = summary[(summary.label == "jump-label")
                  & (summary.metric == "throughput_mbps")].iloc[0]
    assert row["n"] == 6 and row["method"] == "sign test"
    assert row["mean"] == pytest.approx(sum(JL) / 6)


def test_tcg_runs_are_unpaired(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR}, accel="tcg")
    analyze(d, "--no-history")
    c = comparison(stats_of(d), "jump-label")
    assert not c["paired"] and c["test_t"] == "Welch t"
    assert c["test_rank"] == "Mann-Whitney U"


def test_identical_variants_are_not_significant(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": AR,
                                           "atomic-read": AR}, accel="kvm")
    analyze(d, "--no-history")
    c = comparison(stats_of(d), "jump-label")
    assert c["pct_change"] == 0 and c["marker"] == "~"
    assert c["p_t"] == pytest.approx(1.0)


def test_failed_run_is_counted_and_warned(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR},
                           failed={("atomic-read", 3)})
    p = analyze(d, "--no-history")
    st = stats_of(d)
    info = {i["label"]: i for i in st["labels"]}
    assert info["atomic-read"]["failed"] == 1
    assert info["atomic-read"]["n"] == 6 and info["jump-label"]["failed"] == 0
    assert info["atomic-read"]["failed_reasons"] == ["timeout after 300 s"]
    assert any("atomic-read: 1 failed try" in w for w in st["warnings"])
    assert "warning: atomic-read: 1 failed try" in p.stderr
    summary = pd.read_csv(d + "/summary.csv")
    assert set(summary[summary.label == "atomic-read"]["failed"]) == {1}


def test_run_that_never_succeeded_is_reported(tmp_path):
    d = synth.make_results(str(tmp_path), {
        "jump-label": JL[:3], "atomic-read": [40.0, None, 40.1]})
    analyze(d, "--no-history")
    st = stats_of(d)
    info = {i["label"]: i for i in st["labels"]}
    assert info["atomic-read"]["n"] == 2 and info["atomic-read"]["failed"] == 3
    assert len(info["atomic-read"]["missing_runs"]) == 1
    w = "\n".join(st["warnings"])
    assert "have no ok try" in w and "2011 used 5" in w
    assert "the median rule needs 6 for a 95% interval" in w


def test_small_n_high_steal_and_drift_warnings(tmp_path):
    d = synth.make_results(
        str(tmp_path), {"jump-label": [40.0, 40.1, 44.0, 44.1],
                        "atomic-read": [39.9, 40.0, 43.9, 44.0]},
        steal={"jump-label": [0, 0, 50, 0]})
    analyze(d, "--no-history")
    w = "\n".join(stats_of(d)["warnings"])
    assert "steal time up to 5.0%" in w
    assert "drift between the first and second half" in w
    assert "4 pairs: the median rule needs 6" in w


def test_counters_per_op_and_not_supported_stays_text(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR},
                           per_op=PER_OP, perf={"branches": "not-supported",
                                                "cycles": "not-counted"})
    analyze(d, "--no-history")
    st = stats_of(d)
    m = {x["metric"]: x for x in st["metrics"]}
    kb = m["kernel_branches_per_op"]
    assert kb["per_label"]["jump-label"]["mean"] == pytest.approx(9000, 1e-4)
    c = comparison(st, "jump-label", "kernel_branches_per_op")
    assert c["pct_change"] == pytest.approx(100 * (9000 / 9040 - 1), 1e-3)
    pb = m["perf_branches_per_op"]["per_label"]["jump-label"]
    assert pb["text"] == "not-supported" and pb["mean"] is None
    assert m["perf_cycles_per_op"]["per_label"]["atomic-read"]["text"] == \
        "not-counted"
    summary = pd.read_csv(d + "/summary.csv", keep_default_na=False)
    row = summary[(summary.metric == "perf_branches_per_op")].iloc[0]
    assert row["text"] == "not-supported" and row["mean"] == ""


def test_aa_control_gets_its_own_comparison(tmp_path):
    d = synth.make_results(
        str(tmp_path), {"jump-label": JL, "atomic-read": AR, "A": AR,
                        "B": PR},
        variant_of={"A": "atomic-read", "B": "atomic-read"})
    analyze(d, "--no-history")
    st = stats_of(d)
    assert st["groups"] == {"main": ["jump-label", "atomic-read"],
                            "aa": ["A", "B"]}
    # beside the main labels, each A/A label is compared with the main
    # label of its kernel, paired by round (its seeds are its own)
    for lab in ("A", "B"):
        c = comparison(st, lab)
        assert c["group"] == "aa" and c["baseline"] == "atomic-read"
        assert c["paired"] and c["rounds"] == [str(r) for r in range(1, 7)]
        assert "seeds" not in c
    main = [c["label"] for m in st["metrics"] for c in m["comparisons"]
            if c["group"] == "main" and m["metric"] == "throughput_mbps"]
    assert main == ["jump-label"]


def test_aa_only_run_compares_b_with_a(tmp_path):
    d = synth.make_results(
        str(tmp_path), {"A": AR, "B": PR},
        variant_of={"A": "atomic-read", "B": "atomic-read"})
    analyze(d, "--no-history")
    st = stats_of(d)
    assert st["groups"] == {"main": [], "aa": ["A", "B"]}
    c = comparison(st, "B")
    assert c["group"] == "aa" and c["baseline"] == "A"


def test_history_is_idempotent(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR})
    analyze(d)
    hist = tmp_path / "history.csv"
    first = hist.read_text()
    analyze(d)
    assert hist.read_text() == first
    h = pd.read_csv(hist)
    assert set(h["metric"]) == {"ops_per_s", "throughput_mbps"}
    head = h[h["headline"] == 1]
    assert set(head["metric"]) == {"ops_per_s"}       # icount's headline
    assert list(head["label"]) == ["jump-label", "atomic-read"]
    assert set(h["git_commit"]) == {"abc1234def5678"}
    assert set(h["kernel_version"]) == {"6.1.192-3"}
    assert set(h["config"]) == {"full"}
    d2 = synth.make_results(str(tmp_path), {"jump-label": AR,
                                            "atomic-read": AR},
                            name="20261202T000000Z-def5678", config="distro")
    analyze(d2, "--history", str(hist))
    h = pd.read_csv(hist)
    assert len(h) == 8 and list(h["run_id"].unique()) == [
        "20261201T000000Z-abc1234", "20261202T000000Z-def5678"]
    assert list(h["config"].unique()) == ["full", "distro"]


def test_bad_results_dir_fails_clearly(tmp_path):
    d = tmp_path / "20261201T000000Z-abc1234"
    d.mkdir()
    (d / "runs.csv").write_text("index,variant\n1,jump-label\n")
    p = analyze(d, "--no-history", check=False)
    assert p.returncode == 1 and "lacks columns" in p.stderr
    p = analyze(tmp_path / "nope", check=False)
    assert p.returncode == 2


def test_mixed_modes_are_refused(tmp_path):
    d = synth.make_results(str(tmp_path), {"jump-label": JL,
                                           "atomic-read": AR})
    runs = pd.read_csv(d + "/runs.csv", dtype=str, keep_default_na=False)
    runs.loc[0, "accel"] = "tcg"
    runs.to_csv(d + "/runs.csv", index=False)
    p = analyze(d, "--no-history", check=False)
    assert p.returncode == 1 and "mixes accelerators" in p.stderr


def test_aa_line_says_whether_the_control_passed(tmp_path):
    """A twin that comes out above its kernel on every round fails the
    A/A control, and the report's opening says so; one that scatters
    around it passes."""
    from analysis.sections import verdict
    failing = synth.make_results(
        str(tmp_path / "f"), {"jump-label": JL, "atomic-read": AR,
                              "atomic-read.aa": [v * 1.01 for v in AR]},
        variant_of={"atomic-read.aa": "atomic-read"})
    passing = synth.make_results(
        str(tmp_path / "p"), {"jump-label": JL, "atomic-read": AR,
                              "atomic-read.aa": AR[3:] + AR[:3]},
        variant_of={"atomic-read.aa": "atomic-read"})
    for d, want in ((failing, "A/A control **FAILED** on"),
                    (passing, "A/A control **passed**")):
        analyze(d, "--no-history")
        assert want in verdict.answer(stats_of(d)), d
