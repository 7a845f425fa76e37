"""Integration: the guest image booted with the smoke kernels under TCG.

Builds come from kernel-variants/build --config smoke (cached; the file
named by JLBENCH_SMOKE_BUILDS, a builds.tsv, is used instead when set).
Every boot holds one CPU (conftest.cpu_lock), has a hard timeout, and must
end with QEMU exiting by itself. The selftest mode's boots are
test_module_boot's (one per kernel, shared with test_model_validation); a
seed's repeat under icount is test_bench_parallel_boot's.
"""
import os
import re
import subprocess
import sys
import time

import pytest

from conftest import ROOT, cpu_lock, run

sys.path.insert(0, str(ROOT))
from lib.format import console  # noqa: E402

pytestmark = pytest.mark.integration

BASE = "console=ttyS0 panic=-1 nokaslr"
HW_EVENTS = ("branches", "instructions", "cycles")


@pytest.fixture(scope="module")
def builds(smoke_builds):
    return smoke_builds


@pytest.fixture(scope="module")
def image(smoke_image):
    return smoke_image


def test_bench_boot_script(builds, image):
    """bench/timing/bench-boot: the module's first test, so that it holds
    both CPUs (its boot is timed alone) before the nested machine, which
    holds one for minutes, begins beside it."""
    with cpu_lock():
        p = run([str(ROOT / "bench" / "timing" / "bench-boot"), "--kernel",
                 os.path.join(builds["jump-label"], "bzImage"), "--image",
                 image, "--runs", "1", "--no-lock"])
    lines = p.stdout.splitlines()
    assert lines[0].startswith("initramfs %s: " % image)
    row = lines[2].split()
    assert row[:2] == ["tcg", "1"] and row[-1] == "ok", p.stdout
    assert 0 < float(row[2]) < 60 and 0 <= float(row[4]) < 10


class Boot:
    """One finished boot: QEMU's exit, wall time, console text and report."""

    def __init__(self, rc, wall, text):
        self.rc = rc
        self.wall = wall
        self.text = text
        self.rep = console.parse(text)
        self.block = self.rep.block or {}


def boot(kernel_dir, image, append, tmp_path, timeout=300, extra=()):
    log = tmp_path / ("console-%d.log" % time.monotonic_ns())
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512", "-smp", "1",
           "-nodefaults", "-nographic", "-no-reboot",
           "-serial", "file:%s" % log,
           "-kernel", os.path.join(kernel_dir, "bzImage"), "-initrd", image,
           "-append", "%s %s" % (BASE, append)] + list(extra)
    with cpu_lock(cores=1):
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail("QEMU still running after %d s: %s"
                        % (timeout, log.read_text(errors="replace")[-3000:]))
        wall = time.monotonic() - start
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return Boot(p.returncode, wall, log.read_text(errors="replace"))


def number(value):
    assert re.fullmatch(r"\d+(\.\d+)?", value or ""), value
    return float(value)


def assert_common(b, variant, mode):
    assert b.rep.complete and b.rep.blocks == 1, b.text[-3000:]
    assert b.rep.fatal is None, b.rep.fatal
    assert b.block["protocol"] == "1"
    assert b.block["mode"] == mode
    assert b.block["variant"] == variant
    assert b.block["kernel"].startswith("6.1.")
    assert b.block["proc_version"].startswith("Linux version 6.1.")
    assert "jlbench.variant=%s" % variant in b.block["cmdline"]
    assert 0 < number(b.block["uptime_agent_start_s"]) < 30


def test_tbench_block(builds, image, tmp_path):
    """jump-label under plain TCG (test_bench_integration boots every
    kernel under icount, through bench/run)."""
    variant = "jump-label"
    events = "task-clock,context-switches," + ",".join(HW_EVENTS)
    b = boot(builds[variant], image,
             "jlbench.mode=tbench jlbench.clients=2 jlbench.seconds=5 "
             "jlbench.variant=%s jlbench.perf=%s" % (variant, events),
             tmp_path)
    assert console.verdict(b.rep, "QEMU exited") == ("ok", ""), \
        b.text[-3000:]
    assert_common(b, variant, "tbench")
    blk = b.block
    assert blk["status"] == "ok"
    assert (blk["clients"], blk["seconds"], blk["perturb"]) == ("2", "5", "0")
    assert number(blk["throughput_mbps"]) > 0
    assert number(blk["max_latency_ms"]) > 0
    assert number(blk["ops"]) > 0
    samples = console.samples(blk, "samples_mbps")
    assert len(samples) >= 3 and all(x > 0 for x in samples), samples
    start = number(blk["uptime_tbench_start_s"])
    end = number(blk["uptime_tbench_end_s"])
    assert end - start >= 5
    ticks = {k: number(v) for k, v in blk.items() if k.startswith("stat.")}
    assert len(ticks) == 8 and sum(ticks.values()) > 0, ticks
    # The tbench lines were streamed to the console as progress.
    assert "jlbench: tbench: Throughput " in b.text
    # Software counters count; hardware ones are what the guest kernel
    # says: with no PMU driver they must be not-supported, never a number.
    assert number(blk["perf.task_clock"]) > 0
    assert number(blk["perf.context_switches"]) > 0
    no_pmu = "software events only" in b.text
    for ev in HW_EVENTS:
        if no_pmu:
            assert blk["perf." + ev] == "not-supported", blk
        else:
            assert blk["perf." + ev] in ("not-supported", "not-counted") \
                or number(blk["perf." + ev]) > 0


def assert_error(b, reason_part):
    assert b.rep.complete and b.rep.blocks == 1, b.text[-3000:]
    assert b.block["status"] == "error", b.block
    assert reason_part in b.block["reason"], b.block["reason"]
    assert b.block["kernel"].startswith("6.1.")
    assert console.verdict(b.rep, "QEMU exited")[0] == "failed"


def test_bad_parameter_is_an_error_and_powers_off(builds, image, tmp_path):
    b = boot(builds["jump-label"], image,
             "jlbench.clients=abc jlbench.variant=jump-label", tmp_path,
             timeout=120)
    assert_error(b, "jlbench.clients: 'abc'")
    assert "jlbench: tbench:" not in b.text, "tbench ran anyway"
    assert b.wall < 60


def test_failing_child_is_an_error(builds, image, tmp_path):
    """perf stat rejects an unknown event and exits non-zero."""
    b = boot(builds["jump-label"], image,
             "jlbench.clients=2 jlbench.seconds=3 jlbench.perf=nosuchevent "
             "jlbench.variant=jump-label", tmp_path, timeout=120)
    assert_error(b, "perf stat (tbench) exited with status")


def test_guest_timeout_is_an_error(builds, image, tmp_path):
    """timeout=0 leaves tbench no time beyond its own seconds."""
    b = boot(builds["jump-label"], image,
             "jlbench.clients=2 jlbench.seconds=3 jlbench.timeout=0 "
             "jlbench.variant=jump-label", tmp_path, timeout=120)
    assert_error(b, "tbench did not finish within 3 s")
