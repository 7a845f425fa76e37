"""bench/selftest: rows from selftest consoles, selftest.csv, the command.

The boots here are played by a stand-in QEMU that writes a recorded console
(tests/fixtures/bench/real-selftest-jump-label.log, a real smoke-kernel
selftest boot) to the -serial file; real boots are in test_module_boot.py.
"""
import csv
import json
import os
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT))
from bench.model import knownanswers  # noqa: E402
from bench.session import selftest  # noqa: E402
from lib.format import console  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "bench"
REAL = FIX / "real-selftest-jump-label.log"
# A real selftest boot of the smoke jump-label kernel with the plugin:
# its console and the plugin's report (regions 1..6 of the count runs).
COUNTED = FIX / "real-selftest-count-jump-label.log"
COUNTED_PLUGIN = FIX / "real-selftest-count-jump-label.plugin"
# The same with the plugin's model on (model=on): the atomic-read kernel.
MODEL_LOG = FIX / "real-selftest-model-atomic-read.log"
MODEL_PLUGIN = FIX / "real-selftest-model-atomic-read.plugin"
TOOL = str(ROOT / "bench" / "selftest")


def rows_of(text, variant="jump-label"):
    rep = console.parse(text)
    return selftest.rows(variant, "icount", rep,
                         console.verdict(rep, "QEMU exited",
                                         task="selftest"))


def test_rows_of_a_real_boot():
    rows = rows_of(REAL.read_text())
    assert rows[:3] == [("jump-label", "accel", "icount"),
                        ("jump-label", "boot", "PASS"),
                        ("jump-label", "kernel_warnings", "0")]
    d = {n: v for _, n, v in rows}
    assert d["jlbench_static_key"] == "PASS"
    assert d["jlbench_static_key.default_off"] == "PASS"
    assert d["jlbench_static_key.site_bytes"] == "PASS"
    assert d["jlbench_static_key.bench_off_ns"] == "0.888"
    assert d["test_static_keys"] == "PASS"
    assert d["modules"] == "3" and d["failed"] == "0"
    # In the agent's order, and nothing but selftest.* keys.
    names = [n for _, n, _ in rows]
    assert names.index("jlbench_static_key.errno") < names.index(
        "jlbench_static_key") < names.index("test_static_key_base")
    assert "status" not in d and "kernel" not in d
    assert selftest.failures(rows) == []


def test_failed_boots_and_checks():
    rows = rows_of((FIX / "synthetic-panic.log").read_text())
    assert rows == [("jump-label", "accel", "icount"),
                    ("jump-label", "boot", "FAIL"),
                    ("jump-label", "kernel_warnings", "0")]
    assert selftest.failures(rows) == [("jump-label", "boot")]
    text = REAL.read_text().replace(
        "selftest.jlbench_static_key.concurrent=PASS",
        "selftest.jlbench_static_key.concurrent=FAIL").replace(
        "selftest.failed=0", "selftest.failed=1")
    assert selftest.failures(rows_of(text)) == [
        ("jump-label", "jlbench_static_key.concurrent"),
        ("jump-label", "failed")]
    assert selftest.failures([("v", "failed", "2")]) == [("v", "failed")]


def test_csv_merge_and_roundtrip(tmp_path):
    path = str(tmp_path / "selftest.csv")
    assert selftest.read_csv(path) == []
    old = [("a", "boot", "PASS"), ("b", "boot", "FAIL")]
    selftest.write_csv(path, old)
    new = [("b", "boot", "PASS"), ("b", "x.y", "1,5")]
    selftest.write_csv(path, selftest.merge(selftest.read_csv(path), new))
    assert selftest.read_csv(path) == [("a", "boot", "PASS")] + new
    with open(path) as f:
        assert next(csv.reader(f)) == ["variant", "name", "value"]
    assert os.listdir(tmp_path) == ["selftest.csv"]
    (tmp_path / "bad.csv").write_text("a,b\n")
    with pytest.raises(ValueError):
        selftest.read_csv(str(tmp_path / "bad.csv"))


def test_accelerator_and_kernel_args(tmp_path):
    assert selftest.accel_of(str(tmp_path), None) == ("icount", 1)
    assert selftest.accel_of(str(tmp_path), "tcg") == ("tcg", 1)
    (tmp_path / "meta.json").write_text(json.dumps(
        {"accel": {"name": "tcg", "smp": 2}}))
    assert selftest.accel_of(str(tmp_path), None) == ("tcg", 2)
    assert selftest.accel_of(str(tmp_path), "icount") == ("icount", 1)
    (tmp_path / "meta.json").write_text(json.dumps(
        {"accel": {"name": "icount", "smp": 1}}))
    assert selftest.accel_of(str(tmp_path), None) == ("icount", 1)
    args = selftest.kernel_args("plain-read", " a=1\n b ", "m.invert=1")
    assert args == selftest.qemu.BASE_ARGS + " jlbench.mode=selftest " \
        "jlbench.variant=plain-read a=1 b m.invert=1"


