"""analysis/compare's text: two results dirs side by side, benchstat-style
(the figures: analysis/comparison/runs.py)."""
from analysis.results.load import ok_rows
from analysis.comparison.runs import (commit_of, differences, kernels,
                                      accel_of, rows)
from analysis.sections import fmt as F
from analysis.stats import calibrate


def spread(d, f=F.val):
    """'40.300 ±0.49%': mean and 95% CI half-width in % of the mean of
    stats.describe()'s d."""
    if F.missing(d["ci_lo"]) or not d["mean"]:
        return f(d["mean"])
    half = 100.0 * (d["ci_hi"] - d["mean"]) / abs(d["mean"])
    return "%s ±%.2f%%" % (f(d["mean"]), half)


def notes(old, new):
    out = []
    if old.baseline != new.baseline:
        out.append("the dirs have different baselines (%s vs %s): each "
                   "label is compared with itself, not with a baseline"
                   % (old.baseline, new.baseline))
    if accel_of(old) != accel_of(new):
        out.append("the runs used different accelerators (%s vs %s): their "
                   "absolute figures are not comparable" % (
                       accel_of(old), accel_of(new)))
    for tag, res in (("old", old), ("new", new)):
        n = ok_rows(res.runs).groupby("label").size()
        small = sorted(lab for lab, k in n.items() if k < 5)
        if small:
            out.append("%s: fewer than 5 ok runs for %s: the CIs are wide"
                       % (tag, ", ".join(small)))
        failed = int((res.runs["status"] == "failed").sum())
        if failed:
            out.append("%s: %d failed tries (see its runs.csv)"
                       % (tag, failed))
    return out


def what_changed(old, new):
    """Lines naming what differs between the dirs, kernels included."""
    k_old, k_new = kernels(old), kernels(new)
    same = sorted(lab for lab in k_old if k_new.get(lab) == k_old[lab])
    other = sorted(lab for lab in k_old if lab in k_new and lab not in same)
    env = differences(old, new)
    out = ["what differs:" + ("" if env else
                              " nothing but the runs' own seeds")]
    out += ["- " + line for line in env]
    if same:
        out.append("same kernel in both: %s%s" % (", ".join(same), (
            " (their differences measure the environment: `env`)"
            if env else "")))
    if other:
        out.append("other kernel: " + ", ".join(
            "%s %s -> %s" % (lab, k_old[lab], k_new[lab]) for lab in other))
    return out


def render(old, new):
    """The whole comparison as text (a Markdown table and notes)."""
    head = ["%s: %s (accelerator %s, commit %s, baseline %s)" % (
        tag, res.path, accel_of(res), commit_of(res), res.baseline)
        for tag, res in (("old", old), ("new", new))]
    head += what_changed(old, new) + [""]
    cal = calibrate.for_run(new.meta)
    body = [cells(r) for r in rows(old, new, cal)]
    if not body:
        return "\n".join(head + ["No label has ok runs in both dirs."]) + "\n"
    table = F.table(["metric", "label", "old (mean ±95% CI)",
                     "new (mean ±95% CI)", "delta [95% CI]", "p (test)",
                     "n", ""], body, "llrrrrrc")
    foot = ["", "~: not significant (icount: the interval holds 0, or "
            "reaches within the environment floor when the environment "
            "changed; kvm/tcg: Welch t p>=0.05). No correction for "
            "multiple comparisons."]
    if any(r[-1] == "env" for r in body):
        foot.append(
            "env: the same kernel in both dirs, so the difference comes "
            "from what else changed (above); not called significant: %s"
            % ("no environment floor has been measured for it"
               if cal is None else "its interval reaches "
               "within the environment floor (analysis/calibration.json)"))
    if any("env" in r[4] for r in body):
        foot.append("±X env: the environment floor, beyond which a "
                    "same-kernel difference is called significant")
    foot += ["note: " + n for n in notes(old, new)]
    return "\n".join(head + [table] + foot) + "\n"


def cells(r):
    """The table's cells of a runs.Row."""
    f = F.mbps if r.metric == "throughput_mbps" else F.val
    return [r.name, r.label, spread(r.old, f), spread(r.new, f),
            F.pct_ci(r.c), "%s %s" % (F.p(r.c["p_t"]), r.c["test_t"]),
            "%d+%d%s" % (r.n_old, r.n_new, " by " + r.how if r.how else ""),
            r.mark]
