"""bench/run end to end with a stand-in QEMU (tests/fixtures/bench/).

These check the runner's bookkeeping: the plan, runs.csv rows for failed and
retried tries, --resume, Ctrl-C, --out, --dry-run and option errors. The
stand-in boots nothing; the real boots are in test_bench_integration.py.
"""
import collections
import csv
import gzip
import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.session import cli  # noqa: E402
from bench.tries import plan, runner, slurmtask  # noqa: E402
from bench.tries.inputs import read_builds, read_images  # noqa: E402
from lib import store  # noqa: E402
from lib.format import rawfiles, results  # noqa: E402
from lib.log import Log  # noqa: E402

STANDIN = ROOT / "tests" / "fixtures" / "bench" / "stand-in-qemu"
RUN = str(ROOT / "bench" / "run")
VARIANTS = ("jump-label", "atomic-read", "plain-read")


@pytest.fixture
def setup(tmp_path):
    lines = []
    for v in VARIANTS:
        d = tmp_path / "builds" / v
        d.mkdir(parents=True)
        (d / "bzImage").write_bytes(b"not a kernel")
        (d / "build.json").write_text(json.dumps({"hash": "h" + v[:4],
                                                  "boot_args": ""}))
        lines.append("%s\t%s\n" % (v, d))
    (tmp_path / "builds.tsv").write_text("".join(lines))
    (tmp_path / "img.cpio.gz").write_bytes(gzip.compress(b"070701"))
    script = tmp_path / "script"
    env = dict(os.environ, JLBENCH_QEMU=str(STANDIN),
               STANDIN_SCRIPT=str(script))
    base = [RUN, "--builds", str(tmp_path / "builds.tsv"),
            "--initramfs", str(tmp_path / "img.cpio.gz"),
            "--results-root", str(tmp_path / "results"),
            "--out", str(tmp_path / "out"), "--quiet"]
    return tmp_path, base, env, script


def rows(d):
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_a_plan_with_failures_retries_and_records_every_try(setup):
    tmp, base, env, script = setup
    script.write_text("crash\npanic\nok\nerror\n")
    p = run(base + ["--no-aa", "--jobs", "1",
                    "--accel", "icount", "--boots", "2", "--seconds", "1",
                    "--seed", "5", "--no-plugin"], env=env)
    d = (tmp / "out").read_text().strip()
    assert os.path.dirname(d) == str(tmp / "results")
    r = rows(d)
    assert [(x["index"], x["try"], x["status"]) for x in r] == [
        ("1", "1", "failed"), ("1", "2", "failed"), ("1", "3", "ok"),
        ("2", "1", "failed"), ("2", "2", "ok"),
        ("3", "1", "ok"), ("4", "1", "ok"), ("5", "1", "ok"),
        ("6", "1", "ok")]
    assert "stand-in crash" in r[0]["reason"]
    assert r[1]["reason"].startswith("kernel panic: stand-in")
    assert r[3]["reason"] == "guest error: stand-in error"
    assert {x["accel"] for x in r} == {"icount"}
    assert all(x["throughput_mbps"] == "" for x in r if x["status"] != "ok")
    the_plan = plan.read(os.path.join(d, "plan.csv"), 1)
    assert the_plan == plan.make([(v, v) for v in VARIANTS], 2, 5, True,
                                 lengths=(1,))
    for x in r:
        assert int(x["perturb_seed"]) == the_plan[int(x["index"]) - 1] \
            .perturb_seed
        expect = "%.4f" % (40 + int(x["perturb_seed"]) % 1000 / 100.0)
        if x["status"] == "ok":
            assert x["throughput_mbps"] == expect
            assert x["kernel_hash"] == "h" + x["variant"][:4]
    assert not os.path.exists(os.path.join(d, "raw")), \
        "a complete run's raw/ is packed into raw.tar.xz"
    raw = rawfiles.listdir(os.path.join(d, "raw"))
    assert "001-%s-try3.log" % the_plan[0].variant in raw
    # ... and the run is in the results store (the tests' own)
    with store.connect() as db:
        assert db.scalar("SELECT count(DISTINCT f.line) FROM figure f "
                         "JOIN run r ON r.id = f.run_id WHERE r.path = ?",
                         [d]) == len(r)
    assert "001-%s-try1.qemu-cmd" % the_plan[0].variant in raw
    assert "001-%s-try1.stderr" % the_plan[0].variant in raw
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["accel"]["name"] == "icount"
    assert meta["plan"]["seed"] == 5 and meta["sessions"][0]["outcome"] \
        == "complete"
    assert meta["end_utc"] and meta["git"]["commit"]
    with open(os.path.join(d, "samples.csv")) as f:
        assert len(f.read().splitlines()) == 1 + 6 * 3
    assert "plan: 6 runs left of 6" in p.stderr


