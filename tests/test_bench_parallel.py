"""bench/run --jobs N with the stand-in QEMU: guests side by side.

The stand-in's $STANDIN_RUNS picks a behaviour per run and try (whatever
order the calls come in), $STANDIN_SLEEP holds every ok guest so that
guests overlap, and $STANDIN_TRACE records when each one starts and ends.
Real boots side by side: test_bench_parallel_boot.py.
"""
import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, run
import test_bench_run
from test_bench_execute import gone
from test_bench_run import RUN, rows

sys.path.insert(0, str(ROOT))
from bench.guest import parallel  # noqa: E402
from bench.tries import runner  # noqa: E402
from bench.tries.plan import Run  # noqa: E402
from lib.format import identity, rawfiles, results  # noqa: E402
from lib.log import Log  # noqa: E402

setup = test_bench_run.setup      # the fixture: builds, image, stand-in
ICOUNT = ["--no-aa", "--accel", "icount", "--seconds", "1", "--no-plugin",
          "--seed", "11"]


def trace(path):
    """[(start|end, run, try, pid)] from $STANDIN_TRACE."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [(w, int(i), int(k), int(p)) for w, i, k, p in
                (ln.split() for ln in f)]


def most_at_once(events):
    n = top = 0
    for what, *_ in events:
        n += 1 if what == "start" else -1
        top = max(top, n)
    return top


def parallel_env(env, tmp, **extra):
    return dict(env, STANDIN_TRACE=str(tmp / "trace"), **extra)


def test_jobs_run_every_run_once_side_by_side(setup):
    tmp, base, env, _ = setup
    env = parallel_env(env, tmp, STANDIN_SLEEP="0.5")
    p = run(base + ICOUNT + ["--boots", "3", "--jobs", "3"], env=env)
    d = (tmp / "out").read_text().strip()
    r = rows(d)
    assert sorted(int(x["index"]) for x in r) == list(range(1, 10))
    assert {x["status"] for x in r} == {"ok"} and {x["try"] for x in r} \
        == {"1"}
    # Whole rows: every line of both files parses to the header's width.
    for name in ("runs.csv", "samples.csv"):
        with open(os.path.join(d, name), newline="") as f:
            lines = list(csv.reader(f))
        assert {len(x) for x in lines} == {len(lines[0])}, name
    assert len(lines) == 1 + 9 * 3
    assert most_at_once(trace(tmp / "trace")) == 3
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["runner"]["jobs"] == 3 and meta["sessions"][0]["jobs"] == 3
    assert "3 at once" in p.stderr
    # The same plan one at a time gives the same rows, in plan order.
    (tmp / "trace").unlink()
    run(base + ICOUNT + ["--boots", "3", "--jobs", "1"], env=env)
    one = rows((tmp / "out").read_text().strip())
    assert [x["index"] for x in one] == [str(i) for i in range(1, 10)]
    figures = ("index", "label", "perturb_seed", "throughput_mbps", "ops")
    assert sorted([x[c] for c in figures] for x in one) == sorted(
        [x[c] for c in figures] for x in r)
    assert most_at_once(trace(tmp / "trace")) == 1


def test_wall_clock_modes_run_one_guest_and_say_why(setup):
    tmp, base, env, _ = setup
    env = parallel_env(env, tmp, STANDIN_SLEEP="0.3")
    p = run(base + ["--no-aa", "--accel", "tcg", "--boots", "1",
                    "--seconds", "1", "--jobs", "4"], env=env)
    assert "--jobs 4: tcg measures wall-clock time" in p.stderr
    assert "running one guest at a time" in p.stderr
    assert most_at_once(trace(tmp / "trace")) == 1
    d = (tmp / "out").read_text().strip()
    assert json.load(open(os.path.join(d, "meta.json")))["runner"][
        "jobs"] == 1
    assert len(rows(d)) == 3


def test_interrupt_with_two_in_flight_keeps_the_finished_run(setup):
    tmp, base, env, _ = setup
    env = parallel_env(env, tmp, STANDIN_RUNS="2.1=hang,3.1=hang")
    proc = subprocess.Popen(base + ICOUNT + ["--boots", "1", "--jobs", "2"],
                            env=env, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while {i for w, i, _, _ in trace(tmp / "trace") if w == "start"} \
            != {1, 2, 3}:
        assert time.monotonic() - t0 < 20, trace(tmp / "trace")
        time.sleep(0.05)
    while len(rows((tmp / "out").read_text().strip())) < 1:
        assert time.monotonic() - t0 < 20
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "tries in flight were discarded" in err
    d = (tmp / "out").read_text().strip()
    assert [(x["index"], x["status"]) for x in rows(d)] == [("1", "ok")]
    raw = rawfiles.listdir(os.path.join(d, "raw"))
    assert raw and not [f for f in raw if f.startswith(("002-", "003-"))]
    hung = [p for w, i, _, p in trace(tmp / "trace") if i in (2, 3)]
    assert len(hung) == 2 and all(gone(p) for p in hung)
    with open(os.path.join(d, "samples.csv")) as f:
        assert len(f.read().splitlines()) == 1 + 3
    run([RUN, "--resume", d, "--jobs", "2"] + base[1:],
        env=dict(env, STANDIN_RUNS=""))
    assert sorted((x["index"], x["try"], x["status"]) for x in rows(d)) == [
        ("1", "1", "ok"), ("2", "1", "ok"), ("3", "1", "ok")]
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert [s["outcome"] for s in meta["sessions"]] == ["interrupted",
                                                        "complete"]


def two_at_once(setup, extra, **standin):
    """bench/run of 6 runs, 2 at once, the stand-in set by STANDIN_*
    keywords: (process, results dir, environment)."""
    tmp, base, env, _ = setup
    env = parallel_env(env, tmp, **standin)
    p = run(base + ICOUNT + ["--boots", "2", "--jobs", "2"] + extra,
            env=env, check=False)
    return p, (tmp / "out").read_text().strip(), env


def test_retries_and_resume_side_by_side(setup):
    p, d, env = two_at_once(setup, ["--retries", "1"], STANDIN_SLEEP="0.2",
                            STANDIN_RUNS="2.1=crash,2.2=panic,4.1=error")
    assert p.returncode == 1 and "1 runs failed all tries" in p.stderr
    got = sorted((int(x["index"]), int(x["try"]), x["status"])
                 for x in rows(d))
    assert got == [(1, 1, "ok"), (2, 1, "failed"), (2, 2, "failed"),
                   (3, 1, "ok"), (4, 1, "failed"), (4, 2, "ok"),
                   (5, 1, "ok"), (6, 1, "ok")]
    p = run([RUN, "--resume", d] + setup[1][1:], env=env)
    assert "1 of 6 runs left" in p.stderr
    assert [(x["index"], x["try"], x["status"]) for x in rows(d)][-1] == (
        "2", "3", "ok")


def test_three_failed_runs_in_a_row_in_the_order_they_finish(setup):
    """Runs 1, 3 and 4 fail while run 2 (ok, slow) is still running: three
    in a row in the order they finished, though not in plan order. The
    plan stops, and run 2's guest is stopped and leaves nothing."""
    p, d, _ = two_at_once(setup, ["--retries", "0"], STANDIN_SLEEP="30",
                          STANDIN_RUNS="1.1=crash,3.1=crash,4.1=crash")
    assert p.returncode == 1 and "3 runs in a row failed" in p.stderr
    assert sorted((x["index"], x["status"]) for x in rows(d)) == [
        ("1", "failed"), ("3", "failed"), ("4", "failed")]
    assert not [f for f in rawfiles.listdir(os.path.join(d, "raw"))
                if f.startswith("002-")]
    assert all(gone(p) for w, i, _, p in trace(setup[0] / "trace")
               if i == 2)


