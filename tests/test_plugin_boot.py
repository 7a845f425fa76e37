"""Integration tests of the branches plugin: real smoke kernels under TCG.

Every boot runs in the runner's deterministic icount mode, holding one
CPU (conftest.cpu_lock). The guest is bench/plugin/testinit.c (a PID 1
with a known number of user-mode branches between the window markers).

Kernels come from kernel-variants/build --config smoke (cached); set
JLBENCH_SMOKE_BUILDS=FILE (a builds.tsv) to use existing builds instead.

Five boots, each checked by every test that can read it: the window with
the regions after it counted by instruction (`plain`) and with the model
on (`modelled`), the window counted by block, and a kernel-heavy window
with sites, the model and a key word, twice. The real agent's tbench
window, counted twice, is test_bench_parallel_boot's.
"""
import os
import subprocess

import pytest

from conftest import cpu_lock
from test_plugin import MODEL_KEYS, parse_report

pytestmark = pytest.mark.integration

ICOUNT = ["-accel", "tcg", "-icount", "shift=2,sleep=off",
          "-rtc", "base=2020-01-01T00:00:00,clock=vm", "-smp", "1"]
LOOP = 300000


@pytest.fixture(scope="module")
def builds(smoke_builds):
    return smoke_builds


def boot(tmp_path, tag, kernel, initrd, append, plugin_arg, extra=()):
    """Boot once with the plugin (and extra QEMU arguments); return
    (report dict, console text)."""
    log = tmp_path / (tag + ".log")
    report = tmp_path / (tag + ".report")
    cmd = ["timeout", "1500", "qemu-system-x86_64", "-M", "pc"]
    cmd += ICOUNT + [
        "-m", "512", "-nodefaults", "-display", "none", "-no-reboot",
        "-serial", "file:%s" % log, "-kernel", kernel, "-initrd", initrd,
        "-append", "console=ttyS0 nokaslr panic=-1 " + append,
        "-plugin", "%s,outfile=%s" % (plugin_arg, report)] + list(extra)
    with cpu_lock(cores=1):
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=1600)
    console = log.read_text(errors="replace") if log.exists() else ""
    assert p.returncode == 0, "%s\n%s\n%s" % (cmd, p.stderr, console[-3000:])
    assert report.exists(), p.stderr
    return parse_report(report.read_text()), console


def window_args(plugin_so, testinit, mode):
    return "%s,count=%s,sites=%s" % (plugin_so, mode,
                                     os.path.join(testinit, "jnz-site.txt"))


@pytest.fixture(scope="module")
def plain(builds, plugin_so, testinit, tmp_path_factory):
    """(report, console) of testinit's window of LOOP iterations and its
    regions, counted by instruction, with the window's jnz as the site."""
    return boot(tmp_path_factory.mktemp("plain"), "plain",
                os.path.join(builds["jump-label"], "bzImage"),
                os.path.join(testinit, "initramfs.cpio.gz"),
                "jlbtest.loop=%d jlbtest.regions=1" % LOOP,
                window_args(plugin_so, testinit, "insn"))


@pytest.fixture(scope="module")
def modelled(builds, plugin_so, testinit, tmp_path_factory):
    """The same boot as plain's, with model=on."""
    return boot(tmp_path_factory.mktemp("modelled"), "model",
                os.path.join(builds["jump-label"], "bzImage"),
                os.path.join(testinit, "initramfs.cpio.gz"),
                "jlbtest.loop=%d jlbtest.regions=1" % LOOP,
                window_args(plugin_so, testinit, "insn") + ",model=on")


@pytest.mark.parametrize("mode", ["insn", "tb"])
def test_window_counts_are_exact(builds, plugin_so, testinit, tmp_path,
                                 plain, mode):
    """The user loop between the markers: exactly LOOP branches."""
    if mode == "insn":
        r, console = plain
    else:
        r, console = boot(tmp_path, mode,
                          os.path.join(builds["jump-label"], "bzImage"),
                          os.path.join(testinit, "initramfs.cpio.gz"),
                          "jlbtest.loop=%d" % LOOP,
                          window_args(plugin_so, testinit, mode))
    assert "jlbtest: done" in console
    assert r["count_mode"] == mode
    assert (r["window"], r["markers_start"], r["markers_end"]) == \
        ("1", "1", "1")
    # Between the markers user mode runs only LOOP x (dec; jnz).
    assert int(r["user_branches"]) == LOOP
    # The site file names only the loop's jnz: LOOP executions, all of
    # them inside the window.
    assert int(r["site_execs"]) == LOOP
    assert int(r["total_site_execs"]) == LOOP
    if mode == "insn":
        # 2 per iteration, plus one marker: a marker's callback (the
        # snapshot) runs before its own inline add, so the start marker is
        # inside the window and the end marker outside.
        assert int(r["user_insns"]) == 2 * LOOP + 1
    else:
        # Per block: the block [start marker, dec, jnz] is counted before
        # the start snapshot (left out), the block [end marker, ret]
        # before the end snapshot (taken in): 2 * (LOOP - 1) + 2.
        assert int(r["user_insns"]) == 2 * LOOP
    # The whole run: the kernel booted, and much more than the window.
    assert int(r["total_kernel_insns"]) > 10**7
    assert int(r["total_kernel_branches"]) > 10**6
    assert int(r["total_user_branches"]) >= LOOP


