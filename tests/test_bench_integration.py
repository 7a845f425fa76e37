"""bench/run with real smoke kernels under icount (short tbench).

Kernels and image come from conftest's smoke fixtures (kernel-variants/build
--config smoke, cached, or JLBENCH_SMOKE_BUILDS=FILE; guest-image/build).
Every test holds the CPUs it boots on (conftest.cpu_lock), so it never
overlaps a kernel build. That a seed gives the same bits in every boot is
test_bench_parallel_boot's.
"""
import csv
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import ROOT, cpu_lock, run

pytestmark = pytest.mark.integration

RUN = str(ROOT / "bench" / "run")
VARIANTS = ("jump-label", "atomic-read", "plain-read")
SHORT = ["--accel", "icount", "--clients", "2", "--seconds", "2",
         "--quiet", "--timeout", "600"]


def base(builds_tsv, image, tmp_path):
    return [RUN, "--builds", builds_tsv, "--initramfs", image,
            "--results-root", str(tmp_path / "results"),
            "--out", str(tmp_path / "out")]


def rows(d):
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_every_variant_one_run_with_branch_counts(smoke_builds_tsv,
                                                  smoke_image, tmp_path):
    with cpu_lock():
        run(base(smoke_builds_tsv, smoke_image, tmp_path) + SHORT + [
            "--boots", "1", "--seed", "2", "--variants", ",".join(VARIANTS),
            "--no-aa"])
    d = (tmp_path / "out").read_text().strip()
    r = {x["variant"]: x for x in rows(d)}
    assert sorted(r) == sorted(VARIANTS)
    meta = json.load(open(os.path.join(d, "meta.json")))
    plugin = bool(meta["plugin"]["path"])
    for v, x in r.items():
        assert x["status"] == "ok", x["reason"]
        assert x["accel"] == "icount" and float(x["throughput_mbps"]) > 0
        assert int(x["ops"]) > 0 and float(x["boot_seconds"]) > 0
        if plugin:
            assert x["plugin_window"] == "1"
            assert int(x["kernel_insns"]) > 0 and int(x["user_branches"]) > 0
    if plugin:
        # static-key sites: counted in the jump-label kernel only
        assert int(r["jump-label"]["site_execs"]) > 0
        assert r["atomic-read"]["site_execs"] == "not-counted"
    assert len({x["perturb_seed"] for x in r.values()}) == 1


def wait_for(cond, what, limit=600):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < limit, "timed out waiting for " + what
        time.sleep(0.2)


def agent_running(path):
    try:
        with open(path, errors="replace") as f:
            return "jlbench: " in f.read()
    except FileNotFoundError:
        return False


def qemu_pid(log_path):
    """The pid of the QEMU process whose -serial is log_path."""
    want = ("file:%s" % log_path).encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if want in argv:
            return int(pid)
    return None


def test_killed_qemu_is_retried_and_resume_finishes(smoke_builds_tsv,
                                                    smoke_image, tmp_path):
    cmd = base(smoke_builds_tsv, smoke_image, tmp_path) + SHORT + [
        "--boots", "2", "--variants", "jump-label", "--no-plugin", "--no-aa",
        "--seed", "3", "--jobs", "1"]   # run 2 starts when run 1 is done
    with cpu_lock(cores=1):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            out = tmp_path / "out"
            wait_for(out.exists, "the results dir")
            d = out.read_text().strip()
            log1 = os.path.join(d, "raw", "001-jump-label-try1.log")
            wait_for(lambda: agent_running(log1), "the agent of run 1")
            pid = qemu_pid(log1)
            assert pid, "no QEMU process for " + log1
            os.kill(pid, signal.SIGKILL)
            log2 = os.path.join(d, "raw", "002-jump-label-try1.log")
            wait_for(lambda: agent_running(log2), "the agent of run 2")
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130, err
    assert "--resume" in err
    r = rows(d)
    assert [(x["index"], x["try"], x["status"]) for x in r] == [
        ("1", "1", "failed"), ("1", "2", "ok")], r
    assert "no result block" in r[0]["reason"]
    assert not os.path.exists(log2)
    with cpu_lock(cores=1):
        run([RUN, "--resume", d, "--builds", smoke_builds_tsv,
             "--initramfs", smoke_image, "--quiet"])
    r = rows(d)
    assert [(x["index"], x["try"], x["status"]) for x in r] == [
        ("1", "1", "failed"), ("1", "2", "ok"), ("2", "1", "ok")]
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert [s["outcome"] for s in meta["sessions"]] == ["interrupted",
                                                        "complete"]
