"""REPORT.md's sections on seeds and run length: the per-seed
distribution and its modes (numbers from analysis/stats/clusters.py, in
stats.json's "seed_modes"), and convergence with run length (the newest
results dir made with several lengths, `--profile long`, whichever run
the rest of the report comes from: analysis/stats/analyze.py puts each
length's figures in its stats.json's "convergence")."""
import os

from analysis.sections import fmt as F
from analysis.results import compat, metrics, peers, reference
from analysis.stats.clusters import (FIGURE_Z, GAP_FACTOR, MIN_SEEDS,
                                     MIN_SHARE, OUTLIER_Z)


def distribution(st):
    """REPORT.md's per-seed distribution section."""
    seeds = st.get("seed_modes")
    if not seeds or not seeds["labels"]:
        return ("No per-seed distribution: this run has no perturbation "
                "seeds (only icount runs have them).")
    unit = "ops/s" if st.get("headline") == "ops_per_s" else "MB/s"
    rows = []
    order = st["groups"]["main"] + st["groups"]["aa"]
    for label in [lab for lab in order if lab in seeds["labels"]]:
        r = seeds["labels"][label]
        m = r["modes"]
        if m:
            modes = "two: %d seeds at %s, %d at %s (gap %.3f%%)" % (
                m["sizes"][0], F.pct(m["centres_pct"][0], 3),
                m["sizes"][1], F.pct(m["centres_pct"][1], 3), m["gap_pct"])
            sep = "; ".join("%s %s vs %s (AUC %.2f)" % (
                name, F.val(lo, 5), F.val(hi, 5), a)
                for name, a, lo, hi in m["separators"]) or "none found"
        else:
            modes = "one" if r["n"] >= MIN_SEEDS else \
                "(fewer than %d seeds)" % MIN_SEEDS
            sep = "-"
        rows.append(["`%s`" % label, str(r["n"]), F.val(r["median"], 6),
                     "%s .. %s" % (F.pct(r["min_pct"], 3),
                                   F.pct(r["max_pct"], 3)), modes, sep])
    tails = []
    for label in [lab for lab in order if lab in seeds["labels"]]:
        for seed, pct, figs in seeds["labels"][label].get("outliers", []):
            tails.append("- `%s`, seed %s: %s from the median; %s" % (
                label, seed, F.pct(pct, 3), "; ".join(
                    "%s %s (the others' median %s, %+.0f spreads)" % (
                        name, F.val(x, 5), F.val(m, 5), z)
                    for name, x, m, z in figs) or "no other figure of its "
                "run stands out"))
    text = [F.table(["label", "seeds", "median %s" % unit,
                     "range (from the median)", "modes",
                     "what moves with the mode (low vs high mode)"],
                    rows, "lrrrll"), ""]
    text.append(
        "One value per perturbation seed (`plots/img/seeds.svg` draws them). "
        "Two modes: the largest gap between sorted values is more than "
        "%g times the spread inside either side, each side holding %d%% "
        "of the seeds or more. AUC: how cleanly a figure of the same runs "
        "tells the modes apart (1 or 0: every run of one mode above every "
        "run of the other)." % (GAP_FACTOR, int(100 * MIN_SHARE)))
    if tails:
        text += ["", "Outlying seeds (more than %g robust spreads from the "
                 "others), and the figures of the same run that stand out "
                 "with them (more than %g spreads):" % (OUTLIER_Z,
                                                        FIGURE_Z), ""] + tails
    if seeds["same_seed_mode"]:
        text.append("")
        text.append("Same seed, same mode? " + "; ".join(
            "%s: %.0f%% of shared seeds" % (k, 100 * v)
            for k, v in seeds["same_seed_mode"].items()) + " (100%: the "
            "mode is a property of the seed's timing, the same under "
            "every kernel; about 50%: of the kernel and seed together).")
    return "\n".join(text)


def convergence_table(st):
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


def convergence(results_root, out_dir, plots_dir):
    """The convergence section of REPORT.md."""
    path, st = peers.convergence(results_root)
    if st is None:
        return ("No results dir with several run lengths yet: "
                "`./run_all.sh --profile long` (or `bench/run --profile "
                "long`) makes one.")
    rel = os.path.relpath(path, out_dir)
    header, body = convergence_table(st)
    out = ["From [`%s`](%s) (accelerator %s): the same kernels at every run "
           "length, %% change vs %s with 95%% CI, paired by seed."
           % (os.path.basename(path), rel, st["accel"],
              compat.baseline(st)),
           "", F.table(header, body), "",
           "A longer run carries each client further through the "
           "loadfile, so where its measured phase starts and ends weighs "
           "less in MB/s; operations per second do not depend on it."]
    svg = os.path.join(plots_dir, "convergence.svg")
    if os.path.exists(svg):
        r = os.path.relpath(svg, out_dir)
        out += ["", "![convergence](%s) ([PNG](%s))" % (r, r[:-4] + ".png")]
    return "\n".join(out)