def user(r, rid, fig):
    """A region's user-mode figure (all minus kernel: interrupts during a
    user region count as kernel work inside it)."""
    return int(r["region.%d.%s" % (rid, fig)]) - \
        int(r["region.%d.kernel_%s" % (rid, fig)])


def test_region_counts_are_exact(plain):
    """testinit's regions (bench/plugin/testinit.c, regions()): loops of
    known length, nested regions, ids 0 and 255, unbalanced markers."""
    r, console = plain
    n = LOOP
    assert "jlbtest: done" in console
    # The window is unchanged by regions.
    assert (r["window"], r["markers_start"], r["markers_end"]) == \
        ("1", "1", "1")
    assert int(r["user_branches"]) == n
    assert r["regions"] == "8"
    assert sorted({k.split(".")[1] for k in r if k.startswith("region.")},
                  key=int) == ["0", "7", "8", "9", "10", "11", "12", "255"]
    closed = {rid: (r["region.%d.begins" % rid], r["region.%d.closed" % rid],
                    r["region.%d.unbalanced" % rid])
              for rid in (0, 7, 8, 9, 10, 11, 12, 255)}
    assert closed == {0: ("1", "1", "0"), 7: ("1", "1", "0"),
                      8: ("1", "1", "0"), 9: ("1", "1", "0"),
                      10: ("0", "0", "1"), 11: ("2", "1", "1"),
                      12: ("1", "0", "1"), 255: ("1", "1", "0")}
    # Begin marker inside, end marker outside (count=insn).
    assert (user(r, 7, "insns"), user(r, 7, "branches")) == (2 * n + 1, n)
    assert (user(r, 9, "insns"), user(r, 9, "branches")) == (2 * n + 1, n)
    assert (user(r, 8, "insns"), user(r, 8, "branches")) == \
        (4 * n + 3, 2 * n)
    for rid in (0, 255):
        assert (user(r, rid, "insns"), user(r, rid, "branches")) == (1, 0)
    # 11: the first begin stands, the second is only counted.
    assert (user(r, 11, "insns"), user(r, 11, "branches")) == (2, 0)
    for rid in (10, 12):
        assert (r["region.%d.insns" % rid],
                r["region.%d.branches" % rid]) == ("0", "0")


def test_jump_sites_of_variants(builds):
    """Every build has the sites file kernel-variants/build writes; sites
    exist in the jump-label kernel only."""
    def sites(variant):
        with open(os.path.join(builds[variant], "jump-sites.txt")) as f:
            return f.read().splitlines()
    assert len(sites("jump-label")) - 1 > 100
    assert len(sites("atomic-read")) - 1 == 0


MODEL_REGION = ("mispredicts", "btb_misses", "l1i_accesses", "l1i_misses",
                "l1d_accesses", "l1d_misses", "l1d_fed", "l1d_groups")


def counting(r):
    """The counting keys of a report: without the model's keys, and
    without the whole-run ones (what runs after the guest's reset request
    until QEMU stops the vCPU depends on host timing, which the model
    slows: README, "Report") and tbs_translated (the model's callbacks
    make the translated code larger, which may change when QEMU flushes
    it)."""
    return {k: v for k, v in r.items() if k not in MODEL_KEYS and not (
        k.startswith("region.") and k.split(".")[2] in MODEL_REGION)
        and not k.startswith("total_") and k != "tbs_translated"}


