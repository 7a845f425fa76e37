"""Per-run figures of a results dir, and where two dirs disagree.

Under icount a run's figures depend only on its kernel, image, seed and
protocol: not on the host's load, nor on the guests running beside it
(bench/parallel.py). figures() gathers, per run keyed by (label,
perturb_seed, seconds), what its ok try measured: the runs.csv cells but
those of the host (wall time, start time, place in the plan, try number),
its per-second samples and its plugin report (raw/*.counts). differences()
names every place where two dirs disagree; consoles() compares the serial
consoles of the same runs, for finding out why. bench/bench-parallel and
tests/test_bench_parallel_boot.py use them.

The plugin's whole-run counters (total_*, tbs_translated) are not per-run
figures: they include what the guest executes after it asks for power-off
until QEMU's main loop stops the vCPU (Linux's ACPI code polls a status
register meanwhile), which depends on when the host schedules that
thread. differences() leaves them out;
boot_tails() lists where they disagree.
"""
import csv
import os
import types

from bench import results

# runs.csv columns that say where and when a try ran, not what it measured.
HOST_COLUMNS = ("index", "round", "position", "try", "wall_seconds",
                "started_utc", "host")
# Plugin report keys counted over the whole run, up to QEMU's exit.
WHOLE_RUN_PREFIXES = ("total_", "tbs_translated")


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _base(d, row):
    run = types.SimpleNamespace(index=int(row["index"]),
                                variant=row["variant"])
    return results.ResultsDir(d, []).raw_base(run, int(row["try"]))


def _report(path):
    """The plugin report as ({key: value} of the window figures, {key:
    value} of the whole-run ones); ({}, {}) when there is none."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return {}, {}
    window, whole = {}, {}
    for k, v in (ln.split("=", 1) for ln in lines if "=" in ln):
        (whole if k.startswith(WHOLE_RUN_PREFIXES) else window)[k] = v
    return window, whole


def key(row):
    return (row["label"], row["perturb_seed"], row.get("seconds", ""))


def figures(d):
    """{(label, perturb_seed, seconds): {"row", "samples", "counts",
    "whole_run", "base"}} of the ok tries of results dir d."""
    samples = {}
    for s in _csv(os.path.join(d, "samples.csv")):
        samples.setdefault(s["index"], []).append(
            (s["second"], s["throughput_mbps"], s["warmup"]))
    out = {}
    for row in _csv(os.path.join(d, "runs.csv")):
        if row["status"] != "ok":
            continue
        base = _base(d, row)
        counts, whole_run = _report(base + ".counts")
        out[key(row)] = {
            "row": {c: v for c, v in row.items() if c not in HOST_COLUMNS},
            "samples": samples.get(row["index"], []),
            "counts": counts,
            "whole_run": whole_run,
            "base": base,
        }
    return out


def _name(k):
    return "%s seed %s %s s" % k


def _cells(k, x, y, kinds):
    """Lines naming each cell of kinds where runs x and y disagree."""
    return ["%s: %s %s: %r vs %r"
            % (_name(k), what, c, x[what].get(c), y[what].get(c))
            for what in kinds for c in sorted(set(x[what]) | set(y[what]))
            if x[what].get(c) != y[what].get(c)]


def differences(a, b):
    """Where the per-run figures of dirs a and b disagree: a list of lines
    (empty when every run's figures are the same bits)."""
    fa, fb = figures(a), figures(b)
    out = ["%s: no ok run in %s" % (_name(k), d)
           for d, x, y in ((b, fa, fb), (a, fb, fa)) for k in sorted(x)
           if k not in y]
    for k in sorted(set(fa) & set(fb)):
        x, y = fa[k], fb[k]
        out += _cells(k, x, y, ("row", "counts"))
        if x["samples"] != y["samples"]:
            first = next((i for i, (p, q) in enumerate(
                zip(x["samples"], y["samples"])) if p != q),
                min(len(x["samples"]), len(y["samples"])))
            out.append("%s: samples differ from sample %d on"
                       % (_name(k), first + 1))
    return out


def boot_tails(a, b):
    """Where the whole-run plugin counters of dirs a and b disagree."""
    fa, fb = figures(a), figures(b)
    return [line for k in sorted(set(fa) & set(fb))
            for line in _cells(k, fa[k], fb[k], ("whole_run",))]


def consoles(a, b):
    """Runs of both dirs whose serial consoles differ: (name, first
    differing line number) pairs."""
    fa, fb = figures(a), figures(b)
    out = []
    for k in sorted(set(fa) & set(fb)):
        with open(fa[k]["base"] + ".log", "rb") as f:
            x = f.read().splitlines()
        with open(fb[k]["base"] + ".log", "rb") as f:
            y = f.read().splitlines()
        if x != y:
            line = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q),
                        min(len(x), len(y)))
            out.append((_name(k), line + 1))
    return out


def summary(d):
    """(ok runs, of which with a plugin report)."""
    f = figures(d)
    return len(f), sum(1 for x in f.values() if x["counts"])
