"""Reading stats.json (analysis/analyze) for REPORT.md: the metric dicts,
the headline metric, units and the mode in every heading."""
from analysis.results import metrics, reference, runinfo
from analysis.reporting import fmt as F


def metric(st, name):
    """The metric dict of stats.json named name, or None."""
    return next((m for m in st["metrics"] if m["metric"] == name), None)


def headline(st):
    """The headline metric of a stats dict (MB/s for stats from before
    there was one)."""
    return st.get("headline", "throughput_mbps")


def fmt_value(name, x):
    """A throughput figure in the metric's unit."""
    if name == "ops_per_s":
        return "n/a" if F.missing(x) else "%.1f" % x
    return F.mbps(x)


def unit(name):
    return metrics.unit(name)


def with_2011(st):
    """Whether a run repeats 2011's comparison (reference.compares_2011):
    only then is it set beside 2011's figures and spoken of as 2011's
    three kernels."""
    return reference.compares_2011(st.get("baseline", reference.BASELINE),
                                   (st.get("groups") or {}).get("main", []))


def comparisons(m, group):
    return {c["label"]: c for c in m["comparisons"] if c["group"] == group}


def head(st, title):
    return "### %s (%s)" % (title, runinfo.mode(st).head)


AA_ONLY = ("This results dir holds only an A/A control (one kernel under "
           "two labels, `bench/run --aa`): no variant comparison; see the "
           "A/A section.")
