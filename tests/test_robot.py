"""jlbench watch (bench/robot/watch.py, life.py, lib/store/robot.py) with
stand-in steps on a real git history and a real store: each push queued
and scanned, a finding measured again before it is confirmed, a revert
marking its regression fixed, the mails of the confirmed findings and
nothing else; a finding that does not hold stays not-confirmed with no
mail; two robot processes on one store measure each commit once, and
the one left takes over the other's range when it is killed mid-step;
a force push scans from the merge base. The same robot on the smoke
kernels, with real steps: tests/test_scan.py."""
import json
import mailbox
import multiprocessing
import os
import re
import signal
import subprocess
import threading
import time
from types import SimpleNamespace

import pytest

from conftest import ROOT
from bench.bisection import bisection
from bench.bisection import ledger as steps
from bench.robot import watch
from bench.tries import plan
from lib import kcache, store
from lib.store import query
from lib.store import robot as ledger

BASE = 100000.0
BRANCH = "main"
BACKENDS = ["sqlite", "postgresql"]


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t",
                           "-c", "user.email=t@localhost"] + list(args),
                          check=True, capture_output=True,
                          text=True).stdout.strip()


def history(tmp_path, subjects):
    """A repository whose branch main is at its first commit; the
    commits' hashes in order (main moves with push())."""
    repo = tmp_path / "linux"
    repo.mkdir()
    git(repo, "init", "-q", "-b", BRANCH)
    shas = []
    for k, subject in enumerate(subjects):
        (repo / "file").write_text("%d\n" % k)
        git(repo, "add", "file")
        git(repo, "commit", "-q", "-m", subject)
        shas.append(git(repo, "rev-parse", "HEAD"))
    git(repo, "branch", "-f", "work", shas[-1])
    git(repo, "reset", "-q", "--hard", shas[0])
    return repo, shas


def push(repo, sha):
    git(repo, "update-ref", "refs/heads/" + BRANCH, sha)


def robot(repo, out, url, measure, name=None, extra=()):
    args = watch.parse(["--git", str(repo), "--branch", BRANCH, "--out",
                        str(out), "--db", url, "--every", "3", "--config",
                        "smoke", "--lease", "2", "--poll", "0.1",
                        "--db-wait", "10"] + (["--name", name] if name
                                              else []) + list(extra))
    return watch.Robot(args, lambda m: None, measure=measure)


class Standin:
    """Steps without kernels: commit k's figure on each of the plan's
    seeds is value(k, plan seed) plus a few thousandths of a percent
    that depend on the seed; every measurement is a line of log."""

    def __init__(self, shas, value, log):
        self.index = {s: k for k, s in enumerate(shas)}
        self.value, self.log = value, log

    def __call__(self, search, i):
        name, _, rev = search.cands[i]
        sha, o = search.source.commits[i], search.opts
        k = self.index[sha]
        seeds = plan.perturb_seeds(o["seeds"], o["seed"])
        with open(self.log, "a") as f:
            f.write("%s %d %d\n" % (sha, o["seed"], os.getpid()))
        return {"event": "step", "i": i, "variant": name, "revision": rev,
                "values": {str(s): self.value(k, o["seed"]) + s % 13 * 0.2
                           for s in seeds}}


def measured(log):
    with open(log) as f:
        return [tuple(ln.split()[:2]) for ln in f if ln.strip()]


# A regression at 4 and its revert at 9 (the first push ends at 6), an
# improvement at 12 (the second ends at 13).
SUBJECTS = ["base", "n1", "n2", "n3", "add a loop", "n5", "n6", "n7", "n8",
            "Revert \"add a loop\"", "n10", "n11", "drop a loop", "n13"]
REGRESSION, REVERT, IMPROVEMENT, FIRST, SECOND = 4, 9, 12, 6, 13


def planted(k, seed):
    return BASE + (5000 if REGRESSION <= k < REVERT else 0) - (
        3000 if k >= IMPROVEMENT else 0)


