"""pct_change: each comparison's % change of the headline vs its baseline,
95% CI, and 2011's value when the run has one."""
from analysis.results.runinfo import headline, metric
from analysis.results import metrics

from plots.common import num, q

FILES = ("pct.dat", "pct.vars")
VARS = ("npct", "pct_2011", "pct_method", "pct_metric")


def data(run, out):
    st = run.st
    thr = metric(st, headline(st))
    rows, notes = [], []
    for i, c in enumerate(thr["comparisons"], 1):
        name = "%s vs %s" % (c["label"], c["baseline"])
        if c["group"] == "aa":
            name += " (A/A)"
        eff = c.get("pct_2011")
        rows.append("%d %s %s %s %s %s" % (
            i, num(c["pct_change"]), num(c["pct_ci_lo"]),
            num(c["pct_ci_hi"]), num(eff), q(name)))
        if eff is not None:
            # set label, not `with labels`: gnuplot 5.4 crashes on a labels
            # plot whose points are all undefined (no 2011 value).
            notes.append('set label %s at first %s, first %s left offset '
                         '1.5,0 tc rgb "#c03030"' % (q("%+.2f%%" % eff),
                                                     num(i + 0.25), num(eff)))
    paired = {c["paired"] for c in thr["comparisons"]}
    how = {frozenset([True]): "median of per-seed changes (A/A: by round)",
           frozenset([False]): "unpaired (Welch)"}.get(
               frozenset(paired), "paired where seeds allow")
    out.write("pct.dat", rows)
    out.write("pct.vars", ["npct = %d" % len(rows),
                           "pct_2011 = %s" % q(
                               "2011 (J. Baron, averages of 5 boots, other "
                               "hardware)" if notes else ""),
                           "pct_method = %s" % q(how),
                           "pct_metric = %s" % q(metrics.title(
                               headline(st), "throughput"))] + notes)
    return bool(rows)
