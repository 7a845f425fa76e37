"""bench/bisection/bisection.py without kernels: the halving search against
planted first bad candidates, the median-rule decision, the log's replay,
the candidates of a quilt series and of a git range, the command's usage
errors, and a whole bisection whose measure is a stand-in (resumed from its
log, refused with other settings, replayed)."""
import contextlib
import io
import json
import math
import os
import random
import runpy
import subprocess
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.bisection import bisection  # noqa: E402
from bench.bisection.bisection import Stop  # noqa: E402
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
import synth  # noqa: E402

BISECT = str(ROOT / "bench" / "bisect")
SEEDS = (11, 12, 13, 14, 15, 16)
FLOOR = 0.12


def oracle(first_bad, untestable=()):
    """(test, decide_step, calls) of candidates whose figures are their
    index: bad from first_bad on, None for the untestable ones."""
    calls = []

    def test(i):
        calls.append(i)
        return None if i in untestable else i

    def decide_step(i, figures):
        assert figures == i
        return "bad" if i >= first_bad else "good"
    return test, decide_step, calls


def base(seed):
    """The good end's figure for a seed: seeds differ a lot, so that a
    pairing by position instead of by seed would show."""
    return 1000.0 + 137.0 * seed


def shifted(pct, noise_pct=0.0, seeds=SEEDS, rng=None):
    """{seed: figure} pct % above the good end, with uniform noise."""
    rng = rng or random.Random(1)
    return {s: base(s) * (1 + pct / 100.0)
            * (1 + rng.uniform(-noise_pct, noise_pct) / 100.0)
            for s in seeds}


def cli(args):
    """(exit code, stdout, stderr) of the command (bench/bisection/
    __main__.py) run in this process: bench/bisect without its start-up."""
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["bench/bisect"] + list(args)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_module("bench.bisection", run_name="__main__")
    except SystemExit as e:
        return e.code, out.getvalue(), err.getvalue()
    finally:
        sys.argv = argv
    raise AssertionError("the command did not exit")


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
         "-c", "commit.gpgsign=false"] + list(args),
        check=True, capture_output=True, text=True).stdout.strip()


def quilt(tmp_path, n, name="series-dir"):
    """A quilt dir of n (empty) patches p1.patch..; its path."""
    d = tmp_path / name
    d.mkdir()
    names = ["p%d.patch" % i for i in range(1, n + 1)]
    for p in names:
        (d / p).write_text("--- %s\n" % p)
    (d / "series").write_text("# a comment\n\n" + "".join(
        "%s -p1\n" % p for p in names))
    return d


# -- search() ---------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 10))
def test_search_finds_every_planted_first_bad(n):
    for first in range(1, n):
        test, decide_step, calls = oracle(first)
        assert bisection.search(n, test, decide_step) == (first, [])
        assert len(calls) <= bisection.max_steps(n), (n, first, calls)
        assert len(set(calls)) == len(calls)
        assert calls[:2] == [0, n - 1]


def test_max_steps():
    assert [bisection.max_steps(n) for n in range(2, 10)] == \
        [2, 3, 4, 4, 5, 5, 5, 5]
    assert bisection.max_steps(1025) == 12


@pytest.mark.parametrize("n", [2, 5, 9])
def test_search_no_change_when_bad_end_is_good(n):
    test, _, calls = oracle(n)
    assert bisection.search(n, test, lambda i, f: "good") == (None, [])
    assert calls == [0, n - 1]


def test_search_skips_untestable_and_still_finds():
    test, decide_step, calls = oracle(7, untestable={4})
    assert bisection.search(9, test, decide_step) == (7, [4])
    assert calls[:3] == [0, 8, 4]


def test_search_skips_leave_a_range():
    # 0..8, the middle (4) untestable, the first bad 5: 3 good, 5 bad
    test, decide_step, _ = oracle(5, untestable={4})
    assert bisection.search(9, test, decide_step) == ((3, 5), [4])
    # all between the ends untestable: the whole range, in trial order
    test, decide_step, _ = oracle(2, untestable={1, 2, 3})
    assert bisection.search(5, test, decide_step) == ((0, 4), [2, 1, 3])


