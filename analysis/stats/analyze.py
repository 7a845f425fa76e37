"""Per-variant statistics and comparisons of one results dir.

summarize(Results) -> a dict (written as stats.json) and a long table
(summary.csv, one row per label and metric). The sample unit is a boot
(an ok run); under icount it is a perturbation seed, and comparisons are
paired by seed.
"""
import json
import math

import numpy as np
import pandas as pd

from analysis.results import metrics, reference, runinfo
from analysis.stats import (calibrate, clusters, explain, floorfiles, hosts,
                            stats)
from analysis.results.load import longest, ok_rows, per_key, per_run
from lib import workloads
from lib.format import outputs, schema

STEAL_WARN_PCT = 1.0
MIN_RUNS_2011 = reference.RUNS_2011
METHODS = {
    "unit": "one boot (ok run); under icount one perturbation seed",
    "ci_mean": "t-based 95% CI of the mean",
    "pct_ci": "icount: the median of the per-seed % changes, paired by "
              "seed (an A/A twin: by round), with its distribution-free "
              "interval [d(k), d(n+1-k)] (at least 95% whatever the "
              "distribution's shape; 6 pairs or more); kvm and tcg: "
              "Fieller 95% CI of the ratio of means, Welch-Satterthwaite df",
    "tests": "icount: exact sign test (Wilcoxon signed-rank beside it); "
             "kvm and tcg: Welch t and Mann-Whitney U; two-sided",
    "floor": "icount: the environment floor (analysis/calibration.json) "
             "widens a comparison's interval on each side before it is "
             "called significant: a harness change alone moves a "
             "comparison by up to that much",
    "marker": "*** p<0.001, ** p<0.01, * p<0.05 from the test, shown only "
              "when significant; ~ not significant (icount: the "
              "floor-widened interval holds 0); no multiple-comparison "
              "correction",
    "mde": "minimum detectable effect of a t test at 80% power, "
           "alpha 0.05, for the measured noise (noncentral t)",
    "drift": "mean of the second half of rounds vs the first half, per "
             "label",
}
SUMMARY_COLUMNS = outputs.SUMMARY_COLUMNS


def _groups(runs):
    """Main labels (label == variant) and A/A control labels, ordered."""
    same = runs["label"] == runs["variant"]
    main = reference.label_order(runs.loc[same, "label"])
    aa = sorted(set(runs.loc[~same, "label"]))
    return main, aa


def _pairs(runs, groups, baseline):
    """(group, label, baseline) of every comparison: each main label
    against the run's baseline; each A/A twin against the main label of its
    kernel, or (an A/A-only run) against the first A/A label."""
    out = []
    main, aa = groups["main"], groups["aa"]
    if baseline in main:
        out += [("main", lab, baseline) for lab in main if lab != baseline]
    variant = dict(zip(runs["label"], runs["variant"]))
    for lab in aa:
        if variant[lab] in main:
            out.append(("aa", lab, variant[lab]))
        elif lab != aa[0]:
            out.append(("aa", lab, aa[0]))
    return out


def compare(accel, ok_new, v_new, ok_base, v_base, warnings, what,
            paired=True, floor=None):
    """Comparison of one label with its baseline for one metric.

    icount: the median rule (stats.compare_median), paired by perturbation
    seed, or for an A/A twin (paired False: its seeds are its own) paired
    by round, any pairing of independent draws of one kernel being valid;
    floor: the environment's share (points; analysis/stats/calibrate.py) that
    widens the interval before it is called significant. kvm and tcg:
    independent boots, Fieller and Welch t. "significant" says which."""
    seeds_new = ok_new["perturb_seed"].str.strip()
    seeds_base = ok_base["perturb_seed"].str.strip()
    out = None
    if accel == "icount" and (seeds_new != "").all() \
            and (seeds_base != "").all():
        key = "perturb_seed" if paired else "round"
        a, b = per_key(ok_new, v_new, key), per_key(ok_base, v_base, key)
        common = sorted(set(a.index) & set(b.index))
        lost = len(set(a.index) ^ set(b.index))
        if lost and len(common) >= 2:
            warnings.append("%s: %d %s without a partner left out of the "
                            "paired comparison" % (
                                what, lost, "perturbation seed(s)" if paired
                                else "round(s)"))
        if len(common) >= 2:
            out = stats.compare_median(a[common].values, b[common].values)
            out["seeds" if paired else "rounds"] = [str(s) for s in common]
            out["floor_pts"] = floor or 0.0
        else:
            warnings.append("%s: fewer than 2 pairs, compared unpaired"
                            % what)
    if out is None:
        out = stats.compare_unpaired(v_new.values, v_base.values)
    out["significant"] = stats.significant(out, out.get("floor_pts", 0.0))
    return out


