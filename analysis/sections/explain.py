"""REPORT.md's "MB/s explained": how much of tbench's MB/s its loadfile
position predicts (the numbers: analysis/stats/explain.py, in stats.json's
"mbps_explained")."""
from analysis.sections import fmt as F


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
        "(analysis/results/loadfile.py)." % (
            load["path"], load["lines"], load["sha256"][:16]),
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
        out += [F.table(["% change [95% CI], by the first table's rule"] + [
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
