"""Where a difference comes from, shown: the per-function table of a Diff
(analysis/comparison/profile.py) for analysis/profile-diff, and REPORT.md's
section "Where the difference comes from" (each kernel against the baseline,
with plots/img/profile.svg; the static-key sites' part only where the two
kernels differ in their static keys, runinfo.keys_differ)."""
import os

from analysis.sections import fmt as F
from analysis.comparison import profile
from analysis.results import runinfo
from analysis.results.load import FormatError
from analysis.sections.fmt import head
from lib import ROOT
from lib.format import schema

# Functions per comparison in REPORT.md and its figure
# (analysis/sections/figures.py).
TOP = 10
FIGURE = "profile"
NOT_RUN = ("Not in this run: its tries have no per-function profile "
           "(raw/*.profile.gz), which the branch-count plugin writes for each "
           "try of an icount run; `analysis/profile-diff` compares any two "
           "labels of a run that has them.")
INTRO = (
    "An exact profile of tbench's window per kernel function (the TCG "
    "plugin attributes every executed instruction to the function it lies "
    "in; `[kernel]`: kernel code outside the symbol table, `[user]`: user "
    "space, apart from the kernel total), per tbench operation. `diff/op` "
    "is the difference of the per-op means, so the listed functions, "
    "`other` and the total add up exactly; the total is the difference of "
    "kernel instructions per op in \"Branch counts\". Beside it, the "
    "headline's rule over the per-seed paired differences: their median "
    "with its distribution-free 95% interval, `~` when that holds 0 once "
    "widened by the environment floor (`floor`: how far a harness change "
    "alone moved the function on the workload's environment study, "
    "`analysis/function-floors/`; a function the study did not run, "
    "`other` and the total take the kernel total's, marked `(total)`). ")
# Where two kernels differ in their static keys (runinfo.keys_differ).
INTRO_SITES = (
    "`sites`: the function holds static-key "
    "checks, executed that many times per op (counted in the jump-label "
    "kernel; a check executes at the same places in every kernel); their "
    "part is those executions x the difference in instructions per "
    "disabled check (the selftest's count), the rest of the function's "
    "difference is other code. ")
INTRO_MORE = "`analysis/profile-diff` shows more functions and the model's " \
    "events."


# Below this a per-op figure is float noise (a try's ops are ~1e5, so
# the smallest figure a count gives is ~1e-5): shown as 0.
NOISE = 1e-9


def fig(x, signed=False):
    """A per-op figure: 2 decimals, 3 significant digits below 1."""
    if F.missing(x):
        return "n/a"
    x = 0.0 if abs(x) < NOISE else x
    spec = ("%+" if signed else "%") + (
        ".2f" if abs(x) >= 1 or x == 0 else ".3g")
    return spec % x


def median_cell(r):
    """'+37.00 [+36.90, +37.10]': the median of the paired differences
    and its interval."""
    if F.missing(r["lo"]):
        return "%s [CI n/a]" % fig(r["median"], True)
    return "%s [%s, %s]" % (fig(r["median"], True), fig(r["lo"], True),
                            fig(r["hi"], True))


def name_cell(r, code="`"):
    if r["kind"] == "other":
        return "other (%d functions)" % r["functions"]
    if r["kind"] == "total":
        return "**total, kernel**" if code else "TOTAL, kernel"
    if r["kind"] == "user":
        return "%s%s%s (apart)" % (code, r["name"], code)
    return "%s%s%s" % (code, r["name"], code)


def sites_cells(r):
    """(site executions per op, their part, the rest) of a row."""
    if r["sites"] is None:
        return ("-", "-", "-") if r["kind"] == "user" else (
            "not counted",) * 3
    if not r["sites"]:
        return "", "", ""
    if r["sites_part"] is None:
        return fig(r["sites"]), "not counted", "not counted"
    return fig(r["sites"]), fig(r["sites_part"], True), fig(r["rest"], True)


def floor_cell(r):
    """A row's floor per op, '(total)' after it when it is the kernel
    total's standing in for a function's own."""
    mark = " (total)" if r["kind"] in ("function", "user") and \
        not r["own_floor"] else ""
    return fig(r["floor"]) + mark


def share_cell(x):
    """A share of the total in %, '' when there is none."""
    if x is None:
        return ""
    return F.pct(0.0 if abs(x) < NOISE else 100 * x, 1)


