"""Integration: the s390 jump label code (2011, seed 004), cross-built
for s390x and booted in qemu-system-s390x (TCG), proven to patch.

kernel-variants/build --arch s390x --config smoke --variant jump-label
(cached; cold 4m46s on 2 cores, measured), guest-image/build --arch
s390x (the agent cross-compiled, the modules), then one selftest-mode boot
through bench/selftest. The build holds both CPUs when it has a kernel
to make (conftest.build_kernels); each boot, one guest of one CPU, holds
one (conftest.cpu_lock).
"""
import csv
import json
import os
import re
import subprocess
import time

import pytest

from conftest import ROOT, build_kernels, cpu_lock, read_builds, run

pytestmark = pytest.mark.integration

IMAGE = str(ROOT / "guest-image" / "build")
SELFTEST = str(ROOT / "bench" / "selftest")
MOD = "jlbench_static_key"
CHECKS = ("default_off", "inc_inc_dec", "dec_disables",
          "enabled_follows_count", "concurrent", "text_patching",
          "site_bytes", "bench_branch")


@pytest.fixture(scope="module")
def s390x(tmp_path_factory):
    """(builds.tsv, build dir, image) of the s390x smoke jump-label kernel."""
    d = tmp_path_factory.mktemp("s390x")
    tsv = d / "builds.tsv"
    build_kernels(["--arch", "s390x", "--config", "smoke", "--variant",
                   "jump-label", "--out", str(tsv)])
    build_dir = read_builds(tsv)["jump-label"]
    run([IMAGE, "--arch", "s390x", "--builds", str(tsv), "--out",
         str(d / "image.path")])
    return tsv, build_dir, (d / "image.path").read_text().strip()


def test_build_is_an_s390x_jump_label_kernel(s390x):
    """build.json: arch s390x, verified, thousands of big-endian jump table
    entries, a hot site that is brcl 0 (c0 04 <offset>) in vmlinux."""
    _, build_dir, _ = s390x
    info = json.load(open(os.path.join(build_dir, "build.json")))
    assert info["arch"] == "s390x" and info["variant"] == "jump-label"
    assert os.path.basename(build_dir).startswith("s390x-smoke-jump-label-")
    ver = info["verify"]
    assert ver["ok"] and ver["config"]["jump_label"]
    assert ver["jump_table"]["entries"] >= 100
    assert ver["jump_table"]["aligned"]
    assert ver["sites"], ver
    for site in ver["sites"]:
        assert site["kind"] == "nop"
        assert re.match(r"(jgnop|brcl\s+0,)", site["instructions"][0])
        assert site["bytes"].startswith("c0 04 ")
    head = open(os.path.join(build_dir, "vmlinux"), "rb").read(20)
    assert head[:6] == b"\x7fELF\x02\x02" and head[18:20] == b"\x00\x16"


def test_selftest_boot_patches_brcl(s390x, tmp_path):
    """One selftest boot: every check PASSes, the site reads brcl 0 while
    disabled and brcl 15 with the same offset while enabled, no other byte
    of the module's text changes, and QEMU ends by itself."""
    tsv, _, image = s390x
    res = tmp_path / "res"
    t0 = time.monotonic()
    with cpu_lock(cores=1):
        p = run([SELFTEST, "--builds", str(tsv), "--initramfs", image,
                 "--results", str(res)], check=False)
    wall = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    with open(res / "selftest-s390x.csv") as f:
        t = {r["name"]: r["value"] for r in csv.DictReader(f)}
    assert not (res / "selftest.csv").exists()
    assert t["boot"] == "PASS" and t["kernel_warnings"] == "0"
    assert t["modules"] == "3" and t["failed"] == "0", t
    assert t[MOD] == "PASS" and t["test_static_keys"] == "PASS"
    for check in CHECKS:
        assert t["%s.%s" % (MOD, check)] == "PASS", check
    assert t[MOD + ".jump_label"] == "1"
    assert t[MOD + ".site_len"] == "6"
    off, on = t[MOD + ".site_off"].split(), t[MOD + ".site_on"].split()
    assert off[:2] == ["c0", "04"] and on[:2] == ["c0", "f4"]
    assert off[2:] == on[2:] and len(off) == 6
    assert t[MOD + ".text_bytes_changed"] == "1"
    assert int(t["jump_table_entries"]) >= 100
    assert t["site_bytes"].startswith("c0 04 ")
    log = (res / "raw" / "selftest-s390x-jump-label.log").read_text()
    assert "JLBENCH-END" in log
    print("s390x selftest boot: %.0f s wall" % wall)


def test_power_off_ends_qemu(s390x, tmp_path):
    """Replaying the boot's recorded command: after JLBENCH-END the agent's
    power-off (a reboot without ACPI) makes QEMU (-no-reboot) exit 0."""
    tsv, _, image = s390x
    res = tmp_path / "res"
    with cpu_lock(cores=1):
        run([SELFTEST, "--builds", str(tsv), "--initramfs", image,
             "--results", str(res), "--accel", "tcg"])
        cmd = (res / "raw" / "selftest-s390x-jump-label.qemu-cmd") \
            .read_text()
        log = res / "raw" / "selftest-s390x-jump-label.log"
        log.unlink()
        p = subprocess.run(["sh", "-c", cmd], capture_output=True,
                           timeout=300)
    assert p.returncode == 0, p.stderr
    assert "-accel tcg,thread=multi" in cmd
    assert "JLBENCH-END" in log.read_text()


def test_a_panic_ends_qemu(s390x, tmp_path):
    """With no init the kernel panics; panic=-1 and -no-reboot end QEMU."""
    _, build_dir, image = s390x
    log = tmp_path / "console.log"
    cmd = ["qemu-system-s390x", "-M", "s390-ccw-virtio", "-accel", "tcg",
           "-m", "512", "-nodefaults", "-nographic", "-no-reboot",
           "-monitor", "none", "-serial", "file:%s" % log,
           "-kernel", os.path.join(build_dir, "bzImage"),
           "-initrd", image, "-append",
           "console=ttysclp0 panic=-1 rdinit=/nonexistent"]
    with cpu_lock(cores=1):
        p = subprocess.run(cmd, capture_output=True, timeout=300)
    text = log.read_text(errors="replace")
    assert "Kernel panic - not syncing" in text, text[-2000:]
    assert p.returncode == 0
