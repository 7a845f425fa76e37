"""The kvm path booted for real, in tests/nested/run's machine: a QEMU TCG
guest with AMD SVM running kvm_amd, on the host's root shared read-only.

One outer boot runs three steps on the smoke kernels (conftest's
fixtures: the same cache as the other integration tests):
  auto      bench/run --accel auto, jump-label only: the probe must pick
            kvm and meta.json say why;
  kvm       bench/run --accel kvm, one short boot of each other variant
            (with auto's, one boot of every variant under kvm);
  selftest  bench/selftest --accel kvm into the kvm step's results dir,
            jump-label only (the kernel whose static-key sites are patched;
            a nested boot costs a minute, mostly its slow serial console).
Then analysis/analyze and analysis/report on the host, whose accelerator
line must say that the kvm figures come from an emulated machine. The whole
test takes several minutes (docs/nested.md). When the outer machine stalls
(tests/nested/run exits 124), another one is started, three machines at
most, and the test says so (a warning in pytest's summary); a step that
fails inside a healthy machine is never retried.
"""
import csv
import fnmatch
import json
import os
import shlex
import sys
import warnings

import pytest

from conftest import PYTHON, ROOT, cpu_lock, run
from lib.format import rawfiles

pytestmark = pytest.mark.integration

NESTED = str(ROOT / "tests" / "nested" / "run")
VARIANTS = ("jump-label", "atomic-read", "plain-read")
SHORT = ["--no-aa", "--boots", "1", "--seconds", "3", "--clients", "2",
         "--quiet", "--seed", "15"]
HW_COUNTERS = ("perf_branches", "perf_branch_misses", "perf_instructions",
               "perf_cycles")
STALLED = 124   # tests/nested/run: the outer machine stalled and was killed
# How many outer machines the test starts at most, each after a stall of
# the last, and the stall bound it gives them (docs/nested.md: a healthy
# machine is never quiet and waits at most 15 s for a heartbeat; in one
# suite run two machines in a row stalled).
MACHINES = 3
STALL_S = 60


def steps(builds, image, out):
    """(name, argv) of the steps, in order; argv may use $OUT."""
    run_ = [str(ROOT / "bench" / "run"), "--builds", builds, "--initramfs",
            image, "--results-root", out]
    return [
        ("auto", run_ + ["--accel", "auto", "--variants", "jump-label",
                         "--out", out + "/auto.path"] + SHORT),
        ("kvm", run_ + ["--accel", "kvm", "--variants",
                        "atomic-read,plain-read", "--out",
                        out + "/kvm.path"] + SHORT),
        ("selftest", [str(ROOT / "bench" / "selftest"), "--builds", builds,
                      "--initramfs", image, "--accel", "kvm", "--quiet",
                      "--variants", "jump-label", "--results", "RESULTS"]),
    ]


def script(steps_, out):
    """A bash script running every step: its stdout, stderr, exit status
    and wall seconds go to OUT/<name>.{out,err,rc,seconds}."""
    lines = ["#!/bin/bash", "OUT=%s" % shlex.quote(out),
             "step() {", "\tlocal name=$1 t0=$SECONDS", "\tshift",
             '\t"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"',
             '\techo $? >"$OUT/$name.rc"',
             '\techo $((SECONDS - t0)) >"$OUT/$name.seconds"', "}"]
    for name, argv in steps_:
        words = [shlex.quote(a) for a in argv]
        words = ['"$(cat "$OUT/kvm.path")"' if a == "RESULTS" else a
                 for a in words]
        lines.append("step %s %s" % (name, " ".join(words)))
    return "\n".join(lines) + "\n"


class Stalled(UserWarning):
    """The outer machine stalled and was run again."""


def run_machine(attempt, say):
    """Run the nested machine, again when it stalled, MACHINES times at
    most. attempt(n) runs it (n = 1, 2, ...) and returns (status, stall,
    result): stall is the reason tests/nested/run gave for a stall (its
    job's `stall` file), else None. A stall is retried, said with say();
    any other end is kept (a step that failed inside a healthy machine
    would fail again). Returns (status, result, stalls) of the last
    attempt."""
    stalls = []
    for n in range(1, MACHINES + 1):
        status, stall, result = attempt(n)
        if status != STALLED or stall is None:
            break
        stalls.append(stall)
        if n < MACHINES:
            say("tests/nested/run: the outer machine stalled (%s); "
                "starting machine %d of %d" % (stall, n + 1, MACHINES))
    return status, result, stalls


def stall_of(status, job):
    """The reason tests/nested/run gave for a stall, or None."""
    f = job / "stall"
    if status != STALLED or not f.exists():
        return None
    return f.read_text().strip()


def say_stalled(msg):
    print(msg, file=sys.stderr)
    warnings.warn(Stalled(msg))


