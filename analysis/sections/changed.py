"""The first screen of a user's A/B (a run that is not 2011's comparison,
runinfo.with_2011): which workloads its kernels changed, by how much, and
the kernel function that changed most in each (the figures:
analysis/comparison/changed.py)."""
from analysis.comparison import changed
from analysis.sections import fmt as F
from analysis.sections.wherefrom import fig

RULE = ("%s by the report's rule: the median of the per-seed changes, "
        "significant when the sign test says so and its 95%% interval "
        "clears the workload's environment floor")


def function_words(top):
    """'top function `f` +240.00 kernel instructions/op, beyond its own
    floor' of a Diff row, or why there is none."""
    if top is None:
        return "no per-function profile"
    floor = "its own floor" if top["own_floor"] else \
        "the kernel total's floor"
    return "top function `%s` %s kernel instructions/op, %s %s" % (
        top["name"], fig(top["diff"], True),
        "beyond" if top["significant"] else "within", floor)


def _names(workloads):
    return ", ".join("`%s`" % w for w in workloads)


def lines(res, st, suite_run):
    """The lines of the first screen that say what changed (suite_run: the
    run holds a suite, whose answer this is)."""
    found = changed.changes(res, st)
    by = {}
    for c in found:
        by.setdefault(c.workload.name, []).append(c)
    labels = list(dict.fromkeys(c.label for c in found))
    hit = {w: cs for w, cs in by.items() if any(c.changed for c in cs)}
    ran = [w for w, cs in by.items() if any(c.comparison for c in cs)]
    same = [w for w in ran if w not in hit]
    missing = [w for w, cs in by.items() if not cs[0].ran]
    none = [w for w, cs in by.items() if cs[0].ran and w not in ran]
    who = "%s against `%s`" % (" and ".join("`%s`" % lab for lab in labels),
                               st["baseline"])
    if suite_run:
        out = ["**Answer.** Across the suite, %s changed %d of the %d "
               "workloads run (%s)%s" % (
                   who, len(hit), len(ran),
                   RULE % "each workload's operations per second",
                   ":" if hit else ".")]
    else:
        out = ["**What changed.** %s (%s)%s" % (
            who, RULE % "the headline", ":" if hit else ".")]
    if hit:
        out.append("")
        for w, cs in hit.items():
            out.append("- `%s`: %s" % (w, "; ".join(
                "`%s` %s, %s" % (c.label, F.pct_ci(c.comparison),
                                 function_words(c.top))
                if c.changed else "`%s` %s, unchanged" % (
                    c.label, F.pct_ci(c.comparison)) if c.comparison
                else "`%s` n/a" % c.label for c in cs)))
    tail = []
    if same:
        tail.append("Unchanged within %s: %s." % (
            "their floors" if len(same) > 1 else "its floor", _names(same)))
    if none:
        tail.append("No estimate: %s." % _names(none))
    if missing:
        tail.append("Not run: %d workload%s (%s)." % (
            len(missing), "s" if len(missing) > 1 else "",
            _names(missing)))
    if tail:
        out += ["", " ".join(tail)]
    return out