@pytest.fixture
def inputs(tmp_path, plugin_so):
    """builds.tsv for two variants, an image, and a stand-in QEMU that
    writes $SELFTEST_CONSOLE to its -serial file (icount selftests locate
    the real plugin, so it is built)."""
    lines = []
    for v in ("jump-label", "atomic-read"):
        d = tmp_path / v
        d.mkdir()
        (d / "bzImage").write_bytes(b"MZ")
        (d / "build.json").write_text(json.dumps({"hash": "h" + v[0],
                                                  "boot_args": ""}))
        lines.append("%s\t%s\n" % (v, d))
    builds = tmp_path / "builds.tsv"
    builds.write_text("".join(lines))
    image = tmp_path / "image.cpio.gz"
    image.write_bytes(b"\x1f\x8b" + b"\0" * 16)
    qemu = tmp_path / "qemu"
    qemu.write_text("#!/bin/sh\n"
                    "report=\n"
                    "while [ $# -gt 0 ]; do\n"
                    "  case $1 in\n"
                    "  -serial) out=${2#file:};;\n"
                    "  -plugin) report=${2#*outfile=}; "
                    "report=${report%%,*};;\n"
                    "  esac\n"
                    "  shift\n"
                    "done\n"
                    "cp \"$SELFTEST_CONSOLE\" \"$out\"\n"
                    "if [ -n \"$report\" ] && [ -n \"$SELFTEST_PLUGIN\" ]; "
                    "then\n"
                    "  cp \"$SELFTEST_PLUGIN\" \"$report\"\n"
                    "fi\n")
    qemu.chmod(0o755)
    return builds, image, qemu


def tool(inputs, results, console_file, *extra, plugin_report=""):
    builds, image, qemu = inputs
    env = dict(os.environ, JLBENCH_QEMU=str(qemu),
               SELFTEST_CONSOLE=str(console_file),
               SELFTEST_PLUGIN=str(plugin_report))
    return run([TOOL, "--builds", str(builds), "--initramfs", str(image),
                "--results", str(results)] + list(extra), env=env,
               check=False)


def table(results):
    with open(results / "selftest.csv") as f:
        return [(r["variant"], r["name"], r["value"])
                for r in csv.DictReader(f)]


def test_command_records_every_variant(inputs, tmp_path):
    res = tmp_path / "res"
    p = tool(inputs, res, REAL, "--accel", "tcg")
    assert p.returncode == 0, p.stderr
    rows = table(res)
    assert {v for v, _, _ in rows} == {"jump-label", "atomic-read"}
    assert ("atomic-read", "jlbench_static_key", "PASS") in rows
    assert ("atomic-read", "accel", "tcg") in rows
    for v in ("jump-label", "atomic-read"):
        assert (res / "raw" / ("selftest-%s.log" % v)).read_text() == \
            REAL.read_text()
        cmd = (res / "raw" / ("selftest-%s.qemu-cmd" % v)).read_text()
        assert "jlbench.mode=selftest jlbench.variant=%s" % v in cmd
        assert "-accel tcg" in cmd
    assert "every boot and check passed" in p.stderr


def test_command_fails_on_a_failed_check(inputs, tmp_path):
    res = tmp_path / "res"
    assert tool(inputs, res, REAL).returncode == 0
    bad = tmp_path / "bad.log"
    bad.write_text(REAL.read_text().replace(
        "selftest.jlbench_static_key.default_off=PASS",
        "selftest.jlbench_static_key.default_off=FAIL"))
    p = tool(inputs, res, bad, "--variants", "atomic-read",
             "--kernel-args", "jlbench_static_key.invert=1")
    assert p.returncode == 1
    assert "FAIL: atomic-read jlbench_static_key.default_off" in p.stderr
    rows = table(res)
    # jump-label's rows from the first call are kept.
    assert ("jump-label", "jlbench_static_key.default_off", "PASS") in rows
    assert ("atomic-read", "jlbench_static_key.default_off", "FAIL") in rows
    cmd = (res / "raw" / "selftest-atomic-read.qemu-cmd").read_text()
    assert "jlbench_static_key.invert=1" in cmd
    p = tool(inputs, res, bad, "--variants", "atomic-read", "--allow-fail")
    assert p.returncode == 0


