"""bench/scan's logic with stand-in steps (bench/bisection/scan.py): the
sample, every change between sampled commits found and bisected to its
commit with its sign, several in one interval, the blind spot of two that
cancel (and --every 1 seeing them), a range without change, the resume
after an interruption (no step twice) and the replay; a scan of several
workloads (a change on one workload's path found on that one only, its
resume and replay, the dirs it refuses); the static keys of a finding's
changed functions (stand-ins for the build cache and the vmlinux) and the
report's words; the command's usage errors. The scan over a real git
range is for the integration tier."""
import os
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from analysis.comparison import pathkeys  # noqa: E402
from bench.bisection import bisection, scan, scanmain  # noqa: E402

SEEDS = range(1, 7)
OPTS = {"metric": bisection.DEFAULT_METRIC, "seeds": 6, "seed": 1,
        "config": "smoke", "seconds": 0, "clients": 20, "floor_pct": 0.5}
SCAN = ROOT / "bench" / "scan"


class Range:
    """n commits c00..c(n-1), as bisection.GitRange gives them."""

    def __init__(self, n):
        self.n = n

    def describe(self):
        return {"kind": "git", "repo": "/nowhere", "n": self.n}

    def candidates(self):
        return [("c%02d" % i, "spec", "c%02d subject %d" % (i, i))
                for i in range(self.n)]


class Interrupted(Exception):
    """The stand-in's Ctrl-C."""


class FakeScan(scan.Scan):
    """A scan whose steps are figures: kernel instructions per op that
    each commit of changes ({i: factor}) multiplies from there on."""
    budget = None

    def __init__(self, out, n, changes, **opts):
        self.changes, self.measured = changes, []
        super().__init__(str(out), Range(n), dict(OPTS, **opts))

    def level(self, i):
        x = 30000.0
        for at, factor in self.changes.items():
            x *= factor if i >= at else 1.0
        return x

    def measure(self, i):
        if self.budget is not None and len(self.measured) >= self.budget:
            raise Interrupted(i)
        self.measured.append(i)
        name, _, rev = self.cands[i]
        return {"event": "step", "i": i, "variant": name, "revision": rev,
                "results": "step-%s/results/x" % name,
                "values": {s: self.level(i) * (1 + 1e-5 * s)
                           for s in SEEDS}}


def found(end):
    return [(f["i"], f["vs_parent"]["pct_change"] > 0)
            for f in end["findings"]]


def test_sample():
    assert scan.sample(21, points=5) == [0, 5, 10, 15, 20]
    assert scan.sample(10, every=4) == [0, 4, 8, 9]
    assert scan.sample(3, points=5) == [0, 1, 2]
    assert scan.sample(5, every=1) == [0, 1, 2, 3, 4]


def test_every_change_is_found_with_its_sign_and_nothing_else(tmp_path):
    s = FakeScan(tmp_path, 21, {7: 1.05, 13: 0.96}, points=5)
    end = s.scan()
    assert found(end) == [(7, True), (13, False)]
    assert end["findings"][0]["vs_parent"]["pct_change"] == \
        pytest.approx(5.0, abs=1e-6)
    assert end["findings"][0]["commit"] == "c07 subject 7" and \
        end["findings"][0]["parent"] == "c06 subject 6"
    assert len(s.measured) == len(set(s.measured)) == end["measured"]
    assert set(scan.sample(21, points=5)) <= set(s.measured)
    assert len(s.measured) <= s.planned()
    assert end["blind_spot"] == scan.BLIND_SPOT
    # two changes in one sampled interval: each found
    end = FakeScan(tmp_path / "two", 21, {6: 1.05, 8: 1.03},
                   points=5).scan()
    assert found(end) == [(6, True), (8, True)]


def test_a_range_without_change_measures_the_sample_only(tmp_path):
    s = FakeScan(tmp_path, 21, {}, points=5)
    end = s.scan()
    assert end["findings"] == [] and s.measured == [0, 5, 10, 15, 20]


def test_opposite_changes_in_one_interval_cancel_unless_every_commit(
        tmp_path):
    changes = {6: 1.05, 8: 1 / 1.05}
    end = FakeScan(tmp_path / "sampled", 21, changes, points=5).scan()
    assert found(end) == []
    end = FakeScan(tmp_path / "all", 21, changes, every=1).scan()
    assert found(end) == [(6, True), (8, False)]
    assert end["blind_spot"] is None and end["measured"] == 21