def _comparison_warnings(c, what, drift, warnings):
    """Warnings about one comparison (sample size, power, drift)."""
    if c.get("estimate", "").startswith("median"):
        if not stats.median_k(c["n"]):
            warnings.append("%s: %d pairs: the median rule needs %d for a "
                            "95%% interval; no interval, not significant"
                            % (what, c["n"], calibrate.DEFAULT_SEEDS))
    else:
        if c["n"] < 3 or c["n_baseline"] < 3:
            warnings.append("%s: n=%d vs %d is too small for a t test to "
                            "mean much" % (what, c["n"], c["n_baseline"]))
        if c["min_p_rank"] > stats.ALPHA:
            warnings.append("%s: n too small for the %s test to reach "
                            "p<%.2f (smallest possible p=%.3g)"
                            % (what, c["test_rank"], stats.ALPHA,
                               c["min_p_rank"]))
        if c["n"] >= 2 and c["n_baseline"] >= 2 and c["p_t"] != c["p_t"]:
            warnings.append("%s: no variance, the t test is undefined"
                            % what)
    eff = abs(c["pct_change"])
    big = [d for d in drift if d == d and abs(d) > eff]
    if big and eff == eff:
        warnings.append("%s: drift between the first and second half of "
                        "the run (%.2f%%) is larger than the effect (%.2f%%)"
                        % (what, max(big, key=abs), c["pct_change"]))


def _label_info(runs, label, group, headline):
    """Counts, drift (of the headline metric) and steal of one label."""
    rows = runs[runs["label"] == label]
    ok = ok_rows(rows)
    failed = rows[rows["status"] == "failed"]
    missing = sorted(set(rows["index"]) - set(ok["index"]))
    steal = 100.0 * ok["steal_ticks"] / ok["total_ticks"]
    return {
        "label": label, "variant": rows["variant"].iloc[0], "group": group,
        "n": int(len(ok)), "failed": int(len(failed)),
        "failed_reasons": sorted(set(failed["reason"]) - {""}),
        "missing_runs": [int(i) for i in missing],
        "kernel_hashes": sorted(set(rows["kernel_hash"]) - {""}),
        "indexes": [int(i) for i in ok["index"]],
        "seeds": [s for s in ok["perturb_seed"]],
        "drift_pct": stats.drift_pct(ok["round"],
                                     per_run(ok, headline)[0]),
        "steal_max_pct": float(steal.max()) if steal.notna().any()
        else stats.NAN,
    }


def _label_warnings(info, warnings):
    lab = info["label"]
    if info["failed"]:
        warnings.append("%s: %d failed tr%s (%s)"
                        % (lab, info["failed"],
                           "y" if info["failed"] == 1 else "ies",
                           "; ".join(info["failed_reasons"]) or "no reason"))
    if info["missing_runs"]:
        warnings.append("%s: planned run(s) %s have no ok try"
                        % (lab, ", ".join(map(str, info["missing_runs"]))))
    if info["n"] < MIN_RUNS_2011:
        warnings.append("%s: only %d ok run(s); 2011 used %d per kernel"
                        % (lab, info["n"], MIN_RUNS_2011))
    if info["steal_max_pct"] > STEAL_WARN_PCT:
        warnings.append("%s: steal time up to %.1f%% of CPU ticks in a run"
                        % (lab, info["steal_max_pct"]))
    if len(info["kernel_hashes"]) > 1:
        warnings.append("%s: runs used %d different kernel builds"
                        % (lab, len(info["kernel_hashes"])))