def test_command_fails_on_a_failed_boot(inputs, tmp_path):
    p = tool(inputs, tmp_path / "res", FIX / "synthetic-panic.log")
    assert p.returncode == 1
    assert ("jump-label", "boot", "FAIL") in table(tmp_path / "res")
    assert "selftest boot failed: kernel panic" in p.stderr


def test_usage_and_dry_run(inputs, tmp_path):
    builds, image, _ = inputs
    for args in ([], ["--builds", str(builds)],
                 ["--builds", str(builds), "--initramfs", str(image),
                  "--results", "x", "--timeout", "0"],
                 ["--builds", str(builds), "--initramfs", str(image),
                  "--results", "x", "--variants", "a,a"],
                 ["--builds", str(builds), "--initramfs", str(image),
                  "--results", "x", "--accel", "fast"]):
        p = run([TOOL] + args, check=False)
        assert p.returncode == 2, (args, p.stderr)
    p = run([TOOL, "--builds", str(builds), "--initramfs", str(image),
             "--results", str(tmp_path / "res"), "--variants", "nope"],
            check=False)
    assert p.returncode == 1 and "has no build for nope" in p.stderr
    p = run([TOOL, "--builds", str(builds), "--initramfs", str(image),
             "--results", str(tmp_path / "res"), "--dry-run"])
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and all("jlbench.mode=selftest" in x
                                   for x in lines)
    assert "-icount" in lines[0]
    assert not (tmp_path / "res").exists()
    assert run([TOOL, "--help"]).stdout.startswith("usage: bench/selftest")


def test_s390x_builds(inputs, tmp_path):
    """s390x builds boot in qemu-system-s390x (the stand-in here) with the
    SCLP console; their rows go to selftest-s390x.csv, so the x86_64 rows
    of the same variants stay; one arch per call."""
    builds, image, qemu = inputs
    res = tmp_path / "res"
    assert tool(inputs, res, REAL).returncode == 0
    site = {"function": "tcp_rcv_established", "kind": "nop",
            "instructions": ["jgnop\t1a2b3c <tcp_rcv_established+0x4c>"],
            "bytes": "c0 04 00 00 00 2a"}
    for v in ("jump-label", "atomic-read"):
        (tmp_path / v / "build.json").write_text(json.dumps(
            {"hash": "s" + v[0], "boot_args": "", "arch": "s390x",
             "verify": {"ok": True, "jump_table": {"entries": 321},
                        "sites": [site]}}))
    env = dict(os.environ, JLBENCH_QEMU_S390X=str(qemu),
               JLBENCH_QEMU="/nonexistent", SELFTEST_CONSOLE=str(REAL))
    args = [TOOL, "--builds", str(builds), "--initramfs", str(image),
            "--results", str(res)]
    p = run(args + ["--dry-run"], env=env)
    lines = p.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("%s -M s390-ccw-virtio -accel tcg -icount"
                               % qemu)
    assert "console=ttysclp0 panic=-1 oops=panic jlbench" in lines[0]
    assert "/raw/selftest-s390x-jump-label.log" in lines[0]
    p = run(args + ["--variants", "jump-label"], env=env, check=False)
    assert p.returncode == 0, p.stderr
    with open(res / "selftest-s390x.csv") as f:
        rows = [(r["variant"], r["name"], r["value"])
                for r in csv.DictReader(f)]
    assert ("jump-label", "jlbench_static_key.site_bytes", "PASS") in rows
    # the build's figures, from its build.json
    assert rows[-7:] == [
        ("jump-label", "build_hash", "sj"),
        ("jump-label", "build_verified", "PASS"),
        ("jump-label", "jump_table_entries", "321"),
        ("jump-label", "site_function", "tcp_rcv_established"),
        ("jump-label", "site_kind", "nop"),
        ("jump-label", "site_bytes", "c0 04 00 00 00 2a"),
        ("jump-label", "site_instruction",
         "jgnop 1a2b3c <tcp_rcv_established+0x4c>")]
    assert {v for v, _, _ in table(res)} == {"jump-label", "atomic-read"}
    assert (res / "raw" / "selftest-s390x-jump-label.qemu-cmd").exists()
    copy = json.loads((res / "raw" / "selftest-s390x-jump-label.build.json")
                      .read_text())
    assert copy["verify"]["jump_table"]["entries"] == 321
    counts = {n: v for _, n, v in rows if n.startswith("count.")}
    assert counts["count.source"] == "not-counted"
    assert counts["count.note"] == "the plugin counts x86 code only"
    p = run(args + ["--accel", "kvm"], env=env, check=False)
    assert p.returncode == 1 and "s390x guests run under tcg" in p.stderr
    (tmp_path / "atomic-read" / "build.json").write_text("{}")
    p = run(args, env=env, check=False)
    assert p.returncode == 1 and "mixes s390x and x86_64 builds" in p.stderr


