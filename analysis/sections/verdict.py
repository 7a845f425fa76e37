"""REPORT.md's answer: its first lines in words, the verdict of each
comparison (against 2011 when the run repeats 2011's comparison,
runinfo.with_2011) for the first table, and the A/A noise floor, in the
headline metric of the accelerator, against the run's baseline
(stats.json's)."""
from analysis.results import metrics, reference, runinfo
from analysis.stats import stats
from analysis.sections import fmt as F
from analysis.results.runinfo import comparisons, headline, metric, with_2011
from analysis.sections.fmt import AA_ONLY, unit


def verdict(c):
    """The verdict cell of a comparison in the first table: is 2011's
    ordering reproduced, is the effect significant, and if not, why not."""
    eff = c.get("pct_2011")
    sig = c.get("significant", False)
    if F.missing(c["pct_change"]):
        return "no estimate"
    if eff is None and (sig or not within_floor(c)):
        return "significant" if sig else "not significant"
    if sig and (c["pct_change"] > 0) == (eff > 0):
        line = "ordering reproduced, significant"
    elif sig:
        line = "ordering NOT reproduced: significant in the opposite " \
               "direction"
    elif within_floor(c):
        line = "not resolved: within the environment floor (a harness " \
               "change alone moves a comparison by up to %.2f points)" \
               % c["floor_pts"]
    elif F.missing(c.get("pct_ci_lo")) and \
            c.get("estimate", "").startswith("median"):
        line = "not resolved: %d seeds are too few for the median rule's " \
               "95%% interval (it needs 6)" % c["n"]
    else:
        line = "not resolved: not significant (minimum detectable effect " \
               "%s)" % F.pct(c["mde_pct"]).lstrip("+")
    lo, hi = c.get("pct_ci_lo"), c.get("pct_ci_hi")
    if eff is not None and not (F.missing(lo) or F.missing(hi)):
        where = "inside" if lo <= eff <= hi else (
            "above" if eff > hi else "below")
        line += "; 2011's %s lies %s this CI" % (F.pct(eff), where)
    return line


def within_floor(c):
    """Whether a comparison is significant on its own interval but not
    once the environment floor widens it."""
    return bool(c.get("floor_pts")) and not c.get("significant") and \
        stats.significant(c)


def _significance(c):
    """'p<0.0001' or, when not significant, why not, in a few words."""
    text = F.p_is(c["p_t"])
    if within_floor(c):
        return text + "; within the environment floor, not significant"
    return text + ("" if c.get("significant") else ", not significant")


def _effect(c, noun):
    """'complete 1.42% [1.39, 1.44] more NOUN than' when significant, else
    'differ by -0.50% [-1.2, +0.2] in NOUN (not significant) from'."""
    if F.missing(c.get("pct_change")):
        return "show no estimate of %s against" % noun
    sig = c.get("significant", False)
    x, lo, hi = c["pct_change"], c.get("pct_ci_lo"), c.get("pct_ci_hi")
    if not sig or F.missing(lo) or F.missing(hi):
        return "differ by %s in %s (not significant) from" % (
            F.pct_ci(c), noun)
    if x < 0:
        x, lo, hi = -x, -hi, -lo
    env = " ±%.2f env" % c["floor_pts"] if c.get("floor_pts") else ""
    return "complete %.2f%% [%.2f, %.2f]%s %s %s than" % (
        x, lo, hi, env, "more" if c["pct_change"] >= 0 else "fewer", noun)


# A kvm run on an emulated host (tests/nested/run) answers nothing about
# hardware: its figures are shown, never compared.
NESTED = ("None from this run: its KVM host was itself an emulated machine "
          "(meta.json `host.nested`: a nested-virtualization test machine), "
          "so its tbench figures are wall-clock figures of emulation, from "
          "a functional run of the kvm path. They are compared with "
          "nothing: not with 2011's, not with other runs.")


