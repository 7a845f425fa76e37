"""REPORT.md: the results of one analysed results dir, as Markdown.

Every number comes from the results dir: stats.json (analysis/analyze),
meta.json (with each build.json) and selftest.csv; the only constants are
the 2011 figures (analysis/reference.py) and fixed explanatory text.
"""
import os

from analysis import convergence, explain, facts, metrics, reference
from analysis import fmt as F
from analysis import hosts

MODE_HEAD = {
    "icount": "mode icount: deterministic instruction-path model in guest "
              "time, not hardware",
    "tcg": "mode tcg: emulated wall-clock, noisy, not hardware",
    "kvm": "mode kvm: hardware",
    "kvm-nested": "mode kvm, nested in an emulated machine: wall-clock of "
                  "QEMU TCG, not hardware",
}
COUNTER_NAMES = {
    "kernel_branches": "kernel conditional branches (TCG plugin)",
    "user_branches": "user conditional branches (TCG plugin)",
    "kernel_insns": "kernel instructions (TCG plugin)",
    "user_insns": "user instructions (TCG plugin)",
    "site_execs": "static-key site executions (TCG plugin)",
}
BRANCH_COUNTERS = ("kernel_branches", "user_branches", "perf_branches",
                   "perf_branch_misses")
PLOTS = [
    ("pct_change", "% change vs atomic-read with 95% CI, and 2011's values"),
    ("throughput", "Throughput of every run, mean and 95% CI"),
    ("traces", "Per-second throughput of every run (warm-up marked)"),
    ("drift", "Run order vs throughput (drift)"),
    ("branches", "Branches and instructions per tbench operation"),
    ("history", "% change vs atomic-read across analysed runs (commits)"),
    ("convergence", "% change vs atomic-read by run length"),
]


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
    return metrics.METRICS.get(name, {}).get("unit", name)


def comparisons(m, group):
    return {c["label"]: c for c in m["comparisons"] if c["group"] == group}


def head(st, title):
    return "### %s (%s)" % (title, MODE_HEAD[facts.mode_key(st)])


def test_cell(c):
    return "%s %s, %s %s" % (c["test_t"], F.p_is(c["p_t"]),
                             c["test_rank"], F.p_is(c["p_rank"]))


AA_ONLY = ("This results dir holds only an A/A control (one kernel under "
           "two labels, `bench/run --aa`): no variant comparison; see the "
           "A/A section.")


def table_2011(st, res):
    if not st["groups"]["main"]:
        return AA_ONLY
    name = headline(st)
    hm = metric(st, name)
    comps = comparisons(hm, "main")
    side = metric(st, metrics.other(st["mode"])) if "headline" in st \
        else None
    side_comps = comparisons(side, "main") if side else {}
    rows = []
    for label in st["groups"]["main"]:
        d = hm["per_label"][label]
        c = comps.get(label)
        mb = reference.MBPS_2011.get(label)
        p11 = reference.pct_2011(label)
        base = label == reference.BASELINE
        row = [
            "`%s`" % label, F.val(mb) if mb else "-",
            "(baseline)" if base else (F.pct(p11) if p11 is not None
                                       else "-"),
            "%s (n=%d)" % (F.mean_ci(d, lambda x: fmt_value(name, x)),
                           d["n"]),
            "(baseline)" if base else (F.pct_ci(c) if c else "n/a"),
            "" if base or not c else "%s %s" % (F.p(c["p_t"]), c["marker"])]
        if side:
            sc = side_comps.get(label)
            row.append("(baseline)" if base else (
                "%s %s" % (F.pct_ci(sc), sc["marker"]) if sc else "n/a"))
        rows.append(row)
    clients = facts.proto(res.meta, "clients")
    header = ["kernel", "2011 MB/s", "2011 vs atomic",
              "here %s, mean [95%% CI]" % unit(name),
              "here vs atomic [95% CI]", "p (t test)"]
    if side:
        header.append("%s vs atomic [95%% CI]" % unit(side["metric"]))
    out = [head(st, "%s, tbench%s, 2011 vs here" % (
        metrics.METRICS.get(name, {}).get("name", name),
        " %s clients" % clients if clients != "" else "")),
           "", F.table(header, rows), "",
           "2011: %s. Its MB/s come from other hardware and are not "
           "comparable with ours in absolute terms; compare the %% "
           "changes." % reference.SOURCE]
    return "\n".join(out)


