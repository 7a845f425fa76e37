"""Convergence with run length: MB/s vs operations per second at 20, 60,
180 s per run (the `long` profile of bench/run).

A results dir made with several run lengths is analysed at each length
(analysis/summarize.py puts them in stats.json's "convergence"). REPORT.md
shows the newest such dir under results/, whichever run the rest of the
report comes from, and links to it.
"""
import json
import os

from analysis.results import metrics, reference
from analysis.reporting import fmt as F

STATS = "stats.json"


def find(results_root):
    """(results dir, stats dict) of the newest analysed dir with several
    run lengths under results_root, or (None, None)."""
    if not os.path.isdir(results_root):
        return None, None
    for name in sorted(os.listdir(results_root), reverse=True):
        path = os.path.join(results_root, name, STATS)
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            try:
                st = json.load(f)
            except ValueError:
                continue
        if st.get("convergence"):
            return os.path.dirname(path), st
    return None, None


def table(st):
    """Rows: run length, then per comparison and metric the % change."""
    pairs = []
    rows = []
    for entry in st["convergence"]:
        by_metric = {m["metric"]: m for m in entry["metrics"]}
        cells = {}
        for name in metrics.names():
            for c in by_metric[name]["comparisons"]:
                if c["group"] != "main":
                    continue
                key = (c["label"], name)
                if key not in pairs:
                    pairs.append(key)
                cells[key] = "%s %s" % (F.pct_ci(c), c["marker"])
        n = min((d["n"] for d in by_metric["ops_per_s"]["per_label"]
                 .values()), default=0)
        rows.append((entry["seconds"], n, cells))
    order = reference.label_order([lab for lab, _ in pairs])
    names = metrics.names()
    pairs.sort(key=lambda k: (order.index(k[0]), names.index(k[1])))
    header = ["s per run", "seeds"] + [
        "`%s` %s" % (lab, metrics.unit(name))
        for lab, name in pairs]
    body = [[s, n] + [cells.get(k, "n/a") for k in pairs]
            for s, n, cells in rows]
    return header, body


def section(results_root, out_dir, plots_dir):
    """The convergence section of REPORT.md."""
    path, st = find(results_root)
    if st is None:
        return ("No results dir with several run lengths yet: "
                "`./run_all.sh --profile long` (or `bench/run --profile "
                "long`) makes one.")
    rel = os.path.relpath(path, out_dir)
    header, body = table(st)
    out = ["From [`%s`](%s) (mode %s): the same kernels at every run "
           "length, %% change vs %s with 95%% CI, paired by seed."
           % (os.path.basename(path), rel, st["mode"],
              st.get("baseline", reference.BASELINE)),
           "", F.table(header, body), "",
           "A longer run carries each client further through the "
           "loadfile, so where its measured phase starts and ends weighs "
           "less in MB/s; operations per second do not depend on it."]
    svg = os.path.join(plots_dir, "convergence.svg")
    if os.path.exists(svg):
        r = os.path.relpath(svg, out_dir)
        out += ["", "![convergence](%s) ([PNG](%s))" % (r, r[:-4] + ".png")]
    return "\n".join(out)