def nested(st):
    """True for a kvm run whose host was itself emulated."""
    return runinfo.accel_key(st) == "kvm-nested"


def answer(st, lead="Answer"):
    """The first lines of the report: the question answered in words
    (lead: the bold word they open with; a suite's is its workload's,
    tbench, the suite's answer being analysis/sections/changed.py's)."""
    if nested(st):
        return "**%s.** %s\n\n%s" % (
            lead, NESTED, runinfo.accel(st).sees)
    name = headline(st)
    hm = metric(st, name)
    if hm is None or not st["groups"]["main"]:
        return AA_ONLY
    comps = comparisons(hm, "main")
    noun = "tbench operations per second" if name == "ops_per_s" \
        else "tbench throughput (MB/s)"
    parts = [(reference.words(lab), comps[lab]) for lab in
             st["groups"]["main"] if lab in comps]
    if not parts:
        return "No comparison against %s in this run." % st["baseline"]
    n = parts[0][1]["n"]
    unit_n = "seeds" if parts[0][1]["paired"] else "runs each"
    first = parts[0][1]
    old = with_2011(st)
    if old:
        lines = ["**%s.** On Linux %s, under %s, %s %s %s "
                 "static keys (%s %s, %d %s)" % (
                     lead, runinfo.linux(st), runinfo.accel_key(st),
                     parts[0][0], _effect(first, noun), first["baseline"],
                     first["test_t"],
                     F.p_is(first["p_t"]), n, unit_n)]
    else:
        lines = ["**%s.** Under %s, the runs of `%s` %s the runs of "
                 "`%s` (%s %s, %d %s)" % (
                     lead, runinfo.accel_key(st), first["label"],
                     _effect(first, noun), first["baseline"],
                     first["test_t"], F.p_is(first["p_t"]), n, unit_n)]
    for what, c in parts[1:]:
        lines[0] += "; %s %s (%s)" % (what, F.pct_ci(c), _significance(c))
    if old:
        lines[0] += ". 2011 measured %s MB/s on hardware." % " and ".join(
            F.pct(reference.pct_2011(v)) for v in reference.ORDER
            if v != reference.BASELINE_2011)
    else:
        lines[0] += "."
    lines.append("")
    lines.append(runinfo.accel(st).sees + " " + st.get(
        "headline_why", ""))
    side = metric(st, metrics.other(st["accel"])) if "headline" in st \
        else None
    if side:
        sc = comparisons(side, "main").get(first["label"])
        ex = (st.get("mbps_explained") or {}).get("comparisons", {})
        pc = (ex.get(sc["label"]) or {}).get("predicted_mbps") if sc \
            else None
        if side["metric"] == "throughput_mbps" and pc:
            lines += ["", "tbench's MB/s (the table's last column) follows "
                      "where in the loadfile each run's window falls: for "
                      "`%s` against `%s`, loadfile position predicts %s "
                      "(see \"MB/s explained\")." % (
                          sc["label"], sc["baseline"], F.pct_ci(pc))]
    res = resolution(st, name, parts)
    if res:
        lines += ["", res]
    aa = [c for c in hm["comparisons"] if c["group"] == "aa"]
    if aa:
        lines += ["", aa_line(st, aa[0])]
    return "\n".join(lines)