def verdict(c, name="throughput_mbps"):
    """One line: is 2011's ordering reproduced, is the effect significant."""
    eff = c.get("pct_2011")
    sig = not F.missing(c["p_t"]) and c["p_t"] < 0.05
    ours = c["pct_change"]
    line = "**%s vs %s**: " % (c["label"], c["baseline"])
    if eff is not None:
        line += "2011 %s MB/s, " % F.pct(eff)
    line += "here %s %s (%s %s %s): " % (
        F.pct_ci(c), unit(name), c["test_t"], F.p_is(c["p_t"]),
        c["marker"])
    if F.missing(ours):
        return line + "no estimate."
    if eff is None:
        return line + ("significant." if sig else "not significant.")
    if sig and (ours > 0) == (eff > 0):
        line += "ordering reproduced, the difference is significant"
    elif sig:
        line += "ordering NOT reproduced: significant in the opposite " \
                "direction"
    else:
        line += "not resolved: the difference is not significant " \
                "(minimum detectable effect %s)" % F.pct(c["mde_pct"]) \
                .lstrip("+")
    lo, hi = c.get("pct_ci_lo"), c.get("pct_ci_hi")
    if not (F.missing(lo) or F.missing(hi)):
        where = "inside" if lo <= eff <= hi else (
            "above" if eff > hi else "below")
        line += "; 2011's %s lies %s this CI" % (F.pct(eff), where)
    return line + "."


WHAT_MODE_SEES = {
    "icount": "This mode sees the instructions each static-key check "
              "executes (every guest instruction costs the same guest time); "
              "it cannot see branch prediction, caches or pipelines, where "
              "jump labels also help on hardware.",
    "tcg": "This mode times an emulator by the wall clock: it mixes the "
           "guest's work with translation and host noise (10-14% between "
           "boots here), and sees no hardware effects of the guest's code.",
    "kvm": "This mode runs the guest on the host's CPU: its figures include "
           "branch prediction and caches, and the host's own noise.",
    "kvm-nested": "This run's KVM host was itself an emulated machine "
                  "(QEMU TCG): the guest's code was emulated, so its "
                  "figures show no hardware effect of jump labels.",
}


def _effect(c, noun):
    """'complete 1.42% [1.39, 1.44] more NOUN than' when significant, else
    'differ by -0.50% [-1.2, +0.2] in NOUN (not significant) from'."""
    if F.missing(c.get("pct_change")):
        return "show no estimate of %s against" % noun
    sig = not F.missing(c["p_t"]) and c["p_t"] < 0.05
    x, lo, hi = c["pct_change"], c.get("pct_ci_lo"), c.get("pct_ci_hi")
    if not sig or F.missing(lo) or F.missing(hi):
        return "differ by %s in %s (not significant) from" % (
            F.pct_ci(c), noun)
    if x < 0:
        x, lo, hi = -x, -hi, -lo
    return "complete %.2f%% [%.2f, %.2f] %s %s than" % (
        x, lo, hi, "more" if c["pct_change"] >= 0 else "fewer", noun)