@pytest.mark.parametrize("n", range(3, 10))
def test_search_one_untestable_anywhere(n):
    """Whatever single candidate is untestable, the answer is the first bad
    or a range around it whose inside is all skipped."""
    for first in range(1, n):
        for u in range(1, n - 1):
            test, decide_step, calls = oracle(first, untestable={u})
            got, skipped = bisection.search(n, test, decide_step)
            assert set(skipped) <= {u} and len(calls) == len(set(calls))
            if isinstance(got, tuple):
                lo, hi = got
                assert lo < first <= hi and list(range(lo + 1, hi)) == [u]
            else:
                assert got == first and u != first


@pytest.mark.parametrize("end", ["good", "bad"])
def test_search_untestable_end_stops(end):
    test, decide_step, _ = oracle(3, untestable={0 if end == "good" else 5})
    with pytest.raises(Stop, match="an end of the range"):
        bisection.search(6, test, decide_step)


# -- decide() and Judge -------------------------------------------------------

def test_decide_shift_is_bad_in_its_direction():
    good = shifted(0, 0.01, rng=random.Random(2))
    new = shifted(5, 0.01, rng=random.Random(3))
    decision, comp = bisection.decide(new, good, 1, FLOOR)
    assert decision == "bad"
    assert set(comp) == {"n", "pct_change", "pct_ci_lo", "pct_ci_hi"}
    assert comp["n"] == 6 and comp["pct_change"] == pytest.approx(5, abs=0.1)
    assert 4.9 < comp["pct_ci_lo"] <= comp["pct_ci_hi"] < 5.1
    assert bisection.decide(new, good, 0, FLOOR)[0] == "bad"
    assert bisection.decide(new, good, -1, FLOOR)[0] == "good"
    down = shifted(-5, 0.01, rng=random.Random(4))
    assert bisection.decide(down, good, -1, FLOOR)[0] == "bad"
    assert bisection.decide(down, good, 1, FLOOR)[0] == "good"


def test_decide_within_the_floor_is_good():
    good, new = shifted(0), shifted(0.05)
    decision, comp = bisection.decide(new, good, 1, FLOOR)
    assert decision == "good"
    assert comp["pct_ci_lo"] == pytest.approx(0.05)
    # the same change with no floor: the interval excludes 0
    assert bisection.decide(new, good, 1, 0.0)[0] == "bad"


def test_decide_needs_six_pairs():
    seeds = SEEDS[:5]
    decision, comp = bisection.decide(shifted(5, seeds=seeds),
                                      shifted(0, seeds=seeds), 1, FLOOR)
    assert decision == "good" and comp["n"] == 5
    assert math.isnan(comp["pct_ci_lo"]) and math.isnan(comp["pct_ci_hi"])
    assert bisection.decide({}, shifted(0), 0, FLOOR)[0] == "good"


def test_decide_pairs_by_seed():
    good = shifted(0)
    new = {s: v for s, v in reversed(list(shifted(5).items()))}
    new.update({101: 1.0, 102: 1e9})           # seeds only the new side has
    good_more = dict(good)
    good_more[103] = 5.0                       # ... and only the good side
    decision, comp = bisection.decide(new, good_more, 1, FLOOR)
    assert decision == "bad" and comp["n"] == 6
    assert comp["pct_change"] == pytest.approx(5)
    assert comp["pct_ci_lo"] == pytest.approx(5)
    assert comp["pct_ci_hi"] == pytest.approx(5)


@pytest.mark.parametrize("sign", [1, -1])
def test_judge_bad_end_sets_the_direction(sign):
    good = shifted(0)
    seen = []
    step = bisection.Judge(5, good, FLOOR,
                           lambda i, d, c: seen.append((i, d, c["n"])))
    assert step.direction == 0
    assert step(4, shifted(5 * sign)) == "bad"
    assert step.direction == sign
    assert step(1, shifted(-5 * sign)) == "good"
    assert step(2, shifted(5 * sign)) == "bad"
    assert step(3, shifted(0.01)) == "good"
    assert seen == [(4, "bad", 6), (1, "good", 6), (2, "bad", 6),
                    (3, "good", 6)]


