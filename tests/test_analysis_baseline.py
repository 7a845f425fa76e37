"""A user's own kernels against a baseline of his choice (meta.json's
`baseline`, bench/run --baseline): analysis, the report, the plots, the
history and analysis/compare compare every kernel with that baseline and
its A/A twin, and set nothing of 2011's beside them."""
import csv
import json
import re
import sys

import pytest

from conftest import PYTHON, ROOT, run

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402
from analysis.results import reference  # noqa: E402
from analysis.stats import calibrate  # noqa: E402
from analysis.results.load import FormatError, Results  # noqa: E402

RUN = "20261201T000000Z-abc1234"
JL = [39.512, 39.634, 39.401, 39.711, 39.588, 39.655]
MINE = [v * 1.008 for v in JL]
PER_OP = {"jump-label": synth.GOLDEN_PER_OP["jump-label"],
          "mine": dict(synth.GOLDEN_PER_OP["jump-label"],
                       kernel_insns=61100.0)}


def tool(name, *args, check=True):
    path = ROOT / ("plots" if name == "draw" else "analysis") / name
    cmd = [str(path)] if name == "draw" else [PYTHON, str(path)]
    return run(cmd + [str(a) for a in args], check=check)


def user_run(root, name=RUN, values=None, baseline="jump-label", **kw):
    """A results dir of `mine` against the baseline jump-label, with the
    baseline's A/A twin, as bench/run --baseline jump-label writes it."""
    values = values or {"jump-label": JL, "mine": MINE,
                        "jump-label.aa": JL[1:] + JL[:1]}
    return synth.make_results(
        str(root / "results"), values, name=name,
        variant_of={lab: lab[:-3] for lab in values if lab.endswith(".aa")},
        per_op=PER_OP, baseline=baseline, **kw)


def classic_run(root, name="20261130T000000Z-0a0a0a0"):
    """The built-in kernels against atomic-read; meta.json without a
    baseline, as before bench/run --baseline."""
    return synth.make_results(
        str(root / "results"),
        {"jump-label": JL, "atomic-read": [v * 0.995 for v in JL],
         "plain-read": [v * 0.996 for v in JL]}, name=name)


def test_baseline_comes_from_meta_json():
    assert reference.baseline({}) == "atomic-read"
    assert reference.baseline({"baseline": "mine"}) == "mine"
    for bad in ("Mine", "", "../x", 3):
        with pytest.raises(ValueError):
            reference.baseline({"baseline": bad})
    # 2011's figures belong to its kernels against atomic-read only
    assert reference.pct_2011("jump-label") == pytest.approx(1.9372578)
    assert reference.pct_2011("jump-label", "jump-label") is None
    assert reference.pct_2011("plain-read", "jump-label") is None
    assert reference.compares_2011("atomic-read", ["jump-label",
                                                   "atomic-read", "mine"])
    assert not reference.compares_2011("atomic-read", ["atomic-read",
                                                       "mine"])
    assert not reference.compares_2011("jump-label", [
        "jump-label", "atomic-read", "plain-read"])


def test_a_bad_baseline_makes_the_dir_unusable(tmp_path):
    d = user_run(tmp_path, baseline="Not A Name")
    with pytest.raises(FormatError, match="baseline"):
        Results(d)
    p = tool("analyze", d, check=False)
    assert p.returncode == 1 and "baseline" in p.stderr


def test_user_kernels_end_to_end(tmp_path):
    """analysis/analyze, plots/draw, analysis/report on `mine` against
    jump-label: every comparison is against jump-label, its twin is the
    A/A control, and no 2011 figure or wording about the built-ins is
    set beside them."""
    d = user_run(tmp_path, selftest=True)
    tool("analyze", "--strict", d)
    st = json.loads(open(d + "/stats.json").read())
    assert st["baseline"] == "jump-label"
    assert st["groups"] == {"main": ["jump-label", "mine"],
                            "aa": ["jump-label.aa"]}
    for m in st["metrics"]:
        assert {(c["group"], c["label"], c["baseline"])
                for c in m["comparisons"]} == {
            ("main", "mine", "jump-label"),
            ("aa", "jump-label.aa", "jump-label")}, m["metric"]
        assert all(c.get("pct_2011") is None for c in m["comparisons"])
    tool("draw", "--out", tmp_path / "plots", d)
    out = tmp_path / "REPORT.md"
    tool("report", d, "--out", out, "--plots", tmp_path / "plots")
    text = out.read_text()
    lines = text.splitlines()
    assert lines[0] == "# jlbench: jump labels vs `mine`, tbench"
    assert lines[2].startswith("*Accelerator icount: ")
    assert lines[4].startswith("**Answer.** Under icount, the runs of "
                               "`mine` complete 0.80% [")
    assert "than the runs of `jump-label` (sign test" in lines[4]
    assert "Noise floor (A/A control: `jump-label.aa` against " \
        "`jump-label`" in text
    assert "A/A control **passed**" in text
    assert "### tbench operations per second, tbench 20 clients, against " \
        "`jump-label`\n" in text
    assert "| kernel | here ops/s, mean [95% CI] | here vs `jump-label` " \
        "[95% CI] | p (sign test) | MB/s vs `jump-label` [95% CI] | " \
        "verdict |" in text
    assert re.search(r"\| `jump-label` \| [0-9.]+ \[[0-9., ]+\] \(n=6\) "
                     r"\| \(baseline\) \|", text)
    assert re.search(r"\| `mine` \| [0-9.]+ \[[0-9., ]+\] \(n=6\) "
                     r"\| \+0\.80% \[.* \| significant \|", text)
    assert "| `mine` vs `jump-label` | +0.80% [" in text
    assert "| `jump-label.aa` vs `jump-label` |" in text
    assert "% vs jump-label\n" in text
    assert "| counter per op | `jump-label` | `mine` |" in text
    assert "against `jump-label`: `mine` +1." in text
    assert "## This run\n\nThis report compares `mine` with the baseline " \
        "`jump-label`" in text
    assert "[`%s`](results/%s)" % (RUN, RUN) in text
    assert "![% change vs jump-label with 95% CI](plots/pct_change.svg)" \
        in text
    assert "- [% change vs jump-label across analysed runs (commits)]" \
        "(plots/history.svg)" in text
    # nothing of 2011's, nor of its three kernels
    for gone in ("2011", "atomic-read", "plain-read", "CONFIG_JUMP_LABEL",
                 "Linux 6.1, in", "static keys ("):
        assert gone not in text, gone
    assert "Not shown: this section sets jump labels against atomic reads " \
        "across kernel configs" in text
    for name in ("pct_change", "throughput", "history"):
        svg = (tmp_path / "plots" / (name + ".svg")).read_text()
        assert "2011" not in svg and "jump-label" in svg, name
    # the history keeps the user's kernel under its name and build hash
    with open(tmp_path / "results" / "history.csv") as f:
        hist = [r for r in csv.DictReader(f) if r["label"] == "mine"]
    assert {(r["variant"], r["config_hash"], r["baseline"], r["group"])
            for r in hist} == {("mine", synth._hash("mine"), "jump-label",
                                "main")}