def test_a_run_that_always_fails_stays_pending_and_resume_finishes(setup):
    tmp, base, env, script = setup
    script.write_text("hang\n" * 2)
    p = run(base + ["--no-aa",
                    "--accel", "tcg", "--boots", "1", "--seconds", "1",
                    "--retries", "1", "--timeout", "1.5", "--seed", "1"],
            env=env, check=False)
    assert p.returncode == 1, p.stderr
    assert "1 runs failed all tries" in p.stderr and "--resume" in p.stderr
    d = (tmp / "out").read_text().strip()
    r = rows(d)
    assert [(x["index"], x["try"], x["status"]) for x in r] == [
        ("1", "1", "failed"), ("1", "2", "failed"), ("2", "1", "ok"),
        ("3", "1", "ok")]
    assert "timeout" in r[0]["reason"]
    assert {x["perturb_seed"] for x in r} == {"0"}      # tcg: no perturbation
    p = run([RUN, "--resume", d] + base[1:], env=env)
    r = rows(d)
    assert [(x["index"], x["try"], x["status"]) for x in r][4:] == [
        ("1", "3", "ok")]
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert [s["outcome"] for s in meta["sessions"]] == [
        "1 runs failed all tries", "complete"]
    p = run([RUN, "--resume", d] + base[1:], env=env)
    assert "0 of 3 runs left" in p.stderr
    assert len(rows(d)) == 5


def test_resume_refuses_other_kernels_and_plan_options(setup):
    tmp, base, env, script = setup
    run(base + ["--no-aa",
                "--accel", "icount", "--boots", "1", "--seconds", "1",
                "--variants", "jump-label", "--no-plugin"], env=env)
    d = (tmp / "out").read_text().strip()
    bj = tmp / "builds" / "jump-label" / "build.json"
    bj.write_text(json.dumps({"hash": "other"}))
    p = run([RUN, "--resume", d] + base[1:], env=env, check=False)
    assert p.returncode == 1 and "resume with the same kernels" in p.stderr
    p = run([RUN, "--resume", d, "--boots", "3"] + base[1:], env=env,
            check=False)
    assert p.returncode == 2 and "drop --boots" in p.stderr


def test_three_hopeless_runs_stop_the_plan(setup):
    tmp, base, env, script = setup
    script.write_text("crash\n" * 20)
    p = run(base + ["--no-aa", "--jobs", "1",
                    "--accel", "icount", "--boots", "2", "--seconds", "1",
                    "--retries", "0", "--no-plugin"], env=env, check=False)
    assert p.returncode == 1 and "3 runs in a row failed" in p.stderr
    assert len(rows((tmp / "out").read_text().strip())) == 3


def test_interrupt_keeps_finished_rows_and_resume_completes(setup):
    tmp, base, env, script = setup
    script.write_text("ok\nhang\n")
    proc = subprocess.Popen(base + ["--no-aa", "--jobs", "1",
                                    "--accel", "icount", "--boots", "1",
                                    "--seconds", "1", "--no-plugin"],
                            env=env, stderr=subprocess.PIPE, text=True)
    calls = str(script) + ".calls"
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20:
        if os.path.exists(calls) and len(open(calls).readlines()) == 2:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "bench/run --resume" in err
    d = (tmp / "out").read_text().strip()
    assert [(x["index"], x["status"]) for x in rows(d)] == [("1", "ok")]
    assert not [f for f in rawfiles.listdir(os.path.join(d, "raw"))
                if f.startswith("002-")]
    run([RUN, "--resume", d] + base[1:], env=env)
    assert sorted((x["index"], x["try"]) for x in rows(d)) == [
        ("1", "1"), ("2", "1"), ("3", "1")]