def test_judge_without_a_bad_end_has_no_direction():
    step = bisection.Judge(5, shifted(0), FLOOR)
    assert step(4, shifted(0.01)) == "good"
    # no direction set: either side counts
    assert step(2, shifted(-5)) == "bad" and step(3, shifted(5)) == "bad"


# -- replay() of a hand-written log -----------------------------------------

def candidate_values(i, first_bad=5, pct=19.0):
    rng = random.Random(1000 + i)
    return {str(s): base(s) * (1 + (pct / 100.0 if i >= first_bad else 0))
            * (1 + rng.uniform(-0.01, 0.01) / 100.0) for s in SEEDS}


def write_log(out, first_bad=5, logged_first=5, drop=(), end=True,
              skip=()):
    """DIR/bisect.log of 8 patches and the good end, candidate first_bad
    adding 19 %, every candidate's step logged (but drop's)."""
    names = ["jump-label"] + ["bisect-%d" % i for i in range(1, 9)]
    revs = ["0 patches"] + ["%d patches, last p%d.patch" % (i, i)
                            for i in range(1, 9)]
    lines = [{"event": "start",
              "source": {"kind": "series", "path": "/x", "on": "jump-label",
                         "good": 0, "bad": 8},
              "metric": bisection.DEFAULT_METRIC, "seeds": 6, "seed": 1,
              "config": "smoke", "seconds": 0, "clients": 20,
              "floor_pct": FLOOR,
              "candidates": [{"name": n, "revision": r}
                             for n, r in zip(names, revs)]}]
    for i in range(9):
        if i in drop:
            continue
        e = {"event": "step", "i": i, "variant": names[i],
             "revision": revs[i], "seconds": 60.0}
        if i in skip:
            e.update(decision="skip", why="build failed (exit 2)")
        else:
            e.update(values=candidate_values(i, first_bad),
                     results="results/%s" % names[i], build_hash="h%d" % i)
        lines.append(e)
    if end:
        lines.append({"event": "end", "first_bad": logged_first,
                      "skipped": list(skip), "message": "first bad: %s"
                      % logged_first, "builds": sorted(names),
                      "results": {}, "seconds": 300.0})
    out.mkdir(exist_ok=True)
    (out / bisection.LOG).write_text(
        "".join(json.dumps(x, sort_keys=True) + "\n" for x in lines))
    return revs


def test_replay_finds_the_planted_patch(tmp_path):
    revs = write_log(tmp_path)
    end, logged = bisection.replay(str(tmp_path))
    assert end["first_bad"] == 5 == logged["first_bad"]
    assert end["skipped"] == [] == logged["skipped"]
    assert end["revision"] == revs[5]
    assert "bisect-5" in end["message"] and "+19.0" in end["message"]
    assert end["vs_parent"]["n"] == 6
    assert end["vs_parent"]["pct_change"] == pytest.approx(19, abs=0.05)
    assert end["results"]["bisect-5"] == "results/bisect-5"


def test_replay_with_a_skipped_step(tmp_path):
    write_log(tmp_path, first_bad=7, logged_first=7, skip=(4,))
    end, logged = bisection.replay(str(tmp_path))
    assert (end["first_bad"], end["skipped"]) == (7, [4])
    assert cli(["--replay", str(tmp_path)])[0] == 0


def test_replay_of_a_range(tmp_path):
    # 4 untestable, 3 good, 5 bad: the answer is the range 3..5
    write_log(tmp_path, logged_first=[3, 5], skip=(4,))
    end, logged = bisection.replay(str(tmp_path))
    assert (end["first_bad"], end["skipped"]) == ([3, 5], [4])
    assert "revision" not in end
    assert end["message"] == ("the first change is in 3 patches, last "
                              "p3.patch..5 patches, last p5.patch (the "
                              "candidates between were untestable)")
    code, out, _ = cli(["--replay", str(tmp_path)])
    assert code == 0 and "untestable, skipped: 4" in out