def states(url):
    with store.connect(url) as db:
        return {f["revision"].split(" ", 1)[1]: (f["state"], f["state_note"])
                for f in query.findings(db, state="all")}


def mails(out):
    d = out / "mail"
    return sorted(os.listdir(d)) if d.is_dir() else []


def test_pushes_are_scanned_confirmed_fixed_and_mailed(tmp_path):
    repo, shas = history(tmp_path, SUBJECTS)
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    r = robot(repo, out, url, Standin(shas, planted, log))
    assert r.run(once=True) == 0          # the branch's head: recorded
    assert not os.path.exists(log)
    push(repo, shas[FIRST])
    assert r.run(once=True) == 0
    got = states(url)
    assert list(got) == ["add a loop"] and got["add a loop"][0] == \
        "confirmed", got
    assert "measured again on 6 new seeds (plan seed 1001)" in \
        got["add a loop"][1]
    assert len(mails(out)) == 1
    push(repo, shas[SECOND])
    assert r.run(once=True) == 0
    got = states(url)
    assert {k: v[0] for k, v in got.items()} == {
        "add a loop": "fixed", "Revert \"add a loop\"": "fix",
        "drop a loop": "confirmed"}, got
    assert "fixed by %s" % shas[REVERT][:12] in got["add a loop"][1]
    # the two mails and nothing else: the regression's, the improvement's
    boxes = mails(out)
    assert len(boxes) == 2
    subjects = sorted(m["Subject"] for b in boxes
                      for m in mailbox.mbox(str(out / "mail" / b)))
    assert [s.split(" ", 2)[1] for s in subjects] == sorted(
        [shas[REGRESSION][:12], shas[IMPROVEMENT][:12]]), subjects
    assert all(s.startswith("[main] ") for s in subjects)
    # each commit of the branch measured once on the scan's seeds, and
    # each confirmed finding's commit and parent once more on the
    # recheck's: nothing twice
    once = measured(log)
    assert len(once) == len(set(once)), once
    assert sorted(k for k, s in once if s == "1001") == sorted(
        shas[k] for k in (REGRESSION - 1, REGRESSION, IMPROVEMENT - 1,
                          IMPROVEMENT))
    with store.connect(url) as db:
        st = ledger.status(db)
    assert [x["state"] for x in st["done"]] == ["done", "done"]
    assert "1 confirmed" in st["done"][0]["note"] and \
        "1 fix, 1 fixed" in st["done"][0]["note"], st["done"][0]["note"]
    triage = (out / BRANCH / ("range-%d" % st["done"][0]["id"]) /
              "triage.md").read_text()
    assert "drop a loop" in triage and "improvement" in triage
    # the robot's overhead beyond its steps, per range
    p = subprocess.run([str(ROOT / "bench" / "timing" / "bench-robot"),
                        "--db", url], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("range\twall s\tsteps s") and \
        len(lines) == 4 and lines[-1].startswith("total: ") and \
        "(goal: at most 5%)" in lines[-1], p.stdout


def test_a_finding_that_does_not_hold_is_not_confirmed(tmp_path):
    # the change shows on the scan's seeds only
    repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    r = robot(repo, out, url, Standin(
        shas, lambda k, seed: BASE + (4000 if k >= REGRESSION and seed == 1
                                      else 0), log))
    r.run(once=True)
    push(repo, shas[FIRST])
    r.run(once=True)
    got = states(url)
    assert got["add a loop"][0] == "not-confirmed", got
    # both figures: the second measurement's and the scan's
    assert "measured again on 6 new seeds (plan seed 1001): +0.00" in \
        got["add a loop"][1] and "the scan's: +4.00" in \
        got["add a loop"][1], got
    assert mails(out) == []


def killer(standin, at, flag):
    """standin, but the first process to reach commit at is killed there
    (SIGKILL, mid-step: its measurement never logged)."""
    def measure(search, i):
        if search.source.commits[i] == at:
            try:
                fd = os.open(flag, os.O_CREAT | os.O_EXCL)
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
            except FileExistsError:
                pass
        return standin(search, i)
    return measure


@pytest.mark.parametrize("kind", BACKENDS)
def test_two_robots_measure_each_commit_once_and_take_over(
        tmp_path, kind, request):
    if kind == "sqlite":
        url = str(tmp_path / "s.db")
    else:
        url = request.getfixturevalue("pg_server").new_database()
    repo, shas = history(tmp_path, SUBJECTS)
    out, log = tmp_path / "robot", str(tmp_path / "measured")
    standin = Standin(shas, planted, log)
    # both pushes queued before the robots start: two ranges of one branch
    first = robot(repo, out, url, standin, name="queuer")
    first.poll()
    push(repo, shas[FIRST])
    first.poll()
    push(repo, shas[SECOND])
    first.poll()
    measure = killer(standin, shas[IMPROVEMENT - 1], str(tmp_path / "flag"))
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=lambda n=n: os._exit(robot(
        repo, out, url, measure, name=n).run(once=True)))
        for n in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    codes = sorted(p.exitcode for p in procs)
    assert codes == [-signal.SIGKILL, 0], codes
    once = measured(log)
    assert len(once) == len(set(once)), once
    assert {k: v[0] for k, v in states(url).items()} == {
        "add a loop": "fixed", "Revert \"add a loop\"": "fix",
        "drop a loop": "confirmed"}
    with store.connect(url) as db:
        st = ledger.status(db)
    assert not st["queue"] and [x["state"] for x in st["done"]] == [
        "done", "done"]
    assert len(mails(out)) == 2


