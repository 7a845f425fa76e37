"""bench/scan's known answer on a real git history (smoke kernels, git
trees built incrementally, icount runs of tbench): the 20 commits of
tests/fixtures/bisect/history.py after its good end, of which one makes
tbench's path slower, one faster and one changes it below the floor; the
scan, given only the range, names exactly the two, each with its sign and
its function, bisected with bench/bisect's search; the sampled interval
holding the small change is judged unchanged although its runs resolve it
(an interval off 0, within the calibrated floor). Ctrl-C in the middle of
a step's runs, then the same command: no step measured twice, the
interrupted step's runs finished in its own results dir; --replay agrees
with the log.
"""
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import CALIBRATED, ROOT, TARBALL, cache_path, cpu_lock, run

pytestmark = pytest.mark.integration

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "bisect"))
import history  # noqa: E402

SCAN = str(ROOT / "bench" / "scan")
SHORT = ["--config", "smoke", "--seconds", "2", "--clients", "2"]
FIXTURES = ROOT / "tests" / "fixtures" / "bisect"


def git(repo, *args):
    date = "2026-12-01T00:00:00Z"
    run(["git", "-C", str(repo), "-c", "user.name=jlbench",
         "-c", "user.email=jlbench@localhost"] + list(args),
        env=dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))


def repository():
    """A bare repository of Debian's tree with our series, then history's
    good end and its 20 commits, kept in the cache (test-repos/scan-<hash>
    .git, the hash of the package version, our series and the fixture's
    code); its commits have fixed dates, so the same inputs give the same
    hashes."""
    patches = ROOT / "kernel-variants" / "patches"
    ours = [patches / n for n in (patches / "series").read_text().split()]
    h = hashlib.sha256(run(["dpkg-query", "-W", "-f=${Version}",
                            "linux-source-6.1"]).stdout.encode())
    for f in ours + [FIXTURES / "history.py", FIXTURES / "make_series.py"]:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    kept = cache_path() / "test-repos" / ("scan-%s.git" % h.hexdigest()[:16])
    if kept.is_dir():
        return kept
    work = kept.parent / ("scan-work-%d" % os.getpid())
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run(["tar", "-xf", TARBALL, "-C", str(work), "--strip-components=1"])
    git(work, "init", "-q")
    for f in ours:
        run(["patch", "-p1", "-d", str(work), "--quiet", "-i", str(f)])
    edits = [("linux-source-6.1 with our series", lambda: None)]
    edits = iter(edits + list(history.commits(str(work))))
    for subject, edit in edits:
        edit()
        # -f: Debian's tree has a .gitignore that ignores its top level
        git(work, "add", "-A", "-f")
        git(work, "commit", "-q", "-m", subject)
    tmp = kept.with_suffix(".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    run(["git", "clone", "-q", "--bare", str(work), str(tmp)])
    os.rename(tmp, kept)
    shutil.rmtree(work)
    return kept


def steps(out):
    with open(os.path.join(out, "scan.log")) as f:
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


def test_scan_names_the_two_changes_resumes_and_replays(
        tmp_path, plugin_so):
    repo = repository()
    out = tmp_path / "scan"
    cmd = [SCAN, "--git", str(repo), "--range", "HEAD~%d..HEAD"
           % history.COMMITS, "--out", str(out), "--points", "5"] + SHORT
    with cpu_lock():
        proc = subprocess.Popen(cmd, env=CALIBRATED, start_new_session=True,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            t0 = time.time()
            while not interrupted_in_a_step(str(out)):
                assert proc.poll() is None, proc.communicate()
                assert time.time() - t0 < 900, "no step began its runs"
                time.sleep(1)
            os.killpg(proc.pid, signal.SIGINT)          # Ctrl-C
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 130, err
        assert "the same command resumes" in err, err
        before = steps(str(out))
        p = run(cmd, env=CALIBRATED)
    done = steps(str(out))
    assert [e["i"] for e in done[:len(before)]] == [e["i"] for e in before]
    assert len({e["i"] for e in done}) == len(done)      # none twice
    for e in done:
        # one results dir per step: the interrupted one finished its own
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
    assert end["measured"] == len(done) < history.COMMITS + 1
    # the small change (one increment per receive) in the first sampled
    # interval: resolved by the runs, within the floor, so no finding
    (small,) = [e for e in entries if e["event"] == "decision" and
                e["against"] == 0 and e["i"] == 5]
    assert history.BELOW_AT < 5 < history.REGRESSION
    assert small["decision"] == "good" and 0 < small["vs"]["pct_ci_lo"] \
        and small["vs"]["pct_ci_hi"] < entries[0]["floor_pct"], small
    assert (out / "report.md").read_text() == p.stdout
    assert "2 finding(s)" in p.stdout and "blind spot" in p.stdout
    p = run([SCAN, "--replay", str(out)], env=CALIBRATED)
    assert "replay agrees with the log" in p.stdout, p.stdout
