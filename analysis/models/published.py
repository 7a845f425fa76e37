"""The model against published hardware counters: the perf stat table of
the kernel's Documentation/staging/static-keys.rst.

That table (Linux 3.3.0-rc2, an unnamed CPU) is the one published
full-counter hardware comparison of JUMP_LABEL on and off: cycles,
instructions, branches, branch-misses and elapsed time of `perf bench
sched pipe` with 100,000 round trips, the mean of 50 runs each.
`bench/run --workload pipe --model-preset NAME` runs the same workload on
jump-label and atomic-read; this module sets each preset's deltas beside
the published ones, each with its interval.

analysis/analyze records the table, read from the kernel tree in the cache
(published(), record()), in a pipe run's stats.json ("published"), so a
report re-rendered elsewhere has it. REPORT.md's table (the newest
analysed pipe run of each model with the same kernels) is
analysis/sections/models.py's published_section().
"""
import glob
import math
import os
import re
from collections import namedtuple

from analysis.models import modelcost
from analysis.results.load import (FormatError, Results, ok_rows, per_run,
                                   split_counter)
from analysis.results.metrics import missing
from analysis.stats import analyze
from lib import hostinfo, variants, workloads

DOC = "Documentation/staging/static-keys.rst"
# The two perf stat blocks of DOC, by the words that open them.
KERNELS = {"jump label disabled": "off", "jump label enabled": "on"}
COUNTERS = ("cycles", "instructions", "branches", "branch-misses",
            "seconds time elapsed")
# The kernels whose difference the table stands for: JUMP_LABEL on is
# jump-label, off is atomic-read (the fallback's atomic_read()).
ON, OFF = variants.PUBLISHED_ON, variants.PUBLISHED_OFF
_STAT_LINE = re.compile(
    r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s+([a-zA-Z][a-zA-Z -]*?)\s*"
    r"(?:#.*?)?(?:\(\s*\+-\s*([0-9.]+)%\s*\))?\s*$")
# (published counter, what here stands for it, runs.csv columns summed
# per round trip, or a per-run column as it is).
ROWS = [
    ("cycles", "modelled cycles, with overlap",
     ("model_cycles_ooo",)),
    ("cycles", "modelled cycles, in order",
     ("model_cycles",)),
    ("instructions", "instructions (counted)",
     ("kernel_insns", "user_insns")),
    ("branches", "conditional branches (counted)",
     ("kernel_branches", "user_branches")),
    ("branch-misses", "mispredictions (modelled)",
     ("kernel_mispredicts", "user_mispredicts")),
    ("seconds time elapsed", "guest time per round trip (icount)",
     "pipe_usecs_per_op"),
]


def doc_path():
    """DOC in an extracted kernel tree of the cache, or None."""
    for tree in sorted(glob.glob(os.path.join(hostinfo.cache_dir(), "src",
                                              "linux-*"))):
        path = os.path.join(tree, DOC)
        if os.path.isfile(path):
            return path
    return None


def published(text):
    """The perf stat table of DOC (its text): {"off"|"on": {counter:
    (mean, relative stdev of the mean in %, or None)}}; counters as perf
    names them ("cycles", "seconds time elapsed", ...). Raises ValueError
    when the text does not hold both blocks."""
    out, block = {}, None
    for line in text.splitlines():
        words = line.strip().rstrip(":").lower()
        if words in KERNELS:
            block = out.setdefault(KERNELS[words], {})
            continue
        m = _STAT_LINE.match(line)
        if block is None or not m:
            continue
        value = float(m.group(1).replace(",", ""))
        block[m.group(2).strip()] = (
            value, float(m.group(3)) if m.group(3) else None)
    for k in KERNELS.values():
        if not set(COUNTERS) <= set(out.get(k, {})):
            raise ValueError("%s: no perf stat block for jump label %s "
                             "with %s" % (DOC, k, ", ".join(COUNTERS)))
    return out