@pytest.fixture(scope="module")
def nested(smoke_builds_tsv, smoke_image, tmp_path_factory):
    """Run the steps in one nested machine; the dir of their outputs."""

    def attempt(n):
        out = tmp_path_factory.mktemp("nested-out")
        job = tmp_path_factory.mktemp("nested-job") / "job"
        path = out / "steps.sh"
        path.write_text(script(steps(smoke_builds_tsv, smoke_image,
                                     str(out)), str(out)))
        p = run([NESTED, "--rw", str(out), "--job", str(job), "--timeout",
                 "1500", "--stall", str(STALL_S), "--", "bash", str(path)],
                check=False)
        return p.returncode, stall_of(p.returncode, job), (out, job, p)

    with cpu_lock(cores=1):     # the outer machine has one CPU
        status, (out, job, p), stalls = run_machine(attempt, say_stalled)
    assert status == 0, "tests/nested/run exited %d%s:\n%s" % (
        status, "".join("; stall %d: %s" % (i, s)
                        for i, s in enumerate(stalls, 1)), p.stderr[-3000:])
    return out, job


def step(out, name):
    """(exit status, stderr) of a step."""
    rc = int((out / (name + ".rc")).read_text())
    return rc, (out / (name + ".err")).read_text()[-3000:]


def results_dir(out, name):
    rc, err = step(out, name)
    assert rc == 0, "%s exited %d:\n%s" % (name, rc, err)
    return (out / (name + ".path")).read_text().strip()


def meta(d):
    with open(os.path.join(d, "meta.json")) as f:
        return json.load(f)


def rows(d):
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        return list(csv.DictReader(f))


def raw_files(d, pattern):
    """The paths of d's raw files whose names match pattern (in raw/ or
    its archive)."""
    raw = os.path.join(d, "raw")
    return [os.path.join(raw, n) for n in rawfiles.listdir(raw)
            if fnmatch.fnmatch(n, pattern)]


def test_auto_probes_and_picks_kvm(nested):
    d = results_dir(nested[0], "auto")
    m = meta(d)
    assert m["accel"]["name"] == "kvm" and m["accel"]["kvm_kind"] == "kvm_amd"
    reason = m["accel"]["reason"]
    assert "/dev/kvm is usable (kvm_amd)" in reason, reason
    assert "probe boot reached the agent" in reason, reason
    assert m["host"]["nested"], m["host"]
    assert rawfiles.read_bytes(os.path.join(d, "raw", "probe-kvm.log"))
    assert [(r["variant"], r["accel"], r["status"]) for r in rows(d)] == [
        ("jump-label", "kvm", "ok")]


def test_kvm_runs_every_variant(nested):
    """The auto step's jump-label and the kvm step's other two."""
    dirs = [results_dir(nested[0], name) for name in ("auto", "kvm")]
    r = []
    for d in dirs:
        m = meta(d)
        assert m["accel"]["name"] == "kvm" and m["host"]["nested"]
        r += rows(d)
        cmds = raw_files(d, "[0-9]*.qemu-cmd")
        assert len(cmds) == len(rows(d))
        for c in cmds:
            assert " -accel kvm -cpu host " in rawfiles.open(c).read(), c
    assert sorted(x["variant"] for x in r) == sorted(VARIANTS)
    for x in r:
        assert x["status"] == "ok", x["reason"]
        assert x["accel"] == "kvm" and x["kernel_warnings"] == "0", x
        assert float(x["throughput_mbps"]) > 0 and int(x["ops"]) > 0
        for col in HW_COUNTERS:
            assert x[col] == "not-supported", (col, x[col])
        assert x["kernel_insns"] in ("", "not-counted"), x["kernel_insns"]


def test_selftest_under_kvm(nested):
    d = (nested[0] / "kvm.path").read_text().strip()
    rc, err = step(nested[0], "selftest")
    assert rc == 0, "bench/selftest exited %d:\n%s" % (rc, err)
    with open(os.path.join(d, "selftest.csv"), newline="") as f:
        t = {(x["variant"], x["name"]): x["value"] for x in csv.DictReader(f)}
    assert {v for v, _ in t} == {"jump-label"}
    v = "jump-label"
    assert t[(v, "accel")] == "kvm" and t[(v, "boot")] == "PASS"
    assert t[(v, "kernel_warnings")] == "0"
    assert t[(v, "jlbench_static_key")] == "PASS"
    assert t[(v, "count.source")] == "not-counted"
    for c in raw_files(d, "selftest-*.qemu-cmd"):
        assert " -accel kvm -cpu host " in rawfiles.open(c).read(), c


def test_report_says_the_kvm_host_was_emulated(nested, tmp_path):
    d = (nested[0] / "kvm.path").read_text().strip()
    history = tmp_path / "history.csv"
    run([PYTHON, str(ROOT / "analysis" / "analyze"), "--history",
         str(history), "-q", d])
    with open(os.path.join(d, "stats.json")) as f:
        st = json.load(f)
    assert st["nested"] and "not hardware" in st["accel_description"]
    with open(history, newline="") as f:
        assert {x["accel"] for x in csv.DictReader(f)} == {"kvm-nested"}
    out = tmp_path / "REPORT.md"
    run([PYTHON, str(ROOT / "analysis" / "report"), d, "--out", str(out),
         "--plots", str(tmp_path)])
    text = out.read_text()
    # the accelerator, stated once under the title
    assert "*Accelerator kvm, nested in an emulated machine" in text
    assert "accelerator kvm: hardware" not in text.lower()
    assert "compared with nothing" in text
    assert "ordering reproduced" not in text and "NOT reproduced" not in text
    assert "hardware throughput" not in text.replace(
        "not hardware throughput", "")