def resolution(st, name, parts):
    """The smallest difference this protocol tells apart, and what it was
    calibrated on (analysis/calibration.json), or None without one."""
    cal = st.get("calibration")
    m = ((cal or {}).get("metrics") or {}).get(name)
    if not m or cal.get("floors_only"):
        return None
    half = max(m["half_width"].values())
    floor = m["floor_difference_pts"]
    cover = min(m["coverage"].values())
    n = parts[0][1]["n"]
    text = ("**Resolution.** With %d seeds per kernel this protocol tells "
            "apart differences in %s larger than about %.2f%%: the "
            "median half-width of its intervals at %d seeds (%.3f points) "
            "plus the environment floor (%.3f points, the most a harness "
            "change alone moved a comparison). Calibrated on `%s` (%s "
            "seeds per kernel): at n=%d, A/A false positives %.1f%% "
            "(target at most %.0f%%), coverage at least %.1f%% (target "
            "95%%); environments in `%s`." % (
                cal["n"], unit(name), half + floor, cal["n"], half, floor,
                cal["study"], min(m["seeds"].values()), cal["n"],
                100 * m["false_positive"], 100 * cal["alpha"], 100 * cover,
                cal["environment_study"]))
    t = m.get("t")
    if t:
        text += " On the same pool the t rule it replaced had %.1f%% false " \
            "positives and %.1f%% coverage (docs/calibration.md)." % (
                100 * t["false_positive"], 100 * min(t["coverage"].values()))
    if n != cal["n"]:
        text += " This run has %d seeds, not %d: its intervals are %s." % (
            n, cal["n"], "narrower" if n > cal["n"] else "wider or "
            "undefined")
    return text


def aa_line(st, c):
    """The noise floor in words, from the first A/A comparison."""
    text = "Noise floor (A/A control: `%s` against `%s`, the same kernel" % (
        c["label"], c["baseline"])
    if st["accel"] == "icount":
        text += " on perturbation seeds of its own"
    text += "): "
    cells = []
    for m in metrics.names():
        mm = metric(st, m)
        cc = next((x for x in mm["comparisons"] if x["group"] == "aa"
                   and x["label"] == c["label"]), None) if mm else None
        if cc:
            cells.append("%s %s (%s %s)" % (
                unit(m), F.pct_ci(cc), F.p_is(cc["p_t"]), cc["marker"]))
    return text + "; ".join(cells) + ". A/A control " + aa_verdict(
        st, c["label"]) + "."


def aa_verdict(st, label):
    """Whether a metric tells the twin label from its kernel. The headline
    metric is the control's primary test, at 5% on its own; the other
    metrics test the same two kernels again, so they count as one family
    under Holm's rule (one of ten metrics at p<0.05 alone is what chance
    gives now and then). Names the metrics significant alone but not by
    that rule."""
    aa = [(x["metric"], cc) for x in st["metrics"] for cc in x["comparisons"]
          if cc["group"] == "aa" and cc["label"] == label]
    primary = headline(st)
    alone = [m for m, cc in aa if cc.get("significant")]
    others = [(m, cc) for m, cc in aa if m != primary]
    failed = [m for m in alone if m == primary] + [
        m for (m, _), rejected in zip(others, stats.holm(
            [cc["p_t"] if cc.get("significant") else 1.0
             for _, cc in others])) if rejected]
    rule = "%s at 5%%, its other %d metrics by Holm's family-wise 5%%" % (
        unit(primary), len(others))
    if failed:
        return "**FAILED** on %s (%s): the same kernel came out " \
            "different, so this run's intervals are too narrow" % (
                ", ".join(failed), rule)
    text = "**passed**: no metric tells the twin from its kernel (%s)" % rule
    if alone:
        text += "; alone, %s %s p<0.05, which a 5%% test of each of %d " \
            "metrics allows by chance" % (
                ", ".join(alone), "has" if len(alone) == 1 else "have",
                len(others))
    return text


def ordering(st):
    """The line under the first table: the order of the means, 2011's and
    here, when more than one kernel of 2011 ran; else None."""
    thr = metric(st, headline(st))
    order = sorted(st["groups"]["main"],
                   key=lambda lab: -(thr["per_label"][lab]["mean"] or 0))
    known = [lab for lab in order
             if reference.pct_2011(lab, st["baseline"]) is not None]
    if len(known) < 2:
        return None
    ref = sorted(known, key=lambda v: -reference.MBPS_2011[v])
    return "Ordering of the means: 2011 %s; here %s (%s)." % (
        " > ".join(ref), " > ".join(known),
        "same order" if ref == known else "different order")