def test_aa_control(setup):
    tmp, base, env, script = setup
    run(base + ["--accel", "icount", "--boots", "2", "--seconds", "1",
                "--aa", "--no-plugin"], env=env)
    r = rows((tmp / "out").read_text().strip())
    assert {x["variant"] for x in r} == {"atomic-read"}
    assert sorted(x["label"] for x in r) == ["A", "A", "B", "B"]
    seeds = {x["label"]: set() for x in r}
    for x in r:
        seeds[x["label"]].add(x["perturb_seed"])
    assert not seeds["A"] & seeds["B"]  # B draws seeds of its own


def test_default_plan_has_an_aa_twin_of_the_baseline(setup):
    tmp, base, env, script = setup
    run(base + ["--accel", "icount", "--boots", "2", "--seconds", "1,2",
                "--no-plugin", "--seed", "3"], env=env)
    d = (tmp / "out").read_text().strip()
    r = rows(d)
    assert collections.Counter(x["label"] for x in r) == {
        "jump-label": 4, "atomic-read": 4, "plain-read": 4,
        "atomic-read.aa": 4}
    assert {x["variant"] for x in r if x["label"] == "atomic-read.aa"} == {
        "atomic-read"}
    assert collections.Counter(x["seconds"] for x in r) == {"1": 8, "2": 8}
    for x in r:
        name = "%03d-%s-try1.qemu-cmd" % (int(x["index"]), x["variant"])
        cmd = rawfiles.read_bytes(os.path.join(d, "raw", name)).decode()
        assert "jlbench.seconds=%s " % x["seconds"] in cmd
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["plan"]["twins"] == ["atomic-read.aa"]
    assert meta["plan"]["lengths"] == [1, 2]
    p = run(base + ["--aa", "--no-aa"], env=env, check=False)
    assert p.returncode == 2 and "drop --no-aa" in p.stderr


def test_dry_run_prints_commands_and_writes_nothing(setup):
    tmp, base, env, script = setup
    p = run(base + ["--no-aa", "--dry-run", "--accel", "tcg", "--smp", "3",
                    "--boots", "2", "--seed", "3"], env=env)
    cmds = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert len(cmds) == 6
    assert all("-accel tcg,thread=multi" in c and "-smp 3" in c
               for c in cmds)
    assert not (tmp / "results").exists() and not (tmp / "out").exists()
    assert not os.path.exists(str(script) + ".calls")
    assert "expected duration" in p.stderr


def test_dry_run_with_the_model_gives_the_plugin_its_arguments(setup):
    tmp, base, env, script = setup
    p = run(base + ["--no-aa", "--dry-run", "--accel", "icount", "--boots",
                    "1", "--model", "--model-set", "l1d=49152:12"], env=env)
    cmds = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert len(cmds) == 3
    for v in VARIANTS:
        spec = next(c for c in cmds if "/%s/" % v in c).split(
            "-plugin ")[1].split()[0]
        assert ",model=on,l1i=32768:8,l1d=49152:12," in spec
        assert ",keys=RESULTS/keys/%s.txt," % v in spec
        # every icount try writes its per-function profile
        assert ",symbols=CACHE/profile-symbols/" in spec
        assert spec.endswith(".profile") and ",profile=RESULTS/raw/" in spec


def test_dry_run_shows_the_append_words_on_every_kernel_command_line(setup):
    tmp, base, env, script = setup
    (tmp / "builds" / "jump-label" / "build.json").write_text(json.dumps(
        {"hash": "hjump", "boot_args": "mitigations=off"}))
    p = run(base + ["--no-aa", "--dry-run", "--accel", "icount", "--boots",
                    "1", "--no-plugin", "--append", " foo=1   bar "],
            env=env)
    assert "# --append: foo=1 bar" in p.stdout
    cmds = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert len(cmds) == 3
    for c in cmds:
        words = shlex.split(c)
        append = words[words.index("-append") + 1]
        assert append.endswith(" foo=1 bar"), append
        assert append.startswith("console=ttyS0 ")
        if "/jump-label/" in c:
            assert append.endswith(" mitigations=off foo=1 bar")
    assert not (tmp / "results").exists()


