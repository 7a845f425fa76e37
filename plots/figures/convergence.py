"""convergence: per run length of the newest results dir with several
(beside this one), each main kernel's % change vs the baseline in ops/s
(solid) and MB/s (dashed)."""
import os

from analysis.results import metrics, peers
from lib.format import schema

from plots.common import color, num, q

FILES = ("conv_%d.dat", "convergence.vars")
VARS = ("nconv", "conv_run", "ctitle%d", "ccolor%d", "cdash%d")


def data(run, out):
    path, st = peers.convergence(os.path.dirname(run.res.path))
    if st is None:
        return False
    series = {}
    for entry in st["convergence"]:
        for m in entry["metrics"]:
            if m["metric"] not in schema.THROUGHPUT:
                continue
            for c in m["comparisons"]:
                if c["group"] == "main":
                    series.setdefault((c["label"], m["metric"]), []).append(
                        "%s %s %s %s" % (entry["seconds"],
                                         num(c["pct_change"]),
                                         num(c["pct_ci_lo"]),
                                         num(c["pct_ci_hi"])))
    names = sorted(series)
    for j, key in enumerate(names, 1):
        out.write("conv_%d.dat" % j, series[key])
    out.write("convergence.vars", [
        "nconv = %d" % len(names),
        "conv_run = %s" % q(os.path.basename(path))]
        + ["ctitle%d = %s" % (j, q("%s, %s" % (lab, metrics.unit(m))))
           for j, (lab, m) in enumerate(names, 1)]
        + ["ccolor%d = %d" % (j, color(lab, 0)) for j, (lab, m)
           in enumerate(names, 1)]
        + ["cdash%d = %d" % (j, 1 if m == "ops_per_s" else 2)
           for j, (lab, m) in enumerate(names, 1)])
    return bool(names)