def test_replay_cli_agrees(tmp_path):
    write_log(tmp_path)
    p = run([BISECT, "--replay", str(tmp_path)])
    assert "replay agrees with the log" in p.stdout
    assert "first bad: 5 patches, last p5.patch (bisect-5)" in p.stdout


def test_replay_cli_disagrees(tmp_path):
    write_log(tmp_path, logged_first=4)
    p = run([BISECT, "--replay", str(tmp_path)], check=False)
    assert p.returncode == 1
    assert "DISAGREES" in p.stdout


def test_replay_cli_interrupted_log(tmp_path):
    write_log(tmp_path, end=False)
    code, out, _ = cli(["--replay", str(tmp_path)])
    assert code == 1 and "interrupted" in out


def test_replay_missing_step_says_resume(tmp_path):
    write_log(tmp_path, drop=(4,))
    with pytest.raises(Stop, match="resume"):
        bisection.replay(str(tmp_path))
    code, _, err = cli(["--replay", str(tmp_path)])
    assert code == 1 and "resume" in err


def test_replay_without_a_log(tmp_path):
    with pytest.raises(Stop, match="no bisect.log"):
        bisection.replay(str(tmp_path))


# -- Series and GitRange ----------------------------------------------------

def test_series_candidates(tmp_path):
    d = quilt(tmp_path, 3)
    s = bisection.Series(str(d), "jump-label")
    assert s.names == ["p1.patch", "p2.patch", "p3.patch"]
    assert s.describe() == {"kind": "series", "path": str(d),
                            "on": "jump-label", "good": 0, "bad": 3}
    assert s.candidates() == [
        ("jump-label", "jump-label", "0 patches"),
        ("bisect-1", "bisect-1=patches:%s@1,on:jump-label" % d,
         "1 patches, last p1.patch"),
        ("bisect-2", "bisect-2=patches:%s@2,on:jump-label" % d,
         "2 patches, last p2.patch"),
        ("bisect-3", "bisect-3=patches:%s@3,on:jump-label" % d,
         "3 patches, last p3.patch")]


def test_series_sub_range(tmp_path):
    d = quilt(tmp_path, 3)
    s = bisection.Series(str(d), "atomic-read", good=1, bad=2)
    assert [c[0] for c in s.candidates()] == ["bisect-1", "bisect-2"]
    assert s.candidates()[0][1] == \
        "bisect-1=patches:%s@1,on:atomic-read" % d
    assert s.describe()["good"] == 1 and s.describe()["bad"] == 2


@pytest.mark.parametrize("good,bad", [(2, 2), (3, 1), (0, 4), (-1, 3)])
def test_series_bad_range(tmp_path, good, bad):
    d = quilt(tmp_path, 3)
    with pytest.raises(Stop, match="need 0 <= good < bad <= 3"):
        bisection.Series(str(d), "jump-label", good, bad)


def test_series_needs_a_series_file(tmp_path):
    with pytest.raises(Stop, match="no series file"):
        bisection.Series(str(tmp_path), "jump-label")


@pytest.fixture
def repo(tmp_path):
    """A git repo of 4 commits c1..c4 (and a branch side off c2); (path,
    [shas])."""
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    shas = []
    for i in range(1, 5):
        (r / "f").write_text("%d\n" % i)
        git(r, "add", "f")
        git(r, "commit", "-q", "-m", "c%d" % i)
        shas.append(git(r, "rev-parse", "HEAD"))
    git(r, "branch", "side", shas[1])
    return r, shas


def test_git_range_candidates(repo):
    r, shas = repo
    g = bisection.GitRange(str(r), shas[0], "HEAD", "jump-label")
    assert g.commits == shas
    assert g.describe() == {"kind": "git", "repo": str(r),
                            "on": "jump-label", "good": shas[0],
                            "bad": shas[3]}
    assert g.candidates() == [
        ("c" + c[:12], "c%s=tree:%s@%s,on:jump-label" % (c[:12], r, c),
         "%s c%d" % (c[:12], i)) for i, c in enumerate(shas, 1)]
    assert [c[0] for c in bisection.GitRange(
        str(r), "HEAD~2", "HEAD~1", "plain-read").candidates()] == \
        ["c" + shas[1][:12], "c" + shas[2][:12]]


