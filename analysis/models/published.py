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
report re-rendered elsewhere has it. section() is REPORT.md's table: the
newest analysed pipe run of each model with the same kernels.
"""
import glob
import math
import os
import re
from collections import namedtuple

from analysis.reporting import fmt as F
from analysis.models import modelcost
from analysis.stats import analyze
from analysis.results.load import FormatError, Results, per_run, split_counter
from analysis.reporting.fmt import head
from lib import hostinfo, model

DOC = "Documentation/staging/static-keys.rst"
# The two perf stat blocks of DOC, by the words that open them.
KERNELS = {"jump label disabled": "off", "jump label enabled": "on"}
COUNTERS = ("cycles", "instructions", "branches", "branch-misses",
            "seconds time elapsed")
# The kernels whose difference the table stands for: JUMP_LABEL on is
# jump-label, off is atomic-read (the fallback's atomic_read()).
ON, OFF = "jump-label", "atomic-read"
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
    ok = res.runs[res.runs["status"] == "ok"]
    mode = ok["mode"].iloc[0] if len(ok) else "icount"
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
                mode, runs[ON].loc[v[ON].index], v[ON],
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
    return st.get("workload") == "pipe" and st.get("mode") == "icount" \
        and applies(st)


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
    if F.missing(lo) or F.missing(hi):
        return None
    return lo <= pub[2] and pub[1] <= hi


def _changes(table, got, figs):
    """The % changes, published and each model's (a cell whose interval
    overlaps the published one marked "overlaps"), and how many cells
    have an interval and how many of them overlap."""
    rows, have, overlap = [], 0, 0
    for counter, here, _ in ROWS:
        p = published_change(table, counter)
        cells = []
        for fig in figs:
            f = fig.get((counter, here))
            o = None if f is None else _overlaps(f.change, p)
            have += o is not None
            overlap += bool(o)
            cells.append("n/a" if f is None else F.pct_ci(f.change)
                         + (" overlaps" if o else ""))
        rows.append(["%s: %+.2f%% [%+.2f, %+.2f]" % ((counter,) + p), here]
                    + cells)
    return F.table(["published: JUMP_LABEL on vs off [95% CI]", "here"]
                   + ["`%s` (run %s)" % (w, r) for w, r, _, _, _ in got],
                   rows, "ll" + "r" * len(got)), have, overlap


def _scale(table, got, figs):
    """Per round trip: published off and on (the whole count / the round
    trips), then each model's atomic-read and jump-label."""
    rows = []
    for counter, here, _ in ROWS:
        scale, unit = (1e6, " us") if counter == "seconds time elapsed" \
            else (1.0, "")
        cells = [F.val(table[k][counter][0] / PUBLISHED_LOOPS * scale, 5)
                 + unit for k in ("off", "on")] + [here]
        for fig in figs:
            f = fig.get((counter, here))
            cells += ["n/a", "n/a"] if f is None else [
                F.val(f.off, 5) + unit, F.val(f.on, 5) + unit]
        rows.append([counter] + cells)
    return F.table(
        ["per round trip", "published off", "published on", "here"]
        + ["`%s` `%s`" % (w, k) for w, _, _, _, _ in got for k in (OFF, ON)],
        rows, "lrrl" + "r" * (2 * len(got)))


def _saved(table, got, figs):
    """Sentences: what jump labels save per round trip, here and
    published."""
    def pub(counter):
        return (table["off"][counter][0] - table["on"][counter][0]) \
            / PUBLISHED_LOOPS

    def here(fig, counter, what):
        f = fig.get((counter, what))
        return None if f is None else f.off - f.on
    insns = here(figs[0], "instructions", "instructions (counted)")
    branches = here(figs[0], "branches", "conditional branches (counted)")
    if insns is None or branches is None:
        return ""
    cycles = ["`%s` %.0f" % (w, c) for (w, _, _, _, _), c in zip(got, [
        here(f, "cycles", "modelled cycles, with overlap") for f in figs])
        if c is not None]
    return (
        "Jump labels save %.0f instructions and %.0f conditional branches "
        "per round trip here%s; %.0f instructions, %.0f branches (of every "
        "kind) and %.0f cycles in the published table. A saved conditional "
        "branch is a static-key check that compiled to a NOP: this path "
        "runs several times as many per round trip as 3.3's did, so the "
        "instructions' and branches' %% changes are larger here. " % (
            insns, branches, ", and modelled cycles with overlap: "
            + ", ".join(cycles) if cycles else "", pub("instructions"),
            pub("branches"), pub("cycles")))


