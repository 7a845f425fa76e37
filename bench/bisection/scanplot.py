"""The plot of a scan (bench/scan): its measured commits along the range.

draw(out) reads DIR/scan.log and writes DIR/scan.tsv, one row per
measured commit in range order (COLUMNS): its metric's median and its %
change against the good end (candidate 0) by bench/bisect's median rule,
with that rule's interval; whether a sampled point or a bisection step;
whether a finding's first changed commit. Untestable commits have no row.
plots/scan then draws DIR/scan.svg and DIR/scan.png from the TSV with
gnuplot (plots/scan.gp): bench/ never imports plots/ (tests/
test_layering.py), so the TSV is what goes between them.
"""
import math
import os
import shutil
import statistics
import subprocess

from bench.bisection import bisection, scan
from bench.bisection.bisection import decide, seed_values
from lib import workloads

TSV, SVG, PNG = "scan.tsv", "scan.svg", "scan.png"
PLOT = os.path.join(bisection.ROOT, "plots", "scan")
# scan.tsv's columns. step: "sampled" or "bisection". finding: "first" (a
# finding's first changed commit), "range" (the newer end of an untestable
# stretch that hides a change; the older end is the row before) or "no";
# finding_pct_vs_parent: a first changed commit's % change against its
# parent (the finding's, as report.md gives it), else empty. Empty is
# missing (an interval needs 6 seeds).
COLUMNS = ("i", "commit", "revision", "seeds", "metric", "workload",
           "median", "pct_change", "pct_ci_lo", "pct_ci_hi", "step",
           "finding", "finding_pct_vs_parent")
HEADER = ("# scan.tsv: the measured commits of a bench/scan, in range order "
          "(bench/bisection/scanplot.py writes it, from scan.log; plots/scan "
          "draws it)")


def number(x, fmt):
    """x in fmt, empty when it is missing (None, nan)."""
    return "" if x is None or not math.isfinite(x) else fmt % x


def rows(out):
    """scan.tsv's rows ({column: text}) of the scan in out, from its log
    (the findings from its end entry: none before the scan ends);
    bisection.Stop when out has no scan.log."""
    head, done, end, cands, test = bisection.from_log(out, scan.LOG, "scan")
    marks = {}
    for f in (end or {}).get("findings", []):
        if "range" in f:
            marks[f["range"][1]] = ("range", None)
        else:
            marks[f["i"]] = ("first", f.get("vs_parent", {}).get(
                "pct_change"))
    good = test(0) if 0 in done else None
    workload = head.get("workload", workloads.DEFAULT)
    table = []
    for i in sorted(done):
        if not done[i].get("values"):
            continue
        values = seed_values(done[i])
        comp = decide(values, good, 0, 0.0)[1] if good else {}
        finding, vs_parent = marks.get(i, ("no", None))
        table.append({
            "i": str(i), "commit": cands[i][0],
            "revision": " ".join(cands[i][2].split()),
            "seeds": str(len(values)), "metric": head["metric"],
            "workload": workload,
            "median": number(statistics.median(values.values()), "%.10g"),
            **{k: number(comp.get(k), "%.6f")
               for k in ("pct_change", "pct_ci_lo", "pct_ci_hi")},
            "step": "sampled" if i in head["sampled"] else "bisection",
            "finding": finding,
            "finding_pct_vs_parent": number(vs_parent, "%.6f")})
    return table


def write(path, table):
    """Write rows() to path as a TSV: the comment, the header, the rows."""
    with open(path + ".tmp", "w") as f:
        f.write(HEADER + "\n" + "\t".join(COLUMNS) + "\n")
        for r in table:
            f.write("\t".join(r[c] for c in COLUMNS) + "\n")
    os.replace(path + ".tmp", path)


def draw(out, say=None):
    """Write out/scan.tsv from out/scan.log, then have plots/scan draw
    out/scan.svg and out/scan.png from it. The png's path; None when
    nothing is drawn (fewer than 2 measured commits, or no gnuplot), the
    reason said in one log line and any older figure removed.
    bisection.Stop: out has no scan.log, or plots/scan failed. say:
    where its lines go (default: the scan's, bisection.Say)."""
    out = os.path.abspath(out)
    say = say or bisection.Say.of_dir("scan", out)
    table = rows(out)
    tsv = os.path.join(out, TSV)
    write(tsv, table)
    why = None
    if len(table) < 2:
        why = "%d measured commit(s), nothing to draw along the range" \
            % len(table)
    elif not shutil.which("gnuplot"):
        why = "gnuplot is not installed (apt-get install gnuplot-nox)"
    if why:
        for name in (SVG, PNG):
            if os.path.exists(os.path.join(out, name)):
                os.remove(os.path.join(out, name))
        say("no plot of the range: %s" % why)
        return None
    p = subprocess.run([PLOT, tsv, "--out", os.path.join(out, "scan")],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        said = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise bisection.Stop("plots/scan failed on %s (exit %d): %s"
                             % (tsv, p.returncode, said))
    say("the plot of the range: %s (and %s, %s)"
        % (os.path.join(out, PNG), SVG, TSV))
    return os.path.join(out, PNG)
