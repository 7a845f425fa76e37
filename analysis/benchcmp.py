"""Two results dirs side by side, benchstat-style (analysis/compare).

Per label and metric: old and new mean +- the 95% CI half-width in %, the
% change new vs old with its Fieller 95% CI, the Welch t p-value, n, and
`~` when the change is not significant. Runs of two results dirs are
independent samples, so the comparison is unpaired.
"""
from analysis import metrics, reference, stats
from analysis import fmt as F
from analysis.load import split_counter
from lib.format import schema


def values(res, label, metric):
    """Per-run values (per op for counters) of the ok runs of label."""
    runs = res.runs
    ok = runs[(runs["status"] == "ok") & (runs["label"] == label)]
    if metric == "ops_per_s":
        return metrics.ops_per_s(ok).values
    if metric == "throughput_mbps":
        return ok[metric].astype(float).values
    num, _ = split_counter(ok[metric])
    return (num / ok["ops"]).dropna().values


def _mode(res):
    return "/".join(sorted(set(res.runs["mode"])))


def _commit(res):
    git = res.meta.get("git") if isinstance(res.meta.get("git"),
                                            dict) else {}
    return git.get("commit", "?")[:12]


def spread(x, f=F.val):
    """'40.300 ±0.49%': mean and 95% CI half-width in % of the mean."""
    d = stats.describe(x)
    if F.missing(d["ci_lo"]) or not d["mean"]:
        return f(d["mean"])
    half = 100.0 * (d["ci_hi"] - d["mean"]) / abs(d["mean"])
    return "%s ±%.2f%%" % (f(d["mean"]), half)


def rows(old, new):
    """Table rows: metric, label, old, new, delta [CI], p, n, marker."""
    labels = reference.label_order(
        [lab for lab in old.runs["label"] if lab in set(new.runs["label"])])
    cols_old = set(schema.counter_columns(old.runs.columns))
    counters = [c for c in schema.counter_columns(new.runs.columns)
                if c in cols_old]
    out = []
    mode = _mode(new)
    head = metrics.headline(mode) if mode in schema.MODE \
        else "throughput_mbps"
    names = [head] + [m for m in metrics.names() if m != head] + counters
    for metric in names:
        thr = metric in schema.THROUGHPUT
        name = metric if not thr else metric + (
            " (headline)" if metric == head else "")
        name = name if thr else metric + "/op"
        f = F.mbps if metric == "throughput_mbps" else F.val
        for lab in labels:
            a, b = values(old, lab, metric), values(new, lab, metric)
            if not len(a) or not len(b):
                continue
            c = stats.compare_unpaired(b, a)
            mark = stats.marker(c["p_t"])
            out.append([name, lab, spread(a, f), spread(b, f), F.pct_ci(c),
                        F.p(c["p_t"]), "%d+%d" % (len(a), len(b)),
                        "~" if mark == "~" else mark])
    return out


def notes(old, new):
    out = []
    if _mode(old) != _mode(new):
        out.append("the runs used different modes (%s vs %s): their "
                   "absolute figures are not comparable" % (
                       _mode(old), _mode(new)))
    for tag, res in (("old", old), ("new", new)):
        n = res.runs[res.runs["status"] == "ok"].groupby("label").size()
        small = sorted(lab for lab, k in n.items() if k < 5)
        if small:
            out.append("%s: fewer than 5 ok runs for %s: the CIs are wide"
                       % (tag, ", ".join(small)))
        failed = int((res.runs["status"] == "failed").sum())
        if failed:
            out.append("%s: %d failed tries (see its runs.csv)"
                       % (tag, failed))
    return out


def render(old, new):
    """The whole comparison as text (a Markdown table and notes)."""
    head = ["old: %s (mode %s, commit %s)" % (old.path, _mode(old),
                                              _commit(old)),
            "new: %s (mode %s, commit %s)" % (new.path, _mode(new),
                                              _commit(new)), ""]
    body = rows(old, new)
    if not body:
        return "\n".join(head + ["No label has ok runs in both dirs."]) + "\n"
    table = F.table(["metric", "label", "old (mean ±95% CI)",
                     "new (mean ±95% CI)", "delta [95% CI]", "p (Welch t)",
                     "n", ""], body, "llrrrrrc")
    foot = ["", "~: not significant at p<0.05 (Welch t, unpaired; "
            "delta CI: Fieller). No correction for multiple comparisons."]
    foot += ["note: " + n for n in notes(old, new)]
    return "\n".join(head + [table] + foot) + "\n"
