"""history: every analysed run's (the history file's) headline change of
each label against the run's baseline, or with plots/draw --history-pair
NEW,BASE of NEW against BASE only; dashed: 2011's values."""
from analysis.results import history, reference
from analysis.results.load import log
from lib import source

from plots.common import color, num, q

FILES = ("history_%d.dat", "history_2011.dat", "history.vars")
VARS = ("nhist", "nruns", "hbase", "h2011", "hlabel%d", "hcolor%d")


def data(run, out):
    path, baseline, pair = run.hist, run.st["baseline"], run.pair
    h = history.read(path)
    h = h[(h["group"] == "main") & (h["pct_change"] != "")
          & (h["headline"] == "1")]
    if pair:
        h = h[h["label"] == pair[0]]
        baseline = pair[1]
    h = h[h["baseline"] == baseline]
    if h.empty:
        if pair:
            log("plots", "history: no analysed run in %s compares %s "
                "against %s" % (path, pair[0], baseline))
        return False
    runs = list(dict.fromkeys(h["run_id"]))
    tics = []
    for i, r in enumerate(runs, 1):
        row = h[h["run_id"] == r].iloc[0]
        # a run of kernels of another config than full says which; every
        # run its Linux version
        config = row["config"] if row["config"] not in ("", "full") else ""
        linux = source.version_of(row["kernel_version"])
        tics.append('"%s\\n%s\\n%s" %d' % (
            row["git_commit"][:7], " ".join(filter(None, (
                row["accel"], config))),
            "Linux " + linux if linux else "", i))
    labs = reference.label_order(h["label"])
    ref = []
    for j, lab in enumerate(labs, 1):
        rows = ["%s %s %s %s" % (num(runs.index(r["run_id"]) + 1 + 0.1 * (
            j - (len(labs) + 1) / 2)), num(r["pct_change"]),
            num(r["pct_ci_lo"]), num(r["pct_ci_hi"]))
            for _, r in h[h["label"] == lab].iterrows()]
        out.write("history_%d.dat" % j, rows)
        eff = reference.pct_2011(lab, baseline)
        if eff is not None:
            ref += ["0.5 %s %d" % (num(eff), color(lab, j)),
                    "%s %s %d" % (num(len(runs) + 0.5), num(eff),
                                  color(lab, j)), ""]
    out.write("history_2011.dat", ref or ["NaN NaN 1"])
    out.write("history.vars", [
        "nhist = %d" % len(labs), "nruns = %d" % len(runs),
        "hbase = %s" % q(baseline),
        "h2011 = %s" % q("2011 (dashed)" if ref else ""),
        "set xtics (%s)" % ", ".join(tics)]
        + ["hlabel%d = %s" % (j, q(lab)) for j, lab in enumerate(labs, 1)]
        + ["hcolor%d = %d" % (j, color(lab, j))
           for j, lab in enumerate(labs, 1)])
    return True
