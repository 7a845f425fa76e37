"""REPORT.md's "Across the kernel": the run's question (the jump-label
question, or a user's A/B) on every workload of a suite run
(`./run_all.sh --workload suite`; the figures: analysis/results/suite.py),
by the report's rule for each workload's own headline, with its A/A
control (when the run has controls), its environment floor (where one
was measured), kernel instructions per operation and, where the kernels
compared differ in their static keys (runinfo.keys_differ: jump labels
against atomic or plain reads), static-key site executions per operation
and the share of the change their checks account for."""
from analysis.comparison import pathkeys
from analysis.sections import fmt as F
from analysis.sections.fmt import head
from analysis.results import reference, runinfo, suite
from analysis.results.load import FormatError, Results
from analysis.stats import stats
from lib import variants

FIGURE = "across"
NOT_RUN = ("Not run: this is no suite run. `./run_all.sh --workload suite` "
           "runs the same kernels on every workload of lib/workloads.py "
           "(perf bench, stress-ng stressors of mm, the scheduler, IPC, the "
           "VFS and sockets) and fills this section.")


def _called(c, floor):
    """The verdict of one comparison, in a word or three (floor: None
    when the workload's environment floor was not measured)."""
    if not c or F.missing(c.get("pct_change")):
        return "n/a"
    if c.get("significant"):
        word = "faster" if c["pct_change"] > 0 else "slower"
        return word if floor is not None else word + " (here only)"
    return "not resolved"


def _cell(c, floor):
    return "n/a" if not c else "%s %s" % (F.pct_ci(c), _called(c, floor))


def aa_failed(rows):
    """{workload: failed} of the suite's A/A controls, each workload's twin
    against its kernel in its headline: one family, by Holm's rule at 5%
    over the workloads (one of fifteen at p<0.05 alone is what chance
    gives now and then)."""
    have = [r for r in rows if r.aa]
    rejected = stats.holm([r.aa["p_t"] if r.aa.get("significant") else 1.0
                           for r in have])
    return {r.workload.name: bad for r, bad in zip(have, rejected)}


def _aa(r, failed):
    if not r.aa:
        return "none"
    if failed[r.workload.name]:
        return "FAILED"
    return "passed" + (" (p=%.3f alone)" % r.aa["p_t"]
                       if r.aa.get("significant") else "")


def _floor(r):
    return "none" if r.floor is None else "%.2f pts" % r.floor


def _num(x, digits=1):
    return "n/a" if x is None else "{:,.{}f}".format(x, digits)


def _share(part, change):
    """part of change as a percentage, or n/a."""
    if part is None or change is None or abs(change) < 1e-9:
        return "n/a"
    return "%.0f%%" % (100.0 * part / change)


def table(rows, labels, baseline, jump, per_check, failed, keys=True,
          aa=True):
    """One row per workload: each label against the baseline in the
    workload's headline, the A/A (aa: when the run has controls), the
    floor, then jump's kernel instructions per op against the baseline's
    and, where the two differ in their static keys (keys), its site
    executions per op and the share of that change its checks account
    for."""
    out = []
    width = len(labels) + 3 + (1 if aa else 0) + (2 if keys else 0)
    for r in rows:
        if not r.st:
            out.append(["`%s`" % r.workload.name, r.workload.area]
                       + ["not run"] * width)
            continue
        change = suite.insns_change(r, jump)
        c = r.insns_changes.get(jump)
        out.append(
            ["`%s`" % r.workload.name, r.workload.area]
            + [_cell(r.changes.get(lab), r.floor) for lab in labels]
            + ([_aa(r, failed)] if aa else [])
            + [_floor(r), _num(r.insns, 0),
               "n/a" if change is None else "%s (%s)" % (
                   "{:+,.1f}".format(change), F.pct(c["pct_change"]))]
            + ([_num(r.sites.get(jump)),
                _share(suite.checks_part(r, jump, per_check), change)]
               if keys else []))
    return F.table(
        ["workload", "area"]
        + ["`%s` vs `%s`, ops/s" % (lab, baseline) for lab in labels]
        + (["A/A"] if aa else [])
        + ["env. floor", "kernel insns/op `%s`" % baseline,
           "`%s` change" % jump]
        + (["`%s` site execs/op" % jump, "checks' share"] if keys else []),
        out, "ll" + "l" * len(labels) + ("l" if aa else "") + "lrr"
        + ("rr" if keys else ""))


def _extremes(group):
    """(largest, smallest) of a group sorted largest first: two each, no
    workload in both."""
    return group[:2], group[2:][-2:][::-1]


