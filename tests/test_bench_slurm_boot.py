"""The same plan on this machine and on a two-node Slurm cluster gives the
same bits: real smoke-kernel boots under icount.

One short plan (two kernels, two seeds, 3 s of tbench with 2 clients, the
branch-count plugin when it builds) runs with --executor local (--jobs 2)
and again with --executor slurm on tests/slurm/cluster's nodes n1 and n2
(one CPU each). Every run's measured runs.csv cells, per-second samples and
plugin report must be identical per (label, perturb_seed)
(lib/format/identity.py), and so must the serial consoles; the Slurm rows must
name both nodes. The test holds /tmp/jlbench-cpu.lock, so it never
overlaps a kernel build, and prints both wall times.
"""
import csv
import os
import sys
import time

import pytest

from conftest import ROOT, cpu_lock, run
import test_bench_slurm

sys.path.insert(0, str(ROOT))
from lib.format import identity  # noqa: E402

pytestmark = pytest.mark.integration
cluster = test_bench_slurm.cluster

PLAN = ["--accel", "icount", "--clients", "2", "--seconds", "3",
        "--boots", "2", "--variants", "jump-label,atomic-read", "--no-aa",
        "--seed", "2026", "--quiet", "--timeout", "600"]


def test_local_and_slurm_give_the_same_bits(smoke_builds_tsv, smoke_image,
                                            tmp_path, cluster):
    dirs, walls = {}, {}
    with cpu_lock():
        for executor in ("local", "slurm"):
            out = tmp_path / executor
            t0 = time.monotonic()
            run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
                 "--initramfs", smoke_image, "--results-root",
                 str(tmp_path / "results"), "--out", str(out),
                 "--executor", executor] + PLAN
                + (["--jobs", "2"] if executor == "local" else []),
                env=dict(os.environ, SLURM_CONF=cluster))
            walls[executor] = time.monotonic() - t0
            dirs[executor] = out.read_text().strip()
    local, slurm = dirs["local"], dirs["slurm"]
    print("wall time of the plan: local (--jobs 2) %.0f s, Slurm (2 nodes) "
          "%.0f s" % (walls["local"], walls["slurm"]))
    runs, counted = identity.summary(local)
    assert runs == 4 and identity.summary(slurm) == (runs, counted)
    assert identity.differences(local, slurm) == []
    assert identity.consoles(local, slurm) == []
    with open(os.path.join(slurm, "runs.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["host"] for r in rows} == {"n1", "n2"}
    assert [r["index"] for r in rows] == ["1", "2", "3", "4"]
    with open(os.path.join(local, "plan.csv")) as a, \
            open(os.path.join(slurm, "plan.csv")) as b:
        assert a.read() == b.read()
