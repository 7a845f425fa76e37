"""bench/scan's known answer on a real git history (smoke kernels, git
trees built incrementally, icount runs of tbench): the first 13 commits of
tests/fixtures/bisect/history.py after its good end, of which one makes
tbench's path slower, one faster and one changes it below the floor; the
scan, given only the range, names exactly the two, each with its sign and
its function, bisected with bench/bisect's search; the sampled interval
holding the small change is judged unchanged although its runs resolve it
(an interval off 0, within the calibrated floor). Ctrl-C in the middle of
a step's runs, then the same command: no step measured twice, the
interrupted step's runs finished in its own results dir; --replay agrees
with the log. Six steps, four measured: the regression's commit and
commit 9, built, boot the kernel and modules of commit 12, measured
before them, bit for bit, and take its figures. The cache's bound on
real kernels, in a cache of the test's own (kept between runs, so that
its kernels are cached as a user's are): while the scan runs, its
steps' kernels and images, made the least recently used, are passed
over by a trim for their pins, which evicts the next, a kernel made
before the scan; that kernel, asked for again, is made bit for bit.

Then the robot (jlbench watch) on a branch of the same history, store
and kernels, started once at the good end, picks up two pushes by
itself, with four steps of its own (the revert, and the two findings'
commits and parents measured again, of which the improvement's parent
boots the regression's kernel bit for bit). The first push (to commit 12) is
scanned from the scan's steps alone (a step measured once serves both);
the second (the improvement, a documentation commit that boots the
improvement's kernel bit for bit and is built but not run, the
regression's revert) is killed with kill -9 mid-step and resumed by a
second robot process, no run measured twice. The robot reports exactly
the regression and the improvement, each measured again on new seeds
and confirmed, marks the regression fixed at the revert, and writes
their two mails and nothing else. Its logic with stand-in steps:
tests/test_robot.py.
"""
import fcntl
import glob
import hashlib
import json
import mailbox
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import (CALIBRATED, ROOT, TARBALL, cache_path, cpu_lock,
                      private_cache, run)
from lib import kcache, store
from lib.store import query

pytestmark = pytest.mark.integration

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "bisect"))
import history  # noqa: E402

SCAN = str(ROOT / "bench" / "scan")
WATCH = str(ROOT / "bench" / "watch")
SHORT = ["--config", "smoke", "--seconds", "2", "--clients", "2"]
# The range is the history's good end to its improvement (commits 0-13),
# sampled every 6th commit and the end: 0, 6, 12, 13. The first interval
# holds only the small change, the second the regression (bisected in
# two steps, 9 and 7), the last the improvement alone: six steps of 36
# runs, where --points 5 over all 20 commits measured nine.
EVERY = 6
# the robot's first push ends at the scan's third sampled commit
FIRST = 12


def repository():
    """The history's bare repository, kept in the cache."""
    return history.repository(str(cache_path()), TARBALL, str(
        ROOT / "kernel-variants" / "patches"))


def steps(out, log="scan.log"):
    with open(os.path.join(out, log)) as f:
        return [e for e in map(json.loads, filter(str.strip, f))
                if e["event"] == "step"]


def interrupted_in_a_step(out):
    """Whether a step not yet logged has a finished run: the moment to
    press Ctrl-C."""
    if not os.path.isfile(os.path.join(out, "scan.log")):
        return False
    logged = {"step-" + e["variant"] for e in steps(out)}
    for runs in glob.glob(os.path.join(out, "step-*", "results", "*",
                                       "runs.csv")):
        step = runs.split(os.sep)[-4]
        with open(runs) as f:
            if step not in logged and len(f.read().splitlines()) >= 2:
                return True
    return False


def build(repo, rev, env):
    """kernel-variants/build of repo at rev (a smoke git variant); its
    build dir."""
    tsv = os.path.join(env["JLBENCH_CACHE"], "before.tsv")
    run([str(ROOT / "kernel-variants" / "build"), "--config", "smoke",
         "--variant", "before=tree:%s@%s,on:jump-label" % (repo, rev),
         "--out", tsv], env=env)
    with open(tsv) as f:
        return f.read().split("\t")[1].strip()