def test_model_window(plain, modelled):
    """model=on on testinit's user loop (LOOP x dec; jnz between the
    markers, then the regions): the model's keys, figures bounded by what
    the loop can do, and the counting keys exactly as without the model
    (the model neither perturbs the guest nor changes the other keys)."""
    r, console = modelled
    plain, _ = plain
    assert "jlbtest: done" in console
    assert MODEL_KEYS <= set(r)
    assert counting(r) == counting(plain)
    assert set(r) - MODEL_KEYS == set(plain) | {
        "region.%d.%s" % (rid, name) for rid in (0, 7, 8, 9, 10, 11, 12, 255)
        for name in MODEL_REGION}
    assert (r["model"], r["model_l1i"], r["model_bp"]) == \
        ("on", "32768:8:64", "gshare:4096:12")
    assert r["key_accesses"] == "not-counted"   # no keys=
    fig = {k: int(r[k]) for k in MODEL_KEYS if k.startswith(("kernel_",
           "user_", "branches_", "total_"))}
    # The loop's jnz: taken LOOP - 1 times, then not. Warming at most 13
    # histories of an always-taken branch (12 history bits; fewer if the
    # counters were trained before), then the exit (always a mispredict):
    # at most 14; each timer interrupt in the loop may cost as much again,
    # and leaves one branch unresolved.
    assert 1 <= fig["user_mispredicts"] <= 100, fig
    assert fig["branches_unresolved"] <= 20, fig
    assert fig["user_btb_misses"] <= 10, fig
    # One line fetch per block executed ([dec; jnz] on one or two lines),
    # all hits after the first.
    assert LOOP <= fig["user_l1i_accesses"] <= 2 * LOOP + 100, fig
    assert fig["user_l1i_misses"] <= 10, fig
    # No memory operand in the loop.
    assert fig["user_l1d_accesses"] <= 20, fig
    assert fig["user_l1d_misses"] <= fig["user_l1d_accesses"]
    # The overlap classes: each L1D miss feeds a branch or joins a group
    # (a group holds at least one), give or take the misses a window's
    # edge finds held for their branch (at most 16, overlap.h).
    assert fig["kernel_l1d_fed"] + fig["kernel_l1d_groups"] <= \
        fig["kernel_l1d_misses"] + 16, fig
    assert fig["user_l1d_fed"] <= fig["user_l1d_misses"] + 16, fig
    # The boot: real work everywhere.
    assert fig["total_l1d_accesses"] > 10**7
    assert 0 < fig["total_l1d_misses"] < fig["total_l1d_accesses"]
    assert 0 < fig["total_l1i_misses"] < fig["total_l1i_accesses"]
    assert fig["total_mispredicts"] > 1000
    # Region 7: the same loop of n = LOOP iterations, with the same bounds.
    assert 1 <= int(r["region.7.mispredicts"]) <= 100
    assert int(r["region.7.l1d_accesses"]) <= 20
    assert LOOP <= int(r["region.7.l1i_accesses"]) <= 2 * LOOP + 100
    for rid in (10, 12):    # never closed: nothing counted
        for name in MODEL_REGION:
            assert r["region.%d.%s" % (rid, name)] == "0"


def test_counts_and_model_repeat_exactly(builds, plugin_so, testinit,
                                         tmp_path):
    """Kernel-heavy window, the jump-label kernel's sites, model=on with a
    key word: two boots give byte-identical reports, kernel work seen."""
    kernel = os.path.join(builds["jump-label"], "bzImage")
    initrd = os.path.join(testinit, "initramfs.cpio.gz")
    sites = os.path.join(builds["jump-label"], "jump-sites.txt")
    addr = None
    with open(os.path.join(builds["jump-label"], "System.map")) as f:
        for line in f:
            a, _, sym = line.split()
            if sym == "jiffies_64":
                addr = int(a, 16)
    assert addr, "no jiffies_64 in System.map"
    keys = tmp_path / "keys.txt"
    keys.write_text("%x-%x\n" % (addr, addr + 8))
    append = "jlbtest.loop=100000 jlbtest.syscalls=20000"
    arg = "%s,sites=%s,model=on,keys=%s" % (plugin_so, sites, keys)
    r1, _ = boot(tmp_path, "a", kernel, initrd, append, arg)
    r2, _ = boot(tmp_path, "b", kernel, initrd, append, arg)
    a = (tmp_path / "a.report").read_bytes()
    assert a == (tmp_path / "b.report").read_bytes()
    assert r1 == r2
    assert r1["window"] == "1"
    # 20000 x (write, read, getppid): thousands of kernel instructions and
    # hundreds of branches each; static-key sites are on that path.
    assert int(r1["kernel_insns"]) > 20000 * 1000
    assert int(r1["kernel_branches"]) > 20000 * 100
    ratio = int(r1["kernel_branches"]) / int(r1["kernel_insns"])
    assert 0.03 < ratio < 0.4, ratio
    assert int(r1["site_execs"]) > 20000
    assert int(r1["sites"]) > 100
    n = {k: int(r1[k]) for k in ("kernel_l1d_accesses", "kernel_l1d_misses",
                                 "kernel_mispredicts", "kernel_l1i_misses",
                                 "kernel_branches", "key_accesses",
                                 "key_misses", "kernel_btb_misses")}
    # 20000 x (write, read, getppid): hundreds of loads and stores each.
    assert n["kernel_l1d_accesses"] > 20000 * 100, n
    assert 0 < n["kernel_l1d_misses"] < n["kernel_l1d_accesses"] // 2, n
    assert 0 < n["kernel_mispredicts"] < n["kernel_branches"] // 2, n
    assert n["kernel_btb_misses"] > 0 and n["kernel_l1i_misses"] > 0, n
    # The timer interrupt updates jiffies_64 during the window (a hot
    # line: measured 207 accesses, no miss).
    assert n["key_accesses"] > 0, n
    assert n["key_misses"] <= n["key_accesses"] // 10, n
