"""The REPORT.md of a run of a workload other than tbench (`bench/run
--workload NAME`, lib/workloads.py): a fixed amount of work per run.

Its headline is the workload's operations per second (guest time under
icount): pipe's by perf bench's own clock (10^6 / `pipe_usecs_per_op`),
every other's the operations of its command over the guest seconds it
took. Counters are per operation.

pipe (`perf bench sched pipe -l N`: two processes pass an int back and
forth through two pipes, N round trips) is the workload of the one
published full-counter hardware comparison of JUMP_LABEL on and off, the
`perf stat` table of the kernel's Documentation/staging/static-keys.rst
(Linux 3.3.0-rc2, an unnamed CPU, the mean of 50 runs of a pipe-test of
100,000 round trips): analysis/models/published.py sets its model's deltas
beside that table.
"""
from analysis.models import published
from analysis.sections import changed, facts, models
from analysis.sections import fmt as F
from analysis.sections.fmt import head
from analysis.results import compat, reference, runinfo
from analysis.results.runinfo import comparisons, metric
from lib import workloads
from lib.format import schema


def _workload(st):
    """The workload's record (lib/workloads.py) of a stats dict."""
    return workloads.WORKLOAD[compat.workload(st)]


def _headline(st):
    return metric(st, schema.figures(compat.workload(st)).headline)


def _cell(x, digits=6):
    return "n/a" if F.missing(x) else F.val(x, digits)


def _rate(x):
    return "n/a" if F.missing(x) else "%.1f" % x


def variant_table(st, group):
    """Operations per second of each label of group."""
    m = _headline(st)
    info = {i["label"]: i for i in st["labels"]}
    rows = []
    for lab in st["groups"][group]:
        d = m["per_label"][lab]
        rows.append(["`%s`" % lab, d["n"], info[lab]["failed"],
                     _rate(d["mean"]),
                     _cell(1e6 / d["mean"] if d["mean"] else None, 7),
                     F.val(d["cov_pct"], 3), _rate(d["min"]),
                     _rate(d["max"]),
                     "[%s, %s]" % (_rate(d["ci_lo"]), _rate(d["ci_hi"]))])
    return F.table(["label", "n", "failed tries", "ops/s",
                    "us per op", "CoV %", "min", "max",
                    "95% CI of the mean"], rows, "lrrrrrrrr")


def comparison_table(st, group):
    """The headline's comparisons of group against their baseline."""
    rows = []
    for c in _headline(st)["comparisons"]:
        if c["group"] != group:
            continue
        n = "%d pairs" % c["n"] if c["paired"] else "%d vs %d" % (
            c["n"], c["n_baseline"])
        rows.append(["`%s` vs `%s`" % (c["label"], c["baseline"]),
                     F.pct_ci(c), c["marker"],
                     "%s %s" % (c["test_t"], F.p_is(c["p_t"])), n,
                     F.val(c["noise_pct"], 3), F.val(c["mde_pct"], 3)])
    if not rows:
        return "No comparison: no `%s` runs." % st["baseline"]
    return F.table(["comparison", "% change [95% CI]", "", "test", "n",
                    "noise %", "MDE %"], rows, "lrcllrr")


def counters(st):
    """Every counter per operation, by label, with its % change."""
    main = st["groups"]["main"]
    rows = []
    for m in st["metrics"]:
        if not m["metric"].endswith("_per_op"):
            continue
        col = m["metric"][:-len("_per_op")]
        if schema.is_model(col) or all(
                F.missing(d["mean"]) and not d["text"]
                for d in m["per_label"].values()):
            continue
        comps = comparisons(m, "main")
        cells = []
        for lab in main:
            d, c = m["per_label"][lab], comps.get(lab)
            cell = d["text"] or _cell(d["mean"])
            if c is not None and not F.missing(c["pct_change"]):
                cell += " (%s %s)" % (F.pct(c["pct_change"], 3),
                                      c["marker"])
            cells.append(cell)
        rows.append([schema.counter(col).name] + cells)
    if not rows:
        return "No counters in this run."
    return F.table(["counter per op"] + ["`%s`" % v for v in main],
                   rows)