def answer(st):
    """The first lines of the report: the question answered in words."""
    name = headline(st)
    hm = metric(st, name)
    if hm is None or not st["groups"]["main"]:
        return AA_ONLY
    comps = comparisons(hm, "main")
    noun = "tbench operations per second" if name == "ops_per_s" \
        else "tbench throughput (MB/s)"
    parts = []
    for label, what in (("jump-label", "jump labels"),
                        ("plain-read", "plain reads")):
        c = comps.get(label)
        if c:
            parts.append((what, c))
    if not parts:
        return "No comparison against %s in this run." % reference.BASELINE
    n = parts[0][1]["n"]
    unit_n = "seeds" if parts[0][1]["paired"] else "runs each"
    lines = ["**Answer.** On Linux 6.1, in %s mode, %s %s atomic-read "
             "static keys (%s %s, %d %s)" % (
                 facts.mode_key(st), parts[0][0], _effect(parts[0][1], noun),
                 parts[0][1]["test_t"], F.p_is(parts[0][1]["p_t"]), n,
                 unit_n)]
    for what, c in parts[1:]:
        lines[0] += "; %s %s (%s)" % (what, F.pct_ci(c), F.p_is(c["p_t"]))
    lines[0] += (". 2011 measured %s and %s MB/s on hardware." % (
        F.pct(reference.pct_2011("jump-label")),
        F.pct(reference.pct_2011("plain-read"))))
    lines.append("")
    lines.append(WHAT_MODE_SEES[facts.mode_key(st)] + " " + st.get(
        "headline_why", ""))
    side = metric(st, metrics.other(st["mode"])) if "headline" in st \
        else None
    if side:
        sc = comparisons(side, "main").get("jump-label")
        if sc:
            line = "tbench's %s: jump-label %s vs atomic-read (%s %s)" % (
                unit(side["metric"]), F.pct_ci(sc), F.p_is(sc["p_t"]),
                sc["marker"])
            ex = (st.get("mbps_explained") or {}).get("comparisons", {})
            pc = (ex.get("jump-label") or {}).get("predicted_mbps")
            if side["metric"] == "throughput_mbps" and pc:
                line += "; loadfile position predicts %s (see \"MB/s " \
                        "explained\")" % F.pct_ci(pc)
            lines += ["", line + "."]
    aa = [c for c in hm["comparisons"] if c["group"] == "aa"]
    if aa:
        lines += ["", aa_line(st, aa[0])]
    return "\n".join(lines)


def aa_line(st, c):
    """The noise floor in words, from the first A/A comparison."""
    text = "Noise floor (A/A control: `%s` against `%s`, the same kernel" % (
        c["label"], c["baseline"])
    if st["mode"] == "icount":
        text += " on perturbation seeds of its own"
    text += "): "
    cells = []
    for m in metrics.METRICS:
        mm = metric(st, m)
        cc = next((x for x in mm["comparisons"] if x["group"] == "aa"
                   and x["label"] == c["label"]), None) if mm else None
        if cc:
            cells.append("%s %s (%s %s)" % (
                unit(m), F.pct_ci(cc), F.p_is(cc["p_t"]), cc["marker"]))
    return text + "; ".join(cells) + "."


def verdicts(st):
    name = headline(st)
    thr = metric(st, name)
    comps = comparisons(thr, "main")
    out = ["### Verdict (%s)" % MODE_HEAD[facts.mode_key(st)], ""]
    for label in st["groups"]["main"]:
        if label in comps:
            out.append("- " + verdict(comps[label], name))
    order = sorted(st["groups"]["main"],
                   key=lambda lab: -(thr["per_label"][lab]["mean"] or 0))
    known = [lab for lab in order if lab in reference.MBPS_2011]
    if len(known) > 1:
        ref = sorted(known, key=lambda v: -reference.MBPS_2011[v])
        out.append("- Ordering of the means: 2011 %s; here %s (%s)."
                   % (" > ".join(ref), " > ".join(known),
                      "same order" if ref == known else "different order"))
    side = metric(st, metrics.other(st["mode"])) if "headline" in st \
        else metric(st, "ops")
    for label, c in sorted(comparisons(side, "main").items() if side
                           else []):
        out.append("- %s vs %s, %s (beside the headline): %s (%s %s %s)."
                   % (label, c["baseline"], metrics.METRICS.get(
                       side["metric"], {"name": "tbench operations"})["name"],
                      F.pct_ci(c), c["test_t"], F.p_is(c["p_t"]),
                      c["marker"]))
    if len(out) == 2:
        out.append("- No comparison against %s in this run."
                   % reference.BASELINE)
    return "\n".join(out)


