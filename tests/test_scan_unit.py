"""bench/scan's logic with stand-in steps (bench/bisection/scan.py): the
sample, every change between sampled commits found and bisected to its
commit with its sign, several in one interval, the blind spot of two that
cancel (and --every 1 seeing them), a range without change, the resume
after an interruption (no step twice) and the replay; the command's
usage errors. The scan over a real git range is for the integration
tier."""
import os
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.bisection import bisection, scan  # noqa: E402

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
])
def test_usage_errors(args, said):
    p = run([str(SCAN)] + args, check=False)
    assert p.returncode == 2 and said in p.stderr, p.stderr


def test_a_bad_range_and_a_missing_log_are_errors(tmp_path):
    repo = tmp_path / "repo"
    run(["git", "init", "-q", str(repo)])
    p = run([str(SCAN), "--git", str(repo), "--range", "v1..v2", "--out",
             str(tmp_path / "out")], check=False)
    assert p.returncode == 1 and "scan: git -C" in p.stderr
    p = run([str(SCAN), "--replay", str(tmp_path)], check=False)
    assert p.returncode == 1 and "has no scan.log to replay" in p.stderr
    assert not os.path.exists(tmp_path / "out" / "report.md")