def test_resume_does_no_step_twice_and_replay_agrees(tmp_path):
    changes = {7: 1.05, 13: 0.96}
    clean = FakeScan(tmp_path / "clean", 21, changes, points=5)
    clean.scan()
    first = FakeScan(tmp_path / "s", 21, changes, points=5)
    first.budget = 6
    with pytest.raises(Interrupted):
        first.scan()
    second = FakeScan(tmp_path / "s", 21, changes, points=5)
    end = second.scan()
    assert found(end) == [(7, True), (13, False)]
    assert first.measured + second.measured == clean.measured
    replayed, logged, _ = scan.replay(str(tmp_path / "s"))
    assert found(replayed) == found(logged) == found(end)
    # other options, the same dir: refused
    with pytest.raises(bisection.Stop, match="a scan with other settings"):
        FakeScan(tmp_path / "s", 21, changes, points=4)


@pytest.mark.parametrize("args, said", [
    (["--git", "/x", "--out", "d"], "--range GOOD..BAD is needed"),
    (["--git", "/x", "--range", "a..", "--out", "d"], "--range GOOD..BAD"),
    (["--git", "/x", "--range", "a..b"], "--out DIR is needed"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--points", "1"],
     "--points K: K >= 2"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--points", "3",
      "--every", "2"], "not allowed with argument"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--seeds", "3"],
     "--seeds 3: the median rule needs at least 6"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload",
      "pipe,nosuch,fault,other"], "--workload pipe,nosuch,fault,other: no "
     "workload 'nosuch', 'other'; the known ones: tbench, pipe, messaging"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload", "pipe,"],
     "no workload ''; the known ones: tbench, pipe,"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload",
      "pipe,fault", "--loops", "3"], "--loops N sets one workload's work"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload",
      "pipe,fault", "--seconds", "3"], "--seconds/--clients are tbench's"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload",
      "suite", "--seeds", "3"], "--seeds 3: the median rule"),
    (["--git", "/x", "--range", "a..b", "--out", "d", "--workload", "pipe",
      "--clients", "4"], "--workload pipe does a fixed amount of work"),
])
def test_usage_errors(args, said):
    p = run([str(SCAN)] + args, check=False)
    assert p.returncode == 2 and said in p.stderr, p.stderr


def test_bench_scan_refuses_a_history_without_its_changes():
    p = run([str(ROOT / "bench" / "timing" / "bench-scan"), "--commits",
             "12"], check=False)
    assert p.returncode == 2 and "--commits N: N >= 13" in p.stderr


def test_a_bad_range_and_a_missing_log_are_errors(tmp_path):
    repo = tmp_path / "repo"
    run(["git", "init", "-q", str(repo)])
    p = run([str(SCAN), "--git", str(repo), "--range", "v1..v2", "--out",
             str(tmp_path / "out")], check=False)
    assert p.returncode == 1 and "scan: git -C" in p.stderr
    p = run([str(SCAN), "--replay", str(tmp_path)], check=False)
    assert p.returncode == 1 and "has no scan.log to replay" in p.stderr
    assert not os.path.exists(tmp_path / "out" / "report.md")


# --workload NAME,NAME...: a Scan per workload (scan.Workloads)
def several(tmp_path, changes, budget=None, **opts):
    """scan.Workloads of a FakeScan per workload of changes ({workload:
    its changes}, in lib/workloads.py's order), the one of budget
    ({workload: steps before its Ctrl-C}) interrupted."""
    made = {}

    def make(path, source, o):
        w = o.get("workload", "tbench")
        s = FakeScan(path, 21, changes[w], **o)
        s.budget = (budget or {}).get(w)
        made[w] = s
        return s
    w_opts = {w: dict(OPTS, points=5, **opts, **(
        {} if w == "tbench" else {"workload": w, "loops": 100}))
        for w in changes}
    w = scan.Workloads(str(tmp_path), Range(21), w_opts, make=make)
    return w, made


def by_workload(parts):
    return {p["workload"]: found(p["end"]) for p in parts}


