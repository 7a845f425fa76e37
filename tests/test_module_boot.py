"""Integration: the static-key module built for and booted on every smoke
kernel (kernel-variants/module, the agent's selftest mode, bench/selftest).

Builds come from kernel-variants/build --config smoke (cached), or from
JLBENCH_SMOKE_BUILDS; the image from guest-image/build, which builds the
module into each build dir. The selftest boot of every kernel is
conftest's smoke_selftest (test_model_validation reads it too); boots hold
the CPUs they use (conftest.cpu_lock). That --allow-fail turns a failed
check into exit 0 is test_bench_selftest's (a stand-in QEMU).
"""
import csv
import os
import re
import subprocess

import pytest

from conftest import ROOT, SMOKE_VARIANTS, cpu_lock, run
from test_guest_image_boot import Boot, assert_common
from test_module_disasm import loop_counts, objdump

pytestmark = pytest.mark.integration

MODULE_BUILD = str(ROOT / "kernel-variants" / "module" / "build")
SELFTEST = str(ROOT / "bench" / "selftest")
MOD = "jlbench_static_key"
CHECKS = ("default_off", "inc_inc_dec", "dec_disables",
          "enabled_follows_count", "concurrent", "text_patching",
          "bench_branch")


def built_modules(tsv):
    p = run([MODULE_BUILD, "--builds", tsv, "--no-install"])
    return dict(line.split("\t") for line in p.stdout.splitlines())


def test_module_builds_for_every_variant(smoke_builds, smoke_builds_tsv,
                                         cache_dir):
    """One .ko per kernel, its vermagic that kernel's release; with jump
    labels the check compiles to a NOP listed in __jump_table, without to
    a load of the key, a test and a conditional jump."""
    kos = built_modules(smoke_builds_tsv)
    for variant, build_dir in smoke_builds.items():
        ko = kos[os.path.realpath(build_dir)]
        assert ko.startswith(str(cache_dir / "modules") + "/"), ko
        release = open(os.path.join(build_dir, "include", "config",
                                    "kernel.release")).read().strip()
        vermagic = run(["modinfo", "-F", "vermagic", ko]).stdout
        assert vermagic.startswith(release + " "), vermagic
        sections = run(["readelf", "-S", "-W", ko]).stdout
        dis = run(["objdump", "-d", "--no-show-raw-insn", ko]).stdout
        # The loop, up to its return (the out-of-line call and the
        # padding come after it).
        loop = dis.split("<jlb_bench_loop>:\n")[1].split("\tret")[0]
        if variant == "jump-label":
            assert "__jump_table" in sections
            assert re.search(r"\t(xchg   %ax,%ax|nopl   0x0\(%rax,%rax,1\))",
                             loop), loop
        else:
            assert "__jump_table" not in sections
            assert re.search(r"mov    0x0\(%rip\),%e\w\w.*\n.*test   "
                             r"%e(\w\w),%e\1\n.*\tjg ", loop), loop


def test_module_build_is_cached(smoke_builds_tsv):
    first = built_modules(smoke_builds_tsv)
    p = run([MODULE_BUILD, "--builds", smoke_builds_tsv, "--no-install"])
    assert p.stderr.count("reusing") == len(first)
    assert dict(line.split("\t") for line in p.stdout.splitlines()) == first


def selftest(tsv, image, results, *extra):
    """bench/selftest of builds.tsv tsv's one kernel, holding one CPU."""
    with cpu_lock(cores=1):
        return subprocess.run([SELFTEST, "--builds", tsv, "--initramfs",
                               image, "--results", str(results),
                               "--accel", "icount"] + list(extra),
                              cwd=ROOT, capture_output=True, text=True,
                              timeout=1800)


def read_table(results):
    with open(results / "selftest.csv") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        out.setdefault(r["variant"], {})[r["name"]] = r["value"]
    return out


def ns(value):
    assert re.fullmatch(r"\d+\.\d{3}", value), value
    return float(value)


