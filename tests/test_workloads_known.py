"""The workloads' known answer: a change on a path that a new workload
takes and tbench hardly does. A loop of 400 volatile increments is
planted in do_futex(), which every futex system call runs
(make_series.py --target futex), behind a neutral patch. bench/bisect
--workload futex names the planted patch, its change many times tbench's,
significant, and do_futex first in its per-function profile; the same
two kernels on tbench differ by little. Smoke kernels, short runs.
"""
import csv
import json
import os

import pytest

from conftest import CALIBRATED, MAKE_SERIES, ROOT, cpu_lock, run

pytestmark = pytest.mark.integration

PLANTED = "0002-do-futex-loop-400.patch"
# futex bogo ops per run: about 0.15 s of guest time on a smoke kernel
FUTEX_OPS = 5000
KERNEL_INSNS = "kernel_insns_per_op"


def _log(out):
    with open(out / "bisect.log") as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def _builds(out, variant):
    with open(out / ("step-%s" % variant) / "builds.tsv") as f:
        return f.read()


def _insns_change(results):
    with open(os.path.join(results, "stats.json")) as f:
        st = json.load(f)
    (m,) = [m for m in st["metrics"] if m["metric"] == KERNEL_INSNS]
    (c,) = [c for c in m["comparisons"] if c["group"] == "main"]
    return c


def test_bisect_on_the_futex_workload_names_a_change_tbench_hardly_sees(
        series_tree, tmp_path, plugin_so):
    series = tmp_path / "series"
    run([MAKE_SERIES, str(series_tree), str(series), "--count", "2",
         "--planted", "2", "--target", "futex"])
    out = tmp_path / "bisect"
    with cpu_lock():
        p = run([str(ROOT / "bench" / "bisect"), "--series", str(series),
                 "--out", str(out), "--config", "smoke", "--workload",
                 "futex", "--loops", str(FUTEX_OPS)], env=CALIBRATED)
    first = p.stdout.splitlines()[0]
    assert first.startswith("first bad: ") and PLANTED in first, p.stdout
    log = _log(out)
    assert log[0]["workload"] == "futex" and log[0]["loops"] == FUTEX_OPS
    end = log[-1]
    assert end["event"] == "end" and end["first_bad"] == 2, end
    futex = end["vs_parent"]
    assert futex["pct_ci_lo"] > 0, futex     # significant: more work
    name, diff, _, _, share = end["top_functions"][0]
    assert name == "do_futex" and diff > 0 and share > 0.8, end
    steps = {e["i"]: e["variant"] for e in log if e["event"] == "step"}

    # tbench on the two ends: the same kernels, hardly a change (two
    # seeds: the ratio of the changes, not an interval, is the answer)
    tsv = tmp_path / "builds.tsv"
    tsv.write_text(_builds(out, steps[0]) + _builds(out, steps[2]))
    image = run([str(ROOT / "guest-image" / "build"), "--builds",
                 str(tsv)]).stdout.strip()
    with cpu_lock():
        run([str(ROOT / "bench" / "run"), "--builds", str(tsv),
             "--initramfs", image, "--accel", "icount", "--no-aa",
             "--variants", "%s,%s" % (steps[0], steps[2]), "--baseline",
             steps[0], "--boots", "2", "--seed", "1", "--seconds", "2",
             "--clients", "2", "--quiet", "--results-root",
             str(tmp_path / "results"), "--out", str(tmp_path / "tb")])
    results = (tmp_path / "tb").read_text().strip()
    run([str(ROOT / "analysis" / "analyze"), "--no-history", results])
    tbench = _insns_change(results)
    with open(os.path.join(results, "runs.csv"), newline="") as f:
        assert all(r["status"] == "ok" for r in csv.DictReader(f))
    assert abs(tbench["pct_change"]) * 10 < futex["pct_change"], (
        tbench, futex)
