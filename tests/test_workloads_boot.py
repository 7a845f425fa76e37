"""Every run-mode workload of lib/workloads.py boots and does its work on
a smoke kernel under icount, briefly (about 0.3 s of guest time each), and
a repeat with the same seed gives the same bits: two bench/run sessions
of each at once, their figures compared (tbench and pipe have tests of
their own). The guest's crng is seeded before the window, and the window
holds the workload's own path (analysis/comparison/composition.py's
audit: no RNG extraction, tty or printk above its bound).

Kernels and image come from conftest's smoke fixtures; the test holds
/tmp/jlbench-cpu.lock while it boots.
"""
import csv
import os
import subprocess

import pytest

from conftest import ROOT, cpu_lock

from analysis.comparison import composition
from lib import workloads
from lib.format import rawfiles

pytestmark = pytest.mark.integration

GUEST_S = 0.3
# The figures a repeat must give bit for bit (the plugin's and the guest
# clock's).
EXACT = ("ops", "workload_s", "kernel_insns", "user_insns",
         "kernel_branches", "user_branches", "site_execs")


def _n(w):
    return max(1, int(GUEST_S * 1e6 / w.us_per_n))


def _start(w, out, builds, image):
    return subprocess.Popen(
        [str(ROOT / "bench" / "run"), "--builds", builds, "--initramfs",
         image, "--results-root", str(out / "results"), "--out",
         str(out / "dir"), "--accel", "icount", "--workload", w.name,
         "--loops", str(_n(w)), "--boots", "1", "--seed", "5", "--no-aa",
         "--variants", "jump-label", "--jobs", "1", "--quiet",
         "--timeout", "300"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)


def _row(out):
    d = (out / "dir").read_text().strip()
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        (r,) = list(csv.DictReader(f))
    base = os.path.join(d, "raw", "001-jump-label-try1")
    log = rawfiles.read_bytes(base + ".log").decode()
    return r, log, composition.of_profile(base + ".profile.gz")


def test_every_workload_runs_and_repeats_bit_for_bit(
        smoke_builds_tsv, smoke_image, tmp_path):
    failed = []
    with cpu_lock():
        for w in [w for w in workloads.WORKLOADS if w.task == workloads.RUN]:
            outs = [tmp_path / w.name / str(i) for i in (1, 2)]
            procs = [_start(w, o, smoke_builds_tsv, smoke_image)
                     for o in outs]
            for p in procs:
                text = p.communicate()[0]
                if p.returncode:
                    failed.append("%s: bench/run exited %d: %s" % (
                        w.name, p.returncode, text[-600:]))
            if failed:
                continue
            (a, log, window), (b, _, _) = [_row(o) for o in outs]
            assert a["status"] == "ok", (w.name, a["reason"])
            assert int(a["ops"]) == workloads.ops(w, _n(w))
            assert float(a["workload_s"]) > 0 and int(a["kernel_insns"]) > 0
            assert "jlbench: %s: " % w.name in log and w.expect in log
            ready = log.find("jlbench: rng: the kernel's crng is ready")
            assert 0 < ready < log.find("jlbench: running "), w.name
            over = {f: s[1] for f, s in window.families.items()
                    if s[1] > composition.LIMIT_PCT}
            assert not over, (w.name, over)
            assert "jlbench.run=%s" % ",".join(
                workloads.words(w, _n(w))) in log
            diff = {k: (a[k], b[k]) for k in EXACT if a[k] != b[k]}
            assert not diff, "%s: a repeat differs: %s" % (w.name, diff)
    assert not failed, "\n".join(failed)
