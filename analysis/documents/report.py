"""REPORT.md: the results of one analysed results dir, as Markdown.

Every number comes from the results dir: stats.json (analysis/analyze),
meta.json (with each build.json) and selftest.csv; the only constants are
the 2011 figures (analysis/results/reference.py) and fixed explanatory text.
The baseline is stats.json's (the results dir's meta.json); a run that does not
repeat 2011's comparison (runinfo.with_2011: user variants, another
baseline) is set beside nothing of 2011's.

Layout: the first screen holds the accelerator (stated once), the answer
(its CI and the A/A noise floor; a user's A/B adds what its kernels changed
and the function that changed most, and a suite run's answer is that,
workload by workload, before tbench's: analysis/sections/changed.py), the
2011-vs-here table with each comparison's
verdict (without 2011's columns when the run is not 2011's comparison) and
the main figure (analysis/sections/figures.py);
then the contents, made from the ## headings the sections emit; then the
sections, where long tables a reader skims are collapsed (fmt.details).
"""
import os
import re

from analysis.documents import across, workload
from analysis.models import published
from analysis.sections import (changed, configs, explain, facts, figures,
                               models, seeds, wherefrom)
from analysis.sections import fmt as F
from analysis.sections.fmt import AA_ONLY, fmt_value, head, unit
from analysis.sections.verdict import (NESTED, answer, nested, ordering,
                                       verdict)
from analysis.results import compat, metrics, reference, runinfo, suite
from analysis.results.runinfo import comparisons, headline, metric, with_2011
from lib.format import schema


def test_cell(c):
    return "%s %s, %s %s" % (c["test_t"], F.p_is(c["p_t"]),
                             c["test_rank"], F.p_is(c["p_rank"]))


def table_2011(st, res):
    """The first table: each main label's headline with its CI and change
    against the baseline, beside 2011's figures (runinfo.with_2011) when the
    run repeats 2011's comparison."""
    if not st["groups"]["main"]:
        return AA_ONLY
    old = with_2011(st)
    if nested(st):
        return "%s\n\nNot shown: this run's figures are not compared " \
            "with %s (see the statistics below).\n\n%s" % (
                head("tbench, 2011 vs here" if old else "tbench"),
                "2011's" if old else "hardware's", NESTED)
    name = headline(st)
    hm = metric(st, name)
    comps = comparisons(hm, "main")
    side = metric(st, metrics.other(st["accel"])) if "headline" in st \
        else None
    side_comps = comparisons(side, "main") if side else {}
    rows = []
    for label in st["groups"]["main"]:
        d = hm["per_label"][label]
        c = comps.get(label)
        mb = reference.MBPS_2011.get(label)
        p11 = reference.pct_2011(label, st["baseline"])
        base = label == st["baseline"]
        row = ["`%s`" % label] + ([
            F.val(mb) if mb else "-",
            "(baseline)" if base else (F.pct(p11) if p11 is not None
                                       else "-")] if old else []) + [
            "%s (n=%d)" % (F.mean_ci(d, lambda x: fmt_value(name, x)),
                           d["n"]),
            "(baseline)" if base else (F.pct_ci(c) if c else "n/a"),
            "" if base or not c else "%s %s" % (F.p(c["p_t"]), c["marker"])]
        if side:
            sc = side_comps.get(label)
            row.append("(baseline)" if base else (
                "%s %s" % (F.pct_ci(sc), sc["marker"]) if sc else "n/a"))
        row.append("" if base or not c else verdict(c))
        rows.append(row)
    clients = runinfo.proto(res.meta, "clients")
    vs = "atomic" if old else "`%s`" % st["baseline"]
    header = ["kernel"] + (["2011 MB/s", "2011 vs atomic"] if old else []) \
        + ["here %s, mean [95%% CI]" % unit(name),
           "here vs %s [95%% CI]" % vs, "p (%s)" % next(
               (c["test_t"] for c in comps.values()), "test")]
    if side:
        header.append("%s vs %s [95%% CI]" % (unit(side["metric"]), vs))
    header.append("verdict")
    out = [head("%s, tbench%s, %s" % (
        metrics.title(name),
        " %s clients" % clients if clients != "" else "",
        "2011 vs here" if old else "against " + vs)),
           "", F.table(header, rows, "l" + "r" * (len(header) - 2) + "l")]
    order = ordering(st) if old else None
    if order:
        out += ["", order]
    if old:
        out += ["", "2011: %s. Its MB/s come from other hardware and are "
                "not comparable with ours in absolute terms; compare the %% "
                "changes." % reference.SOURCE]
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
    return F.details(
        "%s of each label: n, failed tries, mean, stdev, CoV, min, max, "
        "95%% CI" % unit(name),
        F.table(["label", "n", "failed tries", "mean %s" % unit(name),
                 "stdev", "CoV %", "min", "max", "95% CI of the mean"],
                rows))


