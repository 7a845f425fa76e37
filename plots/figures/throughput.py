"""throughput: every run (boot) as a dot, mean and 95% CI per variant;
2011's averages (other hardware) printed, not plotted."""
from analysis.results.runinfo import headline, metric, with_2011
from analysis.results import reference

from plots.common import labels, num, ok_runs, q, values

FILES = ("throughput_runs.dat", "throughput_means.dat", "throughput.vars")
VARS = ()


def data(run, out):
    st = run.st
    name = headline(st)
    thr = metric(st, name)
    ok = ok_runs(run)
    rows, means, notes = [], [], []
    old = with_2011(st)
    for lab, (i, col) in labels(st).items():
        runs = ok[ok["label"] == lab].sort_values("index")
        k = len(runs)
        for j, v in enumerate(values(runs, name)):
            off = 0.0 if k == 1 else -0.2 + 0.4 * j / (k - 1)
            rows.append("%d %s %s" % (col, num(i + off), num(v)))
        d = thr["per_label"][lab]
        means.append("%d %s %s %s" % (i, num(d["mean"]), num(d["ci_lo"]),
                                      num(d["ci_hi"])))
        if old and lab in st["groups"]["main"] \
                and lab in reference.MBPS_2011 and name == "throughput_mbps":
            notes.append('set label %s at first %d, graph 0.96 center '
                         'tc rgb "#c03030"'
                         % (q("2011: %.1f MB/s" % reference.MBPS_2011[lab]),
                            i))
    out.write("throughput_runs.dat", rows)
    out.write("throughput_means.dat", means)
    # the x label speaks of 2011's averages only when the run is 2011's
    out.write("throughput.vars", notes + ([] if old else [
        'set xlabel "kernel"']))
    return bool(rows)
