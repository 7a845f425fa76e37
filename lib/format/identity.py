"""Per-run figures of a results dir, and where two dirs disagree.

Under icount a run's figures depend only on its kernel, image, seed and
protocol: not on the host's load, nor on the guests running beside it
(bench/guest/parallel.py). figures() gathers, per run keyed by (label,
perturb_seed, seconds), what its ok try measured: the runs.csv cells but
those of the host (wall time, start time, place in the plan, try number),
its per-second samples and its plugin report (raw/*.counts). differences()
names every place where two dirs disagree; consoles() compares the serial
consoles of the same runs, for finding out why. bench/timing/bench-parallel and
tests/test_bench_parallel_boot.py use them. For one try: recorded_try()
gives the same figures of a try as recorded in its dir, try_figures() of
raw files that have no runs.csv row yet (a rerun, bench/replay/provenance.py),
and compare() names where two such figures disagree.

The plugin's whole-run counters (total_*, tbs_translated) are not per-run
figures: they include what the guest executes after it asks for power-off
until QEMU's main loop stops the vCPU (Linux's ACPI code polls a status
register meanwhile), which depends on when the host schedules that thread.
They are kept apart ("whole_run"): compare() and differences() leave them
out, boot_tails() lists where they disagree.
"""
import csv
import os
import types

from lib import workloads
from lib.format import rawfiles, rawtry, results

# runs.csv columns that say where and when a try ran, not what it measured.
HOST_COLUMNS = ("index", "round", "position", "try", "wall_seconds",
                "started_utc", "host")
# Plugin report keys counted over the whole run, up to QEMU's exit.
WHOLE_RUN_PREFIXES = ("total_", "tbs_translated")


def csv_rows(path):
    """The rows of a CSV file with a header, as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def try_base(d, row):
    """raw/<NNN>-<variant>-try<K> of the try of runs.csv row in dir d."""
    run = types.SimpleNamespace(index=int(row["index"]),
                                variant=row["variant"])
    return results.ResultsDir(d, []).raw_base(run, int(row["try"]))


def _report(path):
    """The plugin report of a try as {"counts": {key: value} of its window
    figures, "whole_run": {key: value} of the others} (both {} when there
    is none)."""
    window, whole = {}, {}
    try:
        with rawfiles.open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []
    for k, v in (ln.split("=", 1) for ln in lines if "=" in ln):
        (whole if k.startswith(WHOLE_RUN_PREFIXES) else window)[k] = v
    return {"counts": window, "whole_run": whole}


def key(row):
    return (row["label"], row["perturb_seed"], row.get("seconds", ""))


def figures(d):
    """{(label, perturb_seed, seconds): {"row", "samples", "counts",
    "whole_run", "base"}} of the ok tries of results dir d."""
    samples = {}
    for s in csv_rows(os.path.join(d, "samples.csv")):
        samples.setdefault(s["index"], []).append(
            (s["second"], s["throughput_mbps"], s["warmup"]))
    out = {}
    for row in csv_rows(os.path.join(d, "runs.csv")):
        if row["status"] != "ok":
            continue
        base = try_base(d, row)
        out[key(row)] = {
            "row": {c: v for c, v in row.items() if c not in HOST_COLUMNS},
            "samples": samples.get(row["index"], []),
            "base": base,
            **_report(base + ".counts"),
        }
    return out


def recorded_try(d, row):
    """The figures of the try of runs.csv row (a dict) in dir d, as
    figures() gives them."""
    samples = [(s["second"], s["throughput_mbps"], s["warmup"])
               for s in csv_rows(os.path.join(d, "samples.csv"))
               if s["index"] == row["index"]]
    base = try_base(d, row)
    return {"row": {c: v for c, v in row.items() if c not in HOST_COLUMNS},
            "samples": samples, "base": base, **_report(base + ".counts")}


def _cell(value):
    """A value as runs.csv holds it."""
    return "" if value is None else str(value)


def try_figures(base, perf_events, plugin, ended,
                workload=workloads.DEFAULT):
    """The figures of the try whose raw files start with base, derived with
    the runner's parser (lib/format/rawtry.py): "row" holds the cells derive()
    owns, as runs.csv would hold them."""
    got = rawtry.derive(base, perf_events, plugin, ended, workload)
    values = [(x, 1) for x in got.warmup] + [(x, 0) for x in got.measured]
    return {"row": {c: _cell(v) for c, v in got.cells.items()},
            "samples": [(str(n), _cell(x), str(w))
                        for n, (x, w) in enumerate(values, 1)],
            "base": base, **_report(base + ".counts")}


def compare(x, y, name, columns=None):
    """Where figures x and y (figures(), recorded_try(), try_figures())
    disagree: lines naming each cell, window count and the first sample
    that differ. columns: the row cells to compare (default: all of
    both)."""
    out = []
    for what in ("row", "counts"):
        keys = columns if what == "row" and columns is not None \
            else sorted(set(x[what]) | set(y[what]))
        for c in keys:
            if x[what].get(c) != y[what].get(c):
                out.append("%s: %s %s: %r vs %r" % (
                    name, what, c, x[what].get(c), y[what].get(c)))
    if x["samples"] != y["samples"]:
        first = next((i for i, (p, q) in enumerate(
            zip(x["samples"], y["samples"])) if p != q),
            min(len(x["samples"]), len(y["samples"])))
        out.append("%s: samples differ from sample %d on (%d vs %d samples)"
                   % (name, first + 1, len(x["samples"]),
                      len(y["samples"])))
    return out


def _name(k):
    return "%s seed %s %s s" % k


def differences(a, b):
    """Where the per-run figures of dirs a and b disagree: a list of lines
    (empty when every run's figures are the same bits)."""
    fa, fb = figures(a), figures(b)
    out = ["%s: no ok run in %s" % (_name(k), d)
           for d, x, y in ((b, fa, fb), (a, fb, fa)) for k in sorted(x)
           if k not in y]
    for k in sorted(set(fa) & set(fb)):
        out += compare(fa[k], fb[k], _name(k))
    return out


def boot_tails(a, b):
    """Where the whole-run plugin counters of dirs a and b disagree."""
    fa, fb = figures(a), figures(b)
    return ["%s: whole_run %s: %r vs %r" % (_name(k), c, x.get(c), y.get(c))
            for k in sorted(set(fa) & set(fb))
            for x, y in [(fa[k]["whole_run"], fb[k]["whole_run"])]
            for c in sorted(set(x) | set(y)) if x.get(c) != y.get(c)]


def console_difference(a_base, b_base):
    """[(name, first differing line)] when the consoles of two tries
    differ, else []."""
    x = rawfiles.read_bytes(a_base + ".log").splitlines()
    y = rawfiles.read_bytes(b_base + ".log").splitlines()
    if x == y:
        return []
    line = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q),
                min(len(x), len(y)))
    return [(os.path.basename(a_base), line + 1)]


def consoles(a, b):
    """Runs of both dirs whose serial consoles differ: (name, first
    differing line number) pairs."""
    fa, fb = figures(a), figures(b)
    out = []
    for k in sorted(set(fa) & set(fb)):
        out += [(_name(k), line) for _, line in
                console_difference(fa[k]["base"], fb[k]["base"])]
    return out


def summary(d):
    """(ok runs, of which with a plugin report)."""
    f = figures(d)
    return len(f), sum(1 for x in f.values() if x["counts"])