def test_accel_of_another_arch(tmp_path):
    """A results dir made under KVM still boots s390x under icount."""
    (tmp_path / "meta.json").write_text(json.dumps(
        {"accel": {"name": "kvm", "smp": 2}}))
    assert selftest.accel_of(str(tmp_path), None) == ("kvm", 2)
    assert selftest.accel_of(str(tmp_path), None, "s390x") == ("icount", 1)
    assert selftest.csv_name("s390x") == "selftest-s390x.csv"
    assert selftest.csv_name("x86_64") == "selftest.csv"


COUNT_NAMES = ["count.%s_%s_per_iter" % (loop, fig)
               for fig in ("branches", "insns")
               for loop in ("empty", "off", "on")]


def test_counts_per_iteration_from_the_plugin(inputs, tmp_path):
    """icount: the plugin is loaded, its report kept as raw evidence and
    the count runs' regions turned into exact rows."""
    res = tmp_path / "res"
    p = tool(inputs, res, COUNTED, "--variants", "jump-label",
             plugin_report=COUNTED_PLUGIN)
    assert p.returncode == 0, p.stderr
    cmd = (res / "raw" / "selftest-jump-label.qemu-cmd").read_text()
    assert "-plugin" in cmd and \
        "outfile=%s" % (res / "raw" / "selftest-jump-label.plugin") in cmd
    assert (res / "raw" / "selftest-jump-label.plugin").read_text() == \
        COUNTED_PLUGIN.read_text()
    assert "outfile=%s,%s\n" % (
        res / "raw" / "selftest-jump-label.plugin",
        ",".join(knownanswers.PLUGIN_ARGS)) in cmd
    d = {n: v for _, n, v in table(res)}
    assert d["jlbench_static_key.count_iters"] == "10000"
    assert d["count.source"] == "TCG plugin, icount (exact)"
    # (insns, branches) per iteration, as the disassembly says
    # (test_module_disasm.py): 3/1 empty, 4/1 key off, 8/1 key on.
    assert [d[n] for n in COUNT_NAMES] == ["1", "1", "1", "3", "4", "8"]
    assert "count.note" not in d
    assert "counts per iteration" not in p.stderr
    # A report from a plugin without the model: its rows say so.
    assert d["model.known_answers"] == "not-counted"
    assert d["model.random_mispredicts_per_iter"] == "not-counted"
    assert d["model.note"].endswith(
        "; the plugin report has no model figures (model=on)")
    assert "jump-label: model's known answers: " in p.stderr


@pytest.mark.parametrize("change,note", [
    (None, None),
    (("region.8.mispredicts=329918", "region.8.mispredicts=285167"),
     "model.random_mispredicts_per_iter 12.0000 is outside 14.4..17.6"),
    (("region.10.l1d_misses=20002", "region.10.l1d_misses=19002"),
     "model.stride_big_l1d_misses_per_iter 0.9000 is outside 0.95..1.05"),
])
def test_known_answers_of_the_model(inputs, tmp_path, change, note):
    """model.* rows from a real model=on report (the atomic-read smoke
    kernel's selftest boot); an answer outside its bound is a failed
    check, named."""
    text = MODEL_PLUGIN.read_text()
    if change:
        assert change[0] + "\n" in text
        text = text.replace(change[0] + "\n", change[1] + "\n")
    report = tmp_path / "model.plugin"
    report.write_text(text)
    res = tmp_path / "res"
    p = tool(inputs, res, MODEL_LOG, "--variants", "atomic-read",
             plugin_report=report)
    d = {n: v for _, n, v in table(res) if n.startswith("model.")}
    assert d["model.params"] == ("l1i=32768:8:64 l1d=32768:8:64 "
                                 "bp=gshare:4096:12 btb=4096:4")
    if not change:
        assert p.returncode == 0, p.stderr
        assert d == {
            "model.source": "TCG plugin model (model=on), icount",
            "model.params": d["model.params"],
            "model.off_mispredicts_per_iter": "0.0000",
            "model.on_mispredicts_per_iter": "0.0000",
            "model.random_mispredicts_per_iter": "16.4751",
            "model.stride_big_l1d_misses_per_iter": "1.0000",
            "model.stride_fit_l1d_misses_per_iter": "0.0000",
            "model.stride_big_l1d_accesses_per_iter": "1.0000",
            "model.stride_fit_l1d_accesses_per_iter": "1.0000",
            "model.known_answers": "PASS"}
        assert "known answers" not in p.stderr
    else:
        assert p.returncode == 1, p.stderr
        assert d["model.known_answers"] == "FAIL"
        assert d["model.note"] == note
        assert "FAIL: atomic-read model.known_answers" in p.stderr
        assert "model's known answers: " + note in p.stderr


