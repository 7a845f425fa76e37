"""bench/run --executor slurm on a real two-node Slurm cluster on this host.

The cluster (tests/slurm/cluster: munged, slurmctld, slurmd -N n1 and n2,
in a temp dir, non-default ports) starts once per session and is stopped
by pid at the end. The stand-in QEMU (tests/fixtures/bench/) makes the
bookkeeping tests take seconds: plan, pairing, retries, rows merged in
plan order, Ctrl-C, --resume, lost tasks. The integration test boots the
smoke kernels with --executor local and --executor slurm and requires the
same bits per run (lib/format/identity.py).
"""
import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import types

import pytest

from conftest import ROOT, run
import test_bench_run
from test_bench_run import RUN, rows

sys.path.insert(0, str(ROOT))
from bench.tries import slurm, slurmtask  # noqa: E402
from bench.tries.plan import Run  # noqa: E402
from lib.format import identity  # noqa: E402

# The modules that start a cluster (the session's `cluster`) go to one
# pytest worker, which starts it once.
pytestmark = pytest.mark.xdist_group("slurm")
CLUSTER = str(ROOT / "tests" / "slurm" / "cluster")
PLAN = ["--accel", "icount", "--boots", "2", "--seconds", "1", "--seed", "5",
        "--no-plugin", "--no-aa"]
WHERE = ("host", "wall_seconds", "started_utc")
setup = test_bench_run.setup


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """SLURM_CONF of a running two-node cluster (skips without Slurm)."""
    if os.geteuid() != 0 or not all(shutil.which(c) for c in (
            "slurmctld", "slurmd", "munged", "sbatch")):
        pytest.skip("needs root and slurm-wlm + munge (lib/deps)")
    d = tmp_path_factory.mktemp("slurm")
    p = run([CLUSTER, "start", str(d)])
    conf = p.stdout.strip().split("=", 1)[1]
    yield conf
    run([CLUSTER, "stop", str(d)])


def slurm_env(env, conf, **extra):
    return dict(env, SLURM_CONF=conf, **extra)


def where_free(r):
    return [{c: v for c, v in x.items() if c not in WHERE} for x in r]


def test_same_plan_rows_and_retries_as_local_in_plan_order(setup, cluster):
    tmp, base, env, _ = setup
    env = dict(env, STANDIN_RUNS="2.1=crash,2.2=panic,5.1=error")
    p = run(base + PLAN + ["--jobs", "1"], env=env)
    local = (tmp / "out").read_text().strip()
    p = run(base + PLAN + ["--executor", "slurm"],
            env=slurm_env(env, cluster))
    d = (tmp / "out").read_text().strip()
    assert d != local
    r = rows(d)
    assert where_free(r) == where_free(rows(local))
    assert [(x["index"], x["try"], x["status"]) for x in r] == [
        ("1", "1", "ok"), ("2", "1", "failed"), ("2", "2", "failed"),
        ("2", "3", "ok"), ("3", "1", "ok"), ("4", "1", "ok"),
        ("5", "1", "failed"), ("5", "2", "ok"), ("6", "1", "ok")]
    assert {x["host"] for x in r} == {"n1", "n2"}
    assert all(x["qemu_version"].startswith("QEMU emulator version")
               for x in r)
    for name in ("plan.csv", "samples.csv"):
        with open(os.path.join(d, name)) as a, \
                open(os.path.join(local, name)) as b:
            assert a.read() == b.read(), name
    assert identity.differences(local, d) == []
    assert not os.listdir(os.path.join(d, "slurm", "rows"))
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["runner"]["executor"] == "slurm"
    assert "submitted job" in p.stderr
    run([str(ROOT / "analysis" / "analyze"), d, "--no-history", "--strict"])


def wait_for(cond, what, limit=120):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < limit, "timed out waiting for " + what
        time.sleep(0.2)