def trim_below(cache, env, oldest, then):
    """Make the entries oldest the least recently used, and then then,
    and trim the cache to the size of all but then, with the kernels'
    lock held (no build in between); what the trim said."""
    def stamp(path, t):
        if os.path.isdir(path):
            path = os.path.join(path, kcache.STAMP)
            open(path, "a").close()
        os.utime(path, (t, t))
    with open(os.path.join(cache, "kernels", ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for x in oldest:
            stamp(x, 1)
        stamp(then, 2)
        sizes = {e.path: e.size for e in kcache.entries(cache)}
        limit = sum(sizes.values()) - sizes[then]
        p = run([str(ROOT / "lib" / "kcache.py"), "trim", "--locked"],
                env=dict(env, **{kcache.LIMIT_VAR: str(limit)}))
    return p.stderr.strip()


def digests(d):
    """sha256 of what a kernel is booted and profiled with."""
    return {f: hashlib.sha256(open(os.path.join(d, f), "rb").read())
            .hexdigest() for f in ("bzImage", "vmlinux",
                                   "modules/jlbench_static_key.ko")}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The scan's and the robot's environment: the test's own cache and a
    store of the module's own (the steps ledger the two share)."""
    return dict(CALIBRATED, JLBENCH_CACHE=str(private_cache("scan")),
                JLBENCH_DB=str(tmp_path_factory.mktemp("store") / "s.db"))


def test_scan_names_the_two_changes_resumes_and_replays(
        tmp_path, plugin_so, env):
    repo = repository()
    out = tmp_path / "scan"
    cache = env["JLBENCH_CACHE"]
    cmd = [SCAN, "--git", str(repo), "--range", "HEAD~%d..HEAD~%d" % (
        history.COMMITS, history.COMMITS - history.IMPROVEMENT),
        "--out", str(out), "--every", str(EVERY)] + SHORT
    # a kernel made before the scan, outside its range: evictable (a
    # build, not a benchmark: outside the CPU lock, as the next one)
    outside = build(repo, "HEAD~%d" % (history.COMMITS + 1), env)
    made = digests(outside)
    with cpu_lock():
        proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            t0 = time.time()
            while not interrupted_in_a_step(str(out)):
                assert proc.poll() is None, proc.communicate()
                assert time.time() - t0 < 900, "no step began its runs"
                time.sleep(1)
            # the running scan has pinned its steps' kernels and images
            needed = kcache.named_in(glob.glob(str(
                out / "step-*" / "results" / "*" / "meta.json")), env)
            assert needed and needed <= kcache.pinned(cache), needed
            # made the least recently used, then the kernel made before
            # the scan, they are the first a trim to one entry less
            # than the cache holds would take: it takes that kernel
            evicted = trim_below(cache, env, needed, outside)
            assert evicted.startswith("cache: evicted 1 ") and \
                os.path.basename(outside) in evicted, evicted
            assert all(os.path.exists(x) for x in needed), needed
            assert not os.path.exists(outside)
            os.killpg(proc.pid, signal.SIGINT)          # Ctrl-C
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 130, err
        assert "the same command resumes" in err, err
        before = steps(str(out))
        p = run(cmd, env=env)
    # asked for again, the evicted kernel is made again, bit for bit
    assert build(repo, "HEAD~%d" % (history.COMMITS + 1), env) == outside
    assert digests(outside) == made
    done = steps(str(out))
    assert [e["i"] for e in done[:len(before)]] == [e["i"] for e in before]
    assert len({e["i"] for e in done}) == len(done)      # none twice
    # the regression's commit and commit 9, bisected after the sampled
    # commit 12 was measured, boot its kernel and modules bit for bit
    # (the commits between are documentation): built, not run, their
    # figures 12's
    twelve = [e for e in done if e["i"] == 2 * EVERY][0]
    same = {e["i"]: e for e in done if e.get("reused")}
    assert sorted(same) == [history.REGRESSION, history.REGRESSION + 2], \
        same
    for e in same.values():
        assert (e["kernel"], e["results"]) == (twelve["kernel"],
                                               twelve["results"]), e
        assert not os.path.exists(out / ("step-" + e["variant"]) /
                                  "results")
    for e in done:
        if e["i"] not in same:
            # one results dir per step: the interrupted one its own
            dirs = os.listdir(out / ("step-" + e["variant"]) / "results")
            assert len(dirs) == 1, (e["variant"], dirs)
    with open(out / "scan.log") as f:
        entries = [json.loads(ln) for ln in f if ln.strip()]
    end = entries[-1]
    got = [(f["commit"].split(" ", 1)[1], f["vs_parent"]["pct_change"] > 0)
           for f in end["findings"]]
    assert got == [
        ("scan %02d: a loop of 400 in tcp_sendmsg" % history.REGRESSION,
         True),
        ("scan %02d: drop the loop in tcp_recvmsg" % history.IMPROVEMENT,
         False)], p.stdout
    for f in end["findings"]:
        c = f["vs_parent"]
        assert c["pct_ci_lo"] * c["pct_ci_hi"] > 0, f   # an interval off 0
        name = f["top_functions"][0][0]
        assert name == ("tcp_sendmsg" if c["pct_change"] > 0
                        else "tcp_recvmsg"), f
    assert end["measured"] == len(done) == 6
    # the small change (one increment per receive) in the first sampled
    # interval: resolved by the runs, within the floor, so no finding
    (small,) = [e for e in entries if e["event"] == "decision" and
                e["against"] == 0 and e["i"] == EVERY]
    assert history.BELOW_AT <= EVERY < history.REGRESSION
    assert small["decision"] == "good" and 0 < small["vs"]["pct_ci_lo"] \
        and small["vs"]["pct_ci_hi"] < entries[0]["floor_pct"], small
    assert (out / "report.md").read_text() == p.stdout
    assert "2 finding(s)" in p.stdout and "blind spot" in p.stdout
    # the kernels were at hand (pinned): each finding's static keys read
    assert p.stdout.count("static keys on the changed path: ") + \
        p.stdout.count("none of the changed functions has a static-key") \
        == 2 and "not read" not in p.stdout, p.stdout
    assert "along the range (tbench): scan.svg, scan.png" in p.stdout
    # the regression's figures: commit 12's runs, and the report says so
    assert "its figures: its kernel and modules are bit for bit those of " \
        "%s" % twelve["revision"] in p.stdout, p.stdout
    # the scan recorded its findings in the results store, each new
    mine = [f for f in store.findings(state="all", url=env["JLBENCH_DB"])
            if f["search"] == os.path.realpath(str(out))]
    assert len(mine) == 2 and {f["state"] for f in mine} == {"new"}, mine
    assert (out / "scan.png").stat().st_size > 0
    p = run([SCAN, "--replay", str(out)], env=env)
    assert "replay agrees with the log" in p.stdout, p.stdout


def git(repo, *args, **kw):
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=jlbench", "-c",
         "user.email=jlbench@localhost"] + list(args), check=True,
        capture_output=True, text=True, env=dict(
            os.environ, GIT_AUTHOR_DATE="2026-12-02T00:00:00Z",
            GIT_COMMITTER_DATE="2026-12-02T00:00:00Z"), **kw).stdout.strip()