def test_an_ok_run_resets_the_count_in_the_order_runs_finish(setup):
    """Runs 1, 2 fail; 3 ends ok while 4 hangs until its timeout; 5 fails,
    6 is ok, 4 times out: never three in a row."""
    p, d, _ = two_at_once(
        setup, ["--retries", "0", "--timeout", "2"],
        STANDIN_RUNS="1.1=crash,2.1=crash,4.1=hang,5.1=crash")
    assert p.returncode == 1 and "4 runs failed all tries" in p.stderr, \
        p.stderr
    assert len(rows(d)) == 6


def test_appends_from_threads_stay_whole(tmp_path):
    resdir = results.ResultsDir.create(str(tmp_path / "r"), [])
    big = "x" * 5000

    def writer(n):
        for k in range(50):
            resdir.append_run({"index": n, "try": k, "reason": big})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    r = resdir.rows()
    assert len(r) == 400 and {x["reason"] for x in r} == {big}


def test_pool_order_stop_and_errors():
    assert parallel.run([3, 1, 2], 2, lambda x, stopped: x * 10) == [
        30, 10, 20]
    assert parallel.jobs_for("icount", 5) == (5, "")
    assert parallel.jobs_for("icount")[0] == parallel.cpus()
    assert parallel.jobs_for("kvm") == (1, "")
    assert parallel.jobs_for("kvm", 2)[0] == 1
    seen = []

    def work(x, stopped):
        if x == 0:
            raise OSError("disk full")
        while not stopped():          # a guest that runs until stopped
            time.sleep(0.01)
        seen.append(x)

    with pytest.raises(OSError):
        parallel.run([1, 0, 2, 3], 2, work, poll=0.01)
    assert seen == [1]                # 2 and 3 were never started


class FakeCtx:
    log = Log(quiet=True)


