"""drift: run order vs the headline value, per label; dotted lines
separate the rounds."""
from analysis.results.load import ok_rows
from analysis.results.runinfo import headline

from plots.common import labels, num, values

FILES = ("drift_%d.dat", "drift.vars")
VARS = ()


def data(run, out):
    st, res = run.st, run.res
    ok = ok_rows(res.runs)
    for lab, (i, _) in labels(st).items():
        r = ok[ok["label"] == lab].sort_values("index")
        out.write("drift_%d.dat" % i,
                  ["%d %s" % (a, num(b)) for a, b in
                   zip(r["index"], values(r, headline(st)))] or ["NaN NaN"])
    starts = res.runs.groupby("round")["index"].min().sort_index()
    out.write("drift.vars", [
        'set arrow from first %s, graph 0 to first %s, graph 1 nohead '
        'dt 3 lc rgb "#999999"' % (num(x - 0.5), num(x - 0.5))
        for x in list(starts)[1:]])
    return not ok.empty
