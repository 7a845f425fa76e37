"""lib/format/console.py: result blocks and kernel trouble in console logs."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from lib.format import console  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "bench"


def load(name):
    return (FIX / name).read_text()


def test_good_block_with_interleaved_kernel_message():
    rep = console.parse(load("synthetic-ok.log"))
    assert rep.complete and rep.blocks == 1 and rep.fatal is None
    assert rep.block["throughput_mbps"] == "48.1234"
    assert rep.block["perf.task_clock"] == "4012.5"
    assert rep.block["perf.branches"] == "not-supported"
    assert "random: crng init done" not in str(rep.block)
    assert console.verdict(rep, "QEMU exited with status 0") == ("ok", "")
    assert console.samples(rep.block, "samples_mbps") == [47.1, 48.0, 48.1]
    assert console.samples(rep.block, "warmup_samples_mbps") == [40.5]
    assert console.samples(rep.block, "absent") == []
    assert console.agent_started(load("synthetic-ok.log"))


def test_error_block():
    rep = console.parse(load("synthetic-error.log"))
    status, reason = console.verdict(rep, "QEMU exited with status 0")
    assert status == "failed"
    assert reason == "guest error: jlbench.clients: 'abc' is not a number"


def test_panic():
    text = load("synthetic-panic.log")
    rep = console.parse(text)
    assert rep.block is None
    status, reason = console.verdict(rep, "QEMU exited with status 0")
    assert status == "failed"
    assert reason.startswith("kernel panic: Attempted to kill init!")
    assert not console.agent_started(text)


def test_oops_after_an_ok_block_fails_the_run():
    rep = console.parse(load("synthetic-oops-after-block.log"))
    assert rep.complete
    status, reason = console.verdict(rep, "QEMU exited with status 0")
    assert status == "failed"
    assert reason == "kernel BUG: kernel NULL pointer dereference, " \
        "address: 0000000000000008"


def test_truncated_block():
    rep = console.parse(load("synthetic-truncated.log"))
    assert rep.block is not None and not rep.complete
    status, reason = console.verdict(rep, "killed at the 300 s timeout")
    assert status == "failed"
    assert reason == "truncated result block; killed at the 300 s timeout"


def test_no_block_names_how_qemu_ended_and_the_last_line():
    rep = console.parse("SeaBIOS\nBooting from ROM..\n[ 1.0] Decompressing\n")
    status, reason = console.verdict(rep, "killed at the 60 s timeout")
    assert status == "failed"
    assert "killed at the 60 s timeout" in reason
    assert "Decompressing" in reason
    assert console.verdict(console.parse(""), "x")[0] == "failed"


def test_warnings_are_counted_not_fatal():
    rep = console.parse(load("synthetic-warning.log"))
    assert rep.warnings == ["WARN: net/core/dev.c:1234 foo+0x10/0x20"]
    assert console.verdict(rep, "x") == ("ok", "")


@pytest.mark.parametrize("lines, why", [
    (["protocol=2", "status=ok", "throughput_mbps=1"], "protocol"),
    (["protocol=1", "status=maybe", "throughput_mbps=1"], "status"),
    (["protocol=1", "status=ok"], "throughput_mbps"),
    (["protocol=1", "status=ok", "throughput_mbps=nan"], "throughput_mbps"),
    (["protocol=1", "status=ok", "throughput_mbps=0"], "throughput_mbps"),
    (["protocol=1", "status=ok", "mode=selftest", "throughput_mbps=1"],
     "mode"),
])
def test_malformed_blocks(lines, why):
    text = "\n".join(["JLBENCH-BEGIN"] + lines + ["JLBENCH-END"])
    status, reason = console.verdict(console.parse(text), "x")
    assert status == "failed" and why in reason


def test_two_blocks_fail():
    one = "JLBENCH-BEGIN\nprotocol=1\nstatus=ok\nthroughput_mbps=1\n" \
          "JLBENCH-END\n"
    status, reason = console.verdict(console.parse(one + one), "x")
    assert status == "failed" and "2 result blocks" in reason


def test_crlf_and_bad_samples():
    text = "JLBENCH-BEGIN\r\nprotocol=1\r\nstatus=ok\r\n" \
           "throughput_mbps=2.5\r\nsamples_mbps=1,x\r\nJLBENCH-END\r\n"
    rep = console.parse(text)
    assert console.verdict(rep, "x") == ("ok", "")
    with pytest.raises(ValueError):
        console.samples(rep.block, "samples_mbps")


# Real console logs: the smoke jump-label kernel and the guest image under
# icount (tbench 2 clients, 3 s); the error and panic boots got bad kernel
# arguments (jlbench.clients twice; rdinit=/nonexistent).
def test_real_ok_log():
    text = load("real-icount-ok.log")
    rep = console.parse(text)
    assert console.verdict(rep, "QEMU exited with status 0") == ("ok", "")
    b = rep.block
    assert (b["variant"], b["clients"], b["seconds"]) == (
        "jump-label", "2", "3")
    assert b["throughput_mbps"] == "64.6096"
    assert console.samples(b, "samples_mbps") == [81.14, 64.61]
    assert console.samples(b, "warmup_samples_mbps") == []
    assert b["perf.branches"] == "not-supported"
    assert rep.warnings == [] and console.agent_started(text)


def test_real_error_log():
    rep = console.parse(load("real-error.log"))
    assert console.verdict(rep, "x") == (
        "failed", "guest error: bad kernel command line: jlbench.clients "
        "given twice")


def test_real_panic_log():
    text = load("real-panic.log")
    rep = console.parse(text)
    assert console.verdict(rep, "x") == (
        "failed", "kernel panic: VFS: Unable to mount root fs on "
        "unknown-block(0,0)")
    assert not console.agent_started(text)