def test_progress_line_and_eta():
    p = runner.Progress(FakeCtx(), total=10, pending=6, estimate=60.0,
                        jobs=2)
    r1 = Run(5, 2, 1, "jump-label", "jump-label", 7, 20)
    r2 = Run(6, 2, 2, "atomic-read", "atomic-read.aa", 8, 20)
    now = time.monotonic()
    assert p.eta(now) == pytest.approx(6 * 60.0 / 2)
    p.start(r1)
    p.start(r2)
    p.finish(r1, {"status": "ok", "wall_seconds": "40.0",
                  "throughput_mbps": "50.1"}, True)
    p.finish(r2, {"status": "failed", "wall_seconds": "20.0"}, False)
    assert p.eta(time.monotonic()) == pytest.approx(5 * 30.0 / 2)
    p.start(r2)
    line = p.line()
    assert line.startswith("runs 5/10 done, 1 in flight (6:atomic-read.aa),"
                           " 1 failed tries")
    assert "(2 at once)" in line and "last 50.1 MB/s" in line
    p.left = 1
    assert p.eta(time.monotonic()) == pytest.approx(30.0, abs=0.5)


def test_bench_parallel_times_both_legs_and_checks_identity(setup):
    tmp, base, env, _ = setup
    env = parallel_env(env, tmp, STANDIN_SLEEP="0.5")
    tool = str(ROOT / "bench" / "timing" / "bench-parallel")
    args = [tool, "--builds", base[2], "--initramfs", base[4],
            "--results-root", str(tmp / "bp"), "--boots", "2",
            "--seconds", "1", "--no-aa", "--no-plugin"]
    p = run(args, env=env)
    assert "plan: 6 runs (0 with plugin reports)" in p.stdout
    # The ratio is wall time: printed, never asserted (the machine is
    # shared); that the second leg ran two guests at once is checked below.
    assert float(p.stdout.split("--jobs 2 wall: ")[1].split("x")[0]) > 0
    assert "per-run figures identical: 6 runs in 2 dirs" in p.stdout
    assert "serial consoles identical: yes" in p.stdout
    assert most_at_once(trace(tmp / "trace")) == 2
    p = run(args + ["--repeat", "2"], env=env)
    assert "per-run figures identical: 6 runs in 4 dirs" in p.stdout
    assert "speed-up of each pair: " in p.stdout
    assert "(median of 2 pairs)" in p.stdout
    for bad in (["--jobs", "1"], ["--repeat", "0"]):
        assert run(args + bad, env=env, check=False).returncode == 2


def test_identity_names_every_difference(setup):
    tmp, base, env, _ = setup
    dirs = []
    for jobs in ("1", "2"):
        run(base + ICOUNT + ["--boots", "2", "--jobs", jobs], env=env)
        dirs.append((tmp / "out").read_text().strip())
    a, b = dirs
    assert identity.differences(a, b) == [] and identity.consoles(a, b) == []
    runs_csv = os.path.join(b, "runs.csv")
    text = open(runs_csv).read().splitlines(True)
    first = text[1].split(",")
    seed = first[6]
    cell = first.index("100")                      # the stand-in's ops
    first[cell] = "101"
    text[1] = ",".join(first)
    open(runs_csv, "w").write("".join(text[:-1]))  # and the last run gone
    out = identity.differences(a, b)
    label = first[4]
    assert "%s seed %s 1 s: row ops: '100' vs '101'" % (label, seed) in out
    assert len(out) == 1 + 1            # the last run is missing in b
    assert out[0].endswith("no ok run in %s" % b)
    with open(os.path.join(b, "samples.csv"), "a") as f:
        f.write("%s,x,%s,9,1.0,0\n" % (first[0], label))
    assert any("samples differ from sample 4" in x
               for x in identity.differences(a, b))


def _dir_with_counts(path, counts):
    """A results dir of one ok run whose plugin report is counts."""
    os.makedirs(path / "raw")
    (path / "runs.csv").write_text(
        "index,try,variant,label,perturb_seed,status,ops\n"
        "1,1,jump-label,jump-label,7,ok,100\n")
    (path / "samples.csv").write_text("index,second,throughput_mbps,warmup\n")
    (path / "raw" / "001-jump-label-try1.counts").write_text(
        "".join("%s=%s\n" % kv for kv in counts.items()))
    return str(path)


def test_whole_run_counters_are_boot_tails_not_figures(tmp_path):
    window = {"kernel_insns": "500", "site_execs": "7"}
    a = _dir_with_counts(tmp_path / "a", dict(
        window, total_kernel_insns="900", tbs_translated="40"))
    b = _dir_with_counts(tmp_path / "b", dict(
        window, total_kernel_insns="976", tbs_translated="40"))
    assert identity.differences(a, b) == []
    assert identity.boot_tails(a, b) == [
        "jump-label seed 7  s: whole_run total_kernel_insns: '900' vs '976'"]
    c = _dir_with_counts(tmp_path / "c", dict(
        window, kernel_insns="501", total_kernel_insns="900",
        tbs_translated="40"))
    assert identity.differences(a, c) == [
        "jump-label seed 7  s: counts kernel_insns: '500' vs '501'"]