def comparison_table(st, group, name):
    thr = metric(st, name)
    n2011 = with_2011(st) or not st["groups"]["main"]
    rows = []
    for c in thr["comparisons"]:
        if c["group"] != group:
            continue
        n = "%d pairs" % c["n"] if c["paired"] else "%d vs %d" % (
            c["n"], c["n_baseline"])
        rows.append(["`%s` vs `%s`" % (c["label"], c["baseline"]),
                     F.pct_ci(c), c["marker"], test_cell(c), n,
                     F.val(c["noise_pct"], 3), F.val(c["mde_pct"], 3)]
                    + ([F.val(c.get("n_for_2011")) if c.get("pct_2011")
                        is not None else "-"] if n2011 else []))
    if not rows:
        return ""
    return F.table(["comparison", "% change [95% CI]", "", "tests", "n",
                    "noise %", "MDE %"]
                   + (["n for 2011's effect"] if n2011 else []), rows,
                   "lrcllrrr" if n2011 else "lrcllrr")


def _metric_names(st):
    """The throughput metrics of a stats dict, the headline first."""
    if "headline" not in st:
        return ["throughput_mbps"]
    return [st["headline"], metrics.other(st["accel"])]


def statistics(st):
    out = []
    for name in _metric_names(st):
        what = unit(name) + (" (headline)" if name == headline(st) else "")
        out += [head("%s per variant: ok runs (boots%s)" % (what, (
            "; one perturbation seed each" if st["accel"] == "icount"
            else ""))), "",
            variant_table(st, "main", name) if st["groups"]["main"]
            else AA_ONLY, "",
            head("%s against %s" % (what, st["baseline"])), ""]
        table = comparison_table(st, "main", name)
        out += [table or "No comparison: no `%s` runs." % st["baseline"],
                ""]
    note = "Noise: the run-to-run CoV pooled over both samples (paired: " \
        "the stdev of the per-seed differences), in % of the baseline " \
        "mean. MDE: the smallest change a t test detects with 80% power " \
        "at alpha 0.05 at that noise."
    if st["accel"] == "icount":
        note += " Under icount a comparison is the median of the " \
            "per-seed % changes with its distribution-free interval (at " \
            "least 95% whatever the seeds' distribution, from 6 seeds; " \
            "analysis/stats/stats.py compare_median) and the exact sign " \
            "test; " \
            "`±X env` is the environment floor that widens it before it " \
            "is called significant (the Resolution line at the top)."
    out += [note, ""]
    out.append(head("A/A control: one kernel under two labels"))
    out.append("")
    if st["groups"]["aa"]:
        for name in _metric_names(st):
            out += [variant_table(st, "aa", name), "",
                    comparison_table(st, "aa", name), ""]
        out.append("The A/A difference is the noise floor: a real effect "
                   "must be larger than it.%s" % (
                       " The twin runs on perturbation seeds of its own "
                       "(the same kernel on the same seed repeats bit for "
                       "bit under icount), so it is paired with its kernel "
                       "by round: two independent draws of one kernel, "
                       "whose per-pair change has median 0."
                       if st["accel"] == "icount" else ""))
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
        what = schema.counter(col)
        if schema.is_model(col):
            continue
        branches = branches or (what.branches and measured)
        comps = comparisons(m, "main")
        name = what.name
        rows.append([name] + [counter_cell(m["per_label"][lab],
                                           comps.get(lab)) for lab in main])
    out = [head("Per tbench operation (counts / ops), %% vs %s"
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


def plots(plots_dir, out_dir, run_id, titles=figures.FIGURES):
    """The lines linking each figure (titles: figures.titles() of the
    run), or the line saying the plots are not this run's."""
    stamp = os.path.join(plots_dir, "drawn-from.txt")
    drawn = open(stamp).read().strip() if os.path.exists(stamp) else ""
    out = []
    if drawn != run_id:
        out.append("Plots in `%s` %s; run `plots/draw` on this results "
                   "dir." % (os.path.relpath(plots_dir, out_dir),
                             "are from run %s" % drawn if drawn
                             else "were not drawn"))
        return out
    for name, title in titles:
        svg = os.path.join(plots_dir, name + ".svg")
        if os.path.exists(svg):
            rel = os.path.relpath(svg, out_dir)
            out.append("- [%s](%s) ([PNG](%s))" % (
                title, rel, rel[:-4] + ".png"))
        else:
            out.append("- %s: not drawn (no data in this run)." % title)
    return out


def arch_sections(res):
    """(heading, body) per other architecture's selftest boots; for s390x,
    when there are none, a line saying how to get them."""
    out = []
    for arch in sorted(set(res.arch_selftest) | {"s390x"}):
        text = facts.arch_selftest(res, arch)
        if text is None and arch == "s390x":
            text = ("No s390x selftest in this results dir "
                    "(`./run_all.sh --s390x`, or bench/selftest with the "
                    "builds of `kernel-variants/build --arch s390x`).")
        out.append(("%s: the jump label code of seed 004" % arch, text))
    return out


def accel_line(st):
    """The one statement of the run's accelerator: every figure of the
    report is of it (the headings do not repeat it)."""
    return "*%s; every figure below is of this accelerator.*" % (
        runinfo.accel(st).head[0].upper() + runinfo.accel(st).head[1:])


def title(st):
    """The report's title: the kernels this run compares, in 2011's words
    where 2011 had them (an A/A-only run: the kernel of its twins)."""
    main = st["groups"]["main"]
    if main:
        what = " vs ".join(reference.words(lab) for lab in main)
    else:
        what = "A/A control of " + " and ".join(
            reference.words(v) for v in dict.fromkeys(
                i.get("variant", i["label"]) for i in st["labels"]))
    return "# jlbench: %s, tbench" % what


def main_figure(plots_dir, out_dir, run_id, titles=figures.FIGURES):
    """The main figure (analysis/sections/figures.py MAIN) as an image, or the
    line saying the plots are not this run's."""
    drawn = plots(plots_dir, out_dir, run_id, titles)
    if drawn and not drawn[0].startswith("- "):
        return drawn
    svg = os.path.join(plots_dir, figures.MAIN + ".svg")
    if not os.path.exists(svg):
        return []
    return ["![%s](%s)" % (dict(titles)[figures.MAIN],
                           os.path.relpath(svg, out_dir))]


def anchors(text):
    """(level, heading, anchor) of every heading of Markdown text; anchors
    as GitHub makes them: lower case, punctuation dropped, spaces to
    hyphens, -1, -2 ... on repeats."""
    seen, out = {}, []
    for line in text.splitlines():
        m = re.match(r"(#+) (.*)$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(2).strip().lower()) \
            .replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.append((len(m.group(1)), m.group(2),
                    slug if n == 0 else "%s-%d" % (slug, n)))
    return out


def contents(top, body):
    """The table of contents: a link to every ## section of body."""
    heads = anchors("\n".join([top, "## Contents", body]))
    return "\n".join(["## Contents", ""] + [
        "- [%s](#%s)" % (h, a) for level, h, a in heads
        if level == 2 and h != "Contents"])


def first_answer(res, st):
    """The answer's lines: tbench's answer, and for a user's A/B (a run
    that is not 2011's comparison) what its kernels changed, with the
    kernel function that changed most (analysis/sections/changed.py); of
    a suite run, workload by workload: the suite's answer, first, with
    tbench's after it."""
    if with_2011(st) or nested(st) or not st["groups"]["main"] or \
            not comparisons(metric(st, headline(st)), "main"):
        return [answer(st), ""]
    if suite.members(res.path):
        return changed.lines(res, st, True) + [
            "", answer(st, compat.workload(st)), ""]
    return [answer(st), ""] + changed.lines(res, st, False) + [""]


def render(res, st, out_path, plots_dir):
    """The whole REPORT.md text: first the accelerator, the answer, the
    table that carries it (with each comparison's verdict) and the main
    figure, then the contents, then the sections. A run of another
    workload than tbench has its own (analysis/documents/workload.py)."""
    if compat.workload(st) != compat.WORKLOAD:
        return workload.render(res, st, out_path, plots_dir)
    out_dir = os.path.dirname(os.path.abspath(out_path))
    rel = os.path.relpath(res.path, out_dir)
    st = dict(st, nested=runinfo.nested(res.meta))
    note = facts.config_note(res)
    titles = figures.titles(st["baseline"], with_2011(st))
    top = "\n".join(
        [title(st), "", accel_line(st), ""] + first_answer(res, st)
        + ([note, ""] if note else []) + [table_2011(st, res), ""]
        + main_figure(plots_dir, out_dir, res.run_id, titles))
    sections = [
        ("The 2011 experiment and this run" if with_2011(st)
         else "This run", facts.intro(st, res, rel)),
        ("MB/s explained: where in the loadfile the window falls",
         explain.section(st)),
        ("Convergence with run length", seeds.convergence(
            os.path.dirname(res.path), out_dir, plots_dir)),
        ("Statistics", statistics(st)),
        ("Per-seed distribution and its modes", seeds.distribution(st)),
        ("Branch counts", counters(st)),
        ("Where the difference comes from", wherefrom.section(
            res, st, plots(plots_dir, out_dir, res.run_id, [
                t for t in titles if t[0] == wherefrom.FIGURE]))),
        ("Across the kernel", across.section(res, plots(
            plots_dir, out_dir, res.run_id, [
                t for t in titles if t[0] == across.FIGURE]))),
        ("Kernel configs: more static keys on the path",
         configs.section(res, st, out_dir)),
        (configs.versions_title(),
         configs.versions_section(res, st, out_dir)),
        ("Modelled hardware cost", models.section(st, res)),
    ] + ([("Against published hardware counters",
           models.published_section(res, st))]
         if published.applies(st) else []) + [
        ("Kernels", facts.builds(res)),
        ("Static-key selftest and microbenchmark",
         facts.selftest(res, st["baseline"])),
    ] + arch_sections(res) + [
        ("Drift, steal time and failed runs", facts.drift(st)),
        ("Warnings", facts.warnings(st)),
        ("Host, versions and protocol", facts.hosts(st) + facts.meta(res)),
        ("Confounds", facts.confounds(st) + models.confound(st)),
        ("Plots", "\n".join(plots(plots_dir, out_dir, res.run_id, titles))),
        ("Method", facts.method(st)),
    ]
    body = "\n\n".join("## %s\n\n%s" % sec for sec in sections)
    return "\n\n".join([
        top, contents(top, body), body,
        "Generated by `analysis/report` from [%s](%s) (runs.csv, "
        "stats.json, meta.json, raw/ console logs)." % (rel, rel)]) + "\n"