@pytest.mark.parametrize("good,bad", [
    ("HEAD~1", "HEAD~2"),     # bad before good
    ("HEAD", "HEAD"),         # no range
    ("SIDE", "HEAD"),         # good on another branch
])
def test_git_range_bad_not_a_descendant(repo, good, bad):
    r, shas = repo
    if good == "SIDE":
        git(r, "checkout", "-q", "side")
        (r / "g").write_text("side\n")
        git(r, "add", "g")
        git(r, "commit", "-q", "-m", "side")
        good = git(r, "rev-parse", "HEAD")
        git(r, "checkout", "-q", "-")
        bad = shas[3]
    with pytest.raises(Stop, match="not an ancestor"):
        bisection.GitRange(str(r), good, bad, "jump-label")


def test_git_range_unknown_revision(repo):
    r, _ = repo
    with pytest.raises(Stop, match="rev-parse"):
        bisection.GitRange(str(r), "nope", "HEAD", "jump-label")


# -- the command's usage errors ---------------------------------------------

@pytest.mark.parametrize("args,says", [
    (["--series", "X"], "--out DIR is needed"),
    (["--series", "X", "--out", "O", "--seeds", "3"], "--seeds 3"),
    (["--git", "R", "--out", "O"], "--git needs --good REV and --bad REV"),
    (["--git", "R", "--good", "a", "--out", "O"], "--git needs"),
    (["--series", "X", "--good", "a", "--out", "O"], "a number of patches"),
    (["--series", "X", "--git", "R", "--out", "O"], "not allowed with"),
    ([], "one of the arguments"),
    (["--series", "X", "--out", "O", "--workload", "fault", "--seconds",
      "5"], "--workload fault does a fixed amount of work"),
    (["--series", "X", "--out", "O", "--workload", "nope"],
     "invalid choice"),
    (["--series", "X", "--out", "O", "--loops", "5"],
     "--loops N (N >= 1) sets the work"),
])
def test_cli_usage_errors(tmp_path, monkeypatch, args, says):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(args)
    assert code == 2, err
    assert says in err and err.startswith("bench/bisect: error: ") and \
        len(err.splitlines()) == 1, err
    assert not (tmp_path / "O").exists()


def test_wrapper_usage_error(tmp_path):
    p = run([BISECT, "--series", "X"], check=False, cwd=tmp_path)
    assert p.returncode == 2 and "--out DIR is needed" in p.stderr


# -- a whole bisection, measured by a stand-in ------------------------------

OPTS = {"metric": bisection.DEFAULT_METRIC, "seeds": 6, "seed": 1,
        "config": "smoke", "seconds": 0, "clients": 20, "floor_pct": FLOOR}


class Interrupted(Exception):
    """The stand-in's Ctrl-C."""


class FakeBisection(bisection.Bisection):
    """A bisection whose steps are synthetic figures: candidate first_bad
    adds 19 %, skip's do not build, and measure raises Interrupted after
    `budget` steps."""
    first_bad, skip, budget = 5, (), None

    def __init__(self, *a, **kw):
        self.measured = []
        super().__init__(*a, **kw)

    def measure(self, i):
        if self.budget is not None and len(self.measured) >= self.budget:
            raise Interrupted(i)
        self.measured.append(i)
        name, _, rev = self.cands[i]
        e = {"event": "step", "i": i, "variant": name, "revision": rev}
        if i in self.skip:
            e.update(decision="skip", why="build failed (exit 2)")
            return e
        e.update(build_hash="h%d" % i, results="results/%s" % name,
                 values={s: v for s, v in ((int(k), v) for k, v in
                                           candidate_values(
                                               i, self.first_bad).items())})
        return e

    def run(self, cmd):
        raise AssertionError("a command was run: %s" % cmd)


