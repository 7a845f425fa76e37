"""traces: tbench's per-second running average of every run, per label,
the warm-up marked."""
from analysis.results.load import ok_rows
from plots.common import labels, num

FILES = ("trace_%d.dat", "traces.vars")
VARS = ("warmup_end",)


def data(run, out):
    res = run.res
    if res.samples is None or res.samples.empty:
        return False
    ok = ok_rows(res.runs)
    keys = ["index", "try"] if "try" in res.samples.columns else ["index"]
    s = res.samples.drop(columns=["label", "variant"], errors="ignore") \
        .merge(ok[keys + ["label"]], on=keys)
    for lab, (i, _) in labels(run.st).items():
        lines = []
        for _, one in s[s["label"] == lab].groupby("index"):
            for _, r in one.sort_values("second").iterrows():
                lines.append("%s %s" % (num(r["second"]),
                                        num(r["throughput_mbps"])))
            lines.append("")
        out.write("trace_%d.dat" % i, lines or ["NaN NaN"])
    warm = s.loc[s["warmup"], "second"]
    out.write("traces.vars",
              ["warmup_end = %s" % num(warm.max() if len(warm) else 0)])
    return not s.empty
