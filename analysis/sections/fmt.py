"""Number formatting and Markdown blocks shared by REPORT.md's sections and
analysis/compare's table, and the heading of every section (the accelerator).

None and NaN (undefined figures) print as "n/a", never as 0.
"""
from analysis.results import metrics
from analysis.results.metrics import missing  # F.missing for the sections


def val(x, sig=5):
    """A measured value with `sig` significant digits."""
    if missing(x):
        return "n/a"
    if x in (float("inf"), float("-inf")):
        return "unbounded"
    return "%.*g" % (sig, x)


def mbps(x):
    """A throughput in MB/s: 3 decimals below 100 MB/s, else 2."""
    if missing(x):
        return "n/a"
    return "%.*f" % (3 if abs(x) < 100 else 2, x)


def pct(x, digits=2):
    """A signed percentage."""
    if missing(x):
        return "n/a"
    if x in (float("inf"), float("-inf")):
        return "unbounded"
    return "%+.*f%%" % (digits, x)


def pct_ci(c, digits=2):
    """'+1.23% [+0.50, +1.96]' from a comparison dict; with an environment
    floor (analysis/stats/analyze.py) '+1.23% [+0.50, +1.96] ±0.05 env'."""
    if missing(c.get("pct_change")):
        return "n/a"
    if missing(c.get("pct_ci_lo")) or missing(c.get("pct_ci_hi")):
        return "%s [CI n/a]" % pct(c["pct_change"], digits)
    lo = pct(c["pct_ci_lo"], digits).rstrip("%")
    hi = pct(c["pct_ci_hi"], digits).rstrip("%")
    out = "%s [%s, %s]" % (pct(c["pct_change"], digits), lo, hi)
    if c.get("floor_pts"):
        out += " ±%.*f env" % (digits, c["floor_pts"])
    return out


def p(x):
    """A p-value."""
    if missing(x):
        return "n/a"
    if x == 0:
        return "0 (no variance)"
    if x < 0.0001:
        return "<0.0001"
    return "%.2g" % x


def p_is(x):
    """'p=0.012' or 'p<0.0001'."""
    text = p(x)
    return "p" + text if text.startswith("<") else "p=" + text


def mean_ci(d, f=mbps):
    """'40.300 [40.104, 40.496]' from a describe() dict."""
    if missing(d.get("mean")):
        return "n/a"
    if missing(d.get("ci_lo")):
        return f(d["mean"])
    return "%s [%s, %s]" % (f(d["mean"]), f(d["ci_lo"]), f(d["ci_hi"]))


def table(header, rows, align=None):
    """A Markdown table; align: string of l/r/c per column."""
    align = align or "l" + "r" * (len(header) - 1)
    sep = {"l": "---", "r": "--:", "c": ":-:"}
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(sep[a] for a in align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|")
                                     for c in r) + " |")
    return "\n".join(out)


def details(summary, body):
    """A collapsed block of REPORT.md: summary, plain text, always shown;
    body, Markdown, shown on a click. The blank lines around body let
    Markdown inside an HTML block render."""
    return "<details><summary>%s</summary>\n\n%s\n\n</details>" % (
        summary, body)


def fmt_value(name, x):
    """A throughput figure in the metric's unit."""
    if name == "ops_per_s":
        return "n/a" if missing(x) else "%.1f" % x
    return mbps(x)


def unit(name):
    return metrics.unit(name)


def head(title):
    """A section's table heading (the accelerator is stated once, at the top:
    documents/report.py accel_line)."""
    return "### %s" % title


AA_ONLY = ("This results dir holds only an A/A control (one kernel under "
           "two labels, `bench/run --aa`): no variant comparison; see the "
           "A/A section.")