def events(out):
    return [e["event"] for e in bisection.read_log(str(out / "bisect.log"))]


def test_bisection_run_resume_and_replay(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    out = tmp_path / "bisect"
    b = FakeBisection(str(out), src, dict(OPTS))
    end = b.bisect()
    assert end["first_bad"] == 5 and end["skipped"] == []
    assert end["revision"] == "5 patches, last p5.patch"
    assert end["vs_parent"]["pct_change"] == pytest.approx(19, abs=0.05)
    assert len(b.measured) == len(set(b.measured)) <= bisection.max_steps(9)
    assert b.measured[:2] == [0, 8]
    assert end["builds"] == sorted(b.cands[i][0] for i in b.measured)
    log = bisection.read_log(str(out / "bisect.log"))
    assert log[0]["event"] == "start" and log[-1]["event"] == "end"
    assert log[0]["candidates"][5] == {
        "name": "bisect-5", "revision": "5 patches, last p5.patch"}
    steps = [e for e in log if e["event"] == "step"]
    assert [e["i"] for e in steps] == b.measured
    assert all(set(e["values"]) == {str(s) for s in SEEDS} for e in steps)
    decisions = {e["i"]: e["decision"] for e in log
                 if e["event"] == "decision"}
    assert decisions == {i: "bad" if i >= 5 else "good"
                         for i in b.measured[1:]}  # all but the good end

    # the same options: everything from the log, nothing measured again
    again = FakeBisection(str(out), src, dict(OPTS))
    again.budget = 0
    end2 = again.bisect()
    assert again.measured == []
    assert (end2["first_bad"], end2["skipped"]) == (5, [])
    assert events(out).count("step") == len(b.measured)

    # other options, or another range: refused
    with pytest.raises(Stop, match="other settings"):
        FakeBisection(str(out), src, dict(OPTS, floor_pct=0.5))
    with pytest.raises(Stop, match="other settings"):
        FakeBisection(str(out), bisection.Series(
            src.path, "jump-label", good=1), dict(OPTS))

    replayed, logged = bisection.replay(str(out))
    assert replayed["first_bad"] == logged["first_bad"] == 5
    assert replayed["message"] == end["message"]
    code, stdout, _ = cli(["--replay", str(out)])
    assert code == 0 and "replay agrees with the log" in stdout
    assert "  bisect-5             results/bisect-5" in stdout


def test_bisection_interrupted_resumes_where_it_stopped(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    clean = FakeBisection(str(tmp_path / "clean"), src, dict(OPTS))
    clean.bisect()
    out = tmp_path / "bisect"
    first = FakeBisection(str(out), src, dict(OPTS))
    first.budget = 3
    with pytest.raises(Interrupted):
        first.bisect()
    assert "end" not in events(out)
    code, _, err = cli(["--replay", str(out)])
    assert code == 1 and "resume" in err
    second = FakeBisection(str(out), src, dict(OPTS))
    end = second.bisect()
    assert end["first_bad"] == 5
    assert first.measured + second.measured == clean.measured
    assert bisection.replay(str(out))[0]["first_bad"] == 5


def test_bisection_skips_an_untestable_candidate(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    b = FakeBisection(str(tmp_path / "b"), src, dict(OPTS))
    b.first_bad, b.skip = 7, (4,)
    end = b.bisect()
    assert (end["first_bad"], end["skipped"]) == (7, [4])
    assert b.measured == [0, 8, 4, 3, 5, 6, 7]
    replayed, logged = bisection.replay(str(tmp_path / "b"))
    assert (replayed["first_bad"], replayed["skipped"]) == (7, [4])
    assert logged["skipped"] == [4]
    # the skip is in the log: a resumed run does not try it again
    again = FakeBisection(str(tmp_path / "b"), src, dict(OPTS))
    assert again.bisect()["first_bad"] == 7 and again.measured == []


def test_bisection_skips_leave_a_range(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    b = FakeBisection(str(tmp_path / "b"), src, dict(OPTS))
    b.skip = (4,)
    end = b.bisect()
    assert (end["first_bad"], end["skipped"]) == ([3, 5], [4])
    assert "3 patches, last p3.patch..5 patches" in end["message"]
    assert cli(["--replay", str(tmp_path / "b")])[0] == 0


def test_bisection_untestable_end_stops(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    b = FakeBisection(str(tmp_path / "b"), src, dict(OPTS))
    b.skip = (8,)
    with pytest.raises(Stop, match="an end of the range"):
        b.bisect()
    # the failed end is not logged: the same command tries it again
    assert events(tmp_path / "b") == ["start", "step"]


def test_bisection_no_change(tmp_path):
    src = bisection.Series(str(quilt(tmp_path, 8)), "jump-label")
    b = FakeBisection(str(tmp_path / "b"), src, dict(OPTS))
    b.first_bad = 99
    end = b.bisect()
    assert end["first_bad"] is None and "no change found" in end["message"]
    assert b.measured == [0, 8]
    assert bisection.replay(str(tmp_path / "b"))[0]["first_bad"] is None


def test_a_bisection_of_another_workload_logs_it_and_takes_its_floor(
        tmp_path, monkeypatch):
    """--workload: in the log's header (a resume with another workload is
    refused), and the workload's own floor (analysis/floors.json): none
    where its environment was not studied."""
    src = bisection.Series(str(quilt(tmp_path, 4)), "jump-label")
    out = tmp_path / "bisect"
    FakeBisection(str(out), src, dict(OPTS, workload="fault", loops=9))
    assert bisection.read_log(str(out / "bisect.log"))[0]["workload"] == \
        "fault"
    with pytest.raises(bisection.Stop, match="other settings"):
        FakeBisection(str(out), src, dict(OPTS))
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"fault": {"metrics": {
        bisection.DEFAULT_METRIC: {"floor_difference_pts": 0.7}}}}))
    monkeypatch.setenv("JLBENCH_FLOORS", str(floors))
    assert bisection.floor_pct(bisection.DEFAULT_METRIC, "fault") == 0.7
    assert bisection.floor_pct(bisection.DEFAULT_METRIC, "sock") == 0.0


# -- a step's commands, resumed at the run ----------------------------------

class Scripted(bisection.Bisection):
    """A bisection whose commands are stand-ins: the build writes a
    builds.tsv and a bzImage (its bytes kernel(step dir), by default the
    step's own), the image its path, and bench/run points results.path at
    a results dir of synth's (its own --results-root's, or --resume's),
    recording every bench/run command."""

    def __init__(self, *a, kernel=lambda step: step, **kw):
        self.bench_runs, self.bench_rc = [], 0
        self.kernel = kernel
        super().__init__(*a, **kw)

    def run(self, cmd):
        args = dict(zip(cmd[1:], cmd[2:]))
        tool = os.path.basename(cmd[0])
        if tool == "build" and "kernel-variants" in cmd[0]:
            d = os.path.join(os.path.dirname(args["--out"]), "kernel")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "build.json"), "w") as f:
                json.dump({"hash": "h"}, f)
            with open(os.path.join(d, "bzImage"), "w") as f:
                f.write(self.kernel(os.path.basename(os.path.dirname(d))))
            with open(args["--out"], "w") as f:
                f.write("v\t%s\n" % d)
        elif tool == "build":
            with open(args["--out"], "w") as f:
                f.write("/images/x.cpio.gz\n")
        else:
            self.bench_runs.append(cmd)
            if self.bench_rc:
                return self.bench_rc, ""
            res = args.get("--resume") or synth.make_results(
                args["--results-root"], {"jump-label": [1.0] * 6},
                per_op={"jump-label": {"kernel_insns": 100}})
            with open(args["--out"], "w") as f:
                f.write(res + "\n")
        return 0, ""