def test_a_user_kernel_against_atomic_read_has_no_2011_rows(tmp_path):
    d = user_run(tmp_path, values={"atomic-read": JL, "mine": MINE},
                 baseline="atomic-read")
    tool("analyze", "--no-history", d)
    text = tool("report", d).stdout
    assert "2011" not in text
    assert "| `atomic-read` |" in text and re.search(
        r"\| `mine` \| .* \| (not )?significant \|", text)


def history_vars(data):
    return dict(re.findall(r'^(\w+) = (.*)$',
                           (data / "history.vars").read_text(), re.M))


def test_history_pair_draws_one_pair(tmp_path):
    """The history holds a run of the built-in kernels and one of `mine`:
    by default the figure shows every label against the run's baseline;
    --history-pair NEW,BASE shows NEW against BASE only."""
    for d in (classic_run(tmp_path), user_run(tmp_path)):
        tool("analyze", d)
    d = str(tmp_path / "results" / RUN)
    prep = ROOT / "plots" / "prepare"

    def prepare(name, *args):
        data = tmp_path / name
        data.mkdir()
        p = run([PYTHON, str(prep), d, str(data)] + list(args))
        return data, (data / "list").read_text().split(), p

    data, listed, _ = prepare("default")
    v = history_vars(data)
    assert "history" in listed
    assert v["hbase"] == '"jump-label"' and v["nhist"] == "1"
    assert v["hlabel1"] == '"mine"' and v["nruns"] == "1"
    assert v["h2011"] == '""'
    data, listed, _ = prepare("pair", "--history-pair",
                              "jump-label,atomic-read")
    v = history_vars(data)
    assert "history" in listed
    assert v["hbase"] == '"atomic-read"' and v["hlabel1"] == '"jump-label"'
    assert v["nhist"] == "1" and v["nruns"] == "1"
    assert v["h2011"] == '"2011 (dashed)"'
    assert "20261130T" not in (data / "history_1.dat").read_text()
    assert len((data / "history_1.dat").read_text().split("\n")) == 2
    assert (data / "history_2011.dat").read_text().split()[1] == \
        "%.10g" % reference.pct_2011("jump-label")
    _, listed, p = prepare("none", "--history-pair", "mine,atomic-read")
    assert "history" not in listed
    assert "no analysed run" in p.stderr and "mine against atomic-read" \
        in p.stderr
    for bad in ("mine", "mine,mine", "Mine,jump-label", "a,b,c"):
        p = tool("draw", "--history-pair", bad, d, check=False)
        assert p.returncode == 2 and "NEW,BASE" in p.stderr, bad


def test_compare_takes_each_dirs_baseline(tmp_path):
    """analysis/compare: labels found in both dirs, whatever their names;
    each dir's baseline named; A/A twins of different baselines are not
    set against each other."""
    old = user_run(tmp_path)
    new = user_run(tmp_path, name="20261202T000000Z-def5678",
                   values={"jump-label": JL, "mine": [v * 1.01 for v in JL],
                           "mine.aa": [v * 1.01 for v in JL]},
                   baseline="mine")
    p = tool("compare", old, new)
    assert "(accelerator icount, commit abc1234def56, baseline jump-label)" \
        in p.stdout
    assert "baseline mine)" in p.stdout
    rows = {line.split("|")[2].strip() for line in p.stdout.splitlines()
            if line.startswith("| ops_per_s")}
    assert rows == {"jump-label", "mine"}
    assert "different baselines (jump-label vs mine)" in p.stdout


def test_calibration_pools_take_the_dirs_baseline(tmp_path):
    res = Results(user_run(tmp_path))
    aa, paired = calibrate.pools(res, "throughput_mbps")
    assert sorted(aa) == pytest.approx(sorted(JL + JL), abs=1e-4)
    assert list(paired) == ["mine"]
    new, base = paired["mine"]
    assert list(base) == pytest.approx(JL, abs=1e-4)
    assert list(new) == pytest.approx(MINE, abs=1e-4)
