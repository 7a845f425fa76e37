"""Determinism under concurrency: real smoke-kernel boots, alone and side
by side, give the same bits; and the perturbation seed is what moves them.

conftest's SHORT_PLAN (two kernels, two seeds, 2 s of tbench with 2
clients, the branch-count plugin) runs with --jobs 1 here, and with
--jobs 2 once per test session (conftest.side_by_side, which
test_bench_slurm_boot reads too). Every run's measured runs.csv cells,
per-second samples and branch-count plugin report must be identical per
(label, perturb_seed) (lib/format/identity.py), and so must the serial
consoles; the two seeds of one kernel must differ. Kernels and image come
from conftest's smoke fixtures; the --jobs 1 plan holds one CPU.
"""
import calendar
import csv
import json
import os
import sys
import time

import pytest

from conftest import ROOT, SHORT_PLAN, cpu_lock, run

sys.path.insert(0, str(ROOT))
from lib.format import identity  # noqa: E402

pytestmark = pytest.mark.integration
# What another seed changes (test_seeds_move_the_figures...).
MOVED = ("throughput_mbps", "max_latency_ms", "ops",
         "uptime_tbench_start_s", "uptime_tbench_end_s")


def most_at_once(d):
    """The most tries of results dir d whose wall-clock spans overlap
    (started_utc has whole seconds: a span starts 1.1 s after it)."""
    with open(os.path.join(d, "runs.csv"), newline="") as f:
        spans = []
        for r in csv.DictReader(f):
            t0 = calendar.timegm(time.strptime(r["started_utc"],
                                               "%Y-%m-%dT%H:%M:%SZ"))
            spans.append((t0 + 1.1, t0 + float(r["wall_seconds"])))
    return max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)


def test_alone_and_side_by_side_give_the_same_bits(smoke_builds_tsv,
                                                   smoke_image, side_by_side,
                                                   tmp_path):
    out = tmp_path / "jobs-1"
    with cpu_lock(cores=1):
        run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
             "--initramfs", smoke_image, "--results-root",
             str(tmp_path / "results"), "--out", str(out),
             "--jobs", "1"] + SHORT_PLAN)
    alone, beside = out.read_text().strip(), side_by_side
    assert most_at_once(alone) == 1 and most_at_once(beside) == 2
    runs, counted = identity.summary(alone)
    assert runs == 4
    meta = json.load(open(os.path.join(beside, "meta.json")))
    assert meta["runner"]["jobs"] == 2
    if meta["plugin"]["path"]:
        assert counted == 4
    assert identity.differences(alone, beside) == []
    assert identity.consoles(alone, beside) == []


def test_seeds_move_the_figures_and_the_window_is_counted(side_by_side):
    """The same kernel under its two seeds: other figures (the agent's
    perturbation works); every run's plugin window opened and closed once
    around real kernel and user work."""
    figs = identity.figures(side_by_side)
    by_kernel = {}
    for (label, seed, _), f in figs.items():
        assert seed != "0"
        by_kernel.setdefault(label, []).append(
            [f["row"][c] for c in MOVED] + [f["samples"]])
    assert sorted(by_kernel) == ["atomic-read", "jump-label"]
    for label, (a, b) in by_kernel.items():
        assert a != b, label
    meta = json.load(open(os.path.join(side_by_side, "meta.json")))
    if not meta["plugin"]["path"]:
        return
    for f in figs.values():
        c = f["counts"]
        assert (c["window"], c["markers_start"], c["markers_end"]) == \
            ("1", "1", "1")
        for k in ("kernel_insns", "user_insns", "kernel_branches",
                  "user_branches"):
            assert int(c[k]) > 10**6, k