def test_counts_not_counted_without_a_report(inputs, tmp_path):
    res = tmp_path / "res"
    # The plugin ran but wrote nothing (the stand-in has no report).
    p = tool(inputs, res, COUNTED, "--variants", "jump-label")
    assert p.returncode == 0, p.stderr
    d = {n: v for _, n, v in table(res)}
    assert d["count.source"] == "not-counted"
    assert [d[n] for n in COUNT_NAMES] == ["not-counted"] * 6
    assert d["count.note"] == "plugin wrote no report"
    assert d["model.known_answers"] == "not-counted"
    assert d["model.note"].endswith("; plugin wrote no report")
    assert "jump-label: counts per iteration: plugin wrote no report" in \
        p.stderr
    # tcg and --no-plugin: no plugin at all, and the rows say why.
    for args, why in ((["--accel", "tcg"], "no TCG plugin under tcg"),
                      (["--no-plugin"], "--no-plugin")):
        p = tool(inputs, res, COUNTED, "--variants", "jump-label", *args,
                 plugin_report=COUNTED_PLUGIN)
        assert p.returncode == 0, p.stderr
        cmd = (res / "raw" / "selftest-jump-label.qemu-cmd").read_text()
        assert "-plugin" not in cmd
        assert not (res / "raw" / "selftest-jump-label.plugin").exists()
        d = {n: v for _, n, v in table(res)}
        assert [d[n] for n in COUNT_NAMES] == ["not-counted"] * 6
        assert d["count.note"] == why
        assert d["model.known_answers"] == "not-counted"
        assert d["model.note"].endswith("; " + why)


def test_counts_not_exact_are_said_so(inputs, tmp_path):
    """A report whose key-on 2n region has one stray instruction."""
    bad = tmp_path / "bad.plugin"
    text = COUNTED_PLUGIN.read_text()
    assert "region.6.insns=160006\n" in text
    bad.write_text(text.replace("region.6.insns=160006\n",
                                "region.6.insns=160007\n"))
    res = tmp_path / "res"
    p = tool(inputs, res, COUNTED, "--variants", "jump-label",
             plugin_report=bad)
    assert p.returncode == 0, p.stderr
    d = {n: v for _, n, v in table(res)}
    assert d["count.on_insns_per_iter"] == "not-exact"
    assert d["count.on_branches_per_iter"] == "1"
    assert "region 6 - region 5 = 80001" in d["count.note"]
    assert "counts per iteration: insns: region 6" in p.stderr


def test_boots_side_by_side(inputs, tmp_path):
    """--jobs 2 under icount: both boots at once, rows in variant order;
    tcg boots one at a time and says why."""
    builds, image, qemu = inputs
    slow = tmp_path / "slow-qemu"
    slow.write_text("#!/bin/sh\n"
                    "echo start >>\"$TRACE\"\n"
                    "sleep 1\n"
                    "echo end >>\"$TRACE\"\n"
                    "exec \"%s\" \"$@\"\n" % qemu)
    slow.chmod(0o755)
    trace = tmp_path / "trace"
    res = tmp_path / "res"
    for accel, jobs, at_once in (("icount", "2", 2), ("tcg", "2", 1)):
        env = dict(os.environ, JLBENCH_QEMU=str(slow), TRACE=str(trace),
                   SELFTEST_CONSOLE=str(REAL), SELFTEST_PLUGIN="")
        p = run([TOOL, "--builds", str(builds), "--initramfs", str(image),
                 "--results", str(res), "--accel", accel, "--jobs", jobs],
                env=env, check=False)
        assert p.returncode == 0, p.stderr
        events = trace.read_text().split()
        trace.unlink()
        assert events[:2] == ["start"] * at_once + ["end"] * (2 - at_once)
        assert "%d at once" % at_once in p.stderr
        assert [v for v, n, _ in table(res) if n == "accel"] == [
            "jump-label", "atomic-read"]
    assert "--jobs 2: tcg measures wall-clock time" in p.stderr
    p = run([TOOL, "--builds", str(builds), "--initramfs", str(image),
             "--results", str(res), "--jobs", "0"], check=False)
    assert p.returncode == 2 and "--jobs" in p.stderr