def published_change(table, counter):
    """The published % change of counter, JUMP_LABEL on vs off, with an
    approximate 95% interval from the two means' relative errors (perf
    stat's "+-", the stdev of the mean of 50 runs; one without it counts
    as exact): (pct, lo, hi)."""
    on, e_on = table["on"][counter]
    off, e_off = table["off"][counter]
    pct = 100.0 * (on / off - 1.0)
    rel = math.hypot(e_on or 0.0, e_off or 0.0) / 100.0
    half = 100.0 * (on / off) * 1.96 * rel
    return pct, pct - half, pct + half


def record():
    """stats.json's "published" of a pipe run: {"source": DOC's path in
    the cache, "table": published()}, or None when no kernel tree in the
    cache has DOC."""
    path = doc_path()
    if path is None:
        return None
    with open(path) as f:
        table = published(f.read())
    return {"source": os.path.relpath(path, hostinfo.cache_dir()),
            "table": {k: {c: list(v) for c, v in b.items()}
                      for k, b in table.items()}}


def per_round_trip(ok, what):
    """Per run of ok: the sum of the columns what per round trip, or the
    per-run column what as it is (NaN where any is not a number)."""
    if isinstance(what, str):
        return split_counter(ok[what])[0]
    return sum(per_run(ok, col + "_per_op")[0] for col in what)


Figure = namedtuple("Figure", "off on change")


def figures(res):
    """{(counter, here): Figure} of a pipe run for each row of ROWS whose
    columns it has: the mean per round trip of atomic-read (off) and
    jump-label (on), and their comparison dict, paired by perturbation
    seed as its headline (the median rule)."""
    ok = ok_rows(res.runs)
    accel = ok["accel"].iloc[0] if len(ok) else "icount"
    runs = {lab: ok[ok["label"] == lab] for lab in (ON, OFF)}
    out = {}
    for counter, here, what in ROWS:
        try:
            v = {lab: per_round_trip(r, what) for lab, r in runs.items()}
        except FormatError:
            continue
        v = {lab: x[x.notna()] for lab, x in v.items()}
        if not all(len(x) for x in v.values()):
            continue
        out[(counter, here)] = Figure(
            float(v[OFF].mean()), float(v[ON].mean()), analyze.compare(
                accel, runs[ON].loc[v[ON].index], v[ON],
                runs[OFF].loc[v[OFF].index], v[OFF], [],
                "%s vs %s (%s)" % (ON, OFF, here)))
    return out


def applies(st):
    """The run compares the published table's two kernels: jump-label
    against the baseline atomic-read (a report of other kernels, a user's
    A/B, leaves the section out)."""
    return st.get("baseline") == OFF and \
        {ON, OFF} <= set(st["groups"]["main"])


def _pipe_run(meta, st):
    return st.get("workload") == workloads.PUBLISHED \
        and st.get("accel") == "icount" and applies(st)


def runs(res, st):
    """[(model, run id, meta, stats, Results)]: this run, if it is a pipe
    run of jump-label and atomic-read with the model, then the newest
    analysed such run of each other model under the same results/ dir
    whose kernels are this run's (modelcost.peers()), in
    modelcost.model_order()."""
    mine = modelcost.model_name(res.meta) \
        if _pipe_run(res.meta, st) and modelcost.present(st) else None
    root = os.path.dirname(res.path)
    return ([(mine, res.run_id, res.meta, st, res)] if mine else []) + [
        (which, name, meta, other, Results(os.path.join(root, name)))
        for which, name, meta, other in modelcost.per_model(
            modelcost.peers(res, st, _pipe_run), mine)]


def _overlaps(c, pub):
    """The comparison's interval overlaps the published (pct, lo, hi), or
    None without an interval."""
    lo, hi = c.get("pct_ci_lo"), c.get("pct_ci_hi")
    if missing(lo) or missing(hi):
        return None
    return lo <= pub[2] and pub[1] <= hi


# The round trips of the published pipe-test.
PUBLISHED_LOOPS = 100000