def _metric(runs, accel, metric, groups, infos, warnings, baseline,
            headline=None, cal=None):
    """Per-label description and comparisons of one metric against
    baseline; sample size, power and drift warnings for the headline
    metric."""
    ok_all = ok_rows(runs)
    per_label, values, oks = {}, {}, {}
    for label in [lab for g in groups.values() for lab in g]:
        ok = ok_all[ok_all["label"] == label]
        vals, texts = per_run(ok, metric)
        keep = vals.notna()
        d = stats.describe(vals[keep].values)
        d["text"] = "/".join(sorted(texts)) if texts and not keep.any() \
            else ""
        if texts and keep.any():
            warnings.append("%s %s: %d run(s) numeric, others %s"
                            % (label, metric, int(keep.sum()),
                               "/".join(sorted(texts))))
        per_label[label] = d
        values[label], oks[label] = vals[keep], ok[keep]
    comps = []
    for group, label, base in _pairs(runs, groups, baseline):
        if not len(values[label]) or not len(values[base]):
            continue
        what = "%s vs %s (%s)" % (label, base, metric)
        main = group == "main"
        c = compare(accel, oks[label], values[label], oks[base],
                    values[base], warnings, what, paired=main,
                    floor=floorfiles.floor(cal, metric, "difference")
                    if main else None)
        c.update(group=group, label=label, baseline=base,
                 marker=stats.marker(c["p_t"]) if c["significant"]
                 else "~")
        if metric == headline:
            drift = [infos[label]["drift_pct"], infos[base]["drift_pct"]]
            _comparison_warnings(c, what, drift, warnings)
            _power_note(c, label, group, warnings, what)
        comps.append(c)
    return {"metric": metric, "per_label": per_label, "comparisons": comps}


def _power_note(c, label, group, warnings, what):
    """n needed for 2011's effect; warn when the run cannot resolve it."""
    eff = reference.pct_2011(label, c["baseline"]) if group == "main" \
        else None
    c["pct_2011"] = eff
    c["n_for_2011"] = None
    if eff is None or not c["noise_pct"] == c["noise_pct"]:
        return
    c["n_for_2011"] = stats.n_needed(c["noise_pct"], eff, c["paired"])
    if c["mde_pct"] > abs(eff):
        need = "about %s %s needed" % (
            c["n_for_2011"], "seeds" if c["paired"] else "runs per variant") \
            if c["n_for_2011"] is not None else "no feasible n at that noise"
        warnings.append("%s: minimum detectable effect %.2f%% is larger "
                        "than 2011's %+.2f%%: %s"
                        % (what, c["mde_pct"], eff, need))


def _convergence(runs, accel, groups, lengths, baseline):
    """Per run length: the throughput metrics of every comparison."""
    out = []
    for seconds in lengths:
        sub = runs[runs["seconds"] == seconds]
        infos = {lab: _label_info(sub, lab, g, metrics.headline(accel))
                 for g, labs in groups.items() for lab in labs
                 if lab in set(sub["label"])}
        present = {g: [lab for lab in labs if lab in infos]
                   for g, labs in groups.items()}
        scratch = []
        out.append({"seconds": seconds, "metrics": [
            _metric(sub, accel, m, present, infos, scratch, baseline)
            for m in metrics.names()]})
    return out