def revert(repo, commit, onto, index):
    """A commit on onto that reverts commit (made in a bare repository,
    through an index of its own)."""
    env = dict(os.environ, GIT_INDEX_FILE=str(index))
    subprocess.run(["git", "-C", str(repo), "read-tree", onto], env=env,
                   check=True)
    diff = git(repo, "diff", commit + "^", commit) + "\n"
    subprocess.run(["git", "-C", str(repo), "apply", "--cached", "-R"],
                   input=diff, text=True, env=env, check=True)
    tree = subprocess.run(["git", "-C", str(repo), "write-tree"], env=env,
                          check=True, capture_output=True,
                          text=True).stdout.strip()
    return git(repo, "commit-tree", tree, "-p", onto, "-m", "Revert \"%s\"\n"
               "\nThis reverts commit %s." % (git(
                   repo, "log", "-1", "--format=%s", commit), commit))


def wait(what, check, proc, timeout=900):
    t0 = time.time()
    while True:
        got = check()
        if got:
            return got
        assert proc.poll() is None, (what, proc.returncode)
        assert time.time() - t0 < timeout, "waited %d s for %s" % (
            timeout, what)
        time.sleep(1)


def ranges(url):
    with store.connect(url) as db:
        return db.query("SELECT * FROM robot_range ORDER BY id")