def test_append_is_recorded_and_kept_on_resume(setup):
    tmp, base, env, script = setup
    script.write_text("crash\n")
    p = run(base + ["--no-aa", "--jobs", "1", "--accel", "icount",
                    "--boots", "1", "--seconds", "1", "--no-plugin",
                    "--retries", "0", "--append", "foo=1 bar"], env=env,
            check=False)
    assert p.returncode == 1, p.stderr
    d = (tmp / "out").read_text().strip()
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["protocol"]["append"] == "foo=1 bar"

    def appends():
        out = {}
        for name in sorted(rawfiles.listdir(os.path.join(d, "raw"))):
            if name.endswith(".qemu-cmd"):
                words = shlex.split(rawfiles.read_bytes(
                    os.path.join(d, "raw", name)).decode())
                out[name] = words[words.index("-append") + 1]
        return out
    assert len(appends()) == 3
    assert all(a.endswith(" foo=1 bar") for a in appends().values())
    p = run([RUN, "--resume", d, "--append", "foo=2"] + base[1:], env=env,
            check=False)
    assert p.returncode == 2, p.stderr
    assert "was run with --append 'foo=1 bar', not 'foo=2'" in p.stderr
    p = run([RUN, "--resume", d, "--append", ""] + base[1:], env=env,
            check=False)
    assert p.returncode == 2 and "--append 'foo=1 bar'" in p.stderr
    # the same words (blanks aside) or none: the recorded ones
    run([RUN, "--resume", d, "--append", "foo=1  bar"] + base[1:] +
        ["--dry-run"], env=env)
    run([RUN, "--resume", d] + base[1:], env=env)
    got = appends()
    assert len(got) == 4 and all(a.endswith(" foo=1 bar")
                                 for a in got.values())
    assert [(x["index"], x["try"], x["status"]) for x in rows(d)][-1][1:] \
        == ("2", "ok")
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["protocol"]["append"] == "foo=1 bar"


def test_a_resume_with_append_of_a_dir_run_without_is_refused(setup):
    tmp, base, env, script = setup
    run(base + ["--no-aa", "--accel", "icount", "--boots", "1",
                "--seconds", "1", "--no-plugin", "--variants",
                "jump-label"], env=env)
    d = (tmp / "out").read_text().strip()
    assert json.load(open(os.path.join(d, "meta.json")))["protocol"][
        "append"] == ""
    p = run([RUN, "--resume", d, "--append", "quiet"] + base[1:], env=env,
            check=False)
    assert p.returncode == 2
    assert "was run with --append '', not 'quiet'" in p.stderr


def test_slurm_tasks_boot_with_the_append_words(setup):
    """A Slurm task rebuilds its Context from slurm/context.json: the
    protocol's --append words come along."""
    tmp, base, env, script = setup
    builds = read_builds(str(tmp / "builds.tsv"))
    images = read_images(str(tmp / "img.cpio.gz"), list(builds))
    resdir = results.ResultsDir.create(str(tmp / "r"), [])
    params = {"clients": 2, "seconds": 1, "perf": "none", "perf_events": [],
              "append": "foo=1 bar"}
    ctx = runner.Context("icount", params, 1, builds, images, resdir,
                         Log(quiet=True), timeout=30, qemu_bin=str(STANDIN))
    slurmtask.write_context(ctx)
    task = slurmtask.read_context(resdir, Log(quiet=True), lambda: False)
    p = plan.make([("jump-label", "jump-label")], 1, 4, True)
    g = runner.guest(task, p[0], resdir.raw_base(p[0], 1))
    assert g.append == runner.guest(ctx, p[0], g.base).append
    assert g.append.endswith(" jlbench.perturb=%d foo=1 bar"
                             % p[0].perturb_seed)


def test_append_takes_the_agent_word_no_option_sets():
    """bench/envstudy's jlbench.envpad passes; the words are normalised."""
    assert cli.append_words("jlbench.envpad=64  x") == "jlbench.envpad=64 x"