def test_a_force_push_is_scanned_from_the_merge_base(tmp_path):
    repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    r = robot(repo, out, url, Standin(shas + ["x"], lambda k, s: BASE, log))
    r.run(once=True)
    push(repo, shas[FIRST])
    r.run(once=True)
    # the branch rewritten from commit 3: a new commit in place of 4..6
    new = git(repo, "commit-tree", "-p", shas[3], "-m", "another 4",
              shas[3] + "^{tree}")
    r.measure.index[new] = len(shas)
    push(repo, new)
    r.run(once=True)
    with store.connect(url) as db:
        last = ledger.status(db)["done"][0]
        rows = db.query("SELECT base, head, note FROM robot_range ORDER BY "
                        "id")
    assert (rows[-1]["base"], rows[-1]["head"]) == (shas[3], new)
    assert "force-pushed" in rows[-1]["note"] and shas[FIRST][:12] in \
        rows[-1]["note"] and "merge base %s" % shas[3][:12] in \
        rows[-1]["note"], rows
    assert last["state"] == "done"
    # commit 3, measured in the first range, is not measured again
    assert sorted(measured(log)).count((shas[3], "1")) == 1


def test_a_lease_is_held_while_its_robot_beats(tmp_path):
    url = str(tmp_path / "s.db")
    with store.connect(url) as db:
        ledger.beat(db, "far:1")
        db.write(lambda s: s.execute("UPDATE robot_beat SET host = 'far' "
                                     "WHERE holder = 'far:1'"))
        assert ledger.take_step(db, "k", "far:1", 30) == ("mine", None)
        assert ledger.take_step(db, "k", "near", 30) == ("busy", "far:1")
        # its heartbeat older than the lease: taken over
        db.write(lambda s: s.execute("UPDATE robot_beat SET beat = ?",
                                     [time.time() - 31]))
        assert ledger.take_step(db, "k", "near", 30) == ("mine", None)
        ledger.finish_step(db, "k", "near", {"values": {"1": 2.0}})
        assert ledger.take_step(db, "k", "far:1", 30) == (
            "done", {"values": {"1": 2.0}})
        # done, but its results dir gone: leased again, to one robot
        gone = {"results": str(tmp_path / "gone"), "values": {"1": 2.0}}
        ledger.finish_step(db, "k", "near", gone)
        assert ledger.take_step(db, "k", "far:1", 30, steps.usable) == (
            "mine", None)
        (r,) = db.query("SELECT holder, state FROM robot_step")
        assert (r["holder"], r["state"]) == ("far:1", "leased")


