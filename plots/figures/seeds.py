"""seeds: per perturbation seed (icount), each label's headline value as %
from the label's median (left panel); the paired % change of each
comparison (right): a main label against the baseline on the same seed,
an A/A twin against its kernel by round, as the report pairs them, with
the median and its interval."""
from analysis.results.runinfo import headline, metric
from analysis.results import metrics
from analysis.results.load import per_key

from plots.common import labels, num, ok_runs, q, values

FILES = ("seeds_left.dat", "seeds_right.dat", "seeds_median.dat",
         "seeds.vars", "seeds_xtics.vars")
VARS = ("npairs", "interval_title", "seeds_metric", "right_ylabel")


def spread(x, col, vals, width=0.6):
    """Data lines "x y colour" of vals, sorted and spread over width
    around x by rank, so that equal values do not hide each other."""
    v = sorted(vals)
    k = len(v)
    return ["%s %s %d" % (num(x + (width * (r / (k - 1) - 0.5) if k > 1
                                   else 0.0)), num(y), col)
            for r, y in enumerate(v)]


def data(run, out):
    st = run.st
    if st["accel"] != "icount":
        return False
    name = headline(st)
    ok = ok_runs(run)

    def by(lab, key):
        r = ok[ok["label"] == lab]
        return per_key(r, values(r, name), key).dropna()

    lab = labels(st)
    per_seed = {x: by(x, "perturb_seed") for x in lab}
    if any(len(v) < 2 for v in per_seed.values()):
        return False
    left = []
    for x, (i, col) in lab.items():
        v = per_seed[x]
        left += spread(i, col, 100.0 * (v / v.median() - 1.0))
    right, marks, tics, interval = [], [], [], False
    for c in metric(st, name)["comparisons"]:
        main = c["group"] == "main"
        new = by(c["label"], "perturb_seed" if main else "round")
        base = by(c["baseline"], "perturb_seed" if main else "round")
        common = sorted(set(new.index) & set(base.index))
        if not common:
            continue
        j = len(marks) + 1
        d = 100.0 * (new[common] / base[common] - 1.0)
        right += spread(j, lab[c["label"]][1], d)
        # the report's interval of the median (6 pairs or more)
        lo, hi = (c["pct_ci_lo"], c["pct_ci_hi"]) if c.get(
            "estimate", "").startswith("median") else (None, None)
        interval = interval or num(lo) != "NaN"
        marks.append("%d %s %s %s" % (j, num(d.median()), num(lo), num(hi)))
        tics.append("%s %d" % (q(c["label"] + ("" if main else " (A/A)")),
                               j))
    out.write("seeds_left.dat", left)
    out.write("seeds_right.dat", right or ["NaN NaN 1"])
    out.write("seeds_median.dat", marks or ["NaN NaN NaN NaN"])
    out.write("seeds.vars", [
        "npairs = %d" % len(marks),
        "interval_title = %s" % q("95% interval of the median"
                                  if interval else ""),
        "seeds_metric = %s" % q(metrics.title(name, "throughput")),
        "right_ylabel = %s" % q("paired % change vs " + st["baseline"]
                                if st["groups"]["main"] else
                                "paired % change (A/A)")])
    out.write("seeds_xtics.vars", ["set xtics (%s)" % ", ".join(tics)])
    return True
