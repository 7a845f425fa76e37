"""MB/s explained: tbench's figure of every run predicted from the loadfile.

For each ok run, its raw console log gives tbench's per-second status lines
(lib/format/console.py, the parser bench uses); analysis/results/loadfile.py
turns the loadfile lines they cover into bytes. Per label the measured and
predicted MB/s are compared with the baseline by the headline's rule (the
median of the per-seed changes under icount), so the report can say whether
loadfile position accounts for the MB/s differences between kernels, and
its measured rows are the first table's figures.
"""

import numpy as np

from analysis.results.load import ok_rows
from analysis.results import metrics
from analysis.stats import stats
from analysis.results import loadfile as lf
from lib.format import console, identity

# (key, what) of the per-run figures compared between labels.
FIGURES = [
    ("throughput_mbps", "tbench's MB/s (measured)"),
    ("predicted_mbps", "MB/s predicted: first second from tbench, the rest "
                       "from loadfile positions"),
    ("position_only_mbps", "MB/s predicted from loadfile positions alone"),
    ("ops_per_s", "operations per second (measured)"),
]


def raw_log(res, row):
    """Path of the console log of a runs.csv row."""
    return identity.try_base(res.path, row) + ".log"


def per_run(res, runs, loadfile):
    """A dict per ok run: its labels, measured figures and predictions."""
    out = []
    ok = ok_rows(runs).sort_values("index")
    ops = metrics.ops_per_s(ok)
    for i, row in ok.iterrows():
        ticks = console.tbench_ticks(console.read(raw_log(res, row)))
        pred = lf.predict(ticks, loadfile)
        if pred is None:
            continue
        pred.update(index=int(row["index"]), label=row["label"],
                    variant=row["variant"], seed=row["perturb_seed"],
                    throughput_mbps=float(row["throughput_mbps"]),
                    ops_per_s=float(ops[i]))
        out.append(pred)
    return out


def _rel_err(pred, meas):
    return 100.0 * (pred / meas - 1.0) if pred is not None and meas else None


def _compare(rows, label, baseline, key, paired):
    """% change of key between label and baseline by the headline's rule:
    under icount the median of the per-seed changes (stats.compare_median,
    so measured ops/s and MB/s come out as the report's first table has
    them), else unpaired."""
    new = {r["seed"]: r[key] for r in rows
           if r["label"] == label and r[key] is not None}
    base = {r["seed"]: r[key] for r in rows
            if r["label"] == baseline and r[key] is not None}
    if len(new) < 2 or len(base) < 2:
        return None
    common = sorted(set(new) & set(base))
    if paired and len(common) >= 2:
        return stats.compare_median(np.array([new[s] for s in common]),
                                    np.array([base[s] for s in common]))
    return stats.compare_unpaired(np.array(list(new.values())),
                                  np.array(list(base.values())))


def explain(res, runs, loadfile, groups, baseline):
    """The "mbps_explained" part of stats.json: each main label compared
    with baseline."""
    rows = per_run(res, runs, loadfile)
    for r in rows:
        r["predicted_err_pct"] = _rel_err(r["predicted_mbps"],
                                          r["throughput_mbps"])
        r["position_only_err_pct"] = _rel_err(r["position_only_mbps"],
                                              r["throughput_mbps"])
        r["window_err_pct"] = _rel_err(r["window_predicted_mbps"],
                                       r["window_measured_mbps"])
    paired = res.runs["accel"].iloc[0] == "icount"
    labels = groups["main"] + groups["aa"]
    per_label = {}
    for lab in labels:
        mine = [r for r in rows if r["label"] == lab]
        if not mine:
            continue
        d = {k: float(np.mean([r[k] for r in mine if r[k] is not None]))
             if any(r[k] is not None for r in mine) else None
             for k in ("throughput_mbps", "predicted_mbps",
                       "position_only_mbps", "ops_per_s", "start_line",
                       "end_line", "first_second_mbps", "payload_per_line")}
        d["n"] = len(mine)
        per_label[lab] = d
    comparisons = {}
    for lab in groups["main"]:
        if lab == baseline:
            continue
        comparisons[lab] = {key: _compare(rows, lab, baseline, key, paired)
                            for key, _ in FIGURES}

    def worst(key):
        errs = [abs(r[key]) for r in rows if r[key] is not None]
        return max(errs) if errs else None

    return {
        "loadfile": lf.describe(loadfile), "runs": rows,
        "per_label": per_label, "comparisons": comparisons,
        "figures": [{"key": k, "what": w} for k, w in FIGURES],
        "max_abs_err_pct": {"predicted": worst("predicted_err_pct"),
                            "position_only": worst(
                                "position_only_err_pct"),
                            "window": worst("window_err_pct")},
    }