def test_a_change_on_one_workload_is_found_on_that_one_only(
        tmp_path, capsys):
    w, made = several(tmp_path, {"pipe": {7: 1.05}, "fault": {}})
    parts = w.scan()
    assert [p["workload"] for p in parts] == ["pipe", "fault"]
    assert by_workload(parts) == {"pipe": [(7, True)], "fault": []}
    # each workload in its own dir; the sample is the same
    assert not os.path.exists(tmp_path / "scan.log")
    for name in ("pipe", "fault"):
        assert (tmp_path / name / "scan.log").is_file()
    assert made["fault"].measured == scan.sample(21, points=5)
    assert set(made["fault"].measured) <= set(made["pipe"].measured)
    err = capsys.readouterr().err
    assert "scan: pipe: step 1 of at most" in err and \
        "scan: fault: step 1 of at most" in err
    # and in each workload's own log of them
    assert "scan: pipe: step 1 of at most" in \
        (tmp_path / "pipe" / bisection.MESSAGES).read_text()
    report = scanmain.text(parts)
    section = report.split("## c07 subject 7\n")[1].split("## ")[0]
    assert "on pipe at commit c07 subject 7" in section and \
        "fault" not in section
    assert "results: pipe/step-c07/results/x (its parent's: " \
        "pipe/step-c06/results/x)" in section
    assert "2 workloads, each scanned on its own: 1 finding(s) at 1 " \
        "commit(s), %d measured steps" % (
            len(made["pipe"].measured) + len(made["fault"].measured)) \
        in report
    assert "| pipe | 0.50%% | %d | 1 |" % len(made["pipe"].measured) \
        in report and "| fault | 0.50% | 5 | 0 |" in report


def test_one_commit_on_two_workloads_is_one_section(tmp_path):
    w, _ = several(tmp_path, {"tbench": {13: 0.96}, "pipe": {13: 1.02},
                              "fault": {5: 1.1}})
    report = scanmain.text(w.scan())
    heads = [ln for ln in report.splitlines() if ln.startswith("## ")]
    assert heads == ["## c05 subject 5", "## c13 subject 13", "## Summary"]
    section = report.split("## c13 subject 13\n")[1].split("## ")[0]
    assert section.index("on tbench at") < section.index("on pipe at")
    assert "3 finding(s) at 2 commit(s)" in report


