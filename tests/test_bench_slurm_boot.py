"""The same plan on this machine and on a two-node Slurm cluster gives the
same bits: real smoke-kernel boots under icount.

conftest's SHORT_PLAN (two kernels, two seeds, 2 s of tbench with 2
clients, the branch-count plugin) runs with --executor slurm on
tests/slurm/cluster's nodes n1 and n2 (one CPU each), to be set beside
its --jobs 2 run on this machine (conftest.side_by_side, shared with
test_bench_parallel_boot). Every run's measured runs.csv cells, per-second
samples and plugin report must be identical per (label, perturb_seed)
(lib/format/identity.py), and so must the serial consoles; the Slurm rows
must name both nodes. The Slurm plan holds both CPUs, and the test prints
its wall time.
"""
import csv
import os
import sys
import time

import pytest

from conftest import ROOT, SHORT_PLAN, cpu_lock, run
import test_bench_slurm

sys.path.insert(0, str(ROOT))
from lib.format import identity  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("slurm")]
cluster = test_bench_slurm.cluster


def test_local_and_slurm_give_the_same_bits(smoke_builds_tsv, smoke_image,
                                            side_by_side, tmp_path, cluster):
    out = tmp_path / "slurm"
    t0 = time.monotonic()
    with cpu_lock():
        run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
             "--initramfs", smoke_image, "--results-root",
             str(tmp_path / "results"), "--out", str(out),
             "--executor", "slurm"] + SHORT_PLAN,
            env=dict(os.environ, SLURM_CONF=cluster))
    print("wall time of the plan on Slurm (2 nodes): %.0f s"
          % (time.monotonic() - t0))
    local, slurm = side_by_side, out.read_text().strip()
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