def test_a_step_that_boots_a_measured_kernel_is_not_run(
        tmp_path, monkeypatch):
    """A candidate whose kernel and modules are bit for bit those of a
    step measured before (a patch that changes no built file) is built
    but not run: its entry takes that step's results dir and figures,
    and says so; another kernel is run."""
    monkeypatch.setenv("JLBENCH_CACHE", str(tmp_path / "cache"))  # pins
    src = bisection.Series(str(quilt(tmp_path, 2)), "jump-label")
    out = tmp_path / "bisect"
    b = Scripted(str(out), src, dict(OPTS), kernel=lambda step: "same")
    first = b.measure(0)
    b.done[0] = first
    e = b.measure(1)
    assert len(b.bench_runs) == 1
    assert (e["results"], e["values"], e["kernel"]) == (
        first["results"], first["values"], first["kernel"])
    assert e["reused"].startswith("its kernel and modules are bit for bit "
                                  "those of %s" % first["revision"]), e
    b = Scripted(str(tmp_path / "other"), src, dict(OPTS))
    b.done[0] = b.measure(0)
    assert "reused" not in b.measure(1) and len(b.bench_runs) == 2


def test_an_interrupted_step_finishes_its_runs_instead_of_redoing_them(
        tmp_path, monkeypatch):
    """Ctrl-C during a step's runs leaves a results dir with part of its
    plan under the step's dir; the same bisection again resumes that dir
    (bench/run --resume), as bench/run's own --resume would, where it
    used to start all the step's runs anew in a new dir."""
    monkeypatch.setenv("JLBENCH_CACHE", str(tmp_path / "cache"))  # pins
    src = bisection.Series(str(quilt(tmp_path, 2)), "jump-label")
    out = tmp_path / "bisect"
    b = Scripted(str(out), src, dict(OPTS))
    name = b.cands[1][0]
    root = out / ("step-%s" % name) / "results"
    partial = synth.make_results(str(root), {"jump-label": [1.0] * 6},
                                 per_op={"jump-label": {"kernel_insns": 90}})
    e = b.measure(1)
    (cmd,) = b.bench_runs
    assert cmd[cmd.index("--resume") + 1] == partial
    assert "--results-root" not in cmd and "--boots" not in cmd
    assert e["results"] == os.path.relpath(partial, str(out))
    # a step with nothing left behind starts its own results dir there
    e = b.measure(0)
    cmd = b.bench_runs[-1]
    assert "--resume" not in cmd and cmd[cmd.index("--results-root") + 1] \
        == str(out / ("step-%s" % b.cands[0][0]) / "results")
    assert e["results"].startswith("step-%s/results/" % b.cands[0][0])
    # bench/run stopped by a signal sent to it alone: an interruption too
    b.bench_rc = bisection.RUN_INTERRUPTED
    with pytest.raises(bisection.Interrupted):
        b.measure(1)


