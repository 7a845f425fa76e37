"""Known answers of bench/bisect and of an A/B of a user's patch, on the
smoke kernels: real builds (git trees, incremental), real icount runs of
tbench.

The series (tests/fixtures/bisect/make_series.py) has 2 patches: the 1st
adds one increment to tcp_recvmsg() (on tbench's path, far below the
floor), the 2nd a loop of 400 volatile increments to tcp_sendmsg(). It is
bisected over a git repository of the same commits (kept in the cache:
repository()), so the bisection builds git trees, judges the halving at
the small change good and names the planted commit. (The search over
longer ranges is test_bisect_unit's.) The A/B is conftest's `ab`, whose
runs test_profile reads too.
"""
import hashlib
import json
import os
import shutil
import subprocess

import pytest

from conftest import (CALIBRATED, MAKE_SERIES, TARBALL, ROOT, cache_path,
                      cpu_lock, read_builds, run)

pytestmark = pytest.mark.integration

BISECT = str(ROOT / "bench" / "bisect")
SHORT = ["--config", "smoke", "--seconds", "2", "--clients", "2"]
PLANTED = "0002-tcp-sendmsg-loop-400.patch"
BELOW = 1     # the tcp_recvmsg() increment's patch


def series(tree, out, *args):
    run([MAKE_SERIES, str(tree), str(out)] + list(args))
    return out


def log_of(out):
    with open(os.path.join(out, "bisect.log")) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def bisect(*args):
    with cpu_lock():
        return run([BISECT] + list(args), env=CALIBRATED)


def git(repo, *args):
    date = "2026-12-01T00:00:00Z"
    run(["git", "-C", str(repo), "-c", "user.name=jlbench",
         "-c", "user.email=jlbench@localhost"] + list(args),
        env=dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))


def repository(series_dir):
    """A bare git repository of Debian's tree with our series (one commit),
    then series_dir's patches (a commit each), kept in the cache
    (test-repos/bisect-<hash>.git, the hash of the package version, our
    series and series_dir's patches): made once, in a few minutes; its
    commits have fixed dates, so the same inputs give the same hashes."""
    patches = ROOT / "kernel-variants" / "patches"
    ours = [patches / n for n in (patches / "series").read_text().split()]
    theirs = [series_dir / n
              for n in (series_dir / "series").read_text().split()]
    h = hashlib.sha256(run(["dpkg-query", "-W", "-f=${Version}",
                            "linux-source-6.1"]).stdout.encode())
    for f in ours + theirs:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    kept = cache_path() / "test-repos" / ("bisect-%s.git"
                                          % h.hexdigest()[:16])
    if kept.is_dir():
        return kept
    work = series_dir.parent / "linux"
    work.mkdir()
    run(["tar", "-xf", TARBALL, "-C", str(work), "--strip-components=1"])
    git(work, "init", "-q")
    for message, patch_files in [("linux-source-6.1 with our series", ours)] \
            + [(f.name, [f]) for f in theirs]:
        for f in patch_files:
            run(["patch", "-p1", "-d", str(work), "--quiet", "-i", str(f)])
        # -f: Debian's tree has a .gitignore that ignores its top level
        git(work, "add", "-A", "-f")
        git(work, "commit", "-q", "-m", message)
    kept.parent.mkdir(parents=True, exist_ok=True)
    tmp = kept.with_suffix(".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    run(["git", "clone", "-q", "--bare", str(work), str(tmp)])
    os.rename(tmp, kept)
    shutil.rmtree(work)
    return kept


def test_bisect_over_git_names_the_planted_commit_and_replays(
        series_tree, tmp_path, plugin_so):
    """A git repository of Debian's tree with our series, then the series,
    one commit per patch: the bisection judges the small change good,
    names the planted commit, its change and where, and --replay decides
    the same from the log."""
    repo = repository(series(series_tree, tmp_path / "series", "--count",
                             "2", "--planted", "2", "--below", str(BELOW)))
    out = tmp_path / "bisect"
    p = bisect("--git", str(repo), "--good", "HEAD~2", "--bad", "HEAD",
               "--out", str(out), *SHORT)
    first = p.stdout.splitlines()[0]
    assert first.startswith("first bad: ") and PLANTED in first, p.stdout
    entries = log_of(out)
    steps = [e for e in entries if e["event"] == "step"]
    # both ends and the halving between: 0, 2 (bad), 1 (good)
    assert [e["i"] for e in steps] == [0, 2, BELOW], steps
    # the increment: a change the runs resolve (its interval excludes 0),
    # judged good because it is within the calibrated floor
    (below,) = [e for e in entries
                if e["event"] == "decision" and e["i"] == BELOW]
    assert below["decision"] == "good", below
    assert 0 < below["vs_good"]["pct_ci_lo"] and \
        below["vs_good"]["pct_ci_hi"] < entries[0]["floor_pct"], below
    end = entries[-1]
    assert end["event"] == "end" and end["first_bad"] == 2
    # the loop: about 3 instructions an iteration, 400 a send
    assert end["vs_parent"]["pct_change"] > 5, end
    # the profiles name where: the loop's function, nearly all of it
    name, diff, _, _, share = end["top_functions"][0]
    assert name == "tcp_sendmsg" and diff > 0 and share > 0.9, end
    assert "most changed functions against the good end: tcp_sendmsg" \
        in p.stdout, p.stdout
    for e in steps:
        assert os.path.isfile(os.path.join(out, e["results"], "runs.csv"))
    p = run([BISECT, "--replay", str(out)], env=CALIBRATED)
    assert "replay agrees with the log" in p.stdout, p.stdout
    assert p.stdout.splitlines()[0] == first, p.stdout


def test_ab_of_a_user_patch_through_run_all_and_its_reproduce(
        ab, tmp_path):
    """./run_all.sh --variant loop=patches:FILE (conftest's ab): the report
    names loop and its baseline, and reproduce.sh rebuilds loop from the
    recorded patch and reruns a try bit for bit."""
    text = ab.report.read_text()
    assert "`loop`" in text and "`jump-label`" in text
    assert (ab.report.parent / "plots" / "img" / "throughput.svg").is_file()
    assert "2011" not in text
    assert ab.meta["baseline"] == "jump-label"
    assert sorted(ab.meta["plan"]["variants"]) == ["jump-label", "loop"]
    recorded = ab.results / "provenance" / "variants" / "loop"
    assert (recorded / "patches" / ab.patch.name).read_bytes() == \
        ab.patch.read_bytes()
    with cpu_lock():
        p = subprocess.run([str(ab.results / "reproduce.sh"), "--clone",
                            str(ROOT), "--work", str(tmp_path / "work")],
                           capture_output=True, text=True, check=False)
    assert p.returncode == 0 and p.stdout.strip().endswith("PASS"), \
        p.stderr[-3000:]
    assert "loop=@%s" % recorded in p.stderr
    builds = read_builds(tmp_path / "work" / "builds.tsv")
    assert "loop" in builds
