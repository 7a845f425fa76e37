"""across: each workload of a suite run, each label's % change of the
workload's operations per second vs the baseline, 95% CI
(analysis/results/suite.py)."""
from analysis.results import suite

from plots.common import color, num, q

FILES = ("across_%d.dat", "across.vars")
VARS = ("nacross", "nworkloads", "atitle%d", "acolor%d", "anote")


def data(run, out):
    rows = [r for r in suite.rows(run.res.path) if r.st]
    if not rows:
        return False
    labels = [lab for lab in rows[0].st["groups"]["main"]
              if lab != rows[0].st["baseline"]]
    no_ci = set()
    for j, lab in enumerate(labels, 1):
        lines = []
        for i, r in enumerate(rows, 1):
            c = r.changes.get(lab) or {}
            if c.get("pct_change") is not None and \
                    num(c.get("pct_ci_lo")) == "NaN":
                no_ci.add(r.workload.name)
            lines.append("%d %s %s %s %s" % (
                i, num(c.get("pct_change")), num(c.get("pct_ci_lo")),
                num(c.get("pct_ci_hi")), q(r.workload.name)))
        out.write("across_%d.dat" % j, lines)
    out.write("across.vars", ["nacross = %d" % len(labels),
                              "nworkloads = %d" % len(rows)]
              + ["atitle%d = %s" % (j, q(lab))
                 for j, lab in enumerate(labels, 1)]
              + ["acolor%d = %d" % (j, color(lab, j))
                 for j, lab in enumerate(labels, 1)]
              + ["anote = %s" % q(
                  "a point without a bar: no interval could be computed "
                  "(%s; REPORT.md says why)" % ", ".join(sorted(no_ci))
                  if no_ci else "")])
    return True