def table(d, n, markdown=True, sites=True):
    """The n functions that changed most, other, total and [user]; the
    columns named by the labels (markdown: REPORT.md), or A and B; sites:
    with the static-key sites' columns."""
    rows = []
    for r in d.rows(n):
        rows.append([name_cell(r, "`" if markdown else ""), fig(r["a"]),
                     fig(r["b"]), fig(r["diff"], True), median_cell(r),
                     floor_cell(r), r["marker"], share_cell(r["share"])]
                    + (list(sites_cells(r)) if sites else []))
    a, b = ("`%s`" % profile.name(d.a), "`%s`" % profile.name(d.b)) \
        if markdown else ("A", "B")
    return F.table(["function", "%s/op" % a, "%s/op" % b,
                    "diff/op", "paired median [95% interval]", "floor",
                    "", "share"]
                   + (["sites: execs/op", "sites' part", "rest"] if sites
                      else []), rows, "lrrrrrcr" + ("rrr" if sites else ""))


def what(metric):
    """'kernel instructions (TCG plugin)' of a profile metric."""
    return schema.counter(profile.kernel_column(metric)).name


def why_not_counted(d):
    """Why a Diff has no sites' part, in a few words."""
    if d.sites_from is None:
        return "no kernel here counts static-key site executions (only " \
            "a jump-label kernel with a sites file does)"
    if d.metric not in profile.PER_CHECK:
        return "the selftest counts a disabled check's cost in " \
            "instructions only"
    missing = [profile.name(t) for t, c in zip((d.a, d.b), d.per_check)
               if c is None]
    return "no selftest count of instructions per disabled check " \
        "(selftest.csv `count.off_insns_per_iter`) for %s" % " and ".join(
            "`%s`" % m for m in missing)


def sites_line(d):
    """The share of the total that static-key sites explain, in words."""
    t = d.total
    if t["sites_part"] is None:
        return "Static-key sites: not counted (%s)." % why_not_counted(d)
    share = (lambda x: "n/a" if not t["diff"] else
             share_cell(x / t["diff"]).lstrip("+"))
    ca, cb = d.per_check
    return ("Static-key sites explain %s of the total's %s per op (%s): "
            "%s site executions per op (counted in `%s`) x %+d "
            "instructions per disabled check (`%s` %d, `%s` %d: "
            "selftest.csv); the rest, "
            "%s per op (%s), is other code." % (
                fig(t["sites_part"], True), fig(t["diff"], True),
                share(t["sites_part"]), fig(t["sites"]),
                profile.name(d.sites_from), d.delta, profile.name(d.a), ca,
                profile.name(d.b), cb, fig(t["rest"], True),
                share(t["rest"])))


def pairing(d):
    """'6 pairs by perturbation seed'."""
    return "%d pairs by %s" % (d.pairs, "perturbation seed" if d.key ==
                               "perturb_seed" else "round")


def floors_line(d):
    """Which environment floors judge a Diff, in words."""
    if d.floor_kind is None:
        return "no environment floor (two results dirs of one " \
            "environment)"
    own = "each function's own from %s, else " % os.path.relpath(
        d.function_floors.source, ROOT) if d.function_floors else \
        "no function floors for %s (analysis/calibrate --functions): " \
        "every function takes " % d.workload
    return "%s floors: %sthe kernel total's, %s per op" % (
        d.floor_kind, own, fig(d.floor))


def text(d, n):
    """analysis/profile-diff's output: who, the table, sites, notes."""
    out = ["%s: %s (%s, %d profiled tries)" % (
        tag, profile.name(t), t.res.path, len(t.runs))
        for tag, t in (("A", d.a), ("B", d.b))]
    out += ["%s per %s operation, B - A; %s; %s" % (
        what(d.metric), d.workload, pairing(d), floors_line(d)), "",
        table(d, n, markdown=False), "", sites_line(d)]
    out += ["note: " + x for x in d.notes()]
    return "\n".join(out) + "\n"


def section(res, st, figure):
    """REPORT.md's section; figure: the lines linking plots/profile."""
    try:
        diffs = profile.against_baseline(res)
    except FormatError as e:
        return "Not shown: %s." % e
    if not diffs:
        if not profile.has_profiles(res):
            return NOT_RUN
        return "No comparison: no `%s` runs with a profile." % res.baseline
    keys = [runinfo.keys_differ(res.meta, d.b.label, d.a.label)
            for d in diffs]
    out = [INTRO + (INTRO_SITES if any(keys) else "") + INTRO_MORE]
    for d, k in zip(diffs, keys):
        out += ["", head("`%s` against `%s`: the functions that "
                         "changed most" % (d.b.label, d.a.label)),
                "", (sites_line(d) + " " if k else "")
                + "%s." % pairing(d).capitalize(), "", table(d, TOP, sites=k)]
        notes = d.notes()
        out += ["", "; ".join(notes) + "."] if notes else []
    return "\n".join(out + [""] + figure)