def test_a_step_is_kept_under_its_kernel_too(tmp_path):
    """A step measured is also kept under the digest of what it booted:
    a commit whose build is bit for bit a measured one, with the same
    plan, finds it; another plan, a step that was itself reused, or one
    whose results dir is gone do not serve."""
    builds = {}
    for name, module in (("a", b"m1"), ("b", b"m1"), ("c", b"m2")):
        d = tmp_path / name
        (d / "modules").mkdir(parents=True)
        (d / "bzImage").write_bytes(b"kernel")
        (d / "modules" / "x.ko").write_bytes(module)
        builds[name] = bisection.kernel_digest(str(d))
    assert builds["a"] == builds["b"] != builds["c"]
    results = tmp_path / "step-c1" / "results" / "r"
    results.mkdir(parents=True)
    opts = {"config": "smoke", "seeds": 6, "seed": 1, "metric": "m"}
    search = SimpleNamespace(
        cands=[("c0", None, "c0 base"), ("c1", None, "c1 docs")],
        source=SimpleNamespace(commits=["0" * 40, "1" * 40], on="jl"),
        opts=opts, out=str(tmp_path))
    lg = steps.Ledger(str(tmp_path / "s.db"), "me")
    try:
        lg.step(search, 1, lambda i: {
            "event": "step", "i": i, "revision": "c1 docs", "values": {},
            "kernel": builds["a"],
            "results": os.path.relpath(results, tmp_path)})
        got = lg.same_kernel(search, builds["b"])
        assert (got["results"], got["revision"]) == (str(results),
                                                     "c1 docs"), got
        assert lg.same_kernel(search, builds["c"]) is None
        other = SimpleNamespace(opts=dict(opts, seed=1001))
        assert lg.same_kernel(other, builds["b"]) is None
        # a step that took another's figures is no second original
        lg.step(search, 0, lambda i: {
            "event": "step", "i": i, "kernel": builds["c"], "values": {},
            "results": "elsewhere", "reused": "bit for bit those of x"})
        assert lg.same_kernel(search, builds["c"]) is None
        results.rmdir()
        assert lg.same_kernel(search, builds["b"]) is None
    finally:
        lg.stop()


def test_status_and_kick(tmp_path, capsys):
    url = str(tmp_path / "s.db")
    with store.connect(url) as db:
        ledger.beat(db, "r1", "range 1: measuring c0123 (x), ETA 2026")
        ledger.queue(db, "/repo", "main", None, "b" * 40, "a" * 40)
    assert watch.main(["--status", "--db", url]) == 0
    text = capsys.readouterr().out
    assert re.search(r"r1 \(pid 0\): heartbeat \d+ s ago: range 1: "
                     r"measuring c0123", text), text
    assert "range 1: main aaaaaaaaaaaa..bbbbbbbbbbbb queued" in text
    out = tmp_path / "robot"
    assert watch.main(["--kick", "--out", str(out)]) == 0
    assert (out / watch.KICK).exists()
    with pytest.raises(SystemExit) as e:
        watch.parse(["--git", "/repo", "--out", str(out)])
    assert e.value.code == 2