def ranking(rows, jump, per_check, keys=True):
    """Which workloads show jump's change largest and smallest (of those
    where the comparison is significant), gains and losses apart, and,
    where jump and the baseline differ in their static keys (keys), how
    much of each change their checks account for."""
    have = [r for r in rows if (r.changes.get(jump) or {}).get("significant")]
    if len(have) < 2:
        return None
    have.sort(key=lambda r: -r.changes[jump]["pct_change"])
    gains = [r for r in have if r.changes[jump]["pct_change"] > 0]
    losses = [r for r in have if r.changes[jump]["pct_change"] < 0][::-1]

    def words(r):
        pct = F.pct(r.changes[jump]["pct_change"])
        if not keys:
            change = suite.insns_change(r, jump)
            return "`%s` (%s%s)" % (r.workload.name, pct, "" if change is
                                    None else "; %s kernel instructions "
                                    "per op" % "{:+,.1f}".format(change))
        share = _share(suite.checks_part(r, jump, per_check),
                       suite.insns_change(r, jump))
        return "`%s` (%s; %s site executions per 1,000 kernel "\
            "instructions, whose checks account for %s of its change in "\
            "kernel instructions)" % (
                r.workload.name, pct,
                _num(suite.site_density(r, jump), 2), share)
    parts = []
    for noun, group in (("gain", gains), ("loss", losses)):
        if not group:
            continue
        large, small = _extremes(group)
        text = "largest %s of `%s`: %s." % (
            noun, jump, ", ".join(words(r) for r in large))
        if small:
            text += " Smallest%s: %s." % (
                " " + noun if gains and losses else "",
                ", ".join(words(r) for r in small))
        parts.append(text)
    text = "Among the workloads where it is resolved, %s" % " ".join(
        p if i == 0 else p[0].upper() + p[1:] for i, p in enumerate(parts))
    base = rows[0].st["baseline"]
    if not keys:
        return text + " `analysis/profile-diff --workload NAME %s %s` " \
            "names the functions whose kernel instructions changed." % (
                base, jump)
    return text + (
        " A disabled check costs "
        "`%s` %s fewer kernel instructions than the baseline's "
        "(selftest.csv); where the site executions times that account for "
        "about all of a workload's change, the kernel's gain is the "
        "checks' and grows with how densely its path passes sites, and "
        "the gain in operations per second is that, diluted by the share "
        "of the work done in user space; where they do not, "
        "the jump-label kernel ran other work on that path (the "
        "workload's timing-dependent choices: `analysis/profile-diff "
        "--workload NAME %s %s` names the functions)." % (
            jump, "n/a" if per_check is None else per_check, base, jump))


def _keys(keys):
    if keys is None:
        return "build not at hand"
    shown = ", ".join("`%s`" % k for k in keys[:pathkeys.SHOWN_KEYS])
    more = len(keys) - pathkeys.SHOWN_KEYS
    return (shown or "-") + (" and %d more" % more if more > 0 else "")


def busiest(res, rows, jump):
    """Per workload, the functions whose static-key sites `jump` passes
    most often (its per-function profiles), and the keys those sites test
    (the jump table of the jump-label build, when it is at hand)."""
    build = pathkeys.build_dir(res, jump)
    keys = pathkeys.site_keys(build) if build else None
    out = []
    for r in rows:
        if not r.st:
            continue
        try:
            top = pathkeys.busiest(Results(r.path), keys, jump)
        except FormatError:
            top = []
        out.append(["`%s`" % r.workload.name, "; ".join(
            "`%s` %s/op: %s" % (name, _num(x), _keys(k))
            for name, x, k in top) or "not counted (no profiles)"])
    return F.table(["workload", "functions whose sites `%s` passes most "
                    "(executions per op): the keys they test" % jump],
                   out, "ll")


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
    no_floor = [r.workload.name for r in rows if r.st and r.floor is None]
    per_check = suite.saved_per_check(res.path, baseline, jump)
    keys = runinfo.keys_differ(res.meta, jump, baseline)
    aa = any(r.aa for r in rows)
    text = [
        "Every workload of lib/workloads.py on the same kernels, each a "
        "results dir of its own under `suite/` (its own REPORT.md: "
        "`analysis/report` on it), compared by the first table's rule: "
        "the median of per-seed changes of the workload's operations per "
        "second, its 95% interval, significant when the sign test says "
        "so and the interval clears the workload's environment floor "
        "(tbench's from the study of docs/calibration.md; every other's "
        "from a smaller study of its own, analysis/floors.json: "
        "docs/workloads.md). One operation "
        "is the workload's own (lib/workloads.py `op`): a tbench "
        "operation, a pipe round trip, a message, a system call, a "
        "stress-ng bogo op.", "",
        table(rows, others, baseline, jump, per_check, aa_failed(rows),
              keys, aa)]
    if aa:
        text += [
            "", "A/A: each workload's twin against its kernel in its "
            "headline, the %d controls one family by Holm's rule at 5%% (a "
            "control significant alone says its p)."
            % len([r for r in rows if r.aa])]
    if no_floor:
        text += [
            "", "`(here only)`: significant in this environment, but no "
            "environment floor was measured for the workload "
            "(analysis/floors.json), so a harness change alone might move "
            "it as much; nothing is called across environments for %s."
            % ", ".join("`%s`" % n for n in no_floor)]
    rank = ranking(rows, jump, per_check, keys)
    if rank:
        text += ["", rank]
    if keys:
        text += ["", head("The static-key sites each workload passes most"),
                 "", busiest(res, rows, jump)]
    text += [""] + figure_lines
    what = " and ".join(reference.words(lab) for lab in others)
    return "\n".join([head("%s against `%s`, workload by workload" % (
        what[0].upper() + what[1:], baseline)), ""] + text)
