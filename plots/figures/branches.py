"""branches: per counter panel (lib/format/schema.py's counters with a
panel), each main kernel's count per tbench operation, mean and 95% CI,
and its change against the baseline."""
from analysis.results.runinfo import metric
from lib.format import schema

from plots.common import color, num, q

FILES = ("branches_%d.dat", "branches.vars")
VARS = ("npanels", "ptitle%d")


def counter_panels():
    """(column, title) of the counters the figure draws, in order."""
    counters = [c for c in schema.PLUGIN_COUNTERS + schema.PERF_COUNTERS
                if c.panel]
    return [(c.column, c.panel[1])
            for c in sorted(counters, key=lambda c: c.panel[0])]


def data(run, out):
    st = run.st
    main = st["groups"]["main"]
    panels = []
    for col, title in counter_panels():
        m = metric(st, col + "_per_op")
        if m is None or all(m["per_label"][lab]["mean"] is None
                            for lab in main):
            continue
        comps = {c["label"]: c for c in m["comparisons"]}
        rows = []
        for i, lab in enumerate(main, 1):
            d = m["per_label"][lab]
            c = comps.get(lab)
            txt = "%.6g" % d["mean"] if d["mean"] is not None else "n/a"
            rel = "(baseline)" if lab == st["baseline"] else "n/a"
            if c and c["pct_change"] is not None:
                rel = "%+.3f%%" % c["pct_change"]
            rows.append("%d %s %s %s %d %s %s %s" % (
                i, num(d["mean"]), num(d["ci_lo"]), num(d["ci_hi"]),
                color(lab, i), q(lab), q(txt), q(rel)))
        out.write("branches_%d.dat" % (len(panels) + 1), rows)
        panels.append(title)
    if not panels:
        return False
    out.write("branches.vars",
              ["npanels = %d" % len(panels)]
              + ["ptitle%d = %s" % (i, q(t))
                 for i, t in enumerate(panels, 1)])
    return True