@pytest.mark.parametrize("extra, msg", [
    (["--boots", "0"], "--boots"),
    (["--clients", "600"], "--clients"),
    (["--accel", "hvf"], "--accel"),
    (["--accel", "icount", "--smp", "2"], "one vCPU"),
    (["--variants", "a,,b"], "--variants"),
    (["--perf", "cycles,cycles"], "repeated"),
    (["--timeout", "-1"], "--timeout"),
    (["--bogus"], "unrecognized"),
    (["--append", "quiet jlbench.clients=4"],
     "jlbench.clients is set by --clients"),
    (["--append", "jlbench.bogus=1"], "jlbench.bogus is not one of"),
    (["--append", 'x="a b"'], "a word with a quote"),
    (["--append", "x='1'"], "a word with a quote"),
    (["--append", "a\nb"], "a newline"),
])
def test_usage_errors(setup, extra, msg):
    tmp, base, env, script = setup
    p = run(base + extra, env=env, check=False)
    assert p.returncode == 2 and msg in p.stderr, p.stderr


def test_input_errors(setup):
    tmp, base, env, script = setup
    p = run(base + ["--variants", "nope"], env=env, check=False)
    assert p.returncode == 1 and "nope" in p.stderr
    p = run([RUN, "--builds", str(tmp / "missing.tsv"), "--initramfs", "x"],
            env=env, check=False)
    assert p.returncode == 1 and "missing.tsv" in p.stderr


def test_plugin_counts_reach_runs_csv(setup):
    tmp, base, env, script = setup
    os.environ["JLBENCH_QEMU"] = str(STANDIN)
    builds = read_builds(str(tmp / "builds.tsv"))
    images = read_images(str(tmp / "img.cpio.gz"), list(builds))
    resdir = results.ResultsDir.create(str(tmp / "r"), [])
    params = {"clients": 2, "seconds": 1, "perf": "none", "perf_events": []}
    ctx = runner.Context("icount", params, 1, builds, images, resdir,
                         Log(quiet=True), plugin="/fake/branches.so",
                         timeout=30, qemu_bin=str(STANDIN))
    p = plan.make([("jump-label", "jump-label")], 1, 4, True)
    row = runner.one_try(ctx, p[0], 1)
    assert row["status"] == "ok", row["reason"]
    assert row["kernel_insns"] == 1000 + p[0].perturb_seed
    assert row["plugin_window"] == 1 and row["site_execs"] == "not-counted"
    script.write_text("error\n")
    env_script = os.environ.get("STANDIN_SCRIPT")
    os.environ["STANDIN_SCRIPT"] = str(script)
    try:
        row = runner.one_try(ctx, p[0], 2)
    finally:
        if env_script is None:
            del os.environ["STANDIN_SCRIPT"]
        del os.environ["JLBENCH_QEMU"]
    assert row["status"] == "failed" and "kernel_insns" not in row


def test_bench_overhead_on_a_results_dir(setup):
    tmp, base, env, script = setup
    run(base + ["--no-aa",
                "--accel", "icount", "--boots", "3", "--seconds", "1",
                "--no-plugin"], env=env)
    d = (tmp / "out").read_text().strip()
    overhead = str(ROOT / "bench" / "timing" / "bench-overhead")
    p = run([overhead, d])
    out = p.stdout
    assert "harness overhead per try (icount, tbench 1 s)" in out
    assert "spread across perturbation seeds" in out
    # the stand-in's throughput depends on the seed only: every pair is equal
    assert "jump-label     +0.000 %  +- 0.000 %  (n=3)" in out
    assert run([overhead, str(tmp / "no")], check=False).returncode == 2


def test_tbench_runs_refuse_builds_of_another_arch(setup):
    tmp_path, base, env, _ = setup
    (tmp_path / "builds" / "plain-read" / "build.json").write_text(
        json.dumps({"hash": "hs390", "boot_args": "", "arch": "s390x"}))
    p = run(base + ["--no-aa", "--accel", "tcg"], env=env, check=False)
    assert p.returncode == 1
    assert "plain-read is an s390x build" in p.stderr
    assert not (tmp_path / "results").exists()


def test_progress_prints_the_modes_headline():
    """The progress line's figure is the accelerator's headline: operations per
    guest second under icount (MB/s beside it), MB/s under kvm and tcg, a
    pipe run's microseconds per round trip."""
    row = {"accel": "icount", "ops": "164100", "seconds": "20",
           "throughput_mbps": "41.49", "pipe_usecs_per_op": ""}
    assert runner.figure(row) == "8205.0 ops/s (41.49 MB/s)"
    assert runner.figure(dict(row, accel="tcg")) == "41.49 MB/s"
    assert runner.figure(dict(row, pipe_usecs_per_op="5.1")) == \
        "5.1 us per pipe round trip"