def test_a_scan_of_several_workloads_resumes_and_replays(tmp_path):
    changes = {"pipe": {7: 1.05}, "fault": {13: 0.96}}
    clean, clean_made = several(tmp_path / "clean", changes)
    clean.scan()
    first, first_made = several(tmp_path / "s", changes, budget={"fault": 3})
    with pytest.raises(Interrupted):
        first.scan()
    again, again_made = several(tmp_path / "s", changes)
    parts = again.scan()
    assert by_workload(parts) == {"pipe": [(7, True)],
                                  "fault": [(13, False)]}
    assert again_made["pipe"].measured == []
    for name in changes:
        assert first_made[name].measured + again_made[name].measured == \
            clean_made[name].measured
    replayed = scan.replay_all(str(tmp_path / "s"))
    assert by_workload(replayed) == by_workload(parts)
    assert all(found(p["logged"]) == found(p["end"]) for p in replayed)
    p = run([str(SCAN), "--replay", str(tmp_path / "s")], check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "pipe: replay agrees with the log\n" in p.stdout and \
        "fault: replay agrees with the log\n" in p.stdout and \
        "replay agrees with the log of every workload" in p.stdout
    assert "## c07 subject 7" in p.stdout and "on fault at commit c13" \
        in p.stdout
    # a log whose end names another commit: that workload disagrees
    log = tmp_path / "s" / "fault" / "scan.log"
    lines = log.read_text().splitlines()
    lines[-1] = lines[-1].replace('"commit": "c13 subject 13"',
                                  '"commit": "c12 subject 12"')
    log.write_text("\n".join(lines) + "\n")
    p = run([str(SCAN), "--replay", str(tmp_path / "s")], check=False)
    assert p.returncode == 1 and "fault: replay DISAGREES with the log" \
        in p.stdout and "replay DISAGREES with the logs of fault" \
        in p.stdout, p.stdout


def test_one_workload_keeps_the_dir_and_other_layouts_are_refused(
        tmp_path):
    FakeScan(tmp_path / "one", 21, {7: 1.05}, points=5).scan()
    w, made = several(tmp_path / "one", {"tbench": {7: 1.05}})
    assert by_workload(w.scan()) == {"tbench": [(7, True)]}
    assert made["tbench"].measured == []          # resumed from DIR/scan.log
    with pytest.raises(bisection.Stop, match="holds a scan of tbench"):
        several(tmp_path / "one", {"tbench": {}, "pipe": {}})
    with pytest.raises(bisection.Stop, match="holds a scan of tbench"):
        several(tmp_path / "one", {"pipe": {}})
    several(tmp_path / "two", {"pipe": {}, "fault": {}})[0].scan()
    with pytest.raises(bisection.Stop, match="holds a scan of pipe, fault"):
        several(tmp_path / "two", {"pipe": {}})
    assert scan.held(str(tmp_path / "two")) == {
        "pipe": str(tmp_path / "two" / "pipe"),
        "fault": str(tmp_path / "two" / "fault")}


# the static keys on a finding's changed path
TOP = [["tcp_sendmsg", 400.0, 390.0, 410.0, 0.8],
       ["__schedule", 20.0, 10.0, 30.0, 0.1],
       ["copy_user", 5.0, 1.0, 9.0, 0.05]]


@pytest.fixture
def keyed(tmp_path, monkeypatch):
    """finding() over results dirs of stand-ins: the profiles' TOP, the
    build cache holding what builds says ({variant: site_keys()} or no
    entry: not at hand); the site_keys calls made."""
    calls, builds = [], {}
    # results dir rK: the runs of step cK's build
    monkeypatch.setattr(scan, "Results", lambda path: SimpleNamespace(
        meta={"builds": {"c%02d" % int(os.path.basename(path)[1:]): {}}}))
    monkeypatch.setattr(scan, "figures",
                        lambda d, m: {s: 100.0 for s in SEEDS})
    monkeypatch.setattr(bisection, "top_functions", lambda a, b: TOP)
    monkeypatch.setattr(pathkeys, "build_dir", lambda res, v: (
        "/cache/" + v if v in builds else None))

    def site_keys(build):
        calls.append(build)
        return builds[build.split("/")[-1]]
    monkeypatch.setattr(pathkeys, "site_keys", site_keys)
    done = {}
    for i, level in ((6, 30000.0), (7, 31500.0), (9, 31500.0)):
        (tmp_path / ("r%d" % i)).mkdir()
        done[i] = {"variant": "c%02d" % i, "results": "r%d" % i,
                   "values": {str(s): level for s in SEEDS}}
    cands = Range(21).candidates()

    def find():
        return scan.finding(cands, 7, done, str(tmp_path),
                            bisection.DEFAULT_METRIC)
    find.done = done
    return find, builds, calls


def test_the_static_keys_of_the_changed_functions(keyed):
    find, builds, calls = keyed
    builds["c07"] = {"tcp_sendmsg": ["tcp_tx_delay_enabled"],
                     "copy_user": ["__tracepoint_a", "__tracepoint_b"],
                     "elsewhere": ["other_key"]}
    f = find()
    assert f["static_keys"] == {
        "tcp_sendmsg": ["tcp_tx_delay_enabled"],
        "copy_user": ["__tracepoint_a", "__tracepoint_b"]}
    assert calls == ["/cache/c07"]      # one vmlinux read for the finding
    lines = scanmain.finding_text(f, "tbench", bisection.DEFAULT_METRIC,
                                  "")
    assert "static keys on the changed path: tcp_sendmsg: " \
        "tcp_tx_delay_enabled; copy_user: __tracepoint_a, " \
        "__tracepoint_b" in lines
    assert lines[2].startswith("most changed functions against its parent "
                               "(kernel instructions per op): tcp_sendmsg "
                               "+400.0/op (80%)")
    assert lines[0].startswith("a +5.000% [") and "against its parent " \
        "c06 subject 6 (6 seeds)" in lines[0]
    assert lines[-1] == "results: r7 (its parent's: r6)"


def test_a_step_that_took_anothers_figures_reads_that_ones_build(keyed):
    # commit 7's kernel was commit 9's bit for bit: its figures are 9's
    find, builds, calls = keyed
    builds["c09"] = {"tcp_sendmsg": ["tcp_tx_delay_enabled"]}
    find.done[7]["results"] = "r9"
    find.done[7]["reused"] = "%s those of c09" % bisection.SAME_KERNEL
    f = find()
    assert f["static_keys"] == {"tcp_sendmsg": ["tcp_tx_delay_enabled"]}
    assert calls == ["/cache/c09"]
    # the report says whose runs the figures are
    assert scanmain.finding_text(f, "tbench", "m", "")[-1] == \
        "its figures: its kernel and modules are bit for bit those of c09"


def test_no_static_key_site_and_no_build_at_hand(keyed):
    find, builds, calls = keyed
    builds["c07"] = {"elsewhere": ["other_key"]}
    f = find()
    assert f["static_keys"] == {}
    assert "none of the changed functions has a static-key site" in \
        scanmain.finding_text(f, "tbench", "m", "")
    del builds["c07"]
    f = find()
    assert "static_keys" not in f and len(calls) == 1
    assert "static keys on the changed path: not read (the build of c07 " \
        "is not in this machine's kernel cache)" in \
        scanmain.finding_text(f, "tbench", "m", "")
    # no profiles, no changed path: no line
    f.pop("top_functions")
    f.pop("static_keys_note")
    assert not any("static" in ln for ln in
                   scanmain.finding_text(f, "tbench", "m", ""))
