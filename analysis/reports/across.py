"""REPORT.md's "Across the kernel": the jump-label question on every
workload of a suite run (`./run_all.sh --workload suite`; the figures:
analysis/results/suite.py), by the report's rule for each workload's own
headline, with its A/A control, its environment floor (where one was
measured), kernel instructions and static-key site executions per
operation."""
from analysis.reporting import fmt as F
from analysis.reporting.fmt import head
from analysis.results import suite
from lib import variants

FIGURE = "across"
NOT_RUN = ("Not run: this is no suite run. `./run_all.sh --workload suite` "
           "runs the same kernels on every workload of lib/workloads.py "
           "(perf bench, stress-ng stressors of mm, the scheduler, IPC, the "
           "VFS and sockets) and fills this section.")


def _called(c):
    """The verdict of one comparison, in a word or three."""
    if not c or F.missing(c.get("pct_change")):
        return "n/a"
    if c.get("significant"):
        word = "faster" if c["pct_change"] > 0 else "slower"
        return word if c.get("floor_pts") else word + " (here only)"
    return "not resolved"


def _cell(c):
    return "n/a" if not c else "%s %s" % (F.pct_ci(c), _called(c))


def _aa(r):
    if not r.aa:
        return "none"
    return "FAILED" if r.aa.get("significant") else "passed"


def _floor(r):
    c = next(iter(r.changes.values()), None) or {}
    return "%.2f pts" % c["floor_pts"] if c.get("floor_pts") else "none"


def _num(x, digits=1):
    return "n/a" if x is None else "{:,.{}f}".format(x, digits)


def table(rows, labels, baseline):
    """One row per workload: each label against the baseline in the
    workload's headline, the A/A, the floor, instructions and sites."""
    out = []
    for r in rows:
        if not r.st:
            out.append(["`%s`" % r.workload.name, r.workload.area]
                       + ["not run"] * (len(labels) + 5))
            continue
        out.append(
            ["`%s`" % r.workload.name, r.workload.area]
            + [_cell(r.changes.get(lab)) for lab in labels]
            + [_aa(r), _floor(r), _num(r.insns, 0),
               "; ".join("%s %s" % (F.pct(r.insns_changes[lab]["pct_change"]),
                                    lab) for lab in labels
                         if lab in r.insns_changes) or "n/a",
               "; ".join("%s %s" % (_num(x), lab)
                         for lab, x in sorted(r.sites.items())) or "n/a"])
    return F.table(
        ["workload", "area"]
        + ["`%s` vs `%s`, ops/s" % (lab, baseline) for lab in labels]
        + ["A/A", "env. floor", "kernel insns/op (`%s`)" % baseline,
           "kernel insns/op change", "static-key site execs/op"],
        out, "ll" + "l" * len(labels) + "llrll")


def ranking(rows, jump):
    """Which workloads show jump labels' gain largest and smallest, and
    why, from the site counts."""
    have = [r for r in rows if r.changes.get(jump)
            and not F.missing(r.changes[jump].get("pct_change"))]
    if len(have) < 2:
        return None
    have.sort(key=lambda r: -r.changes[jump]["pct_change"])

    def words(r):
        d = suite.site_density(r, jump)
        per = suite.insns_per_site(r, jump)
        return "`%s` (%s; %s site executions per 1,000 kernel " \
            "instructions%s)" % (
                r.workload.name, F.pct(r.changes[jump]["pct_change"]),
                _num(d, 2), "" if per is None else
                ", %.1f kernel instructions saved per site execution" % per)
    return ("Largest gain of `%s`: %s; smallest: %s. The gain follows how "
            "often the path passes a static-key site: each execution "
            "of a site is a patched no-op or jump in `%s` where the "
            "baseline reads the key's count and tests it, so the "
            "workloads whose kernel paths pass sites most often per "
            "instruction gain most." % (
                jump, ", ".join(words(r) for r in have[:2]),
                ", ".join(words(r) for r in have[-2:][::-1]), jump))


def section(res, figure_lines):
    """The section, or NOT_RUN for a run that is no suite; figure_lines:
    the link to the suite's figure (report.plots)."""
    rows = suite.rows(res.path)
    if not rows:
        return NOT_RUN
    st = rows[0].st
    labels = st["groups"]["main"]
    baseline = st["baseline"]
    others = [lab for lab in labels if lab != baseline]
    jump = variants.JUMP if variants.JUMP in others else others[0]
    no_floor = [r.workload.name for r in rows
                if r.st and _floor(r) == "none"]
    text = [
        "Every workload of lib/workloads.py on the same kernels, each a "
        "results dir of its own under `suite/` (its own REPORT.md: "
        "`analysis/report` on it), compared by the first table's rule: "
        "the median of per-seed changes of the workload's operations per "
        "second, its 95% interval, significant when the sign test says "
        "so and the interval clears the environment floor. One operation "
        "is the workload's own (lib/workloads.py `op`): a tbench "
        "operation, a pipe round trip, a message, a system call, a "
        "stress-ng bogo op.", "",
        table(rows, others, baseline), "",
        "`(here only)`: significant in this environment, but no "
        "environment floor was measured for the workload (the study of "
        "docs/calibration.md ran on tbench), so a harness change alone "
        "might move it as much; nothing is called across environments "
        "for %s." % (", ".join("`%s`" % n for n in no_floor) or "none"),
    ]
    rank = ranking(rows, jump)
    if rank:
        text += ["", rank]
    text += [""] + figure_lines
    return "\n".join([head("Jump labels and plain reads against `%s`, "
                           "workload by workload" % baseline), ""] + text)