@contextlib.contextmanager
def background(cmd, env):
    """bench/run in the background; killed by its pid if the test fails
    before it ended."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def queued(conf, d):
    """Array tasks of results dir d still in squeue."""
    with open(os.path.join(d, "slurm", "jobs.txt")) as f:
        jobs = {ln.split()[1] for ln in f}
    out = subprocess.run(["squeue", "-h", "-r", "-o", "%F"], text=True,
                         capture_output=True, check=True,
                         env=dict(os.environ, SLURM_CONF=conf)).stdout
    return [j for j in out.split() if j in jobs]


def test_ctrl_c_cancels_arrays_keeps_finished_runs_resume_ends(
        setup, cluster):
    tmp, base, env, _ = setup
    env = slurm_env(env, cluster, STANDIN_RUNS="3.1=hang,4.1=hang")
    with background(base + PLAN + ["--executor", "slurm", "--jobs", "2"],
                    env) as proc:
        wait_for((tmp / "out").exists, "the results dir")
        d = (tmp / "out").read_text().strip()
        raw = os.path.join(d, "raw")
        wait_for(lambda: len(rows(d)) == 2 and all(os.path.exists(
            os.path.join(raw, "%03d-%s-try1.log" % (i, v))) for i, v in (
                (3, "atomic-read"), (4, "jump-label"))), "runs 3 and 4")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "cancelling Slurm jobs" in err and "--resume" in err
    assert queued(cluster, d) == []
    r = rows(d)
    assert [(x["index"], x["status"]) for x in r] == [
        ("1", "ok"), ("2", "ok")]
    assert sorted({int(n[:3]) for n in os.listdir(raw)}) == [1, 2]
    env["STANDIN_RUNS"] = ""
    run([RUN, "--resume", d, "--builds", str(tmp / "builds.tsv"),
         "--initramfs", str(tmp / "img.cpio.gz"), "--quiet",
         "--executor", "slurm"], env=env)
    r = rows(d)
    assert [(x["index"], x["try"]) for x in r] == [
        (str(i), "1") for i in range(1, 7)]
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert [s["outcome"] for s in meta["sessions"]] == ["interrupted",
                                                        "complete"]


def test_a_task_cancelled_by_hand_is_lost_and_retried(setup, cluster):
    tmp, base, env, _ = setup
    env = slurm_env(env, cluster, STANDIN_RUNS="1.1=hang")
    hung = []

    def hanging():
        hung[:] = tmp.glob("results/*/raw/001-*-try1.log")
        return hung
    with background(base + PLAN + ["--executor", "slurm", "--boots", "1"],
                    env) as proc:
        wait_for((tmp / "out").exists, "the results dir")
        d = (tmp / "out").read_text().strip()
        wait_for(hanging, "the hanging guest")
        job = queued(cluster, d)[0]
        subprocess.run(["scancel", "%s_0" % job], check=True, env=env)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "run 1 try 1: Slurm task %s_0 ended without a row: CANCELLED" \
        % job in err
    assert [(x["index"], x["try"]) for x in rows(d)] == [
        ("1", "2"), ("2", "1"), ("3", "1")]
    assert not hung[0].exists()


def test_usage_errors_and_a_local_path_with_remote_nodes(setup, tmp_path):
    _, base, env, _ = setup
    p = run(base + PLAN + ["--slurm-partition", "x"], check=False, env=env)
    assert p.returncode == 2 and "need --executor slurm" in p.stderr
    p = run(base + PLAN + ["--executor", "slurm", "--slurm-args", "'x"],
            check=False, env=env)
    assert p.returncode == 2 and "--slurm-args" in p.stderr
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/sda1 / ext4 rw 0 0\n"
                      "srv:/home /home nfs4 rw 0 0\n")
    far = {"n1": "node1.example", "n2": "localhost"}
    with pytest.raises(slurm.SlurmError) as e:
        slurm.check_shared([("the checkout", "/home/x"),
                            ("the results root", "/var/results")], far,
                           mounts=str(mounts))
    assert "the results root /var/results is on a local filesystem " \
        "(ext4 at /)" in str(e.value) and "n1" in str(e.value)
    slurm.check_shared([("x", "/home/y")], far, mounts=str(mounts))
    slurm.check_shared([("x", "/var")], far, shared_ok=True,
                       mounts=str(mounts))
    slurm.check_shared([("x", "/var")], {"n1": "localhost"},
                       mounts=str(mounts))


def test_rows_merge_in_plan_order_once(tmp_path):
    from lib.format import results
    d = results.ResultsDir.create(str(tmp_path / "r"), [])
    os.makedirs(slurmtask.folder(d.path, "rows"))
    for index, t in ((3, 1), (1, 2), (2, 1), (1, 1)):
        task = slurmtask.TaskResults(d.path)
        if t == 2 or index != 1:
            task.append_samples(None, [1.5], [2.25, 3.0])
        task.append_run({"index": index, "try": t, "variant": "v",
                         "label": "v", "status": "ok" if t == 2 or index != 1
                         else "failed"})
    assert [(r["index"], r["try"]) for r in slurmtask.merge(d, 2)] == [
        (1, 1), (1, 2)]
    # a merge cut short before the file went: the row is not written twice
    task.append_run({"index": 1, "try": 2, "variant": "v", "label": "v",
                     "status": "ok"})
    assert [(r["index"], r["try"]) for r in slurmtask.merge(d)] == [
        (2, 1), (3, 1)]
    assert [(r["index"], r["try"]) for r in d.rows()] == [
        ("1", "1"), ("1", "2"), ("2", "1"), ("3", "1")]
    with open(d.samples_csv) as f:
        got = [ln.split(",")[0] for ln in f.read().splitlines()[1:]]
    assert got == ["1"] * 3 + ["2"] * 3 + ["3"] * 3
    run = Run(1, 1, 1, "v", "v", 0, 1)
    assert os.path.basename(slurmtask.row_file(d.path, run.index, 2)) == \
        "001-try2.json"
    sub = slurmtask.write_submission(d.path, 1, [(run, 2), (
        types.SimpleNamespace(index=7), 1)])
    assert slurmtask.read_submission(sub, 1) == (7, 1)
    with open(sub) as f:
        assert list(csv.reader(f, delimiter="\t")) == [["0", "1", "2"],
                                                       ["1", "7", "1"]]


def test_sbatch_command():
    args = types.SimpleNamespace(jobs=3, slurm_time=None,
                                 slurm_partition="batch", slurm_account=None,
                                 slurm_args="--qos=long --mem=2G")
    ctx = types.SimpleNamespace(resdir=types.SimpleNamespace(path="/r"),
                                timeout=250.0, smp=1, accel="icount")
    argv = slurm.sbatch_argv(args, ctx, "/r/slurm/task.sh",
                             "/r/slurm/submit-1.tsv", 12, "jlbench-r")
    assert argv[:3] == ["sbatch", "--parsable", "--array=0-11%3"]
    assert "--time=7" in argv and "--partition=batch" in argv
    assert "--exclusive" not in argv and "--no-requeue" in argv
    assert argv[-4:] == ["--qos=long", "--mem=2G", "/r/slurm/task.sh",
                         "/r/slurm/submit-1.tsv"]
    args.slurm_time, args.jobs, ctx.accel, ctx.smp = 30, None, "kvm", 2
    argv = slurm.sbatch_argv(args, ctx, "s", "f", 1, "n")
    assert "--time=30" in argv and "--array=0-0" in argv
    assert "--exclusive" in argv and "--cpus-per-task=2" in argv


def test_run_all_passes_the_executor_options():
    p = run([str(ROOT / "run_all.sh"), "--help"])
    assert "--executor local|slurm" in p.stdout
    p = run([str(ROOT / "run_all.sh"), "--slurm-time"], check=False)
    assert p.returncode == 2 and "--slurm-time needs a value" in p.stderr
