"""MB/s explained: tbench's figure of every run predicted from the loadfile.

For each ok run, its raw console log gives tbench's per-second status lines
(lib/format/console.py, the parser bench uses); analysis/loadfile.py turns the
loadfile lines they cover into bytes. Per label the measured and predicted
MB/s are compared with the baseline exactly as the headline metrics are
(paired by seed under icount), so the report can say whether loadfile
position accounts for the MB/s differences between kernels.
"""

import numpy as np

from analysis.results import metrics
from analysis.stats import stats
from analysis.results import loadfile as lf
from analysis.reporting import fmt as F
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
    ok = runs[runs["status"] == "ok"].sort_values("index")
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
    """% change of key between label and baseline, paired by seed."""
    new = {r["seed"]: r[key] for r in rows
           if r["label"] == label and r[key] is not None}
    base = {r["seed"]: r[key] for r in rows
            if r["label"] == baseline and r[key] is not None}
    if len(new) < 2 or len(base) < 2:
        return None
    common = sorted(set(new) & set(base))
    if paired and len(common) >= 2:
        return stats.compare_paired(np.array([new[s] for s in common]),
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
    paired = res.runs["mode"].iloc[0] == "icount"
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


def _cell(x, digits=3):
    return "n/a" if x is None else "%.*f" % (digits, x)


def section(st):
    """The "MB/s explained" section of REPORT.md, from stats.json."""
    ex = st.get("mbps_explained")
    if not ex:
        return ("No explanation of MB/s in this analysis (it needs tbench's "
                "loadfile, Debian's dbench: /usr/share/dbench/client.txt).")
    load = ex["loadfile"]
    worst = ex["max_abs_err_pct"]
    if not ex["runs"]:
        return ("No ok run's raw console log holds tbench's per-second "
                "lines: nothing to explain MB/s with.")
    out = [
        "tbench counts as bytes only the payload of the loadfile's ReadX "
        "and WriteX lines, and every client plays the same loadfile (`%s`, "
        "%d lines, sha256 `%s`) from its first line. Each second it prints "
        "how far the clients are, in loadfile lines, and the MB/s so far; "
        "so the bytes of a stretch follow from the lines it covered "
        "(analysis/loadfile.py)." % (load["path"], load["lines"],
                                     load["sha256"][:16]),
        "",
        "- Between tbench's first and last per-second line of the measured "
        "phase, the prediction from positions alone is within %s%% of "
        "tbench's own bytes in every run." % _cell(worst["window"], 2),
        "- tbench's final MB/s, predicted from positions plus its first "
        "measured second (tbench does not print where that second "
        "starts): within %s%% in every run." % _cell(worst["predicted"], 2),
        "- From positions alone (the start taken half-way between the last "
        "warm-up line and the first measured one): within %s%%."
        % _cell(worst["position_only"], 2),
        ""]
    labels = list(ex["per_label"])
    rows = []
    for lab in labels:
        d = ex["per_label"][lab]
        rows.append(["`%s`" % lab, d["n"], _cell(d["throughput_mbps"]),
                     _cell(d["predicted_mbps"]),
                     _cell(d["position_only_mbps"]),
                     _cell(d["first_second_mbps"], 2),
                     _cell(d["start_line"], 0), _cell(d["end_line"], 0),
                     _cell(d["payload_per_line"], 0),
                     _cell(d["ops_per_s"], 1)])
    out += [F.details(
        "Per label: MB/s measured and predicted, where the window starts "
        "and ends in the loadfile, payload per line, ops/s",
        F.table(["label", "n", "MB/s measured", "MB/s predicted",
                 "MB/s from positions alone", "first second MB/s",
                 "window start line (est.)", "window end line",
                 "payload bytes per line", "ops/s"], rows)), ""]
    comps = ex["comparisons"]
    if comps:
        rows = []
        for f in ex["figures"]:
            rows.append([f["what"]] + [
                F.pct_ci(comps[lab][f["key"]]) if comps[lab].get(f["key"])
                else "n/a" for lab in comps])
        out += [F.table(["figure, mean of runs"] + [
            "`%s` vs `%s`" % (lab, st["baseline"]) for lab in comps],
            rows, "l" + "r" * len(comps)), ""]
        out.append(
            "A faster kernel reaches further into the loadfile by the end "
            "of warm-up, so its measured phase starts at another line, "
            "where the payload per line differs; the MB/s difference "
            "between kernels is then mostly a difference in where their "
            "windows fall, which the predictions reproduce, while "
            "operations per second count the work done.")
    rows = [[r["index"], "`%s`" % r["label"], r["seed"],
             _cell(r["throughput_mbps"]), _cell(r["predicted_mbps"]),
             _cell(r["predicted_err_pct"], 2),
             _cell(r["position_only_mbps"]),
             _cell(r["window_measured_mbps"]),
             _cell(r["window_predicted_mbps"]), _cell(r["window_err_pct"], 2)]
            for r in ex["runs"]]
    out += ["", F.details("Per run", F.table(
        ["run", "label", "seed", "MB/s measured", "predicted", "error %",
         "from positions alone", "window MB/s measured",
         "window predicted", "window error %"], rows))]
    return "\n".join(out)