def test_selftest_passes_on_every_variant(smoke_selftest):
    """Every smoke kernel boots in selftest mode (conftest.smoke_selftest)
    and every check passes: the exit status, selftest.csv, the agent's
    result blocks and the raw consoles agree."""
    status, stderr, results = smoke_selftest
    assert status == 0, stderr[-3000:]
    table = read_table(results)
    assert set(table) == set(SMOKE_VARIANTS)
    for variant, t in table.items():
        where = "%s: %s" % (variant, t)
        assert t["boot"] == "PASS" and t["accel"] == "icount", where
        assert t["kernel_warnings"] == "0", where
        assert t[MOD] == "PASS" and t[MOD + ".errno"] == "0", where
        assert t["test_static_keys"] == "PASS", where
        assert t["failed"] == "0", where
        for check in CHECKS:
            assert t["%s.%s" % (MOD, check)] == "PASS", (check, where)
        jl = variant == "jump-label"
        assert t[MOD + ".jump_label"] == ("1" if jl else "0"), where
        assert t[MOD + ".plain_reads"] == (
            "1" if variant == "plain-read" else "0"), where
        assert t[MOD + ".invert"] == "0"
        assert t[MOD + ".count_iters"] == "10000", where
        sites = int(t[MOD + ".sites"])
        changed = int(t[MOD + ".text_bytes_changed"])
        if jl:
            assert t[MOD + ".site_bytes"] == "PASS", where
            assert sites >= 1 and t[MOD + ".site_len"] in ("2", "5")
            assert changed >= 1
            assert t[MOD + ".checks"] == "8", where
        else:
            assert MOD + ".site_bytes" not in t, where
            assert sites == 0 and changed == 0, where
            assert t[MOD + ".checks"] == "7", where
        for fig in ("bench_empty_ns", "bench_off_ns", "bench_on_ns"):
            assert ns(t["%s.%s" % (MOD, fig)]) > 0, (fig, where)
        log = (results / "raw" / ("selftest-%s.log" % variant)).read_text(
            errors="replace")
        assert "%s: default_off=PASS" % MOD in log
        b = Boot(0, 0, log)
        assert_common(b, variant, "selftest")
        assert b.block["status"] == "ok", b.block
        assert b.block["selftest.test_static_key_base"] == "PASS"
        assert b.block["selftest.test_static_keys"] == "PASS"
        assert b.block["selftest.failed"] == "0"
        cmd = (results / "raw" / ("selftest-%s.qemu-cmd" % variant))
        assert "jlbench.mode=selftest" in cmd.read_text()
    # Under icount a disabled check costs the fallbacks a load, a test and
    # a Jcc per iteration that jump labels replace by one NOP.
    off = {v: ns(table[v][MOD + ".bench_off_ns"]) for v in table}
    assert off["jump-label"] < off["atomic-read"]
    assert off["jump-label"] < off["plain-read"]


LOOPS = ("empty", "off", "on")


def counted(t, loop, fig):
    value = t["count.%s_%s_per_iter" % (loop, fig)]
    assert value.isdigit(), (loop, fig, t.get("count.note"))
    return int(value)


def test_counts_per_iteration_match_the_disassembly(smoke_selftest,
                                                    smoke_builds,
                                                    smoke_builds_tsv):
    """Under the TCG plugin, each variant's loops execute exactly the
    instructions and conditional branches that the module's disassembly
    says one iteration takes (test_module_disasm.loop_counts); and the
    physics: a disabled key costs the fallbacks one conditional branch per
    iteration more than jump labels, whose key-on JMP is unconditional."""
    status, stderr, results = smoke_selftest
    assert status == 0, stderr[-3000:]
    table = read_table(results)
    kos = built_modules(smoke_builds_tsv)
    br, ins = {}, {}
    for variant in SMOKE_VARIANTS:
        t = table[variant]
        assert t["count.source"] == "TCG plugin, icount (exact)", t
        assert "count.note" not in t, t["count.note"]
        report = (results / "raw" / ("selftest-%s.plugin" % variant))
        assert "regions=12\n" in report.read_text()
        expect = loop_counts(objdump(kos[os.path.realpath(
            smoke_builds[variant])]))
        for loop in LOOPS:
            got = (counted(t, loop, "insns"), counted(t, loop, "branches"))
            assert got == expect[loop], (variant, loop, got, expect[loop])
            br[variant, loop] = got[1]
            ins[variant, loop] = got[0]
            # icount shift=2: 4 ns of guest time per instruction, so the
            # timed loops agree with the counts (the rest is the timer
            # reads and ticks, spread over bench_iters).
            ns_ = ns(t["%s.bench_%s_ns" % (MOD, loop)])
            assert 4 * got[0] <= ns_ < 4 * got[0] + 0.25, (variant, loop)
    for v in SMOKE_VARIANTS:
        assert br[v, "empty"] == 1, v
        assert br[v, "on"] == br[v, "off"], v
    assert br["jump-label", "off"] == 1
    for v in ("atomic-read", "plain-read"):
        assert br[v, "off"] == br["jump-label", "off"] + 1, v
        # load + test + Jcc where jump labels have one NOP
        assert ins[v, "off"] == ins["jump-label", "off"] + 2, v
    assert ins["jump-label", "off"] == ins["jump-label", "empty"] + 1


def test_inverted_expectation_is_reported_as_fail(smoke_builds_tsv,
                                                  smoke_image, tmp_path):
    """jlbench_static_key.invert=1 on the kernel command line reaches the
    module through the agent; the self-test must then say FAIL."""
    p = selftest(smoke_builds_tsv, smoke_image, tmp_path, "--variants",
                 "jump-label", "--kernel-args", MOD + ".invert=1")
    assert p.returncode == 1, p.stderr[-3000:]
    assert "FAIL: jump-label %s.default_off" % MOD in p.stderr
    t = read_table(tmp_path)["jump-label"]
    assert t["boot"] == "PASS", t
    assert t[MOD + ".invert"] == "1", t
    assert t[MOD + ".default_off"] == "FAIL", t
    assert t[MOD] == "FAIL" and t[MOD + ".errno"] == "22", t
    assert t[MOD + ".failed"] == "1", t
    assert t["failed"] == "1", t
    assert t["test_static_keys"] == "PASS", t
    for check in CHECKS[1:]:
        assert t["%s.%s" % (MOD, check)] == "PASS", check