def answer(st):
    """The opening sentence: each kernel's operations per second against
    the baseline."""
    m = _headline(st)
    w = _workload(st)
    parts = []
    for c in comparisons(m, "main").values():
        parts.append("`%s` %s %s" % (
            c["label"], F.pct_ci(c),
            "(significant)" if c["significant"] else "(not resolved)"))
    if not parts:
        return "No comparison against `%s` in this run." % st["baseline"]
    return ("**Answer** (%s): %s operations (one: %s) per second "
            "against `%s`: %s." % (runinfo.accel(st).head, w.name, w.op,
                                   st["baseline"], "; ".join(parts)))


def workload(res, st):
    """What the guest ran (and, for pipe, how it differs from the
    documentation's measurement)."""
    p = res.meta.get("protocol") or {}
    w = _workload(st)
    n = p.get("loops", w.n)
    command = " ".join(workloads.words(w, n)) if w.argv else \
        "perf bench sched pipe -l %s" % n
    text = [
        "Workload: %s. Each run is a fresh boot whose agent runs `%s`%s "
        "between its window markers (the plugin's counts are taken "
        "between them, so they include the command's start and exit). "
        "One operation is one %s (%s per run). The headline is operations "
        "per second%s; counters are per operation." % (
            w.title, command,
            " under `perf stat -a -e %s`" % p["perf"]
            if p.get("perf", "none") != "none" else "",
            w.op, workloads.ops(w, n),
            " by perf bench's own clock (10^6 / its usecs/op)"
            if w.task == workloads.PIPE else ", guest seconds of the command")]
    if w.name == workloads.PUBLISHED:
        text += [
            "",
            "Differences from the documentation's measurement: it ran on "
            "Linux 3.3.0-rc2 and an unnamed CPU, 50 runs per `perf stat -r "
            "50` of one boot, probably with the two tasks on two CPUs (0.53 "
            "CPUs utilized); here every run is one boot of one vCPU, and "
            "the sample unit is a boot (a perturbation seed under icount)."]
    return "\n".join(text)


def model(st, res):
    """modelcost's section, in this workload's words."""
    text = models.section(st, res)
    return text.replace("per tbench operation", "per %s" % _workload(st).op) \
        .replace("inside tbench's window", "inside the workload's window")


def render(res, st, out_path, plots_dir):
    """REPORT.md of a run of a workload other than tbench (plots_dir:
    unused, no plots of one run of these yet)."""
    del out_path, plots_dir
    what = " vs ".join(reference.words(lab) for lab in st["groups"]["main"])
    top = "\n".join(["# jlbench: %s, workload %s" % (
        what, compat.workload(st)), "", answer(st)] + (
        ["", *changed.lines(res, st, False)]
        if comparisons(_headline(st), "main") and not runinfo.with_2011(st)
        else []))
    sections = [
        ("This run", workload(res, st)),
        ("Statistics", "\n".join([
            head("Operations per second per variant (headline)"), "",
            variant_table(st, "main"), "",
            head("Operations per second against %s" % st["baseline"]),
            "", comparison_table(st, "main"), "",
            head("A/A control: one kernel under two labels"), "",
            (variant_table(st, "aa") + "\n\n" + comparison_table(st, "aa"))
            if st["groups"]["aa"] else "No A/A control in this run."])),
        ("Counts per operation", "\n".join([
            head("Per operation (counts / operations), %% vs %s"
                 % st["baseline"]), "", counters(st)])),
        ("Modelled hardware cost", model(st, res)),
    ] + ([("Against published hardware counters",
           models.published_section(res, st))]
         if published.applies(st) else []) + [
        ("Kernels", facts.builds(res)),
        ("Drift, steal time and failed runs", facts.drift(st)),
        ("Warnings", facts.warnings(st)),
        ("Host, versions and protocol", facts.hosts(st) + facts.meta(res)),
        ("Method", facts.method(st)),
    ]
    body = "\n\n".join("## %s\n\n%s" % sec for sec in sections)
    return top + "\n\n" + body + "\n"
