"""The pipe workload (`bench/run --workload pipe`): its REPORT.md.

The workload is `perf bench sched pipe -l N` in the guest: two processes
pass an int back and forth through two pipes, N round trips (an
"operation"). It is the workload of the one published full-counter
hardware comparison of JUMP_LABEL on and off, the `perf stat` table of the
kernel's Documentation/staging/static-keys.rst (Linux 3.3.0-rc2, an unnamed
CPU): cycles, instructions, branches, branch-misses and elapsed time of a
pipe-test of 100,000 round trips, the mean of 50 runs each.

render() is REPORT.md for a pipe run's stats.json (analysis/stats/analyze.py
with the workload's own headline: round trips per second, 10^6 /
`pipe_usecs_per_op`, perf bench's own clock, guest time under icount);
analysis/models/published.py sets its model's deltas beside that table.
"""
from analysis.models import published
from analysis.reporting import facts, models
from analysis.reporting import fmt as F
from analysis.reporting.fmt import head
from analysis.results import reference, runinfo
from analysis.results.runinfo import comparisons, metric
from lib.format import schema

WORKLOAD = schema.WORKLOAD["pipe"]


def _cell(x, digits=6):
    return "n/a" if F.missing(x) else F.val(x, digits)


def _rate(x):
    return "n/a" if F.missing(x) else "%.1f" % x


def variant_table(st, group):
    """Round trips per second of each label of group."""
    m = metric(st, WORKLOAD.headline)
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
    return F.table(["label", "n", "failed tries", "round trips/s",
                    "us per round trip", "CoV %", "min", "max",
                    "95% CI of the mean"], rows, "lrrrrrrrr")


def comparison_table(st, group):
    """The headline's comparisons of group against their baseline."""
    rows = []
    for c in metric(st, WORKLOAD.headline)["comparisons"]:
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
    """Every counter per round trip, by label, with its % change."""
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
    return F.table(["counter per round trip"] + ["`%s`" % v for v in main],
                   rows)


def answer(st):
    """The opening sentence: each kernel's round trips per second against
    the baseline."""
    m = metric(st, WORKLOAD.headline)
    parts = []
    for c in comparisons(m, "main").values():
        parts.append("`%s` %s %s" % (
            c["label"], F.pct_ci(c),
            "(significant)" if c["significant"] else "(not resolved)"))
    if not parts:
        return "No comparison against `%s` in this run." % st["baseline"]
    return ("**Answer** (%s): pipe round trips per second of `perf bench "
            "sched pipe` against `%s`: %s." % (
                runinfo.mode(st).head, st["baseline"], "; ".join(parts)))


def workload(res):
    """What the guest ran, and how it differs from DOC's measurement."""
    p = res.meta.get("protocol") or {}
    return "\n".join([
        "Workload: %s. Each run is a fresh boot whose agent runs `perf "
        "bench sched pipe -l %s`%s between its window markers (the "
        "plugin's counts are taken between them, so they include perf's "
        "start and exit, as perf stat's count of `bash -c pipe-test` "
        "did). The headline is round trips per second by perf bench's "
        "own clock (10^6 / its usecs/op); counters are per round trip." % (
            WORKLOAD.title, p.get("loops", "?"),
            " under `perf stat -a -e %s`" % p["perf"]
            if p.get("perf", "none") != "none" else ""),
        "",
        "Differences from the documentation's measurement: it ran on "
        "Linux 3.3.0-rc2 and an unnamed CPU, 50 runs per `perf stat -r "
        "50` of one boot, probably with the two tasks on two CPUs (0.53 "
        "CPUs utilized); here every run is one boot of one vCPU, and the "
        "sample unit is a boot (a perturbation seed under icount)."])


def model(st, res):
    """modelcost's section, in this workload's words."""
    text = models.section(st, res)
    return text.replace("per tbench operation", "per pipe round trip") \
        .replace("inside tbench's window", "inside perf bench's window")


def render(res, st, out_path, plots_dir):
    """REPORT.md of a pipe run (plots_dir: unused, no pipe plots yet)."""
    del out_path, plots_dir
    what = " vs ".join(reference.words(lab) for lab in st["groups"]["main"])
    top = "\n".join(["# jlbench: %s, perf bench sched pipe" % what, "",
                     answer(st)])
    sections = [
        ("This run", workload(res)),
        ("Statistics", "\n".join([
            head("Round trips per second per variant (headline)"), "",
            variant_table(st, "main"), "",
            head("Round trips per second against %s" % st["baseline"]),
            "", comparison_table(st, "main"), "",
            head("A/A control: one kernel under two labels"), "",
            (variant_table(st, "aa") + "\n\n" + comparison_table(st, "aa"))
            if st["groups"]["aa"] else "No A/A control in this run."])),
        ("Counts per round trip", "\n".join([
            head("Per pipe round trip (counts / round trips), %% vs %s"
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
