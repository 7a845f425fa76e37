"""bench/run --workload pipe with the smoke kernels under icount, briefly
(2,000 round trips, two kernels at once, the nehalem preset's model), then
analysis/analyze and analysis/report on the results dir: the pipe block,
its runs.csv cells, the plugin's window, the report's pipe wording and its
comparison with the published perf stat table.

Kernels and image come from conftest's smoke fixtures; the test holds
/tmp/jlbench-cpu.lock while it boots.
"""
import csv
import json
import os

import pytest

from conftest import ROOT, cpu_lock, run
from lib.format import rawfiles

pytestmark = pytest.mark.integration

LOOPS = 2000


def test_pipe_runs_under_the_window_and_reports_its_own_headline(
        smoke_builds_tsv, smoke_image, tmp_path):
    with cpu_lock():
        run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
             "--initramfs", smoke_image, "--results-root",
             str(tmp_path / "results"), "--out", str(tmp_path / "out"),
             "--accel", "icount", "--workload", "pipe", "--loops",
             str(LOOPS), "--boots", "1", "--seed", "3", "--no-aa",
             "--variants", "jump-label,atomic-read", "--jobs", "2",
             "--perf", "task-clock,context-switches", "--quiet",
             "--timeout", "300", "--model-preset", "nehalem"])
    d = (tmp_path / "out").read_text().strip()
    meta = json.load(open(os.path.join(d, "meta.json")))
    assert meta["protocol"]["workload"] == "pipe"
    assert meta["protocol"]["task"] == "pipe"
    assert meta["protocol"]["loops"] == LOOPS
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    assert sorted(rows) == ["atomic-read", "jump-label"]
    for v, r in rows.items():
        assert r["status"] == "ok", r["reason"]
        assert int(r["ops"]) == LOOPS and r["throughput_mbps"] == ""
        assert float(r["pipe_usecs_per_op"]) > 0
        # two context switches per round trip, at least
        assert int(r["perf_context_switches"]) >= 2 * LOOPS
        if meta["plugin"]["path"]:
            assert r["plugin_window"] == "1"
            assert int(r["kernel_insns"]) > 0 and int(r["user_insns"]) > 0
        log = rawfiles.open(os.path.join(d, "raw", "%03d-%s-try1.log" % (
            int(r["index"]), v))).read()
        assert "jlbench.mode=pipe" in log and "jlbench.loops=%d" % LOOPS \
            in log
        assert "jlbench: pipe: # Executed %d pipe operations" % LOOPS in log
    with open(os.path.join(d, "samples.csv")) as f:
        assert len(f.read().splitlines()) == 1     # the header only

    run([str(ROOT / "analysis" / "analyze"), "--no-history", "--strict",
         d])
    st = json.load(open(os.path.join(d, "stats.json")))
    assert st["workload"] == "pipe" and st["headline"] == "ops_per_s"
    assert {m["metric"] for m in st["metrics"]} >= {"ops_per_s", "ops"}
    assert "throughput_mbps" not in {m["metric"] for m in st["metrics"]}
    out = tmp_path / "REPORT.md"
    run([str(ROOT / "analysis" / "report"), d, "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# jlbench: ") and \
        ", workload pipe\n" in text.splitlines()[0] + "\n"
    assert "pipe operations (one: pipe round trip) per second" in text
    assert "perf bench sched pipe -l %d" % LOOPS in text
    # the published table, from the kernel tree the smoke builds extracted
    assert st["published"]["source"].endswith(
        "Documentation/staging/static-keys.rst")
    sec = text.split("## Against published hardware counters")[1]
    rows = [ln for ln in sec.splitlines()
            if ln.startswith("| branch-misses: -12.30%")]
    assert len(rows) == 1 and "| mispredictions (modelled) |" in rows[0]
    assert "`nehalem` (run %s)" % os.path.basename(d) in sec
    assert "MB/s" not in text and "tbench" not in text.split(
        "## Host, versions and protocol")[0]