def section(res, st):
    """REPORT.md's comparison of the model's deltas with the published
    ones, or a paragraph saying what is missing."""
    got = runs(res, st)
    if not got:
        return (
            "No pipe run with the model of these kernels under this "
            "results dir: `./run_all.sh --workload pipe --variants "
            "%s,%s --no-aa --boots 6 --model-preset NAME` makes one per "
            "core preset." % (ON, OFF))
    pub = next((o["published"] for _, _, _, o, _ in got
                if o.get("published")), None)
    if pub is None:
        return ("The pipe runs (%s) were analysed without the published "
                "table: no kernel tree in the cache has %s (`lib/deps`, "
                "then analysis/analyze them again)." % (
                    ", ".join(r for _, r, _, _, _ in got), DOC))
    table = {k: {c: tuple(v) for c, v in b.items()}
             for k, b in pub["table"].items()}
    figs = [figures(r) for _, _, _, _, r in got]
    changes, have, overlap = _changes(table, got, figs)
    loops = {m.get("protocol", {}).get("loops") for _, _, m, _, _ in got}
    return "\n".join([
        "**A model against hardware**: the kernel's own %s has a `perf "
        "stat` table of a JUMP_LABEL-on and a JUMP_LABEL-off kernel on "
        "`perf bench sched pipe` (%s round trips, 50 runs each, Linux "
        "3.3.0-rc2, an unnamed CPU), recorded from `$JLBENCH_CACHE/%s` "
        "when the pipe runs were analysed. Beside each published %% "
        "change, the same change here, `%s` vs `%s`, from the newest pipe "
        "run of each core model (`--workload pipe`, %s round trips, paired "
        "by perturbation seed as a headline; instructions and branches "
        "are the plugin's exact counts, the rest a model's). %s" % (
            DOC, "{:,}".format(PUBLISHED_LOOPS), pub["source"], ON, OFF,
            "/".join("{:,}".format(x) if isinstance(x, int) else str(x)
                     for x in sorted(loops, key=str)),
            PRESETS_FIXED), "",
        head(st, "Published hardware counters vs the model, %s vs %s"
             % (ON, OFF)), "",
        changes, "",
        "Published intervals: 1.96 x the two means' errors (perf stat's "
        "\"+-\", the stdev of the mean; the enabled kernel's elapsed time "
        "has none). " + (
            "%d of the %d changes here with an interval overlap the "
            "published interval (marked)." % (overlap, have)
            if have else "No run here has the 6 seeds an "
            "interval needs."), "",
        head(st, "Per round trip: published and here"), "",
        _scale(table, got, figs), "",
        "Published: the whole count of `perf stat` / %s round trips (it "
        "includes the start of bash and perf). " % "{:,}".format(
            PUBLISHED_LOOPS) + _saved(table, got, figs)
        + DIFFERENCES.format(linux=st.get("linux") or "?")])


# The round trips of the published pipe-test.
PUBLISHED_LOOPS = 100000
PRESETS_FIXED = (
    "The presets' parameters were fixed and committed before the first "
    "pipe run with the model: %s (caches, predictors, penalties) and %s "
    "(reorder buffer and width); this comparison is shown as it came "
    "out, never tuned." % model.PRESETS_FIXED_IN)


DIFFERENCES = (
    "What differs, and is left as it is: their kernel was 3.3 with "
    "JUMP_LABEL on or off, ours Linux {linux} with our atomic-read "
    "fallback; their "
    "CPU is unnamed, ours a model; perf stat counted all of `bash -c "
    "pipe-test` across two CPUs, our window counts one vCPU from perf "
    "bench's start to its exit; perf's `branches` is every retired "
    "branch (calls, returns and jumps too), ours the conditional ones; "
    "elapsed time here is guest time under icount, which follows the "
    "instruction count, not the cycles.")