def variant_table(st, group, name):
    thr = metric(st, name)
    info = {i["label"]: i for i in st["labels"]}
    rows = []
    for label in st["groups"][group]:
        d = thr["per_label"][label]
        f = lambda x: fmt_value(name, x)  # noqa: E731
        rows.append(["`%s`" % label, d["n"], info[label]["failed"],
                     f(d["mean"]), F.val(d["stdev"], 3),
                     F.val(d["cov_pct"], 3), f(d["min"]), f(d["max"]),
                     "[%s, %s]" % (f(d["ci_lo"]), f(d["ci_hi"]))])
    return F.table(["label", "n", "failed tries", "mean %s" % unit(name),
                    "stdev", "CoV %", "min", "max", "95% CI of the mean"],
                   rows)


def comparison_table(st, group, name):
    thr = metric(st, name)
    rows = []
    for c in thr["comparisons"]:
        if c["group"] != group:
            continue
        n = "%d pairs" % c["n"] if c["paired"] else "%d vs %d" % (
            c["n"], c["n_baseline"])
        rows.append(["`%s` vs `%s`" % (c["label"], c["baseline"]),
                     F.pct_ci(c), c["marker"], test_cell(c), n,
                     F.val(c["noise_pct"], 3), F.val(c["mde_pct"], 3),
                     F.val(c.get("n_for_2011")) if c.get("pct_2011")
                     is not None else "-"])
    if not rows:
        return ""
    return F.table(["comparison", "% change [95% CI]", "", "tests", "n",
                    "noise %", "MDE %", "n for 2011's effect"], rows,
                   "lrcllrrr")


def _metric_names(st):
    """The throughput metrics of a stats dict, the headline first."""
    if "headline" not in st:
        return ["throughput_mbps"]
    return [st["headline"], metrics.other(st["mode"])]


def statistics(st):
    out = []
    for name in _metric_names(st):
        what = unit(name) + (" (headline)" if name == headline(st) else "")
        out += [head(st, "%s per variant: ok runs (boots%s)" % (what, (
            "; one perturbation seed each" if st["mode"] == "icount"
            else ""))), "",
            variant_table(st, "main", name) if st["groups"]["main"]
            else AA_ONLY, "",
            head(st, "%s against %s" % (what, st["baseline"])), ""]
        table = comparison_table(st, "main", name)
        out += [table or "No comparison: no `%s` runs." % st["baseline"],
                ""]
    out += ["Noise: the run-to-run CoV pooled over both samples "
            "(paired: the stdev of the per-seed differences), in % of the "
            "baseline mean. MDE: the smallest change the t test detects "
            "with 80% power at alpha 0.05 at that noise.", ""]
    out.append(head(st, "A/A control: one kernel under two labels"))
    out.append("")
    if st["groups"]["aa"]:
        for name in _metric_names(st):
            out += [variant_table(st, "aa", name), "",
                    comparison_table(st, "aa", name), ""]
        out.append("The A/A difference is the noise floor: a real effect "
                   "must be larger than it.%s" % (
                       " The twin runs on perturbation seeds of its own "
                       "(the same kernel on the same seed repeats bit for "
                       "bit under icount), so it is compared unpaired."
                       if st["mode"] == "icount" else ""))
    else:
        out.append("No A/A control in this run (bench/run adds one unless "
                   "`--no-aa`).")
    return "\n".join(out)


def counter_cell(d, c):
    if d["text"]:
        return d["text"]
    if F.missing(d["mean"]):
        return "n/a"
    cell = F.val(d["mean"], 6)
    if c is not None and not F.missing(c["pct_change"]):
        cell += " (%s %s)" % (F.pct(c["pct_change"], 3), c["marker"])
    return cell