def test_a_full_disk_stops_the_robot_and_keeps_the_queue(
        tmp_path, monkeypatch):
    monkeypatch.setenv("JLBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(kcache.LIMIT_VAR, "0")      # nothing to trim to
    monkeypatch.setattr(watch.shutil, "disk_usage",
                        lambda path: SimpleNamespace(free=300 << 20))
    repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    r = robot(repo, out, url, Standin(shas, planted, log))
    r.run(once=True)
    push(repo, shas[FIRST])
    with pytest.raises(watch.DiskFull) as e:
        r.run(once=True)
    assert "has 0.3 GB free, less than the 2 GB a step needs" in \
        str(e.value) and "the queue is kept" in str(e.value)
    assert not os.path.exists(log)
    with store.connect(url) as db:
        queue = ledger.status(db)["queue"]
    assert [(q["state"], q["head"]) for q in queue] == [
        ("queued", shas[FIRST])]


def test_a_store_that_restarts_is_waited_for(tmp_path):
    import pgserver
    why = pgserver.missing()
    if why:
        pytest.skip("no PostgreSQL server: %s" % why)
    server = pgserver.Server().start()
    ctl = ["pg_ctl", "-w", "-D", server.data]
    start = ctl + ["start", "-l", server.log, "-o",
                   "-k %s -c listen_addresses='' -F" % server.dir]
    try:
        url = server.new_database()
        repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
        r = robot(repo, tmp_path / "robot", url, Standin(
            shas, planted, str(tmp_path / "measured")))
        r.run(once=True)
        push(repo, shas[FIRST])
        r.db_wait = 120.0       # a start that a loaded host makes slow
        server._run(ctl + ["stop", "-m", "fast"])
        # back 3 s later: the robot waits for it and goes on
        back = threading.Timer(3.0, server._run, [start])
        back.start()
        assert r.run(once=True) == 0
        back.join()
        assert states(url)["add a loop"][0] == "confirmed"
        # gone for longer than --db-wait: the robot stops, naming it
        server._run(ctl + ["stop", "-m", "fast"])
        r.db_wait = 1.0
        with pytest.raises(bisection.Stop) as e:
            r.run(once=True)
        assert "has not answered for 1 s" in str(e.value) and \
            "the same command resumes once it is back" in str(e.value)
        server._run(start)
    finally:
        server.stop()


def test_a_commit_that_does_not_run_is_skipped(tmp_path):
    repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    standin = Standin(shas, planted, log)

    def measure(search, i):
        if search.source.commits[i] == shas[2]:
            raise bisection.Untestable("bench/run failed for c%s (exit 1): "
                                       "see above" % shas[2][:12])
        return standin(search, i)
    # sampled 0, 2, 4, 6: 2 does not run, 0 and 4 differ
    r = robot(repo, out, url, measure, extra=("--every", "2"))
    r.run(once=True)
    push(repo, shas[FIRST])
    assert r.run(once=True) == 0
    assert states(url)["add a loop"][0] == "confirmed"
    with open(out / BRANCH / "range-1" / "scan.log") as f:
        skipped = [e for e in map(json.loads, f) if e.get("decision") ==
                   "skip"]
    assert [e["variant"] for e in skipped] == ["c" + shas[2][:12]] and \
        skipped[0]["why"].startswith("did not run: bench/run failed"), \
        skipped


def test_a_range_whose_end_does_not_run_fails_and_the_robot_goes_on(
        tmp_path):
    repo, shas = history(tmp_path, SUBJECTS[:FIRST + 1])
    url, out, log = str(tmp_path / "s.db"), tmp_path / "robot", \
        str(tmp_path / "measured")
    standin = Standin(shas, planted, log)

    def measure(search, i):
        if search.source.commits[i] == shas[FIRST]:
            raise bisection.Untestable("no ok run has kernel_insns_per_op")
        return standin(search, i)
    r = robot(repo, out, url, measure)
    r.run(once=True)
    push(repo, shas[FIRST])
    assert r.run(once=True) == 0
    with store.connect(url) as db:
        (done,) = ledger.status(db)["done"]
    assert done["state"] == "failed" and "an end of the range: did not " \
        "run: no ok run has kernel_insns_per_op" in done["note"], done
