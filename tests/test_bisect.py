"""Known answers of bench/bisect and of an A/B of a user's patch, on the
smoke kernels: real builds (incremental over the cached jump-label
kernel), real icount runs of tbench.

The series (tests/fixtures/bisect/make_series.py) has 8 patches; the 5th
adds a loop of 400 volatile increments to tcp_sendmsg(), the others change
nothing tbench executes."""
import json
import os
import subprocess

import pytest

from conftest import ROOT, cpu_lock, read_builds, run

pytestmark = pytest.mark.integration

BISECT = str(ROOT / "bench" / "bisect")
MAKE_SERIES = str(ROOT / "tests" / "fixtures" / "bisect" / "make_series.py")
TARBALL = "/usr/src/linux-source-6.1.tar.xz"
SHORT = ["--config", "smoke", "--seconds", "3", "--clients", "2"]
PLANTED = "0005-tcp-sendmsg-loop-400.patch"


def series(tree, out, *args):
    run([MAKE_SERIES, str(tree), str(out)] + list(args))
    return out


@pytest.fixture(scope="module")
def tree(tmp_path_factory, smoke_builds):
    """The files the series changes, from the tarball (our series changes
    none of them)."""
    d = tmp_path_factory.mktemp("tree")
    files = ["net/ipv4/tcp.c", "init/main.c", "kernel/panic.c",
             "kernel/fork.c", "README", "Documentation/networking/index.rst",
             "drivers/net/ethernet/3com/3c509.c",
             "drivers/net/ethernet/8390/ne.c"]
    run(["tar", "-xf", TARBALL, "-C", str(d), "--strip-components=1"]
        + ["linux-source-6.1/" + f for f in files])
    return d


def log_of(out):
    with open(os.path.join(out, "bisect.log")) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


# The committed calibration: its floors, not the synthetic fixture's
# (conftest.py), which has none for counters.
CALIBRATED = dict(os.environ, JLBENCH_CALIBRATION=str(
    ROOT / "analysis" / "calibration.json"))


def bisect(*args):
    with cpu_lock():
        return run([BISECT] + list(args), env=CALIBRATED)


def test_bisect_names_the_planted_patch_and_replays(tree, tmp_path,
                                                    plugin_so):
    s = series(tree, tmp_path / "series")
    out = tmp_path / "bisect"
    p = bisect("--series", str(s), "--out", str(out), *SHORT)
    assert p.stdout.startswith("first bad: 5 patches, last %s" % PLANTED), \
        p.stdout
    entries = log_of(out)
    steps = [e for e in entries if e["event"] == "step"]
    # ceil(log2(8)) + 2 builds at most: both ends and three halvings
    assert len(steps) <= 5, [e["variant"] for e in steps]
    end = entries[-1]
    assert end["event"] == "end" and end["first_bad"] == 5
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
    assert p.stdout.startswith("first bad: 5 patches"), p.stdout


def test_bisect_of_a_change_below_the_floor_finds_none(tree, tmp_path,
                                                       plugin_so):
    s = series(tree, tmp_path / "series", "--loops", "1")
    out = tmp_path / "bisect"
    p = bisect("--series", str(s), "--out", str(out), *SHORT)
    assert p.stdout.startswith("no change found"), p.stdout
    steps = [e for e in log_of(out) if e["event"] == "step"]
    assert [e["i"] for e in steps] == [0, 8]


def git(repo, *args):
    run(["git", "-C", str(repo), "-c", "user.name=jlbench",
         "-c", "user.email=jlbench@localhost"] + list(args))


def test_bisect_over_git_names_the_same_commit(tree, tmp_path, plugin_so):
    """A git repository of the same tree (Debian's with our series) and
    series, one commit per patch."""
    s = series(tree, tmp_path / "series")
    repo = tmp_path / "linux"
    repo.mkdir()
    run(["tar", "-xf", TARBALL, "-C", str(repo), "--strip-components=1"])
    patches = ROOT / "kernel-variants" / "patches"
    for name in (patches / "series").read_text().split():
        run(["patch", "-p1", "-d", str(repo), "--quiet", "-i",
             str(patches / name)])
    git(repo, "init", "-q")
    # -f: Debian's tree has a .gitignore that ignores its top level
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "linux-source-6.1 with our series")
    for name in (s / "series").read_text().split():
        run(["patch", "-p1", "-d", str(repo), "--quiet", "-i",
             str(s / name)])
        git(repo, "add", "-A", "-f")
        git(repo, "commit", "-q", "-m", name)
    out = tmp_path / "bisect"
    p = bisect("--git", str(repo), "--good", "HEAD~8", "--bad", "HEAD",
               "--out", str(out), *SHORT)
    assert p.stdout.startswith("first bad: "), p.stdout
    assert PLANTED in p.stdout.splitlines()[0], p.stdout
    steps = [e for e in log_of(out) if e["event"] == "step"]
    assert len(steps) <= 5
    p = run([BISECT, "--replay", str(out)], env=CALIBRATED)
    assert "replay agrees with the log" in p.stdout, p.stdout


def test_ab_of_a_user_patch_through_run_all_and_its_reproduce(
        tree, tmp_path, plugin_so):
    """./run_all.sh --variant mine=patches:FILE: the report names mine and
    its baseline, and reproduce.sh rebuilds mine from the recorded patch
    and reruns a try bit for bit."""
    s = series(tree, tmp_path / "series")
    report = tmp_path / "REPORT.md"
    with cpu_lock():
        run([str(ROOT / "run_all.sh"), "--config", "smoke", "--no-s390x",
             "--variant", "mine=patches:%s" % (s / PLANTED),
             "--boots", "6", "--seconds", "3", "--clients", "2",
             "--results-root", str(tmp_path / "results"),
             "--report", str(report)], env=CALIBRATED)
    text = report.read_text()
    assert "`mine`" in text and "`jump-label`" in text
    assert (tmp_path / "plots" / "throughput.svg").is_file()
    assert "2011" not in text
    (resdir,) = [d for d in (tmp_path / "results").iterdir() if d.is_dir()]
    meta = json.loads((resdir / "meta.json").read_text())
    assert meta["baseline"] == "jump-label"
    assert sorted(meta["plan"]["variants"]) == ["jump-label", "mine"]
    recorded = resdir / "provenance" / "variants" / "mine"
    assert (recorded / "patches" / PLANTED).read_bytes() == \
        (s / PLANTED).read_bytes()
    with cpu_lock():
        p = subprocess.run([str(resdir / "reproduce.sh"), "--clone",
                            str(ROOT), "--work", str(tmp_path / "work")],
                           capture_output=True, text=True, check=False)
    assert p.returncode == 0 and p.stdout.strip().endswith("PASS"), \
        p.stderr[-3000:]
    assert "mine=@%s" % recorded in p.stderr
    builds = read_builds(tmp_path / "work" / "builds.tsv")
    assert "mine" in builds
