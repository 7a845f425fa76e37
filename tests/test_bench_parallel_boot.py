"""Determinism under concurrency: real smoke-kernel boots, alone and side
by side, give the same bits.

One short icount plan (two kernels, two seeds, 3 s of tbench with 2
clients) runs with --jobs 1 and again with --jobs 2. Every run's measured
runs.csv cells, per-second samples and branch-count plugin report must be
identical per (label, perturb_seed) (lib/format/identity.py), and so must the
serial consoles. Kernels and image come from conftest's smoke fixtures;
the test holds /tmp/jlbench-cpu.lock, so it never overlaps a kernel build.
"""
import calendar
import csv
import json
import os
import sys
import time

import pytest

from conftest import ROOT, cpu_lock, run

sys.path.insert(0, str(ROOT))
from lib.format import identity  # noqa: E402

pytestmark = pytest.mark.integration

PLAN = ["--accel", "icount", "--clients", "2", "--seconds", "3",
        "--boots", "2", "--variants", "jump-label,atomic-read", "--no-aa",
        "--seed", "2026", "--quiet", "--timeout", "600"]


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
                                                   smoke_image, tmp_path):
    dirs = {}
    with cpu_lock():
        for jobs in (1, 2):
            out = tmp_path / ("jobs-%d" % jobs)
            run([str(ROOT / "bench" / "run"), "--builds", smoke_builds_tsv,
                 "--initramfs", smoke_image, "--results-root",
                 str(tmp_path / "results"), "--out", str(out),
                 "--jobs", str(jobs)] + PLAN)
            dirs[jobs] = out.read_text().strip()
    alone, beside = dirs[1], dirs[2]
    assert most_at_once(alone) == 1 and most_at_once(beside) == 2
    runs, counted = identity.summary(alone)
    assert runs == 4
    meta = json.load(open(os.path.join(beside, "meta.json")))
    assert meta["runner"]["jobs"] == 2
    if meta["plugin"]["path"]:
        assert counted == 4
    assert identity.differences(alone, beside) == []
    assert identity.consoles(alone, beside) == []