def test_a_bisection_pins_its_steps_and_those_logged_before(
        tmp_path, monkeypatch):
    """Each step's image is pinned as it is made (its kernel by
    kernel-variants/build, through $JLBENCH_KERNEL_PIN), and a resumed
    bisection pins the kernels and images of the steps an earlier one
    measured: the cache's bound (lib/kcache.py) evicts none while it
    runs."""
    from lib import kcache
    cache = tmp_path / "cache"
    monkeypatch.setenv("JLBENCH_CACHE", str(cache))
    out = tmp_path / "bisect"
    earlier = out / "step-c0" / "results" / "20261201T000000Z-abc"
    earlier.mkdir(parents=True)
    (earlier / "meta.json").write_text(json.dumps({
        "builds": {"c0": {"dir": "$JLBENCH_CACHE/kernels/smoke-c0-1"}},
        "images": {"c0": {"path": "$JLBENCH_CACHE/initramfs/0.cpio.gz"}}}))
    b = Scripted(str(out), bisection.Series(str(quilt(tmp_path, 2)),
                                            "jump-label"), dict(OPTS))
    assert kcache.pinned(str(cache)) == set()     # nothing built yet
    b.measure(1)
    assert kcache.pinned(str(cache)) == {
        str(cache / "kernels" / "smoke-c0-1"),
        str(cache / "initramfs" / "0.cpio.gz"), "/images/x.cpio.gz"}