def test_robot_picks_up_pushes_confirms_fixes_and_mails(
        tmp_path, plugin_so, env):
    # a branch of the history's (a repository of the test's own that
    # shares its objects): its commits from the good end (0)
    mine = tmp_path / "linux.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--shared",
                    repository(), str(mine)], check=True)
    shas = git(mine, "rev-list", "--reverse", "--first-parent",
               "HEAD~%d" % (history.COMMITS + 1) + "..HEAD").split()
    second = revert(mine, shas[history.REGRESSION],
                    shas[history.IMPROVEMENT + 1], tmp_path / "index")
    git(mine, "update-ref", "refs/heads/robot", shas[0])
    out, url = tmp_path / "robot", env["JLBENCH_DB"]
    with store.connect(url) as db:
        scanned = db.scalar("SELECT count(*) FROM robot_step")
    cmd = [WATCH, "--git", str(mine), "--branch", "robot", "--out",
           str(out), "--every", str(EVERY), "--poll", "1"] + SHORT

    def start():
        return subprocess.Popen(cmd, env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL,
                                stderr=open(tmp_path / "robot.err", "a"))
    out.mkdir()
    with cpu_lock():
        proc = start()
        try:
            with store.connect(url) as db:
                wait("the robot", lambda: db.query(
                    "SELECT head FROM robot_branch"), proc, 120)
            git(mine, "update-ref", "refs/heads/robot", shas[FIRST])
            wait("the first range", lambda: [
                r for r in ranges(url) if r["state"] == "done"], proc)
            git(mine, "update-ref", "refs/heads/robot", second)
            # killed outright in the middle of a step of the second range
            two = wait("the second range's dir", lambda: len(
                ranges(url)) == 2 and ranges(url)[1]["dir"], proc)
            wait("a step of the second range", lambda: interrupted_in_a_step(
                two), proc)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            before = steps(two)
            proc = start()
            wait("the second range", lambda: [
                r for r in ranges(url) if r["state"] == "done"][1:], proc)
            os.killpg(proc.pid, signal.SIGINT)
            assert proc.wait(timeout=120) == 130
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    err = (tmp_path / "robot.err").read_text()
    assert [r["state"] for r in ranges(url)] == ["done", "done"], err
    one = ranges(url)[0]["dir"]
    if scanned:
        # the first range: every step the scan's, none measured again
        assert not glob.glob(os.path.join(one, "step-*")), err
    # no run twice: the steps logged before the kill kept, none twice in
    # a range or the ledger; one results dir per step dir (the
    # interrupted one finished its own)
    assert [e["i"] for e in steps(two)[:len(before)]] == \
        [e["i"] for e in before]
    for d in (one, two):
        assert len({e["i"] for e in steps(d)}) == len(steps(d))
    dirs = glob.glob(str(out / "robot" / "*" / "step-*")) + glob.glob(
        str(out / "robot" / "*" / "recheck-*" / "step-*"))
    # a commit whose kernel and modules are bit for bit those of a step
    # measured with the same plan is built, not run: the documentation
    # commit after the improvement (the improvement's kernel), and the
    # improvement's parent measured again (the regression's kernel, as
    # measured again for the regression's own recheck)
    same = "its kernel and modules are bit for bit those of %s"
    neutral = shas[history.IMPROVEMENT + 1][:12]
    parent = shas[history.IMPROVEMENT - 1][:12]
    (e,) = [e for e in steps(two) if e["revision"].startswith(neutral)]
    assert e["reused"].startswith(same % shas[history.IMPROVEMENT][:12]), e
    recheck = os.path.join(two, "recheck-" + shas[history.IMPROVEMENT][:12])
    (e,) = [e for e in steps(recheck, "recheck.log")
            if e["revision"].startswith(parent)]
    assert e["reused"].startswith(same % shas[history.REGRESSION][:12]), e
    assert sorted(d for d in dirs if not os.path.isdir(os.path.join(
        d, "results"))) == sorted([os.path.join(two, "step-c" + neutral),
                                   os.path.join(recheck, "step-c" + parent)])
    for d in dirs:
        if os.path.isdir(os.path.join(d, "results")):
            assert len(os.listdir(os.path.join(d, "results"))) == 1, d
    assert len([d for d in dirs if "recheck-" in d]) == 4, dirs
    # the end of the first range, measured there, is not measured again
    assert not os.path.isdir(os.path.join(two, "step-c" + shas[FIRST][:12]))
    with store.connect(url) as db:
        keys = [r["step_key"] for r in db.query(
            "SELECT step_key FROM robot_step WHERE state = 'done'")]
        found = {f["revision"].split(" ", 1)[1]: f for f in
                 query.findings(db, state="all")
                 if f["search"].startswith(str(out))}
    assert len(keys) == len(set(keys))
    regression = "scan %02d: a loop of 400 in tcp_sendmsg" % \
        history.REGRESSION
    improvement = "scan %02d: drop the loop in tcp_recvmsg" % \
        history.IMPROVEMENT
    reverted = "Revert \"%s\"" % regression
    assert {k: f["state"] for k, f in found.items()} == {
        regression: "fixed", improvement: "confirmed", reverted: "fix"}, (
            found, err)
    for name, sign, function in ((regression, 1, "tcp_sendmsg"),
                                 (improvement, -1, "tcp_recvmsg")):
        f = found[name]
        assert f["pct_change"] * sign > 0 and \
            f["pct_ci_lo"] * f["pct_ci_hi"] > 0, f
        assert json.loads(f["top_functions"])[0][0] == function, f
    assert "fixed by %s" % second[:12] in found[regression]["state_note"]
    with store.connect(url) as db:
        told = [s["note"] for s in query.states(db, found[regression]["ref"])]
    assert told[0].startswith("measured again on 6 new seeds"), told
    # the two mails and nothing else
    boxes = sorted(glob.glob(str(out / "mail" / "*.mbox")))
    subjects = sorted(m["Subject"] for b in boxes for m in mailbox.mbox(b))
    assert [x.split(" ")[1] for x in subjects] == sorted(
        shas[k][:12] for k in (history.REGRESSION, history.IMPROVEMENT)), \
        subjects
    for d in (one, two):
        assert os.path.getsize(os.path.join(d, "triage.md")) > 0
        p = run([SCAN, "--replay", d], env=env)
        assert "replay agrees with the log" in p.stdout, p.stdout