def summarize(res, loadfile=None):
    """The stats.json dict of a loaded results dir. A dir with several run
    lengths (the long profile) is summarised at its longest one, and each
    length's comparisons go to "convergence". loadfile: tbench's loadfile
    (analysis/results/loadfile.py) for the MB/s explanation, or None."""
    all_runs = res.runs
    run_accels = sorted(set(all_runs["accel"]))
    if len(run_accels) != 1:
        raise ValueError("runs.csv mixes accelerators %s: analyse one "
                         "accelerator per results dir" % ", ".join(run_accels))
    accel = run_accels[0]
    workload = schema.workload(res.meta)
    headline = metrics.headline(accel, workload)
    lengths = sorted(int(s) for s in set(all_runs["seconds"].dropna()))
    runs = longest(all_runs)
    main, aa = _groups(all_runs)
    groups = {"main": main, "aa": aa}
    baseline = res.baseline
    warnings = []
    hosts.check(all_runs, accel, warnings)
    infos = {}
    for group, labels in groups.items():
        for label in labels:
            infos[label] = _label_info(runs, label, group, headline)
            _label_warnings(infos[label], warnings)
    if main and baseline not in main:
        warnings.append("no %s runs: no comparisons against the baseline"
                        % baseline)
    names = [m.name for m in schema.METRICS if (
        m.derived or m.name in runs.columns)
        and m.name in schema.figures(workload).metrics] + [
        c + "_per_op" for c in schema.counter_columns(runs.columns)]
    # tbench's calibration, or another workload's floors where its
    # environment was studied (analysis/calibrate --floors-only)
    cal = calibrate.for_workload(workload) if accel == "icount" else None
    out_metrics = [_metric(runs, accel, m, groups, infos, warnings, baseline,
                           headline, cal) for m in names]
    ok = ok_rows(runs)
    values = per_run(ok, headline)[0]
    norm = values / values.groupby(ok["label"]).transform("mean")
    return {
        "schema": outputs.STATS_SCHEMA, "run_id": res.run_id, "accel": accel,
        **({"workload": workload} if workload != workloads.DEFAULT else {}),
        "nested": runinfo.nested(res.meta),
        "linux": runinfo.linux_of(res.builds),
        "accel_description": schema.ACCEL[schema.accel_key(
            accel, runinfo.nested(res.meta))].description,
        "headline": headline,
        "headline_why": schema.ACCEL[accel].headline_why,
        "lengths": lengths, "seconds": max(lengths) if lengths else None,
        "convergence": _convergence(all_runs, accel, groups, lengths,
                                    baseline)
        if len(lengths) > 1 else [],
        "mbps_explained": explain.explain(res, runs, loadfile, groups,
                                          baseline)
        if loadfile is not None and workload == workloads.DEFAULT else None,
        "baseline": baseline, "alpha": stats.ALPHA,
        "power": stats.POWER, "methods": METHODS,
        "calibration": cal,
        "seed_modes": clusters.analyse(runs, main + aa, headline)
        if accel == "icount" else None,
        "labels": [infos[lab] for lab in main + aa],
        "groups": groups, "metrics": out_metrics,
        "drift_overall_pct": stats.drift_pct(ok["round"], norm),
        "steal_warn_pct": STEAL_WARN_PCT,
        "tries": int(len(runs)), "ok_runs": int(len(ok)),
        "reference_2011": {"source": reference.SOURCE,
                           "mbps": reference.MBPS_2011,
                           "pct": {v: reference.pct_2011(v)
                                   for v in reference.MBPS_2011}},
        "warnings": warnings,
        **({"hosts": hosts.table(all_runs)} if "host" in all_runs else {}),
    }


def summary_rows(st):
    """The long summary.csv table of a stats dict."""
    info = {i["label"]: i for i in st["labels"]}
    rows = []
    for m in st["metrics"]:
        comps = {c["label"]: c for c in m["comparisons"]}
        for label, d in m["per_label"].items():
            c = comps.get(label, {})
            rows.append(dict(
                d, group=info[label]["group"], label=label,
                variant=info[label]["variant"], accel=st["accel"],
                metric=m["metric"], failed=info[label]["failed"],
                baseline=c.get("baseline", ""),
                pct_change=c.get("pct_change"), pct_ci_lo=c.get("pct_ci_lo"),
                pct_ci_hi=c.get("pct_ci_hi"),
                method=c.get("test_t", ""), p_t=c.get("p_t"),
                p_rank=c.get("p_rank"), marker=c.get("marker", ""),
                mde_pct=c.get("mde_pct")))
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _clean(x):
    """JSON-safe copy: NaN and infinities become null, numpy -> Python."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def write(res, st):
    """Write stats.json and summary.csv into the results dir."""
    with open(res.file("stats.json"), "w") as f:
        json.dump(_clean(st), f, indent=1, sort_keys=True)
        f.write("\n")
    summary_rows(st).to_csv(res.file("summary.csv"), index=False,
                            float_format="%.6g")