def counters(st):
    main = st["groups"]["main"]
    rows, branches = [], False
    for m in st["metrics"]:
        col = m["metric"][:-len("_per_op")]
        if not m["metric"].endswith("_per_op"):
            continue
        if all(F.missing(d["mean"]) and not d["text"]
               for d in m["per_label"].values()):
            continue
        measured = any(not F.missing(d["mean"])
                       for d in m["per_label"].values())
        branches = branches or (col in BRANCH_COUNTERS and measured)
        comps = comparisons(m, "main")
        name = COUNTER_NAMES.get(col, "perf %s" % col[len("perf_"):])
        rows.append([name] + [counter_cell(m["per_label"][lab],
                                           comps.get(lab)) for lab in main])
    out = [head(st, "Per tbench operation (counts / ops), %% vs %s"
                % st["baseline"]), ""]
    if rows:
        out += [F.table(["counter per op"] + ["`%s`" % v for v in main],
                        rows)]
    if not branches:
        out.append("")
        out.append("Branch counts: **not measured on this host** (no "
                   "numeric perf branch counter and no TCG plugin counts "
                   "in this run; `not-supported` means the PMU is absent).")
    out += facts.site_explanation(st)
    return "\n".join(out)


def plots(plots_dir, out_dir, run_id):
    stamp = os.path.join(plots_dir, "drawn-from.txt")
    drawn = open(stamp).read().strip() if os.path.exists(stamp) else ""
    out = []
    if drawn != run_id:
        out.append("Plots in `%s` %s; run `plots/draw` on this results "
                   "dir." % (os.path.relpath(plots_dir, out_dir),
                             "are from run %s" % drawn if drawn
                             else "were not drawn"))
        return out
    for name, title in PLOTS:
        svg = os.path.join(plots_dir, name + ".svg")
        if os.path.exists(svg):
            rel = os.path.relpath(svg, out_dir)
            out.append("- [%s](%s) ([PNG](%s))" % (
                title, rel, rel[:-4] + ".png"))
        else:
            out.append("- %s: not drawn (no data in this run)." % title)
    return out


def arch_sections(res):
    """A section per other architecture's selftest boots; for s390x, when
    there are none, a line saying how to get them."""
    out = []
    for arch in sorted(set(res.arch_selftest) | {"s390x"}):
        text = facts.arch_selftest(res, arch)
        if text is None and arch == "s390x":
            text = ("No s390x selftest in this results dir "
                    "(`./run_all.sh --s390x`, or bench/selftest with the "
                    "builds of `kernel-variants/build --arch s390x`).")
        out += ["## %s: the jump label code of seed 004" % arch, "", text,
                ""]
    return out


def render(res, st, out_path, plots_dir):
    """The whole REPORT.md text."""
    out_dir = os.path.dirname(os.path.abspath(out_path))
    rel = os.path.relpath(res.path, out_dir)
    st = dict(st, nested=facts.nested(res.meta))
    first = plots(plots_dir, out_dir, res.run_id)
    if first and first[0].startswith("- "):
        first = ["![%s](%s)" % ("% change vs atomic-read", os.path.relpath(
            os.path.join(plots_dir, "pct_change.svg"), out_dir)), ""] + first
    parts = [
        "# jlbench: jump labels vs atomic reads vs plain reads, tbench",
        "", answer(st), "",
        facts.intro(st, res, rel),
        "", table_2011(st, res), "", verdicts(st), "",
        "## MB/s explained: where in the loadfile the window falls", "",
        explain.section(st), "",
        "## Convergence with run length", "",
        convergence.section(os.path.dirname(res.path), out_dir, plots_dir),
        "",
        "## Statistics", "", statistics(st), "",
        "## Branch counts", "", counters(st), "",
        "## Kernels", "", facts.builds(res), "",
        "## Static-key selftest and microbenchmark", "", facts.selftest(res),
        ""] + arch_sections(res) + [
        "## Drift, steal time and failed runs", "", facts.drift(st), "",
        "## Warnings", "", facts.warnings(st), "",
        "## Host, versions and protocol", "",
        hosts.render(st) + facts.meta(res), "",
        "## Confounds", "", facts.confounds(st), "",
        "## Plots", ""] + first + [
        "", "## Method", "", facts.method(st), "",
        "Generated by `analysis/report` from [%s](%s) (runs.csv, "
        "stats.json, meta.json, raw/ console logs)." % (rel, rel),
        ""]
    return "\n".join(parts)
